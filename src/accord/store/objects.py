"""`RunStore`: the few operations every reader and writer of a run in an object store needs.

List the names under a folder of the run, read one object's bytes, create an object only if
it is absent (traces, claims, lease generations: never overwritten), put a derived file
(results, summary: rebuilt from the traces, so replacing them loses nothing), delete. Every
name is checked before it reaches the store (`check_name`): relative, ``/``-separated parts
that are safe file names, so a trace id or a listed key like ``../../x`` never becomes a key
outside the run or a path outside a local copy. Every failure of the backend (unreachable
endpoint, missing bucket, refused credentials) is one `StoreError` line naming the location
and what to do.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.core.secrets import scrub_secrets
from accord.store.location import check_location, open_backend

MAX_NAME_LEN = 1024
_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}")


class StoreError(ConfigError):
    """The run's store cannot be reached or refused an operation."""


@dataclass(frozen=True)
class Entry:
    """One object of a run."""

    name: str
    """Its name relative to the run (``traces/x.json``)."""
    size: int
    """Its size in bytes."""
    modified: float = 0.0
    """When it was last written (seconds since the epoch, the store's clock)."""


def is_safe_name(name: str) -> bool:
    """True if `name` is a relative name of safe parts (no ``..``, no leading dot or slash)."""
    if not name or len(name) > MAX_NAME_LEN:
        return False
    return all(_PART.fullmatch(part) for part in name.split("/"))


def check_name(name: str) -> str:
    """`name` if it is safe (`is_safe_name`), else a `ConfigError` naming it."""
    if not is_safe_name(name):
        shown = name if len(name) <= 80 else name[:77] + "..."
        raise ConfigError(
            f"{shown!r} is not a safe name inside a run: use '/'-separated parts of letters, "
            "digits, '_', '.' or '-', none starting with '.'."
        )
    return name


