"""Results of a run: ``results.jsonl`` (one row per seat per game) and ``summary.json`` (the
command prints it with `accord.cli.tables.summary_table`). Both files are rebuilt from the
traces on disk, so they always agree with them: one trace at a time, so memory stays flat in
the number of games, and a file that is not a readable trace is listed under ``unreadable``
in the summary instead of stopping the rebuild.

The summary groups games by batch and pairing. Each game class lists the metrics to
summarise (`Game.summary_metrics`); each gets a mean over the *complete* games with a 95%
percentile bootstrap confidence interval (games are the resampling unit). Failed games (a
model that could not be reached, an error) are counted but never enter a mean; their distinct
reasons are listed with counts in ``failures``. Bad output from a working model stays a scored
game: the share of decisions answered by the request's fallback is reported per group as
``fallback_rate``.
"""

from __future__ import annotations

import json
import os
import re
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accord.analysis.stats import bootstrap_mean
from accord.core.errors import ConfigError
from accord.core.registry import game_class
from accord.runner.batch_cost import BatchCounts, BatchTally, batch_counts
from accord.runner.served import ServedCounts, ServedTally, served_counts
from accord.traces.io import (
    atomic_write_json,
    check_inside,
    read_trace,
    skip_reason,
    write_jsonl,
)
from accord.traces.schema import Trace

RUN_FILES_VERSION = 1
"""Schema version of a run directory's own files: ``summary.json``, every ``results.jsonl``
row and ``experiment.json`` (a trace has its own, `accord.traces.schema.SCHEMA_VERSION`).
Bumped when a field changes meaning or goes away; new fields do not bump it."""


def seat_rows(trace: Trace) -> list[dict[str, Any]]:
    """The ``results.jsonl`` rows of one trace."""
    rows = []
    for seat in trace.seats:
        base = next((r for r in trace.seat_rows if r.get("seat") == seat.seat), {})
        usage = trace.usage.get(seat.name)
        rows.append(
            {
                "trace_id": trace.trace_id,
                "game_id": trace.game_id,
                "status": trace.status,
                **{k: trace.run.get(k) for k in ("experiment", "batch", "repeat", "pairing")},
                "seat": seat.seat,
                "seat_name": seat.name,
                "agent": seat.agent,
                "model": seat.model,
                **({"action_mode": seat.action_mode} if seat.action_mode is not None else {}),
                "player": seat.identity,
                **{k: v for k, v in base.items() if k not in {"seat", "name"}},
                "input_tokens": usage.input_tokens if usage else 0,
                "output_tokens": usage.output_tokens if usage else 0,
                "cost_usd": usage.cost_usd if usage else 0.0,
                "calls": usage.calls if usage else 0,
            }
        )
    return rows


@dataclass(frozen=True, slots=True)
class SummaryEntry:
    """What the summary keeps of one trace (`summary_entry`): a few numbers, not the trace."""

    game_id: str
    batch: str
    pairing: str
    complete: bool
    reason: str
    """Why the game failed (`failure_reason`); empty for a complete game."""
    cost: tuple[float, bool, int, int] | None
    """Cost, cost known, decisions and fallbacks of the ``total`` usage (None without one)."""
    values: tuple[tuple[str, float], ...]
    """The game's summary metrics that are numbers (complete games only)."""
    cells: Any = None
    """The detail pool's share of the game (``pool.cells(trace)``), for pools that offer it."""
    trace: Trace | None = None
    """The trace itself, only for a complete game whose detail pool takes whole traces."""
    served: ServedCounts = ()
    """Model ids, fingerprints and versions the providers said they served
    (`accord.runner.served`)."""
    batched: BatchCounts | None = None
    """The game's batched calls and their cost beside the live cost (`accord.runner.batch_cost`)."""


def summary_entry(t: Trace, *, keep_trace: bool = True) -> SummaryEntry:
    """What `SummaryBuilder` needs of `t` (`UnknownGameError` for a game this installation
    does not know). A detail pool with ``cells(trace)`` and ``add_cells(cells)`` is fed its
    cells; one with ``add(trace)`` only needs the trace, kept when `keep_trace` (without it
    the entry is None-trace and `needs_trace` says so)."""
    cls = game_class(t.game_id)
    total = t.usage.get("total")
    complete = t.status == "complete"
    values: list[tuple[str, float]] = []
    cells: Any = None
    kept: Trace | None = None
    if complete:
        for key, _, _ in cls.summary_metrics:
            v = t.metrics.get(key)
            if isinstance(v, int | float):
                values.append((sys.intern(key), float(v)))
        pool = cls.detail_pool()
        if pool is not None and hasattr(pool, "cells"):
            cells = pool.cells(t)
        elif pool is not None and keep_trace:
            kept = t
    return SummaryEntry(  # labels shared by many games are held once (interned)
        game_id=sys.intern(t.game_id),
        batch=sys.intern(str(t.run.get("batch", ""))),
        pairing=sys.intern(str(t.run.get("pairing", ""))),
        complete=complete,
        reason="" if complete else failure_reason(t),
        cost=(
            (total.cost_usd, total.cost_known, total.decisions, total.fallbacks)
            if total is not None
            else None
        ),
        values=tuple(values),
        cells=cells,
        trace=kept,
        served=served_counts(t),
        batched=batch_counts(t),
    )


