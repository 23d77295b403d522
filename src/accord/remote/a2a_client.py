"""Calling an A2A agent for one seat's decisions, through the official A2A SDK (``a2a-sdk``).

Protocol ``accord-a2a/1`` (``docs/agents.md``, "A2A agents"): Accord is the A2A *client*. Each
decision is one ``message/send`` (JSON-RPC binding) whose message holds two parts:

* a text part: what a model seat would read (the briefing when it is new, the observation,
  the reply format, and the error of a refused reply);
* a data part: ``{"protocol", "game_id", "trace_id", "seat", "attempt", "error", "request",
  "structured"}``: ``request`` is the seat protocol's `RequestPayload` (request id, kind,
  reply schema, deadline...), ``structured`` the request's structured facts.

The agent answers with a message (or a task that completes with an artifact or a status
message) whose first data part holds an object is the reply; else its text parts are. Usage
the agent wants recorded goes in the reply message's ``metadata.usage``.

Every call carries ``Authorization: Bearer <token>`` when the seat has a token. Every response
is read through `_BoundedTransport`: at most `MAX_RESPONSE_BYTES`, nested at most
`accord.core.inputs.MAX_DEPTH`, finite numbers only, before the SDK parses it. The agent card
is fetched once; the addresses it names must be the one Accord was given (`same_origin`), so a
card cannot send the token elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from a2a.client import (
    A2ACardResolver,
    A2AClientError,
    Client,
    ClientCallContext,
    ClientConfig,
    ClientFactory,
)
from a2a.helpers import get_data_parts, get_text_parts, new_data_part
from a2a.types.a2a_pb2 import (
    AgentCard,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    Task,
    TaskState,
)

from accord.core.errors import InputLimitError
from accord.core.inputs import parse_json
from accord.remote.a2a_url import same_origin
from accord.remote.protocol import MAX_BODY_BYTES, MAX_REPLY_CHARS

# protobuf ships no type stubs (the SDK's types are generated from it): its JSON mapping is
# reached untyped, and used only on messages the SDK built or parsed.
_json_format: Any = importlib.import_module("google.protobuf.json_format")

PROTOCOL = "accord-a2a/1"
"""Name and version of the message shapes above; a change an agent could notice bumps it."""

MAX_RESPONSE_BYTES = 4 * MAX_BODY_BYTES
"""Largest response body read from the agent (a task echoes parts of the request)."""

MAX_RECORDED_CHARS = 8 * 1024
"""Longest JSON text of a returned message or task kept whole in the trace."""

POLL_TASK_S = 0.2
"""How often a task the agent left working is asked for again."""

_TERMINAL = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
    TaskState.TASK_STATE_INPUT_REQUIRED,
    TaskState.TASK_STATE_AUTH_REQUIRED,
}


class A2ANotReady(Exception):
    """The agent's card cannot be fetched yet (nothing listens at its address)."""


@dataclass
class Exchange:
    """One ``message/send`` and what came of it (token-free, for the trace)."""

    sent: dict[str, Any]
    returned: Any = None
    reply: str | None = None
    """The reply text handed to the request's parser, when the agent gave one."""
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    """Why the exchange gave no reply (a bad call: the agent is told and asked again)."""
    fatal: str | None = None
    """Why the seat cannot go on (token refused, agent unreachable)."""


