"""The seat protocol, version 1: what a remote agent is sent and what it may call.

One protocol, two transports served by the same code (`accord.remote.app`):

* MCP (Streamable HTTP) at ``/mcp``: tools ``seat_info``, ``observe``, ``wait_for_request``
  and ``act``;
* HTTP/JSON at ``/v1/seat``, ``/v1/observe``, ``/v1/wait`` and ``/v1/act``.

Every call carries the seat's token as ``Authorization: Bearer <token>``. The JSON schema of
each message is `message_schemas()` (``accord agent schema`` prints it).
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

from accord.core.spec import Request

PROTOCOL = "accord-seat/1"
"""Name and version of the protocol; a change an agent could notice bumps the number."""

MAX_BODY_BYTES = 64 * 1024
"""Largest request body the server reads; a larger one is refused (HTTP 413)."""

MAX_REPLY_CHARS = 16 * 1024
"""Longest reply (as JSON text) an agent may send for one request."""

MAX_WAIT_S = 30.0
"""Longest a single ``wait`` call blocks; call it again to keep waiting."""

HEADER_TIMEOUT_S = 10.0
"""Seconds a connection has to send a request's headers; then it is closed (slow clients
cannot hold connections open)."""

BODY_TIMEOUT_S = 10.0
"""Seconds a request has to send its body once its headers are in; then HTTP 408."""

MAX_KEY_CHARS = 128
"""Longest idempotency key ``act`` takes."""

MAX_ERRORS_LIMIT = 100
"""Largest ``max_errors`` a remote seat may set (`accord.remote.spec.RemoteSeatSpec`)."""

TOKEN_BYTES = 24
"""Random bytes in a seat token (192 bits; the issue asks for at least 128)."""


class SeatInfoReply(BaseModel):
    """Answer to ``seat_info``: which seat the token holds."""

    protocol: str = Field(description="Protocol name and version, 'accord-seat/1'.")
    game_id: str = Field(description="Versioned game id, e.g. 'negotiation-v3'.")
    trace_id: str = Field(description="The game's trace id.")
    seat: int = Field(description="0-based seat index.")
    deadline_s: float = Field(description="Seconds allowed per request.")
    status: str = Field(description="'waiting', 'request' or 'ended'.")


class RequestPayload(BaseModel):
    """One decision the seat must make now: exactly what a model seat would be sent."""

    request_id: int = Field(description="Echo it in ``act``.")
    kind: str = Field(description="Decision type, e.g. 'talk', 'decide'.")
    round: int = Field(description="Round index (1-based) of the request.")
    turn: int = Field(description="Turn index inside the round.")
    system: str | None = Field(description="The seat's briefing (its system prompt).")
    reset_context: bool = Field(description="Forget the conversation so far before answering.")
    observation: str = Field(description="What the seat observes now (the next user message).")
    facts: dict[str, Any] = Field(
        default_factory=dict,
        description="The same observation as JSON, for agents that do not read prose: its "
        "schema per game and request kind is printed by 'accord agent schema GAME' "
        "(docs/agents.md lists them).",
    )
    reply_schema: dict[str, Any] | None = Field(
        description="JSON schema of a valid reply (null: free text, see format_hint)."
    )
    format_hint: str = Field(description="One line on the expected reply format.")
    deadline_s: float = Field(description="Seconds left to answer.")


class WaitReply(BaseModel):
    """Answer to ``wait`` / ``wait_for_request`` and ``observe``."""

    status: str = Field(description="'request' (see request), 'waiting' or 'ended'.")
    request: RequestPayload | None = Field(None, description="The open request, if any.")
    reason: str | None = Field(None, description="Why the seat ended, when it did.")


class AgentIdentity(BaseModel):
    """Who the agent says it is: recorded as self-reported, never checked."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100, description="The agent's name.")
    version: str | None = Field(None, max_length=50, description="Its version.")
    framework: str | None = Field(
        None, max_length=100, description="The framework it is built on, e.g. 'langgraph'."
    )


class WaitArgs(BaseModel):
    """Arguments of ``wait`` / ``wait_for_request`` (all optional)."""

    model_config = ConfigDict(extra="forbid")

    timeout_s: float = Field(MAX_WAIT_S, ge=0, description="Seconds to wait, at most 30.")
    agent: AgentIdentity | None = Field(
        None, description="Who the agent is (self-reported; send it once, e.g. on the first call)."
    )


class ActArgs(BaseModel):
    """Arguments of ``act``."""

    model_config = ConfigDict(extra="forbid")

    request_id: int = Field(
        strict=True, description='The open request\'s id (an integer: true or "1" is refused).'
    )
    reply: dict[str, Any] | str = Field(
        description="The reply: a JSON object valid against reply_schema, or text."
    )
    usage: dict[str, StrictInt | StrictFloat] | None = Field(
        None,
        description="Optional usage the agent reports for this decision (input_tokens, "
        "output_tokens, cost_usd), each a finite number from 0 to 1e12; recorded as "
        "self-reported (integers stay integers), never added to Accord's own.",
    )
    key: Annotated[str, Field(min_length=1, max_length=MAX_KEY_CHARS)] | None = Field(
        None,
        description="Idempotency key: an act repeated with the key of an accepted one (a "
        "client retry) gets the original answer again, and is not a bad call.",
    )
    agent: AgentIdentity | None = Field(
        None, description="Who the agent is (self-reported; as in wait_for_request)."
    )


class ActReply(BaseModel):
    """Answer to ``act``."""

    ok: bool = Field(description="True: the reply was accepted.")
    error: str | None = Field(None, description="What was wrong, word for word as for models.")
    errors_left: int | None = Field(None, description="Bad calls left before a violation.")
    repeated: bool | None = Field(
        None,
        description="True: this act repeats one already accepted (the same key, or the same "
        "request and reply); nothing was done again.",
    )


class ErrorReply(BaseModel):
    """Any refused HTTP call."""

    error: str = Field(description="One line: what was wrong and what to do.")


USAGE_KEYS = ("input_tokens", "output_tokens", "cost_usd")


def payload(
    request: Request, request_id: int, deadline_s: float, facts: dict[str, Any] | None = None
) -> RequestPayload:
    """What the agent is sent for `request` (the same text and schema a model seat gets, and
    its structured `facts`: `accord.remote.observations.facts`)."""
    return RequestPayload(
        request_id=request_id,
        kind=request.spec.kind,
        round=request.round,
        turn=request.turn,
        system=request.system,
        reset_context=request.reset_context,
        observation=request.observation,
        facts=facts or {},
        reply_schema=request.spec.schema,
        format_hint=request.spec.format_hint,
        deadline_s=round(max(0.0, deadline_s), 3),
    )


@functools.cache
def message_schemas() -> dict[str, Any]:
    """JSON schemas of every protocol message, by name (computed once; do not modify)."""
    models: list[type[BaseModel]] = [
        SeatInfoReply, WaitArgs, WaitReply, ActArgs, ActReply, ErrorReply, AgentIdentity,
    ]  # fmt: skip
    return {
        "protocol": PROTOCOL,
        "messages": {m.__name__: m.model_json_schema() for m in models},
    }
