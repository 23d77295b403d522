"""How many calls a provider pool may have in flight: adaptive (from what the server says) or
fixed.

A hosted provider limits requests and tokens per minute. Fixed concurrency is either below that
rate (time wasted) or above it (a storm of 429s). `AdaptiveLimit` finds the rate instead:

* **additive increase**: each success grows the window by ``1 / window`` (about one more call
  in flight per window of successes), up to the ceiling;
* **multiplicative decrease**: a 429 (or any rate-limit error) halves the window, at most once
  per window of calls (the 429s of calls already in flight when it shrank do not shrink it
  again);
* **the server's Retry-After** pauses the whole pool, not just the call that got it, so the
  calls queued behind it do not hit the same wall; the pause follows the one Retry-After
  policy (`retry_wait_s`: never past the caller's ``backoff_cap_s`` nor its call's deadline);
* **rate-limit headers** (``x-ratelimit-remaining-requests`` / ``-tokens`` with their
  ``limit`` and ``reset``, as OpenAI and most compatible servers send them): when the server
  says fewer requests (or tokens) are left than the window would spend, new calls are paced at
  the server's refill rate instead of sent at once, so the pool runs at the limit without
  crossing it.

`FixedLimit` is the plain semaphore for those who pin ``max_concurrency``. Both have the same
interface (`acquire` returns a ticket, `release` takes it back with the call's `Outcome`), so a
Ray actor can hold either for a whole cluster (`accord.runner.ray_executor`).
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

ClockFn = Callable[[], float]

DEFAULT_CEILING = 256
"""Calls in flight at most per adaptive pool unless ``max_concurrency`` says otherwise."""

START_WINDOW = 4.0
"""Calls in flight an adaptive pool starts with."""

GUARD_PAUSE_S = 600.0
"""The longest pause an adaptive pool takes from one answer whose Retry-After its caller did
not bound (the model clients always bound it by their own ``backoff_cap_s`` and deadline)."""

NO_RETRY_AFTER_S = 1.0
"""How long an adaptive pool pauses after a rate-limit error that asked for no wait."""


def retry_wait_s(asked_s: float | None, cap_s: float, left_s: float | None = None) -> float:
    """The one Retry-After policy, for a call's backoff and its pool's pause alike.

    A server's Retry-After (`asked_s`; None: it asked for nothing, 0 s) is honoured up to
    `cap_s` (``backoff_cap_s``) and never past what is left of the call's deadline
    (`left_s`): a server asking for an hour, ``inf`` or a date in 2100 cannot stall a game.
    """
    wait = 0.0 if asked_s is None or math.isnan(asked_s) else max(0.0, asked_s)
    wait = min(wait, max(0.0, cap_s))
    if left_s is not None:
        wait = min(wait, max(0.0, left_s))
    return wait


@dataclass(frozen=True)
class RateInfo:
    """What a server said about its rate limits in one answer's headers (None: not sent)."""

    limit_requests: int | None = None
    remaining_requests: int | None = None
    reset_requests_s: float | None = None
    limit_tokens: int | None = None
    remaining_tokens: int | None = None
    reset_tokens_s: float | None = None

    def as_dict(self) -> dict[str, float | int]:
        """The fields that were sent (for JSON)."""
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class Outcome:
    """How one call ended, as its limiter needs to know.

    Attributes:
        ok: the call got an answer (any answer the server did not refuse for load).
        rate_limited: the server refused it for load (HTTP 429 or a rate-limit error).
        retry_after_s: the wait the server asked for, if any.
        rate: the rate-limit headers of the answer, if any.
        tokens: tokens the call used (input plus output), when known.

    The client bounds `retry_after_s` by its ``backoff_cap_s`` and the call's deadline
    (`retry_wait_s`) before handing it over.
    """

    ok: bool = True
    rate_limited: bool = False
    retry_after_s: float | None = None
    rate: RateInfo | None = None
    tokens: int = 0

    def as_dict(self) -> dict[str, Any]:
        """A JSON-able form (a Ray actor receives it)."""
        return {
            "ok": self.ok,
            "rate_limited": self.rate_limited,
            "retry_after_s": self.retry_after_s,
            "rate": self.rate.as_dict() if self.rate is not None else None,
            "tokens": self.tokens,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """The inverse of `as_dict`."""
        rate = data.get("rate")
        return cls(
            ok=bool(data.get("ok", True)),
            rate_limited=bool(data.get("rate_limited", False)),
            retry_after_s=data.get("retry_after_s"),
            rate=RateInfo(**rate) if isinstance(rate, dict) else None,
            tokens=int(data.get("tokens") or 0),
        )


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def duration_s(value: str | None) -> float | None:
    """Seconds in a reset header: ``"1.5"``, ``"20ms"``, ``"6m0s"``, ``"1h2m3.5s"``."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        parts = _DURATION.findall(text)
        if not parts or "".join(a + b for a, b in parts) != text:
            return None
        seconds = sum(float(n) * _UNIT[u] for n, u in parts)
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _int_header(headers: Mapping[str, str], name: str) -> int | None:
    value = headers.get(name)
    if value is None:
        return None
    try:
        number = int(float(value))
    except (TypeError, ValueError, OverflowError):
        return None
    return number if number >= 0 else None


def rate_info(headers: Mapping[str, Any] | None) -> RateInfo | None:
    """The rate-limit headers of an answer (names compared case-insensitively; LiteLLM's
    ``llm_provider-`` prefix is accepted), or None when there are none."""
    if not headers:
        return None
    plain: dict[str, str] = {}
    try:
        items = list(headers.items())
    except AttributeError:
        return None
    for key, value in items:
        name = str(key).lower().removeprefix("llm_provider-")
        if name.startswith("x-ratelimit-") and isinstance(value, str | int | float):
            plain[name] = str(value)
    if not plain:
        return None
    return RateInfo(
        limit_requests=_int_header(plain, "x-ratelimit-limit-requests"),
        remaining_requests=_int_header(plain, "x-ratelimit-remaining-requests"),
        reset_requests_s=duration_s(plain.get("x-ratelimit-reset-requests")),
        limit_tokens=_int_header(plain, "x-ratelimit-limit-tokens"),
        remaining_tokens=_int_header(plain, "x-ratelimit-remaining-tokens"),
        reset_tokens_s=duration_s(plain.get("x-ratelimit-reset-tokens")),
    )


@dataclass
class LimitStats:
    """What a pool's limiter did (for reports and the bench)."""

    calls: int = 0
    rate_limited: int = 0
    decreases: int = 0
    paced: int = 0
    window: float = 0.0
    peak_in_flight: int = 0


class FixedLimit:
    """At most `limit` calls in flight (``max_concurrency`` pinned)."""

    adaptive = False

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._sem = asyncio.Semaphore(limit)
        self._in_flight = 0
        self.stats = LimitStats(window=float(limit))

    async def acquire(self) -> int:
        """Wait for a slot; returns a ticket for `release`."""
        await self._sem.acquire()
        self._in_flight += 1
        self.stats.peak_in_flight = max(self.stats.peak_in_flight, self._in_flight)
        return 0

    def release(self, ticket: int, outcome: Outcome | None = None) -> None:
        """Give the slot back."""
        del ticket
        self._in_flight -= 1
        self.stats.calls += 1
        if outcome is not None and outcome.rate_limited:
            self.stats.rate_limited += 1
        self._sem.release()


@dataclass
class _State:
    window: float
    in_flight: int = 0
    started: int = 0
    """Calls started so far; a ticket is the count when its call started."""
    shrunk_at: int = -1
    """`started` when the window last shrank: 429s of calls started before do not count."""
    paused_until: float = -math.inf
    next_start: float = -math.inf
    pace_s: float = 0.0
    tokens_per_call: float = 0.0
    waiters: list[asyncio.Future[None]] = field(default_factory=list)


class AdaptiveLimit:
    """Calls in flight for one provider pool, sized from the server's answers (AIMD, the
    server's Retry-After and its rate-limit headers; see the module docstring).

    Args:
        ceiling: never more calls in flight than this.
        start: the first window.
        clock: monotonic seconds (the clients' clock: tests pass a fake).
        sleep: awaitable sleep (the clients' sleep: tests pass a fake).
        max_pause_s: the longest pause one rate-limit error can cause (a caller that did
            not bound its Retry-After is bounded here).
    """

    adaptive = True

    def __init__(
        self,
        ceiling: int = DEFAULT_CEILING,
        *,
        start: float = START_WINDOW,
        clock: ClockFn | None = None,
        sleep: Callable[[float], Any] | None = None,
        max_pause_s: float = GUARD_PAUSE_S,
    ) -> None:
        self.ceiling = max(1, ceiling)
        self.max_pause_s = max_pause_s
        self._s = _State(window=min(float(self.ceiling), max(1.0, start)))
        self._clock: ClockFn = clock if clock is not None else time.monotonic
        self._sleep = sleep if sleep is not None else asyncio.sleep
        self.stats = LimitStats(window=self._s.window)

    @property
    def window(self) -> float:
        """Calls allowed in flight now."""
        return self._s.window

    @property
    def in_flight(self) -> int:
        """Calls in flight now."""
        return self._s.in_flight

    async def acquire(self) -> int:
        """Wait until a call may start (room in the window, no pause, its paced start time);
        returns a ticket for `release`."""
        s = self._s
        while s.in_flight >= math.floor(s.window):
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            s.waiters.append(waiter)
            try:
                await waiter
            finally:
                if waiter in s.waiters:
                    s.waiters.remove(waiter)
        s.in_flight += 1
        ticket = s.started
        s.started += 1
        self.stats.peak_in_flight = max(self.stats.peak_in_flight, s.in_flight)
        # Reserve a start time: after any pause, and one pace after the previous start.
        now = self._clock()
        start = max(now, s.paused_until)
        if s.pace_s > 0:
            start = max(start, s.next_start)
            s.next_start = start + s.pace_s
            self.stats.paced += 1
        if start > now:
            try:
                await self._sleep(start - now)
            except BaseException:
                self._leave()
                raise
        return ticket

    def release(self, ticket: int, outcome: Outcome | None = None) -> None:
        """Take back the slot of the call with `ticket`, learning from its `outcome`."""
        s = self._s
        self._leave()
        self.stats.calls += 1
        if outcome is None:
            return
        now = self._clock()
        if outcome.rate_limited:
            self.stats.rate_limited += 1
            if ticket >= s.shrunk_at:  # one decrease per window of calls
                s.window = max(1.0, s.window / 2)
                s.shrunk_at = s.started
                self.stats.decreases += 1
            asked = outcome.retry_after_s
            wait = retry_wait_s(NO_RETRY_AFTER_S if asked is None else asked, self.max_pause_s)
            s.paused_until = max(s.paused_until, now + wait)
        elif outcome.ok:
            if outcome.tokens:
                s.tokens_per_call = (
                    outcome.tokens
                    if not s.tokens_per_call
                    else 0.9 * s.tokens_per_call + 0.1 * outcome.tokens
                )
            if not self._pace(outcome.rate):
                s.window = min(float(self.ceiling), s.window + 1.0 / s.window)
        self.stats.window = s.window
        self._wake()

    def _pace(self, rate: RateInfo | None) -> bool:
        """Set the pacing from the server's headers; True when the server is near its limit
        (the window then stops growing)."""
        s = self._s
        if rate is None:
            return False
        gaps: list[float] = []
        near = False
        if rate.remaining_requests is not None:
            period = _refill_period(rate.limit_requests)
            if rate.remaining_requests <= max(2.0, s.window) and period is not None:
                gaps.append(period)
                near = True
        if rate.remaining_tokens is not None and s.tokens_per_call > 0:
            period = _refill_period(rate.limit_tokens)
            if rate.remaining_tokens <= s.tokens_per_call * max(2.0, s.window) and period:
                gaps.append(period * s.tokens_per_call)
                near = True
        s.pace_s = max(gaps) if gaps else 0.0
        return near

    def _leave(self) -> None:
        self._s.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        s = self._s
        room = math.floor(s.window) - s.in_flight
        for waiter in list(s.waiters[: max(room, 0)]):
            if not waiter.done():
                waiter.set_result(None)


def _refill_period(limit: int | None) -> float | None:
    """Seconds per unit at which a per-minute budget of `limit` refills (None: not sent).

    OpenAI and most compatible servers state their limits per minute; the reset headers give
    the time until the budget is full again, which says nothing about the rate without the
    size of the burst the server allows, so they are not used for pacing.
    """
    return 60.0 / limit if limit else None


Limit = FixedLimit | AdaptiveLimit
