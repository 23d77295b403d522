"""Typed DuckDB tables from trace files: the rows of `accord.index.rows`, cast column by column.

`build_tables` is shared by the run index (``games``, ``seats``, ``messages``, kept beside the
traces) and by `accord query`'s ``events`` view, which only a statement that names it builds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from accord.core.errors import ConfigError
from accord.index.rows import Columns, parse
from accord.traces import reader

VIEWS: tuple[str, ...] = ("games", "seats", "events", "messages")
"""Every table a trace gives rows to (`accord query`'s views)."""

_USAGE = ("input_tokens", "output_tokens", "reasoning_tokens", "calls", "attempts")

_CASTS: dict[str, dict[str, str]] = {
    "games": {
        "seed": "TRY_CAST(seed AS HUGEINT)", "repeat": "TRY_CAST(repeat AS INTEGER)",
        "first_speaker": "TRY_CAST(first_speaker AS INTEGER)", "labels": "labels::JSON",
        "config": "config::JSON", "metrics": "metrics::JSON", "num_seats": "num_seats::INTEGER",
        "num_events": "num_events::INTEGER", "num_messages": "num_messages::INTEGER",
        "started_at": "timezone('UTC', TRY_CAST(started_at AS TIMESTAMPTZ))",
        "ended_at": "timezone('UTC', TRY_CAST(ended_at AS TIMESTAMPTZ))",
        **{k: f"{k}::BIGINT" for k in _USAGE},
        "cost_usd": "cost_usd::DOUBLE", "latency_s": "latency_s::DOUBLE",
    },
    "seats": {
        "seat": "seat::INTEGER", "reference": "reference::BOOLEAN", "metrics": "metrics::JSON",
        **{k: f"{k}::BIGINT" for k in _USAGE},
        "cost_usd": "cost_usd::DOUBLE", "latency_s": "latency_s::DOUBLE",
    },
    "events": {
        "idx": "idx::INTEGER", "type": "type::VARCHAR", "t": "t::INTEGER",
        "seat": "seat::INTEGER", "round": "round::INTEGER", "data": "data::JSON",
    },
    "messages": {
        "idx": "idx::INTEGER", "t": "t::INTEGER", "round": "round::INTEGER",
        "turn": "turn::INTEGER", "sender": "sender::INTEGER", "sender_name": "sender_name::VARCHAR",
        "recipients": "recipients::INTEGER[]", "text": "text::VARCHAR",
        "delivered": "delivered::BOOLEAN",
    },
}  # fmt: skip


FILE_COLUMN = "_file"
"""The trace file a ``seats`` or ``messages`` row came from (``games`` has ``file``): kept in
the run index, which replaces a changed file's rows, and left out of every view."""


def quote_name(name: str) -> str:
    """`name` as a quoted SQL identifier (metric names come from traces: untrusted)."""
    return '"' + name.replace('"', '""') + '"'


def _select(
    table: str, cols: Iterable[str], metric_names: Sequence[str], *, keep_file: bool = False
) -> str:
    casts = _CASTS[table]
    parts = []
    for c in cols:
        if c == FILE_COLUMN and table != "games":
            if keep_file:
                parts.append(f"{c}::VARCHAR AS {c}")
            continue
        if c in casts:
            expr = casts[c]
        elif table == "games" and c in metric_names:
            expr = f"{quote_name(c)}::DOUBLE"
        else:
            expr = f"{quote_name(c)}::VARCHAR"
        parts.append(f"{expr} AS {quote_name(c)}")
    return ", ".join(parts)


def read_columns(
    files: Sequence[Path], *, events: bool = True
) -> tuple[Columns, list[tuple[Path, str]]]:
    """The rows of `files`, and each file that is not a readable trace (left out, rows it
    half-added included) with the one line every command that reads a run gives for it
    (`accord.traces.reader.readable_traces`)."""
    cols = Columns(events=events)
    skipped: list[tuple[Path, str]] = []
    for path in files:
        mark = cols.mark()
        try:
            cols.add(parse(path), path.name)
        except ConfigError as exc:
            cols.rollback(mark)
            skipped.append((path, reader.skip_reason(path, exc)))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
            cols.rollback(mark)
            reason = f"Trace {path} is not a readable Accord trace ({type(e).__name__})."
            skipped.append((path, reason))
    return cols, skipped


def create_tables(
    con: duckdb.DuckDBPyConnection,
    cols: Columns,
    schema: str,
    tables: Sequence[str] = VIEWS,
    *,
    keep_file: bool = False,
) -> None:
    """Create `tables` in `schema` from the rows `cols` holds, each column cast to its type
    (with `FILE_COLUMN` when `keep_file`)."""
    for table in tables:
        data: dict[str, list[Any]] = getattr(cols, table)
        arrays = {k: _array(v) for k, v in data.items()}
        name = f"_accord_{table}"
        con.register(name, arrays)
        select = _select(table, data.keys(), cols.metric_names, keep_file=keep_file)
        if table == "games":
            select += (
                ", epoch(timezone('UTC', TRY_CAST(ended_at AS TIMESTAMPTZ)))"
                " - epoch(timezone('UTC', TRY_CAST(started_at AS TIMESTAMPTZ))) AS duration_s"
            )
        con.execute(f'CREATE TABLE {schema}."{table}" AS SELECT {select} FROM {name}')
        con.unregister(name)


def build_tables(
    con: duckdb.DuckDBPyConnection,
    files: Sequence[Path],
    schema: str,
    tables: Sequence[str] = VIEWS,
) -> list[str]:
    """Parse `files` and create `tables` in `schema` (an attached database); return one line
    per file left out (`read_columns`)."""
    cols, skipped = read_columns(files, events="events" in tables)
    create_tables(con, cols, schema, tables)
    return [reason for _, reason in skipped]


def _array(values: list[Any]) -> np.ndarray[Any, np.dtype[Any]]:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr
