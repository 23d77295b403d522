"""A server of one's own still working on a request its client gave up on.

A call that runs past ``timeout_s`` is abandoned by closing its connection. llama.cpp's
server stops generating for a closed connection, so the slot is free for the retry; a server
that does not (llama-cpp-python's, which has one slot and finishes what it started) keeps
working on it, and the retry queues behind a request nobody will read, times out in turn, and
so on until the call fails. `Retrying` (`accord.models.retry`) therefore asks a server of
one's own, after a timed-out attempt, whether its slots are all busy (`busy_slots`), and if so
waits for one to free (`wait_for_a_slot`) before the retry, within the call's deadline. The
wait is recorded in the retry's record, and a call that fails while the server is still busy
says so, naming the fix.

Only servers that say (llama.cpp: ``GET /slots``, each slot's ``is_processing``; older builds
answer ``GET /health`` with 503 "no slot available") are recognised; for the others the
advice names the possibility.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from accord.core.errors import InputLimitError
from accord.core.inputs import MAX_SERVER_JSON_BYTES, parse_json
from accord.models.server import server_root

PROBE_TIMEOUT_S = 3.0
"""How long one question to the server may take: a busy CPU server still answers these."""

POLL_S = 2.0
"""How often a busy server is asked again."""

BUSY_FIX = (
    "the server at {url} was still working on a request this client had given up on ({busy}); "
    "a server that finishes abandoned requests (llama-cpp-python's) queues every retry behind "
    "them: start it with more slots (llama.cpp: --parallel 2) or use llama.cpp's own server, "
    "which stops generating when the client hangs up, or raise timeout_s so one call can "
    "finish"
)


@dataclass(frozen=True)
class Slots:
    """What a server said about its slots."""

    busy: int
    total: int

    @property
    def all_busy(self) -> bool:
        """True when no slot is free for another request."""
        return self.total > 0 and self.busy >= self.total

    def describe(self) -> str:
        """``1 of 1 slots busy``."""
        return f"{self.busy} of {self.total} slot{'s' if self.total != 1 else ''} busy"


Probe = Callable[[str], Awaitable[Slots | None]]
"""`busy_slots` or a stand-in: the slots of the server at a base URL, None if it does not say."""


async def busy_slots(base_url: str, *, timeout_s: float = PROBE_TIMEOUT_S) -> Slots | None:
    """How many of its slots the server at `base_url` says are working (llama.cpp's
    ``/slots``, or ``/health`` answering 503 "no slot available"), or None when it does not
    say or cannot be asked in `timeout_s`."""
    import httpx

    root = server_root(base_url)
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as http:
            response = await http.get(f"{root}/slots")
            slots = _slots(_json(response.content)) if response.status_code == 200 else None
            if slots is not None:
                return slots
            health = await http.get(f"{root}/health")
    except httpx.HTTPError:
        return None
    if health.status_code == 503 and b"no slot" in health.content[:4096].lower():
        return Slots(busy=1, total=1)
    return None


def _json(body: bytes) -> Any:
    try:
        return parse_json(
            body, what="the server's answer", max_chars=MAX_SERVER_JSON_BYTES,
            limit="MAX_SERVER_JSON_BYTES",
        )  # fmt: skip
    except InputLimitError:
        return None


def _slots(listing: Any) -> Slots | None:
    """llama.cpp's ``/slots`` answer: a list of slots, each ``is_processing`` (newer builds)
    or ``state`` 1 while working (older ones)."""
    if not isinstance(listing, list) or not listing or len(listing) > 1024:
        return None
    busy = 0
    for slot in listing:
        if not isinstance(slot, dict):
            return None
        working = slot.get("is_processing", slot.get("state"))
        if isinstance(working, bool):
            busy += working
        elif isinstance(working, int):
            busy += working != 0
        else:
            return None
    return Slots(busy=busy, total=len(listing))


async def wait_for_a_slot(
    base_url: str,
    max_wait_s: float,
    *,
    probe: Probe,
    sleep: Callable[[float], Awaitable[None]],
    clock: Callable[[], float],
) -> tuple[Slots | None, float]:
    """Wait, up to `max_wait_s`, while every slot of the server at `base_url` is busy.

    Returns what the server said first (None: it does not say, or had a free slot) and the
    seconds waited; the first value is a `Slots` with ``all_busy`` when the server was busy.
    """
    first = await probe(base_url)
    if first is None or not first.all_busy:
        return None, 0.0
    start = clock()
    while clock() - start + POLL_S <= max_wait_s:
        await sleep(POLL_S)
        now = await probe(base_url)
        if now is None or not now.all_busy:
            break
    return first, clock() - start
