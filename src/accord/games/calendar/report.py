"""`accord report` for `calendar-v2`: CalBench Table 1, Figures 3 and 4, and Table 11.

Every complete calendar trace contributes one row per seat (`accord.runner.results.seat_rows`:
the §4.2 metrics of `metrics.game_metrics` plus who sat there). Rows are grouped by cost
setting and by agent (the model string of an LLM seat, the name of a reference agent); when
the traces differ in how the game was played (channels, prompt variant, DM cap, turn budget,
retries, speaker order) a ``condition`` column names the differing options, so conditions are
never pooled.

Outputs in ``<report>/calendar-v2/``, each table as CSV + Markdown with means and 95%
bootstrap CIs (`accord.analysis.stats.bootstrap_mean`); ``data/`` holds the same numbers
unformatted for further analysis:

* ``table1``: N seats, meetings scheduled per seat, task success S, scheduled excess C,
  coordination-adjusted excess C^adj, messages per scheduled meeting E and fairness F
  (§4.2, Table 1), costs on the 1/2/3 scale;
* ``figure3_messages_vs_excess.png`` and ``figure3_fits``: each seat's messages per scheduled
  meeting against its scheduled excess, one panel per cost setting, with a dashed
  least-squares line per agent (§4.3, Figure 3);
* ``figure4_fairness.png``: fairness F per agent and cost setting with its CI over task
  instances, as the paper's (Figure 4; each task's seats of the agent averaged first);
* ``table11_completion_regret``: among seats that scheduled all their meetings, the mean
  excess per scheduled meeting and the share with any excess (App. G.1, Table 11);
* ``summary``: the run summary every game gets.

Extension points (the privacy measurements of §3.2 plug in here without editing this file):
`register_seat_column` adds a per-seat column to Table 1 (e.g. VPS, computed from a trace), and
`register_section` adds outputs of their own (e.g. Table 2 for the reference protocols and the
privacy-cost plane of Figure 2), called with the same traces and folder after the tables above.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from accord.analysis.report import generic_report, write_table
from accord.analysis.stats import bootstrap_mean
from accord.games.calendar.metrics import SEAT_METRICS, table1
from accord.games.calendar.privacy_report import privacy_report
from accord.runner.results import seat_rows
from accord.traces.schema import Trace

GAME_ID = "calendar-v2"

SeatColumn = Callable[[Trace], Mapping[int, float | None]]
"""Per-seat values of one trace, by seat index (None: not defined for that seat)."""
ReportSection = Callable[[list[Trace], Path], list[Path]]
"""Writes extra outputs for the calendar traces into the folder; returns the files written."""

CONDITION_KEYS: tuple[str, ...] = (
    "channels",
    "prompt_variant",
    "variant_seats",
    "dm_cap",
    "max_turns_per_round",
    "decision_retries",
    "speaker_order",
    "failed_round",
)
"""Game options that change how a game is played; suites and tasks are what gets played."""

# Table 1 columns: (row key, header, shown as a percentage).
TABLE1_COLUMNS: tuple[tuple[str, str, bool], ...] = (
    ("meetings_scheduled", "Meetings", False),
    ("success", "S %", True),
    ("excess_cost", "C", False),
    ("adjusted_excess", "C^adj", False),
    ("messages_per_meeting", "E (msgs/mtg)", False),
    ("fairness", "F", False),
)


@dataclass(frozen=True)
class _Column:
    label: str
    compute: SeatColumn | None


_COLUMNS: dict[str, _Column] = {}
_SECTIONS: dict[str, ReportSection] = {}


def register_seat_column(key: str, label: str, compute: SeatColumn | None = None) -> None:
    """Add a per-seat metric to Table 1 (its mean and CI per group).

    `compute(trace)` gives each seat's value; without it the value is read from the seat rows
    under `key` (for metrics the game itself reports). Registering a key again replaces it.
    """
    _COLUMNS[key] = _Column(label, compute)


def register_section(name: str, build: ReportSection) -> None:
    """Add outputs to the calendar report; `build(traces, folder)` runs after the tables."""
    _SECTIONS[name] = build


# -- rows --------------------------------------------------------------------------------------
def _conditions(traces: Sequence[Trace]) -> list[str]:
    """Per trace, the play options in which the traces differ (empty when they all agree).

    Listed by position: trace ids repeat across run directories."""
    varying = [k for k in CONDITION_KEYS if len({repr(t.config.get(k)) for t in traces}) > 1]
    return [", ".join(f"{k}={t.config.get(k)}" for k in varying) for t in traces]


def report_rows(traces: Sequence[Trace]) -> list[dict[str, Any]]:
    """One row per seat of every complete trace, with ``condition`` and registered columns."""
    complete = [t for t in traces if t.status == "complete"]
    rows: list[dict[str, Any]] = []
    for trace, condition in zip(complete, _conditions(complete), strict=True):
        extra = {k: c.compute(trace) for k, c in _COLUMNS.items() if c.compute is not None}
        for row in seat_rows(trace):
            row["condition"] = condition
            for key, values in extra.items():
                row[key] = values.get(row["seat"])
            rows.append(row)
    return rows


def _group_keys(rows: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    return ("condition", "agent") if any(r["condition"] for r in rows) else ("agent",)


def _fmt(est: Mapping[str, Any], percent: bool) -> str:
    if est["n"] == 0:
        return "–"
    k = 100.0 if percent else 1.0
    mean, lo, hi = est["mean"] * k, est["ci_low"] * k, est["ci_high"] * k
    return f"{mean:.2f}" if lo == hi else f"{mean:.2f} [{lo:.2f}, {hi:.2f}]"


def _flat(entry: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """A table entry with each estimate spread into mean / ci_low / ci_high columns."""
    out: dict[str, Any] = {}
    for k, v in entry.items():
        if k in keys and isinstance(v, Mapping):
            out |= {k: v["mean"], f"{k}_ci_low": v["ci_low"], f"{k}_ci_high": v["ci_high"]}
        else:
            out[k] = v
    return out


# -- Table 1 -----------------------------------------------------------------------------------
def table1_entries(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`metrics.table1` over the report rows, with the registered extra columns."""
    present = [k for k in _COLUMNS if any(r.get(k) is not None for r in rows)]
    return table1(rows, by=_group_keys(rows), metrics=(*SEAT_METRICS, *present))