def needs_trace(entry: SummaryEntry) -> bool:
    """True when `entry` cannot be summarised without its trace (a detail pool that takes
    whole traces, and the trace was not kept)."""
    if not entry.complete or entry.cells is not None or entry.trace is not None:
        return False
    return game_class(entry.game_id).detail_pool() is not None


class SummaryBuilder:
    """`summarize`, one trace at a time: keeps only each game's summary metrics (floats), so
    memory does not grow with the size of the traces."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.games = 0
        self.complete = 0
        self._reasons: Counter[str] = Counter()
        self._served = ServedTally()
        self._batch = BatchTally()

    def add(self, t: Trace) -> None:
        """Count one trace (`UnknownGameError`, before counting anything, for a game this
        installation does not know)."""
        self.add_entry(summary_entry(t))

    def add_entry(self, e: SummaryEntry) -> None:
        """Count one trace from what `summary_entry` kept of it (the same as `add`)."""
        key = (e.game_id, e.batch, e.pairing)
        g = self._groups.get(key)
        if g is None:
            g = self._groups[key] = {
                "games": 0,
                "complete": 0,
                "cost_usd": 0.0,
                "cost_known": True,
                "decisions": 0,
                "fallbacks": 0,
                "values": {},
                "pool": game_class(e.game_id).detail_pool(),
            }
        g["games"] += 1
        self.games += 1
        self._served.add(e.served)
        self._batch.add_counts(e.batched)
        if e.cost is not None:
            g["cost_usd"] += e.cost[0]
            g["cost_known"] = g["cost_known"] and e.cost[1]
        if not e.complete:
            self._reasons[e.reason] += 1
            return
        g["complete"] += 1
        self.complete += 1
        if e.cost is not None:
            g["decisions"] += e.cost[2]
            g["fallbacks"] += e.cost[3]
        for key_, v in e.values:
            # A float column per metric (8 bytes a game), not a list of float objects.
            g["values"].setdefault(key_, array("d")).append(v)
        pool = g["pool"]
        if pool is not None:  # pooled details (negotiation's process metrics), accumulated
            if e.cells is not None:
                pool.add_cells(e.cells)
            elif e.trace is not None:
                pool.add(e.trace)

    def result(self) -> dict[str, Any]:
        """The summary of every trace added (the shape `summarize` returns)."""
        out_groups = []
        for (game_id, batch, pairing), g in self._groups.items():
            metrics: dict[str, Any] = {}
            for key, label, percent in game_class(game_id).summary_metrics:
                est = bootstrap_mean(g["values"].get(key, []))
                metrics[key] = {**est.as_dict(), "label": label, "percent": percent}
            out_groups.append(
                {
                    "game_id": game_id,
                    "batch": batch,
                    "pairing": pairing,
                    "games": g["games"],
                    "complete": g["complete"],
                    "failed": g["games"] - g["complete"],
                    "cost_usd": g["cost_usd"],
                    # False when a call had no known price: cost_usd is then a partial sum.
                    "cost_known": g["cost_known"],
                    "model_decisions": g["decisions"],
                    "fallbacks": g["fallbacks"],
                    "fallback_rate": g["fallbacks"] / g["decisions"] if g["decisions"] else None,
                    "metrics": metrics,
                    "details": g["pool"].result() if g["pool"] is not None else {},
                }
            )
        out: dict[str, Any] = {
            "games": self.games,
            "complete": self.complete,
            "failed": self.games - self.complete,
            "failures": [{"reason": r, "count": n} for r, n in self._reasons.most_common()],
            "groups": out_groups,
        }
        served = self._served.result()
        if served:  # only runs whose providers said what they served carry the block
            out["served"] = served
        if self._batch.calls:  # batch mode: the cost beside the live cost, the turnaround
            out["batch"] = self._batch.as_dict()
        return out


def summarize(traces: Iterable[Trace]) -> dict[str, Any]:
    """Per (batch, pairing) group: counts and metric estimates with CIs."""
    builder = SummaryBuilder()
    for t in traces:
        builder.add(t)
    return builder.result()


def trace_file_order(folder: Path, order: Sequence[str] | None = None) -> list[Path]:
    """The trace files of `folder`: those named in `order` first, in that order, then the
    rest by name. Only names are held, never the traces."""
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json"))
    except OSError:
        return []
    if order is not None:
        rank = {tid: i for i, tid in enumerate(order)}
        names.sort(key=lambda n: rank.get(n[: -len(".json")], len(rank)))
    return [folder / n for n in names]


_SEAT_PREFIX = re.compile(r"^seat \S+ \([^)]*\) could not reach its model: ")


def failure_reason(trace: Trace) -> str:
    """Why a game failed, without what differs between seats, so equal causes count as one."""
    return _SEAT_PREFIX.sub("", trace.error or "unknown error (no message recorded)")


@dataclass(frozen=True, slots=True)
class TraceRecord:
    """What the results files need of one trace file, read once (`record_of`): its seat rows
    and its summary entry, or why it cannot be used. Tied to the file as it was then (`stamp`):
    a file replaced since (a failed game played again) is read anew."""

    stamp: tuple[int, int, int]
    """Inode, size and modification time (ns) of the file when it was read."""
    trace_id: str = ""
    status: str = ""
    rows_json: str = "[]"
    """The ``results.jsonl`` rows, as one JSON list (a string is a fraction of the dicts'
    memory; decoding gives the rows back exactly, so the file is the same)."""
    entry: SummaryEntry | None = None
    error: str = ""
    """Why the file is listed under ``unreadable`` (then nothing else is set)."""


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """What identifies the content of `path` without reading it (None: it is gone)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def record_of(path: Path, trace: Trace, stamp: tuple[int, int, int]) -> TraceRecord:
    """The `TraceRecord` of `trace`, just read from `path`."""
    try:
        entry = summary_entry(trace, keep_trace=False)
    except ConfigError as exc:  # a game this installation does not know
        return TraceRecord(stamp, error=skip_reason(path, exc))
    rows = [{"schema_version": RUN_FILES_VERSION, **row} for row in seat_rows(trace)]
    text = json.dumps(rows, ensure_ascii=False)
    return TraceRecord(stamp, trace.trace_id, sys.intern(trace.status), text, entry)