class RunStore:
    """One run's objects in a store (`location`: ``s3://bucket/prefix`` and the rest)."""

    def __init__(self, location: str, backend: Any = None, prefix: str | None = None) -> None:
        self.location = check_location(location)
        if backend is None:
            backend, prefix = open_backend(self.location)
        self._store = backend
        self._prefix = (prefix or "").strip("/")

    def __repr__(self) -> str:
        return f"RunStore({self.location!r})"

    def _key(self, name: str) -> str:
        check_name(name)
        return f"{self._prefix}/{name}" if self._prefix else name

    def _fail(self, what: str, exc: Exception) -> StoreError:
        text = str(exc)
        code = re.search(r"<Code>(\w+)</Code>", text)
        status = re.search(r"status code: (\d{3})", text)
        if code is not None:
            detail = code.group(1) + (f" (HTTP {status.group(1)})" if status else "")
        else:
            first = text.strip().split("\n", 1)[0]
            detail = " ".join(first.split())[:300]
        return StoreError(
            scrub_secrets(
                f"Cannot {what} {self.location}: {detail}; check that "
                "the bucket exists, the endpoint is reachable and the credentials in the "
                "environment may use it."
            )
        )

    def list(self, folder: str = "") -> builtins.list[Entry]:
        """Every object under `folder` (the whole run when empty), names relative to the run,
        sorted. Keys that are not safe names are left out (see `unsafe_names`)."""
        return [e for e in self._list(folder) if is_safe_name(e.name)]

    def unsafe_names(self, folder: str = "") -> builtins.list[str]:
        """Keys under `folder` that are not safe names (never read or copied)."""
        return [e.name for e in self._list(folder) if not is_safe_name(e.name)]

    def _list(self, folder: str) -> builtins.list[Entry]:
        import obstore

        base = self._key(folder.strip("/")) if folder.strip("/") else self._prefix
        cut = len(self._prefix) + 1 if self._prefix else 0
        out: builtins.list[Entry] = []
        try:
            for batch in obstore.list(self._store, prefix=base or None):
                for meta in batch:
                    out.append(_entry(meta, cut))
        except Exception as exc:  # the backend's errors have no common base worth naming
            raise self._fail("list", exc) from exc
        return sorted(out, key=lambda e: e.name)

    def check(self) -> None:
        """Reach the store once (a listing of the run), so an unreachable endpoint, a
        missing bucket or refused credentials stop a command before it does anything."""
        import obstore

        try:
            next(iter(obstore.list(self._store, prefix=self._prefix or None, chunk_size=1)), None)
        except Exception as exc:
            raise self._fail("reach", exc) from exc

    def read(self, name: str) -> bytes | None:
        """The bytes of `name`, or None when there is no such object."""
        import obstore

        key = self._key(name)
        try:
            return bytes(obstore.get(self._store, key).bytes())
        except FileNotFoundError:
            return None
        except Exception as exc:
            raise self._fail(f"read {name} from", exc) from exc

    def head(self, name: str) -> Entry | None:
        """`name`'s size and time, or None when there is no such object."""
        import obstore

        try:
            meta = obstore.head(self._store, self._key(name))
        except FileNotFoundError:
            return None
        except Exception as exc:
            raise self._fail(f"look up {name} in", exc) from exc
        return _entry(meta, len(self._prefix) + 1 if self._prefix else 0)

    def exists(self, name: str) -> bool:
        """Whether `name` exists."""
        return self.head(name) is not None

    def create(self, name: str, data: bytes) -> bool:
        """Write `name` only if it does not exist (atomic on every backend); False when it
        already existed (and was left as it was)."""
        import obstore
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        try:
            obstore.put(self._store, self._key(name), data, mode="create")
        except (AlreadyExistsError, PreconditionError, FileExistsError):
            return False
        except Exception as exc:
            raise self._fail(f"write {name} to", exc) from exc
        return True

    def put(self, name: str, data: bytes | Path | Iterable[bytes]) -> None:
        """Write `name`, replacing it: for derived files only (results, summary, leases, the
        plan). A local file or an iterable of chunks is streamed, never held whole (the
        results of 100,000 games are about 100 MB)."""
        import obstore

        try:
            obstore.put(self._store, self._key(name), data)
        except Exception as exc:
            raise self._fail(f"write {name} to", exc) from exc

    def delete(self, name: str) -> None:
        """Remove `name` (nothing when absent)."""
        import obstore

        try:
            obstore.delete(self._store, self._key(name))
        except FileNotFoundError:
            return
        except Exception as exc:
            raise self._fail(f"delete {name} from", exc) from exc


def _entry(meta: Any, cut: int) -> Entry:
    when = meta.get("last_modified")
    stamp = when.timestamp() if hasattr(when, "timestamp") else 0.0
    return Entry(str(meta["path"])[cut:], int(meta["size"]), stamp)


def open_store(location: str) -> RunStore:
    """The `RunStore` of `location`, reached once (`RunStore.check`)."""
    store = RunStore(location)
    store.check()
    return store


class StoredTraces:
    """The traces of a run in a store, read in place: what the one trace reader needs
    (`accord.traces.reader.TraceSource`), so a reader needs no local copy of the run."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._entries: builtins.list[Entry] | None = None

    @property
    def where(self) -> str:
        """The run's location."""
        return self.store.location

    def _listed(self) -> builtins.list[Entry]:
        if self._entries is None:
            self._entries = self.store.list("traces")
        return self._entries

    def trace_entries(self) -> builtins.list[tuple[str, int]]:
        """``(<id>.json, size)`` of each object right under ``traces/``, by name."""
        out = []
        for entry in self._listed():
            name = entry.name.removeprefix("traces/")
            if "/" not in name and name.endswith(".json"):
                out.append((name, entry.size))
        return out

    def unsafe(self) -> builtins.list[str]:
        """Keys under ``traces/`` that are not safe names (never read)."""
        return self.store.unsafe_names("traces")

    def trace_data(self, name: str) -> bytes | None:
        """The bytes of ``traces/<name>``."""
        return self.store.read(f"traces/{name}")
