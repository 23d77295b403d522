"""A run directory as flat records: one per game, one per seat, one per event (`accord.load`).

Three tables, each a list of dicts with the same keys in every row of a table, so they become
data frames as they are:

- ``games``: trace id, game id, status and error, experiment, batch, repeat, pairing, seed,
  start and end times, the game's tokens, calls and cost, then every scalar metric of the
  game under its own name (lists and mappings stay in the trace);
- ``seats``: the ``results.jsonl`` row of every seat (agent, model, the game's per-seat
  results, tokens, calls and cost);
- ``events``: trace id, position in the trace, type, step ``t``, seat (when the event names
  one) and the rest of the event as JSON text.

A file that is not a readable trace is passed over and named in ``skipped``, as every command
that reads a run does (`accord.traces.reader.readable_traces`).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from accord.core.errors import ConfigError
from accord.traces.reader import (
    TraceSource,
    readable_traces,
    run_traces_folder,
    source_traces,
    trace_files,
)
from accord.traces.schema import Trace

Table = Literal["games", "seats", "events"]

_GAME_KEYS = (
    "trace_id",
    "game_id",
    "status",
    "error",
    "experiment",
    "batch",
    "repeat",
    "pairing",
    "seed",
    "started_at",
    "ended_at",
    "input_tokens",
    "output_tokens",
    "calls",
    "cost_usd",
)
_EXTRA = "frames"
"""The optional dependency group that installs pandas and polars."""


@dataclass
class RunData:
    """The games, seats and events of one run directory."""

    path: Path | str
    """The run directory, or the location of a run in a store (``s3://bucket/run``)."""
    games: list[dict[str, Any]] = field(default_factory=list)
    seats: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """One line per file passed over (not a readable trace), naming it and why."""

    def table(self, name: Table = "games") -> list[dict[str, Any]]:
        """The records of one table: ``games``, ``seats`` or ``events``."""
        if name not in ("games", "seats", "events"):
            raise ConfigError(f"no table {name!r}; choose games, seats or events")
        rows: list[dict[str, Any]] = getattr(self, name)
        return rows

    def to_pandas(self, name: Table = "games") -> Any:
        """One table as a ``pandas.DataFrame`` (needs pandas: ``pip install 'accord[frames]'``;
        typed `Any` so Accord needs no pandas stubs)."""
        pd = _library("pandas")
        return pd.DataFrame.from_records(self.table(name), columns=_columns(self.table(name)))

    def to_polars(self, name: Table = "games") -> Any:
        """One table as a ``polars.DataFrame`` (needs polars: ``pip install 'accord[frames]'``)."""
        pl = _library("polars")
        return pl.DataFrame(self.table(name), infer_schema_length=None)


def _library(package: str) -> Any:
    """The data-frame library `package`, or an ImportError saying how to install it."""
    try:
        return importlib.import_module(package)
    except ImportError as exc:
        raise ImportError(
            f"{package} is not installed: pip install '{package}' (or the extra: pip install "
            f"'accord[{_EXTRA}]'), or use the records (lists of dicts) as they are"
        ) from exc


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    """Every key of `rows`, in first-seen order (rows of one game may lack a later metric)."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def load_run(path: Path | TraceSource) -> RunData:
    """`RunData` of the run directory `path` (or of a folder of traces), or of the traces of
    a `TraceSource` (a run in an object store, read in place)."""
    if not isinstance(path, Path):
        return _load_source(path)
    traces = run_traces_folder(path) if path.is_dir() else path
    if not traces.is_dir() or not (traces == path / "traces" or trace_files(traces)):
        raise ConfigError(
            f"{path} is not a run directory (no traces/ inside); give a directory accord run "
            "wrote, e.g. runs/demo"
        )
    from accord.runner.results import seat_rows

    data = RunData(path=path)
    for trace in readable_traces(traces, data.skipped):
        data.games.append(game_record(trace))
        data.seats.extend(seat_rows(trace))
        data.events.extend(event_records(trace))
    return data


def _load_source(source: TraceSource) -> RunData:
    from accord.runner.results import seat_rows

    data = RunData(path=source.where)
    for trace in source_traces(source, data.skipped):
        data.games.append(game_record(trace))
        data.seats.extend(seat_rows(trace))
        data.events.extend(event_records(trace))
    return data


def game_record(trace: Trace) -> dict[str, Any]:
    """The ``games`` row of one trace."""
    total = trace.usage.get("total")
    row: dict[str, Any] = {
        "trace_id": trace.trace_id,
        "game_id": trace.game_id,
        "status": trace.status,
        "error": trace.error,
        **{k: trace.run.get(k) for k in ("experiment", "batch", "repeat", "pairing")},
        "seed": trace.seed,
        "started_at": trace.started_at,
        "ended_at": trace.ended_at,
        "input_tokens": total.input_tokens if total else 0,
        "output_tokens": total.output_tokens if total else 0,
        "calls": total.calls if total else 0,
        "cost_usd": total.cost_usd if total else 0.0,
    }
    for key, value in trace.metrics.items():
        if key not in _GAME_KEYS and (value is None or isinstance(value, bool | int | float | str)):
            row[key] = value
    return row


def event_records(trace: Trace) -> list[dict[str, Any]]:
    """The ``events`` rows of one trace, in trace order."""
    rows = []
    for i, event in enumerate(trace.events):
        raw = event if isinstance(event, dict) else _dump(event)
        rest = {k: v for k, v in raw.items() if k not in ("type", "t", "seat")}
        rows.append(
            {
                "trace_id": trace.trace_id,
                "index": i,
                "type": raw.get("type"),
                "t": raw.get("t"),
                "seat": raw.get("seat"),
                "data": json.dumps(rest, sort_keys=True, default=str),
            }
        )
    return rows


def _dump(event: object) -> dict[str, Any]:
    """A typed event (a pydantic model) as its JSON mapping."""
    dump = getattr(event, "model_dump", None)
    out = dump(mode="json") if callable(dump) else {}
    return out if isinstance(out, dict) else {}
