"""Leaderboard ranks: MMR (App. E), ties shown as ties, and each rank's 95% interval."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.ratings import board_for, leaderboard
from accord.ratings.ranks import mmr
from accord.traces.io import write_trace
from accord.traces.schema import SeatInfo, Trace

CALENDAR = board_for("calendar", [])
assert CALENDAR is not None  # the calendar game declares its board (GameInfo.board)

runner = CliRunner(env={"COLUMNS": "200"})


def calendar_game(tid: str, seats: list[tuple[str, float, int]], t: int = 0) -> Trace:
    """A calendar trace: per seat (model, scheduled-meeting ratio, excess cost)."""
    return Trace(
        trace_id=tid,
        game_id="calendar-v2",
        game="calendar",
        seed=t,
        config={},
        seats=[SeatInfo(seat=i, name=f"s{i}", agent=m, model=m) for i, (m, *_) in enumerate(seats)],
        seat_rows=[
            {"seat": i, "success": v, "excess_cost": e} for i, (_, v, e) in enumerate(seats)
        ],
        started_at=f"2026-01-01T00:00:{t:02d}.000+00:00",
    )


def twins_games() -> list[Trace]:
    """m/twin-a and m/twin-b play the same games with the same results; m/top beats both."""
    out = []
    for t in range(6):
        out.append(calendar_game(f"g{t}", [("m/top", 1.0, 0), ("m/twin-b", 0.6, 10),
                                           ("m/twin-a", 0.6, 10)], t))  # fmt: skip
    return out


def test_identical_metrics_from_the_same_games_share_a_rank() -> None:
    board = leaderboard(twins_games(), CALENDAR)
    ranks = {s.player: s.rank for s in board.models}
    assert ranks == {"m/top": 1, "m/twin-a": 2, "m/twin-b": 2}
    # Listed in name order inside the tie, with one rank interval for both.
    assert [s.player for s in board.models] == ["m/top", "m/twin-a", "m/twin-b"]
    a, b = board.models[1:]
    assert (a.rank_lo, a.rank_hi) == (b.rank_lo, b.rank_hi)
    rows = board.rows()
    assert [r["rank"] for r in rows] == [1, 2, 2]
    # Sorting by any one dimension keeps the tie.
    by_cost = leaderboard(twins_games(), CALENDAR, sort_by="cost")
    assert sorted(s.rank for s in by_cost.models) == [1, 2, 2]


def test_tie_needs_the_same_games() -> None:
    extra = calendar_game("extra", [("m/twin-a", 1.0, 0), ("m/top", 0.0, 40)], 9)
    games = [*twins_games(), extra]
    board = leaderboard(games, CALENDAR)
    assert len({s.rank for s in board.models}) == 3


def test_mmr_is_the_mean_conservative_ordinal_and_orders_the_board() -> None:
    board = leaderboard(twins_games(), CALENDAR)
    for s in board.models:
        rated = [k for k in ("coordination", "cost", "privacy") if k in s.mu]
        expected = sum(s.mu[k] - 3 * s.sigma[k] for k in rated) / len(rated)
        assert s.mmr == pytest.approx(expected)
        assert mmr(s, board.dimensions) == pytest.approx(expected)
    assert board.models[0].player == "m/top"
    assert board.models[0].mmr > board.models[1].mmr  # type: ignore[operator]


def test_rank_intervals_hold_the_rank_and_narrow_with_evidence() -> None:
    few = leaderboard(twins_games()[:1], CALENDAR)
    many = leaderboard(twins_games(), CALENDAR)
    for board in (few, many):
        for s in board.models:
            assert 1 <= s.rank_lo <= s.rank <= s.rank_hi <= len(board.models)
    top_few, top_many = few.models[0], many.models[0]
    assert top_few.rank_hi - top_few.rank_lo >= top_many.rank_hi - top_many.rank_lo
    assert (top_many.rank_lo, top_many.rank_hi) == (1, 1)
    assert top_few.rank_hi > 1  # one game: the top model could be anywhere


def test_command_shows_mmr_rank_interval_and_ties(tmp_path: Path) -> None:
    for t in twins_games()[:2]:
        write_trace(tmp_path / "traces", t)
    table = runner.invoke(app, ["leaderboard", str(tmp_path)])
    assert table.exit_code == 0, table.output
    assert "MMR" in table.output and "equal ranks are ties" in table.output.replace("\n", " ")
    lines = [ln for ln in table.output.splitlines() if "m/twin" in ln]
    assert len(lines) == 2 and all(ln.split("│")[1].strip().startswith("2") for ln in lines)
    data: list[dict[str, Any]] = json.loads(
        runner.invoke(app, ["leaderboard", str(tmp_path), "-f", "json", "--sort", "mmr"]).output
    )
    models = [r for r in data if r["kind"] == "model"]
    assert [r["rank"] for r in models] == [1, 2, 2]
    assert all(
        r["rank_low"] <= r["rank"] <= r["rank_high"] and r["mmr"] is not None for r in models
    )
