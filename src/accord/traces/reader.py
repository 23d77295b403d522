"""The one trace reader: every command that reads a run reads it here.

Three layers, each one place:

- **files**: `run_traces_folder` finds a run's ``traces/`` folder (refusing one that is a
  link: it would make a run show another run's games), `trace_files` lists its trace files,
  and `trace_bytes` reads one file's bytes, refusing it by size before reading; a run kept
  in an object store is read in place through a `TraceSource` (`source_traces`), the same
  two operations over the store's objects, with no local copy;
- **parse**: `parse_trace` turns bytes into the trace's JSON object within the bounds of
  `accord.core.jsonbounds` (nesting, string length, finite numbers, checked natively), then
  checks its schema version and upgrades older versions (`accord.traces.upgrade`);
- **validate**: `read_trace` validates the whole trace (typed events included) and checks
  that its ids are safe to name files; `read_header` reads what tables need (ids, config,
  seats, status, metrics, usage) without the events and transcripts: about five times
  faster than a full read on traces of a few hundred KB with transcripts, tens of times on
  large ones (the events and transcripts are cut out by their keys, never parsed).

`readable_traces` is the rule every command follows over a whole run: a file that is not a
readable trace is passed over and listed with its one-line reason, never fatal.
"""

from __future__ import annotations

import errno
import gc
import mmap
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from accord.core.errors import ConfigError
from accord.core.ids import check_id
from accord.core.inputs import MAX_TRACE_BYTES, size_limit
from accord.core.jsonbounds import loads_bounded
from accord.traces.schema import READABLE_VERSIONS, Trace
from accord.traces.upgrade import upgrade

PathLike = str | os.PathLike[str]
"""A trace's path as a caller may give it."""


# -- files ---------------------------------------------------------------------------------


def run_traces_folder(directory: PathLike) -> Path:
    """The folder holding a run's traces: ``DIR/traces``, or `directory` itself when it is a
    folder of traces. A ``traces`` folder that is a link is refused: it would show another
    run's games as this run's."""
    d = Path(directory)
    inner = d / "traces"
    if inner.is_symlink():
        raise ConfigError(
            f"{inner} is a link to another folder ({os.readlink(inner)}); give that run's "
            "directory instead, or copy its traces here."
        )
    if inner.is_dir():
        return inner
    if not d.is_dir():
        raise ConfigError(f"{d} is not a run directory (no traces/ folder). Check the path.")
    return d


def trace_files(folder: Path) -> list[Path]:
    """The trace files (``*.json``, regular files or links) of a traces folder, by name."""
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json"))
    except OSError as exc:
        raise ConfigError(f"Cannot list {folder}: {exc.strerror or exc}.") from exc
    return [folder / n for n in names]


def trace_bytes(path: Path) -> bytes:
    """The bytes of one trace file, refused by size before they are read, and refused when
    the file is a link out of its folder."""
    limit = size_limit(MAX_TRACE_BYTES)
    try:
        if not _NOFOLLOW:
            check_inside(path)
        try:  # one system call fewer than asking first whether it is a link
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            check_inside(path)  # a link: read only one that stays inside the folder
            fd = os.open(path, os.O_RDONLY)
        with open(fd, "rb") as fh:
            size = os.fstat(fd).st_size
            if size > limit:
                raise ConfigError(
                    f"trace {path} is {size / 1e6:.1f} MB, over the {limit / 1e6:.0f} MB "
                    "limit; check that it is the right file (set ACCORD_MAX_INPUT_MB to allow "
                    "more)."
                )
            return fh.read()
    except OSError as exc:
        raise ConfigError(f"Cannot read trace {path}: {exc.strerror or exc}.") from exc


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""Where the system has it, opening a link fails (ELOOP) instead of following it."""


def check_inside(path: Path) -> None:
    """Refuse a file of a run's ``traces/`` folder that is a link to somewhere outside it: a
    run directory someone else prepared must not make Accord read (and then show, query or
    export) a file of theirs elsewhere."""
    if path.is_symlink() and not path.resolve().is_relative_to(path.parent.resolve()):
        raise ConfigError(
            f"Trace {path} is a link to a file outside its folder; copy the trace into the "
            "folder instead."
        )


class TraceSource(Protocol):
    """A run's traces somewhere other than a local folder (a run kept in an object store:
    `accord.store.StoredTraces`): list them with their sizes, read one."""

    @property
    def where(self) -> str:
        """The run's location, to name its traces in messages (``s3://bucket/run``)."""
        ...

    def trace_entries(self) -> list[tuple[str, int]]:
        """The trace files (``<id>.json``) of the run's ``traces/`` and their sizes, by name;
        names that are not safe are left out and listed by `unsafe`."""
        ...

    def unsafe(self) -> list[str]:
        """Names under ``traces/`` that are never read (not safe names)."""
        ...

    def trace_data(self, name: str) -> bytes | None:
        """The bytes of one trace file (None when it has gone since it was listed)."""
        ...


