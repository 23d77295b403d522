"""The run index: a run's games, seats and messages in one columnar file beside its traces.

``RUN/index/run.duckdb`` holds the ``games``, ``seats`` and ``messages`` tables of
`accord query` (the same rows, typed the same way: `accord.index.tables`) for every trace of
``RUN/traces``, plus ``files``: each trace file's name, size and modification time when it
was indexed, and the reason it was passed over when it is not a readable trace (with the
same one-line reason every command gives). ``RUN/index/index.json`` records the index
format, the code that shaped the rows, and the database file's own size and modification
time when Accord last wrote it.

The traces stay the record; the index is derived from them and is checked against them
every time it is used (`sync`): a trace file added, replaced, touched or removed since is
indexed again (only that file); an index written by another format or code, or changed by
anything but Accord (its size or time differ from ``index.json``), or that cannot be read,
is rebuilt from the traces. Where the run cannot be written (someone else's run, a read-only
copy), a stale index is not used at all: the caller reads the traces instead. No answer is
ever taken from an index that disagrees with the traces it was checked against.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from accord.core.errors import ConfigError
from accord.index import rows, tables
from accord.index.layout import DATABASE, FOLDER, LOCK, STAMP
from accord.index.tables import FILE_COLUMN, quote_name, read_columns
from accord.traces import reader

INDEX_VERSION = 1
"""Bumped whenever the index's tables change shape or content; older indexes are rebuilt."""

TABLES: tuple[str, ...] = ("games", "seats", "messages")
"""The tables the index holds (events stay in the traces: most of their bytes)."""

CHUNK = 500
"""Trace files parsed per insert: bounds memory on a run of any size."""

_PATH = "\x00"
"""Stands for a trace file's path in a stored reason (the run may be given by another path)."""

Progress = Callable[[int, int], None]
"""Called with (files indexed so far, files to index)."""


@dataclass
class IndexState:
    """What `sync` found and did."""

    path: Path
    """The index database."""
    files: int
    """Trace files in the run."""
    indexed: int
    """Trace files read (again) by this sync: new or changed since the last."""
    removed: int
    """Files indexed before and gone since."""
    rebuilt: bool
    """Whether the whole index was (re)built, not only updated."""
    skipped: list[str]
    """One line per trace file that is not a readable trace, as every command lists them."""


def index_folder(run_dir: Path) -> Path:
    """Where a run's index lives: ``RUN/index``."""
    return Path(run_dir) / FOLDER


def _code_signature() -> str:
    """The format and the code that shape the rows: an index written by other code is rebuilt."""
    h = hashlib.sha256(f"accord-run-index {INDEX_VERSION}".encode())
    for module in (rows.__file__, tables.__file__, reader.__file__):
        h.update(Path(module).read_bytes())
    return h.hexdigest()


def _stamps(files: Sequence[Path]) -> dict[str, tuple[int, int]]:
    """Each trace file's (size, modification time in ns), by name; a file gone is left out."""
    out: dict[str, tuple[int, int]] = {}
    for path in files:
        try:
            st = path.stat()
        except OSError:
            continue
        out[path.name] = (st.st_size, st.st_mtime_ns)
    return out


def _own_stamp(db: Path) -> dict[str, int]:
    st = db.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _trusted(folder: Path, signature: str) -> bool:
    """Whether the database in `folder` is one Accord wrote with this code and nothing
    changed since (its size and time as `index.json` recorded them)."""
    db, stamp = folder / DATABASE, folder / STAMP
    try:
        meta = json.loads(stamp.read_text())
        return (
            isinstance(meta, dict)
            and meta.get("version") == INDEX_VERSION
            and meta.get("code") == signature
            and meta.get("database") == _own_stamp(db)
            and not (folder / f"{DATABASE}.wal").exists()
        )
    except (OSError, ValueError):
        return False


def _write_stamp(folder: Path, signature: str) -> None:
    meta = {"version": INDEX_VERSION, "code": signature, "database": _own_stamp(folder / DATABASE)}
    tmp = folder / f".{STAMP}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(meta, indent=1) + "\n")
    os.replace(tmp, folder / STAMP)


def _traces_of(run_dir: Path) -> Path:
    folder = reader.run_traces_folder(run_dir)
    if folder != Path(run_dir) / "traces":
        raise ConfigError(
            f"{run_dir} is not a run directory (no traces/ folder); give the run's directory "
            "(the index lives beside its traces)."
        )
    return folder


