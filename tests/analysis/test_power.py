"""Power and the noise floor (`accord.analysis.power`, `power_noise`): the stated power of the
minimum detectable difference is what 1,000 simulated comparisons achieve (within five
points), for the paired t-test, the two-sample test and the sign-flip permutation test that
`accord compare` runs."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from accord.analysis.paired import GameRecord
from accord.analysis.power import games_needed, grid_detectable, mdd, power_of, t_quantile
from accord.analysis.power_noise import noise_floor

SIMS = 1000


def test_t_quantiles_match_tables() -> None:
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-3)
    assert t_quantile(0.975, 10) == pytest.approx(2.2281, abs=1e-4)
    assert t_quantile(0.8, 29) == pytest.approx(0.8538, abs=1e-3)
    assert t_quantile(0.025, 10) == pytest.approx(-2.2281, abs=1e-4)
    assert t_quantile(0.975, math.inf) == pytest.approx(1.95996, abs=1e-4)


def _paired_rejections(delta: float, sd: float, n: int, seed: int) -> float:
    """Share of SIMS paired t-tests (two-sided, 5%) that reject, the true difference delta."""
    rng = np.random.default_rng(seed)
    d = rng.normal(delta, sd, size=(SIMS, n))
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
    return float(np.mean(np.abs(t) > t_quantile(0.975, n - 1)))


def _unpaired_rejections(delta: float, sd: float, n: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    a = rng.normal(0.0, sd, size=(SIMS, n))
    b = rng.normal(delta, sd, size=(SIMS, n))
    pooled = (a.var(axis=1, ddof=1) + b.var(axis=1, ddof=1)) / 2
    t = (b.mean(axis=1) - a.mean(axis=1)) / np.sqrt(pooled * 2 / n)
    return float(np.mean(np.abs(t) > t_quantile(0.975, 2 * n - 2)))


@pytest.mark.parametrize(("sd", "n"), [(0.3, 8), (0.5, 30), (0.12, 120)])
def test_stated_power_of_the_paired_mdd_is_achieved(sd: float, n: int) -> None:
    delta = mdd(sd, n)
    assert _paired_rejections(delta, sd, n, seed=n) == pytest.approx(0.8, abs=0.05)
    # Other known effect sizes: the power function predicts the simulated rate.
    for effect in (0.5 * delta, 1.3 * delta):
        simulated = _paired_rejections(effect, sd, n, seed=n + 1)
        assert simulated == pytest.approx(power_of(effect, sd, n), abs=0.05)
    # No effect: the test's level.
    assert _paired_rejections(0.0, sd, n, seed=n + 2) == pytest.approx(0.05, abs=0.025)


@pytest.mark.parametrize(("sd", "n"), [(0.4, 10), (0.25, 60)])
def test_stated_power_of_the_unpaired_mdd_is_achieved(sd: float, n: int) -> None:
    delta = mdd(sd, n, paired=False)
    assert _unpaired_rejections(delta, sd, n, seed=n) == pytest.approx(0.8, abs=0.05)
    half = 0.5 * delta
    assert _unpaired_rejections(half, sd, n, seed=n + 1) == pytest.approx(
        power_of(half, sd, n, paired=False), abs=0.05
    )


def test_the_sign_flip_test_of_accord_compare_reaches_the_stated_power() -> None:
    sd, n, flips = 0.4, 20, 2000
    delta = mdd(sd, n)
    rng = np.random.default_rng(7)
    d = rng.normal(delta, sd, size=(SIMS, n))
    signs = rng.integers(0, 2, size=(flips, n)) * 2.0 - 1.0
    null = np.abs(signs @ d.T) / n  # (flips, SIMS)
    observed = np.abs(d.mean(axis=1))
    p = (1 + np.sum(null >= observed - 1e-12, axis=0)) / (1 + flips)
    assert float(np.mean(p <= 0.05)) == pytest.approx(0.8, abs=0.05)


def test_games_needed_is_the_smallest_size_reaching_the_difference() -> None:
    for paired in (True, False):
        n = games_needed(0.05, 0.3, paired=paired)
        assert mdd(0.3, n, paired=paired) <= 0.05 < mdd(0.3, n - 1, paired=paired)
    # Four times the games halve the MDD (roughly, at large n).
    assert games_needed(0.025, 0.3) == pytest.approx(4 * games_needed(0.05, 0.3), rel=0.02)
    assert games_needed(0.05, 0.0) == 2
    with pytest.raises(ValueError):
        games_needed(0.0, 0.3)


def test_grid_detectable_names_both_group_sizes() -> None:
    line = grid_detectable({"imap": 72, "dsm": 234, "one": 1})
    assert f"{mdd(0.5, 72, paired=False):.3f} at 72 games" in line
    assert f"{mdd(0.5, 234, paired=False):.3f} at 234 games" in line
    assert "too few" in grid_detectable({"one": 1})


def test_grid_detectable_never_exceeds_a_rates_range() -> None:
    # Two games per group: the formula gives 2.68 for a rate, more than it can ever differ by.
    assert mdd(0.5, 2, paired=False) > 1
    line = grid_detectable({"smoke": 2, "big": 72})
    assert "none at 2 games" in line and "2.68" not in line
    assert f"{mdd(0.5, 72, paired=False):.3f} at 72 games" in line
    detectable = [float(x) for x in re.findall(r"(\d+\.\d+) at \d+ games", line)]
    assert detectable == [pytest.approx(mdd(0.5, 72, paired=False), abs=1e-3)]


def rec(tid: str, scenario: str, value: float, batch: str = "b") -> GameRecord:
    return GameRecord(tid, "g-v1", 0, scenario, "", {"m": value}, {"batch": batch})


def test_noise_floor_pools_within_scenario_spread_and_counts_flips() -> None:
    # Scenario s0: 0, 1, 0 (flips); s1: 1, 1, 1 (steady); s2 played once (not repeated).
    cells = [("s0", 0), ("s0", 1), ("s0", 0), ("s1", 1), ("s1", 1), ("s1", 1), ("s2", 0)]
    games = [rec(str(i), s, v) for i, (s, v) in enumerate(cells)]
    (row,) = noise_floor(games)
    assert row.games == 7 and row.scenarios == 2 and row.repeats == 3.0
    # Pooled: squares 2/9 + 1/9 + ... = (2/3) over 2 + 2 degrees of freedom.
    assert row.within_sd == pytest.approx(math.sqrt((2 / 3) / 4))
    assert row.flip_share == 0.5
    assert row.mdd_paired == pytest.approx(mdd(row.within_sd * math.sqrt(2 / 3), 2))
    assert row.mdd_unpaired == pytest.approx(mdd(row.sd, 7, paired=False))


def test_noise_floor_without_repeats_says_nothing_about_scenarios() -> None:
    (row,) = noise_floor([rec(str(i), f"s{i}", i % 2) for i in range(6)])
    assert row.scenarios == 0 and math.isnan(row.within_sd) and math.isnan(row.mdd_paired)
    assert not math.isnan(row.mdd_unpaired)
