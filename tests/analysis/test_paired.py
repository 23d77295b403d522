"""Paired comparison (`accord.analysis.paired`): matching by scenario, paired vs unpaired CIs,
exact and permutation p-values, Holm, unmatched games and the fall-backs."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from accord.analysis import paired
from accord.analysis import paired_stats as ps
from accord.analysis.paired import (
    GameRecord,
    check_sides,
    compare,
    parse_selector,
    record,
    select,
)
from accord.core.errors import ConfigError
from accord.traces.schema import SeatInfo, Trace


def rec(tid: str, scenario: str, metrics: dict[str, float], *, seed: int = 0, game: str = "g-v1",
        seating: str = "", players: tuple[str, ...] = (), **labels: Any) -> GameRecord:  # fmt: skip
    return GameRecord(tid, game, seed, scenario, seating, metrics, labels, players)


def two_sides(n: int = 30, shift: float = 0.1, seed: int = 3) -> tuple[list[GameRecord], ...]:
    """Scenarios differ a lot (sd 0.3); B is A plus `shift` plus a little noise."""
    rng = np.random.default_rng(seed)
    base = rng.normal(0.5, 0.3, n)
    a = [rec(f"a{i}", f"s{i}", {"m": float(base[i])}, seed=i) for i in range(n)]
    noise = rng.normal(0.0, 0.03, n)
    b = [rec(f"b{i}", f"s{i}", {"m": float(base[i] + shift + noise[i])}, seed=i) for i in range(n)]
    return a, b


def test_sign_flip_p_is_exact_for_small_samples() -> None:
    d = [0.5, 1.0, -0.25, 2.0]
    p, exact = ps.sign_flip_p(d)
    brute = np.mean(
        [abs(np.dot(s, d)) >= abs(sum(d)) - 1e-12 for s in itertools.product((1, -1), repeat=4)]
    )
    assert exact and p == pytest.approx(brute)
    assert ps.sign_flip_p([1.0, 2.0, 3.0]) == (pytest.approx(0.25), True)  # 2 of 8 sign vectors
    assert ps.sign_flip_p([0.0, 0.0]) == (1.0, True)


def test_random_sign_flips_approach_the_exact_p() -> None:
    rng = np.random.default_rng(1)
    d = rng.normal(0.3, 1.0, 16)
    exact, is_exact = ps.sign_flip_p(d)
    assert is_exact
    estimated = ps.sign_flip_p(np.concatenate([d, [0.0]]) * 1.0, permutations=20_000)
    # One zero difference more changes nothing but the mean's scale: same p, drawn not counted.
    assert not estimated[1] and estimated[0] == pytest.approx(exact, abs=0.015)


def test_label_permutation_p_separates_different_groups() -> None:
    assert ps.label_permutation_p([0.0] * 10, [1.0] * 10) < 0.001
    assert ps.label_permutation_p([0.1, 0.9, 0.5], [0.9, 0.1, 0.5]) == 1.0


def test_holm_adjusts_step_down_and_keeps_order() -> None:
    assert ps.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert ps.holm([0.5, float("nan"), 0.01])[::2] == pytest.approx([0.5, 0.02])


def test_paired_ci_is_narrower_than_unpaired_when_scenarios_dominate() -> None:
    a, b = two_sides()
    (row,) = compare(a, b).rows
    assert row.mode == "paired" and row.pairs == 30 and row.reason == ""
    assert row.diff == pytest.approx(0.1, abs=0.02)
    pw = row.paired_ci[1] - row.paired_ci[0]
    uw = row.unpaired_ci[1] - row.unpaired_ci[0]
    assert pw < uw / 3
    assert row.paired_ci[0] > 0 > row.unpaired_ci[0] - 0.2  # paired excludes 0
    assert row.p < 0.001 and not row.p_exact and row.p_holm == row.p


def test_repeats_are_averaged_per_scenario_and_unmatched_games_listed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(paired, "MIN_PAIRS", 2)  # the averaging, on a sample small to read
    a = [rec("a0", "s0", {"m": 0.0}), rec("a0b", "s0", {"m": 1.0}), rec("a1", "s1", {"m": 1.0}),
         rec("a2", "s2", {"m": 0.0}), rec("lonely", "s9", {"m": 5.0})]  # fmt: skip
    b = [rec("b0", "s0", {"m": 1.0}), rec("b1", "s1", {"m": 2.0}), rec("b2", "s2", {"m": 1.0}),
         rec("extra", "s8", {"m": 7.0})]  # fmt: skip
    result = compare(a, b)
    (row,) = result.rows
    # Scenario s0: A's two repeats average 0.5; differences 0.5, 1, 1.
    assert row.pairs == 3 and row.diff == pytest.approx(2.5 / 3)
    assert result.unmatched_a == ["lonely"] and result.unmatched_b == ["extra"]
    assert result.matched == 3 and result.matched_on == "seed, scenario and setup"
    # The unpaired CI uses every game of each side, the unmatched ones included.
    assert row.n_a == 5 and row.n_b == 4
    assert row.p_exact and row.p == pytest.approx(0.25)  # 3 pairs, all positive: 2 of 8


def test_sides_with_different_seeds_match_on_scenario_and_say_so() -> None:
    a = [rec(f"a{i}", f"s{i}", {"m": float(i)}, seed=i) for i in range(8)]
    b = [rec(f"b{i}", f"s{i}", {"m": float(i) + 1}, seed=100 + i) for i in range(8)]
    result = compare(a, b)
    assert result.matched == 8 and "seeds differ" in result.matched_on
    assert result.rows[0].mode == "paired" and result.rows[0].diff == 1.0


def test_seat_assignment_is_part_of_the_match() -> None:
    a = [
        rec("a0", "s0", {"m": 0.0}, seating="first=0"),
        rec("a1", "s1", {"m": 0.0}, seating="first=0"),
    ]
    b = [
        rec("b0", "s0", {"m": 1.0}, seating="first=1"),
        rec("b1", "s1", {"m": 1.0}, seating="first=1"),
    ]
    result = compare(a, b)
    assert result.matched == 0 and result.mode == "unpaired"
    assert result.rows[0].reason == "no scenario was played on both sides in the same setup"
    assert sorted(result.unmatched_a) == ["a0", "a1"]


def test_one_shared_scenario_falls_back_to_unpaired_with_the_reason() -> None:
    a = [rec("a0", "s0", {"m": 0.0}), rec("a1", "s1", {"m": 0.2})]
    b = [rec("b0", "s0", {"m": 1.0}), rec("b1", "s7", {"m": 0.9})]
    (row,) = compare(a, b).rows
    assert row.mode == "unpaired" and "too few pairs: 1 scenario" in row.reason
    assert row.diff == pytest.approx(0.85)
    (forced,) = compare(*two_sides(), paired=False).rows
    assert forced.mode == "unpaired" and "asked for" in forced.reason


def test_holm_covers_every_metric_compared_and_constant_ones_are_left_out() -> None:
    a, b = two_sides()
    a = [rec(r.trace_id, r.scenario, {**r.metrics, "flat": 1.0, "noise": i % 2}, seed=r.seed or 0)
         for i, r in enumerate(a)]  # fmt: skip
    b = [rec(r.trace_id, r.scenario, {**r.metrics, "flat": 1.0, "noise": (i + 1) % 2},
             seed=r.seed or 0) for i, r in enumerate(b)]  # fmt: skip
    result = compare(a, b)
    assert [r.metric for r in result.rows] == ["m", "noise"]
    assert result.left_out == ["g-v1:flat"]
    raw = [r.p for r in result.rows]
    assert [r.p_holm for r in result.rows] == pytest.approx(ps.holm(raw))
    assert result.rows[0].p_holm == pytest.approx(min(1.0, 2 * min(raw)))


def test_bad_sides_are_one_clear_error() -> None:
    one = [rec("a0", "s0", {"m": 0.0})]
    two = [rec("b0", "s0", {"m": 1.0}), rec("b1", "s1", {"m": 1.0})]
    with pytest.raises(ConfigError, match="side A has 1 complete game; a comparison needs"):
        check_sides(one, two)
    other = [rec(f"c{i}", f"s{i}", {"m": 1.0}, game="other-v1") for i in range(2)]
    with pytest.raises(ConfigError, match="compare runs of the same game"):
        check_sides(two, other)
    with pytest.raises(ConfigError, match="key=value"):
        parse_selector("batch")
    with pytest.raises(ConfigError, match="key=value"):
        parse_selector("colour=red")


def test_selecting_a_model_adds_its_seats_to_the_assignment() -> None:
    games = [
        rec("g0", "s0", {"m": 1.0}, players=("x/a", "x/b"), batch="cross"),
        rec("g1", "s0", {"m": 0.0}, players=("x/b", "x/a"), batch="cross"),
        rec("g2", "s0", {"m": 0.5}, players=("x/c", "x/c"), batch="other"),
    ]
    mine = select(games, parse_selector("model=x/a,batch=cross"))
    assert [(r.trace_id, r.seating) for r in mine] == [("g0", "|seats=0"), ("g1", "|seats=1")]
    assert select(games, {"batch": "other"})[0].trace_id == "g2"


def test_record_of_a_trace_uses_its_scenario_and_first_speaker() -> None:
    def trace(tid: str, seed: int, first: int, scenario: dict[str, Any]) -> Trace:
        return Trace(
            trace_id=tid, game_id="negotiation-v3", game="negotiation", seed=seed,
            config={"first_speaker": first}, scenario=scenario, metrics={"efficiency": 0.5,
            "done": True, "nested": {"x": 1}},
            seats=[SeatInfo(seat=0, name="A", agent="m/x", model="m/x")],
        )  # fmt: skip

    r1, r2 = record(trace("t1", 1, 0, {"k": 1})), record(trace("t2", 2, 0, {"k": 1}))
    assert r1.scenario == r2.scenario and r1.seating == "first=0"
    assert record(trace("t3", 1, 1, {"k": 1})).seating == "first=1"
    assert record(trace("t4", 1, 0, {"k": 2})).scenario != r1.scenario
    assert r1.metrics == {"efficiency": 0.5, "done": 1.0} and r1.players == ("m/x",)


def test_a_small_share_of_matches_headlines_the_unpaired_comparison() -> None:
    """Runs on different seeds that share 9 of 40 scenarios: not "paired on 9"."""
    a = [rec(f"a{i}", f"s{i}", {"m": float(i % 3)}, seed=i) for i in range(40)]
    b = [rec(f"b{i}", f"s{i + 31}", {"m": float(i % 2)}, seed=i + 31) for i in range(40)]
    result = compare(a, b)
    (row,) = result.rows
    assert result.matched == 9 and result.match_share == pytest.approx(9 / 40)
    assert row.mode == "unpaired" and "only 9 of 40 scenarios have a counterpart" in row.reason
    assert row.n_a == row.n_b == 40 and row.pairs == 9


def test_exact_duplicates_are_named_not_averaged() -> None:
    a = [rec(f"a{i}", f"s{i}", {"m": 0.0}) for i in range(3)]
    b = [
        GameRecord(f"b{i}", "g-v1", 0, f"s{i}", "", {"m": 1.0}, {}, (), {}, f"id{i}")
        for i in range(3)
    ]
    copy = GameRecord("b9", "g-v1", 0, "s0", "", {"m": 1.0}, {}, (), {}, "id0")
    result = compare(a, [*b, copy])
    assert result.duplicates_b == [{"trace_id": "b9", "copy_of": "b0"}]
    assert result.games_b == 3 and result.rows[0].n_b == 3


def test_cells_are_compared_within_themselves() -> None:
    """Two pairings on one scenario and seed: each pairs with its own counterpart."""

    def side(tag: str, vals: tuple[float, float]) -> list[GameRecord]:
        return [
            GameRecord(f"{tag}{c}{i}", "g-v1", i, f"s{i}", "", {"m": vals[c] + i}, {}, (),
                       {"seat 0": "x", "seat 1": ("x", "y")[c]})
            for c in (0, 1) for i in range(5)
        ]  # fmt: skip

    result = compare(side("a", (0.0, 5.0)), side("b", (0.0, 5.0))[:-1])
    (row,) = result.rows
    assert row.diff == 0.0 and row.pairs == 9 and result.unmatched_a == ["a14"]


def test_a_side_with_several_setups_per_scenario_must_be_narrowed() -> None:
    a = [GameRecord(f"a{s}{i}", "g-v1", i, f"s{i}", "", {"m": 1.0}, {"pairing": s}, (),
                    {"seat 0": s}) for s in ("x", "y") for i in range(3)]  # fmt: skip
    b = [GameRecord(f"b{i}", "g-v1", i, f"s{i}", "", {"m": 0.0}, {"pairing": "z"}, (),
                    {"seat 0": "z"}) for i in range(3)]  # fmt: skip
    with pytest.raises(ConfigError, match="side A plays 2 different setups on one scenario"):
        compare(a, b)


def test_the_compared_factor_is_what_the_sides_do_not_share() -> None:
    def side(agent: str, rounds: str) -> list[GameRecord]:
        setup = {"seat 0": agent, "options.rounds": rounds}
        return [
            GameRecord(f"{agent}{i}", "g-v1", i, f"s{i}", "", {"m": float(i)}, {}, (), setup)
            for i in range(3)
        ]

    result = compare(side("x", "2"), side("y", "2"))
    assert result.factor == ["seat 0"] and result.matched == 3
    with pytest.raises(ConfigError, match=r"options.rounds \(2 vs 3\); seat 0 \(x vs y\)"):
        compare(side("x", "2"), side("y", "3"))
    with pytest.raises(ConfigError, match="are the same 3 games"):
        compare(side("x", "2"), side("x", "2"))


def test_a_resample_of_one_repeated_float_has_no_spread() -> None:
    # 44 differences of -12.4 and one of -12.2 (a metric that is 12.4 or 12.2 on side A and 0
    # on side B): the mean of 45 copies of -12.4 is not exactly -12.4, so without a tolerance
    # a third of the resamples show a spread of ~1e-15 and the interval reached 3.7e10.
    d = [0.0 - 12.4] * 44 + [0.0 - 12.2]
    lo, hi = ps.paired_ci(d)
    assert -12.45 < lo <= sum(d) / len(d) <= hi < -12.35
    lo, hi = ps.unpaired_ci([12.4] * 44 + [12.2], [0.0] * 45)
    assert lo > -12.45 and hi < -12.35
