"""Leases: who may write into a run, held for a while and renewed, lost by a holder that dies.

A local run is locked by the kernel (``flock``), which frees the lock when its process ends. An
object store has no such thing, so a lease there is a record with an expiry time that its
holder renews every third of its length; a holder killed with ``kill -9`` stops renewing, and
once the expiry passes the next run takes the lease over (and says so), keeping every game
already written.

A lease named ``N`` is a series of generations, ``leases/N/<generation>.json``, each created
only if absent. The holder of generation ``g`` renews by rewriting its own record; whoever
finds the newest record expired (or released) takes the lease by creating generation
``g + 1``, and since only one create of a name can succeed, only one taker wins, with no need
for compare-and-swap (which not every backend offers). A holder that finds a newer generation
than its own has lost the lease (`Lease.lost`) and must stop writing.

Clocks: expiry is compared with each machine's own clock, so machines sharing a run should
keep their clocks within a few seconds (NTP); the default length (`DEFAULT_TTL_S`) leaves a
wide margin.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from accord.core.errors import ConfigError
from accord.core.secrets import scrub_command_line, scrub_secrets
from accord.store.objects import RunStore

DEFAULT_TTL_S = 60.0
"""How long a lease lasts without renewal (``ACCORD_LEASE_SECONDS`` overrides it)."""
MIN_TTL_S = 1.0
KEEP_GENERATIONS = 3
"""Older generations than this many are deleted by a new holder (only the newest counts)."""


class LeaseHeldError(ConfigError):
    """Another live holder has the lease."""


def lease_ttl() -> float:
    """The lease length in seconds: ``ACCORD_LEASE_SECONDS`` or `DEFAULT_TTL_S`."""
    raw = os.environ.get("ACCORD_LEASE_SECONDS", "").strip()
    if not raw:
        return DEFAULT_TTL_S
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not MIN_TTL_S <= value <= 86400:
        raise ConfigError(
            f"ACCORD_LEASE_SECONDS={raw!r} is not a number of seconds from {MIN_TTL_S:g} to "
            "86400; fix or unset it."
        )
    return value


def holder_record(**extra: Any) -> dict[str, Any]:
    """Who this process is, for a lease record (the command line scrubbed of credentials)."""
    return {
        "holder": uuid.uuid4().hex,
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": scrub_command_line(sys.argv)[:500],
        **extra,
    }


def _generations(store: RunStore, name: str) -> list[int]:
    gens = []
    for entry in store.list(f"leases/{name}"):
        stem = entry.name.rsplit("/", 1)[-1].removesuffix(".json")
        if stem.isdigit():
            gens.append(int(stem))
    return sorted(gens)


def _key(name: str, gen: int) -> str:
    return f"leases/{name}/{gen:012d}.json"


def read_record(store: RunStore, name: str) -> tuple[int, dict[str, Any] | None]:
    """The newest generation of lease `name` and its record (``(-1, None)`` if none)."""
    gens = _generations(store, name)
    if not gens:
        return -1, None
    data = store.read(_key(name, gens[-1]))
    try:
        record = json.loads(data) if data is not None else None
    except ValueError:
        record = None  # a damaged record holds nothing: it may be taken
    return gens[-1], record if isinstance(record, dict) else None


def is_live(record: dict[str, Any] | None, now: float | None = None) -> bool:
    """Whether a lease record is held: not released and not past its expiry."""
    if not record or record.get("released") is True:
        return False
    expires = record.get("expires_at")
    return isinstance(expires, int | float) and expires > (now or time.time())


def describe(record: dict[str, Any] | None) -> str:
    """The holder of a lease in words."""
    if not record:
        return "holder unknown"
    where = f"pid {record.get('pid')} on {record.get('host')}"
    since = f", since {record['started_at']}" if record.get("started_at") else ""
    return scrub_secrets(where + since)


class Lease:
    """A held lease; renewed by a background thread until `release`."""

    def __init__(
        self, store: RunStore, name: str, gen: int, record: dict[str, Any], ttl: float
    ) -> None:
        self.store = store
        self.name = name
        self.gen = gen
        self.record = record
        self.ttl = ttl
        self.lost = False
        """Set when another holder took the lease (this one stopped renewing in time)."""
        self.stale: dict[str, Any] | None = None
        """The record of a previous holder that died without releasing it, if any."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def acquire(
        cls,
        store: RunStore,
        name: str,
        record: dict[str, Any] | None = None,
        *,
        ttl: float | None = None,
        busy: Callable[[dict[str, Any] | None], str] | None = None,
        renew: bool = True,
    ) -> Lease:
        """Take lease `name` of `store`, or raise `LeaseHeldError` (message from `busy`).

        A previous holder's unreleased, expired record is kept in `stale`."""
        ttl = ttl or lease_ttl()
        mine = dict(record or holder_record())
        for _ in range(5):  # a lost race re-reads: someone else created the generation first
            gen, current = read_record(store, name)
            if is_live(current):
                text = (
                    busy(current) if busy else f"{store.location} is in use ({describe(current)})"
                )
                raise LeaseHeldError(text)
            mine["expires_at"] = time.time() + ttl
            if store.create(_key(name, gen + 1), _dump(mine)):
                lease = cls(store, name, gen + 1, mine, ttl)
                lease.stale = current if current and current.get("released") is not True else None
                for old in _generations(store, name)[:-KEEP_GENERATIONS]:
                    store.delete(_key(name, old))
                if renew:
                    lease.start()
                return lease
        raise LeaseHeldError(f"{store.location}: could not take lease {name}; try again.")

    def start(self) -> None:
        """Renew in a daemon thread every third of the lease length."""
        self._thread = threading.Thread(target=self._loop, name=f"lease-{self.name}", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            try:
                self.renew()
            except ConfigError:
                continue  # a passing network error: the next renewal may succeed
            if self.lost:
                return

    def renew(self) -> bool:
        """Push the expiry out; False (and `lost` set) if a newer generation exists."""
        if self.lost:
            return False
        if _generations(self.store, self.name)[-1:] != [self.gen]:
            self.lost = True
            return False
        self.record["expires_at"] = time.time() + self.ttl
        self.store.put(_key(self.name, self.gen), _dump(self.record))
        return True

    def release(self) -> None:
        """Stop renewing and mark the record released (idempotent)."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        if self.lost:
            return
        try:
            if _generations(self.store, self.name)[-1:] == [self.gen]:
                self.store.put(_key(self.name, self.gen), _dump({**self.record, "released": True}))
        except ConfigError:
            pass  # the record expires on its own


def _dump(record: dict[str, Any]) -> bytes:
    return scrub_secrets(json.dumps(record, sort_keys=True)).encode()
