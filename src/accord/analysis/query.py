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
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from accord.analysis.sandbox import TZ_TYPE, check_read_only, lock_down, without_time_zones
from accord.core import gameinfo
from accord.core.errors import ConfigError
from accord.traces.io import check_inside
from accord.traces.schema import READABLE_VERSIONS, SCHEMA_VERSION
from accord.traces.upgrade import upgrade

CACHE_VERSION = 2
"""Bumped whenever the cached tables change shape or content; older caches are rebuilt
(2: traces of older schema versions are upgraded as they are read)."""

VIEWS: tuple[str, ...] = ("games", "seats", "events", "messages")

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_USAGE = ("input_tokens", "output_tokens", "reasoning_tokens", "calls", "attempts")
_LABELS = ("experiment", "batch", "repeat", "pairing", "first_speaker")

MessageRow = gameinfo.MessageRow
"""(index of the event, sender seat, channel, recipients, text, delivered); the event's own
``t``, ``round`` and ``turn`` complete the row."""
MessageExtractor = gameinfo.MessageExtractor
"""``extract(events, num_seats)`` -> one `MessageRow` per communication act."""


# -- messages of each game -----------------------------------------------------------------


def _generic_messages(events: list[dict[str, Any]], seats: int) -> list[MessageRow]:
    """Games without an extractor: ``message`` events with a text field."""
    del seats
    rows: list[MessageRow] = []
    for i, e in enumerate(events):
        text = next((e[k] for k in ("text", "speech", "content") if k in e), None)
        if e.get("type") == "message" and text is not None:
            sender = e.get("seat", e.get("sender"))
            delivered = bool(e.get("delivered", True))
            rows.append((i, sender, "message", e.get("recipients"), str(text), delivered))
    return rows


_EXTRACTORS: dict[str, MessageExtractor] = {}
"""Extractors registered from code (`register_messages`), by short game name; the others come
from each game's `GameInfo.messages`."""


def register_messages(game: str, extract: MessageExtractor) -> None:
    """Teach the ``messages`` view a game's communication events from code (`game` = short
    name); a game declares its own in its `GameInfo`."""
    _EXTRACTORS[game] = extract


def extractor(game_id: str, game: str) -> MessageExtractor:
    """The message extractor of a trace's game: registered, declared, else the generic one."""
    if game in _EXTRACTORS:
        return _EXTRACTORS[game]
    info = gameinfo.info_for_trace(game_id, game)
    if info is not None and info.messages is not None:
        return gameinfo.resolve_ref(info.messages)
    return _generic_messages


# -- rows ----------------------------------------------------------------------------------


_GAME_BASE = (
    "trace_id", "game_id", "game", "seed", "status", "error", *_LABELS, "labels", "config",
    "num_seats", "players", "metrics", *_USAGE, "cost_usd", "latency_s", "num_events",
    "num_messages", "started_at", "ended_at", "accord_version", "file",
)  # fmt: skip
_SEAT_COLS = (
    "trace_id", "game_id", "game", "status", "batch", "pairing", "seat", "seat_name", "agent",
    "model", "player", "reference", *_USAGE, "cost_usd", "latency_s", "metrics",
)  # fmt: skip
_EVENT_COLS = ("trace_id", "game_id", "idx", "type", "t", "seat", "round", "data")
_MESSAGE_COLS = (
    "trace_id", "game_id", "game", "idx", "t", "round", "turn", "sender", "sender_name",
    "channel", "recipients", "text", "delivered",
)  # fmt: skip


