"""The retrying layer and the one Retry-After policy.

`Retrying` wraps any `accord.models.base.ChatModel` whose ``complete`` makes one attempt (in
Accord: a provider's attempt inside its concurrency pool, `accord.models.pool.Pooled`) and
retries the attempts that fail with `TransientModelError`:

* exponential backoff with full jitter (`backoff_s`), honouring the server's Retry-After up to
  ``backoff_cap_s``: a server asking for an hour, ``inf`` or a date in 2100 is waited on for
  the cap, never longer;
* a total deadline per call (``deadline_s`` after the first attempt starts, or one the caller
  passes for a whole decision) that bounds every attempt and wait: no retry starts that could
  not finish before it;
* a record of every retry in ``raw["retries"]``, the `on_retry` hook and the context's
  `accord.models.telemetry.CallObserver`;
* when the call fails for good, an error that names the 429s when that is what happened, not
  a slow server;
* after a timed-out attempt on a server of one's own, a wait for a free slot when the server
  is still working on the abandoned request (`accord.models.busy`), named in the retry's
  record and, if the call fails, in its error.

The Retry-After policy is one function, `accord.models.limits.retry_wait_s` (it lives beside
the adaptive pool, which applies it to its pool-wide pause); the backoff here uses the same
function, so the two never disagree.
"""

from __future__ import annotations

import contextvars
import email.utils
import ipaddress
import math
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypedDict
from urllib.parse import urlsplit

from accord.core.errors import ModelError, TransientModelError
from accord.core.spec import JSONSchema
from accord.models.base import ChatModel, Completion, Message, ToolSpec
from accord.models.busy import BUSY_FIX, Probe, Slots, busy_slots, wait_for_a_slot
from accord.models.limits import retry_wait_s
from accord.models.options import ModelOptions
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


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds asked for by an HTTP Retry-After header (delta seconds or a date), else None.

    ``inf`` stays infinite (`retry_wait_s` caps every wait); ``nan`` and garbage give None.
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


def backoff_s(
    attempt: int, err: TransientModelError, options: ModelOptions, rng: random.Random
) -> float:
    """The wait before retrying after failed attempt number `attempt`: a full-jitter draw
    under ``backoff_base_s * 2**(attempt - 1)`` (at most ``backoff_cap_s``), or the server's
    Retry-After where that is longer, bounded by the same cap (`retry_wait_s`)."""
    ceiling = min(options.backoff_cap_s, options.backoff_base_s * 2 ** (attempt - 1))
    wait = rng.uniform(0.0, ceiling)
    if err.retry_after_s is not None:
        wait = max(wait, retry_wait_s(err.retry_after_s, options.backoff_cap_s))
    return wait


@dataclass
class CallBudget:
    """The time by which one call (all its attempts and waits) must be over.

    `end` is the caller's deadline, or None until the first attempt starts: the attempt then
    fixes it at its start plus `span_s` (``deadline_s``), so time spent queueing for a
    concurrency slot before it does not count.
    """

    end: float | None
    span_s: float

    def fix(self, started: float) -> float:
        """The end, fixed now at `started` + `span_s` if nothing fixed it before."""
        if self.end is None:
            self.end = started + self.span_s
        return self.end


_BUDGET: contextvars.ContextVar[CallBudget | None] = contextvars.ContextVar(
    "accord_call_budget", default=None
)


def current_budget() -> CallBudget | None:
    """The budget of the call the running code is an attempt of (set by `Retrying`)."""
    return _BUDGET.get()


def own_server(base_url: str | None) -> bool:
    """Whether `base_url` is a server of one's own (this machine or a private network), which
    has no status page or rate limits to check, unlike a hosted provider."""
    if not base_url:
        return False
    host = (urlsplit(base_url).hostname or "").strip("[]").lower()
    if host in {"localhost", "host.docker.internal"} or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def _advice(base_url: str | None, err: TransientModelError) -> str:
    """What to do after the last attempt failed, for the kind of address called."""
    if own_server(base_url):
        refused = "refused" in str(err).lower() or "connect" in str(err).lower()
        first = (
            f"Nothing answered at {base_url}: start the server there (or fix the base URL)"
            if refused
            else f"Check the server at {base_url} (is it running, and busy with other work? A "
            "server that finishes requests its client gave up on, as llama-cpp-python's does, "
            "queues each retry behind them)"
        )
        return f"{first}, or raise max_retries / timeout_s / deadline_s"
    return (
        "Check the server or the provider's status page and your rate "
        "limits, or raise max_retries / timeout_s / deadline_s"
    )


