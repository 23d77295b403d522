"""Claims: several drivers sharing one run, each game played by one of them.

Each driver holds its own lease (``leases/driver-<id>``, `accord.store.lease`) for as long as
it runs. Before playing a game it claims it by creating ``claims/<trace_id>/<generation>.json``
naming its lease; only one create of a name succeeds, so only one driver plays the game. When
the game's trace is written the claim is deleted. A claim whose driver's lease has expired (a
driver killed with ``kill -9``) is taken over by creating the next generation, so its games
are played by the others once the lease runs out.

A game is done when its trace is in the store and no live claim is on it, except a game whose
trace was already there, failed, when this driver started (`Claims.replay`): that one is done
only once the store holds a trace written after the start (by whichever driver played it
again).
"""

from __future__ import annotations

import json
import time
from typing import Any, Literal

from accord.core.ids import check_id
from accord.store.lease import Lease, is_live, read_record
from accord.store.objects import RunStore

ClaimState = Literal["mine", "done", "held"]
_LIVE_CACHE_S = 1.0


class Claims:
    """One driver's view of the claims of a run."""

    def __init__(self, store: RunStore, lease: Lease, replay: set[str], since: float) -> None:
        self.store = store
        self.lease = lease
        self.replay = replay
        """Games whose failed trace was in the store when this driver started."""
        self.since = since
        """The store's time when this driver started (its lease record's write time)."""
        self._live: dict[str, tuple[float, bool]] = {}

    def _driver_live(self, name: str) -> bool:
        if name == self.lease.name:
            return not self.lease.lost
        seen = self._live.get(name)
        if seen is not None and time.monotonic() - seen[0] < _LIVE_CACHE_S:
            return seen[1]
        live = is_live(read_record(self.store, name)[1])
        self._live[name] = (time.monotonic(), live)
        return live

    def _newest(self, trace_id: str) -> tuple[int, dict[str, Any] | None]:
        gens = []
        for entry in self.store.list(f"claims/{trace_id}"):
            stem = entry.name.rsplit("/", 1)[-1].removesuffix(".json")
            if stem.isdigit():
                gens.append(int(stem))
        if not gens:
            return -1, None
        data = self.store.read(f"claims/{trace_id}/{max(gens):012d}.json")
        try:
            record = json.loads(data) if data is not None else None
        except ValueError:
            record = None
        return max(gens), record if isinstance(record, dict) else None

    def _written(self, trace_id: str) -> bool:
        entry = self.store.head(f"traces/{trace_id}.json")
        if entry is None:
            return False
        return trace_id not in self.replay or entry.modified >= self.since

    def claim(self, trace_id: str) -> ClaimState:
        """Try to take game `trace_id`: ``mine`` (play it), ``done`` (another driver did,
        or its trace is here) or ``held`` (a live driver is playing it: ask again later)."""
        check_id(trace_id)
        gen, record = self._newest(trace_id)
        owner = str(record.get("driver")) if record is not None else self.lease.name
        if owner != self.lease.name and self._driver_live(owner):
            return "held"
        if self._written(trace_id):
            return "done"
        body = json.dumps({"driver": self.lease.name, "at": time.time()}).encode()
        if not self.store.create(f"claims/{trace_id}/{gen + 1:012d}.json", body):
            return "held"
        if self._written(trace_id):  # written between the look and the claim
            self.release(trace_id)
            return "done"
        return "mine"

    def release(self, trace_id: str) -> None:
        """Drop this driver's claims on `trace_id` (its trace is written, or it gave up)."""
        for entry in self.store.list(f"claims/{trace_id}"):
            self.store.delete(entry.name)
