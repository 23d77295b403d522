"""Live observation of model calls: what a run's progress display and ``--verbose`` log read.

`ModelClient.complete` reports every call's start, success, retry and final failure to the
`CallObserver` of the running context (a `contextvars.ContextVar`, so each asyncio task of a run
inherits it and tests or nested runs do not see each other's calls). Without an observer the
reports cost one context-variable lookup.

A `CallTracer` (OpenTelemetry spans, `accord.runner.otel`) is told of each call the same way
and gets a `CallSpan` to end; it lives in its own context variable, so a run with tracing off
pays one more lookup per call and nothing else.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from accord.core.errors import ModelError
    from accord.models.base import Completion, Message


class CallObserver(Protocol):
    """Receives every model call of the context it observes."""

    def call_started(self, spec: str) -> None:
        """An attempt sequence for one call begins."""

    def call_finished(self, spec: str, completion: Completion) -> None:
        """The call succeeded (`completion.attempts` says after how many attempts)."""

    def call_retried(self, spec: str, attempt: int, error: ModelError, wait_s: float) -> None:
        """Attempt `attempt` failed with a transient `error`; the client waits `wait_s`."""

    def call_failed(self, spec: str, error: ModelError) -> None:
        """The call failed for good (retries exhausted or a permanent error)."""


_OBSERVER: contextvars.ContextVar[CallObserver | None] = contextvars.ContextVar(
    "accord_call_observer", default=None
)


def current_observer() -> CallObserver | None:
    """The observer of the running context, if any."""
    return _OBSERVER.get()


@contextlib.contextmanager
def observe(observer: CallObserver | None) -> Iterator[None]:
    """Report the model calls made inside this block (and the tasks it starts) to `observer`."""
    token = _OBSERVER.set(observer)
    try:
        yield
    finally:
        _OBSERVER.reset(token)


class CallSpan(Protocol):
    """One traced model call, ended once by `finished` or `failed`."""

    def finished(self, completion: Completion) -> None:
        """The call succeeded."""

    def failed(self, error: BaseException) -> None:
        """The call failed for good, or was cancelled."""


class CallTracer(Protocol):
    """Opens a `CallSpan` for every model call of the context it traces."""

    def model_call(
        self,
        spec: str,
        messages: Sequence[Message],
        *,
        temperature: float | None,
        max_tokens: int | None,
        seed: int | None,
    ) -> CallSpan:
        """A call of `spec` with `messages` begins."""
        ...


_TRACER: contextvars.ContextVar[CallTracer | None] = contextvars.ContextVar(
    "accord_call_tracer", default=None
)


def current_tracer() -> CallTracer | None:
    """The call tracer of the running context, if any."""
    return _TRACER.get()


@contextlib.contextmanager
def trace_calls(tracer: CallTracer | None) -> Iterator[None]:
    """Open a span for each model call made inside this block (and the tasks it starts)."""
    token = _TRACER.set(tracer)
    try:
        yield
    finally:
        _TRACER.reset(token)