class Retrying:
    """Retries the one-attempt `inner` model (see the module docstring).

    Args:
        inner: makes one attempt per ``complete`` call.
        spec: the ``provider/model`` named in errors and reports.
        options: ``max_retries``, ``backoff_base_s``, ``backoff_cap_s``, ``deadline_s``.
        sleep: awaitable sleep for the backoff (tests pass a fake).
        clock: monotonic seconds (tests pass a fake).
        rng: source of the backoff jitter.
        on_retry: called with each `RetryRecord` before sleeping.
        probe: asks a server of one's own whether its slots are busy (tests pass a fake).
    """

    def __init__(
        self,
        inner: ChatModel,
        spec: str,
        options: ModelOptions,
        *,
        sleep: SleepFn,
        clock: ClockFn,
        rng: random.Random,
        on_retry: RetryHook | None = None,
        probe: Probe = busy_slots,
    ) -> None:
        self.inner = inner
        self._probe = probe
        self.spec = spec
        self.options = options
        self._sleep = sleep
        self._clock = clock
        self._rng = rng
        self.on_retry = on_retry

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
        budget = CallBudget(end=deadline, span_s=self.options.deadline_s)
        token = _BUDGET.set(budget)
        try:
            return await self._retry(
                messages,
                budget,
                response_schema=response_schema,
                temperature=temperature,
                max_tokens=max_tokens,
                seed=seed,
                session=session,
                tools=tools,
            )
        finally:
            _BUDGET.reset(token)

    async def _retry(
        self,
        messages: Sequence[Message],
        budget: CallBudget,
        *,
        response_schema: JSONSchema | None,
        temperature: float | None,
        max_tokens: int | None,
        seed: int | None,
        session: str | None,
        tools: Sequence[ToolSpec] | None,
    ) -> Completion:
        opts = self.options
        retries: list[RetryRecord] = []
        attempts = opts.max_retries + 1
        observer = current_observer()
        limited: list[float | None] = []  # the Retry-After of each 429, None: none asked
        busy: Slots | None = None  # the server's slots, when they were all busy
        for attempt in range(1, attempts + 1):
            try:
                completion = await self.inner.complete(
                    messages,
                    response_schema=response_schema,
                    temperature=temperature,
                    max_tokens=max_tokens,
                    seed=seed,
                    session=session,
                    deadline=budget.end,
                    tools=tools,
                )
            except TransientModelError as err:
                if err.status == 429:
                    limited.append(err.retry_after_s)
                wait = backoff_s(attempt, err, opts, self._rng)
                now = self._clock()
                left = (budget.end if budget.end is not None else now + opts.deadline_s) - now
                checks = is_timeout(err) and own_server(opts.base_url)
                if attempt == attempts or wait >= left:
                    if checks and opts.base_url:
                        said = await self._probe(opts.base_url)
                        busy = said if said is not None and said.all_busy else busy
                    raise self._exhausted(
                        err, attempt, attempts, wait, left, limited, retries, max_tokens, busy
                    ) from err
                note = ""
                if checks and opts.base_url:
                    slots, waited = await wait_for_a_slot(
                        opts.base_url,
                        left - wait,
                        probe=self._probe,
                        sleep=self._sleep,
                        clock=self._clock,
                    )
                    if slots is not None:
                        busy = slots
                        note = (
                            f" (the server had {slots.describe()}, still on an abandoned "
                            f"request: waited {waited:.0f} s for a free slot)"
                        )
                record = RetryRecord(attempt=attempt, error=f"{err}{note}", wait_s=round(wait, 3))
                retries.append(record)
                if self.on_retry is not None:
                    self.on_retry(record)
                if observer is not None:
                    observer.call_retried(self.spec, attempt, err, wait)
                await self._sleep(wait)
                continue
            completion.attempts = attempt
            if retries:
                completion.raw["retries"] = retries
            return completion
        raise AssertionError("unreachable: the loop returns or raises")

    def _exhausted(
        self,
        err: TransientModelError,
        attempt: int,
        attempts: int,
        wait: float,
        left: float,
        limited: list[float | None],
        retries: list[RetryRecord],
        max_tokens: int | None,
        busy: Slots | None = None,
    ) -> RetriesExhaustedError:
        opts = self.options
        why = (
            f"all {attempt} attempts failed"
            if attempt == attempts
            else f"gave up after {attempt} attempts: the call's deadline "
            f"(deadline_s={opts.deadline_s:g}) leaves {max(left, 0):.0f} s, "
            f"less than the next wait of {wait:.0f} s"
        )
        if limited:
            why += "; " + self._rate_limited(limited, attempt)
        capped = max_tokens if max_tokens is not None else opts.max_tokens
        advice = UNCAPPED_FIX if capped is None and is_timeout(err) else _advice(opts.base_url, err)
        if busy is not None and opts.base_url:
            advice = BUSY_FIX.format(url=opts.base_url, busy=busy.describe())
        return RetriesExhaustedError(
            f"{self.spec}: {why}; last error: {err}. {advice[0].upper()}{advice[1:]}.",
            attempts=attempt,
            retries=retries,
            status=429 if limited and err.status is None else err.status,
        )

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
