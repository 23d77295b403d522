"""The run directories `accord serve` shows, and the rows of their games (`accord.web.app`).

`resolve_runs` names each directory once and refuses what is not a run; `trace_paths` lists a
run's trace files (only files inside it); `RowCache` keeps each game's parsed row while its
file's size and modification time are unchanged; `run_entry` is a run's line on the home page.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accord.analysis.paired import scenario_digest, seating
from accord.analysis.verify_record import verified_mark
from accord.core.errors import ConfigError
from accord.traces.io import read_trace
from accord.traces.reader import run_traces_folder
from accord.traces.schema import Trace
from accord.web.live import run_progress


@dataclass(frozen=True)
class RunDir:
    """One run directory as served: its id in URLs, the path given and its trace folder."""

    run_id: str
    path: Path
    folder: Path


def resolve_runs(dirs: Sequence[Path]) -> dict[str, RunDir]:
    """Run ids (directory names, suffixed ``-2``, ``-3``... on clashes) to run directories.

    A directory holding ``traces/`` is a run; one without is taken as a bare trace folder,
    as the analysis commands do. The same directory given twice is served once.
    """
    runs: dict[str, RunDir] = {}
    seen: set[Path] = set()
    for d in dirs:
        if not d.is_dir():
            raise ConfigError(
                f"{d} is not a directory. Give run directories written by `accord run` "
                "(each holds traces/), e.g. accord serve runs/demo"
            )
        real = d.resolve()
        if real in seen:
            continue
        seen.add(real)
        folder = run_traces_folder(d)  # refuses a traces/ that links to another run's
        # A bare folder called traces/ is better known by the run that holds it.
        base = (real.parent.name if folder == d and real.name == "traces" else real.name) or "run"
        run_id, n = base, 2
        while run_id in runs:
            run_id, n = f"{base}-{n}", n + 1
        runs[run_id] = RunDir(run_id, d, folder)
    if not runs:
        raise ConfigError("give at least one run directory, e.g. accord serve runs/demo")
    return runs


def trace_paths(folder: Path) -> dict[str, Path]:
    """Trace id (file stem) to file, for every ``*.json`` in `folder`, in name order.

    Every such file is listed (one that is not a valid trace shows as unreadable); the atomic
    writer's temporary files end in ``.tmp``. A symbolic link is followed only if it stays
    inside `folder`: a link to a file elsewhere is not served.
    """
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(".json")]
        root = folder.resolve()
    except OSError:
        return {}
    names = sorted(e.name for e in entries if _inside(e, root))
    return {name[: -len(".json")]: folder / name for name in names}


def _inside(entry: os.DirEntry[str], root: Path) -> bool:
    """A regular file, or a link to one inside `root`."""
    try:
        if not entry.is_symlink():
            return entry.is_file(follow_symlinks=False)
        target = Path(entry.path).resolve()
        return target.is_file() and target.is_relative_to(root)
    except OSError:
        return False


MAX_SAFE_INT = 2**53 - 1
"""Largest integer a JavaScript number holds exactly."""


def finite(obj: Any) -> Any:
    """`obj` made safe for a browser: NaN and infinities become None (JSON cannot carry them),
    and integers a JavaScript number cannot hold exactly (64-bit seeds) become strings, so
    ``696801328196372095`` is not shown as ``696801328196372100``.

    Summaries hold NaN for metrics no game reported; strict JSON responses refuse it.
    """
    if isinstance(obj, bool):
        return obj
    if isinstance(obj, int):
        return obj if -MAX_SAFE_INT <= obj <= MAX_SAFE_INT else str(obj)
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    return obj


def scalar_metrics(metrics: dict[str, Any]) -> dict[str, Any]:
    """The metrics a table cell can hold: numbers, booleans and strings (nested ones dropped)."""
    out: dict[str, Any] = {}
    for key, value in metrics.items():
        if isinstance(value, bool | int | str):
            out[key] = value
        elif isinstance(value, float):
            out[key] = value if math.isfinite(value) else None
    return out


def game_row(trace_id: str, trace: Trace) -> dict[str, Any]:
    """The games-table row of one trace."""
    total = trace.usage.get("total")
    return {
        "trace_id": trace_id,
        "game_id": trace.game_id,
        "game": trace.game,
        "seed": trace.seed,
        "status": trace.status,
        "error": trace.error,
        "batch": trace.run.get("batch"),
        "pairing": trace.run.get("pairing"),
        "repeat": trace.run.get("repeat"),
        "replica": trace.run.get("replica"),
        # What `accord compare` pairs games on (accord.analysis.paired).
        "scenario": scenario_digest(trace),
        "seating": seating(trace),
        "players": " vs ".join(s.identity for s in trace.seats),
        "events": len(trace.events),
        "input_tokens": total.input_tokens if total else None,
        "output_tokens": total.output_tokens if total else None,
        # None when any call's price was unknown: shown as "unknown", never as a partial sum.
        "cost_usd": total.cost_usd if total and total.cost_known else None,
        "started_at": trace.started_at,
        "metrics": scalar_metrics(trace.metrics),
    }


def unreadable_row(trace_id: str, error: str) -> dict[str, Any]:
    """A row for a file that is not a valid trace: listed, so the problem is visible."""
    return {"trace_id": trace_id, "status": "unreadable", "error": error, "metrics": {}}


class RowCache:
    """Games-table rows per trace file, valid while the file's size and mtime are unchanged."""

    def __init__(self) -> None:
        self._rows: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}

    def row(self, trace_id: str, path: Path) -> dict[str, Any]:
        """The row of one trace file, read again only if the file changed."""
        try:
            st = path.stat()
        except OSError as exc:
            return unreadable_row(trace_id, str(exc))
        stamp = (st.st_mtime_ns, st.st_size)
        hit = self._rows.get(path)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        try:
            row = game_row(trace_id, read_trace(path))
        except ConfigError as exc:
            row = unreadable_row(trace_id, str(exc))
        self._rows[path] = (stamp, row)
        return row


def read_summary(run: RunDir) -> list[dict[str, Any]] | None:
    """The summary groups of ``summary.json``, or None when the run has none (or it is bad)."""
    path = run.path / "summary.json"
    if not path.is_file() or not path.resolve().is_relative_to(run.path.resolve()):
        return None  # missing, or a link out of the run directory
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # unreadable, not UTF-8, not JSON, too deep
        return None
    groups = data.get("groups") if isinstance(data, dict) else None
    return finite(groups) if isinstance(groups, list) else None


def run_entry(run: RunDir, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The runs-list entry of one run (with its live progress while it plays)."""
    statuses = [r["status"] for r in rows]
    return {
        "run": run.run_id,
        "dir": str(run.path),
        "games": len(rows),
        "complete": statuses.count("complete"),
        "failed": statuses.count("failed"),
        "unreadable": statuses.count("unreadable"),
        "playing": statuses.count("playing"),
        "game_ids": sorted({r["game_id"] for r in rows if r.get("game_id")}),
        "summary": read_summary(run),
        "progress": run_progress(run.path),
        "verified": verified_mark(run.path),
    }
