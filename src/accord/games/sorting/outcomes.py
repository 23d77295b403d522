"""What Accord's analyses read from sorting traces: the leaderboard board, the
value-of-communication outcomes, the messages of ``accord query`` and the PettingZoo score.
Declared in this package's `INFO`.

Board (MAS-Bench §3.4: SR and TE): every agent of a team shares one result, so games are rated
as teams; margin 0.2 for SR (a rate in [0, 1]) and 1.0 for TE, whose per-model means in
MAS-Bench Table 1 spread over a few units.

Value of communication: SR and instance success, oracle 1 (the ``share-all`` reference team
reaches SR = 1 on every task). Baseline: the ``local-sort`` reference team (no communication,
each agent submits its own list sorted) on the very same task (options and seed), replayed by
``accord value``; it is deterministic, so each game gets its exact floor. Channel: the
``backend`` option (broadcast, p2p, kv).

PettingZoo score: 1 if the seat's final submission is its correct slice, else 0 (the seat's
share of MAS-Bench SR).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from accord.core.gameinfo import (
    Board,
    Dimension,
    MessageRow,
    Outcome,
    TalkValue,
    metric,
    seat_column,
)

if TYPE_CHECKING:
    from accord.traces.schema import Trace


def token_efficiency(trace: Trace) -> float | None:
    """TE (eq. 6) over model-reported tokens when there are any, else the game's text estimate.

    The sorting report's own TE (`accord.games.sorting.usage.trace_metrics`): the phase the
    game's ``metrics_phase`` names (default: the final phase), reasoning tokens included.
    """
    from accord.games.sorting.usage import trace_metrics

    value = trace_metrics(trace).get("te")
    return float(value) if isinstance(value, int | float) else None


BOARD = Board(
    "teams",
    (
        Dimension("sr", "SR", True, 0.2, game_score=metric("sr")),
        Dimension("te", "TE", True, 1.0, game_score=token_efficiency),
    ),
)


def _channel(t: Trace) -> str:
    return str(t.config.get("backend", ""))


VALUE = TalkValue(
    outcomes=(
        Outcome("sr", "SR", 1.0, metric("sr")),
        Outcome("success", "success", 1.0, metric("success")),
    ),
    channel=_channel,
    baseline_agent="local-sort",
    how="the local-sort baseline is replayed for you; check the tasks' options",
)

_CHANNELS = {"broadcast_message": "broadcast", "send_message": "p2p", "write_file": "kv"}
_AGENT = re.compile(r"Agent-(\d+)")


def messages(events: list[dict[str, Any]], seats: int) -> list[MessageRow]:
    """MAS-Bench Table 5: the commands that put information on a channel.

    ``broadcast_message`` (recipients as the reply names them), ``send_message <to> <body>``
    (delivered unless the recipient had submitted) and ``write_file <key>`` (the shared store:
    no recipients; the text is the key line and the value).
    """
    del seats
    rows: list[MessageRow] = []
    for i, e in enumerate(events):
        commands = (e.get("commands") or []) if e.get("type") == "turn" else []
        for c in commands:
            parts = str(c.get("command", "")).split(None, 1)
            channel = _CHANNELS.get(parts[0]) if parts else None
            if channel is None:
                continue
            verb, body = parts[0], parts[1] if len(parts) > 1 else ""
            recipients: list[int] | None = None
            if verb == "broadcast_message" and c.get("ok"):
                recipients = [int(a) for a in _AGENT.findall(str(c.get("reply", "")))]
            elif verb == "send_message":
                to, _, body = body.strip().partition(" ")
                recipients = [int(to)] if to.isdigit() else None
            rows.append((i, e.get("seat"), channel, recipients, body.strip(), bool(c.get("ok"))))
    return rows


score = seat_column("correct")
"""The PettingZoo default: 1 for a correct final submission, else 0."""


def needs_judge(trace: Trace) -> bool:
    """Complete sorting games that failed: the ones a failure mode can describe."""
    return (
        trace.game == "sorting"
        and trace.status == "complete"
        and trace.metrics.get("success") != 1.0
    )


def judged(traces: list[Trace]) -> list[Trace]:
    """The traces the sorting judge reads: the failed games (`needs_judge`)."""
    return [t for t in traces if needs_judge(t)]
