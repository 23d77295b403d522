"""The rate-limiting layer: every attempt holds a slot of its provider's pool.

`Pooled` wraps a one-attempt `accord.models.base.ChatModel`. Each attempt waits for a slot of
the pool its client draws from (`pool_limit`: an `accord.models.limits.AdaptiveLimit` or a
`FixedLimit`, shared by every client with the same key on the running event loop), and, once
`set_shared_limiter` is called, a slot of a limiter shared between processes too (the Ray
executor does). Inside the slot it keeps the client's optional cooldown between call starts,
makes the attempt, and tells the pool how it ended (`Outcome`), with a server's Retry-After
bounded by the one policy (`accord.models.limits.retry_wait_s`: ``backoff_cap_s`` and what is
left of the call's deadline) so the pool never pauses longer than its caller may wait.

The pool keeps time with the client's clock and sleeps with the client's sleep: clients on a
fake clock share a pool on that clock, and their tests never wait for real.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
import weakref
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager

from accord.core.errors import TransientModelError
from accord.core.spec import JSONSchema
from accord.models.base import ChatModel, Completion, Message, ToolSpec
from accord.models.limits import (
    AdaptiveLimit,
    FixedLimit,
    Limit,
    LimitStats,
    Outcome,
    retry_wait_s,
)
from accord.models.options import ModelOptions
from accord.models.retry import current_budget

SleepFn = Callable[[float], Awaitable[None]]
ClockFn = Callable[[], float]

# Limits belong to one event loop, so they are made lazily per running loop; the weak keys
# let a closed loop (one per test, one per `asyncio.run`) take its limits with it.
_PoolKey = tuple[str, int, bool, object, object]
_LIMITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[_PoolKey, Limit]] = (
    weakref.WeakKeyDictionary()
)


def pool_limit(
    key: str,
    limit: int,
    adaptive: bool = False,
    *,
    clock: ClockFn | None = None,
    sleep: SleepFn | None = None,
) -> Limit:
    """The limit shared by every client with this key, size and kind on the running loop:
    `AdaptiveLimit` (`limit` is its ceiling) or `FixedLimit`.

    An adaptive pool keeps time with its clients' `clock` and waits out a Retry-After with
    their `sleep` (default: the real ones), so clients on a fake clock share a pool on that
    clock and their tests never wait for real.
    """
    clock = clock if clock is not None else time.monotonic
    sleep = sleep if sleep is not None else asyncio.sleep
    per_loop = _LIMITS.setdefault(asyncio.get_running_loop(), {})
    pool = per_loop.get((key, limit, adaptive, clock, sleep))
    if pool is None:
        pool = per_loop[(key, limit, adaptive, clock, sleep)] = (
            AdaptiveLimit(limit, clock=clock, sleep=sleep) if adaptive else FixedLimit(limit)
        )
    return pool


def pool_stats() -> dict[str, LimitStats]:
    """What each limit of the running loop did, by pool key (for reports and benches)."""
    per_loop = _LIMITS.get(asyncio.get_running_loop(), {})
    return {key[0]: pool.stats for key, pool in per_loop.items()}


class SlotReport:
    """Handed out by a shared slot: the client sets `outcome` before the slot is released,
    so a cluster-wide adaptive limit learns from every call."""

    outcome: Outcome | None = None


SharedSlot = Callable[[str, int, bool], AbstractAsyncContextManager[SlotReport]]
"""``slot(key, limit, adaptive)``: an async context manager holding a slot of pool `key` (of
`limit` slots, or an adaptive pool with that ceiling); it yields a `SlotReport`."""

_shared_slot: SharedSlot | None = None


def set_shared_limiter(slot: SharedSlot | None) -> None:
    """Make every call of this process also hold a slot of a limiter shared between processes.

    Runs on one machine never call this, so their calls pay nothing for it. Clients whose pool
    key starts with ``local@`` (the in-process model) are exempt: each process has its own.
    """
    global _shared_slot
    _shared_slot = slot


def _shared(key: str, limit: int, adaptive: bool) -> AbstractAsyncContextManager[SlotReport]:
    if _shared_slot is None or key.startswith("local@"):
        return contextlib.nullcontext(SlotReport())
    return _shared_slot(key, limit, adaptive)


class Cooldown:
    """The optional gap between the starts of consecutive calls of one client
    (``cooldown_s``); it lives as long as the client."""

    def __init__(self) -> None:
        self._next_start = -math.inf

    async def wait(self, gap: float, clock: ClockFn, sleep: SleepFn) -> None:
        """Wait until this call may start, `gap` seconds after the previous start."""
        if gap <= 0:
            return
        now = clock()
        # Reserve the start slot before sleeping so concurrent calls queue up one gap apart.
        start = max(now, self._next_start)
        self._next_start = start + gap
        if start > now:
            await sleep(start - now)


class Pooled:
    """Holds a pool slot around each attempt of `inner` (see the module docstring).

    Args:
        inner: makes one attempt per ``complete`` call.
        key: the pool key (usually the provider); ``limit``: its size or ceiling.
        adaptive: an `AdaptiveLimit` pool rather than a fixed one.
        options: ``backoff_cap_s`` (bounds the pool's pause) and ``cooldown_s``.
        cooldown: the client's cooldown state.
        clock / sleep: the client's (tests pass fakes; the pool then runs on them).
    """

    def __init__(
        self,
        inner: ChatModel,
        *,
        key: str,
        limit: int,
        adaptive: bool,
        options: ModelOptions,
        cooldown: Cooldown,
        clock: ClockFn,
        sleep: SleepFn,
    ) -> None:
        self.inner = inner
        self.key = key
        self.limit = limit
        self.adaptive = adaptive
        self.options = options
        self.cooldown = cooldown
        self._clock = clock
        self._sleep = sleep

    @property
    def spec(self) -> str:
        """The wrapped model's spec."""
        return self.inner.spec

    async def aclose(self) -> None:
        await self.inner.aclose()

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
        pool = pool_limit(self.key, self.limit, self.adaptive, clock=self._clock, sleep=self._sleep)
        ticket = await pool.acquire()
        outcome = Outcome(ok=False)
        try:
            async with _shared(self.key, self.limit, self.adaptive) as report:
                try:
                    await self.cooldown.wait(self.options.cooldown_s, self._clock, self._sleep)
                    completion = await self.inner.complete(
                        messages,
                        response_schema=response_schema,
                        temperature=temperature,
                        max_tokens=max_tokens,
                        seed=seed,
                        session=session,
                        deadline=deadline,
                        tools=tools,
                    )
                except TransientModelError as err:
                    outcome = Outcome(
                        ok=False,
                        rate_limited=err.status == 429,
                        retry_after_s=None
                        if err.retry_after_s is None
                        else self._retry_after_s(err.retry_after_s, deadline),
                    )
                    raise
                finally:
                    report.outcome = outcome
                outcome = Outcome(
                    rate=completion.rate,
                    tokens=completion.usage.input_tokens + completion.usage.output_tokens,
                )
                report.outcome = outcome
                return completion
        finally:
            pool.release(ticket, outcome)

    def _retry_after_s(self, asked_s: float, deadline: float | None) -> float:
        """What the pool may pause for a Retry-After of `asked_s`: the backoff's policy
        (`retry_wait_s`), also bounded by the call's deadline (fixed by its first attempt)."""
        budget = current_budget()
        end = budget.end if budget is not None and budget.end is not None else deadline
        left = None if end is None else end - self._clock()
        return retry_wait_s(asked_s, self.options.backoff_cap_s, left)