def source_trace_bytes(source: TraceSource, name: str, size: int) -> bytes:
    """The bytes of trace `name` of `source`, refused by its listed size before it is read."""
    limit = size_limit(MAX_TRACE_BYTES)
    label = f"{source.where}/traces/{name}"
    if size > limit:
        raise ConfigError(
            f"trace {label} is {size / 1e6:.1f} MB, over the {limit / 1e6:.0f} MB limit; "
            "check that it is the right file (set ACCORD_MAX_INPUT_MB to allow more)."
        )
    data = source.trace_data(name)
    if data is None:
        raise ConfigError(f"Trace {label} is gone (deleted while it was being read).")
    if len(data) > limit:  # written again, larger, since it was listed
        raise ConfigError(f"trace {label} is over the {limit / 1e6:.0f} MB limit.")
    return data


def source_traces(source: TraceSource, skipped: list[str]) -> Iterator[Trace]:
    """Every readable trace of `source`, by name, parsed and validated as `read_trace` does;
    each object that is not one (or has an unsafe name) is passed over and its one-line
    reason appended to `skipped` (`readable_traces`' rule)."""
    for name in source.unsafe():
        skipped.append(f"Trace {source.where}/{name[:200]!r}: not a safe name; never read.")
    for name, size in source.trace_entries():
        label = f"{source.where}/traces/{name}"
        try:
            data = source_trace_bytes(source, name, size)
            with _collector_paused():
                trace = validate_trace(parse_trace(data, label), label)
        except ConfigError as exc:
            skipped.append(" ".join(f"{exc}".split()) if label in str(exc) else
                           f"Trace {label}: {' '.join(str(exc).split())}")  # fmt: skip
            continue
        yield trace


# -- parse ---------------------------------------------------------------------------------


def parse_trace(data: bytes, source: Path | str) -> dict[str, Any]:
    """The JSON object of a trace file's bytes, bounded and upgraded to the current schema."""
    obj = loads_bounded(data, source=f"Trace {source}")
    version = obj.get("schema_version") if isinstance(obj, dict) else None
    if version not in READABLE_VERSIONS:
        raise ConfigError(
            f"Trace {source} has schema_version {version!r}; this Accord reads versions "
            f"{READABLE_VERSIONS}. Re-run the game or use the Accord version that wrote it."
        )
    upgraded: dict[str, Any] = upgrade(obj)
    return upgraded


# -- validate ------------------------------------------------------------------------------


def validate_trace(data: dict[str, Any], source: Path | str) -> Trace:
    """`data` (from `parse_trace`) as a `Trace`, its ids checked; one line on failure."""
    try:
        trace = Trace.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"Trace {source} is not a valid Accord trace: {_first(exc)}") from exc
    _check_ids(trace.trace_id, trace.game_id, source)
    return trace


def _check_ids(trace_id: str, game_id: str, source: Path | str) -> None:
    try:
        check_id(trace_id)
        # The game id names report folders (``report/<game_id>/``): data, never a path.
        check_id(game_id, what="game id")
    except ConfigError as exc:
        raise ConfigError(f"Trace {source}: {exc}") from exc


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a trace is built: a trace is hundreds of
    thousands of new objects and no cycles, and the collections they would trigger (each
    walking every live object) were half the time of reading a 30 MB trace."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def read_trace(path: PathLike) -> Trace:
    """Load and validate one trace file, with a one-line error naming the file and field."""
    p = Path(path)
    data = trace_bytes(p)
    with _collector_paused():
        return validate_trace(parse_trace(data, p), p)


def read_trace_data(path: PathLike) -> tuple[dict[str, Any], Trace]:
    """A trace file's JSON object (upgraded) and its validated `Trace`: for readers that
    build tables from the object as written (`accord query`), checked like every other."""
    p = Path(path)
    raw = trace_bytes(p)
    with _collector_paused():
        data = parse_trace(raw, p)
        return data, validate_trace(data, p)


def _first(exc: ValidationError) -> str:
    """The first problem of a validation error, as 'field: message (and N more)'."""
    errors = exc.errors()
    err = errors[0]
    loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"field {loc}: {err['msg']}{more}; fix the field or re-run the game."


# -- header --------------------------------------------------------------------------------

_BULK = ("events", "transcripts")
"""The fields a header read leaves out: nearly all of a trace's bytes."""
_BULK_KEYS = tuple(k.encode() for k in _BULK)

TraceHeader: type[BaseModel] = create_model(
    "TraceHeader",
    __config__=ConfigDict(extra="forbid"),
    __doc__="A trace without its events and transcripts (`read_header`): the same fields, "
    "types and checks as `accord.traces.schema.Trace` otherwise.",
    **{
        name: (field.annotation, field)
        for name, field in Trace.model_fields.items()
        if name not in _BULK
    },  # type: ignore[call-overload]
)


_MAP_FROM = 1 << 20
"""A header read maps a file this large instead of reading it: only the pages the searches
touch are read, and nothing of its size is copied into memory."""


