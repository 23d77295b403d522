"""The seat server's web app: the MCP endpoint and the HTTP/JSON API, over one `SeatSession`.

* ``POST /mcp``: MCP Streamable HTTP (stateless, JSON responses) with the tools of
  `accord.remote.seat.TOOLS`;
* ``GET /v1/seat``, ``GET /v1/observe``, ``POST /v1/wait``, ``POST /v1/act``: the same calls
  as plain HTTP/JSON; ``GET /v1/schema``: their JSON schemas (no token needed).

A call without a valid ``Authorization: Bearer <token>`` is refused with 401 before it reaches
any seat; a body over `MAX_BODY_BYTES` with 413. Neither ever names a seat or a token.

Every route is held to the same edges (`_Gate`): a browser ``Origin`` other than the server's
own loopback name is refused (403) as the MCP endpoint refuses it; a body that is not JSON, nests
deeper than `accord.core.inputs.MAX_DEPTH` or holds a non-finite number is a JSON 400, recorded
on the seat as a bad call; a body that does not arrive within `BODY_TIMEOUT_S` is a 408 and
headers that do not within `HEADER_TIMEOUT_S` close the connection (`accord.remote.hub`). An
unexpected error is one line on the console and a JSON 500, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, cast
from urllib.parse import urlsplit

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import Field
from starlette.requests import Request as HTTPRequest
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from accord.core.errors import InputLimitError
from accord.core.inputs import parse_json
from accord.remote.protocol import (
    BODY_TIMEOUT_S,
    MAX_BODY_BYTES,
    MAX_KEY_CHARS,
    MAX_WAIT_S,
    PROTOCOL,
    message_schemas,
)
from accord.remote.seat import TOOLS, SeatCallError, SeatSession

if TYPE_CHECKING:
    from accord.remote.hub import Hub

_INSTRUCTIONS = (
    "You hold one seat of an Accord game. Call wait_for_request until it returns a request, "
    "answer it with act (request_id and a reply valid against reply_schema) before its "
    "deadline, and repeat until the status is 'ended'. observe shows the open request again."
)


_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def _host_name(host: str) -> str:
    """``127.0.0.1:8765`` -> ``127.0.0.1``; ``[::1]:8765`` -> ``::1``."""
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


INVALID_REQUEST = -32600
"""JSON-RPC's error code for a request the server would not take."""


def _refused(status: int, message: str, *, mcp: bool = False) -> JSONResponse:
    """A refusal: ``{"error": message}``, or on the MCP endpoint a JSON-RPC error carrying
    the message (the MCP client shows a JSON-RPC error's message; any other body at an error
    status only as "Server returned an error response")."""
    if mcp:
        body: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": INVALID_REQUEST, "message": message},
        }
        return JSONResponse(body, status_code=status)
    return JSONResponse({"error": message}, status_code=status)


_log = logging.getLogger("accord.remote")
_INTERNAL = "internal error; the call was not taken, try again"


def _origin_ok(origin: str, host_header: str, served: str) -> bool:
    """Whether a browser's ``Origin`` may call: the server's own loopback names when it serves
    the loopback (as the MCP SDK's DNS-rebinding check allows), else the host it was called by."""
    try:
        parts = urlsplit(origin)
        name = parts.hostname
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not name:
        return False
    if served in _LOOPBACK:
        return name in _LOOPBACK
    return name == _host_name(host_header).lower()


def _malformed(exc: InputLimitError) -> tuple[str, str]:
    """What is recorded on the seat and what the agent is told for a body out of bounds."""
    if exc.limit == "valid JSON":
        return "the body is not a JSON object", "the body must be a JSON object"
    return f"the body is not a JSON object ({exc.limit})", f"{exc}; send one JSON object"


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body (at most `limit` + 1 bytes kept), or None when the client left."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= limit + 1:
            chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


