"""The Ray executor: each game is a Ray task on an existing cluster or a local instance.

The driver submits a task per game. For a run in a local folder the task returns the trace
(JSON) and the driver writes it. For a run kept in a store (``--out s3://...``, or
``file://`` on storage every node mounts) each worker writes its game's trace into the store
itself, created only if absent, checked to read back exactly as the driver would check it
(the driver's `accord.runner.run.write_checked_trace`, handed to the task), and returns only
the trace's header (everything but its events and transcripts, a few kilobytes): the
driver's network and memory no longer carry every trace. Resume, claims and progress stay in
the driver. A task that dies with its worker or its node comes back as a failed trace with
the reason (unless the worker had already written its trace), so ``--resume`` plays it again.

Model concurrency limits hold across the cluster: for every provider pool (the key and size a
`ModelClient` reports) the driver creates a named async actor holding the pool's limit (an
adaptive one sized from the server's answers, or a fixed number of slots; see
`accord.models.limits`), and each worker wraps every model call in a slot of it
(`accord.models.client.set_shared_limiter`), reporting how the call ended when it gives the
slot back, so the window adapts to every worker's calls. The slots are per run; a worker that
dies holding some has them given back by the driver.
Cooldowns stay per client and per process, and the bundled local model is limited per process
(each worker runs its own copy).

The slot actors are placed on the driver's node (they need no CPU, so it always has room):
losing a worker node does not lose the run's limits, and losing the driver's ends the run
anyway.

Workers need Accord installed (same version) and, for hosted models, the API key variables in
their environment; for a run in a store, the store's credentials too (``AWS_*`` and the like,
`accord.store.location`); the model cache directory must be on storage every node can reach.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import logging
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.models.cache import CacheStats, ModelCache
from accord.models.client import SlotReport
from accord.models.limits import AdaptiveLimit, FixedLimit, Limit, Outcome
from accord.runner.executors import Executor, TraceWriter
from accord.runner.play import failed_trace, play_game
from accord.runner.specs import GameSpec
from accord.store import RunStore
from accord.traces.schema import Trace

_SLOT_CALLS = 100_000
"""Calls an async slot actor may hold waiting at once (every queued acquire is one)."""


def _ray() -> Any:
    try:
        import ray
    except ImportError as err:  # pragma: no cover - ray is in the dev extra
        raise ConfigError(
            "--executor ray needs Ray: install it with `pip install 'accord[ray]'`."
        ) from err
    return ray


def slot_actor_name(prefix: str, key: str, limit: int, adaptive: bool = False) -> str:
    """The named actor holding the slots of one provider pool in one run."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return f"accord-slots-{prefix}-{digest}-{limit}{'a' if adaptive else ''}"


class Slots:
    """`limit` slots of one provider pool, shared by every worker of a run (a Ray actor).

    A token is ``<task id>:<n>``. A release that arrives before its acquire was granted (the
    caller gave up waiting) marks the token abandoned so the late grant is handed straight
    back; `release_task` frees whatever a dead task held and refuses its pending acquires.
    """

    def __init__(self, limit: int, adaptive: bool = False) -> None:
        self.limit = limit
        self._pool: Limit = AdaptiveLimit(limit) if adaptive else FixedLimit(limit)
        self._held: dict[str, int] = {}
        self._abandoned: set[str] = set()
        self._dead: set[str] = set()
        self._peak = 0

    async def acquire(self, token: str) -> None:
        ticket = await self._pool.acquire()
        if token in self._abandoned or token.rsplit(":", 1)[0] in self._dead:
            self._abandoned.discard(token)
            self._pool.release(ticket)
            return
        self._held[token] = ticket
        self._peak = max(self._peak, len(self._held))

    async def release(self, token: str, outcome: dict[str, Any] | None = None) -> None:
        if token in self._held:
            ticket = self._held.pop(token)
            self._pool.release(ticket, Outcome.from_dict(outcome) if outcome else None)
        else:
            self._abandoned.add(token)

    async def release_task(self, task_id: str) -> int:
        self._dead.add(task_id)
        tokens = [t for t in self._held if t.rsplit(":", 1)[0] == task_id]
        for token in tokens:
            await self.release(token)
        return len(tokens)

    async def stats(self) -> dict[str, float]:
        return {
            "limit": self.limit,
            "held": len(self._held),
            "peak": self._peak,
            "window": self._pool.stats.window,
            "rate_limited": self._pool.stats.rate_limited,
        }


def _slots_class(ray: Any) -> Any:
    return ray.remote(num_cpus=0, max_concurrency=_SLOT_CALLS)(Slots)


