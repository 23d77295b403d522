"""Local copies of a run kept in a store, for the code that reads and writes folders.

`download` copies a run's files (or some folders of it) into a local folder: each key is
checked (`accord.store.objects.is_safe_name`) before it becomes a path, keys that are not
safe are listed and skipped, and the count and size are bounded. `upload_new` sends back what
a command wrote into the copy (a report, a fork, a replay): files that were not downloaded or
have changed, never a trace that already exists in the store (traces are created only if
absent). `local_view` ties the two to a temporary folder removed when the process ends;
`refresh_views` (`keep_fresh` in a thread, for `accord serve`) brings the copies the traces
written since, so a run still playing shows live.
"""

from __future__ import annotations

import atexit
import hashlib
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

from accord.core.errors import ConfigError
from accord.store.objects import RunStore, open_store

MAX_FILES = 2_000_000
MAX_TOTAL_BYTES = 200 * 1024**3
SKIP_FOLDERS = ("leases/", "claims/", "attempts/", "live/", "control/token")
"""Folders of a run that only its writers use, and its control token: never copied for
reading."""


class Copy:
    """A local copy of (part of) a run: its folder and what was downloaded (name -> digest)."""

    def __init__(self, store: RunStore, root: Path) -> None:
        self.store = store
        self.root = root
        self.fetched: dict[str, str] = {}
        self.unsafe: list[str] = []
        """Keys of the run that were not copied because they are not safe names."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def download(copy: Copy, folders: Iterable[str] = ("",), *, only: Iterable[str] = ()) -> int:
    """Copy the objects under `folders` (and the single names `only`) into `copy.root`;
    return how many were written. Objects already fetched with the same size are skipped."""
    names: list[str] = []
    for folder in folders:
        copy.unsafe.extend(copy.store.unsafe_names(folder))
        for entry in copy.store.list(folder):
            if not entry.name.startswith(SKIP_FOLDERS):
                names.append(entry.name)
    names.extend(only)
    if len(names) > MAX_FILES:
        raise ConfigError(
            f"{copy.store.location} holds {len(names)} files, more than {MAX_FILES}; "
            "read it in parts (one folder per run)."
        )
    total = written = 0
    for name in dict.fromkeys(names):
        target = copy.root / name
        if name in copy.fetched and target.exists():
            continue
        data = copy.store.read(name)
        if data is None:
            continue
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            raise ConfigError(f"{copy.store.location} is larger than a local copy may be.")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        copy.fetched[name] = _digest(data)
        written += 1
    return written


def upload_new(copy: Copy) -> list[str]:
    """Send to the store every file of the copy that is new or changed since it was
    downloaded; traces only when absent there. Returns the names sent."""
    sent: list[str] = []
    if not copy.root.is_dir():
        return sent
    for path in sorted(copy.root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        name = path.relative_to(copy.root).as_posix()
        if name.startswith(SKIP_FOLDERS) or any(p.startswith(".") for p in name.split("/")):
            continue  # live files, locks, temporary files: this process's own
        data = path.read_bytes()
        if copy.fetched.get(name) == _digest(data):
            continue
        if name.startswith("traces/"):
            if copy.store.create(name, data):
                sent.append(name)
        else:
            copy.store.put(name, data)
            sent.append(name)
        copy.fetched[name] = _digest(data)
    return sent


_open: list[Copy] = []


def scratch_folder(prefix: str) -> Path:
    """A new temporary folder, removed when this process ends."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, root, True)
    return root


def local_view(location: str, *, trace: str | None = None) -> Path:
    """A local copy of the run at `location` (just its trace `trace` and plan when given),
    for a command that reads folders; what the command writes into it is sent back to the
    store when the process ends (`flush_views`)."""
    store = open_store(location)
    copy = Copy(store, scratch_folder("accord-view-"))
    if trace is not None:
        download(copy, (), only=[f"traces/{trace}", "experiment.json"])
        if not (copy.root / "traces" / trace).is_file():
            raise ConfigError(f"{location}/traces/{trace} does not exist; check the name.")
    else:
        download(copy)
        if not (copy.root / "traces").is_dir():
            raise ConfigError(f"{location} holds no run (no traces/ in it); check the location.")
    for name in copy.unsafe[:5]:
        sys.stderr.write(f"skipped: {store.location}/{name[:200]!r} is not a safe name\n")
    if not _open:
        atexit.register(flush_views)
    _open.append(copy)
    return copy.root


def flush_views() -> None:
    """Send back what commands wrote into the local copies of runs (`upload_new`)."""
    while _open:
        copy = _open.pop()
        try:
            upload_new(copy)
        except ConfigError as exc:
            sys.stderr.write(f"error: {exc}\n")


def origin_of(path: Path) -> str | None:
    """The store location of a local copy made by `local_view` (`path` is its folder or
    inside it), or None for any other path."""
    try:
        real = path.resolve()
    except OSError:
        return None
    for copy in _open:
        root = copy.root.resolve()
        if real == root or real == root / "traces":
            return copy.store.location
    return None


def refresh_views() -> int:
    """Copy the traces written into the stored runs since their local copies were made (a
    run still playing), and their summary again; return how many files came."""
    came = 0
    for copy in list(_open):
        try:
            came += download(copy, ("traces",))
            summary = copy.store.read("summary.json")
        except ConfigError:
            continue  # a passing network error: the next refresh tries again
        if summary is not None and copy.fetched.get("summary.json") != _digest(summary):
            (copy.root / "summary.json").write_bytes(summary)
            copy.fetched["summary.json"] = _digest(summary)
            came += 1
    return came


def keep_fresh(every_s: float = 2.0) -> threading.Event | None:
    """While a server shows runs kept in stores, `refresh_views` every `every_s` seconds in a
    daemon thread, so a run still playing shows its new games; None when no run is a copy.
    Set the returned event to stop."""
    if not _open:
        return None
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(every_s):
            refresh_views()

    threading.Thread(target=loop, name="accord-store-refresh", daemon=True).start()
    return stop