def write_table1(entries: Sequence[Mapping[str, Any]], out: Path) -> list[Path]:
    columns = [*TABLE1_COLUMNS, *((k, c.label, False) for k, c in _COLUMNS.items())]
    columns = [c for c in columns if entries and c[0] in entries[0]]
    pretty = []
    for e in entries:
        row = {k: e[k] for k in ("cost_setting", "condition", "agent", "n") if k in e}
        row |= {label: _fmt(e[key], pct) for key, label, pct in columns}
        pretty.append(row)
    title = "Table 1: calendar metrics per agent (mean [95% bootstrap CI]; costs on 1/2/3)"
    keys = [c[0] for c in columns]
    return [
        *write_table(pretty, out / "table1", title=title),
        *write_table([_flat(e, keys) for e in entries], out / "data" / "table1"),
    ]


# -- Table 11 ----------------------------------------------------------------------------------
def table11_entries(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Completion-conditioned regret (App. G.1): per setting (and all settings) and agent,
    the seats with S = 1, their mean scheduled excess per scheduled meeting, and the share of
    them with any excess."""
    keys = _group_keys(rows)
    groups: dict[tuple[str, ...], list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("success") is None:
            continue  # a seat with no meetings cannot complete them
        ident = tuple(str(r.get(k, "")) for k in keys)
        for setting in (str(r.get("cost_setting", "")), "all"):
            groups[(setting, *ident)].append(r)
    out: list[dict[str, Any]] = []
    for group, members in sorted(groups.items()):
        full = [r for r in members if r["success"] == 1.0]
        per_meeting = [r["excess_cost"] / max(1, r["meetings_scheduled"]) for r in full]
        nonzero = [1.0 if r["excess_cost"] > 0 else 0.0 for r in full]
        entry: dict[str, Any] = {"cost_setting": group[0]}
        entry |= dict(zip(keys, group[1:], strict=True))
        entry |= {
            "seats": len(members),
            "full_seats": len(full),
            "mean_excess": bootstrap_mean(per_meeting).as_dict(),
            "nonzero_regret": bootstrap_mean(nonzero).as_dict(),
        }
        out.append(entry)
    return out


def write_table11(entries: Sequence[Mapping[str, Any]], out: Path) -> list[Path]:
    pretty = [
        {
            **{k: e[k] for k in ("cost_setting", "condition", "agent") if k in e},
            "Seats": e["seats"],
            "Full seats": e["full_seats"],
            "Mean excess / mtg": _fmt(e["mean_excess"], False),
            "Nonzero regret %": _fmt(e["nonzero_regret"], True),
        }
        for e in entries
    ]
    title = "Table 11: completion-conditioned regret (seats that scheduled all their meetings)"
    keys = ("mean_excess", "nonzero_regret")
    return [
        *write_table(pretty, out / "table11_completion_regret", title=title),
        *write_table([_flat(e, keys) for e in entries], out / "data" / "table11"),
    ]


# -- Figures 3 and 4 ---------------------------------------------------------------------------
def ols_fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float] | None:
    """Least-squares line (slope, intercept); None with under two points or constant x."""
    if len(xs) < 2 or len(set(xs)) < 2:
        return None
    slope, intercept = np.polyfit(np.asarray(xs, float), np.asarray(ys, float), 1)
    return float(slope), float(intercept)


def _label(r: Mapping[str, Any]) -> str:
    return f"{r['agent']} ({r['condition']})" if r.get("condition") else str(r["agent"])


JITTER = 0.15
"""Half-width of the uniform jitter added to each point of Figure 3, in the data's units
(excess costs are integers and many seats share a value; without it one protocol's points
hide another's). The fits use the raw values."""

MARKERS = "osD^vPX*"


def figure3(rows: Sequence[Mapping[str, Any]], out: Path) -> list[Path]:
    """Messages per scheduled meeting against scheduled excess, per seat (CalBench Figure 3):
    a jittered scatter (seeded, so the figure is reproducible), a marker and colour per agent,
    dashed OLS fits on the raw values."""
    from accord.analysis.figures import PAPER_WIDTH, legend_below, new_figure, save_figure

    settings = sorted({str(r["cost_setting"]) for r in rows})
    agents = sorted({_label(r) for r in rows})
    fig = new_figure(PAPER_WIDTH, 3.2)
    rng = np.random.default_rng(0)
    fits: list[dict[str, Any]] = []
    for i, setting in enumerate(settings):
        ax = fig.add_subplot(1, len(settings), i + 1)
        for a, agent in enumerate(agents):
            color = f"C{a % 10}"
            mine = [r for r in rows if r["cost_setting"] == setting and _label(r) == agent]
            if not mine:
                continue
            xs = [float(r["messages_per_meeting"]) for r in mine]
            ys = [float(r["excess_cost"]) for r in mine]
            jx = np.asarray(xs) + rng.uniform(-JITTER, JITTER, len(xs))
            jy = np.asarray(ys) + rng.uniform(-JITTER, JITTER, len(ys))
            n_all = sum(1 for r in rows if _label(r) == agent)
            ax.scatter(jx, jy, s=12, alpha=0.55, color=color, marker=MARKERS[a % len(MARKERS)],
                       linewidths=0, label=f"{agent} (n = {n_all})")  # fmt: skip
            fit = ols_fit(xs, ys)
            if fit is not None:
                grid = np.linspace(min(xs), max(xs), 20)
                ax.plot(grid, fit[0] * grid + fit[1], "--", color=color, linewidth=1.2)
            fits.append(
                {
                    "cost_setting": setting,
                    "agent": agent,
                    "seats": len(mine),
                    "slope": None if fit is None else fit[0],
                    "intercept": None if fit is None else fit[1],
                    "pearson_r": _pearson(xs, ys),
                }
            )
        ax.set_title(f"{setting} costs", fontsize=8)
        ax.set_xlabel("messages per scheduled meeting (E)", fontsize=8)
        ax.set_ylabel("scheduled excess cost (C, 1/2/3 scale)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    legend_below(fig, ncol=4)
    png = out / "figure3_messages_vs_excess.png"
    note = (
        f"n = {len(rows)} seat-games (one point each, jittered by up to ±{JITTER}); "
        "dashed lines: OLS fits on the raw values, no CI"
    )
    files = save_figure(fig, png, note=note)
    title = "Figure 3 fits: scheduled excess against messages per meeting (OLS per agent)"
    return [*files, *write_table(fits, out / "figure3_fits", title=title)]


def _pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(xs) < 2 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return float(np.corrcoef(np.asarray(xs, float), np.asarray(ys, float))[0, 1])


def task_fairness(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], list[float]]:
    """Per (cost setting, agent), one fairness value per task instance: the mean over that
    agent's seats in every game of the task (CalBench Figure 4's unit: its CIs are "across task
    instances", so the seats of one task, which share its calendars, are not independent)."""
    by_task: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        value = r.get("fairness")
        if value is None:
            continue
        task = str(r.get("task_id") or r.get("trace_id"))
        by_task[(str(r["cost_setting"]), _label(r))][task].append(float(value))
    return {
        key: [float(np.mean(v)) for _, v in sorted(tasks.items())] for key, tasks in by_task.items()
    }


def figure4(rows: Sequence[Mapping[str, Any]], out: Path) -> list[Path]:
    """Fairness F per agent and cost setting with 95% CIs resampling task instances (Figure 4;
    `task_fairness`). Table 1 keeps seat-games as its unit, as the paper's Table 1 does."""
    from accord.analysis.figures import (
        PAPER_WIDTH,
        ci_note,
        legend_below,
        new_figure,
        save_figure,
    )

    per_task = task_fairness(rows)
    settings = sorted({s for s, _ in per_task})
    agents = sorted({a for _, a in per_task})
    fig = new_figure(PAPER_WIDTH, 3.2)
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(1, len(settings))
    for j, setting in enumerate(settings):
        xs: list[float] = []
        means: list[float] = []
        errs: tuple[list[float], list[float]] = ([], [])
        n = 0
        for i, agent in enumerate(agents):
            est = bootstrap_mean(per_task.get((setting, agent), []))
            if est.n == 0:
                continue
            n += est.n
            xs.append(i + (j - (len(settings) - 1) / 2) * width)
            means.append(est.mean)
            errs[0].append(est.mean - est.lo)
            errs[1].append(est.hi - est.mean)
        ax.bar(xs, means, width=width, yerr=errs, capsize=2,
               label=f"{setting} costs (n = {n} agent-task instances)")  # fmt: skip
    # Horizontal names wrapped to their slot: rotated labels of long names run into each other.
    wrap = max(8, int(4.6 * PAPER_WIDTH / max(1, len(agents)) / 0.3))
    names = [textwrap.fill(a, wrap, break_on_hyphens=False) for a in agents]
    ax.set_xticks(range(len(agents)), names, fontsize=6.5)
    ax.set_ylabel("fairness cost F (lower is fairer)", fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(axis="y", alpha=0.3)
    legend_below(fig, ncol=2)
    png = out / "figure4_fairness.png"
    tasks = sum(len(v) for v in per_task.values())
    return save_figure(fig, png, note=ci_note(tasks, "task instances (per agent and setting)"))


# -- the builder -------------------------------------------------------------------------------
def build(traces: list[Trace], out: Path) -> list[Path]:
    """Every calendar output listed in the module docstring, then the registered sections."""
    written = generic_report(traces, out)
    rows = report_rows(traces)
    if rows:
        entries = table1_entries(rows)
        written += write_table1(entries, out)
        written += write_table11(table11_entries(rows), out)
        written += figure3(rows, out)
        written += figure4(rows, out)
    for section in _SECTIONS.values():
        written += section(traces, out)
    return written


# VPS in Table 1 and the privacy outputs (Table 2, Figure 2) in `accord report`.
register_seat_column("vps", "VPS")
register_section("privacy", privacy_report)
