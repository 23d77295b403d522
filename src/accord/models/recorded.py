"""Answer a seat's model calls from a trace's transcript: replay with no cache and no network.

A trace holds every call a seat's model was sent and what it returned (`accord.agents.
transcript`). `RecordedModel` plays those replies back in call order, with the usage, cost,
attempts and retries the trace recorded, so a replayed trace equals the original apart from
timestamps and latency. Before answering it checks that the conversation the game sends now is
the one recorded; a different prompt means the game or its prompts changed since the trace was
written, and the replay stops with `ReplayDivergedError` naming the call and the first
differing message, rather than hand a reply to a question it was not given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.core.errors import ModelError
from accord.core.spec import JSONSchema
from accord.models.base import Completion, Message, ToolCall, ToolSpec, Usage
from accord.models.client import RetriesExhaustedError
from accord.traces.events import ModelCall, ModelErrorEvent, ResponseFormatFallback
from accord.traces.schema import Trace


class ReplayDivergedError(ModelError):
    """The game asked a recorded seat something the trace does not hold."""


def _expand(ranges: Sequence[Sequence[int]]) -> list[int]:
    return [i for first, last in ranges for i in range(first, last + 1)]


def has_replies(trace: Trace) -> bool:
    """True when every model call of the trace has its messages stored (schema 2 traces)."""
    calls = [e for e in trace.events if isinstance(e, ModelCall | ModelErrorEvent)]
    if not calls:
        return False
    for event in calls:
        seat = next((s.name for s in trace.seats if s.seat == event.get("seat")), None)
        if seat is None or seat not in trace.transcripts or "sent" not in event:
            return False
    return True


class RecordedModel:
    """The model of one seat, answering from that seat's stored transcript (a
    `accord.models.base.ChatModel` that calls nothing).

    Args:
        spec: the seat's ``provider/model`` (kept so the new trace names the same model).
        trace: the trace to answer from.
        seat: the seat index.
    """

    def __init__(self, spec: str, trace: Trace, seat: int) -> None:
        self.spec = spec
        name = next((s.name for s in trace.seats if s.seat == seat), None)
        if name is None or name not in trace.transcripts:
            raise ModelError(
                f"{trace.trace_id}: seat {seat} has no stored transcript to replay from; use "
                "--cache with the run's model cache instead."
            )
        self.seat_name = name
        self.messages = trace.transcripts[name].messages
        events = [e for e in trace.events if e.get("seat") == seat]
        self.calls: dict[int, ModelCall | ModelErrorEvent] = {
            e.call: e
            for e in events
            if isinstance(e, ModelCall | ModelErrorEvent) and e.call is not None
        }
        self.format_switches: dict[int, list[dict[str, Any]]] = {}
        for e in events:
            if isinstance(e, ResponseFormatFallback) and e.call is not None:
                switch: dict[str, Any] = {
                    k: e[k] for k in ("from", "to", "status", "error") if k in e
                }
                self.format_switches.setdefault(e.call, []).append(switch)
        self.trace_id = trace.trace_id
        self._next = 0

    def __repr__(self) -> str:
        return f"RecordedModel({self.spec!r})"

    async def aclose(self) -> None:
        """Nothing to release: the replies are in memory."""

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        response_schema: JSONSchema | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        session: str | None = None,
        deadline: float | None = None,
        tools: Sequence[ToolSpec] | None = None,
    ) -> Completion:
        self._next += 1
        number = self._next
        event = self.calls.get(number)
        if event is None:
            raise ReplayDivergedError(
                f"{self.trace_id}: seat {self.seat_name} makes call {number}, but the trace "
                f"recorded only {len(self.calls)} calls: the game has changed since the trace "
                "was written."
            )
        self._check_prompt(number, event, messages)
        if event["type"] == "model_error":
            error = str(event.get("error", "model error"))
            attempts = int(event.get("attempts", 1))
            if attempts > 1 or event.get("retries"):
                raise RetriesExhaustedError(
                    error,
                    attempts=attempts,
                    retries=list(event.get("retries", [])),
                    status=event.get("status"),
                )
            raise ModelError(error, status=event.get("status"))
        reply = self.messages[int(event["reply"])]
        raw: dict[str, Any] = {"replayed_from": "trace"}
        if event.get("retries"):
            raw["retries"] = event["retries"]
        if number in self.format_switches:
            raw["response_format_fallback"] = self.format_switches[number]
        return Completion(
            text=str(reply["content"]),
            usage=Usage(
                input_tokens=int(event.get("input_tokens", 0)),
                output_tokens=int(event.get("output_tokens", 0)),
                reasoning_tokens=int(event.get("reasoning_tokens", 0)),
                cached_input_tokens=int(event.get("cached_input_tokens", 0)),
                cache_write_tokens=int(event.get("cache_write_tokens", 0)),
            ),
            latency_s=float(event.get("latency_s", 0.0)),
            cost_usd=event.get("cost_usd"),
            raw=raw,
            model=self.spec,
            attempts=int(event.get("attempts", 1)),
            reasoning=reply.get("reasoning"),
            tool_calls=[ToolCall.from_message(t) for t in reply.get("tool_calls", [])],
        )

    def _check_prompt(
        self, number: int, event: ModelCall | ModelErrorEvent, messages: Sequence[Message]
    ) -> None:
        recorded = [self.messages[i] for i in _expand(event.sent or [])]
        for k, (old, new) in enumerate(zip(recorded, messages, strict=False)):
            if old.get("truncated") is not None:
                same = new["content"].startswith(old["content"])
            else:
                same = old["content"] == new["content"]
            same = same and old.get("tool_calls") == new.get("tool_calls")
            if old["role"] != new["role"] or not same:
                raise ReplayDivergedError(
                    f"{self.trace_id}: seat {self.seat_name}, call {number}: message {k} "
                    f"({new['role']}) differs from the recorded one; the game or its prompts "
                    "changed since the trace was written."
                )
        if len(recorded) != len(messages):
            raise ReplayDivergedError(
                f"{self.trace_id}: seat {self.seat_name}, call {number} sends "
                f"{len(messages)} messages where the trace recorded {len(recorded)}."
            )
