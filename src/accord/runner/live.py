"""What a run writes while it plays, so `accord serve` can show it live.

Layout inside the run directory::

    DIR/live/run.json           the run's progress (games done / failed / in flight, calls,
                                tokens, cost, ETA), rewritten at most twice a second and at the end
    DIR/live/<trace_id>.jsonl   one append-only log per game in flight: a header line, then one
                                line per event as the game records it

A game's log is removed once its trace is on disk: the trace replaces it. A run that is killed
leaves its logs behind; `run.json` names the run's process, so a reader can tell a stale log
from a live one, and the next run on the directory (``--resume``) clears them.

Every line is scrubbed of secrets before it is written, as traces are. Writing costs one
buffered ``write`` per phase of a game; `bench/bench_live.py` measures the overhead.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import json
import os
import shutil
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, Protocol

from accord.core.ids import check_id
from accord.models.cache import scrub_secrets
from accord.runner.monitor import RunMonitor
from accord.runner.specs import GameSpec
from accord.traces.io import atomic_write_json

LIVE_DIR = "live"
RUN_FILE = "run.json"
LIVE_FORMAT = 1
"""Version of the header and progress records (bumped when a field changes meaning)."""


class EventSink(Protocol):
    """Where a game in flight reports itself (`accord.runner.play.play_game`)."""

    def begin(self, game_id: str, seat_names: list[str]) -> None:
        """The game is built: its full id and each seat's name."""

    def events(self, batch: list[dict[str, Any]]) -> None:
        """New trace events, in order, as soon as a phase has recorded them."""


_SINK: contextvars.ContextVar[EventSink | None] = contextvars.ContextVar(
    "accord_live_sink", default=None
)


def current_sink() -> EventSink | None:
    """The sink of the game the current task is about to play (set by `playing_into`)."""
    return _SINK.get()


@contextlib.contextmanager
def playing_into(sink: EventSink | None) -> Iterator[None]:
    """``with playing_into(sink): await executor.play(spec)``: the executor's `play_game`
    reports to `sink`. A context variable, so executors keep their ``play(spec)`` signature."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


class LiveGame:
    """The append-only event log of one game in flight (an `EventSink`).

    Records are kept in memory and written at most every `flush_s` seconds (by the next
    batch, or by `LiveRun`'s pulse, whichever comes first), so a game that ends sooner than
    that never touches the disk, and a long one costs one write per `flush_s`. The view is a
    convenience: a log that cannot be written (a full disk) stops being written, and the game
    goes on; its trace is what counts.
    """

    def __init__(
        self,
        path: Path,
        header: dict[str, Any],
        *,
        flush_s: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self.flush_s = flush_s
        self.clock = clock
        self._header = header
        self._fh: IO[str] | None = None
        self._pending: list[dict[str, Any]] = [header]
        self._opened = False
        self._closed = False
        self._last = clock()
        self._flush_if_due()

    def _flush_if_due(self) -> None:
        if self._pending and self.clock() - self._last >= self.flush_s:
            self.flush()

    def flush(self) -> None:
        """Write what is pending now."""
        if self._closed or not self._pending:
            return
        records, self._pending = self._pending, []
        self._last = self.clock()
        try:
            if not self._opened:
                self._opened = True
                self._fh = self.path.open("w", encoding="utf-8")
            if self._fh is None:
                return
            self._fh.write(scrub_secrets("".join(_line(r) + "\n" for r in records)))
            self._fh.flush()
        except OSError:
            self._stop()

    def _stop(self) -> None:
        self._closed = True
        self._pending = []
        if self._fh is not None:
            with contextlib.suppress(OSError):
                self._fh.close()
            self._fh = None

    def begin(self, game_id: str, seat_names: list[str]) -> None:
        """Name the game and its seats (a second header line, read over the first)."""
        seats = [
            s | {"name": name} for s, name in zip(self._header["seats"], seat_names, strict=False)
        ]
        self._pending.append({"live_header": True, "game_id": game_id, "seats": seats})
        self._flush_if_due()

    def events(self, batch: list[dict[str, Any]]) -> None:
        """Append new trace events."""
        if batch and not self._closed:
            self._pending.extend(batch)
            self._flush_if_due()

    def close(self, *, remove: bool = True) -> None:
        """Stop writing; remove the log (its trace now holds everything), or with
        ``remove=False`` write what is pending and keep it."""
        if not remove:
            self.flush()
        opened = self._opened
        self._stop()
        if remove and opened:
            self.path.unlink(missing_ok=True)


class LiveRun:
    """The live files of one run directory."""

    def __init__(
        self, out: Path, monitor: RunMonitor, *, every_s: float = 0.5, games: bool = True
    ) -> None:
        """Clear what an earlier run left in ``DIR/live`` and start the progress record.

        Args:
            every_s: least time between two rewrites of ``run.json`` (the last one is always
                written).
            games: write per-game event logs (off when games play in other processes).
        """
        self.dir = out / LIVE_DIR
        if self.dir.exists():
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.monitor = monitor
        self.every_s = every_s
        self.write_games = games
        self.started_at = _now()
        self._last = 0.0
        self.games: set[LiveGame] = set()
        """Logs of the games in flight (`pulse` writes what they hold)."""
        self.progress(force=True)

    def game(self, spec: GameSpec, seats: list[dict[str, Any]]) -> LiveGame | None:
        """Open the log of a game about to start (None when game logs are off)."""
        self.progress()
        if not self.write_games:
            return None
        header = {
            "live_format": LIVE_FORMAT,
            "trace_id": spec.trace_id,
            "game_id": spec.game,
            "seed": spec.seed,
            "run": dict(spec.labels),
            "seats": seats,
            "started_at": _now(),
        }
        log = LiveGame(
            self.dir / f"{check_id(spec.trace_id)}.jsonl", header, flush_s=self.every_s / 2
        )
        self.games.add(log)
        return log

    def done(self, log: LiveGame) -> None:
        """A game's trace is on disk: its log goes."""
        self.games.discard(log)
        log.close()

    def pulse(self) -> None:
        """Called every `every_s` while games play: progress, and each log's pending events
        (a game waiting on a slow model shows what it did before)."""
        for log in list(self.games):
            log.flush()
        self.progress()

    def progress(
        self, *, force: bool = False, finished: bool = False, interrupted: str | None = None
    ) -> None:
        """Rewrite ``run.json`` if `every_s` has passed since the last time (or `force`).

        A run that ends says so (`finished`), and why it stopped early (`interrupted`).
        """
        now = time.monotonic()
        if not force and not finished and now - self._last < self.every_s:
            return
        self._last = now
        m = self.monitor
        eta = m.eta_s()
        with contextlib.suppress(OSError):  # the view is a convenience; the run goes on
            self._write_progress(m, eta, finished, interrupted)

    def _write_progress(
        self, m: RunMonitor, eta: float | None, finished: bool, interrupted: str | None
    ) -> None:
        atomic_write_json(
            self.dir / RUN_FILE,
            {
                "live_format": LIVE_FORMAT,
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "started_at": self.started_at,
                "updated_at": _now(),
                "finished": finished,
                "interrupted": interrupted,
                "planned": m.total,
                "already": m.already,
                "done": m.done,
                "failed": m.failed,
                "in_flight": m.in_flight,
                "calls": m.calls,
                "retries": m.retries,
                "errors": m.errors,
                "input_tokens": m.input_tokens,
                "output_tokens": m.output_tokens,
                "cost_usd": m.cost_usd if m.cost_known else None,
                "elapsed_s": round(m.elapsed_s(), 3),
                "eta_s": None if eta is None else round(eta, 1),
            },
        )
