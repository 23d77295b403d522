"""Reading and atomically writing traces and other JSON outputs.

Writes go to a temporary file in the same directory, are flushed to disk, then renamed over
the target, so a killed run never leaves a half-written trace: a file either holds a whole
trace or does not exist.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from accord.core.errors import ConfigError
from accord.traces.schema import READABLE_VERSIONS, Trace


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (temp file + fsync + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_json(path: Path, obj: Any) -> None:
    """Write a JSON document atomically."""
    atomic_write_text(path, json.dumps(obj, indent=1, ensure_ascii=False, sort_keys=False) + "\n")


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write rows as JSON Lines atomically."""
    atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def write_trace(directory: Path, trace: Trace) -> Path:
    """Write `trace` as ``directory/<trace_id>.json`` atomically; return the path."""
    path = directory / f"{trace.trace_id}.json"
    atomic_write_text(path, trace.model_dump_json(indent=1) + "\n")
    return path


def read_trace(path: Path) -> Trace:
    """Load and validate one trace file, with an error that names the file and field."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"Cannot read trace {path}: {exc}") from exc
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version not in READABLE_VERSIONS:
        raise ConfigError(
            f"Trace {path} has schema_version {version!r}; this Accord reads versions "
            f"{READABLE_VERSIONS}. Re-run the game or use the Accord version that wrote it."
        )
    try:
        return Trace.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"Trace {path} is not a valid Accord trace:\n{exc}") from exc


def iter_traces(directory: Path) -> Iterator[Trace]:
    """Every trace in a run's ``traces/`` directory, in file-name order."""
    for path in sorted(directory.glob("*.json")):
        yield read_trace(path)
