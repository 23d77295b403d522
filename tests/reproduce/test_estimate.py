"""Estimates from a pilot: tokens per row group, prices where known, time."""

from __future__ import annotations

from pathlib import Path

from accord.reproduce.estimate import estimate, measure, needs_payment, pilot_specs
from accord.reproduce.plan import make_plan
from accord.runner.run import run_sync


def test_a_pilot_measures_each_row_group_and_prices_the_models(tmp_path: Path) -> None:
    plan = make_plan("grounding", models=["mock/schema"], smoke=True)
    trial = pilot_specs(plan.specs, 1)
    assert len(trial) == len(plan.groups()) == 1
    assert needs_payment(plan.specs) == [] and needs_payment(
        make_plan("grounding", models=["openai/gpt-5-mini"], smoke=True).specs
    ) == ["openai/gpt-5-mini"]
    run_sync(trial, tmp_path / "pilot")
    history = measure([tmp_path / "pilot"], "a pilot")
    est = estimate(plan.specs, history)
    [mock] = est.models
    assert mock.games == len(plan.specs) and mock.usd == 0.0 and "free" in mock.note
    assert mock.input_tokens > 0 and est.seconds is not None and est.timed_games == 6
    # With prices in the seat's options the tokens are priced (USD per million tokens).
    priced = [
        s.model_copy(update={"agents": [a.model_copy(update={"options": {"prices": {
            "input_per_mtok": 1.0, "output_per_mtok": 2.0}}}) for a in s.agents]})
        for s in plan.specs
    ]  # fmt: skip
    [paid] = estimate(priced, history).models
    assert paid.usd == (paid.input_tokens * 1.0 + paid.output_tokens * 2.0) / 1e6 > 0


def test_without_history_nothing_is_guessed() -> None:
    plan = make_plan("grounding", models=["mock/schema"], smoke=True)
    est = estimate(plan.specs, measure([], "nothing"))
    assert est.models[0].usd is None and est.seconds is None
    assert any("unknown" in line for line in est.lines(4))
