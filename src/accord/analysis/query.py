"""`accord query`: read-only SQL (DuckDB) over the traces of one or more run directories.

Four views, one row per:

- ``games``: trace (ids, game, seed, status, run labels, config, every numeric metric of the
  game as a typed column plus all metrics as JSON, usage totals, times);
- ``seats``: seat of a game (agent, model, usage, the seat's ``results.jsonl`` row as JSON);
- ``events``: trace event (type, step ``t``, seat, round and the whole event as JSON);
- ``messages``: communication act of any game, as its `GameInfo.messages` extractor reads its
  events (``message`` events with a text field for a game that declares none).

Every view carries ``run_dir`` (the directory as given) and ``trace_id``; join on both, since
trace ids are only unique inside one run. `docs/analysis.md` lists every column.

Speed: traces are parsed once in Python and handed to DuckDB as NumPy object columns, several
times faster than DuckDB's own JSON reader on these nested documents (its JSON type re-parses a
document per extraction). Each run directory's tables are cached in a DuckDB file (see
`cache_dir`), checked against every trace's name, size and mtime, and reopened read-only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from accord.analysis import query_rows
from accord.analysis.query_rows import Columns, parse, register_messages
from accord.analysis.sandbox import TZ_TYPE, check_read_only, lock_down, without_time_zones
from accord.core.errors import ConfigError
from accord.traces import reader

__all__ = [
    "VIEWS",
    "build_tables",
    "cache_dir",
    "check_read_only",
    "connect",
    "export_parquet",
    "register_messages",
    "run_query",
    "trace_files",
]

CACHE_VERSION = 3
"""Bumped whenever the cached tables change shape or content; older caches are rebuilt
(2: traces of older schema versions are upgraded as they are read; 3: traces are read by
the one reader of every command, so the files left out are the same as theirs)."""

VIEWS: tuple[str, ...] = ("games", "seats", "events", "messages")

_USAGE = ("input_tokens", "output_tokens", "reasoning_tokens", "calls", "attempts")

# -- building tables -----------------------------------------------------------------------

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


def _select(table: str, cols: Iterable[str], metric_names: Sequence[str]) -> str:
    casts = _CASTS[table]
    parts = []
    for c in cols:
        if c in casts:
            expr = casts[c]
        elif table == "games" and c in metric_names:
            expr = f'"{c}"::DOUBLE'
        else:
            expr = f'"{c}"::VARCHAR'
        parts.append(f'{expr} AS "{c}"')
    return ", ".join(parts)


def trace_files(directory: Path) -> list[Path]:
    """The trace files of a run directory (``DIR/traces/*.json``) or of a traces folder, as
    every command lists them (`accord.traces.reader`)."""
    return reader.trace_files(reader.run_traces_folder(directory))


def build_tables(con: duckdb.DuckDBPyConnection, files: Sequence[Path], schema: str) -> list[str]:
    """Parse `files` and create the four tables in `schema` (an attached database).

    A file that is not a readable trace is left out (rows it half-added included) and its
    one-line reason returned, as every command that reads a run does
    (`accord.traces.io.readable_traces`).
    """
    cols = Columns()
    skipped: list[str] = []
    for path in files:
        _add(cols, skipped, path.name, str(path), functools.partial(parse, path))
    return _create(con, cols, schema, skipped)


def build_source_tables(
    con: duckdb.DuckDBPyConnection, source: reader.TraceSource, schema: str
) -> list[str]:
    """`build_tables` over the traces of a `TraceSource` (a run in an object store), read in
    place one at a time through the one reader, each refused by size before it is read."""
    cols = Columns()
    skipped = [f"Trace {source.where}/{n[:200]!r}: not a safe name; never read." for n in
               source.unsafe()]  # fmt: skip
    for name, size in source.trace_entries():
        label = f"{source.where}/traces/{name}"

        def load(name: str = name, size: int = size, label: str = label) -> dict[str, Any]:
            data = reader.parse_trace(reader.source_trace_bytes(source, name, size), label)
            reader.validate_trace(data, label)
            return data

        _add(cols, skipped, name, label, load)
    return _create(con, cols, schema, skipped)


def _add(
    cols: Columns, skipped: list[str], name: str, label: str, load: Callable[[], dict[str, Any]]
) -> None:
    """Add one trace's rows, or leave it out (and whatever it half-added) with its reason."""
    mark = cols.mark()
    try:
        cols.add(load(), name)
    except ConfigError as exc:
        cols.rollback(mark)
        text = " ".join(str(exc).split())
        skipped.append(text if label in text else f"Trace {label}: {text}")
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
        cols.rollback(mark)
        skipped.append(f"Trace {label} is not a readable Accord trace ({type(e).__name__}).")


def _create(
    con: duckdb.DuckDBPyConnection, cols: Columns, schema: str, skipped: list[str]
) -> list[str]:
    for table, data in (
        ("games", cols.games),
        ("seats", cols.seats),
        ("events", cols.events),
        ("messages", cols.messages),
    ):
        arrays = {k: _array(v) for k, v in data.items()}
        name = f"_accord_{table}"
        con.register(name, arrays)
        select = _select(table, data.keys(), cols.metric_names)
        if table == "games":
            select += (
                ", epoch(timezone('UTC', TRY_CAST(ended_at AS TIMESTAMPTZ)))"
                " - epoch(timezone('UTC', TRY_CAST(started_at AS TIMESTAMPTZ))) AS duration_s"
            )
        con.execute(f'CREATE TABLE {schema}."{table}" AS SELECT {select} FROM {name}')
        con.unregister(name)
    return skipped


def _array(values: list[Any]) -> np.ndarray[Any, np.dtype[Any]]:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _signature(files: Sequence[Path]) -> str:
    """What the cache must match: format, metric columns, and every trace's name/size/mtime."""
    h = hashlib.sha256(str(CACHE_VERSION).encode())
    for module in (__file__, query_rows.__file__, reader.__file__):  # each shapes the tables
        h.update(Path(module).read_bytes())
    for p in files:
        st = p.stat()
        h.update(f"\n{p.name}\t{st.st_size}\t{st.st_mtime_ns}".encode())
    return h.hexdigest()


def cache_dir() -> Path:
    """Where query caches live: ``$ACCORD_CACHE_DIR``, else the XDG cache folder."""
    root = os.environ.get("ACCORD_CACHE_DIR")
    if root:
        return Path(root) / "query"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "accord" / "query"


def _cached(directory: Path, files: Sequence[Path], skipped: list[str]) -> Path | None:
    """The path of an up-to-date cache for `directory`, building it if needed; None if the
    cache folder cannot be written (then the caller builds in memory). The files the tables
    leave out are appended to `skipped`."""
    key = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:20]
    path = cache_dir() / f"{key}.duckdb"
    sig = _signature(files)
    if path.exists():
        try:
            with duckdb.connect(str(path), read_only=True) as con:
                row = con.execute("SELECT signature, skipped FROM _accord_meta").fetchone()
            if row is not None and row[0] == sig:
                skipped += json.loads(row[1])
                return path
        except (duckdb.Error, ValueError, TypeError):
            pass  # a damaged or foreign file: rebuild it
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
    except OSError:
        return None
    try:
        with duckdb.connect(str(tmp)) as con:
            left_out = build_tables(con, files, "main")
            con.execute(
                "CREATE TABLE _accord_meta AS SELECT ? AS signature, ? AS skipped",
                [sig, json.dumps(left_out)],
            )
        os.replace(tmp, path)  # whole cache or none: concurrent queries never see half of one
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    skipped += left_out
    return path


def connect(
    dirs: Sequence[Path | reader.TraceSource],
    *,
    cache: bool = True,
    lock: bool = True,
    skipped: list[str] | None = None,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the views `VIEWS` over the traces of `dirs` (run
    directories, or `TraceSource`s: runs in a store, read in place),
    locked down (`lock_down`) unless `lock` is False (for Accord's own export statements).
    Files that are not readable traces are left out and, when `skipped` is given, listed
    there."""
    left_out: list[str] = skipped if skipped is not None else []
    if not dirs:
        raise ConfigError("Give at least one run directory.")
    # Extensions are never downloaded or loaded on demand (an http URL or sqlite_scan in a
    # query must not reach the network); the core ones needed here are built in.
    con = duckdb.connect(
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    )
    con.execute("SET TimeZone = 'UTC'")
    parts: dict[str, list[str]] = {v: [] for v in VIEWS}
    for i, directory in enumerate(dirs):
        schema = f"run{i}"
        if not isinstance(directory, Path):  # a run in a store: read in place, no cache
            con.execute(f"ATTACH ':memory:' AS {schema}")
            left_out += build_source_tables(con, directory, schema)
            label = _quote(directory.where)
            for v in VIEWS:
                parts[v].append(f"SELECT '{label}' AS run_dir, * FROM {schema}.\"{v}\"")
            continue
        files = trace_files(directory)
        path = _cached(directory, files, left_out) if cache else None
        if path is not None:
            con.execute(f"ATTACH '{_quote(str(path))}' AS {schema} (READ_ONLY)")
        else:
            con.execute(f"ATTACH ':memory:' AS {schema}")
            left_out += build_tables(con, files, schema)
        label = _quote(str(directory))
        for v in VIEWS:
            parts[v].append(f"SELECT '{label}' AS run_dir, * FROM {schema}.\"{v}\"")
    for v in VIEWS:
        con.execute(f'CREATE VIEW "{v}" AS ' + " UNION ALL BY NAME ".join(parts[v]))
    if lock:
        lock_down(con)
    return con


def _quote(text: str) -> str:
    return text.replace("'", "''")


def run_query(
    dirs: Sequence[Path | reader.TraceSource],
    sql: str,
    *,
    cache: bool = True,
    skipped: list[str] | None = None,
) -> tuple[list[str], list[str], list[tuple[Any, ...]]]:
    """Run one read-only statement; return column names, column types and rows (files that
    are not readable traces are left out and listed in `skipped`)."""
    check_read_only(sql)
    con = connect(dirs, cache=cache, skipped=skipped)
    try:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description or []]
        types = [str(d[1]) for d in cur.description or []]
        if TZ_TYPE in types:
            cur = without_time_zones(con, sql, names, types)
            types = [str(d[1]) for d in cur.description or []]
        return names, types, cur.fetchall()
    except duckdb.Error as exc:
        raise ConfigError(f"Query failed: {' '.join(str(exc).split())}") from exc
    finally:
        con.close()


def export_parquet(
    dirs: Sequence[Path | reader.TraceSource],
    out: Path,
    *,
    cache: bool = True,
    skipped: list[str] | None = None,
) -> list[Path]:
    """Write the four views as ``out/<view>.parquet``; return the paths (files that are not
    readable traces are left out and listed in `skipped`)."""
    out.mkdir(parents=True, exist_ok=True)
    # Runs only the COPY statements below.
    con = connect(dirs, cache=cache, lock=False, skipped=skipped)
    written = []
    try:
        for v in VIEWS:
            path = out / f"{v}.parquet"
            con.execute(f"COPY (SELECT * FROM \"{v}\") TO '{_quote(str(path))}' (FORMAT parquet)")
            written.append(path)
    finally:
        con.close()
    return written
