"""What each game's leaderboard rates: dimensions, their direction and margin, and the score of
a seat (free-for-all games) or of a whole game (team games) on each dimension.

A game declares its board in its `GameInfo` (``board``: `Board` and `Dimension` from
`accord.core.gameinfo`, re-exported here); margins follow CalBench App. E's rule of thumb
(calibrated to the per-game spread of the score). A game without a board whose seat rows have a
``score`` column is rated free-for-all on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from accord.core.gameinfo import Board, Dimension, GameScore, SeatScore, info_for_trace
from accord.traces.schema import Trace

__all__ = [
    "SCORE_DIMENSION",
    "SCORE_KEY",
    "Board",
    "Dimension",
    "GameScore",
    "SeatScore",
    "board_for",
    "boards",
    "seat_row_score",
]


def boards() -> dict[str, Board]:
    """The declared board of every installed game, by short game name."""
    from accord.core.gameinfo import all_infos

    return {i.alias: replace(i.board, game=i.alias) for i in all_infos() if i.board is not None}


# -- any other game (e.g. from another package) ----------------------------------------------

SCORE_KEY = "score"
"""The seat-row column rated for a game without a board of its own: the seat's final score,
higher is better (the same column the PettingZoo adapter pays by default)."""


def seat_row_score(trace: Trace) -> list[float | None]:
    """Each seat's ``score`` seat-row column (rows without a ``seat`` key are in seat order)."""
    by_seat = {r.get("seat", i): r for i, r in enumerate(trace.seat_rows)}
    out: list[float | None] = []
    for seat in trace.seats:
        value = by_seat.get(seat.seat, {}).get(SCORE_KEY)
        rated = isinstance(value, int | float) and not isinstance(value, bool)
        out.append(float(value) if rated and value is not None else None)
    return out


SCORE_DIMENSION = Dimension(SCORE_KEY, "score", True, 0.2, seat_score=seat_row_score)
"""Margin 0.2 as for every rate in [0, 1] above; a game scoring on another scale declares its
own board."""


def board_for(game: str, traces: Sequence[Trace]) -> Board | None:
    """The board `game` (a short game name) declares; for any other game whose seat rows have
    a ``score``, a free-for-all board on it; else None (the game is not rated)."""
    game_id = traces[0].game_id if traces else ""
    info = info_for_trace(game_id, game)
    if info is not None and info.board is not None:
        return replace(info.board, game=game)
    if any(SCORE_KEY in row for t in traces for row in t.seat_rows):
        return Board("seats", (SCORE_DIMENSION,), game=game)
    return None
