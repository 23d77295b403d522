"""Sequential comparisons (`accord.analysis.sequential`, `sequential_run`): the confidence
sequences hold their level over time, the stopping rule says which way it stopped, and a run
plays block by block, stops, writes the sequence, and resumes the same sequence."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from accord.analysis.sequential import (
    CsPoint,
    betting_bounds,
    decide,
    difference_sequence,
    eb_sequence,
    tuned_bet,
)
from accord.analysis.sequential_run import run_until_decided
from accord.cli.main import app
from accord.core.errors import ConfigError
from accord.runner.config import Batch, Defaults, Experiment, Stop, expand


def test_the_betting_sequence_holds_the_mean_at_every_time_at_once() -> None:
    rng = np.random.default_rng(5)
    x = (rng.random((300, 200)) < 0.3).astype(float)
    low, high = betting_bounds(x)
    ever_missed = np.any((low > 0.3) | (high < 0.3), axis=1)
    assert ever_missed.mean() <= 0.05  # Ville: P(ever excluding the truth) <= alpha
    assert np.all(np.diff(low, axis=1) >= 0) and np.all(np.diff(high, axis=1) <= 0)
    assert float(np.median(high[:, -1] - low[:, -1])) < 0.3


def test_the_empirical_bernstein_sequence_holds_its_level_too() -> None:
    rng = np.random.default_rng(6)
    missed = 0
    for _ in range(200):
        xs = rng.beta(2, 5, 150)
        seq = eb_sequence(list(xs))
        missed += any(lo > 2 / 7 or hi < 2 / 7 for lo, hi in seq)
    assert missed / 200 <= 0.05


def test_the_tuned_sequence_holds_its_level_and_decides_sooner_at_the_planned_effect() -> None:
    rng = np.random.default_rng(7)
    # Differences in [-1, 1] mapped onto [0, 1]: the calendar's spread 0.137 and effect 0.035.
    bet = tuned_bet(0.035 / 2, 0.137 / 2)
    assert bet == pytest.approx(0.0175 / (0.0685**2 + 0.0175**2))
    null = (np.clip(rng.normal(0.0, 0.137, (300, 250)), -1, 1) + 1) / 2
    low, high = betting_bounds(null, bet=bet, grid=800)
    assert np.any((low > 0.5) | (high < 0.5), axis=1).mean() <= 0.05  # Ville, at every time
    shifted = (np.clip(rng.normal(0.035, 0.137, (200, 250)), -1, 1) + 1) / 2
    tuned_low, _ = betting_bounds(shifted, bet=bet, grid=800)
    plug_low, _ = betting_bounds(shifted, grid=800)

    def first_decision(lows: np.ndarray) -> np.ndarray:
        hit = lows > 0.5
        return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, 10**6)

    tuned, plug = first_decision(tuned_low), first_decision(plug_low)
    assert (tuned <= 250).mean() > (plug <= 250).mean()
    assert np.median(tuned) < np.median(plug)


def test_a_tuned_sequence_needs_a_planned_difference() -> None:
    with pytest.raises(ConfigError, match="planned difference above 0"):
        tuned_bet(0.0, 0.1)
    points = difference_sequence([0.1] * 60, effect=0.1, sd=0.05)
    assert points[-1].low > 0 and points[-1].mean == pytest.approx(0.1)


def test_differences_outside_the_stated_range_are_refused() -> None:
    with pytest.raises(ConfigError, match="outside what a metric in \\[0, 1\\] allows"):
        difference_sequence([0.5, 1.5])
    points = difference_sequence([0.2] * 40, lo=0.0, hi=1.0)
    assert points[-1].mean == pytest.approx(0.2) and points[-1].low > 0


def test_the_stopping_rule_says_which_way_it_stopped() -> None:
    def pts(*bounds: tuple[float, float]) -> list[CsPoint]:
        return [CsPoint(i + 1, 0.0, lo, hi) for i, (lo, hi) in enumerate(bounds)]

    assert decide(pts((-1, 1), (0.01, 0.3)), max_pairs=10).status == "decided"
    assert "B is below A" in decide(pts((-1, 1), (-0.3, -0.01)), max_pairs=10).reason
    eq = decide(pts((-1, 1), (-0.04, 0.03)), max_pairs=10, margin=0.05)
    assert eq.status == "equivalent" and eq.pairs == 2
    assert decide(pts((-1, 1), (-0.04, 0.03)), max_pairs=10).status == "continue"
    assert decide(pts((-1, 1), (-0.5, 0.5)), max_pairs=2).status == "undecided"
    # A look only where the plan looks: pair 1 decides nothing when the first look is pair 2.
    early = decide(pts((0.1, 0.2), (-0.5, 0.5)), max_pairs=10, checks=[2])
    assert early.status == "continue"


def calendar_two_sides() -> Experiment:
    return Experiment(
        name="seq",
        defaults=Defaults(game="calendar", suite="canonical"),
        batches=[
            Batch(name="imap", agents=["imap"]),
            Batch(name="dsm", agents=["dsm-welfare"]),
        ],
    )


def test_a_run_stops_when_decided_and_resumes_the_same_sequence(tmp_path: Path) -> None:
    specs = expand(calendar_two_sides())
    rule = Stop(metric="success_rate", block=5, max_pairs=20, margin=0.4)
    out = tmp_path / "run"
    result = run_until_decided(specs, out, rule)
    assert result["status"] == "equivalent", result["reason"]
    assert result["pairs"] < 20 and result["looks"][-1] == result["pairs"]
    played = sorted(p.name for p in (out / "traces").glob("*.json"))
    assert len(played) == result["games_played"] == 2 * result["pairs"] < len(specs)
    saved = json.loads((out / "sequential.json").read_text())
    assert saved["sequence"] == result["sequence"] and saved["rule"]["metric"] == "success_rate"
    again = run_until_decided(specs, out, rule, resume=True)
    assert again["sequence"] == result["sequence"] and again["status"] == "equivalent"
    assert sorted(p.name for p in (out / "traces").glob("*.json")) == played
    # Continuing with a smaller margin goes on from the same pairs: the same first looks.
    more = run_until_decided(specs, out, rule.model_copy(update={"margin": 0.05}), resume=True)
    assert more["sequence"][: len(result["sequence"])] == result["sequence"]
    assert more["pairs"] > result["pairs"]


def test_values_outside_the_rule_s_range_are_refused(tmp_path: Path) -> None:
    specs = expand(calendar_two_sides())
    rule = Stop(metric="messages_per_meeting", block=2, max_pairs=4)
    with pytest.raises(ConfigError, match="outside the range \\[0, 1\\] the stop: rule states"):
        run_until_decided(specs, tmp_path / "run", rule)


def test_one_side_only_is_refused(tmp_path: Path) -> None:
    exp = Experiment(name="one", defaults=Defaults(game="calendar", suite="canonical",
                                                   agents=["imap"]))  # fmt: skip
    with pytest.raises(ConfigError, match="needs two sides"):
        run_until_decided(expand(exp), tmp_path / "run", Stop(metric="success_rate"))


def test_the_command_runs_until_decided_and_prints_the_sequence(tmp_path: Path) -> None:
    path = tmp_path / "seq.yaml"
    path.write_text(
        "name: seq\ndefaults: {game: calendar, suite: canonical}\nbatches:\n"
        "  - {name: imap, agents: [imap]}\n  - {name: dsm, agents: [dsm-welfare]}\n"
        "stop: {metric: adjusted_excess, block: 4, max_pairs: 8, margin: 0.5, range: [0, 2]}\n"
    )
    out = tmp_path / "run"
    args = ["run", str(path), "--out", str(out), "--until-decided", "success_rate"]
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, args)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Sequential comparison of success_rate in blocks of 4 pairs" in text
    assert "look: 4 pairs, success_rate B - A sequence" in text
    data = json.loads((out / "sequential.json").read_text())
    assert data["rule"]["metric"] == "success_rate" and data["rule"]["range"] == [0.0, 2.0]
    assert f"{data['status']}: " in text and f"of {data['games_planned']} games played" in text
    from accord.analysis.report import build_report

    build_report([out], out / "report")
    md = (out / "report" / "sequential.md").read_text()
    sides = "batch 'imap' against batch 'dsm'"
    assert f"Sequential comparison of success_rate (B - A, {sides}): {data['status']}" in md
    assert md.rstrip().endswith("| stop |")


def test_a_plan_locked_before_the_tuning_fields_keeps_its_digest() -> None:
    import hashlib

    from accord.analysis.analysis_plan import digest
    from accord.runner.config import AnalysisPlan

    plan = AnalysisPlan(primary=["success_rate"], stop=Stop(metric="success_rate", max_pairs=20))
    before = plan.model_dump(mode="json")
    assert before["stop"].pop("effect") is None and before["stop"].pop("sd") is None
    text = json.dumps(before, sort_keys=True, separators=(",", ":"))
    assert digest(plan) == hashlib.sha256(text.encode()).hexdigest()
    tuned = AnalysisPlan(
        primary=["success_rate"],
        stop=Stop(metric="success_rate", max_pairs=20, effect=0.035, sd=0.137),
    )
    assert digest(tuned) != digest(plan)
