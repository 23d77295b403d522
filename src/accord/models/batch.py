"""Provider batch APIs: the contract a batch provider speaks and the queue a batched call waits in.

A batched model call (`accord.models.batched.BatchedModel`) does not reach the provider at
once: it becomes a `BatchRequest` handed to the run's `BatchQueue` (the runner's step scheduler,
`accord.runner.steps`), which gathers every request the games in flight wait on into one provider
batch, submits it, polls it, and hands each request its `BatchOutcome`. A `BatchAPI` is one
provider's batch endpoints (`accord.models.batch_openai`: the OpenAI Batch API, also offered by
gateways and self-hosted servers at their own ``base_url``).

Request ids (``custom_id``) are digests of the conversation's session and the request body, so
a game played again after a crash asks for exactly the ids its first attempt asked for, and the
scheduler answers them from the batch already paid for.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from accord.models.base import Completion
from accord.models.batch_prices import BATCH_DISCOUNT
from accord.models.client import Call

TERMINAL = frozenset({"completed", "failed", "expired", "cancelled", "ended"})
"""Batch states after which nothing more will be answered."""


@dataclass(frozen=True)
class BatchRequest:
    """One model call inside a provider batch.

    Attributes:
        custom_id: the request's id in the batch (a digest of session and body).
        body: the provider's request body (for OpenAI: a chat-completions body).
        resubmit: 0 for a call's first request, n for its n-th resubmission.
    """

    custom_id: str
    body: dict[str, Any]
    resubmit: int = 0

    def size(self) -> int:
        """Bytes of the request as one line of the batch input file."""
        return len(json.dumps(self.body, ensure_ascii=False).encode()) + 120


@dataclass
class BatchOutcome:
    """What a batch said about one request.

    Attributes:
        custom_id: the request's id.
        body: the provider's response body on success, else ``None``.
        status: the HTTP status the provider gave the request (0: none, e.g. expired).
        error: why there is no usable body (``None`` on success).
        transient: whether asking again (in the next batch) may succeed.
        batch: the local id of the batch that answered (for the trace).
        queue_s: seconds from the batch's submission to its results.
    """

    custom_id: str
    body: dict[str, Any] | None = None
    status: int = 200
    error: str | None = None
    transient: bool = False
    batch: str = ""
    queue_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the request has a usable response body."""
        return self.error is None and self.body is not None


@dataclass
class BatchState:
    """A provider batch as last retrieved.

    Attributes:
        batch_id: the provider's id.
        status: the provider's status word (``validating``, ``in_progress``, ``completed``,
            ``expired``, ``cancelled``, ``failed``; Anthropic's ``ended``).
        output: where the answered requests are (OpenAI: the output file id).
        errors: where the failed requests are (OpenAI: the error file id).
        counts: the provider's request counts (total, completed, failed).
        error: the provider's message for a batch that failed as a whole.
    """

    batch_id: str
    status: str
    output: str | None = None
    errors: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None

    @property
    def done(self) -> bool:
        """True once the batch will change no more."""
        return self.status in TERMINAL


@dataclass(frozen=True)
class Submitted:
    """A batch the provider accepted: its id and the uploaded input file's id (if any)."""

    batch_id: str
    file_id: str | None = None


class BatchAPI(ABC):
    """One provider's batch endpoints, for one model at one address.

    Attributes:
        kind: ``openai`` or ``anthropic`` (recorded with each batch).
        key: batches group requests by this (same endpoint, same credentials).
        max_requests / max_bytes: the provider's limits per batch; larger steps are split.
        discount: the provider's published batch discount (0.5: half price), used when the
            price map has no batch prices.
    """

    kind: str = "?"
    max_requests: int = 50_000
    max_bytes: int = 200 * 1024 * 1024
    discount: float = BATCH_DISCOUNT

    @property
    @abstractmethod
    def key(self) -> str:
        """Requests with the same key may share a batch."""

    @abstractmethod
    def body(self, call: Call) -> dict[str, Any]:
        """The request body of `call`, as the live provider would send it."""

    @abstractmethod
    def parse(self, outcome: BatchOutcome) -> Completion:
        """The completion in a successful outcome's body."""

    @abstractmethod
    async def submit(self, requests: Sequence[BatchRequest], *, label: str) -> Submitted:
        """Upload and create one batch; `label` is Accord's own id for it (kept as metadata so
        a batch created just before a crash can be found again with `find`)."""

    @abstractmethod
    async def find(self, label: str, *, size: int = 0, since: float = 0.0) -> str | None:
        """The provider's id of the batch created with `label` (of `size` requests, created
        no earlier than Unix time `since`), if there is one."""

    @abstractmethod
    async def status(self, batch_id: str) -> BatchState:
        """The batch as the provider sees it now."""

    @abstractmethod
    async def results(self, state: BatchState) -> list[BatchOutcome]:
        """Every outcome the finished batch holds (answered and failed requests)."""

    @abstractmethod
    async def cancel(self, batch_id: str) -> None:
        """Ask the provider to stop the batch."""

    def describe(self) -> dict[str, Any]:
        """What the batch record stores about the endpoint (no credentials)."""
        return {"kind": self.kind, "key": self.key}


class BatchQueue(Protocol):
    """Where batched calls wait for their batch (the runner's step scheduler)."""

    async def ask(self, api: BatchAPI, request: BatchRequest) -> BatchOutcome:
        """The outcome of `request` once a batch has answered it."""
        ...


BATCH_QUEUE: contextvars.ContextVar[BatchQueue | None] = contextvars.ContextVar(
    "accord_batch_queue", default=None
)
"""The queue of the run being played (set by the runner for the games of a batch run)."""


def request_id(session: str | None, body: dict[str, Any], resubmit: int = 0) -> str:
    """A request's ``custom_id``: the same call of the same game always gets the same id.

    `resubmit` counts how often the call was asked again after its batch failed it, so each
    new attempt has its own id (and a result already paid for is never mixed up with it)."""
    payload = json.dumps([session or "", body, resubmit], sort_keys=True, ensure_ascii=False)
    return "acc-" + hashlib.sha256(payload.encode()).hexdigest()[:40]
