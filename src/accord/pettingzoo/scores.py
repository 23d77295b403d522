"""Final per-seat scores: the reward each agent receives when a game ends.

A game reports its outcome as `GameResult.seat_rows` (one row of metrics per seat, the rows of
``results.jsonl``); a score function turns a result into one float per seat. Defaults:

- ``negotiation-v3``: the seat's total reward over all rounds (``total_reward``).
- ``calendar-v2``: ``(meetings_scheduled - excess_cost / 3) / max(meetings, 1)``: each of the
  seat's meetings that got scheduled earns 1, each unit of cost beyond the oracle's cost for
  the meetings actually scheduled (CalBench §4.2 excess, on the 1/2/3 cost scale) costs 1/3,
  so one needless move of the most expensive errand cancels one meeting. A seat of a perfect
  game scores 1; a seat without meetings scores ``-excess_cost / 3`` (0 unless it moved things).
- ``sorting-v3`` (and ``sorting-v2``): 1 if the seat's final submission is its correct slice,
  else 0 (the seat's share of MAS-Bench SR).
- any other game (e.g. one from another package): the seat row's ``score`` column.

The ``reward`` option of the environment overrides the default: a seat-row column name
(``"-excess_cost"`` negates it) or any function of the `GameResult`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from accord.core.errors import ConfigError
from accord.core.game import GameResult

ScoreFn = Callable[[GameResult], Sequence[float]]
"""Final scores, one per seat in seat order."""

SCORE_COLUMN = "score"
"""The seat-row column that is the default final score of a game with no registered one."""

ERRAND_COST_LEVELS = 3
"""Highest errand cost on CalBench's 1/2/3 scale."""


def column(name: str) -> ScoreFn:
    """Scores read from one numeric seat-row column; a leading ``-`` negates it.

    ``None`` (a metric undefined for that seat, such as calendar success without meetings)
    scores 0; booleans score 0 or 1.
    """
    sign, key = (-1.0, name[1:]) if name.startswith("-") else (1.0, name)

    def score(result: GameResult) -> list[float]:
        out = []
        for row in result.seat_rows:
            if key not in row:
                known = ", ".join(sorted(row))
                raise ConfigError(f"reward column {key!r} is not a seat-row column; try: {known}")
            value: Any = row[key]
            if value is not None and not isinstance(value, int | float):
                raise ConfigError(f"reward column {key!r} is not numeric (got {value!r})")
            out.append(0.0 if value is None else sign * float(value))
        return out

    return score


def calendar_score(result: GameResult) -> list[float]:
    """The calendar default (see the module docstring)."""
    return [
        (row["meetings_scheduled"] - row["excess_cost"] / ERRAND_COST_LEVELS)
        / max(row["meetings"], 1)
        for row in result.seat_rows
    ]


_SCORES: dict[str, ScoreFn] = {
    "negotiation-v3": column("total_reward"),
    "calendar-v2": calendar_score,
    "sorting-v2": column("correct"),
    "sorting-v3": column("correct"),
}


def register_score(game_id: str, score: ScoreFn) -> None:
    """Set the default final score of a game (games added later register theirs here)."""
    _SCORES[game_id] = score


def resolve_score(game_id: str, reward: str | ScoreFn | None) -> ScoreFn:
    """The score function for a game under the environment's ``reward`` option."""
    if reward is None:
        return _SCORES.get(game_id) or _score_column(game_id)
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
                "function of the GameResult, or register one with "
                "accord.pettingzoo.register_score"
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
