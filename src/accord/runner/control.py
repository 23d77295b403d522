"""Live control of a running run: pause, resume, retune its concurrency, stop.

`accord ctl RUN pause` (or `send`) appends a record to the run's control log,
``control/<seq>.json`` (each created only if absent, so two senders never lose one), with the
action and the time it was asked. Every driver playing the run, on this machine or another,
reads the log every `poll_s` seconds (`Control.poll`) and applies the records it has not
applied yet, in order, then records that it did (``control/<seq>.applied-<driver>.json``
with its time): the log and the acknowledgements are the run's history of changes.

- ``pause``: no game starts until ``resume``; games in flight finish.
- ``concurrency N``: at most N games in flight from now on (up to `MAX_WORKERS`).
- ``stop --drain``: no game starts again; games in flight finish and are written; the rest is
  left for ``--resume``. ``stop``: games in flight are cancelled too (their traces are not
  written, so a resume plays them).

A run directory on this machine keeps its log in ``DIR/control/``; a run in a store, in the
store.

The web run page of `accord serve` sends the same records, and needs the run's **control
token** to do so: a random value each run start writes to ``control/token`` (`issue_token`;
never into a trace, the plan or the summary, and never copied for readers), which the page
asks its own server for and sends back with each change. A page from another site can send
a request to the server but cannot read the token (the browser keeps other sites' answers
from it), and the server's Host check keeps another site's name from pointing at it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import datetime as dt
import hmac
import json
import os
import secrets
import socket
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from accord.core.errors import ConfigError
from accord.store import RunStore, is_location
from accord.store.objects import StoreError

Action = Literal["pause", "resume", "concurrency", "stop"]
ACTIONS: tuple[str, ...] = ("pause", "resume", "concurrency", "stop")
MAX_WORKERS = 64
"""Games a run can be retuned up to without a restart (or its starting concurrency, if more)."""
CONTROL_VERSION = 1


class ControlRecord(BaseModel):
    """One change asked of a running run."""

    version: int = Field(CONTROL_VERSION, description="Schema version of this record.")
    seq: int = Field(description="Position in the run's control log (0, 1, ...).")
    action: Action = Field(description="pause, resume, concurrency or stop.")
    value: int | None = Field(None, description="The new concurrency (for concurrency).")
    drain: bool = Field(False, description="With stop: let the games in flight finish.")
    at: str = Field(description="When it was asked (UTC, ISO 8601).")
    by: str = Field(description="Who asked: host and process id.")


def control_store(run: str | Path) -> RunStore:
    """The store holding the control log of `run` (a location, or a run directory)."""
    if isinstance(run, str) and is_location(run):
        return RunStore(run)
    path = Path(run).resolve()
    return RunStore(path.as_uri())


TOKEN_NAME = "control/token"
"""Where a run keeps its control token (`issue_token`)."""


def issue_token(store: RunStore) -> str:
    """A new control token for the run at `store`, written to `TOKEN_NAME` (readable by its
    owner only, for a run directory on this machine); the one of an earlier start is
    replaced."""
    token = secrets.token_urlsafe(24)
    store.put(TOKEN_NAME, token.encode())
    local = _local_path(store)
    if local is not None:
        # A file system without modes: the folder's own permissions hold.
        with contextlib.suppress(OSError):
            (local / TOKEN_NAME).chmod(0o600)
    return token


def read_token(run: str | Path) -> str | None:
    """The control token of `run` (a location, a run directory, or a local copy of a run in a
    store), or None when no run has started there with one."""
    try:
        data = control_store(origin(run)).read(TOKEN_NAME)
    except ConfigError:
        return None
    text = (data or b"").decode("ascii", "replace").strip()
    return text or None


def token_matches(run: str | Path, given: str | None) -> bool:
    """Whether `given` is `run`'s control token (compared in constant time)."""
    token = read_token(run)
    if not token or not given:
        return False
    return hmac.compare_digest(token.encode(), given.encode("utf-8", "replace"))


def origin(run: str | Path) -> str | Path:
    """Where `run` lives: for a local copy of a run in a store (`accord.store.local_view`)
    its location, otherwise `run` itself."""
    from accord.store.mirror import origin_of

    if isinstance(run, Path):
        return origin_of(run) or run
    return run


def _local_path(store: RunStore) -> Path | None:
    if not store.location.startswith("file://"):
        return None
    from accord.store.location import split_location

    _, root, prefix = split_location(store.location)
    return Path(root) / prefix if prefix else Path(root)


def _log(store: RunStore) -> list[int]:
    seqs = []
    for entry in store.list("control"):
        stem = entry.name.rsplit("/", 1)[-1].removesuffix(".json")
        if stem.isdigit():
            seqs.append(int(stem))
    return sorted(seqs)


