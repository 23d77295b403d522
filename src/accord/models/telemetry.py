"""Live observation of model calls: what a run's progress display and ``--verbose`` log read.

`ModelClient.complete` reports every call's start, success, retry and final failure to the
`CallObserver` of the running context (a `contextvars.ContextVar`, so each asyncio task of a run
inherits it and tests or nested runs do not see each other's calls). Without an observer the
reports cost one context-variable lookup.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from accord.core.errors import ModelError
    from accord.models.base import Completion


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
