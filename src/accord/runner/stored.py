"""A run kept in an object store: the lease, the shared plan, the traces sent as written.

`accord run --out s3://bucket/runs/demo` plays exactly as a local run does, in a local
working folder (live files, the model-call log of remote seats, the results rebuilt from the
traces), and `StoredRun` adds the store around it:

- **Lease.** A run takes the lease ``run`` of its location (`accord.store.lease`), renewed
  while it plays; a run killed with ``kill -9`` loses it when it expires, and the next
  ``--resume`` takes it over and says so. With ``--shard auto`` each driver takes a lease of
  its own instead, and games are claimed one at a time (`accord.store.claims`); a driver and a
  single run never share a location.
- **Plan.** ``experiment.json`` is created in the store only if absent; a run or a driver
  whose plan differs from the one there is refused (one line, exit code 2).
- **Traces.** Each trace is created in the store only if absent, the moment its game ends. A
  failed trace played again on resume is first copied to ``attempts/<id>.<n>.json``, so no
  evidence is overwritten.
- **Results.** ``results.jsonl`` and ``summary.json`` are rebuilt from every trace of the run
  (other drivers' included) and sent when the driver ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from accord.core.errors import ConfigError
from accord.core.ids import check_id
from accord.runner.plan_file import plan_chunks, same_plan
from accord.runner.specs import GameSpec
from accord.store import Claims, Lease, RunStore, holder_record, open_store
from accord.store.lease import describe, is_live, read_record
from accord.store.mirror import Copy, download

POLL_S = 0.5
"""How often a driver waiting on another's game looks again (a fraction of a lease)."""
RUN_LEASE = "run"


class StoredRun:
    """The store side of one driver of a run kept in a store."""

    def __init__(self, store: RunStore, work: Path, lease: Lease, claims: Claims | None) -> None:
        self.store = store
        self.work = work
        self.lease = lease
        self.claims = claims
        self.replay: set[str] = set()
        """Games whose failed trace is in the store and that this driver may play again."""
        self.elsewhere = 0
        """Games of this run finished by other drivers while this one ran."""
        self.by_workers: set[str] = set()
        """Games whose trace the Ray worker that played them wrote into the store."""

    @classmethod
    def open(
        cls,
        location: str,
        work: Path,
        specs: Sequence[GameSpec],
        *,
        resume: bool,
        shard: bool,
    ) -> StoredRun:
        """Take the lease, copy the run's traces and plan into `work`, check the plan.

        Raises:
            ConfigError: the store cannot be reached, another run holds it, it holds
                another experiment, or traces without `resume` (each one line).
        """
        store = open_store(location)
        lease = _take_lease(store, shard)
        try:
            sync(store, work)
            traces = sorted((work / "traces").glob("*.json"))
            if traces and not (resume or shard):
                held = f"{location} already holds {len(traces)} traces."
                raise ConfigError(
                    f"{held} Pass resume=True to continue that run, or choose another out.",
                    cli=f"{held} Use --resume to continue that run, or choose another --out.",
                )
            if resume or shard or traces:
                _share_plan(store, work, specs, shard)
            else:  # a fresh run: its plan replaces one left without any game played
                # Streamed a chunk at a time: the plan of 100,000 games is ~60 MB.
                store.put("experiment.json", (chunk.encode() for chunk in plan_chunks(specs)))
            claims = None
            if shard:
                entry = store.head(f"leases/{lease.name}/{lease.gen:012d}.json")
                claims = Claims(store, lease, set(), entry.modified if entry else 0.0)
        except BaseException:
            lease.release()
            raise
        return cls(store, work, lease, claims)

    def order(self, todo: list[GameSpec]) -> list[GameSpec]:
        """`todo` in this driver's order: a shard starts at its own place in the plan, so
        drivers seldom wait on each other's games."""
        if self.claims is None or not todo:
            return todo
        k = int(self.lease.name.removeprefix("driver-")[:8], 16) % len(todo)
        return todo[k:] + todo[:k]

    def set_replay(self, ids: set[str]) -> None:
        """The games with a failed trace in the store that this run plays again."""
        self.replay = set(ids)
        if self.claims is not None:
            self.claims.replay = self.replay

    async def claim(self, spec: GameSpec) -> bool:
        """Whether this driver plays `spec` now: always for a single run, while it holds
        its lease; for a shard, once no live driver holds the game and it is not done."""
        if self.lease.lost:
            raise ConfigError(
                f"{self.store.location}: this run's lease was taken over by another run "
                "(it could not renew it in time); stopping. Resume later with --resume."
            )
        if self.claims is None:
            return True
        while True:
            state = await asyncio.to_thread(self.claims.claim, spec.trace_id)
            if state == "mine":
                return True
            if state == "done":
                self.elsewhere += 1
                return False
            await asyncio.sleep(POLL_S)

    async def store_trace(self, trace_id: str, path: Path) -> None:
        """Send a written trace to the store (create-if-absent) and drop its claim."""
        data = path.read_bytes()
        await asyncio.to_thread(self._put_trace, trace_id, data)

    def _put_trace(self, trace_id: str, data: bytes) -> None:
        put_trace(self.store, trace_id, data, replay=trace_id in self.replay)
        self.written(trace_id)

    def written(self, trace_id: str, *, by_worker: bool = False) -> None:
        """The trace of `trace_id` is in the store (sent from here, or written by the worker
        that played it): it is no longer replayed, and its claim is dropped."""
        if by_worker:
            self.by_workers.add(trace_id)
        self.replay.discard(trace_id)
        if self.claims is not None:
            self.claims.release(trace_id)

    def finish(self) -> None:
        """Copy the traces other drivers and the Ray workers wrote here (before the results
        are rebuilt)."""
        for trace_id in self.by_workers:
            # A failed trace copied here at the start was replaced in the store: fetch anew.
            (self.work / "traces" / f"{trace_id}.json").unlink(missing_ok=True)
        if self.claims is not None or self.by_workers:
            sync(self.store, self.work)

    def send_outputs(self) -> None:
        """Send the rebuilt ``results.jsonl`` and ``summary.json`` to the store (not after
        losing the lease: the run's new holder writes them)."""
        if self.lease.lost:
            return
        for name in ("results.jsonl", "summary.json"):
            path = self.work / name
            if path.is_file():
                self.store.put(name, path)  # streamed from the file, not read whole

    def release(self) -> None:
        """Let go of the lease (the record is marked released)."""
        self.lease.release()