def sync(
    run_dir: Path,
    *,
    rebuild: bool = False,
    progress: Progress | None = None,
    only: Sequence[Path] | None = None,
) -> IndexState:
    """Bring ``RUN/index`` up to date with ``RUN/traces`` (reading only the trace files that
    changed; everything with `rebuild`) and say what it holds. With `only` (trace files just
    written), only those are checked, unless the index must be rebuilt anyway. Raises
    `ConfigError` when the run is not a run directory, `OSError` or `duckdb.Error` when the
    index cannot be written."""
    run_dir = Path(run_dir)
    folder_of_traces = _traces_of(run_dir)
    folder = index_folder(run_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        return _sync(folder, folder_of_traces, rebuild, progress, only)


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the index's lock: one process at a time checks or changes it (a run adding its
    games while a command reads). Where the system has no ``flock`` the lock is a no-op."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with (folder / LOCK).open("a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _sync(
    folder: Path,
    folder_of_traces: Path,
    rebuild: bool,
    progress: Progress | None,
    only: Sequence[Path] | None,
) -> IndexState:
    db = folder / DATABASE
    signature = _code_signature()
    rebuilt = rebuild or not _trusted(folder, signature)
    files = reader.trace_files(folder_of_traces) if only is None or rebuilt else list(only)
    disk = _stamps(files)
    known: dict[str, tuple[int, int]] = {}
    if not rebuilt:
        try:  # checked read-only: a current index is never written to, so it stays trusted
            with duckdb.connect(str(db), read_only=True) as con:
                stored = con.execute("SELECT file, size, mtime_ns FROM files").fetchall()
            known = {name: (size, mtime) for name, size, mtime in stored}
        except duckdb.Error:
            rebuilt = True  # unreadable: built again from the traces
            files = reader.trace_files(folder_of_traces)
            disk = _stamps(files)
    changed = [p for p in files if p.name in disk and known.get(p.name) != disk[p.name]]
    named = {p.name for p in files}
    gone = [name for name in known if name not in disk and (only is None or name in named)]
    if rebuilt:
        for name in (DATABASE, f"{DATABASE}.wal", STAMP):
            (folder / name).unlink(missing_ok=True)
    if rebuilt or changed or gone:
        with duckdb.connect(str(db)) as con:
            if rebuilt:
                _create(con)
            _forget(con, [p.name for p in changed] + gone)
            for start in range(0, len(changed), CHUNK):
                _add(con, changed[start : start + CHUNK], disk)
                if progress is not None:
                    progress(min(start + CHUNK, len(changed)), len(changed))
            con.execute("CHECKPOINT")  # no write-ahead log left: the stamp is the file's
        _write_stamp(folder, signature)
    with duckdb.connect(str(db), read_only=True) as con:
        found = con.execute(
            "SELECT file, skipped FROM files WHERE skipped IS NOT NULL ORDER BY file"
        ).fetchall()
    skipped = [str(reason).replace(_PATH, str(folder_of_traces / name)) for name, reason in found]
    return IndexState(db, len(disk), len(changed), len(gone), rebuilt, skipped)


def _create(con: duckdb.DuckDBPyConnection) -> None:
    """The empty tables, typed as `accord.index.tables` types them."""
    tables.create_tables(con, rows.Columns(events=False), "main", TABLES, keep_file=True)
    con.execute(
        "CREATE TABLE files (file VARCHAR PRIMARY KEY, size BIGINT, mtime_ns BIGINT, "
        "skipped VARCHAR)"
    )


def _forget(con: duckdb.DuckDBPyConnection, names: list[str]) -> None:
    """Drop every row of the files `names` (changed or gone)."""
    con.register("_accord_forget", {"name": tables._array(names)})
    try:
        con.execute("DELETE FROM games WHERE file IN (SELECT name FROM _accord_forget)")
        for table in ("seats", "messages"):
            con.execute(
                f"DELETE FROM {table} WHERE {FILE_COLUMN} IN (SELECT name FROM _accord_forget)"
            )
        con.execute("DELETE FROM files WHERE file IN (SELECT name FROM _accord_forget)")
    finally:
        con.unregister("_accord_forget")


def _add(
    con: duckdb.DuckDBPyConnection, files: Sequence[Path], disk: dict[str, tuple[int, int]]
) -> None:
    """Read `files` and insert their rows; a file that is not a readable trace is recorded
    with its reason."""
    cols, skipped = read_columns(files, events=False)
    con.execute("ATTACH ':memory:' AS _accord_new")
    try:
        tables.create_tables(con, cols, "_accord_new", TABLES, keep_file=True)
        have = {r[0] for r in con.execute("DESCRIBE games").fetchall()}
        for name, kind, *_ in con.execute("DESCRIBE _accord_new.games").fetchall():
            if name not in have:  # a metric first seen in these traces
                con.execute(f"ALTER TABLE games ADD COLUMN {quote_name(name)} {kind}")
        for table in TABLES:
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _accord_new.{table}")
    finally:
        con.execute("DETACH _accord_new")
    reasons = {path.name: reason.replace(str(path), _PATH) for path, reason in skipped}
    names = [p.name for p in files if p.name in disk]
    con.register(
        "_accord_files",
        {
            "file": tables._array(names),
            "size": tables._array([disk[n][0] for n in names]),
            "mtime_ns": tables._array([disk[n][1] for n in names]),
            "skipped": tables._array([reasons.get(n) for n in names]),
        },
    )
    try:
        con.execute(
            "INSERT INTO files SELECT file::VARCHAR, size::BIGINT, mtime_ns::BIGINT, "
            "skipped::VARCHAR FROM _accord_files"
        )
    finally:
        con.unregister("_accord_files")


def open_index(run_dir: Path) -> tuple[Path, list[str]] | None:
    """The path of ``RUN``'s index, brought up to date with its traces, and the lines for
    the files it passes over; None when it cannot be used (no ``traces/`` folder, or an
    index that cannot be written and so cannot be checked): then the caller reads the
    traces."""
    try:
        state = sync(run_dir)
    except (OSError, duckdb.Error):
        return None
    except ConfigError:
        if (Path(run_dir) / "traces").is_dir():
            raise  # a traces/ link: refused like every command refuses it
        return None
    return state.path, state.skipped