def write_outputs(
    out: Path,
    order: Sequence[str] | None = None,
    *,
    statuses: dict[str, str] | None = None,
    known: Mapping[str, TraceRecord] | None = None,
) -> dict[str, Any]:
    """Rebuild ``results.jsonl`` and ``summary.json`` from ``out/traces``, one trace at a time
    (peak memory does not grow with the number of games).

    A file that is not a readable trace, or the trace of a game this installation does not
    know (an old version's id, an uninstalled plugin), is skipped and listed under
    ``unreadable`` in the summary, with its reason; it never hides the rest of the run.
    `statuses`, when given, is filled with each readable trace's status, by trace id.
    `known` holds what an earlier read kept of some files, by file name
    (`accord.runner.scan`): a file unchanged since is not read again, and gives the same rows
    and summary as reading it.

    Both files carry `RUN_FILES_VERSION` (``schema_version``: a key of the summary and of
    every row).
    """
    builder = SummaryBuilder()
    unreadable: list[dict[str, str]] = []

    def fresh(path: Path) -> TraceRecord:
        stamp = file_stamp(path) or (0, 0, 0)
        try:
            check_inside(path)
            trace = read_trace(path)
        except ConfigError as exc:
            return TraceRecord(stamp, error=skip_reason(path, exc))
        record = record_of(path, trace, stamp)
        if record.entry is not None and needs_trace(record.entry):
            # A detail pool that takes whole traces: fed now, while this one is in hand.
            record = TraceRecord(
                stamp, record.trace_id, record.status, record.rows_json, summary_entry(trace)
            )
        return record

    def rows() -> Iterator[dict[str, Any]]:
        for path in trace_file_order(out / "traces", order):
            record = (known or {}).get(path.name)
            if (
                record is None
                or record.stamp != file_stamp(path)
                or (record.entry is not None and needs_trace(record.entry))
            ):
                record = fresh(path)
            if record.entry is None:
                unreadable.append({"file": path.name, "error": record.error})
                continue
            builder.add_entry(record.entry)
            if statuses is not None:
                statuses[record.trace_id] = record.status
            yield from json.loads(record.rows_json)

    write_jsonl(out / "results.jsonl", rows())
    summary = {"schema_version": RUN_FILES_VERSION, **builder.result()}
    summary["unreadable"] = unreadable
    atomic_write_json(out / "summary.json", summary)
    return summary
