"""How one trace becomes rows of the run index and of `accord query`'s views (`accord.index`).

`parse` reads one trace file through the one reader (`accord.traces.reader`: bounded,
validated, older schema versions upgraded);
`Columns` accumulates the rows of the ``games``, ``seats``, ``events`` and ``messages`` tables
column by column; `extractor` finds a game's message extractor (its `GameInfo.messages`, one
registered from code, else the generic ``message`` events).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from accord.core import gameinfo
from accord.traces.reader import read_trace_data
from accord.traces.schema import player_identity

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
    "model", "player", "reference", *_USAGE, "cost_usd", "latency_s", "metrics", "_file",
)  # fmt: skip
_EVENT_COLS = ("trace_id", "game_id", "idx", "type", "t", "seat", "round", "data")
_MESSAGE_COLS = (
    "trace_id", "game_id", "game", "idx", "t", "round", "turn", "sender", "sender_name",
    "channel", "recipients", "text", "delivered", "_file",
)  # fmt: skip


class Columns:
    """Column-wise accumulators of the four tables."""

    def __init__(self, *, events: bool = True) -> None:
        self.with_events = events
        """Whether the ``events`` table is filled (one row per event: most of the work on a
        long game, and only a statement naming the table needs it)."""
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
                ("_file", file),
            ):  # fmt: skip
                s[key].append(value)
            for key in _USAGE:
                s[key].append(int(u.get(key, 0)))

        # Column by column, one comprehension each: a game of 120,000 events is read in
        # seconds (a loop of appends per event took most of the time).
        if self.with_events and events:
            n = len(events)
            ev = self.events
            ev["trace_id"] += [tid] * n
            ev["game_id"] += [gid] * n
            ev["idx"] += range(n)
            ev["type"] += [e.get("type") for e in events]
            ev["t"] += [e.get("t") for e in events]
            ev["seat"] += [
                _int(e.get("seat") if isinstance(e.get("seat"), int) else e.get("agent"))
                for e in events
            ]
            ev["round"] += [_int(e.get("round")) for e in events]
            ev["data"] += [_json(e) for e in events]

        if messages:
            n = len(messages)
            m = self.messages
            acts = [events[row[0]] for row in messages]
            for key, same in (("trace_id", tid), ("game_id", gid), ("game", game), ("_file", file)):
                m[key] += [same] * n
            m["idx"] += [row[0] for row in messages]
            m["t"] += [e.get("t") for e in acts]
            m["round"] += [_int(e.get("round")) for e in acts]
            m["turn"] += [_int(e.get("turn")) for e in acts]
            m["sender"] += [_int(row[1]) for row in messages]
            m["sender_name"] += [names.get(row[1]) for row in messages]
            m["channel"] += [row[2] for row in messages]
            m["recipients"] += [None if row[3] is None else _json(row[3]) for row in messages]
            m["text"] += [row[4] for row in messages]
            m["delivered"] += [row[5] for row in messages]


def _json(value: Any) -> str:
    """A value (an event, a list of recipients) as compact JSON text like `_dumps` (orjson
    when it can: the same JSON, five times faster; an integer past 64 bits goes to `_dumps`)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return _dumps(value)


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _player(seat: dict[str, Any]) -> str:
    """A seat's stable identity (`accord.traces.schema.player_identity`): its model and
    action mode, else its agent (CalBench App. E)."""
    model, mode = seat.get("model"), seat.get("action_mode")
    return player_identity(
        model if isinstance(model, str) else None,
        str(seat.get("agent") or ""),
        mode if isinstance(mode, str) else None,
    )


def _str(v: Any) -> str | None:
    return None if v is None else str(v)


def parse(path: Path) -> dict[str, Any]:
    """The JSON object of one trace file, read and checked by the one reader every command
    uses (`accord.traces.reader`): a file any other command passes over is passed over here,
    with the same reason."""
    data, _ = read_trace_data(path)
    return data