class _Gate:
    """Holds every route to the same edges (module docstring) before the app sees a call:
    loopback Host, Origin, body size, token, body timeout, and JSON bounds."""

    def __init__(self, app: ASGIApp, hub: Hub) -> None:
        self.app = app
        self.hub = hub

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self._gate(scope, receive, tracked)
        except Exception as exc:  # a bug must not print a traceback or answer plain text
            _log.warning(
                "seat server: %s on %s: %s", type(exc).__name__, scope.get("path"), str(exc)[:200]
            )
            if not started:
                mcp = str(scope.get("path", "")).startswith("/mcp")
                await _refused(500, _INTERNAL, mcp=mcp)(scope, receive, send)

    async def _gate(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        via = "mcp" if scope["path"].startswith("/mcp") else "http"
        mcp = via == "mcp"
        if self.hub.host in _LOOPBACK and _host_name(headers.get("host", "")) not in _LOOPBACK:
            await _refused(
                421, "this server answers loopback names only (127.0.0.1, localhost)", mcp=mcp
            )(scope, receive, send)
            return
        origin = headers.get("origin")
        if origin is not None and not _origin_ok(origin, headers.get("host", ""), self.hub.host):
            seat = self.hub.seat_for(headers.get("authorization"))
            if seat is not None:
                seat.log_refusal(via, scope["path"], "cross-origin call refused")
            await _refused(
                403,
                "cross-origin calls are refused: call from the agent, not from a web page",
                mcp=mcp,
            )(scope, receive, send)
            return
        length = headers.get(
            "content-length", "0" if scope["method"] in ("GET", "HEAD", "DELETE", "OPTIONS") else ""
        )
        if not length.isdigit():
            await _refused(411, "send the body with a Content-Length header", mcp=mcp)(
                scope, receive, send
            )
            return
        if int(length) > MAX_BODY_BYTES:
            seat = self.hub.seat_for(headers.get("authorization"))
            if seat is not None:
                seat.log_refusal(via, scope["path"], "request body too large")
            await _refused(413, f"the body is over {MAX_BODY_BYTES} bytes; send less", mcp=mcp)(
                scope, receive, send
            )
            return
        if (
            scope["path"] != "/v1/schema"
            and self.hub.seat_for(headers.get("authorization")) is None
        ):
            await _refused(
                401,
                "missing or unknown seat token: send 'Authorization: Bearer <token>' with "
                "the token printed for your seat",
                mcp=mcp,
            )(scope, receive, send)
            return
        if scope["method"] not in ("POST", "PUT", "PATCH") or length == "0":
            await self.app(scope, receive, send)
            return
        try:
            body = await asyncio.wait_for(_read_body(receive, MAX_BODY_BYTES), BODY_TIMEOUT_S)
        except TimeoutError:
            self._refuse_call(headers, via, scope["path"], "request body too slow")
            await _refused(
                408,
                f"the body did not arrive within {BODY_TIMEOUT_S:g} s (BODY_TIMEOUT_S)",
                mcp=mcp,
            )(scope, receive, send)
            return
        if body is None:
            return
        try:
            parse_json(body, what="the body", max_chars=MAX_BODY_BYTES, limit="MAX_BODY_BYTES")
        except InputLimitError as exc:
            recorded, told = _malformed(exc)
            self._refuse_call(headers, via, scope["path"], recorded)
            await _refused(400, told, mcp=mcp)(scope, receive, send)
            return
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _refuse_call(self, headers: dict[str, str], via: str, path: str, error: str) -> None:
        seat = self.hub.seat_for(headers.get("authorization"))
        if seat is not None:
            seat.log_refusal(via, path, error)


def _seat(hub: Hub, headers: Any) -> SeatSession:
    session = hub.seat_for(headers.get("authorization") if headers is not None else None)
    if session is None:
        raise ToolError("missing or unknown seat token")
    return session


async def _tool(hub: Hub, ctx: Context, tool: str, args: dict[str, Any]) -> CallToolResult:
    """One seat call as an MCP tool result: the answer as ``structured_content`` (and as JSON
    text); a refused call is an ``is_error`` result whose text is the documented message and
    whose ``structured_content`` is the HTTP/JSON answer (``{"error": ...}``, or the ``act``
    answer with ``errors_left``)."""
    session = _seat(hub, ctx.headers)
    try:
        result = await session.call("mcp", tool, args)
    except SeatCallError as exc:
        extra = ""
        if exc.body and exc.body.get("errors_left") is not None:
            extra = f" (bad calls left before a protocol violation: {exc.body['errors_left']})"
        body = exc.body or {"error": exc.message}
        return CallToolResult(
            content=[TextContent(type="text", text=exc.message + extra)],
            structured_content=body,
            is_error=True,
        )
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(result))], structured_content=result
    )


