"""`BatchedModel`: a model layer whose calls are answered through a provider batch.

It speaks `accord.models.base.ChatModel` like every other layer, so an `LLMAgent` over it parses,
validates, retries (a re-prompt is simply the next call, so it goes into the next batch), falls
back and records exactly as over a live client. A call becomes one `BatchRequest` in the run's
`BatchQueue` (`accord.models.batch.BATCH_QUEUE`, the runner's step scheduler) and waits for its
outcome. A request the batch failed for a passing reason (the batch expired or was cancelled, a
rate limit, a server error, a result line that did not parse) is asked again in the next batch,
at most ``max_resubmits`` times, each time recorded in the call's ``retries``; a permanent
refusal, or a request still unanswered after that, is a `ModelError`, so the game ends
``failed`` as a live call would end it.

Prices: `accord.models.batch_prices` (the price map's batch prices, else the provider's published
discount); each call's ``batch`` record also states what it would have cost live.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.core.errors import ConfigError, ModelError, TransientModelError
from accord.core.spec import JSONSchema
from accord.models.base import Completion, Message, ToolSpec, Usage
from accord.models.batch import BATCH_QUEUE, BatchAPI, BatchQueue, BatchRequest, request_id
from accord.models.batch_prices import seat_prices
from accord.models.client import Call, ModelClient
from accord.models.options import ModelOptions, Prices
from accord.models.pricing import cost_usd
from accord.models.retry import RetriesExhaustedError, RetryRecord
from accord.models.telemetry import CallObserver, current_observer

MAX_RESUBMITS = 3
"""Times one call is asked again after its batch failed it for a passing reason."""

BATCH_PROVIDERS = ("openai", "openai-compatible", "anthropic")
"""Providers whose calls can go through a batch API."""


class BatchedModel:
    """`inner`'s calls, answered through `api`'s batches.

    Args:
        inner: the seat's live client (its spec, options and prices).
        api: the provider's batch endpoints.
        queue: where calls wait (default: the run's queue, `BATCH_QUEUE`).
        max_resubmits: passing failures tolerated per call.
    """

    def __init__(
        self,
        inner: ModelClient,
        api: BatchAPI,
        *,
        queue: BatchQueue | None = None,
        max_resubmits: int = MAX_RESUBMITS,
    ) -> None:
        self.inner = inner
        self.api = api
        self.queue = queue
        self.max_resubmits = max_resubmits
        self._prices: tuple[Prices | None, Prices | None] | None = None

    @property
    def spec(self) -> str:
        """The seat's ``provider/model``."""
        return self.inner.spec

    @property
    def options(self) -> ModelOptions:
        """The seat's model options."""
        return self.inner.options

    def concurrency_key(self) -> tuple[str, int]:
        """The live client's pool (batched calls take no slot of it)."""
        return self.inner.concurrency_key()

    @property
    def adaptive_concurrency(self) -> bool:
        """Whether the live client's pool is adaptive."""
        return self.inner.adaptive_concurrency

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
        queue = self.queue or BATCH_QUEUE.get()
        if queue is None:
            raise ModelError(
                f"{self.spec} is a batch seat but no batch run is being played; play it with "
                "accord run (--batch or batch: true) or drop batch from the seat."
            )
        opts = self.inner.options
        call = Call(
            messages=list(messages),
            response_schema=response_schema,
            temperature=temperature if temperature is not None else opts.temperature,
            max_tokens=max_tokens if max_tokens is not None else opts.max_tokens,
            seed=seed,
            session=session,
            tools=list(tools) if tools is not None else None,
        )
        body = self.api.body(call)
        observer = current_observer()
        if observer is not None:
            observer.call_started(self.spec)
        retries: list[RetryRecord] = []
        last = ""
        for resubmit in range(self.max_resubmits + 1):
            request = BatchRequest(request_id(session, body, resubmit), body, resubmit)
            where = ""
            try:
                outcome = await queue.ask(self.api, request)
                where, last = outcome.batch, outcome.error or ""
                if not outcome.ok and not outcome.transient:
                    raise ModelError(
                        f"{self.spec}: the batch refused the request: {outcome.error}",
                        status=outcome.status or None,
                    )
                completion = self.api.parse(outcome) if outcome.ok else None
            except TransientModelError as err:
                completion, last = None, str(err)
            except ModelError as err:
                if observer is not None:
                    observer.call_failed(self.spec, err)
                raise
            if completion is None:
                retries.append(
                    {"attempt": resubmit + 1, "error": f"batch {where}: {last}", "wait_s": 0}
                )
                if opts.batch_missing == "live":
                    return await self._live(call, deadline, retries, observer)
                continue
            completion.model = self.spec
            completion.attempts = resubmit + 1
            completion.latency_s = outcome.queue_s
            completion.cost_usd, live_cost = self.price(completion.usage)
            completion.raw["batch"] = {
                "id": outcome.batch,
                "queue_s": round(outcome.queue_s, 3),
                "live_cost_usd": live_cost,
            }
            if retries:
                completion.raw["retries"] = retries
            if observer is not None:
                observer.call_finished(self.spec, completion)
            return completion
        exhausted = RetriesExhaustedError(
            f"{self.spec}: no batch answered the request after {self.max_resubmits + 1} "
            f"submissions; last: {last}",
            attempts=self.max_resubmits + 1,
            retries=retries,
        )
        if observer is not None:
            observer.call_failed(self.spec, exhausted)
        raise exhausted

    async def _live(
        self,
        call: Call,
        deadline: float | None,
        retries: list[RetryRecord],
        observer: CallObserver | None,
    ) -> Completion:
        """The seat's options say a request no batch answered is answered live (full price,
        the live client's own retries)."""
        try:
            completion = await self.inner.layers().complete(
                call.messages,
                response_schema=call.response_schema,
                temperature=call.temperature,
                max_tokens=call.max_tokens,
                seed=call.seed,
                session=call.session,
                deadline=deadline,
                tools=call.tools,
            )
        except ModelError as err:
            if observer is not None:
                observer.call_failed(self.spec, err)
            raise
        completion.model = self.spec
        _, live_cost = self.price(completion.usage)
        if live_cost is not None or completion.cost_usd is None:
            completion.cost_usd = live_cost
        completion.attempts += len(retries)
        completion.raw["batch"] = {"id": "live", "queue_s": 0.0, "live_cost_usd": live_cost}
        completion.raw["retries"] = [*retries, *completion.raw.get("retries", [])]
        if observer is not None:
            observer.call_finished(self.spec, completion)
        return completion

    def price(self, usage: Usage) -> tuple[float | None, float | None]:
        """What `usage` costs at batch prices and would have cost live (``None``: unknown)."""
        if self._prices is None:
            self._prices = seat_prices(self.spec, self.inner.options, self.api.discount)
        live, batch = self._prices
        return cost_usd(usage, batch), cost_usd(usage, live)


def batch_api_for(spec: str, options: Any) -> BatchAPI:
    """The batch endpoints of a model seat, or a `ConfigError` saying which seats can batch.

    ``openai/<model>`` uses OpenAI's Batch API (or the one at ``base_url``);
    ``openai-compatible/<model>`` the Batch API of its server at ``base_url``;
    ``anthropic/<model>`` Anthropic's Message Batches (or those at ``base_url``).
    """
    from accord.models.batch_openai import OpenAIBatchAPI

    opts = options if isinstance(options, ModelOptions) else ModelOptions.model_validate(options)
    provider, _, model = spec.partition("/")
    if provider == "openai":
        return OpenAIBatchAPI(model, opts, schema_form="json_object")
    if provider == "anthropic":
        from accord.models.batch_anthropic import AnthropicBatchAPI

        return AnthropicBatchAPI(model, opts)
    if provider == "openai-compatible":
        if not opts.base_url:
            raise ConfigError(
                f"{spec} in batch mode needs base_url, the server whose /v1/batches to use "
                "(--model-base-url)."
            )
        return OpenAIBatchAPI(model, opts, key_env=None)
    raise ConfigError(
        f"{spec} has no batch API in Accord: batch mode works for "
        f"{', '.join(p + '/' for p in BATCH_PROVIDERS)} seats; play this seat live "
        "(drop batch: true from it, or do not pass --batch)."
    )