class _Columns:
    """Column-wise accumulators of the four tables."""

    def __init__(self) -> None:
        # Numeric scalar metrics become typed columns, in first-seen order; a column that
        # appears only in later traces is back-filled with NULL for the earlier ones.
        self.metric_names: list[str] = []
        self.games: dict[str, list[Any]] = {c: [] for c in _GAME_BASE}
        self.seats: dict[str, list[Any]] = {c: [] for c in _SEAT_COLS}
        self.events: dict[str, list[Any]] = {c: [] for c in _EVENT_COLS}
        self.messages: dict[str, list[Any]] = {c: [] for c in _MESSAGE_COLS}

    def mark(self) -> tuple[int, ...]:
        """Where each table stands, for `rollback`."""
        return (len(self.metric_names), *(len(t["trace_id"]) for t in self._tables()))

    def rollback(self, mark: tuple[int, ...]) -> None:
        """Drop what an `add` that failed half-way appended after `mark`."""
        metrics, *lengths = mark
        for name in self.metric_names[metrics:]:
            del self.games[name]
        del self.metric_names[metrics:]
        for table, n in zip(self._tables(), lengths, strict=True):
            for column in table.values():
                del column[n:]

    def _tables(self) -> tuple[dict[str, list[Any]], ...]:
        return (self.games, self.seats, self.events, self.messages)

    def add(self, d: dict[str, Any], file: str) -> None:
        tid, gid, game = d["trace_id"], d["game_id"], d.get("game", "")
        run = d.get("run") or {}
        seats = d.get("seats") or []
        usage = d.get("usage") or {}
        events = d.get("events") or []
        metrics = d.get("metrics") or {}
        names = {s["seat"]: s.get("name", "") for s in seats}
        messages = extractor(gid, game)(events, len(seats))

        g = self.games
        total = usage.get("total") or {}
        for key, value in (
            ("trace_id", tid), ("game_id", gid), ("game", game), ("seed", str(d.get("seed"))),
            ("status", d.get("status", "complete")), ("error", d.get("error")),
            *((k, _str(run.get(k))) for k in _LABELS), ("labels", _dumps(run)),
            ("config", _dumps(d.get("config") or {})), ("num_seats", len(seats)),
            ("players", " vs ".join(_player(s) for s in seats)), ("metrics", _dumps(metrics)),
            *((k, int(total.get(k, 0))) for k in _USAGE),
            ("cost_usd", float(total.get("cost_usd", 0.0))),
            ("latency_s", float(total.get("latency_s", 0.0))), ("num_events", len(events)),
            ("num_messages", len(messages)), ("started_at", d.get("started_at") or None),
            ("ended_at", d.get("ended_at") or None),
            ("accord_version", d.get("accord_version", "")), ("file", file),
        ):  # fmt: skip
            g[key].append(value)
        for key, v in metrics.items():
            if key not in g and key not in _GAME_BASE and isinstance(v, int | float):
                self.metric_names.append(key)
                g[key] = [None] * (len(g["trace_id"]) - 1)
        for key in self.metric_names:
            v = metrics.get(key)
            g[key].append(float(v) if isinstance(v, int | float) else None)

        rows = {r.get("seat"): r for r in d.get("seat_rows") or []}
        s = self.seats
        for seat in seats:
            u = usage.get(seat.get("name", "")) or {}
            row = rows.get(seat["seat"], {})
            for key, value in (
                ("trace_id", tid), ("game_id", gid), ("game", game),
                ("status", d.get("status", "complete")), ("batch", _str(run.get("batch"))),
                ("pairing", _str(run.get("pairing"))), ("seat", seat["seat"]),
                ("seat_name", seat.get("name")), ("agent", seat.get("agent")),
                ("model", seat.get("model")), ("player", _player(seat)),
                ("reference", seat.get("model") is None),
                ("cost_usd", float(u.get("cost_usd", 0.0))),
                ("latency_s", float(u.get("latency_s", 0.0))),
                ("metrics", _dumps({k: v for k, v in row.items() if k not in ("seat", "name")})),
            ):  # fmt: skip
                s[key].append(value)
            for key in _USAGE:
                s[key].append(int(u.get(key, 0)))

        ev = self.events
        for i, e in enumerate(events):
            seat_no = e.get("seat") if isinstance(e.get("seat"), int) else e.get("agent")
            ev["trace_id"].append(tid)
            ev["game_id"].append(gid)
            ev["idx"].append(i)
            ev["type"].append(e.get("type"))
            ev["t"].append(e.get("t"))
            ev["seat"].append(_int(seat_no))
            ev["round"].append(_int(e.get("round")))
            ev["data"].append(_dumps(e))

        m = self.messages
        for idx, sender, channel, recipients, text, delivered in messages:
            e = events[idx]
            for key, value in (
                ("trace_id", tid), ("game_id", gid), ("game", game), ("idx", idx),
                ("t", e.get("t")), ("round", _int(e.get("round"))), ("turn", _int(e.get("turn"))),
                ("sender", _int(sender)), ("sender_name", names.get(sender)), ("channel", channel),
                ("recipients", _dumps(recipients) if recipients is not None else None),
                ("text", text), ("delivered", delivered),
            ):  # fmt: skip
                m[key].append(value)


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _player(seat: dict[str, Any]) -> str:
    """A seat's stable identity: its model, else its agent (CalBench App. E)."""
    return str(seat.get("model") or seat.get("agent") or "")


