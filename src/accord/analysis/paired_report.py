"""The comparison and noise-floor tables of `accord report` (the same code as `accord
compare` and `accord plan --from`).

Per game, when its games fall into two or more batches (or, within one batch, two or more
pairings), every other group is compared with the *baseline*: the group the run played first
(the first batch or pairing of the experiment: earliest game start, then trace id), named in
every row (``comparisons.csv/.md``, one row per group and metric, saying "paired" or
"unpaired" and why). Holm's adjustment runs over the whole family of the game (every group
and metric), and a metric whose value is the same as an earlier one's in every game (sorting's
``sr``, ``success`` and ``global_check``) enters it once: the others are left out and named
in the ``same_as`` column of the row they repeat. When some scenario was played more than
once (``repeats: k``), ``noise_floor.csv/.md`` gives the run's noise floor.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from accord.analysis.paired import GameRecord, compare, headline_metrics, record
from accord.analysis.paired_stats import holm
from accord.analysis.power_noise import noise_floor
from accord.core.errors import ConfigError
from accord.traces.schema import Trace


def _groups(
    records: Sequence[GameRecord], started: dict[str, str]
) -> tuple[str, dict[str, list[GameRecord]]]:
    for label in ("batch", "pairing"):
        groups: dict[str, list[GameRecord]] = defaultdict(list)
        for r in records:
            groups[str(r.labels.get(label))].append(r)
        if len(groups) >= 2:

            def first_played(item: tuple[str, list[GameRecord]]) -> tuple[str, str]:
                return min((started.get(r.trace_id, ""), r.trace_id) for r in item[1])

            return label, dict(sorted(groups.items(), key=first_played))
    return "", {}


def distinct_metrics(
    records: Sequence[GameRecord], metrics: Sequence[str] | None
) -> tuple[list[str], dict[str, str]]:
    """`metrics` (default: every metric of `records`) without those equal to an earlier one
    in every game, and ``{left out: the metric it repeats}``."""
    names = (
        list(metrics) if metrics is not None else sorted({k for r in records for k in r.metrics})
    )
    kept: list[str] = []
    same: dict[str, str] = {}
    for name in names:
        values = [r.metrics.get(name) for r in records]
        twin = next((k for k in kept if [r.metrics.get(k) for r in records] == values), None)
        if twin is None:
            kept.append(name)
        else:
            same[name] = twin
    return kept, same


def comparison_rows(
    traces: Sequence[Trace], primary: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Every group of `traces` (one game) against the baseline (module docstring). With the
    `primary` metrics of a locked analysis plan, rows are marked pre-registered or
    exploratory and Holm runs within each of the two families."""
    records = [record(t) for t in traces if t.status == "complete"]
    label, groups = _groups(records, {t.trace_id: t.started_at for t in traces})
    if not groups:
        return []
    metrics, same = distinct_metrics(records, headline_metrics({r.game_id for r in records}))
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
            twins = ", ".join(k for k, v in same.items() if v == r.metric)
            rows.append(
                {
                    "a": f"{label}={first}",
                    "b": f"{label}={name}",
                    "matched_scenarios": result.matched,
                    "unmatched_a": len(result.unmatched_a),
                    "unmatched_b": len(result.unmatched_b),
                    **r.as_dict(),
                    "same_as": twins,
                }
            )
    # One family per game: every group and metric (Holm 1979 over all of them), or, under a
    # locked plan, the pre-registered metrics and the exploratory ones apart.
    families: list[tuple[str, list[dict[str, Any]]]] = [("", rows)]
    if primary:
        families = [
            ("pre-registered", [r for r in rows if r["metric"] in primary]),
            ("exploratory", [r for r in rows if r["metric"] not in primary]),
        ]
    for name, family in families:
        for row, adj in zip(family, holm([float(r["p"]) for r in family]), strict=True):
            row["p_holm"] = adj
            if name:
                row["registered"] = name
    return rows


def paired_tables(
    traces: Sequence[Trace], primary: Sequence[str] | None = None
) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """``(file stem, title, rows)`` of ``comparisons`` and ``noise_floor``, those with rows."""
    tables: list[tuple[str, str, list[dict[str, Any]]]] = []
    rows = comparison_rows(traces, primary)
    if rows:
        title = (
            f"Each group vs the baseline {rows[0]['a']} (the group played first): B - A, paired "
            "or unpaired; Holm over every row"
        )
        tables.append(("comparisons", title, rows))
    records = [record(t) for t in traces if t.status == "complete"]
    floor = [
        r.as_dict()
        for r in noise_floor(records, metrics=headline_metrics({r.game_id for r in records}))
        if r.scenarios
    ]
    if floor:
        tables.append(("noise_floor", "Noise floor (repeats)", floor))
    return tables
