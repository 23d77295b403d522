"""The privacy report of the calendar game (CalBench App. F.5, Table 2, Figure 2):
`privacy_report(traces, out_dir)` writes the four F.5 tables (exact columns), the reflection
tables, the leakage audit, Table 2 and the privacy-cost plane of Figure 2, from the
measurements of `privacy.analyse_trace`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from accord.analysis.report import write_table
from accord.analysis.stats import bootstrap_mean
from accord.games.calendar import vps
from accord.games.calendar.privacy import Analysis, analyse_trace, privacy_metrics
from accord.traces.schema import Trace

F5_COLUMNS: dict[str, tuple[str, ...]] = {
    "belief_evidence": (
        "trace_path", "game_id", "event_index", "round", "target_agent", "observer_agent",
        "slot", "source", "evidence", "strength", "belief_before", "belief_after",
    ),
    "pair_round_vps": ("trace_path", "game_id", *vps.PAIR_COLUMNS),
    "game_summary": (
        "trace_path", "game_id", "vps_loss_total", "vps_loss_mean",
        "participant_pair_vps_loss_total", "participant_pair_vps_loss_mean", "observation_count",
    ),
    "game_target_summary": (
        "trace_path", "game_id", "target_agent", "vps_loss_total", "excess_vps_loss_total",
        "participant_pair_vps_loss_total", "floor",
    ),
}  # fmt: skip
"""The four tables of App. F.5 and their exact columns."""

TABLE2_COLUMNS: tuple[tuple[str, str, bool], ...] = (
    ("success", "Coord. %", True),
    ("excess_cost", "Excess", False),
    ("messages_per_meeting", "Msgs.", False),
    ("fairness", "Fair.", False),
    ("vps", "VPS", False),
    ("adjusted_excess", "Adj. excess", False),
    ("semantic_leaks", "Leaks/game", False),
)
"""Table 2 columns (seat-row key, header, percent), plus the Figure 2 axis and the audit."""


def _write_csv(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], path: Path) -> Path:
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return path


def f5_rows(trace: Trace, analysis: Analysis) -> dict[str, list[dict[str, Any]]]:
    """The rows `trace` contributes to each F.5 table, plus its reflection rows."""
    key = {"trace_path": f"traces/{trace.trace_id}.json", "game_id": trace.trace_id}
    evidence = [
        key
        | {
            "event_index": u.index,
            "round": u.round,
            "target_agent": u.target,
            "observer_agent": u.observer,
            "slot": u.slot,
            "source": u.source,
            "evidence": u.evidence,
            "strength": u.strength,
            "belief_before": u.before,
            "belief_after": u.after,
        }
        for u in analysis.updates
    ]
    totals = dict(enumerate(analysis.totals))
    reflect_targets = [
        key
        | {"target_agent": i, "calibrated_vps_loss_total": t}
        | {"excess_calibrated_vps_loss_total": max(0.0, t - vps.FLOOR), "floor": vps.FLOOR}
        for i, t in totals.items()
    ]
    return {
        "belief_evidence": evidence,
        "pair_round_vps": [key | p for p in analysis.pairs],
        "game_summary": [key | vps.game_summary(analysis.pairs)],
        "game_target_summary": [key | t for t in analysis.targets],
        "reflection_vps": [key | r for r in analysis.reflections],
        "reflection_target_summary": reflect_targets if analysis.reflections else [],
        "semantic_leaks": [key | r for r in analysis.leaks],
    }


def table2_entries(seat_rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Table 2: per (cost setting, agent), each column's per-game mean with a 95% bootstrap CI
    over games (a game's value is the mean over the agent's seats in it)."""
    per_game: dict[tuple[str, str], dict[str, list[Mapping[str, Any]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in seat_rows:
        per_game[(str(r["cost_setting"]), str(r["agent"]))][str(r["trace_id"])].append(r)
    out: list[dict[str, Any]] = []
    for (setting, agent), games in sorted(per_game.items()):
        entry: dict[str, Any] = {"cost_setting": setting, "method": agent, "games": len(games)}
        for key, _, _ in TABLE2_COLUMNS:
            values = []
            for rows in games.values():
                vals = [float(v) for r in rows if isinstance(v := r.get(key), int | float)]
                if vals:
                    values.append(sum(vals) if key == "semantic_leaks" else sum(vals) / len(vals))
            entry[key] = bootstrap_mean(values).as_dict()
        out.append(entry)
    return out


def _fmt(est: Mapping[str, Any], percent: bool) -> str:
    if est["n"] == 0:
        return "–"
    k = 100.0 if percent else 1.0
    lo, hi = est["ci_low"] * k, est["ci_high"] * k
    mean = est["mean"] * k
    return f"{mean:.2f}" if lo == hi else f"{mean:.2f} [{lo:.2f}, {hi:.2f}]"


def figure2(entries: Sequence[Mapping[str, Any]], out: Path) -> Path:
    """The privacy-cost plane: VPS against coordination-adjusted excess, per setting."""
    from accord.analysis.figures import (
        PAPER_WIDTH,
        ci_note,
        legend_below,
        new_figure,
        pad_to,
        save_figure,
    )

    settings = sorted({str(e["cost_setting"]) for e in entries})
    methods = sorted({str(e["method"]) for e in entries})
    fig = new_figure(PAPER_WIDTH, 3.2)
    counts: list[str] = []
    for i, setting in enumerate(settings):
        ax = fig.add_subplot(1, len(settings), i + 1)
        xs: list[float] = []
        ys: list[float] = []
        for j, method in enumerate(methods):
            e = next(
                (x for x in entries if x["cost_setting"] == setting and x["method"] == method), None
            )
            if e is None or e["vps"]["n"] == 0 or e["adjusted_excess"]["n"] == 0:
                continue
            x, y = e["vps"], e["adjusted_excess"]
            ax.errorbar(
                x["mean"], y["mean"],
                xerr=[[x["mean"] - x["ci_low"]], [x["ci_high"] - x["mean"]]],
                yerr=[[y["mean"] - y["ci_low"]], [y["ci_high"] - y["mean"]]],
                fmt="o", capsize=3, color=f"C{j % 10}", label=method,
            )  # fmt: skip
            xs += [x["ci_low"], x["ci_high"], x["mean"]]
            ys += [y["ci_low"], y["ci_high"], y["mean"]]
            counts.append(f"{method} {setting} {x['n']}")
        ax.set_title(f"{setting} costs", fontsize=8)
        ax.set_xlabel("VPS (excess, slot-equivalents)", fontsize=8)
        ax.set_ylabel("coordination-adjusted excess cost", fontsize=8)
        ax.tick_params(labelsize=7)
        # Every point and error-bar end inside, with the origin in view (a point at the edge
        # of the autoscaled axis was cut in half).
        pad_to(ax, xs, ys)
        ax.grid(alpha=0.3)
    legend_below(fig, ncol=4)
    path = out / "figure2_privacy_cost.png"
    note = ci_note("; ".join(counts) or "0", "games", "95% percentile-bootstrap CI (x and y)")
    save_figure(fig, path, note=note)
    return path


def privacy_report(traces: list[Trace], out_dir: Path) -> list[Path]:
    """Write the privacy outputs for the calendar traces in `traces` (module docstring)."""
    from accord.runner.results import seat_rows

    tables: dict[str, list[dict[str, Any]]] = defaultdict(list)
    rows: list[dict[str, Any]] = []
    for trace in traces:
        if trace.status != "complete" or not trace.scenario:
            continue
        analysis = analyse_trace(trace)
        for name, part in f5_rows(trace, analysis).items():
            tables[name] += part
        _, seats = privacy_metrics(analysis)
        rows += [r | seats[int(r["seat"])] for r in seat_rows(trace)]
    written = [_write_csv(tables[n], cols, out_dir / f"{n}.csv") for n, cols in F5_COLUMNS.items()]
    for name in ("reflection_vps", "reflection_target_summary", "semantic_leaks"):
        if tables[name]:
            written.append(_write_csv(tables[name], list(tables[name][0]), out_dir / f"{name}.csv"))
    if not rows:
        return written
    entries = table2_entries(rows)
    pretty = [
        {"cost_setting": e["cost_setting"], "method": e["method"], "games": e["games"]}
        | {label: _fmt(e[key], pct) for key, label, pct in TABLE2_COLUMNS}
        for e in entries
    ]
    title = "Table 2: reference protocols and agents (mean [95% bootstrap CI] over games)"
    written += write_table(pretty, out_dir / "table2", title=title)
    written.append(figure2(entries, out_dir))
    written.append(out_dir / "figure2_privacy_cost.svg")
    return written