def send(
    run: str | Path, action: str, value: int | None = None, *, drain: bool = False
) -> ControlRecord:
    """Append a control record to `run`'s log; drivers apply it within a few seconds.

    Raises:
        ConfigError: an unknown action, a missing or bad concurrency, `run` not a run.
    """
    if action not in ACTIONS:
        raise ConfigError(f"unknown action {action!r}: use one of {', '.join(ACTIONS)}")
    if action == "concurrency" and (value is None or value < 1):
        raise ConfigError("concurrency needs a number of games of 1 or more, e.g. concurrency 4")
    if drain and action != "stop":
        raise ConfigError("--drain applies to stop only")
    if not (isinstance(run, str) and is_location(run)) and not Path(run).is_dir():
        raise ConfigError(f"{run} is not a run directory; give the --out of a running run.")
    store = control_store(run)
    if not store.exists("experiment.json"):
        raise ConfigError(f"{store.location} holds no run (no experiment.json); check RUN.")
    for _ in range(20):
        seqs = _log(store)
        record = ControlRecord(
            seq=(seqs[-1] + 1) if seqs else 0,
            action=action,  # checked against ACTIONS above
            value=value if action == "concurrency" else None,
            drain=drain,
            at=dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
            by=f"{socket.gethostname()}:{os.getpid()}",
        )
        if store.create(f"control/{record.seq:08d}.json", record.model_dump_json().encode()):
            return record
    raise ConfigError(f"{store.location}: the control log is busy; try again.")


def history(run: str | Path) -> list[dict[str, Any]]:
    """Every control record of `run` and its acknowledgements, in order."""
    store = control_store(run)
    out = []
    for entry in store.list("control"):
        if entry.name == TOKEN_NAME:
            continue  # the token is no record, and not shown
        data = store.read(entry.name)
        try:
            record = json.loads(data) if data else None
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append({"name": entry.name, **record})
    return out


class Limiter:
    """At most `limit` holders at once, first come first served; the limit can change."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    async def __aenter__(self) -> None:
        if self.active >= self.limit or self._waiters:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            try:
                await fut
            except BaseException:
                if fut in self._waiters:
                    self._waiters.remove(fut)
                elif fut.done() and not fut.cancelled():
                    self.active -= 1
                    self._wake()
                raise
        else:
            self.active += 1

    async def __aexit__(self, *exc: object) -> None:
        self.active -= 1
        self._wake()

    def set_limit(self, limit: int) -> None:
        self.limit = limit
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.active < self.limit:
            fut = self._waiters.popleft()
            if not fut.done():
                self.active += 1
                fut.set_result(None)


class Control:
    """What the control log asks of this driver (`poll` applies new records)."""

    def __init__(self, store: RunStore, limiter: Limiter, driver: str) -> None:
        self.store = store
        self.limiter = limiter
        self.driver = driver
        self.paused = False
        self.stopping: Literal["", "drain", "now"] = ""
        self._applied = -1
        self._resumed = asyncio.Event()
        self._resumed.set()
        self.poll_s = float(os.environ.get("ACCORD_CONTROL_POLL_S", "1") or 1)

    def skip_existing(self) -> None:
        """Start after the records already in the log (those were for earlier runs)."""
        seqs = _log(self.store)
        self._applied = seqs[-1] if seqs else -1

    def poll(self) -> list[ControlRecord]:
        """Apply the records added since the last poll; return them."""
        try:
            seqs = [s for s in _log(self.store) if s > self._applied]
        except StoreError:
            return []  # a passing network error: the next poll sees them
        applied = []
        for seq in seqs:
            data = self.store.read(f"control/{seq:08d}.json")
            try:
                record = ControlRecord.model_validate_json(data or b"")
            except ValueError:
                self._applied = seq  # a damaged record asks nothing
                continue
            self._apply(record)
            self._applied = seq
            applied.append(record)
            ack = {"applied": seq, "driver": self.driver,
                   "at": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")}  # fmt: skip
            self.store.create(f"control/{seq:08d}.applied-{self.driver}.json",
                              json.dumps(ack).encode())  # fmt: skip
        return applied

    def _apply(self, record: ControlRecord) -> None:
        if record.action == "pause":
            self.paused = True
            self._resumed.clear()
        elif record.action == "resume":
            self.paused = False
            self._resumed.set()
        elif record.action == "concurrency" and record.value is not None:
            self.limiter.set_limit(max(1, record.value))
        elif record.action == "stop":
            self.stopping = "drain" if record.drain else "now"
            self._resumed.set()

    async def admit(self) -> bool:
        """Wait while the run is paused; False once it is stopping (launch nothing)."""
        while self.paused and not self.stopping:
            await self._resumed.wait()
        return not self.stopping

    async def run(self, on_stop: Any) -> None:
        """Poll forever (cancelled when the run ends); call `on_stop()` on ``stop``."""
        while True:
            await asyncio.to_thread(self.poll)
            if self.stopping == "now":
                on_stop()
                return
            await asyncio.sleep(self.poll_s)
