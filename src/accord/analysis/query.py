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

import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from accord.analysis.sandbox import TZ_TYPE, check_read_only, lock_down, without_time_zones
from accord.core.errors import ConfigError
from accord.index import rows as query_rows
from accord.index import tables as index_tables
from accord.index.rows import Columns, register_messages
from accord.index.run_index import TABLES, open_index
from accord.index.tables import VIEWS, build_tables, create_tables
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


def trace_files(directory: Path) -> list[Path]:
    """The trace files of a run directory (``DIR/traces/*.json``) or of a traces folder, as
    every command lists them (`accord.traces.reader`)."""
    return reader.trace_files(reader.run_traces_folder(directory))


def _signature(files: Sequence[Path]) -> str:
    """What the cache must match: format, metric columns, and every trace's name/size/mtime."""
    h = hashlib.sha256(str(CACHE_VERSION).encode())
    modules = (__file__, query_rows.__file__, index_tables.__file__, reader.__file__)
    for module in modules:  # each shapes the tables
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
    events: bool = True,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the views `VIEWS` over the traces of `dirs` (run
    directories, or `TraceSource`s: runs in a store, read in place, with no index or cache),
    locked down (`lock_down`) unless `lock` is False (for Accord's own export statements).
    Files that are not readable traces are left out and, when `skipped` is given, listed
    there.

    Without `events`, the ``events`` view is left out and the other three are read from each
    run's index (`accord.index`, checked against the traces and brought up to date first),
    which answers without parsing a trace that has not changed; a run whose index cannot be
    used is read from its traces."""
    left_out: list[str] = skipped if skipped is not None else []
    if not dirs:
        raise ConfigError("Give at least one run directory.")
    # Extensions are never downloaded or loaded on demand (an http URL or sqlite_scan in a
    # query must not reach the network); the core ones needed here are built in.
    con = duckdb.connect(
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    )
    con.execute("SET TimeZone = 'UTC'")
    views = VIEWS if events else TABLES
    parts: dict[str, list[str]] = {v: [] for v in views}
    for i, directory in enumerate(dirs):
        schema = f"run{i}"
        if not isinstance(directory, Path):  # a run in a store: read in place
            con.execute(f"ATTACH ':memory:' AS {schema}")
            left_out += build_source_tables(con, directory, schema, views)
            for v in views:
                parts[v].append(
                    f"SELECT '{_quote(directory.where)}' AS run_dir, * FROM {schema}.\"{v}\""
                )
            continue
        label = _quote(str(directory))
        index = open_index(directory) if cache and not events else None
        if index is not None:
            try:
                con.execute(f"ATTACH '{_quote(str(index[0]))}' AS {schema} (READ_ONLY)")
                left_out += index[1]
            except duckdb.Error:
                index = None  # being written this very moment: read the traces instead
        if index is not None:
            for v in views:
                hidden = "duration_s" if v == "games" else index_tables.FILE_COLUMN
                last = ", duration_s" if v == "games" else ""
                parts[v].append(
                    f"SELECT '{label}' AS run_dir, * EXCLUDE ({hidden}){last} FROM {schema}.\"{v}\""
                )
            continue
        files = trace_files(directory)
        path = _cached(directory, files, left_out) if cache else None
        if path is not None:
            con.execute(f"ATTACH '{_quote(str(path))}' AS {schema} (READ_ONLY)")
        else:
            con.execute(f"ATTACH ':memory:' AS {schema}")
            left_out += build_tables(con, files, schema, views)
        for v in views:
            parts[v].append(f"SELECT '{label}' AS run_dir, * FROM {schema}.\"{v}\"")
    for v in views:
        con.execute(f'CREATE VIEW "{v}" AS ' + " UNION ALL BY NAME ".join(parts[v]))
    if lock:
        lock_down(con)
    return con


def build_source_tables(
    con: duckdb.DuckDBPyConnection,
    source: reader.TraceSource,
    schema: str,
    tables: Sequence[str] = VIEWS,
) -> list[str]:
    """`build_tables` over the traces of a `TraceSource` (a run in an object store), read in
    place one at a time through the one reader, each refused by size before it is read."""
    cols = Columns(events="events" in tables)
    skipped = [f"Trace {source.where}/{n[:200]!r}: not a safe name; never read." for n in
               source.unsafe()]  # fmt: skip
    for name, size in source.trace_entries():
        label = f"{source.where}/traces/{name}"
        mark = cols.mark()
        try:
            data = reader.parse_trace(reader.source_trace_bytes(source, name, size), label)
            reader.validate_trace(data, label)
            cols.add(data, name)
        except ConfigError as exc:
            cols.rollback(mark)
            text = " ".join(str(exc).split())
            skipped.append(text if label in text else f"Trace {label}: {text}")
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
            cols.rollback(mark)
            skipped.append(f"Trace {label} is not a readable Accord trace ({type(e).__name__}).")
    create_tables(con, cols, schema, tables)
    return skipped


_EVENTS = re.compile(r"\bevents\b", re.IGNORECASE)


def needs_events(sql: str) -> bool:
    """Whether a statement may read the ``events`` view (it names it): only then are the
    traces' events read; the other views come from the run index."""
    return _EVENTS.search(sql) is not None


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
    found: list[str] = []
    events = needs_events(sql)
    con = connect(dirs, cache=cache, skipped=found, events=events)
    try:
        try:
            cur = con.execute(sql)
        except duckdb.CatalogException as exc:
            if events or "events" not in str(exc):
                raise
            # The statement reaches the events view without naming it: build it after all.
            con.close()
            found.clear()
            con = connect(dirs, cache=cache, skipped=found, events=True)
            cur = con.execute(sql)
        names = [d[0] for d in cur.description or []]
        types = [str(d[1]) for d in cur.description or []]
        if TZ_TYPE in types:
            cur = without_time_zones(con, sql, names, types)
            types = [str(d[1]) for d in cur.description or []]
        result = cur.fetchall()
    except duckdb.Error as exc:
        raise ConfigError(f"Query failed: {' '.join(str(exc).split())}") from exc
    finally:
        con.close()
    if skipped is not None:
        skipped += found
    return names, types, result


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