class SharedLimiter:
    """Worker side: every model call holds a slot of its pool's `Slots` actor."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._handles: dict[str, Any] = {}
        self._tokens = itertools.count()

    def _handle(self, key: str, limit: int, adaptive: bool) -> Any:
        name = slot_actor_name(self.prefix, key, limit, adaptive)
        handle = self._handles.get(name)
        if handle is None:
            ray = _ray()
            try:
                handle = ray.get_actor(name)
            except ValueError:
                # A pool the driver could not foresee (a provider with its own key): create it;
                # get_if_exists makes every worker agree on one actor.
                handle = (
                    _slots_class(ray).options(name=name, get_if_exists=True).remote(limit, adaptive)
                )
            self._handles[name] = handle
        return handle

    @asynccontextmanager
    async def slot(self, key: str, limit: int, adaptive: bool) -> AsyncIterator[SlotReport]:
        handle = self._handle(key, limit, adaptive)
        task = _ray().get_runtime_context().get_task_id() or "driver"
        token = f"{task}:{next(self._tokens)}"
        try:
            await handle.acquire.remote(token)
        except BaseException:
            handle.release.remote(token)
            raise
        report = SlotReport()
        try:
            yield report
        finally:
            outcome = report.outcome.as_dict() if report.outcome is not None else None
            handle.release.remote(token, outcome)


_limiter: SharedLimiter | None = None
_stores: dict[str, RunStore] = {}
"""The stores this worker process writes to, opened once each."""


def _play(spec_data: dict[str, Any], cache_dir: str | None, prefix: str) -> tuple[Trace, str]:
    global _limiter
    from accord.models.client import set_shared_limiter

    if _limiter is None or _limiter.prefix != prefix:
        _limiter = SharedLimiter(prefix)
        set_shared_limiter(_limiter.slot)
    spec = GameSpec.model_validate(spec_data)
    cache = ModelCache(Path(cache_dir)) if cache_dir else None
    trace = asyncio.run(play_game(spec, cache=cache))
    stats = cache.stats if cache is not None else CacheStats()
    return trace, f'"hits":{stats.hits},"misses":{stats.misses}'


def play_in_worker(spec_data: dict[str, Any], cache_dir: str | None, prefix: str) -> str:
    """The Ray task: play one game in a worker and return ``{trace, hits, misses}`` as JSON."""
    trace, counts = _play(spec_data, cache_dir, prefix)
    return f'{{{counts},"trace":{trace.model_dump_json()}}}'


def play_into_store(
    spec_data: dict[str, Any],
    cache_dir: str | None,
    prefix: str,
    location: str,
    replay: bool,
    write: TraceWriter,
) -> str:
    """The Ray task for a run in a store: play one game, write its trace with `write` (the
    driver's own writer, shipped by reference, so the trace is checked and laid out exactly as
    the driver would) into a scratch folder, send it to the store at `location`
    (`accord.runner.stored.put_trace`: created only if absent; with `replay` the failed trace
    there is kept under ``attempts/`` first), and return ``{head, hits, misses, kept}`` as
    JSON: the trace's header, and whether a trace already there was kept instead."""
    from accord.runner.stored import put_trace
    from accord.store import open_store

    trace, counts = _play(spec_data, cache_dir, prefix)
    spec = GameSpec.model_validate(spec_data)
    store = _stores.get(location)
    if store is None:
        store = _stores[location] = open_store(location)
    with tempfile.TemporaryDirectory(prefix="accord-worker-") as tmp:
        path, trace = write(Path(tmp), trace, spec=spec)
        data = path.read_bytes()
    kept = not put_trace(store, trace.trace_id, data, replay=replay)
    head = trace.model_dump_json(exclude={"events", "transcripts"})
    return f'{{{counts},"kept":{json.dumps(kept)},"head":{head}}}'


def trace_of_head(head: dict[str, Any]) -> Trace:
    """A `Trace` from a worker's header: its events and transcripts are in the store only."""
    return Trace.model_validate({**head, "events": [], "transcripts": {}})


