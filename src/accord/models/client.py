"""`ModelClient`: a provider (one attempt per call) composed with the layers every provider
shares.

Providers implement only `ModelClient._complete_once` (one attempt, no retry) and map their own
exceptions: a failure worth retrying becomes `TransientModelError` (optionally with the
server's Retry-After), anything else `ModelError`. `ModelClient.complete` is the one
`accord.models.base.ChatModel.complete`, composed of layers that each wrap the one inside it
behind that protocol:

* `accord.models.retry.Retrying`: exponential backoff with full jitter, the one Retry-After
  policy (bounded by ``backoff_cap_s`` and the call's ``deadline_s``), a record of every retry
  in ``raw["retries"]``, an error that names the 429s when the server refused for load;
* `accord.models.pool.Pooled`: a slot of the provider's concurrency pool (adaptive or fixed,
  shared by every client of that provider in the process and, with `set_shared_limiter`,
  across processes), the optional cooldown between call starts;
* `OneAttempt`: the provider's `_complete_once` under a per-attempt timeout (which counts as
  transient) bounded by the call's deadline, timed;

and, around them, latency, attempt count, cost, and a report of each call's start, retries,
success or failure to the context's `accord.models.telemetry.CallObserver`. Caching
(`accord.models.cache.CachedModel`), answering from a trace (`accord.models.recorded.
RecordedModel`) and a fork's trace-first answering (`accord.runner.fork.TraceFirstModel`) are
further layers over the same protocol.

Sleeping, the clock and the jitter source are injectable so tests never wait.
"""

from __future__ import annotations

import asyncio
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from accord.core.errors import AccordError, ModelError, TransientModelError
from accord.core.spec import JSONSchema
from accord.models.base import ChatModel, Completion, Message, ToolSpec
from accord.models.options import ModelOptions
from accord.models.pool import (
    ClockFn,
    Cooldown,
    Pooled,
    SharedSlot,
    SleepFn,
    SlotReport,
    pool_limit,
    pool_stats,
    set_shared_limiter,
)
from accord.models.pricing import cost_usd
from accord.models.retry import (
    RetriesExhaustedError,
    RetryHook,
    Retrying,
    RetryRecord,
    current_budget,
    retry_after_seconds,
)
from accord.models.telemetry import current_observer, current_tracer

__all__ = [
    "Call",
    "ClockFn",
    "ModelClient",
    "OneAttempt",
    "RetriesExhaustedError",
    "RetryHook",
    "RetryRecord",
    "SharedSlot",
    "SleepFn",
    "SlotReport",
    "pool_limit",
    "pool_stats",
    "retry_after_seconds",
    "set_shared_limiter",
]


@dataclass(frozen=True)
class Call:
    """One request as a provider sees it; option defaults are already applied."""

    messages: list[Message]
    response_schema: JSONSchema | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    session: str | None = None
    tools: list[ToolSpec] | None = None
    """The native tools offered (tools mode); the provider sends them and returns the
    model's tool calls in `Completion.tool_calls`."""


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
        self._cooldown = Cooldown()
        self._stack: Retrying | None = None

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
        tools: Sequence[ToolSpec] | None = None,
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
            tools: native tools to offer (tools mode, `accord.agents.tools`); the reply's
                tool calls come back in `Completion.tool_calls`.
            deadline: the client clock's time by which the call must be over, retries and
                waits included; ``None``: ``options.deadline_s`` after the first attempt
                starts (time spent queueing for a concurrency slot before it does not count,
                so a busy local model does not eat a call's budget).

        Raises:
            RetriesExhaustedError: every attempt failed with a transient error.
            ModelError: a permanent failure (bad request, unknown model, bad key).
        """
        observer = current_observer()
        if observer is not None:
            observer.call_started(self.spec)
        tracer = current_tracer()
        span = (
            tracer.model_call(
                self.spec, messages, temperature=temperature, max_tokens=max_tokens, seed=seed
            )
            if tracer is not None
            else None
        )
        try:
            completion = await self.layers().complete(
                messages,
                response_schema=response_schema,
                temperature=temperature,
                max_tokens=max_tokens,
                seed=seed,
                session=session,
                deadline=deadline,
                tools=tools,
            )
        except ModelError as err:
            if observer is not None:
                observer.call_failed(self.spec, err)
            if span is not None:
                span.failed(err)
            raise
        except BaseException as err:  # cancelled with its game: the span still ends
            if span is not None:
                span.failed(err)
            raise
        completion.model = self.spec
        if self.options.prices is not None:
            completion.cost_usd = cost_usd(completion.usage, self.options.prices)
        if observer is not None:
            observer.call_finished(self.spec, completion)
        if span is not None:
            span.finished(completion)
        return completion

    def layers(self) -> ChatModel:
        """This client's call path: retrying around a pool slot around one attempt (built
        on the first call, once the provider's own attributes are set)."""
        stack = self._stack
        if stack is None:
            key, limit = self._concurrency()
            pooled = Pooled(
                OneAttempt(self),
                key=key,
                limit=limit,
                adaptive=self.adaptive_concurrency,
                options=self.options,
                cooldown=self._cooldown,
                clock=self._clock,
                sleep=self._sleep,
            )
            stack = self._stack = Retrying(
                pooled, self.spec, self.options, sleep=self._sleep, clock=self._clock, rng=self._rng
            )
        stack.on_retry = self.on_retry  # callers may set the hook after building the client
        return stack


class OneAttempt:
    """One attempt of a provider: its `ModelClient._complete_once` with the option defaults
    applied, under a timeout of ``timeout_s`` bounded by the call's deadline (a timeout is a
    `TransientModelError`), with its latency measured. A library exception the provider let
    through becomes a permanent `ModelError`, so a bug is not retried ten times."""

    def __init__(self, provider: ModelClient) -> None:
        self.provider = provider

    @property
    def spec(self) -> str:
        """The provider's spec."""
        return self.provider.spec

    async def aclose(self) -> None:
        await self.provider.aclose()

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
        provider = self.provider
        opts = provider.options
        call = Call(
            messages=list(messages),
            response_schema=response_schema,
            temperature=temperature if temperature is not None else opts.temperature,
            max_tokens=max_tokens if max_tokens is not None else opts.max_tokens,
            seed=seed,
            session=session,
            tools=list(tools) if tools is not None else None,
        )
        clock = provider._clock
        started = clock()
        budget = current_budget()
        if deadline is not None:
            end = deadline
        elif budget is not None:
            end = budget.fix(started)
        else:
            end = started + opts.deadline_s
        timeout = min(opts.timeout_s, max(end - started, 0.001))
        try:
            completion = await asyncio.wait_for(provider._complete_once(call), timeout=timeout)
        except TimeoutError as err:
            raise TransientModelError(
                f"no reply within {timeout:g} s "
                + ("(timeout_s)" if timeout == opts.timeout_s else "(deadline_s)")
            ) from err
        except AccordError:
            raise
        except Exception as err:
            raise ModelError(
                f"{provider.spec}: unexpected {type(err).__name__}: {err}. This is a bug in "
                "the provider adapter; please report it with this message."
            ) from err
        completion.latency_s = clock() - started
        return completion