class _UnknownTools:
    """Records calls of tools that do not exist on the seat that made them."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        if ctx.method == "tools/call":
            name = str((ctx.params or {}).get("name", ""))
            if name not in TOOLS:
                headers = getattr(ctx.request, "headers", None)
                session = self.hub.seat_for(headers.get("authorization") if headers else None)
                if session is not None:
                    session.log_refusal("mcp", name, f"unknown tool {name[:40]!r}")
        return await call_next(ctx)


# The tools' arguments are validated by `SeatSession.call`, so that a malformed call is
# recorded on its seat and counted; the schemas below only tell agents what to send.
_Seconds = Annotated[
    Any,
    Field(
        description=f"Seconds to wait, at most {MAX_WAIT_S:g}.",
        json_schema_extra={"type": "number", "minimum": 0, "maximum": MAX_WAIT_S},
    ),
]
_RequestId = Annotated[
    Any, Field(description="The open request's id.", json_schema_extra={"type": "integer"})
]
_Reply = Annotated[
    Any,
    Field(
        description="A JSON object valid against the request's reply_schema, or text when it "
        "has none.",
        json_schema_extra={"anyOf": [{"type": "object"}, {"type": "string"}]},
    ),
]
_Usage = Annotated[
    Any,
    Field(
        description="Optional self-reported usage: input_tokens, output_tokens, cost_usd.",
        json_schema_extra={"type": "object"},
    ),
]
_Key = Annotated[
    Any,
    Field(
        description="Optional idempotency key: an act repeated with it after it was accepted "
        "gets the original answer again (a retry is not a bad call).",
        json_schema_extra={"type": "string", "maxLength": MAX_KEY_CHARS},
    ),
]
_Identity = Annotated[
    Any,
    Field(
        description="Optional: who you are, {name, version, framework} (recorded as "
        "self-reported).",
        json_schema_extra={"type": "object"},
    ),
]


def _mcp(hub: Hub) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        "accord-seat",
        instructions=_INSTRUCTIONS,
        version=PROTOCOL,
        middleware=[_UnknownTools(hub)],
        log_level="WARNING",
    )

    @server.tool(description="Which game and seat your token holds, and its status.")
    async def seat_info(ctx: Context) -> CallToolResult:
        return await _tool(hub, ctx, "seat_info", {})

    @server.tool(description="Your open request (status 'request'), or 'waiting' / 'ended'.")
    async def observe(ctx: Context) -> CallToolResult:
        return await _tool(hub, ctx, "observe", {})

    @server.tool(
        description=f"Wait up to timeout_s seconds (at most {MAX_WAIT_S:g}) for your next "
        "request; returns it (status 'request'), or status 'waiting' or 'ended'."
    )
    async def wait_for_request(
        ctx: Context, timeout_s: _Seconds = MAX_WAIT_S, agent: _Identity = None
    ) -> CallToolResult:
        args: dict[str, Any] = {"timeout_s": timeout_s}
        if agent is not None:
            args["agent"] = agent
        return await _tool(hub, ctx, "wait_for_request", args)

    @server.tool(
        description="Answer your open request: request_id (integer) and reply (a JSON object "
        "valid against the request's reply_schema, or text when it has none); optional usage "
        "{input_tokens, output_tokens, cost_usd} you want recorded as self-reported; optional "
        "key (idempotency: a retry of an accepted act gets the original answer) and agent "
        "{name, version, framework}."
    )
    async def act(
        ctx: Context,
        request_id: _RequestId = None,
        reply: _Reply = None,
        usage: _Usage = None,
        key: _Key = None,
        agent: _Identity = None,
    ) -> CallToolResult:
        args: dict[str, Any] = {"request_id": request_id, "reply": reply}
        for name, value in (("usage", usage), ("key", key), ("agent", agent)):
            if value is not None:
                args[name] = value
        return await _tool(hub, ctx, "act", args)

    return server


Handler = Callable[[HTTPRequest], Awaitable[Response]]


def _route(server: MCPServer[Any], path: str, method: str) -> Callable[[Handler], Handler]:
    """`MCPServer.custom_route`, typed."""
    return cast("Callable[[Handler], Handler]", server.custom_route(path, methods=[method]))


def _http_routes(server: MCPServer[Any], hub: Hub) -> None:
    async def run(request: HTTPRequest, tool: str, post: bool) -> Response:
        session = hub.seat_for(request.headers.get("authorization"))
        if session is None:  # the gate already refused it; kept for direct app use
            return _refused(401, "missing or unknown seat token")
        args: dict[str, Any] = {}
        if post:
            body = await request.body()
            if len(body) > MAX_BODY_BYTES:
                session.log_refusal("http", tool, "request body too large")
                return _refused(413, f"the body is over {MAX_BODY_BYTES} bytes; send less")
            try:
                args = parse_json(
                    body or b"{}", what="the body", max_chars=MAX_BODY_BYTES, limit="MAX_BODY_BYTES"
                )
            except InputLimitError as exc:
                recorded, told = _malformed(exc)
                session.log_refusal("http", tool, recorded)
                return _refused(400, told)
            if not isinstance(args, dict):
                session.log_refusal("http", tool, "the body is not a JSON object")
                return _refused(400, "the body must be a JSON object")
        try:
            return JSONResponse(await session.call("http", tool, args))
        except SeatCallError as exc:
            return JSONResponse(exc.body or {"error": exc.message}, status_code=exc.status)
        except Exception as exc:  # a bug: one line on the console, a JSON answer to the agent
            _log.warning("seat server: %s in %s: %s", type(exc).__name__, tool, str(exc)[:200])
            return _refused(500, _INTERNAL)

    @_route(server, "/v1/seat", "GET")
    async def seat(request: HTTPRequest) -> Response:
        return await run(request, "seat_info", False)

    @_route(server, "/v1/observe", "GET")
    async def observe(request: HTTPRequest) -> Response:
        return await run(request, "observe", False)

    @_route(server, "/v1/wait", "POST")
    async def wait(request: HTTPRequest) -> Response:
        return await run(request, "wait_for_request", True)

    @_route(server, "/v1/act", "POST")
    async def act(request: HTTPRequest) -> Response:
        return await run(request, "act", True)

    @_route(server, "/v1/schema", "GET")
    async def schema(request: HTTPRequest) -> Response:
        del request
        return JSONResponse(message_schemas())


def build_app(hub: Hub) -> ASGIApp:
    """The ASGI app serving `hub`'s seats."""
    server = _mcp(hub)
    _http_routes(server, hub)
    app = server.streamable_http_app(
        json_response=True,
        stateless_http=True,
        max_request_body_size=MAX_BODY_BYTES,
        host=hub.host,
    )
    return _Gate(app, hub)
