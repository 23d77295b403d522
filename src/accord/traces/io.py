"""Reading and atomically writing traces and other JSON outputs.

Writes go to a temporary file in the same directory, are flushed to disk, then renamed over
the target, so a killed run never leaves a half-written trace: a file either holds a whole
trace or does not exist. Everything written passes through `scrub_secrets` (DESIGN "Trace
file": no key in any file, in any encoding), and a file that cannot be written is one clear
`ConfigError`, not a traceback.

Trace ids name files, so they are checked against `accord.core.ids.SAFE_ID` both when a trace
is read and when one is written: a hand-edited ``trace_id: ../../x`` cannot send a replay or a
fork outside its output directory. Reading lives in `accord.traces.reader` (the one reader of
every command), whose names are also importable from here.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from accord.core.errors import ConfigError
from accord.core.ids import check_id
from accord.core.secrets import scrub_secrets
from accord.traces.reader import (
    TraceList,
    check_inside,
    complete_traces,
    iter_traces,
    read_trace,
    readable_traces,
    skip_reason,
    skipped_note,
)
from accord.traces.schema import Trace

__all__ = [
    "TraceList",
    "atomic_write_json",
    "atomic_write_text",
    "atomic_writer",
    "check_inside",
    "complete_traces",
    "iter_traces",
    "read_trace",
    "readable_traces",
    "skip_reason",
    "skipped_note",
    "write_jsonl",
    "write_trace",
]


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
