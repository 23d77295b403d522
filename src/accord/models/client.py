"""`ModelClient`: the one place where model calls are retried, limited, timed and priced.

Providers implement only `ModelClient._complete_once` (one attempt, no retry) and map their own
exceptions: a failure worth retrying becomes `TransientModelError` (optionally with the
server's Retry-After), anything else `ModelError`. `ModelClient.complete` then adds, for every
provider alike:

* retries with exponential backoff and full jitter, honouring Retry-After up to the backoff
  cap (a server asking for an hour, ``inf`` or a date in 2100 is waited on for the cap, never
  longer);
* a total deadline per call (``deadline_s``, or one the caller passes for a whole decision)
  that bounds every attempt and wait: no retry starts that could not finish before it;
* a per-provider concurrency limit shared by every client of that provider in the process
  (and, once `set_shared_limiter` is called, across processes too: the Ray executor does);
* a per-attempt timeout, which counts as transient;
* an optional cooldown between the starts of consecutive calls of one client;
* latency, attempt count, cost, and a record of every retry in ``raw["retries"]``;
* a report of each call's start, retries, success or failure to the context's
  `accord.models.telemetry.CallObserver` (the run's live progress display).

Sleeping, the clock and the jitter source are injectable so tests never wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import math
import random
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TypedDict

from accord.core.errors import AccordError, ModelError, TransientModelError
from accord.core.spec import JSONSchema
from accord.models.base import Completion, Message
from accord.models.limits import (
    AdaptiveLimit,
    FixedLimit,
    Limit,
    LimitStats,
    Outcome,
    retry_wait_s,
)
from accord.models.options import ModelOptions
from accord.models.pricing import cost_usd
from accord.models.server import UNCAPPED_FIX, is_timeout
from accord.models.telemetry import current_observer

SleepFn = Callable[[float], Awaitable[None]]
ClockFn = Callable[[], float]


class RetryRecord(TypedDict):
    """One failed attempt that was retried, as stored in ``Completion.raw["retries"]``."""

    attempt: int
    error: str
    wait_s: float


RetryHook = Callable[[RetryRecord], None]


@dataclass(frozen=True)
class Call:
    """One request as a provider sees it; option defaults are already applied."""

    messages: list[Message]
    response_schema: JSONSchema | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    session: str | None = None


class RetriesExhaustedError(ModelError):
    """Every attempt of a call failed with a transient error.

    Attributes:
        attempts: how many attempts were made.
        retries: one record per retried attempt (the last failure is in the message).
    """

    def __init__(
        self,
        message: str,
        *,
        attempts: int,
        retries: list[RetryRecord],
        status: int | None = None,
    ) -> None:
        super().__init__(message, status=status)
        self.attempts = attempts
        self.retries = retries


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


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds asked for by an HTTP Retry-After header (delta seconds or a date), else None.

    ``inf`` stays infinite (the client caps every wait); ``nan`` and garbage give None.
    """
    if value is None or not value.strip():
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return None if math.isnan(seconds) else max(0.0, seconds)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class ModelClient(ABC):
    """A model addressed as ``provider/model``; call `complete` to get a `Completion`.

    Build clients with `accord.models.get_model`, which caches one per spec and options.

    Args:
        spec: the ``provider/model`` string this client answers for.
        options: how to reach and call the model.
        sleep: awaitable sleep used for backoff and cooldown (tests pass a fake).
        clock: monotonic clock in seconds used for latency and cooldown.
        rng: source of backoff jitter.
        on_retry: called with each `RetryRecord` before the client sleeps and retries.
    """

    def __init__(
        self,
        spec: str,
        options: ModelOptions | None = None,
        *,
        sleep: SleepFn | None = None,
        clock: ClockFn | None = None,
        rng: random.Random | None = None,
        on_retry: RetryHook | None = None,
    ) -> None:
        self.spec = spec
        self.options = options if options is not None else ModelOptions()
        self.on_retry = on_retry
        self._sleep: SleepFn = sleep if sleep is not None else asyncio.sleep
        self._clock: ClockFn = clock if clock is not None else time.monotonic
        self._rng = rng if rng is not None else random.Random()
        self._next_start = -math.inf

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"

    @property
    def provider(self) -> str:
        """The provider part of the spec."""
        return self.spec.split("/", 1)[0]

    def _concurrency(self) -> tuple[str, int]:
        """Key and size of the concurrency pool this client draws from (for an adaptive pool,
        its ceiling)."""
        return self.provider, self.options.concurrency_limit

    def concurrency_key(self) -> tuple[str, int]:
        """Key and size of the concurrency pool this client draws from."""
        return self._concurrency()

    @property
    def adaptive_concurrency(self) -> bool:
        """Whether this client's pool sizes itself from the server's answers (the default;
        ``max_concurrency`` pins a fixed limit; the in-process model is always fixed)."""
        return self.options.max_concurrency is None and not self._concurrency()[0].startswith(
            "local@"
        )

    @abstractmethod
    async def _complete_once(self, call: Call) -> Completion:
        """Make one attempt. Raise `TransientModelError` for failures worth retrying."""

    async def aclose(self) -> None:  # noqa: B027  (optional hook; most providers hold nothing)
        """Release connections held for the running event loop."""

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
    ) -> Completion:
        """Ask the model for the next message of a conversation.

        Args:
            messages: the conversation so far, oldest first.
            response_schema: JSON schema the reply must follow (providers that can constrain
                output do; the caller validates anyway).
            temperature: sampling temperature; ``None`` uses ``options.temperature``.
            max_tokens: output token limit; ``None`` uses ``options.max_tokens``.
            seed: sampling seed, where the provider supports one.
            session: a stable key for one conversation (e.g. game and seat) so providers that
                cache prompt state can reuse it on the next turn.
            deadline: the client clock's time by which the call must be over, retries and
                waits included; ``None``: ``options.deadline_s`` after the first attempt
                starts (time spent queueing for a concurrency slot before it does not count,
                so a busy local model does not eat a call's budget).

        Raises:
            RetriesExhaustedError: every attempt failed with a transient error.
            ModelError: a permanent failure (bad request, unknown model, bad key).
        """
        call = Call(
            messages=list(messages),
            response_schema=response_schema,
            temperature=temperature if temperature is not None else self.options.temperature,
            max_tokens=max_tokens if max_tokens is not None else self.options.max_tokens,
            seed=seed,
            session=session,
        )
        observer = current_observer()
        if observer is not None:
            observer.call_started(self.spec)
        try:
            completion = await self._with_retries(call, deadline)
        except ModelError as err:
            if observer is not None:
                observer.call_failed(self.spec, err)
            raise
        if observer is not None:
            observer.call_finished(self.spec, completion)
        return completion

    async def _with_retries(self, call: Call, deadline: float | None) -> Completion:
        budget = [deadline]  # set when the first attempt starts, unless the caller fixed it
        retries: list[RetryRecord] = []
        attempts = self.options.max_retries + 1
        observer = current_observer()
        limited: list[float | None] = []  # the Retry-After of each 429, None: none asked
        for attempt in range(1, attempts + 1):
            try:
                completion, latency = await self._attempt(call, budget)
            except TransientModelError as err:
                if err.status == 429:
                    limited.append(err.retry_after_s)
                wait = self._backoff_s(attempt, err)
                now = self._clock()
                left = (budget[0] if budget[0] is not None else now + self.options.deadline_s) - now
                if attempt == attempts or wait >= left:
                    why = (
                        f"all {attempt} attempts failed"
                        if attempt == attempts
                        else f"gave up after {attempt} attempts: the call's deadline "
                        f"(deadline_s={self.options.deadline_s:g}) leaves {max(left, 0):.0f} s, "
                        f"less than the next wait of {wait:.0f} s"
                    )
                    if limited:
                        why += "; " + self._rate_limited(limited, attempt)
                    advice = (
                        UNCAPPED_FIX
                        if call.max_tokens is None and is_timeout(err)
                        else "Check the server or the provider's status page and your rate "
                        "limits, or raise max_retries / timeout_s / deadline_s"
                    )
                    raise RetriesExhaustedError(
                        f"{self.spec}: {why}; last error: {err}. {advice[0].upper()}{advice[1:]}.",
                        attempts=attempt,
                        retries=retries,
                        status=429 if limited and err.status is None else err.status,
                    ) from err
                record = RetryRecord(attempt=attempt, error=str(err), wait_s=round(wait, 3))
                retries.append(record)
                if self.on_retry is not None:
                    self.on_retry(record)
                if observer is not None:
                    observer.call_retried(self.spec, attempt, err, wait)
                await self._sleep(wait)
                continue
            return self._finish(completion, latency, attempt, retries)
        raise AssertionError("unreachable: the loop returns or raises")

    async def _attempt(self, call: Call, budget: list[float | None]) -> tuple[Completion, float]:
        key, limit = self._concurrency()
        adaptive = self.adaptive_concurrency
        pool = pool_limit(key, limit, adaptive, clock=self._clock, sleep=self._sleep)
        ticket = await pool.acquire()
        outcome = Outcome(ok=False)
        try:
            async with _shared(key, limit, adaptive) as report:
                try:
                    completion, latency = await self._attempt_in_slot(call, budget)
                except TransientModelError as err:
                    outcome = Outcome(
                        ok=False,
                        rate_limited=err.status == 429,
                        retry_after_s=None
                        if err.retry_after_s is None
                        else self._retry_after_s(err.retry_after_s, budget[0]),
                    )
                    raise
                finally:
                    report.outcome = outcome
                outcome = Outcome(
                    rate=completion.rate,
                    tokens=completion.usage.input_tokens + completion.usage.output_tokens,
                )
                report.outcome = outcome
                return completion, latency
        finally:
            pool.release(ticket, outcome)

    async def _attempt_in_slot(
        self, call: Call, budget: list[float | None]
    ) -> tuple[Completion, float]:
        await self._cooldown()
        started = self._clock()
        end = budget[0]
        if end is None:
            end = budget[0] = started + self.options.deadline_s
        timeout = min(self.options.timeout_s, max(end - started, 0.001))
        try:
            completion = await asyncio.wait_for(self._complete_once(call), timeout=timeout)
        except TimeoutError as err:
            raise TransientModelError(
                f"no reply within {timeout:g} s "
                + ("(timeout_s)" if timeout == self.options.timeout_s else "(deadline_s)")
            ) from err
        except AccordError:
            raise
        except Exception as err:
            # A provider that let a library exception through: treat it as permanent so
            # a bug is not retried ten times, but keep the original for the traceback.
            raise ModelError(
                f"{self.spec}: unexpected {type(err).__name__}: {err}. This is a bug in "
                "the provider adapter; please report it with this message."
            ) from err
        return completion, self._clock() - started

    async def _cooldown(self) -> None:
        gap = self.options.cooldown_s
        if gap <= 0:
            return
        now = self._clock()
        # Reserve the start slot before sleeping so concurrent calls queue up one gap apart.
        start = max(now, self._next_start)
        self._next_start = start + gap
        if start > now:
            await self._sleep(start - now)

    def _backoff_s(self, attempt: int, err: TransientModelError) -> float:
        ceiling = min(self.options.backoff_cap_s, self.options.backoff_base_s * 2 ** (attempt - 1))
        wait = self._rng.uniform(0.0, ceiling)
        if err.retry_after_s is not None:
            # Honour the server's Retry-After, but never past the cap: a server asking for an
            # hour (or forever) would otherwise stall the game with nothing to show.
            wait = max(wait, retry_wait_s(err.retry_after_s, self.options.backoff_cap_s))
        return wait

    def _rate_limited(self, asked: list[float | None], attempts: int) -> str:
        """Why a call failed when the server refused it for load: the 429s, not a slow
        server."""
        waits = [a for a in asked if a is not None]
        text = f"the server refused {len(asked)} of {attempts} attempts with HTTP 429 (rate limit)"
        if waits:
            text += (
                f" and asked to wait up to {max(waits):g} s (Retry-After), waited at most "
                f"backoff_cap_s={self.options.backoff_cap_s:g} s within deadline_s="
                f"{self.options.deadline_s:g} s"
            )
        return text

    def _retry_after_s(self, asked_s: float, end: float | None) -> float:
        """What the pool may pause for a Retry-After of `asked_s`: the same policy as the
        backoff (`retry_wait_s`), also bounded by the call's deadline `end`."""
        left = None if end is None else end - self._clock()
        return retry_wait_s(asked_s, self.options.backoff_cap_s, left)

    def _finish(
        self, completion: Completion, latency: float, attempt: int, retries: list[RetryRecord]
    ) -> Completion:
        completion.latency_s = latency
        completion.attempts = attempt
        completion.model = self.spec
        if self.options.prices is not None:
            completion.cost_usd = cost_usd(completion.usage, self.options.prices)
        if retries:
            completion.raw["retries"] = retries
        return completion
