"""Metrics of the sorting game (MAS-Bench §3.4, App. C)."""

from __future__ import annotations

import pytest

from accord.games.sorting.metrics import (
    SeatTally,
    cost_estimate,
    cr,
    estimate_tokens,
    game_metrics,
    seat_rows,
    te,
)
from accord.games.sorting.task import init_sort_task


def tallies(*rounds: list[int], tokens: int = 100, comm: int = 10) -> list[SeatTally]:
    """Each agent's tokens split evenly over its phases."""
    return [
        SeatTally(
            rounds=r,
            input_tokens_est=tokens,
            output_tokens_est=0,
            comm_tokens_est=comm,
            phase_tokens_est=[tokens // len(r)] * len(r),
            phase_comm_est=[comm // len(r)] * len(r),
        )
        for r in rounds
    ]


def test_formulas() -> None:
    assert te(3, 10, 30_000) == pytest.approx(100.0)
    assert te(3, 10, 0) is None and cr(5, 0) is None
    assert cr(5, 50) == 0.1
    assert estimate_tokens("") == 0 and estimate_tokens("abcde") == 2


def test_game_metrics_sr_success_check_rounds_and_ratios() -> None:
    task = init_sort_task(3, 2, "random", 4)
    subs = [list(task.expected[0]), list(task.expected[1]), None]
    m = game_metrics(task, subs, tallies([4], [2], [7]))
    assert m["sr"] == pytest.approx(2 / 3) and m["success"] == 0.0 and m["global_check"] == 0.0
    assert m["rounds"] == 7 and m["rounds_per_phase"] == [7]
    assert m["submitted_rate"] == pytest.approx(2 / 3)
    assert m["tokens_est"] == 300 and m["comm_tokens_est"] == 30
    assert m["te_est"] == pytest.approx(6 / 300 * 1e5) and m["cr_est"] == pytest.approx(0.1)
    assert m["nk"] == 6 and m["rho"] == task.rho
    full = game_metrics(task, [list(e) for e in task.expected], tallies([1, 2], [3, 1], [1, 1]))
    assert full["sr"] == 1.0 and full["success"] == 1.0 and full["global_check"] == 1.0
    assert full["rounds_per_phase"] == [3, 2] and full["rounds_combined"] == 4
    assert full["rounds"] == 2 and full["rounds_phase1"] == 3 and full["rounds_phase2"] == 2
    # 300 tokens, 150 per phase: TE of one phase is twice the combined TE.
    assert full["te_est"] == full["te_est_phase2"] == pytest.approx(6 / 150 * 1e5)
    assert full["te_est_combined"] == pytest.approx(6 / 300 * 1e5)
    assert full["cr_est_phase1"] == full["cr_est_combined"] == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("scope", "rounds", "te_tokens"), [("final", 2, 150), ("phase1", 3, 150), ("combined", 4, 300)]
)
def test_metrics_phase_picks_the_headline_scope(scope: str, rounds: int, te_tokens: int) -> None:
    task = init_sort_task(3, 2, "random", 4)
    ts = tallies([1, 2], [3, 1], [1, 1])
    m = game_metrics(task, [list(e) for e in task.expected], ts, scope)  # type: ignore[arg-type]
    assert m["metrics_phase"] == scope and m["rounds"] == rounds
    assert m["te_est"] == pytest.approx(6 / te_tokens * 1e5)


def test_one_phase_games_have_no_phase2_values() -> None:
    task = init_sort_task(3, 2, "random", 4)
    m = game_metrics(task, [None] * 3, tallies([4], [2], [7]), "combined")
    assert m["rounds_phase2"] is None and m["te_est_phase2"] is None
    assert m["te_est"] == m["te_est_phase1"] == m["te_est_combined"]


def test_seat_rows_are_scalars_per_agent() -> None:
    task = init_sort_task(2, 1, "asc", 0)
    rows = seat_rows(task, [list(task.expected[0]), [999]], tallies([1], [2]))
    assert [r["correct"] for r in rows] == [True, False]
    assert [r["name"] for r in rows] == ["Agent-0", "Agent-1"]
    assert all(isinstance(v, int | float | str | bool) for r in rows for v in r.values())


def test_cost_estimate_matches_appendix_c_convention() -> None:
    # 1M tokens at $0.15/M input and $0.75/M output: range [0.15, 0.75], midpoint 0.45.
    est = cost_estimate(1_000_000, 0.15, 0.75)
    assert est == pytest.approx({"midpoint": 0.45, "low": 0.15, "high": 0.75})