class _BoundedTransport(httpx.AsyncBaseTransport):
    """Reads each response whole within `MAX_RESPONSE_BYTES` and the JSON bounds of
    `accord.core.inputs` before the SDK sees it; remembers the last status and breach."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.status: int | None = None
        self.breach: str | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.status, self.breach = None, None
        response = await self.inner.handle_async_request(request)
        body = bytearray()
        try:
            async for chunk in response.stream:  # type: ignore[union-attr]
                body += chunk
                if len(body) > MAX_RESPONSE_BYTES:
                    self.breach = f"the response is over {MAX_RESPONSE_BYTES} bytes"
                    raise httpx.DecodingError(self.breach, request=request)
        finally:
            await response.aclose()
        self.status = response.status_code
        kind = response.headers.get("content-type", "")
        if body and "json" in kind:
            try:
                parse_json(
                    bytes(body),
                    what="the response",
                    max_chars=MAX_RESPONSE_BYTES,
                    limit="MAX_RESPONSE_BYTES",
                )
            except InputLimitError as exc:
                self.breach = str(exc)
                raise httpx.DecodingError(self.breach, request=request) from None
        headers = [(k, v) for k, v in response.headers.items() if k.lower() != "content-encoding"]
        return httpx.Response(
            response.status_code, headers=headers, content=bytes(body), request=request
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def _whole(value: Any) -> Any:
    """A data part's numbers travel as doubles (``google.protobuf.Value``): whole ones are
    read back as integers, so ``3.0`` meets an integer schema as the agent meant it."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: _whole(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole(v) for v in value]
    return value


def jsonable(value: Any) -> Any:
    """`value` as plain JSON data (tuples and sets as lists, other objects as text)."""

    def default(obj: Any) -> Any:
        if isinstance(obj, set | frozenset):
            return sorted(obj, key=repr)
        if hasattr(obj, "model_dump"):
            return obj.model_dump(mode="json")
        return str(obj)

    return json.loads(json.dumps(value, default=default))


def build_message(*, text: str, data: dict[str, Any], context_id: str, message_id: str) -> Message:
    """The user message of one decision: its prose and its data part."""
    return Message(
        role=Role.ROLE_USER,
        message_id=message_id,
        context_id=context_id,
        parts=[
            Part(text=text, media_type="text/plain"),
            new_data_part(jsonable(data), media_type="application/json"),
        ],
    )


def as_json(message: Any) -> dict[str, Any]:
    """A protobuf message in its JSON form (what went over the wire, as the trace keeps it)."""
    out: dict[str, Any] = _json_format.MessageToDict(message)
    return out


def _recorded(value: dict[str, Any]) -> Any:
    text = json.dumps(value)
    if len(text) <= MAX_RECORDED_CHARS:
        return value
    return {"truncated": True, "chars": len(text), "head": text[:MAX_RECORDED_CHARS]}


def _reply_of(parts: list[Part]) -> str | None:
    for data in get_data_parts(parts):
        if isinstance(data, dict):
            return json.dumps(_whole(data))
    texts = [t for t in get_text_parts(parts) if t.strip()]
    return "\n".join(texts) if texts else None