def header_bytes(data: bytes | mmap.mmap) -> bytes | None:
    """The JSON text of a trace without its events and transcripts, cut out of `data` as
    Accord writes traces (one top-level field per line, at an indent of one space); None for
    text laid out otherwise. No raw newline can occur inside a JSON string, so a newline and
    exactly one space start a top-level key (``\\n "events": ``) or close a top-level value
    (``\\n ]``, ``\\n }``): each bulky value is found by its key and cut out up to its
    closing line, never copied or parsed. A bulky field Accord's layout does not show (an
    empty list, another order) is simply left in and parsed."""
    if data[:4] != b'{\n "':
        return None
    parts: list[bytes] = []
    at = 0
    for key in _BULK_KEYS:
        start = data.find(b'\n "' + key + b'": ', at)
        if start == -1:
            continue
        value = start + len(key) + 6
        opener = data[value : value + 2]
        if opener not in (b"[\n", b"{\n"):
            continue
        close = data.find(b"\n ]" if opener == b"[\n" else b"\n }", value)
        if close == -1:
            return None
        end = close + 3
        if data[end : end + 1] == b",":
            end += 1  # the comma after the value goes with it
        elif data[start - 1 : start] == b",":
            start -= 1  # the last field: the comma before it goes
        parts.append(data[at:start])
        at = end
    if not parts:
        return None
    parts.append(data[at:])
    return b"".join(parts)


def read_header(path: PathLike) -> BaseModel:
    """The header of one trace (`TraceHeader`: everything but events and transcripts),
    bounded and validated like a full read of those fields."""
    p = Path(path)
    with _trace_view(p) as data:
        cut = header_bytes(data)
        obj = parse_trace(cut if cut is not None else bytes(data), p)
    for name in _BULK:
        obj.pop(name, None)
    try:
        header = TraceHeader.model_validate(obj)
    except ValidationError as exc:
        raise ConfigError(f"Trace {p} is not a valid Accord trace: {_first(exc)}") from exc
    _check_ids(header.trace_id, header.game_id, p)  # type: ignore[attr-defined]
    return header


@contextmanager
def _trace_view(path: Path) -> Iterator[bytes | mmap.mmap]:
    """A trace file's bytes as `trace_bytes` reads them (same checks), mapped rather than
    read when the file is large."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    if size < _MAP_FROM or size > size_limit(MAX_TRACE_BYTES):
        yield trace_bytes(path)  # a file over the limit is refused there, with its message
        return
    try:
        check_inside(path)
        fh = path.open("rb")
    except OSError as exc:
        raise ConfigError(f"Cannot read trace {path}: {exc.strerror or exc}.") from exc
    with fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
        yield view


# -- a whole run ---------------------------------------------------------------------------


class TraceList(list[Trace]):
    """Traces read from run directories, and the files passed over (`skipped`): one error
    line each, naming the file and what is wrong with it."""

    def __init__(self, traces: Iterable[Trace] = (), skipped: Iterable[str] = ()) -> None:
        super().__init__(traces)
        self.skipped: list[str] = list(skipped)


def iter_traces(directory: Path) -> Iterator[Trace]:
    """Every trace in a run's ``traces/`` directory, in file-name order (the first file that
    is not a readable trace raises)."""
    for path in trace_files(directory):
        yield read_trace(path)


def readable_traces(directory: Path, skipped: list[str]) -> Iterator[Trace]:
    """Every readable trace in `directory`, in file-name order; each file that is not one is
    passed over and its one-line reason appended to `skipped`.

    The one rule for every command that reads a run (report, query, leaderboard, value,
    export, judge, cost, resume): a damaged file is listed, never fatal, so one bad trace
    cannot hide the rest of a run.
    """
    for path in trace_files(directory):
        try:
            trace = read_trace(path)
        except ConfigError as exc:
            skipped.append(skip_reason(path, exc))
            continue
        yield trace


def run_traces(dirs: Iterable[PathLike]) -> TraceList:
    """Every readable trace of the given run directories (or traces folders), the others
    listed in the result's ``skipped``."""
    traces = TraceList()
    for d in dirs:
        traces += readable_traces(run_traces_folder(d), traces.skipped)
    return traces


def skip_reason(path: Path, exc: ConfigError) -> str:
    """One line saying why the file at `path` was passed over, naming it."""
    text = " ".join(str(exc).split())
    return text if str(path) in text else f"Trace {path}: {text}"


def skipped_note(skipped: Iterable[str]) -> list[str]:
    """The lines a command prints for the files it passed over (``skipped: ...``)."""
    return [f"skipped: {line}" for line in skipped]


def complete_traces(directory: Path) -> Iterator[Trace]:
    """The complete traces in `directory`, in file-name order; unreadable files and failed
    games are passed over (what estimates from earlier runs may learn from)."""
    for path in trace_files(directory):
        try:
            trace = read_trace(path)
        except ConfigError:
            continue
        if trace.status == "complete":
            yield trace
