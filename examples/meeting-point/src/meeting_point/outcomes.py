"""What Accord's analyses read from meeting-point traces, declared in this package's `INFO`:

- the leaderboard board: both seats share one outcome, so games are rated as teams, on how
  often the team met (higher is better, margin 0.2 as for any rate in [0, 1]) and on the cost
  it left on the table (``excess``: lower is better, margin 1.0, one cost unit);
- the value of communication: how often the team met, and met at the best place, against the
  same team with no talk (``talk_turns: 0``) on the same options;
- the messages of ``accord query``: every ``message`` event, said to the other seat.
"""

from __future__ import annotations

import json
from typing import Any

from accord.core.gameinfo import (
    Board,
    Dimension,
    MessageRow,
    Outcome,
    TalkValue,
    players,
)
from accord.traces.schema import Trace


def _flag(key: str) -> Any:
    def read(trace: Trace) -> float | None:
        value = trace.metrics.get(key)
        return None if value is None else float(bool(value))

    return read


def excess(trace: Trace) -> float | None:
    """The team's cost above the best place's; a missed meeting counts the whole gap."""
    value = trace.metrics.get("excess")
    gap = trace.metrics.get("gap_if_missed")
    if value is None:
        return None if gap is None else float(gap)
    return float(value)


BOARD = Board(
    "teams",
    (
        Dimension("met", "met", True, 0.2, game_score=_flag("met")),
        Dimension("excess", "excess cost", False, 1.0, game_score=excess),
    ),
)


def _no_talk(trace: Trace) -> bool:
    return trace.config.get("talk_turns") == 0


def _cell(trace: Trace) -> str:
    options = {k: v for k, v in trace.config.items() if k not in ("talk_turns", "message_chars")}
    return json.dumps([players(trace), options], sort_keys=True, default=str)


def _channel(trace: Trace) -> str:
    del trace
    return "talk"


VALUE = TalkValue(
    outcomes=(
        Outcome("met", "met", 1.0, _flag("met")),
        Outcome("optimal", "met at the best place", 1.0, _flag("optimal")),
    ),
    is_baseline=_no_talk,
    cell=_cell,
    channel=_channel,
    how="-o talk_turns=0",
)


def messages(events: list[dict[str, Any]], seats: int) -> list[MessageRow]:
    """Every ``message`` event: said by its seat to the other one."""
    rows: list[MessageRow] = []
    for i, event in enumerate(events):
        if event.get("type") == "message" and isinstance(seat := event.get("seat"), int):
            others = [s for s in range(seats) if s != seat]
            rows.append((i, seat, "talk", others, str(event.get("text", "")), True))
    return rows
