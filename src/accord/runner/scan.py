"""What a run directory already holds, read in one pass: each trace file is read once.

A resumed run needs several facts about the traces already on disk before it plays: which
games finished (to skip them, and to start the progress bar there), what they cost (for
``max_cost``) and how many tokens their model seats used (for the cost and time estimate of
the games left). Each of these used to read every trace again; `scan_run` reads each file
once and keeps only those facts (a few numbers a game), so memory stays flat in the size of
the traces. ``results.jsonl`` and ``summary.json`` are still rebuilt from the files after
play (`accord.runner.results.write_outputs`), so they always agree with what is on disk.

The rules are those of the reads it replaces: a file that is not a readable trace counts as
missing (so its game is played again), except that a run that keeps failed games
(``skip_failed``) keeps any file there, as before; a link out of the folder is never a
finished game of this run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from accord.core.errors import ConfigError
from accord.runner.cost import GroupHistory, TokenHistory, add_group, add_history
from accord.runner.results import TraceRecord, file_stamp, record_of
from accord.traces.io import check_inside, read_trace, skip_reason

K = TypeVar("K")


@dataclass
class RunScan:
    """The traces of one run directory, read once."""

    present: set[str] = field(default_factory=set)
    """Stems of the trace files inside the folder (readable or not)."""
    statuses: dict[str, str] = field(default_factory=dict)
    """Status of each readable trace (``complete`` or ``failed``), by trace id (file stem)."""
    costs: dict[str, float] = field(default_factory=dict)
    """Model cost of each readable trace (calls without a known price count as 0)."""
    history: dict[tuple[str, str], TokenHistory] = field(default_factory=dict)
    """Token use per ``(game_id, model)`` of the complete traces (`accord.runner.cost`)."""
    pairings: dict[str, GroupHistory] = field(default_factory=dict)
    """Games, time and token use per pairing label of the complete traces."""
    records: dict[str, TraceRecord] = field(default_factory=dict)
    """What the results files need of each file read, by file name."""

    def finished(self, *, include_failed: bool = False) -> set[str]:
        """Trace ids a resumed run skips: the complete ones, or every file with
        `include_failed` (``skip_failed``)."""
        if include_failed:
            return set(self.present)
        return {tid for tid, status in self.statuses.items() if status == "complete"}

    def cost_of(self, ids: Iterable[str]) -> float:
        """What the games `ids` cost (0 for a file that could not be read)."""
        return sum(self.costs.get(tid, 0.0) for tid in ids)


def scan_run(out: Path) -> RunScan:
    """Read every trace of ``out/traces`` once (an empty scan when there is none)."""
    scan = RunScan()
    traces = out / "traces"
    if not traces.is_dir():
        return scan
    for path in sorted(traces.glob("*.json")):
        try:
            check_inside(path)
        except ConfigError:
            continue
        scan.present.add(path.stem)
        stamp = file_stamp(path) or (0, 0, 0)
        try:
            trace = read_trace(path)
        except ConfigError as exc:
            scan.records[path.name] = TraceRecord(stamp, error=skip_reason(path, exc))
            continue  # missing for a resume: played again
        scan.statuses[path.stem] = trace.status
        total = trace.usage.get("total")
        scan.costs[path.stem] = total.cost_usd if total is not None else 0.0
        if trace.status == "complete":
            add_history(scan.history, trace)
            add_group(scan.pairings, str(trace.run.get("pairing", "?")), trace)
        scan.records[path.name] = record_of(path, trace, stamp)
    return scan


def merge_history(
    into: dict[K, TokenHistory], more: Mapping[K, TokenHistory]
) -> dict[K, TokenHistory]:
    """`into` with the token history `more` added (the estimate of a resumed run learns
    from earlier runs and from the games already in its own directory)."""
    for key, h in more.items():
        mine = into.setdefault(key, TokenHistory())
        mine.games += h.games
        mine.input_tokens += h.input_tokens
        mine.output_tokens += h.output_tokens
        mine.cost_usd += h.cost_usd
        mine.cost_known = mine.cost_known and h.cost_known
        mine.seconds += h.seconds
        mine.timed += h.timed
    return into
