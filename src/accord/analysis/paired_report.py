"""The comparison and noise-floor tables of `accord report` (the same code as `accord
compare` and `accord plan --from`).

Per game, when its games fall into two or more batches (or, within one batch, two or more
pairings), every other group is compared with the first in name order: ``comparisons.csv/.md``,
one row per group and metric, saying "paired" or "unpaired" (and why). When some scenario was
played more than once (``repeats: k``), ``noise_floor.csv/.md`` gives the run's noise floor.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from accord.analysis.paired import GameRecord, compare, headline_metrics, record
from accord.analysis.power_noise import noise_floor
from accord.core.errors import ConfigError
from accord.traces.schema import Trace


def _groups(records: Sequence[GameRecord]) -> tuple[str, dict[str, list[GameRecord]]]:
    for label in ("batch", "pairing"):
        groups: dict[str, list[GameRecord]] = defaultdict(list)
        for r in records:
            groups[str(r.labels.get(label))].append(r)
        if len(groups) >= 2:
            return label, dict(sorted(groups.items()))
    return "", {}


def comparison_rows(traces: Sequence[Trace]) -> list[dict[str, Any]]:
    """Every group of `traces` (one game) against the first (module docstring)."""
    records = [record(t) for t in traces if t.status == "complete"]
    label, groups = _groups(records)
    if not groups:
        return []
    metrics = headline_metrics({r.game_id for r in records})
    (first, base), *others = groups.items()
    rows: list[dict[str, Any]] = []
    for name, side in others:
        if len(base) < 2 or len(side) < 2:
            continue
        try:
            result = compare(base, side, metrics=metrics)
        except ConfigError:
            continue
        for r in result.rows:
            rows.append(
                {
                    "a": f"{label}={first}",
                    "b": f"{label}={name}",
                    "matched_scenarios": result.matched,
                    "unmatched_a": len(result.unmatched_a),
                    "unmatched_b": len(result.unmatched_b),
                    **r.as_dict(),
                }
            )
    return rows


def paired_tables(traces: Sequence[Trace]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """``(file stem, title, rows)`` of ``comparisons`` and ``noise_floor``, those with rows."""
    tables: list[tuple[str, str, list[dict[str, Any]]]] = []
    rows = comparison_rows(traces)
    if rows:
        tables.append(("comparisons", "Each group vs the first: B - A (paired or unpaired)", rows))
    records = [record(t) for t in traces if t.status == "complete"]
    floor = [
        r.as_dict()
        for r in noise_floor(records, metrics=headline_metrics({r.game_id for r in records}))
        if r.scenarios
    ]
    if floor:
        tables.append(("noise_floor", "Noise floor (repeats)", floor))
    return tables