def _str(v: Any) -> str | None:
    return None if v is None else str(v)


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
    """The trace files of a run directory (``DIR/traces/*.json``) or of a traces folder."""
    folder = directory / "traces" if (directory / "traces").is_dir() else directory
    if not folder.is_dir():
        raise ConfigError(
            f"{directory} is not a run directory (no traces/ folder). Check the path."
        )
    # Sorting names, not Path objects: path comparisons dominate a warm query of 10k traces.
    names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json") and e.is_file())
    return [folder / n for n in names]


def _parse(path: Path) -> dict[str, Any]:
    check_inside(path)
    try:
        data = json.loads(path.read_bytes())
    except RecursionError as exc:
        raise ConfigError(
            f"Cannot read trace {path}: its JSON is nested too deeply to be a trace; "
            "re-run the game or remove the file."
        ) from exc
    except (OSError, ValueError) as exc:
        raise ConfigError(f"Cannot read trace {path}: {exc}") from exc
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version not in READABLE_VERSIONS:
        raise ConfigError(
            f"{path} is not an Accord trace of schema version {SCHEMA_VERSION} "
            f"(found {version!r}). Re-run the game or use the Accord version that wrote it."
        )
    problem = _shape_problem(data)
    if problem is not None:
        raise ConfigError(
            f"Trace {path} is not a valid Accord trace: {problem}; fix the field or re-run "
            "the game."
        )
    return dict(upgrade(data))  # older versions read as the current one (accord.traces.upgrade)


_DICTS = ("run", "usage", "metrics", "config")
"""Top-level fields the views read as objects (absent or null is fine)."""


def _shape_problem(data: dict[str, Any]) -> str | None:
    """What keeps a (hand-edited) trace from filling the views, or None: the fields read here
    must have the trace schema's types (`accord.traces.schema`)."""
    for key in ("trace_id", "game_id"):
        if not isinstance(data.get(key), str) or not data[key]:
            return f"field {key} is missing or not a text" if key in data else f"no {key}"
    for key in ("events", "seats", "seat_rows"):
        value = data.get(key)
        if value is not None and (
            not isinstance(value, list) or not all(isinstance(v, dict) for v in value)
        ):
            return f"field {key} must be a list of objects"
    if any(not isinstance(s.get("seat"), int) for s in data.get("seats") or []):
        return "every seat in field seats needs a whole-number seat"
    for key in _DICTS:
        if data.get(key) is not None and not isinstance(data[key], dict):
            return f"field {key} must be an object"
    if any(not isinstance(u, dict) for u in (data.get("usage") or {}).values()):
        return "field usage must map each seat to an object"
    return None


def build_tables(con: duckdb.DuckDBPyConnection, files: Sequence[Path], schema: str) -> list[str]:
    """Parse `files` and create the four tables in `schema` (an attached database).

    A file that is not a readable trace is left out (rows it half-added included) and its
    one-line reason returned, as every command that reads a run does
    (`accord.traces.io.readable_traces`).
    """
    cols = _Columns()
    skipped: list[str] = []
    for path in files:
        mark = cols.mark()
        try:
            cols.add(_parse(path), path.name)
        except ConfigError as exc:
            cols.rollback(mark)
            skipped.append(" ".join(str(exc).split()))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
            cols.rollback(mark)
            skipped.append(f"Trace {path} is not a readable Accord trace ({type(e).__name__}).")
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
    h.update(Path(__file__).read_bytes())  # a change to this module may change the tables
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
    dirs: Sequence[Path],
    *,
    cache: bool = True,
    lock: bool = True,
    skipped: list[str] | None = None,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the views `VIEWS` over the traces of `dirs`,
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
        files = trace_files(directory)
        schema = f"run{i}"
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
    dirs: Sequence[Path], sql: str, *, cache: bool = True, skipped: list[str] | None = None
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
    dirs: Sequence[Path], out: Path, *, cache: bool = True, skipped: list[str] | None = None
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
