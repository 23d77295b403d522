"""Accord trace pieces as Inspect log pieces: scores, messages, model events, usage.

Shared by the task (`accord.inspectai.task`, which plays games inside Inspect) and the exporter
(`accord.inspectai.export`, which writes Inspect logs from finished Accord traces), so a game
looks the same in Inspect's viewer whichever way it got there.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import TYPE_CHECKING, Any

from accord.core.errors import AccordError
from accord.core.registry import game_class
from accord.core.secrets import scrub_secrets
from accord.traces.schema import Trace

if TYPE_CHECKING:
    from inspect_ai.event import ModelEvent
    from inspect_ai.model import ChatMessage, ModelUsage

    from accord.traces.schema import SeatUsage

SCORER = "accord_metrics"
"""Name of the scorer holding a game's metrics in an Inspect log."""


def scrubbed(trace: Trace) -> Trace:
    """`trace` with every secret value replaced by ``[redacted:NAME]``: a safety net, as for
    every file Accord writes (a provider's error text or an echoing model may quote a key).
    A trace with nothing to redact is returned as it is: validating it again cost seconds
    on a long game."""
    text = trace.model_dump_json()
    clean = scrub_secrets(text)
    return trace if clean == text else Trace.model_validate_json(clean)


def headline_keys(game_id: str, traces: list[Trace] | None = None) -> list[str]:
    """The metric keys an Inspect score carries for `game_id`: the game's summary metrics
    (the columns of Accord's results table), the same for every game of one id. A game id
    this install does not know (an older version) or one without summary metrics falls back
    to the scalar numeric metrics found in `traces`."""
    try:
        keys = [key for key, _label, _percent in game_class(game_id).summary_metrics]
    except AccordError:
        keys = []
    if keys:
        return keys
    found = {
        key
        for trace in traces or []
        for key, value in trace.metrics.items()
        if isinstance(value, bool | int | float)
    }
    return sorted(found)


def score_value(keys: list[str], metrics: dict[str, Any]) -> dict[str, float]:
    """`metrics` as an Inspect score value: one float per key; a metric the game left undefined
    (None, or absent) is NaN, which Inspect counts as unscored rather than as zero."""
    out: dict[str, float] = {}
    for key in keys:
        value = metrics.get(key)
        if isinstance(value, bool | int | float) and not (
            isinstance(value, float) and math.isnan(value)
        ):
            out[key] = float(value)
        else:
            out[key] = math.nan
    return out


def chat_message(entry: dict[str, Any], seat: str) -> ChatMessage:
    """One stored transcript message as an Inspect chat message tagged with its seat."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    meta: dict[str, Any] = {"seat": seat}
    for key in ("truncated", "note"):
        if key in entry:
            meta[key] = entry[key]
    text = str(entry.get("content", ""))
    role = entry.get("role")
    if role == "system":
        return ChatMessageSystem(content=text, metadata=meta)
    if role == "assistant":
        return ChatMessageAssistant(content=text, metadata=meta)
    return ChatMessageUser(content=text, metadata=meta)


def transcript_messages(trace: Trace) -> list[ChatMessage]:
    """Every seat's stored conversation, seat after seat, each message tagged with its seat."""
    out: list[ChatMessage] = []
    for seat, transcript in trace.transcripts.items():
        out.extend(chat_message(m, seat) for m in transcript.messages)
    return out


def _sent(messages: list[dict[str, Any]], ranges: list[list[int]]) -> list[dict[str, Any]]:
    picked: list[dict[str, Any]] = []
    for first, last in ranges:
        picked.extend(messages[first : last + 1])
    return picked


def _when(text: str) -> dt.datetime:
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return dt.datetime.now(dt.UTC)


def model_events(trace: Trace) -> list[ModelEvent]:
    """One Inspect model event per ``model_call``/``model_error`` event of the trace: what the
    seat's model was sent (from its transcript) and what it returned, under the seat's name as
    the model role."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage

    names = {s.seat: s.name for s in trace.seats}
    models = {s.seat: s.identity for s in trace.seats}
    when = _when(trace.started_at)
    out: list[ModelEvent] = []
    for event in trace.events:
        if event.get("type") not in ("model_call", "model_error"):
            continue
        seat = int(event.get("seat", -1))
        name = names.get(seat, f"seat{seat}")
        transcript = trace.transcripts.get(name)
        stored = transcript.messages if transcript is not None else []
        sent = _sent(stored, event.get("sent") or [])
        reply = event.get("reply")
        model = models.get(seat, "unknown")
        if isinstance(reply, int) and 0 <= reply < len(stored):
            output = ModelOutput.from_content(model=model, content=str(stored[reply]["content"]))
        else:
            output = ModelOutput(model=model)
        input_tokens = int(event.get("input_tokens") or 0)
        output_tokens = int(event.get("output_tokens") or 0)
        output.usage = ModelUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=input_tokens + output_tokens,
        )
        error = event.get("error")
        out.append(
            ModelEvent(
                timestamp=when,
                working_start=0.0,
                model=model,
                role=name,
                input=[chat_message(m, name) for m in sent],
                tools=[],
                tool_choice="none",
                config=GenerateConfig(),
                output=output,
                retries=max(int(event.get("attempts") or 1) - 1, 0),
                error=str(error) if error is not None else None,
                metadata={"accord_step": event.get("t"), "kind": event.get("kind")},
            )
        )
    return out


def model_usage(usage: SeatUsage) -> ModelUsage:
    """An Accord seat's summed usage as Inspect's usage record."""
    from inspect_ai.model import ModelUsage

    return ModelUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.input_tokens + usage.output_tokens,
        reasoning_tokens=usage.reasoning_tokens or None,
        input_tokens_cache_read=usage.cached_input_tokens or None,
        total_cost=usage.cost_usd if usage.cost_known and usage.calls else None,
    )


def role_usage(trace: Trace) -> dict[str, ModelUsage]:
    """Usage per model role (seat name) of the seats that called a model."""
    return {
        seat.name: model_usage(trace.usage[seat.name])
        for seat in trace.seats
        if seat.model is not None and seat.name in trace.usage
    }