def put_trace(store: RunStore, trace_id: str, data: bytes, *, replay: bool) -> bool:
    """Create ``traces/<trace_id>.json`` in `store`; False when a trace was there and kept.

    With `replay` (a failed trace there is played again), the trace there is first copied to
    ``attempts/<trace_id>/<n>.json`` (created only if absent), so no evidence is overwritten.
    Called by the driver, or by a Ray worker writing its game's trace itself."""
    name = f"traces/{check_id(trace_id)}.json"
    if store.create(name, data):
        return True
    if not replay:
        return False
    old = store.read(name)
    if old is not None:
        n = len(store.list(f"attempts/{trace_id}"))
        while not store.create(f"attempts/{trace_id}/{n}.json", old):
            n += 1
    store.delete(name)
    return store.create(name, data)


def sync(store: RunStore, work: Path) -> None:
    """Copy the traces and plan of the run at `store` into `work` (new ones only)."""
    copy = Copy(store, work)
    for path in (work / "traces").glob("*.json") if (work / "traces").is_dir() else ():
        copy.fetched[f"traces/{path.name}"] = ""  # traces never change: not read again
    download(copy, ("traces",), only=["experiment.json"])


def _take_lease(store: RunStore, shard: bool) -> Lease:
    location = store.location
    if shard:
        _, record = read_record(store, RUN_LEASE)
        if is_live(record):
            raise ConfigError(
                f"{location} is being played by a run without --shard ({describe(record)}); "
                "wait for it to finish, or give every driver --shard auto."
            )
        record = holder_record(mode="shard")
        return Lease.acquire(store, f"driver-{record['holder']}", record)
    for entry in store.list("leases"):
        driver = entry.name.split("/")[1]
        if driver.startswith("driver-") and is_live(read_record(store, driver)[1]):
            raise ConfigError(
                f"{location} is being played by drivers with --shard; add --shard auto to "
                "join them, or wait for them to finish."
            )

    def busy(holder: dict[str, object] | None) -> str:
        return (
            f"{location} is in use by another Accord run ({describe(holder)}); wait for it to "
            "finish (a run that died frees it when its lease expires), or choose another --out."
        )

    lease = Lease.acquire(store, RUN_LEASE, holder_record(mode="single"), busy=busy)
    if lease.stale is not None:
        import sys

        sys.stderr.write(
            f"note: {location}: taking over the lease of a run that ended without releasing "
            f"it ({describe(lease.stale)}); its finished games are kept.\n"
        )
    return lease


def _share_plan(store: RunStore, work: Path, specs: Sequence[GameSpec], shard: bool) -> None:
    """Create the plan in the store, or check ours against the one there."""
    text = "".join(plan_chunks(specs)).encode()
    local = work / "experiment.json"
    if not local.is_file() and store.create("experiment.json", text):
        return
    if not local.is_file():  # another driver created it a moment ago
        data = store.read("experiment.json") or b""
        local.write_bytes(data)
    if same_plan(local, specs):
        return
    who = "another driver" if shard else "a run"
    other = f"{store.location} holds {who}'s different experiment"
    raise ConfigError(
        f"{other}; every driver (and resume=True) needs the same config and options, or use "
        "another out.",
        cli=f"{other}; every driver (and --resume) needs the same experiment file and options, "
        "or use another --out.",
    )