class A2AConnection:
    """One seat's link to its A2A agent: the card, then one call per decision."""

    def __init__(self, url: str, token: str | None) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self._transport = _BoundedTransport()
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.AsyncClient(
            transport=self._transport, headers=headers, timeout=30.0, follow_redirects=False
        )
        self.card: AgentCard | None = None
        self.client: Client | None = None

    async def join(self) -> dict[str, Any]:
        """Fetch and check the agent card and make the SDK client; a summary for the trace.

        Raises:
            A2ANotReady: nothing answers at the address yet.
            ValueError: the card cannot be used (the message says why and what to do).
        """
        try:
            card = await A2ACardResolver(self.http, self.url).get_agent_card()
        except A2AClientError as exc:
            if self._transport.status is None and self._transport.breach is None:
                raise A2ANotReady(str(exc)) from None
            why = self._transport.breach or f"HTTP {self._transport.status}"
            raise ValueError(
                f"the agent card at {self.url}/.well-known/agent-card.json cannot be read "
                f"({why}): serve a valid A2A agent card there"
            ) from None
        rpc = [i for i in card.supported_interfaces if i.protocol_binding.upper() == "JSONRPC"]
        if not rpc:
            raise ValueError(
                f"the agent card of {self.url} offers no JSONRPC interface: Accord calls "
                "agents over A2A's JSON-RPC binding"
            )
        elsewhere = [i.url for i in rpc if not same_origin(i.url, self.url)]
        if elsewhere:
            raise ValueError(
                f"the agent card names {elsewhere[0][:80]!r}, not the address the seat was "
                f"given ({self.url}): Accord only calls that address"
            )
        if card.security_requirements and not self.token:
            raise ValueError(
                f"the agent at {self.url} asks for credentials (its card lists security "
                "requirements): give the seat a token with 'token_env'"
            )
        config = ClientConfig(
            streaming=False, httpx_client=self.http, supported_protocol_bindings=["JSONRPC"]
        )
        self.card = card
        self.client = ClientFactory(config).create(card)
        return {
            "name": card.name[:80],
            "version": card.version[:40],
            "interface": rpc[0].url[:200],
            "bearer": any(
                s.http_auth_security_scheme.scheme.lower() == "bearer"
                for s in card.security_schemes.values()
            ),
        }

    async def send(self, message: Message, timeout: float) -> Exchange:
        """Send one decision's message; the exchange (never raises for the agent's faults)."""
        assert self.client is not None, "join first"
        sent = as_json(message)
        exchange = Exchange(sent=sent)
        request = SendMessageRequest(
            message=message, configuration=SendMessageConfiguration(history_length=0)
        )
        context = ClientCallContext(timeout=timeout)
        try:
            result: Message | Task | None = None
            async for event in self.client.send_message(request, context=context):
                if event.HasField("message"):
                    result = event.message
                elif event.HasField("task"):
                    result = event.task
            if isinstance(result, Task) and result.status.state not in _TERMINAL:
                result = await self._finish(result, context)
        except A2AClientError as exc:
            self._failed(exchange, exc)
            return exchange
        if result is None:
            exchange.error = "the agent sent neither a message nor a task"
            return exchange
        exchange.returned = _recorded(as_json(result))
        self._read(result, exchange)
        return exchange

    async def _finish(self, task: Task, context: ClientCallContext) -> Task:
        """Ask for a task the agent left working until it reaches a final state (the caller's
        deadline cancels this)."""
        assert self.client is not None
        while task.status.state not in _TERMINAL:
            await asyncio.sleep(POLL_TASK_S)
            task = await self.client.get_task(
                GetTaskRequest(id=task.id, history_length=0), context=context
            )
        return task

    def _failed(self, exchange: Exchange, exc: A2AClientError) -> None:
        status, breach = self._transport.status, self._transport.breach
        if status in (401, 403):
            exchange.fatal = (
                f"the agent refused Accord's token (HTTP {status}): a 'command' agent must "
                "accept the token in ACCORD_A2A_TOKEN; for 'a2a: URL' set 'token_env' to the "
                "variable holding the token the agent expects"
            )
        elif breach is not None:
            exchange.error = f"{breach}; send one reply within the bounds"
        elif status is None:
            exchange.fatal = f"the agent at {self.url} stopped answering ({str(exc)[:160]})"
        else:
            exchange.error = f"the call failed: {str(exc)[:300]}"

    def _read(self, result: Message | Task, exchange: Exchange) -> None:
        metadata: Any = None
        if isinstance(result, Message):
            parts = list(result.parts)
            metadata = result.metadata
        else:
            state = TaskState.Name(result.status.state)
            if result.status.state != TaskState.TASK_STATE_COMPLETED:
                said = " ".join(get_text_parts(list(result.status.message.parts)))[:200]
                exchange.error = (
                    f"the task ended {state}{': ' + said if said else ''}; complete it with "
                    "the reply"
                )
                return
            parts = [p for a in result.artifacts for p in a.parts]
            if not parts:
                parts = list(result.status.message.parts)
                metadata = result.status.message.metadata
        reply = _reply_of(parts)
        if reply is None:
            exchange.error = "the reply holds no data part with an object and no text"
            return
        if len(reply) > MAX_REPLY_CHARS:
            exchange.error = f"the reply is {len(reply)} characters; at most {MAX_REPLY_CHARS}"
            return
        exchange.reply = reply
        if metadata is not None and "usage" in metadata:
            usage = as_json(metadata).get("usage")
            if isinstance(usage, dict):
                exchange.usage = _whole(usage)

    async def close(self) -> None:
        """Close the SDK client and the HTTP connections."""
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.close()
        await self.http.aclose()
