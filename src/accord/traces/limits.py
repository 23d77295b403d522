"""Bounds on what a trace stores of model output.

A model may answer with megabytes of text (a runaway generation, a hostile server). The game
keeps what it needs to play, but the trace would store the reply in its events and again in the
final state. Before a trace is written, every string in `events` and `final_state` longer than
`MAX_STORED_CHARS` is cut to that length and marked, so a reader sees that and how much was cut
(the transcripts of model calls have their own cap in the agent layer).
"""

from __future__ import annotations

from typing import Any

from accord.traces.events import TraceEvent, to_events
from accord.traces.schema import Trace

MAX_STORED_CHARS = 20_000
"""Longest string stored in a trace's events and final state (a normal message is < 2,000)."""

TRUNCATION_MARK = "…[truncated by Accord: {total} characters, first {kept} kept]"


def cap_text(text: str, limit: int = MAX_STORED_CHARS) -> str:
    """`text`, or its first `limit` characters followed by the truncation mark."""
    if len(text) <= limit:
        return text
    return text[:limit] + TRUNCATION_MARK.format(total=len(text), kept=limit)


def cap_value(value: Any, limit: int = MAX_STORED_CHARS) -> Any:
    """`value` with every string inside it capped (dict keys included)."""
    if isinstance(value, str):
        return cap_text(value, limit)
    if isinstance(value, dict):
        return {cap_text(str(k), limit): cap_value(v, limit) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [cap_value(v, limit) for v in value]
    return value


def _too_long(value: Any, limit: int) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if len(v) > limit:
                return True
        elif isinstance(v, dict):
            stack.extend(v.values())
            stack.extend(k for k in v if isinstance(k, str))
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return False


def cap_trace(trace: Trace, limit: int = MAX_STORED_CHARS) -> Trace:
    """`trace` with over-long strings of its events and final state capped (the same object
    when nothing is too long, the common case)."""
    events = [e.as_dict() if isinstance(e, TraceEvent) else dict(e) for e in trace.events]
    if not _too_long(events, limit) and not _too_long(trace.final_state, limit):
        return trace
    return trace.model_copy(
        update={
            "events": to_events(cap_value(events, limit)),
            "final_state": cap_value(trace.final_state, limit),
        }
    )