class RayExecutor(Executor):
    """Games as Ray tasks.

    Args:
        address: a running cluster (``ray://host:10001``, ``auto``); ``None`` starts a local
            instance unless this process is already connected.
        cache_dir: the model cache every worker reads and fills.
        num_cpus: CPUs of a local instance (default: all).
        cpus_per_game: CPUs each game task reserves; LLM games mostly wait on the network,
            so ``0.25`` lets four share a core.
    """

    name = "ray"

    def __init__(
        self,
        *,
        address: str | None = None,
        cache_dir: Path | None = None,
        num_cpus: int | None = None,
        cpus_per_game: float = 1.0,
    ) -> None:
        super().__init__(cache_dir)
        if cpus_per_game <= 0:
            raise ConfigError("--cpus-per-game must be positive")
        self.address = address
        self.num_cpus = num_cpus
        self.cpus_per_game = cpus_per_game
        self.prefix = uuid.uuid4().hex[:12]
        self.slots: dict[str, Any] = {}
        self._owns_ray = False
        self._remote: Any = None
        self._remote_store: Any = None
        self._in_flight: set[Any] = set()

    async def start(self, specs: Sequence[GameSpec]) -> None:
        ray = _ray()
        if not ray.is_initialized():
            common: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.WARNING}
            if self.address is not None:
                ray.init(address=self.address, **common)
            else:
                ray.init(num_cpus=self.num_cpus or os.cpu_count() or 1, **common)
            self._owns_ray = True
        task = ray.remote(num_cpus=self.cpus_per_game, max_retries=0)
        self._remote = task(play_in_worker)
        self._remote_store = task(play_into_store)
        self._create_slots(ray, specs)

    def _create_slots(self, ray: Any, specs: Sequence[GameSpec]) -> None:
        from accord.models import get_model

        seen: set[tuple[str, str]] = set()
        for spec in specs:
            for agent in spec.agents:
                ident = (agent.model or "", repr(sorted(agent.options.items())))
                if agent.model is None or agent.model.startswith("local/") or ident in seen:
                    continue
                seen.add(ident)
                # Building the client here also stops a run with a missing API key before
                # any task starts.
                client = get_model(agent.model, **agent.options)
                key, limit = client.concurrency_key()
                adaptive = client.adaptive_concurrency
                name = slot_actor_name(self.prefix, key, limit, adaptive)
                if name not in self.slots:
                    self.slots[name] = (
                        _slots_class(ray)
                        .options(name=name, scheduling_strategy=_here(ray))
                        .remote(limit, adaptive)
                    )

    async def play(self, spec: GameSpec) -> Trace:
        # Games play in other processes: the live view shows them in flight, without events.
        cache_dir = str(self.cache_dir) if self.cache_dir is not None else None
        ref = self._remote.remote(spec.model_dump(mode="json"), cache_dir, self.prefix)
        self._in_flight.add(ref)
        try:
            data = json.loads(await ref)
        except Exception as exc:
            for handle in self.slots.values():
                handle.release_task.remote(ref.task_id().hex())
            reason = " ".join(str(exc).split())[:400]
            return failed_trace(spec, f"Ray task failed: {type(exc).__name__}: {reason}")
        finally:
            self._in_flight.discard(ref)
        self.cache_stats.add(CacheStats(hits=data["hits"], misses=data["misses"]))
        return Trace.model_validate(data["trace"])

    writes_store = True

    async def play_stored(
        self, spec: GameSpec, location: str, replay: bool, write: TraceWriter
    ) -> tuple[Trace, bool]:
        """Play `spec` in a worker that writes its trace into the store at `location`.

        Returns the trace (its header: events and transcripts stay in the store) and True,
        or, when the task died before writing (its worker or node lost), a failed trace for
        the driver to write and False."""
        cache_dir = str(self.cache_dir) if self.cache_dir is not None else None
        ref = self._remote_store.remote(
            spec.model_dump(mode="json"), cache_dir, self.prefix, location, replay, write
        )
        self._in_flight.add(ref)
        try:
            data = json.loads(await ref)
        except Exception as exc:
            for handle in self.slots.values():
                handle.release_task.remote(ref.task_id().hex())
            if not replay:
                # The worker may have written its trace and died before answering.
                written = await asyncio.to_thread(_stored_head, location, spec.trace_id)
                if written is not None:
                    return written, True
            reason = " ".join(str(exc).split())[:400]
            return failed_trace(spec, f"Ray task failed: {type(exc).__name__}: {reason}"), False
        finally:
            self._in_flight.discard(ref)
        self.cache_stats.add(CacheStats(hits=data["hits"], misses=data["misses"]))
        if data.get("kept"):
            written = await asyncio.to_thread(_stored_head, location, spec.trace_id)
            if written is not None:
                return written, True
        return trace_of_head(data["head"]), True

    async def slot_stats(self) -> dict[str, dict[str, float]]:
        """Per pool actor: its limit, slots held now and the most ever held at once."""
        return {name: await handle.stats.remote() for name, handle in self.slots.items()}

    async def close(self) -> None:
        ray = _ray()
        if not ray.is_initialized():
            return
        for ref in self._in_flight:
            ray.cancel(ref, force=True)
        for handle in self.slots.values():
            ray.kill(handle)
        self.slots.clear()
        if self._owns_ray:
            ray.shutdown()


def _here(ray: Any) -> Any:
    """Place an actor on this (the driver's) node. A soft affinity was tried and put the slot
    actors on worker nodes all the same, where a lost node took the run's limits with it."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    node = ray.get_runtime_context().get_node_id()
    return NodeAffinitySchedulingStrategy(node_id=node, soft=False)


def _stored_head(location: str, trace_id: str) -> Trace | None:
    """The trace of `trace_id` in the store as a header-only `Trace`, or None when absent
    (or unreadable: the game is then counted failed and played again on resume)."""
    from accord.core.errors import ConfigError as Refused
    from accord.traces.reader import parse_trace, validate_trace

    store = _stores.get(location) or RunStore(location)
    data = store.read(f"traces/{trace_id}.json")
    if data is None:
        return None
    try:
        trace = validate_trace(parse_trace(data, f"{location}/traces/{trace_id}.json"), trace_id)
    except Refused:
        return None
    return trace.model_copy(update={"events": [], "transcripts": {}})
