"""Power from the right variance (`accord.analysis.power_pilot`, `accord plan`): the paired
plan from the real paired differences when the pilot holds both arms, never a pooled SD, a
labelled lower bound from one arm; the sizes agree with statsmodels' t-test power and with a
simulation."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from accord.analysis.paired import GameRecord
from accord.analysis.power import games_needed
from accord.analysis.power_pilot import paired_differences, two_arm_plan
from accord.analysis.welch import t_two_sided_p
from accord.cli.main import app
from accord.runner.config import Defaults, Experiment, expand
from accord.runner.run import run_sync


@pytest.mark.parametrize(("delta", "sd"), [(0.035, 0.137), (0.05, 0.5), (0.2, 0.3), (0.1, 0.21)])
def test_sizes_agree_with_statsmodels(delta: float, sd: float) -> None:
    from statsmodels.stats.power import TTestIndPower, TTestPower

    paired = TTestPower().solve_power(effect_size=delta / sd, alpha=0.05, power=0.8)
    unpaired = TTestIndPower().solve_power(effect_size=delta / sd, alpha=0.05, power=0.8)
    assert abs(games_needed(delta, sd, paired=True) - math.ceil(paired)) <= 1
    assert abs(games_needed(delta, sd, paired=False) - math.ceil(unpaired)) <= 1


def arms(n: int = 60, seed: int = 1) -> tuple[list[GameRecord], list[GameRecord]]:
    """Scenario effects spread 0.2; B is A + 0.4 + per-scenario noise of SD 0.1."""
    rng = np.random.default_rng(seed)
    base = rng.normal(0.0, 0.2, n)
    b_val = base + 0.4 + rng.normal(0.0, 0.1, n)
    a = [GameRecord(f"a{i}", "g-v1", i, f"s{i}", "", {"m": float(base[i])}, {}, (),
                    {"seat 0": "x"}) for i in range(n)]  # fmt: skip
    b = [GameRecord(f"b{i}", "g-v1", i, f"s{i}", "", {"m": float(b_val[i])}, {}, (),
                    {"seat 0": "y"}) for i in range(n)]  # fmt: skip
    return a, b


def test_two_arms_use_the_real_paired_differences_and_never_a_pooled_sd() -> None:
    a, b = arms()
    plan = two_arm_plan(a, b, "m", 0.05, power=0.8, alpha=0.05)
    diffs = paired_differences(a, b, "m")
    assert plan["pairs"] == 60 and plan["sd_paired"] == pytest.approx(np.std(diffs, ddof=1))
    assert plan["sd_paired"] == pytest.approx(0.1, abs=0.03)
    va, vb = [r.metrics["m"] for r in a], [r.metrics["m"] for r in b]
    pooled = float(np.std(va + vb, ddof=1))  # what pooling the arms would give
    own = math.sqrt((np.var(va, ddof=1) + np.var(vb, ddof=1)) / 2)
    assert plan["sd"] == pytest.approx(own) and pooled > 1.4 * own
    assert plan["scenarios_paired"] == games_needed(0.05, plan["sd_paired"], paired=True)
    assert plan["lower_bound"] is False


def test_the_planned_size_has_the_planned_power_by_simulation() -> None:
    sd, delta = 0.137, 0.035
    n = games_needed(delta, sd, paired=True)
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(600):
        d = rng.normal(delta, sd, n)
        t = float(d.mean()) / (float(d.std(ddof=1)) / math.sqrt(n))
        hits += t_two_sided_p(t, n - 1) < 0.05
    assert hits / 600 == pytest.approx(0.8, abs=0.05)


def test_the_command_plans_from_both_arms_or_labels_one_arm_a_lower_bound(tmp_path: Path) -> None:
    def play(name: str, agent: str, repeats: int = 1) -> Path:
        exp = Experiment(name="p", defaults=Defaults(game="negotiation", games=8, repeats=repeats,
                         agents=[agent], options={"rounds": 2}))  # fmt: skip
        run_sync(expand(exp), tmp_path / name)
        return tmp_path / name

    a, b = play("a", "cooperative"), play("b", "greedy")
    cli = CliRunner(env={"COLUMNS": "250"})
    args = ["plan", "--from", str(a), "--from", str(b), "--detect", "0.05", "-m", "efficiency"]
    out = cli.invoke(app, args)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert "from the SD of 8 real paired differences of the pilot" in text
    one = cli.invoke(app, ["plan", "--from", str(play("r", "greedy", repeats=2)), "--detect",
                           "0.05", "-m", "efficiency"])  # fmt: skip
    assert one.exit_code == 0, one.output
    text = " ".join(one.output.split())
    assert "paired (both sides on the same scenarios): at least 2 scenarios (a lower bound" in text
    assert "MDD paired 0: the agents repeat exactly" in text
