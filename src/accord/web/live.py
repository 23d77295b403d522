"""Runs in progress, read from what the runner writes in ``DIR/live`` (`accord.runner.live`).

The view only reads: each game in flight has an append-only event log, replaced by its trace
when the game ends, and ``live/run.json`` holds the run's progress. Streams are server-sent
events: the server polls the files a few times a second and sends what is new, so a run
played by another process (or machine, over a shared directory) shows the same way. The
streams of one run share one listing and one progress snapshot (`accord.web.watch`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import socket
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from typing import Any

from accord.runner.live import LIVE_DIR, RUN_FILE

POLL_S = 0.25
"""How often a stream looks at its files."""
KEEPALIVE_S = 15.0
"""A comment line this often, so proxies keep an idle stream open."""
GONE_S = 5.0
"""A stream whose game has neither a log nor a trace for this long ends."""
SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
"""A stream is not to be cached or buffered by a proxy in between."""


def live_dir(run_path: Path) -> Path:
    """Where a run directory keeps its live files."""
    return run_path / LIVE_DIR


def live_logs(run_path: Path) -> dict[str, Path]:
    """Trace id to event log, for every game in flight (regular files only, name order)."""
    folder = live_dir(run_path)
    try:
        entries = [
            e
            for e in os.scandir(folder)
            if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False)
        ]
    except OSError:
        return {}
    return {e.name[: -len(".jsonl")]: folder / e.name for e in sorted(entries, key=_name)}


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process, but alive
    return True


STALE_S = 60.0
"""A run on another machine whose progress is older than this is taken as stopped."""


def _running(data: dict[str, Any]) -> bool:
    """Whether the process that writes `data` still runs: on this machine, by its pid; on
    another one (a shared directory), by the age of its last update (written twice a
    second while it plays)."""
    if data.get("host") in (None, socket.gethostname()):
        return _alive(data.get("pid"))
    try:
        updated = dt.datetime.fromisoformat(str(data.get("updated_at")))
    except ValueError:
        return False
    return (dt.datetime.now(dt.UTC) - updated).total_seconds() < STALE_S


def run_progress(run_path: Path) -> dict[str, Any] | None:
    """``live/run.json`` with its ``state``: ``running``, ``finished``, ``interrupted`` or
    ``stopped`` (the process that wrote it is gone without finishing: killed). None when
    there is none."""
    path = live_dir(run_path) / RUN_FILE
    try:
        if path.is_symlink() or not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    if data.get("finished"):
        data["state"] = "interrupted" if data.get("interrupted") else "finished"
    else:
        data["state"] = "running" if _running(data) else "stopped"
    data.pop("pid", None)  # nothing the page needs
    data.pop("host", None)
    return data


class LiveLog:
    """A game's event log read so far: header fields and events, read on from an offset."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []
        self.offset = 0

    def read_more(self) -> list[dict[str, Any]]:
        """Read complete lines written since the last call; return the new events.

        A line cut short (the writer is mid-write) waits for the next call; a line that is
        not JSON is skipped.
        """
        try:
            with self.path.open("rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return []
        end = chunk.rfind(b"\n")
        if end < 0:
            return []
        self.offset += end + 1
        new: list[dict[str, Any]] = []
        for raw in chunk[: end + 1].splitlines():
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            if "live_format" in record or record.get("live_header"):
                self.header.update({k: v for k, v in record.items() if k != "live_header"})
            else:
                new.append(record)
        self.events.extend(new)
        return new


def live_row(trace_id: str, path: Path, state: str) -> dict[str, Any]:
    """The games-table row of a game in flight (``playing``, or ``stopped`` when its run's
    process is gone)."""
    log = LiveLog(path)
    log.read_more()
    h = log.header
    seats: list[Any] = h["seats"] if isinstance(h.get("seats"), list) else []
    run: dict[str, Any] = h["run"] if isinstance(h.get("run"), dict) else {}
    return {
        "trace_id": trace_id,
        "game_id": h.get("game_id"),
        "game": str(h.get("game_id") or "").rsplit("-v", 1)[0] or None,
        "seed": h.get("seed"),
        "status": "playing" if state == "running" else "stopped",
        "error": None if state == "running" else "the run stopped before this game ended",
        "batch": run.get("batch"),
        "pairing": run.get("pairing"),
        "repeat": run.get("repeat"),
        "players": " vs ".join(
            str(s.get("model") or s.get("agent")) for s in seats if isinstance(s, dict)
        ),
        "events": len(log.events),
        "input_tokens": None,
        "output_tokens": None,
        "cost_usd": None,
        "started_at": h.get("started_at"),
        "metrics": {},
        "live": True,
    }


def live_game(trace_id: str, path: Path, state: str) -> dict[str, Any]:
    """A game in flight shaped like a trace (what the game page reads), with ``live: true``."""
    log = LiveLog(path)
    log.read_more()
    h = log.header
    seats = [
        {
            "seat": s.get("seat"),
            "name": s.get("name", f"seat{s.get('seat')}"),
            "agent": s.get("agent"),
            "model": s.get("model"),
        }
        for s in h.get("seats", [])
        if isinstance(s, dict)
    ]
    return {
        "live": True,
        "trace_id": trace_id,
        "game_id": h.get("game_id"),
        "seed": h.get("seed"),
        "run": h.get("run", {}),
        "started_at": h.get("started_at"),
        "status": "playing" if state == "running" else "stopped",
        "seats": seats,
        "events": log.events,
    }


def sse(event: str, data: Any) -> str:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def game_stream(
    files: Callable[[], Awaitable[tuple[Path | None, Path | None]]],
    since: int,
    disconnected: Callable[[], Any],
    clean: Callable[[Any], Any],
) -> AsyncGenerator[str, None]:
    """Events of one game from index `since` on, as they are written; then ``end`` with the
    trace's status once the trace is on disk (the page then loads the whole trace).

    `files` finds the game's trace file and live log again on each poll (they come and go;
    the run's shared listing answers, `accord.web.watch`); the log is read in a worker
    thread, so no stream holds up the event loop. `clean` makes a record safe for the browser.
    """
    log: LiveLog | None = None
    sent = since
    idle = 0.0
    quiet = 0.0
    while True:
        if await disconnected():
            return
        done, path = await files()
        if path is not None and (log is None or log.path != path):
            log = LiveLog(path)
        if log is not None:
            await asyncio.to_thread(log.read_more)
            if len(log.events) > sent:
                for event in log.events[sent:]:
                    yield sse("ev", clean(event))
                sent = len(log.events)
                quiet = 0.0
        if done is not None:
            yield sse("end", {"events": sent})
            return
        idle = 0.0 if path is not None else idle + POLL_S
        if idle >= GONE_S:
            yield sse("end", {"events": sent, "gone": True})
            return
        quiet += POLL_S
        if quiet >= KEEPALIVE_S:
            quiet = 0.0
            yield ": keep-alive\n\n"
        await asyncio.sleep(POLL_S)


async def run_stream(
    snapshot: Callable[[], Awaitable[dict[str, Any]]], disconnected: Callable[[], Any]
) -> AsyncGenerator[str, None]:
    """A run's progress and game counts, each time they change; ends when the run has
    ended and no game is in flight. `snapshot` is the run's shared one (`accord.web.watch`):
    however many streams follow a run, its folder is scanned once a second, off the loop."""
    last: str | None = None
    quiet = 0.0
    while True:
        if await disconnected():
            return
        snap = await snapshot()
        text = json.dumps(snap, sort_keys=True)
        if text != last:
            last = text
            quiet = 0.0
            yield sse("progress", snap)
        progress = snap.get("progress") or {}
        if progress.get("state") != "running" and not snap.get("in_flight"):
            yield sse("end", {})
            return
        quiet += 1.0
        if quiet >= KEEPALIVE_S:
            quiet = 0.0
            yield ": keep-alive\n\n"
        await asyncio.sleep(1.0)
