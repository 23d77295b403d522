"""`accord report` for meeting-point-v1: how often each pairing met, met at the best place, and
how much cost it left on the table.

Declared in the game's `INFO` (``report``); `build` gets every trace of the game
found in the run directories and returns the files it wrote.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from accord.analysis.report import write_table
from accord.analysis.stats import bootstrap_mean
from accord.traces.schema import Trace


def build(traces: list[Trace], out: Path) -> list[Path]:
    """Met, optimal and excess cost (mean and 95% bootstrap CI) per pairing of agents."""
    groups: dict[str, list[Trace]] = defaultdict(list)
    for t in traces:
        if t.status == "complete":
            groups[" vs ".join(s.agent for s in t.seats)].append(t)
    rows: list[dict[str, Any]] = []
    for pairing, group in sorted(groups.items()):
        row: dict[str, Any] = {"pairing": pairing, "games": len(group)}
        for key in ("met", "optimal", "excess"):
            values = [float(t.metrics[key]) for t in group if t.metrics[key] is not None]
            est = bootstrap_mean(values)
            row[key] = est.mean
            row[f"{key}_ci"] = f"[{est.lo:.3f}, {est.hi:.3f}]"
        rows.append(row)
    return write_table(rows, out / "meeting_point", title="Meeting point: outcomes per pairing")
