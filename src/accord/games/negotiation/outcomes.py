"""What Accord's analyses read from negotiation traces: the leaderboard board, the
value-of-communication outcomes, the messages of ``accord query`` and the PettingZoo score.
Declared in this package's `INFO`.

Board (seed 004 Table 3: efficiency, optimum rate, overdraw rate): both seats of a dyad share
one result, so games are rated as teams; margins 0.2, as for every rate in [0, 1] (CalBench
App. E's rule of thumb).

Value of communication (seed 004 §5.1, Fig. 3, Table 10): joint efficiency, optimum rate and
1 - overdraw rate against the same pairing without talk (``cheap_talk: false``), matched by
team, compatibility ratio M/C, transparency and intervention. Channel: ``cheap_talk``.

PettingZoo score: the seat's total reward over all rounds (``total_reward``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from accord.core.gameinfo import (
    Board,
    Dimension,
    MessageRow,
    Outcome,
    TalkValue,
    metric,
    players,
    seat_column,
)

if TYPE_CHECKING:
    from accord.traces.schema import Trace

BOARD = Board(
    "teams",
    (
        Dimension("efficiency", "efficiency", True, 0.2, game_score=metric("efficiency")),
        Dimension("optimum", "optimum", True, 0.2, game_score=metric("optimum_rate")),
        Dimension("overdraw", "overdraw", False, 0.2, game_score=metric("overdraw_rate")),
    ),
)


def _is_baseline(t: Trace) -> bool:
    return t.config.get("cheap_talk") is False


def _channel(t: Trace) -> str:
    del t
    return "cheap_talk"


def _cell(t: Trace) -> str:
    ratio = t.final_state.get("ratio", t.config.get("ratio"))
    # The paper's conditions other than talk (transparency, interventions) must match too.
    same = [t.config.get(k, "none") for k in ("transparency", "intervention")]
    return json.dumps([players(t), ratio, *same])


VALUE = TalkValue(
    outcomes=(
        Outcome("efficiency", "efficiency", 1.0, metric("efficiency")),
        Outcome("optimum", "optimum rate", 1.0, metric("optimum_rate")),
        Outcome("no_overdraw", "1 - overdraw", 1.0, metric("overdraw_rate", flip=True)),
    ),
    is_baseline=_is_baseline,
    cell=_cell,
    channel=_channel,
    how="-o cheap_talk=false",
)


def messages(events: list[dict[str, Any]], seats: int) -> list[MessageRow]:
    """Cheap talk (seed 004 §3): every ``message`` event goes to the other seat."""
    rows: list[MessageRow] = []
    for i, e in enumerate(events):
        if e.get("type") == "message" and isinstance(seat := e.get("seat"), int):
            others = [s for s in range(seats) if s != seat]
            delivered = bool(e.get("delivered", True))
            rows.append((i, seat, "cheap_talk", others, str(e.get("speech", "")), delivered))
    return rows


score = seat_column("total_reward")
"""The PettingZoo default: the seat's total reward over all rounds."""


def judged(traces: list[Trace]) -> list[Trace]:
    """The traces the negotiation judge labels: complete games of every negotiation id."""
    from accord.games.negotiation.config import TRACE_GAME_IDS

    return [t for t in traces if t.status == "complete" and t.game_id in TRACE_GAME_IDS]
