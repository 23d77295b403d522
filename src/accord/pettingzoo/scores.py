"""Final per-seat scores: the reward each agent receives when a game ends.

A game reports its outcome as `GameResult.seat_rows` (one row of metrics per seat, the rows of
``results.jsonl``); a score function turns a result into one float per seat. Each game declares
its default in its `GameInfo` (``score``, `accord.core.gameinfo`; the built-in games' docstrings
in their ``outcomes`` modules say what they pay). A game that declares none is paid the seat
row's ``score`` column.

The ``reward`` option of the environment overrides the default: a seat-row column name
(``"-excess_cost"`` negates it) or any function of the `GameResult`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from accord.core.errors import ConfigError
from accord.core.game import GameResult
from accord.core.gameinfo import info_for_trace, resolve_ref, seat_column

ScoreFn = Callable[[GameResult], Sequence[float]]
"""Final scores, one per seat in seat order."""

SCORE_COLUMN = "score"
"""The seat-row column that is the default final score of a game with no registered one."""

column = seat_column
"""Scores read from one numeric seat-row column (`accord.core.gameinfo.seat_column`)."""

_SCORES: dict[str, ScoreFn] = {}
"""Scores registered from code (`register_score`); declared ones come from `GameInfo.score`."""


def register_score(game_id: str, score: ScoreFn) -> None:
    """Set the default final score of a game from code (a game declares its own in its
    `GameInfo`; this overrides it, e.g. in a notebook)."""
    _SCORES[game_id] = score


def resolve_score(game_id: str, reward: str | ScoreFn | None) -> ScoreFn:
    """The score function for a game under the environment's ``reward`` option."""
    if reward is None:
        if game_id in _SCORES:
            return _SCORES[game_id]
        info = info_for_trace(game_id)
        declared = (
            info is not None
            and info.score is not None
            and (game_id == info.game_id or game_id in info.score_ids)
        )
        if info is not None and info.score is not None and declared:
            return resolve_ref(info.score)
        return _score_column(game_id)
    if isinstance(reward, str):
        return column(reward)
    return reward


def _score_column(game_id: str) -> ScoreFn:
    """Any other game: its seat rows' ``score`` column, when they have one."""
    read = column(SCORE_COLUMN)

    def score(result: GameResult) -> Sequence[float]:
        if any(SCORE_COLUMN not in row for row in result.seat_rows):
            raise ConfigError(
                f"{game_id} has no default final score for the PettingZoo adapter: give each "
                f"seat row a {SCORE_COLUMN!r} column, pass reward='<seat-row column>' or a "
                "function of the GameResult, or declare GameInfo.score"
            )
        return read(result)

    return score


def final_scores(score: ScoreFn, result: GameResult, seats: int) -> list[float]:
    """Apply `score` and check it gave one finite number per seat."""
    values = [float(v) for v in score(result)]
    if len(values) != seats:
        raise ConfigError(f"the reward function gave {len(values)} scores for {seats} seats")
    if not all(math.isfinite(v) for v in values):
        raise ConfigError(f"the reward function gave a non-finite score: {values}")
    return values
