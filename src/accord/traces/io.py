"""Reading and atomically writing traces and other JSON outputs.

Writes go to a temporary file in the same directory, are flushed to disk, then renamed over
the target, so a killed run never leaves a half-written trace: a file either holds a whole
trace or does not exist. Everything written passes through `scrub_secrets` (DESIGN "Trace
file": no key in any file, in any encoding), and a file that cannot be written is one clear
`ConfigError`, not a traceback.

Trace ids name files, so they are checked against `accord.core.ids.SAFE_ID` both when a trace
is read and when one is written: a hand-edited ``trace_id: ../../x`` cannot send a replay or a
fork outside its output directory. Reading never trusts the file (`accord.core.inputs`): size
cap, UTF-8, nesting depth, integer length, and pydantic validation, each reported in one line
naming the file and the field.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from accord.core.errors import ConfigError
from accord.core.ids import check_id
from accord.core.inputs import MAX_TRACE_BYTES, load_json, read_text
from accord.core.secrets import scrub_secrets
from accord.traces.schema import READABLE_VERSIONS, Trace


@contextmanager
def atomic_writer(path: Path) -> Iterator[IO[str]]:
    """A text file handle whose content replaces `path` atomically when the block ends.

    What is written is not scrubbed here: write through `scrub_secrets` (as
    `atomic_write_text` and `write_jsonl` do).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _write_error(path, exc) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _write_error(path, exc) from exc
        raise


def _write_error(path: Path, exc: OSError) -> ConfigError:
    where = path.parent
    if where.exists() and not where.is_dir():
        return ConfigError(
            f"Cannot write {path}: {where} is a file, not a directory; choose a directory."
        )
    return ConfigError(
        f"Cannot write {path}: {exc.strerror or exc}; choose a directory you can write to."
    )


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` (secrets scrubbed) to `path` atomically (temp file + fsync + rename)."""
    with atomic_writer(path) as fh:
        fh.write(scrub_secrets(text))


def atomic_write_json(path: Path, obj: Any) -> None:
    """Write a JSON document atomically."""
    atomic_write_text(path, json.dumps(obj, indent=1, ensure_ascii=False, sort_keys=False) + "\n")


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    """Write rows as JSON Lines atomically, one at a time (rows may be a generator).

    Returns the number of rows written.
    """
    n = 0
    with atomic_writer(path) as fh:
        for row in rows:
            fh.write(scrub_secrets(json.dumps(row, ensure_ascii=False)) + "\n")
            n += 1
    return n


def write_trace(directory: Path, trace: Trace) -> Path:
    """Write `trace` as ``directory/<trace_id>.json`` atomically; return the path."""
    path = directory / f"{check_id(trace.trace_id)}.json"
    atomic_write_text(path, trace.model_dump_json(indent=1) + "\n")
    return path


def read_trace(path: Path) -> Trace:
    """Load and validate one trace file, with a one-line error naming the file and field."""
    data = load_json(
        read_text(path, what="trace", max_bytes=MAX_TRACE_BYTES), source=f"Trace {path}"
    )
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version not in READABLE_VERSIONS:
        raise ConfigError(
            f"Trace {path} has schema_version {version!r}; this Accord reads versions "
            f"{READABLE_VERSIONS}. Re-run the game or use the Accord version that wrote it."
        )
    try:
        trace = Trace.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"Trace {path} is not a valid Accord trace: {_first(exc)}") from exc
    except RecursionError as exc:
        raise ConfigError(f"Trace {path} nests too deeply to read.") from exc
    try:
        check_id(trace.trace_id)
        # The game id names report folders (``report/<game_id>/``): data, never a path.
        check_id(trace.game_id, what="game id")
    except ConfigError as exc:
        raise ConfigError(f"Trace {path}: {exc}") from exc
    return trace


def _first(exc: ValidationError) -> str:
    """The first problem of a validation error, as 'field: message (and N more)'."""
    errors = exc.errors()
    err = errors[0]
    loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"field {loc}: {err['msg']}{more}; fix the field or re-run the game."


def iter_traces(directory: Path) -> Iterator[Trace]:
    """Every trace in a run's ``traces/`` directory, in file-name order."""
    for path in sorted(directory.glob("*.json")):
        yield read_trace(path)


class TraceList(list[Trace]):
    """Traces read from run directories, and the files passed over (`skipped`): one error
    line each, naming the file and what is wrong with it."""

    def __init__(self, traces: Iterable[Trace] = (), skipped: Iterable[str] = ()) -> None:
        super().__init__(traces)
        self.skipped: list[str] = list(skipped)


def readable_traces(directory: Path, skipped: list[str]) -> Iterator[Trace]:
    """Every readable trace in `directory`, in file-name order; each file that is not one is
    passed over and its one-line reason appended to `skipped`.

    The one rule for every command that reads a run (report, query, leaderboard, value,
    export, judge, cost, resume): a damaged file is listed, never fatal, so one bad trace
    cannot hide the rest of a run.
    """
    for path in sorted(directory.glob("*.json")):
        try:
            check_inside(path)
            trace = read_trace(path)
        except ConfigError as exc:
            skipped.append(skip_reason(path, exc))
            continue
        yield trace


def check_inside(path: Path) -> None:
    """Refuse a file of a run's ``traces/`` folder that is a link to somewhere outside it: a
    run directory someone else prepared must not make Accord read (and then show, query or
    export) a file of theirs elsewhere."""
    if path.is_symlink() and not path.resolve().is_relative_to(path.parent.resolve()):
        raise ConfigError(
            f"Trace {path} is a link to a file outside its folder; copy the trace into the "
            "folder instead."
        )


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
    for path in sorted(directory.glob("*.json")):
        try:
            check_inside(path)
            trace = read_trace(path)
        except ConfigError:
            continue
        if trace.status == "complete":
            yield trace
