"""Cost: estimates from earlier runs and --max-cost, with a mock model at made-up prices."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.cost import estimate, measure
from accord.runner.run import run_sync
from accord.runner.specs import GameSpec
from accord.traces.io import iter_traces

PRICED = {
    "model": "mock/schema",
    "options": {"prices": {"input_per_mtok": 1000.0, "output_per_mtok": 4000.0}},
}


def _specs(n: int, agents: list[object] | None = None, batch: str = "b") -> list[GameSpec]:
    exp = Experiment(
        name="cost",
        defaults=Defaults(game="negotiation", games=n, agents=agents or [PRICED, "cooperative"]),
        batches=[Batch(name=batch, options={"rounds": 1, "talk_turns": 1})],
    )
    return expand(exp)


def test_estimate_from_an_earlier_run(tmp_path: Path) -> None:
    run_sync(_specs(3), tmp_path / "pilot")
    traces = list(iter_traces(tmp_path / "pilot" / "traces"))
    spent = sum(t.usage["total"].cost_usd for t in traces)
    assert spent > 0
    history = measure([tmp_path / "pilot"])
    est = estimate(_specs(6, batch="main"), history)
    assert (est.games, est.model_seats, est.estimated_seats) == (6, 6, 6)
    assert est.usd == pytest.approx(2 * spent)
    text = est.describe(concurrency=3)
    assert "$" in text and "for 6 games" in text and "unknown" not in text
    # Six games, three at a time: two waves of the pilot's mean game time.
    per_game = est.game_seconds / est.timed_games
    assert est.timed_games == 6 and "at --concurrency 3" in text
    assert f"{per_game:.1f} s a game" in text
    # Other prices for the same tokens scale the estimate; no history is said, not guessed.
    half = {"input_per_mtok": 500.0, "output_per_mtok": 2000.0}
    cheap = {"model": "mock/schema", "options": {"prices": half}}
    assert estimate(_specs(6, [cheap, "greedy"]), history).usd == pytest.approx(spent)
    server = {"model": "openai-compatible/x", "options": {"base_url": "http://127.0.0.1:9/v1"}}
    unknown = estimate(_specs(2, [server, "greedy"]), history)
    assert unknown.estimated_seats == 0
    assert "openai-compatible/x in negotiation-v3" in unknown.describe()
    # The mock and the bundled model cost nothing: no history is needed to say so.
    free = estimate(_specs(2, ["mock/echo", "greedy"]), {})
    assert free.estimated_seats == 2 and free.describe().startswith("Cost estimate: $0.0000")
    assert "--estimate-from" in unknown.describe()


def test_max_cost_stops_launching_games(tmp_path: Path) -> None:
    pilot = tmp_path / "pilot"
    run_sync(_specs(1), pilot)
    (one,) = iter_traces(pilot / "traces")
    cap = 2.5 * one.usage["total"].cost_usd
    out = tmp_path / "run"
    specs = _specs(10)
    report = run_sync(specs, out, concurrency=1, max_cost=cap)
    played = [t for t in iter_traces(out / "traces")]
    costs = [t.usage["total"].cost_usd for t in played]
    assert 1 < report.played == len(played) < 10
    assert report.not_launched == [s.trace_id for s in specs[report.played :]]
    # One game at a time: the last game launched was the one that reached the cap.
    assert sum(costs[:-1]) < cap <= sum(costs) == pytest.approx(report.spent_usd)
    assert report.stopped is not None and "--max-cost" in report.stopped
    # Resuming counts what the run already spent; a higher cap lets it finish.
    again = run_sync(specs, out, concurrency=1, max_cost=cap, resume=True)
    assert again.played == 0 and again.not_launched == report.not_launched
    done = run_sync(specs, out, concurrency=1, max_cost=100 * cap, resume=True)
    assert done.played == 10 - report.played and not done.not_launched and done.stopped is None


def test_cli_prints_the_estimate_and_the_stop(tmp_path: Path) -> None:
    cli = CliRunner(env={"COLUMNS": "200"})
    pilot = tmp_path / "pilot"
    run_sync(_specs(1), pilot)
    common = ["run", "negotiation", "--agents", "mock/schema,cooperative", "--games", "4"]
    common += ["-o", "rounds=1", "-o", "talk_turns=1", "--out", str(tmp_path / "run")]
    dry = cli.invoke(app, [*common, "--estimate-from", str(pilot), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "Would play 4 games" in dry.output and "Cost estimate: $0" in dry.output
    assert not (tmp_path / "run").exists(), "a dry run writes nothing"
    stopped = cli.invoke(app, [*common, "--max-cost", "0"])
    assert stopped.exit_code == 0, stopped.output
    assert "Stopped launching games" in stopped.output
    assert "4 games were not played" in stopped.output
    # A dry run refuses what a real run refuses: this server-less model needs its address.
    seat = [*common[:3], "openai-compatible/x,greedy", *common[4:]]
    refused = cli.invoke(app, [*seat, "--max-cost", "1", "--dry-run"])
    assert refused.exit_code == 2 and "needs base_url" in refused.output
    capped = cli.invoke(
        app, [*seat, "--model-base-url", "http://127.0.0.1:9/v1", "--max-cost", "1", "--dry-run"]
    )
    assert "--max-cost cannot count calls to openai-compatible/x" in capped.output


def test_an_estimate_without_history_says_unknown_and_why() -> None:
    est = estimate(_specs(2), {})
    text = est.describe()
    assert text.startswith("Cost estimate: unknown (2 model seats, none estimated)")
    assert "--estimate-from" in text and "Time estimate: unknown" in text
