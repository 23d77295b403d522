"""Results of a run: ``results.jsonl`` (one row per seat per game), ``summary.json`` and the
printed table. Both files are rebuilt from the traces on disk, so they always agree with them.

The summary groups games by batch and pairing. Each game class lists the metrics to
summarise (`Game.summary_metrics`); each gets a mean over the *complete* games with a 95%
percentile bootstrap confidence interval (games are the resampling unit). Failed games (a
model that could not be reached, an error) are counted but never enter a mean; their distinct
reasons are listed with counts in ``failures``. Bad output from a working model stays a scored
game: the share of decisions answered by the request's fallback is reported per group as
``fallback_rate``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from accord.analysis.stats import bootstrap_mean
from accord.core.registry import game_class
from accord.traces.io import atomic_write_json, iter_traces, write_jsonl
from accord.traces.schema import Trace


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
                **{k: v for k, v in base.items() if k not in {"seat", "name"}},
                "input_tokens": usage.input_tokens if usage else 0,
                "output_tokens": usage.output_tokens if usage else 0,
                "cost_usd": usage.cost_usd if usage else 0.0,
                "calls": usage.calls if usage else 0,
            }
        )
    return rows


def summarize(traces: Sequence[Trace]) -> dict[str, Any]:
    """Per (batch, pairing) group: counts and metric estimates with CIs."""
    groups: dict[tuple[str, str, str], list[Trace]] = defaultdict(list)
    for t in traces:
        groups[(t.game_id, str(t.run.get("batch", "")), str(t.run.get("pairing", "")))].append(t)
    out_groups = []
    for (game_id, batch, pairing), ts in groups.items():
        complete = [t for t in ts if t.status == "complete"]
        metrics: dict[str, Any] = {}
        for key, label, percent in game_class(game_id).summary_metrics:
            values = [
                float(v) for t in complete if isinstance(v := t.metrics.get(key), int | float)
            ]
            est = bootstrap_mean(values)
            metrics[key] = {**est.as_dict(), "label": label, "percent": percent}
        cost = sum(t.usage["total"].cost_usd for t in ts if "total" in t.usage)
        decisions = sum(t.usage["total"].decisions for t in complete if "total" in t.usage)
        fallbacks = sum(t.usage["total"].fallbacks for t in complete if "total" in t.usage)
        out_groups.append(
            {
                "game_id": game_id,
                "batch": batch,
                "pairing": pairing,
                "games": len(ts),
                "complete": len(complete),
                "failed": len(ts) - len(complete),
                "cost_usd": cost,
                "model_decisions": decisions,
                "fallbacks": fallbacks,
                "fallback_rate": fallbacks / decisions if decisions else None,
                "metrics": metrics,
                "details": game_class(game_id).summary_details(complete),
            }
        )
    reasons = Counter(failure_reason(t) for t in traces if t.status != "complete")
    return {
        "games": len(traces),
        "complete": sum(t.status == "complete" for t in traces),
        "failed": sum(t.status != "complete" for t in traces),
        "failures": [{"reason": r, "count": n} for r, n in reasons.most_common()],
        "groups": out_groups,
    }


_SEAT_PREFIX = re.compile(r"^seat \S+ \([^)]*\) could not reach its model: ")


def failure_reason(trace: Trace) -> str:
    """Why a game failed, without what differs between seats, so equal causes count as one."""
    return _SEAT_PREFIX.sub("", trace.error or "unknown error (no message recorded)")


def write_outputs(out: Path, order: Sequence[str] | None = None) -> dict[str, Any]:
    """Rebuild ``results.jsonl`` and ``summary.json`` from ``out/traces``."""
    traces = list(iter_traces(out / "traces"))
    if order is not None:
        rank = {tid: i for i, tid in enumerate(order)}
        traces.sort(key=lambda t: rank.get(t.trace_id, len(rank)))
    write_jsonl(out / "results.jsonl", [row for t in traces for row in seat_rows(t)])
    summary = summarize(traces)
    atomic_write_json(out / "summary.json", summary)
    return summary


def summary_table(summary: dict[str, Any]) -> Table:
    """The printed results table: one row per group, mean [95% CI] per metric."""
    groups = summary.get("groups", [])
    keys: list[tuple[str, str, bool]] = []
    for g in groups:
        for key, m in g["metrics"].items():
            if (key, m["label"], m["percent"]) not in keys:
                keys.append((key, m["label"], m["percent"]))
    table = Table(
        title="Results (mean [95% bootstrap CI] over complete games; failed games excluded)",
        show_lines=False,
    )
    table.add_column("batch")
    table.add_column("pairing")
    table.add_column("games", justify="right")
    table.add_column("failed", justify="right")
    table.add_column("fallback %", justify="right")
    for _, label, percent in keys:
        table.add_column(label + (" %" if percent else ""), justify="right")
    for g in groups:
        rate = g.get("fallback_rate")
        cells = [
            escape(str(g["batch"])),
            escape(str(g["pairing"])),
            f"{g['complete']}/{g['games']}",
            f"[red]{g['failed']}[/red]" if g.get("failed") else "0",
            "–" if rate is None else f"{100 * rate:.1f}",
        ]
        for key, _, percent in keys:
            m = g["metrics"].get(key)
            if not m or m["n"] == 0:
                cells.append("–")
                continue
            k = 100.0 if percent else 1.0
            if m["n"] == 1 or m["ci_low"] == m["ci_high"]:
                cells.append(f"{m['mean'] * k:.1f}")
            else:
                cells.append(f"{m['mean'] * k:.1f} [{m['ci_low'] * k:.1f}, {m['ci_high'] * k:.1f}]")
        table.add_row(*cells)
    return table
