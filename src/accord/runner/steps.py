"""The step scheduler: games in flight advance in lock-step through provider batches.

Each game of a batch run plays as a coroutine, exactly as live; its batch seats' model calls
(`accord.models.batched.BatchedModel`) do not go out one by one but wait here. Once every game
in flight is waiting on at least one such call (or ``linger_s`` has passed since the first call
started waiting, so a game held up by a slow live seat does not stall the others), the waiting
calls are sent as one batch per endpoint, split at the provider's request and size limits. The
scheduler polls each batch, and when it ends hands every call its outcome: the games take their
next step, and their next calls make the next batch. Reference agents and seats on other
providers answer live beside them, as ever.

Every batch is recorded in the run directory before it is submitted and after
(`accord.runner.batch_store`), so a resumed run answers the calls of a finished batch from its
results and follows a batch that was still running, instead of paying for it again. A request a
batch did not answer (the batch expired, was cancelled or failed in part) comes back as a
passing failure and its call is asked again in the next batch (`BatchedModel` bounds and records
that); only what is missing is resubmitted.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TypeVar

from accord.core.errors import ModelError, TransientModelError
from accord.models.batch import BatchAPI, BatchOutcome, BatchRequest, BatchState
from accord.runner.batch_progress import BatchProgress, duration
from accord.runner.batch_store import (
    BatchRecord,
    load_records,
    load_results,
    save_record,
    save_results,
)

CURRENT_GAME: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "accord_step_game", default=None
)
"""The game (trace id) whose coroutine is running: whose calls wait in the scheduler."""

T = TypeVar("T")


class StepScheduler:
    """Gathers the batched calls of the games in flight into provider batches.

    Args:
        folder: where batch records live (``DIR/batches``); ``None`` keeps no record.
        poll_s / max_poll_s: first and longest wait between two polls of a batch (the wait
            grows by half each poll).
        settle_s: how long the games are given to ask all the calls of a step.
        linger_s: the longest a waiting call waits for the other games to join its batch.
        max_errors: failed polls or submissions in a row before a batch's calls give up.
    """

    def __init__(
        self,
        folder: Path | None,
        *,
        poll_s: float = 5.0,
        max_poll_s: float = 60.0,
        settle_s: float = 0.05,
        linger_s: float = 5.0,
        max_errors: int = 10,
    ) -> None:
        self.folder = folder
        self.poll_s = poll_s
        self.max_poll_s = max_poll_s
        self.settle_s = settle_s
        self.linger_s = linger_s
        self.max_errors = max_errors
        self.progress = BatchProgress()
        self._active: set[str] = set()
        self._waiting: dict[str, int] = {}
        self._pending: dict[str, tuple[BatchAPI, dict[str, BatchRequest]]] = {}
        self._first_pending: float | None = None
        self._waiters: dict[str, list[asyncio.Future[BatchOutcome]]] = {}
        self._done_in: dict[str, str] = {}
        self._results: dict[str, dict[str, BatchOutcome]] = {}
        self._recovered: dict[str, BatchRecord] = {}
        self._following: set[str] = set()
        self._inflight: set[str] = set()
        self._wake: asyncio.Event | None = None
        self._driver: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._labels = 0
        self._game_batches: dict[str, set[str]] = {}
        self._finished_steps: list[int] = []
        if folder is not None:
            self._load(folder)

    def _load(self, folder: Path) -> None:
        """What an earlier attempt of the run submitted: the finished batches (by request id;
        their results are read when a request asks, so memory holds ids, not replies) and
        the unfinished ones (followed when one of their requests is asked again)."""
        records = load_records(folder)
        self._labels = len(records)
        for record in records:
            if record.state == "done":
                for cid in record.ids():
                    self._done_in[cid] = record.label
            elif record.state in ("submitting", "submitted"):
                for cid in record.ids():
                    self._recovered[cid] = record

    def _earlier(self, cid: str) -> BatchOutcome | None:
        """The outcome an earlier attempt's finished batch holds for `cid` (each is handed
        out once: a game asks for each of its requests once)."""
        label = self._done_in.pop(cid, None)
        if label is None or self.folder is None:
            return None
        results = self._results.get(label)
        if results is None:
            results = self._results[label] = {
                o.custom_id: o for o in load_results(self.folder, label)
            }
        outcome = results.pop(cid, None)
        if not results:
            del self._results[label]
        return outcome

    @contextlib.contextmanager
    def game(self, trace_id: str) -> Iterator[None]:
        """The game `trace_id` is in flight while inside (its calls join the steps)."""
        self._active.add(trace_id)
        token = CURRENT_GAME.set(trace_id)
        try:
            yield
        finally:
            CURRENT_GAME.reset(token)
            self._active.discard(trace_id)
            steps = self._game_batches.pop(trace_id, None)
            if steps:
                self._finished_steps.append(len(steps))
            self._kick()

    async def ask(self, api: BatchAPI, request: BatchRequest) -> BatchOutcome:
        """The outcome of `request`: from a batch already recorded, or from the next one."""
        cid = request.custom_id
        known = self._earlier(cid)
        if known is not None:
            self.progress.reused += 1
            return known
        future: asyncio.Future[BatchOutcome] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(cid, []).append(future)
        record = self._recovered.get(cid)
        if record is not None:
            self._spawn(self._resume(api, record), record.label)
        elif cid not in self._inflight:
            if request.resubmit:
                self.progress.resubmitted += 1
            self._pending.setdefault(api.key, (api, {}))[1][cid] = request
            if self._first_pending is None:
                self._first_pending = time.monotonic()
        game = CURRENT_GAME.get() or ""
        self._waiting[game] = self._waiting.get(game, 0) + 1
        self._kick()
        try:
            outcome = await future
            if game:
                self._game_batches.setdefault(game, set()).add(outcome.batch)
            return outcome
        finally:
            left = self._waiting[game] = self._waiting[game] - 1
            if left <= 0:
                del self._waiting[game]
            if not future.done():  # the game was cancelled: nobody waits for this any more
                with contextlib.suppress(ValueError):
                    self._waiters.get(cid, []).remove(future)
            self._kick()

    def status(self, unstarted: int = 0) -> str:
        """The progress line of a batch run: the games' current step, the batches, and an
        ETA from the measured turnaround (or "unknown")."""
        p = self.progress
        current = [len(self._game_batches.get(g, ())) + 1 for g in self._active]
        mean_steps = (
            sum(self._finished_steps) / len(self._finished_steps) if self._finished_steps else None
        )
        turnaround = sum(p.queue_s) / len(p.queue_s) if p.queue_s else None
        step = f"step {min(current)}-{max(current)}" if current else "no game in flight"
        eta = "unknown"
        if mean_steps is not None and turnaround is not None:
            left_now = max(mean_steps - min(current, default=0), 0)
            waves = -(-unstarted // max(len(self._active), 1)) if unstarted else 0
            eta = duration(turnaround * (left_now + waves * mean_steps))
        return f"{step} | {p.line()} | batch ETA {eta}"

    async def aclose(self) -> None:
        """Stop polling (batches still running at the provider stay recorded for resume)."""
        tasks = [*self._tasks, *([self._driver] if self._driver is not None else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()
        self._driver = None

    # -- stepping -------------------------------------------------------------------------

    def _kick(self) -> None:
        if self._wake is None:
            self._wake = asyncio.Event()
        if self._driver is None or self._driver.done():
            self._driver = asyncio.ensure_future(self._drive())
        self._wake.set()
        self.progress.waiting = sum(len(r) for _, r in self._pending.values())

    def _ready(self) -> bool:
        """Every game in flight waits on a batched call: this step's calls are all in."""
        return all(self._waiting.get(game, 0) > 0 for game in self._active)

    async def _drive(self) -> None:
        wake = self._wake
        assert wake is not None
        while True:
            await wake.wait()
            wake.clear()
            while self._pending:
                await asyncio.sleep(self.settle_s)
                first = self._first_pending or time.monotonic()
                if self._ready() or time.monotonic() - first >= self.linger_s:
                    self._flush()
                    break
                wake.clear()
                left = self.linger_s - (time.monotonic() - first)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=max(left, self.settle_s))

    def _flush(self) -> None:
        pending, self._pending, self._first_pending = self._pending, {}, None
        for api, requests in pending.values():
            wanted = [r for cid, r in requests.items() if self._waiters.get(cid)]
            for chunk in split(wanted, api):
                self._inflight.update(r.custom_id for r in chunk)
                label = self._label(chunk)
                self._spawn(self._submit_and_follow(api, chunk, label), label)
        self.progress.waiting = 0

    def _label(self, chunk: list[BatchRequest]) -> str:
        self._labels += 1
        digest = hashlib.sha256("".join(r.custom_id for r in chunk).encode()).hexdigest()
        return f"b{self._labels:05d}-{digest[:10]}"

    def _spawn(self, work: Awaitable[None], label: str) -> None:
        if label in self._following:
            if asyncio.iscoroutine(work):
                work.close()
            return
        self._following.add(label)
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- one batch ------------------------------------------------------------------------

    async def _submit_and_follow(
        self, api: BatchAPI, chunk: list[BatchRequest], label: str
    ) -> None:
        record = BatchRecord(
            label=label,
            api=api.describe(),
            requests=[{"custom_id": r.custom_id, "body": r.body} for r in chunk],
            resubmitted=sum(1 for r in chunk if r.resubmit),
        )
        self.progress.submitting += 1
        self.progress.requests.append(len(chunk))
        try:
            self._save(record)  # before submission: a kill from here on finds it again
            await self._submit(api, record)
            await self._follow(api, record)
        except ModelError as err:
            self._give_up(record, err)
        except Exception as err:  # never leave a game waiting for ever
            self._give_up(record, ModelError(f"batch {label}: {type(err).__name__}: {err}"))
        finally:
            self.progress.submitting -= 1

    async def _resume(self, api: BatchAPI, record: BatchRecord) -> None:
        """Finish a batch an earlier attempt of the run submitted (or was submitting)."""
        self.progress.followed += 1
        self.progress.submitting += 1
        try:
            if record.batch_id is None:
                found = await self._patiently(
                    lambda: api.find(
                        record.label, size=len(record.requests), since=record.created_at
                    )
                )
                if found is not None:
                    record.batch_id, record.state = found, "submitted"
                    record.submitted_at = record.submitted_at or time.time()
                    self._save(record)
                else:
                    await self._submit(api, record)
            await self._follow(api, record)
        except ModelError as err:
            self._give_up(record, err)
        except Exception as err:
            self._give_up(record, ModelError(f"batch {record.label}: {err}"))
        finally:
            self.progress.submitting -= 1
            for cid in record.ids():
                self._recovered.pop(cid, None)

    async def _submit(self, api: BatchAPI, record: BatchRecord) -> None:
        requests = record.batch_requests()
        submitted = await self._patiently(lambda: api.submit(requests, label=record.label))
        record.batch_id, record.file_id = submitted.batch_id, submitted.file_id
        record.state, record.submitted_at = "submitted", time.time()
        self._save(record)

    async def _follow(self, api: BatchAPI, record: BatchRecord) -> None:
        assert record.batch_id is not None
        batch_id = record.batch_id
        self.progress.submitting -= 1
        self.progress.running += 1
        try:
            wait = self.poll_s
            while True:
                state = await self._patiently(lambda: api.status(batch_id))
                if (state.status, state.counts) != (record.status, record.counts):
                    record.status, record.counts = state.status, dict(state.counts)
                    self._save(record)
                if state.done:
                    break
                await asyncio.sleep(wait)
                wait = min(wait * 1.5, self.max_poll_s)
            outcomes = await self._patiently(lambda: api.results(state))
        finally:
            self.progress.running -= 1
            self.progress.submitting += 1
        self._finish(record, state, outcomes)

    def _finish(self, record: BatchRecord, state: BatchState, outcomes: list[BatchOutcome]) -> None:
        queue_s = time.time() - (record.submitted_at or record.created_at)
        asked = set(record.ids())
        by_id = {o.custom_id: o for o in outcomes if o.custom_id in asked}
        why = f"the batch ended {state.status}" + (f" ({state.error})" if state.error else "")
        final = []
        for cid in record.ids():
            outcome = by_id.get(cid) or BatchOutcome(
                custom_id=cid, status=0, error=f"not answered: {why}", transient=True
            )
            outcome.batch, outcome.queue_s = record.label, queue_s
            final.append(outcome)
        if self.folder is not None:
            save_results(self.folder, record.label, final)  # before the record says done
        record.state, record.finished_at = "done", time.time()
        self._save(record)
        self.progress.done += 1
        self.progress.queue_s.append(queue_s)
        for outcome in final:  # handed to the waiting calls, not kept (memory stays flat)
            self._inflight.discard(outcome.custom_id)
            waiting = [f for f in self._waiters.pop(outcome.custom_id, []) if not f.done()]
            for future in waiting:
                future.set_result(outcome)
            if not waiting:  # a game not back yet (a resumed run): it reads the results file
                self._done_in[outcome.custom_id] = record.label

    def _give_up(self, record: BatchRecord, err: ModelError) -> None:
        """The batch cannot be submitted or followed: its calls fail (their games end failed,
        and a resumed run tries the batch again)."""
        self.progress.failed += 1
        record.error = str(err)[:500]
        with contextlib.suppress(Exception):
            self._save(record)
        for cid in record.ids():
            self._inflight.discard(cid)
            for future in self._waiters.pop(cid, []):
                if not future.done():
                    future.set_exception(ModelError(str(err), status=err.status))

    async def _patiently(self, step: Callable[[], Awaitable[T]]) -> T:
        """`step`, tried again after a passing failure (up to ``max_errors`` in a row)."""
        wait = self.poll_s
        for attempt in range(self.max_errors):
            try:
                return await step()
            except TransientModelError:
                if attempt + 1 >= self.max_errors:
                    raise
                await asyncio.sleep(wait)
                wait = min(wait * 2, self.max_poll_s)
        raise AssertionError("unreachable")

    def _save(self, record: BatchRecord) -> None:
        if self.folder is not None:
            save_record(self.folder, record)


def split(requests: list[BatchRequest], api: BatchAPI) -> list[list[BatchRequest]]:
    """`requests` in batches within the provider's request-count and size limits."""
    chunks: list[list[BatchRequest]] = []
    current: list[BatchRequest] = []
    size = 0
    for request in requests:
        n = request.size()
        if current and (len(current) >= api.max_requests or size + n > api.max_bytes):
            chunks.append(current)
            current, size = [], 0
        current.append(request)
        size += n
    if current:
        chunks.append(current)
    return chunks
