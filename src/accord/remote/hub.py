"""The seat server of this process: one per event loop and address, shared by every game.

The first remote seat starts it (uvicorn serving `accord.remote.app` on 127.0.0.1 and a free
port unless the experiment names others); it stops when its last seat is released, or, in a
run (`hold`), when the run ends, so the games of a run share one server. Seats are
found by the SHA-256 of their token, so the token itself is only kept by its `SeatSession`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
import socket
import weakref
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from accord.core.errors import ConfigError
from accord.remote.protocol import HEADER_TIMEOUT_S, TOKEN_BYTES
from accord.remote.seat import SeatSession
from accord.remote.spec import RemoteSeatSpec

_HUBS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int], Hub]] = (
    weakref.WeakKeyDictionary()
)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class Hub:
    """Seats by token, and the server that serves them."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.key_port = port
        """The port asked for (0: any free one), under which the hub is found."""
        self._seats: dict[bytes, SeatSession] = {}
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self.refused = 0
        """Calls refused for a missing or unknown token since the server started."""

    @property
    def base_url(self) -> str:
        """``http://host:port`` of the running server."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def new_token(self) -> str:
        """A fresh seat token (`TOKEN_BYTES` random bytes, URL-safe)."""
        return secrets.token_urlsafe(TOKEN_BYTES)

    def add(self, session: SeatSession) -> None:
        """Serve `session` from now on."""
        self._seats[_digest(session.token)] = session

    def remove(self, session: SeatSession) -> None:
        """Stop serving `session` (its token is refused from now on)."""
        self._seats.pop(_digest(session.token), None)

    def seat_for(self, authorization: str | None) -> SeatSession | None:
        """The seat an ``Authorization: Bearer <token>`` header names, if any."""
        if not authorization or not authorization.startswith("Bearer "):
            self.refused += 1
            return None
        digest = _digest(authorization.removeprefix("Bearer ").strip())
        for key, session in self._seats.items():
            if hmac.compare_digest(key, digest):
                return session
        self.refused += 1
        return None

    @property
    def empty(self) -> bool:
        """True when no seat is served."""
        return not self._seats

    async def start(self) -> None:
        """Bind and serve (the port is known when this returns)."""
        try:
            from accord.remote.app import build_app
        except ImportError as exc:
            raise ConfigError(
                f"remote agent seats need the 'remote' extra ({exc.name or 'mcp'} is missing): "
                "pip install 'accord[remote]'"
            ) from exc
        import uvicorn  # a dependency of the MCP SDK

        sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit it: without it, Nagle's algorithm and delayed ACKs
        # add ~40 ms to every small reply on the loopback (bench/remote_overhead.py).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError as exc:
            sock.close()
            raise ConfigError(
                f"cannot serve remote seats on {self.host}:{self.port} ({exc.strerror}); "
                "choose another 'port' (0 picks a free one)"
            ) from exc
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            build_app(self),
            log_level="warning",
            access_log=False,
            lifespan="on",
            http=_timed_protocol(),
        )
        self._server = _server_class()(config)
        self._task = asyncio.ensure_future(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise ConfigError(f"the remote seat server on {self.base_url} did not start")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Stop serving and wait for the server to exit."""
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        self._server = self._task = None


def _server_class() -> type:
    import uvicorn

    class QuietServer(uvicorn.Server):
        """A uvicorn server that leaves signal handling to the run (Ctrl-C and SIGTERM stop
        the run, which then closes its seats), instead of taking SIGINT/SIGTERM over."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return QuietServer


def _timed_protocol() -> type:
    """uvicorn's HTTP/1.1 protocol with a deadline on each request's headers: a connection
    that has not sent a whole request head within `HEADER_TIMEOUT_S` of its first byte (or of
    being opened) is closed, so slow clients cannot hold connections open (slow loris)."""
    import asyncio as aio

    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimeoutProtocol(H11Protocol):
        _header_timer: aio.TimerHandle | None = None

        def _waiting_for_headers(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(HEADER_TIMEOUT_S, self._headers_late)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if self._waiting_for_headers() and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: aio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._waiting_for_headers() and self._header_timer is None:
                self._arm()  # the next request on a kept-alive connection
            super().data_received(data)
            if not self._waiting_for_headers():
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeaderTimeoutProtocol


_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


def _lock() -> asyncio.Lock:
    loop = asyncio.get_running_loop()
    lock = _LOCKS.get(loop)
    if lock is None:
        lock = _LOCKS[loop] = asyncio.Lock()
    return lock


async def acquire(spec: RemoteSeatSpec, session_of: Any) -> tuple[Hub, SeatSession]:
    """Register a seat on this loop's hub for `spec`'s address, starting the server if needed.

    `session_of(token)` builds the `SeatSession` for a fresh token.
    """
    async with _lock():
        hubs = _HUBS.setdefault(asyncio.get_running_loop(), {})
        key = (spec.host, spec.port)
        hub = hubs.get(key)
        if hub is None:
            hub = Hub(spec.host, spec.port)
            await hub.start()
            hubs[key] = hub
        session: SeatSession = session_of(hub.new_token())
        hub.add(session)
        return hub, session


async def release(hub: Hub, session: SeatSession) -> None:
    """Unregister a seat; the server stops with its last seat (unless it is held)."""
    async with _lock():
        hub.remove(session)
        held = _HELD.get(asyncio.get_running_loop(), {})
        if hub.empty and not held.get((hub.host, hub.key_port), 0):
            hubs = _HUBS.get(asyncio.get_running_loop(), {})
            for key, h in list(hubs.items()):
                if h is hub:
                    del hubs[key]
            await hub.stop()


_HELD: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int], int]] = (
    weakref.WeakKeyDictionary()
)


@contextlib.asynccontextmanager
async def hold(specs: Iterable[RemoteSeatSpec]) -> AsyncIterator[None]:
    """Keep the seat servers of `specs`' addresses running through the block (a whole run):
    each starts with its first seat as ever, but no longer stops and starts again between
    one game and the next; it stops when the block ends, if no seat is left on it."""
    keys = {(s.host, s.port) for s in specs}
    loop = asyncio.get_running_loop()
    async with _lock():
        held = _HELD.setdefault(loop, {})
        for key in keys:
            held[key] = held.get(key, 0) + 1
    try:
        yield
    finally:
        async with _lock():
            held = _HELD.get(loop, {})
            hubs = _HUBS.get(loop, {})
            for key in keys:
                held[key] -= 1
                if held[key] <= 0:
                    del held[key]
                    hub = hubs.get(key)
                    if hub is not None and hub.empty:
                        del hubs[key]
                        await hub.stop()
