"""What the live streams of a served run share: one watcher per run, file work off the loop.

Every open stream of a run used to list and stat the run's trace folder itself, inside the
event loop, once a second (a run stream) or four times a second (a game stream): 200 streams
on a 2,000-trace run made ``/api/runs`` take seconds. Now each run has one `RunWatch`:

* its listing (trace files and live logs) and its progress snapshot are each computed at most
  once per period, in a worker thread, however many streams ask (`Shared`);
* a stream that asks while a scan is under way waits for that scan instead of starting
  another, and a stream that disconnects does not cancel the scan the others wait for;
* each client may hold at most `MAX_STREAMS_PER_CLIENT` streams at once (`StreamCap`); one
  more is refused with HTTP 429 and a line saying what to do.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from fastapi import Request
    from fastapi.responses import StreamingResponse

T = TypeVar("T")

MAX_STREAMS_PER_CLIENT = 32
"""Live streams one client (one address) may hold open at once; a browser shows a handful."""
LISTING_S = 0.25
"""How old a run's listing may be when a game stream looks for its files."""
SNAPSHOT_S = 1.0
"""How old a run's progress snapshot may be when a run stream sends it."""


class Shared(Generic[T]):
    """A value computed by a blocking function in a worker thread and shared by every caller
    for `fresh_s` seconds; callers that ask during a computation wait for it."""

    def __init__(
        self,
        compute: Callable[[], T],
        fresh_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._compute = compute
        self._fresh_s = fresh_s
        self._clock = clock
        self._value: tuple[float, T] | None = None
        self._task: asyncio.Future[T] | None = None
        self.computed = 0
        """How many times the value was computed (for tests and the bench)."""

    async def get(self) -> T:
        """The value, computed again only if it is older than `fresh_s`."""
        if self._value is not None and self._clock() - self._value[0] < self._fresh_s:
            return self._value[1]
        loop = asyncio.get_running_loop()
        task = self._task
        if task is None or task.get_loop() is not loop:  # a test client's loop may be gone
            task = self._task = loop.create_task(self._run())
        # Shielded: a stream that disconnects mid-scan must not cancel the others' scan.
        return await asyncio.shield(task)

    async def _run(self) -> T:
        started = self._clock()
        try:
            value = await asyncio.to_thread(self._compute)
        finally:
            self._task = None
        self.computed += 1
        self._value = (started, value)
        return value


@dataclass(frozen=True)
class Listing:
    """A run's files at one moment: trace id to trace file, and to live event log."""

    traces: dict[str, Path]
    logs: dict[str, Path]


class RunWatch:
    """The shared listing and progress snapshot of one served run (see the module docstring).

    Args:
        listing: lists the run's trace files and live logs (blocking; run in a thread).
        snapshot: the run's progress and game counts (blocking; run in a thread).
    """

    def __init__(
        self, listing: Callable[[], Listing], snapshot: Callable[[], dict[str, Any]]
    ) -> None:
        self.listing = Shared(listing, LISTING_S)
        self.snapshot = Shared(snapshot, SNAPSHOT_S)

    async def files(self, trace_id: str) -> tuple[Path | None, Path | None]:
        """The trace file and live log of one game (None: not there, as of the listing)."""
        listing = await self.listing.get()
        return listing.traces.get(trace_id), listing.logs.get(trace_id)


class StreamCap:
    """At most `limit` open streams per client address."""

    def __init__(self, limit: int = MAX_STREAMS_PER_CLIENT) -> None:
        self.limit = limit
        self.open: dict[str, int] = {}

    def take(self, client: str) -> bool:
        """Count one more stream of `client`; False (nothing counted) when it has `limit`."""
        if self.open.get(client, 0) >= self.limit:
            return False
        self.open[client] = self.open.get(client, 0) + 1
        return True

    def give_back(self, client: str) -> None:
        """One stream of `client` ended."""
        left = self.open.get(client, 0) - 1
        if left > 0:
            self.open[client] = left
        else:
            self.open.pop(client, None)

    def stream(self, request: Request, body: AsyncGenerator[str, None]) -> StreamingResponse:
        """`body` as a server-sent-event stream counted against its client's cap (HTTP 429 when
        it is full). Every live stream of the view goes through here: a run's, a game's and a
        play seat's."""
        from fastapi import HTTPException
        from fastapi.responses import StreamingResponse

        from accord.web.live import SSE_HEADERS

        client = request.client.host if request.client is not None else "?"
        if not self.take(client):
            raise HTTPException(429, self.refusal())

        async def counted() -> AsyncIterator[str]:
            try:
                async for chunk in body:
                    yield chunk
            finally:
                self.give_back(client)
                await body.aclose()

        return StreamingResponse(counted(), media_type="text/event-stream", headers=SSE_HEADERS)

    def refusal(self) -> str:
        """The HTTP 429 message."""
        return (
            f"too many live streams from this address ({self.limit} open): close some run or "
            "game pages of this view, then reload"
        )
