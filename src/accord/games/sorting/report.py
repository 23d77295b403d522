"""`accord report` for the sorting game: the tables and figure of MAS-Bench §5 and App. C, G.3.

Every cell is a mean over games with a 95% percentile-bootstrap CI (games are the resampling
unit, `accord.analysis.stats`), written ``mean [low, high]``. TE and CR come from
model-reported tokens where a trace has model calls and from the game's text estimates
otherwise (`usage.trace_metrics`); the ``tokens`` column of ``games`` and ``cost`` says which.
Tables 1-3 and Figure 2 use the sorting task only, as the paper does. "model" is the team:
the agent specs of the seats, one name when all seats use the same one. Every table is split
by team, never pooling scripted reference games (text estimates) with model games (reported
tokens): tables whose paper form has no model column (Tables 2, 3, 6 and 8) get one block of
rows per team, led by its ``model`` and ``tokens`` source (`by_team`). A ``reproduce
mas-bench`` directory, which always holds the scripted floor beside the model's games, thus
shows the model's own numbers in every table.

Files in the report folder (each table as ``.csv`` and ``.md``):

- ``table1``: model x condition rows; SR %, R, TE and CR % per backend (Table 1).
- ``table2``: SR % by N (rows) and backend x K (columns), over models, modes and conditions
  (Table 2).
- ``table3``: per input family, in order of disorder: mean rho, SR %, R, TE, CR % (Table 3).
- ``figure2.png``: SR, R, TE and CR against N, one line per model, means over K, modes,
  backends and conditions, with CI bars (Figure 2); ``figure2`` holds the plotted numbers.
- ``cost``: per model, App. C Table 4: runs, total and communication tokens (millions),
  communication share, tokens per run, the cost estimate (midpoint [all-input, all-output])
  and the cost of the actual input/output split.
- ``tasks``: SR % and success % per model, task and condition (App. G.3, Tables 9-10).
- ``phases``, ``table6``, ``table7``, ``table8``, ``table11``, ``welch``, ``welch_backends``,
  ``failures``: R / TE / CR per phase and the App. G analyses (`appendix.py`).
- ``games``: one row per game, the numbers everything above is computed from.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from accord.analysis.report import write_table
from accord.analysis.stats import Estimate, bootstrap_mean
from accord.games.sorting import appendix
from accord.games.sorting.appendix import PHASES
from accord.games.sorting.commands import BACKENDS
from accord.games.sorting.failures import classify, mode_counts
from accord.games.sorting.task import MODES, TASKS
from accord.games.sorting.usage import PAPER_PRICES, trace_metrics
from accord.models.options import Prices
from accord.traces.schema import Trace

Row = dict[str, Any]

CONDITION_ORDER = ("base", "camoc", "abl-submit", "abl-message")
"""Table 1 lists the conditions in this order."""

# (games key, column label, shown as percent, digits): the four §3.4 metrics of Tables 1-3.
METRICS: tuple[tuple[str, str, bool, int], ...] = (
    ("sr", "SR %", True, 1),
    ("rounds", "R", False, 1),
    ("te", "TE", False, 2),
    ("cr", "CR %", True, 1),
)


def team(trace: Trace) -> str:
    """The team's name: the distinct players of its seats (`SeatInfo.identity`: a model
    with its action mode), in seat order."""
    names: list[str] = []
    for seat in trace.seats:
        if seat.identity not in names:
            names.append(seat.identity)
    return " + ".join(names) or "?"


def game_row(trace: Trace, prices: Mapping[str, Prices] = PAPER_PRICES) -> Row:
    """The numbers of one complete game that the tables use."""
    cfg, m = trace.config, trace.metrics
    u = trace_metrics(trace, prices)
    return {
        "trace_id": trace.trace_id,
        "model": team(trace),
        "task": cfg.get("task", "sort"),
        "backend": cfg.get("backend"),
        "condition": m.get("condition"),
        "mode": cfg.get("mode"),
        "n": cfg.get("n"),
        "k": cfg.get("k"),
        "seed": trace.seed,
        "rho": m.get("rho"),
        "sr": m.get("sr"),
        "success": m.get("success"),
        "global_check": m.get("global_check"),
        "rounds": m.get("rounds"),
        "te": u["te"],
        "cr": u["cr"],
        # CR's two readings (visible tokens, eq. 6's T_total); they differ only with reasoning.
        "cr_visible": u.get("cr_visible", u["cr"]),
        "cr_total": u.get("cr_total", u["cr"]),
        "metrics_phase": cfg.get("metrics_phase", "final"),
        **{f"rounds_{p}": m.get(f"rounds_{p}") for p in PHASES},
        **{f"{k}_{p}": u.get(f"{k}_{p}") for k in ("te", "cr") for p in PHASES},
        "tokens": u["token_source"],
        "total_tokens": u["tokens"],
        "input_tokens": u["input_tokens"],
        "output_tokens": u["output_tokens"],
        "reasoning_tokens": u["reasoning_tokens"],
        **{f"reasoning_{p}": u.get(f"reasoning_{p}") for p in PHASES},
        "visible_tokens": u["visible_tokens"],
        "comm_tokens": u["comm_tokens"],
        "cost_usd": u["cost_usd"],
        "cost_mid": u["cost_mid"],
        "cost_low": u["cost_low"],
        "cost_high": u["cost_high"],
        **{f"fail_{mode}": n for mode, n in mode_counts(classify(trace).values()).items()},
    }


def estimate(rows: Sequence[Row], key: str) -> Estimate:
    """Mean and CI of `key` over `rows`, skipping games where it is undefined."""
    return bootstrap_mean([float(r[key]) for r in rows if r.get(key) is not None])


def _cell(rows: Sequence[Row], key: str, percent: bool, digits: int) -> str:
    return estimate(rows, key).fmt(percent=percent, digits=digits)


def _group(rows: Sequence[Row], *keys: str) -> dict[tuple[Any, ...], list[Row]]:
    out: dict[tuple[Any, ...], list[Row]] = defaultdict(list)
    for r in rows:
        out[tuple(r[k] for k in keys)].append(r)
    return out


def _rank(value: Any, order: Sequence[Any]) -> int:
    return list(order).index(value) if value in order else len(order)


def _ordered(values: Sequence[Any], order: Sequence[Any]) -> list[Any]:
    """`values` in the paper's `order`, anything unknown after it, sorted."""
    present = set(values)
    return [v for v in order if v in present] + sorted(present - set(order), key=str)


def by_team(make: Callable[[Sequence[Row]], list[Row]]) -> Callable[[Sequence[Row]], list[Row]]:
    """`make` applied to each team's games on its own, its rows led by the team (``model``)
    and where its tokens come from (``tokens``: ``model`` or ``estimate``)."""

    def split(rows: Sequence[Row]) -> list[Row]:
        out: list[Row] = []
        for (model, source), group in sorted(_group(rows, "model", "tokens").items()):
            out += [{"model": model, "tokens": source, **row} for row in make(group)]
        return out

    return split


def table1(rows: Sequence[Row]) -> list[Row]:
    """MAS-Bench Table 1: per model and condition, the four metrics per backend."""
    by = _group(rows, "model", "condition", "backend")
    models = sorted({r["model"] for r in rows})
    conditions = _ordered([r["condition"] for r in rows], CONDITION_ORDER)
    backends = _ordered([r["backend"] for r in rows], BACKENDS)
    out: list[Row] = []
    for model in models:
        for cond in conditions:
            cells = {b: by.get((model, cond, b), []) for b in backends}
            if not any(cells.values()):
                continue
            row: Row = {"model": model, "condition": cond}
            for b in backends:
                for key, label, pct, digits in METRICS:
                    row[f"{b} {label}"] = _cell(cells[b], key, pct, digits)
            row["games"] = sum(len(c) for c in cells.values())
            out.append(row)
    return out


def table2(rows: Sequence[Row]) -> list[Row]:
    """MAS-Bench Table 2: SR % by N, per backend and K."""
    by = _group(rows, "n", "backend", "k")
    backends = _ordered([r["backend"] for r in rows], BACKENDS)
    ks = sorted({r["k"] for r in rows})
    out: list[Row] = []
    for n in sorted({r["n"] for r in rows}):
        row: Row = {"N": n}
        for b in backends:
            for k in ks:
                row[f"{b} K={k}"] = _cell(by.get((n, b, k), []), "sr", True, 1)
        out.append(row)
    return out


def table3(rows: Sequence[Row]) -> list[Row]:
    """MAS-Bench Table 3: the metrics per input family, least to most disordered."""
    by = _group(rows, "mode")
    out: list[Row] = []
    for mode in _ordered(list({r["mode"] for r in rows}), MODES):
        group = by[(mode,)]
        row: Row = {"input family": mode, "rho": _cell(group, "rho", False, 3)}
        for key, label, pct, digits in METRICS:
            row[label] = _cell(group, key, pct, digits)
        row["games"] = len(group)
        out.append(row)
    return out


def figure2_data(rows: Sequence[Row]) -> list[Row]:
    """Figure 2's points: per model and N, each metric's mean and CI."""
    out: list[Row] = []
    for (model, n), group in sorted(_group(rows, "model", "n").items(), key=lambda kv: kv[0]):
        row: Row = {"model": model, "N": n, "games": len(group)}
        for key, _, _, _ in METRICS:
            e = estimate(group, key)
            row[key], row[f"{key}_ci_low"], row[f"{key}_ci_high"] = e.mean, e.lo, e.hi
        out.append(row)
    return out


def plot_figure2(data: Sequence[Row], path: Path) -> Path:
    """MAS-Bench Figure 2 (§5.3): four panels (SR, R, TE, CR against N), one line per model
    with its n, 95% CI bars, at paper width; the legend under the panels."""
    from accord.analysis.figures import PAPER_WIDTH, ci_note, legend_below, new_figure, save_figure

    fig = new_figure(PAPER_WIDTH, 4.8)
    axes = fig.subplots(2, 2, sharex=True)
    titles = ["(a) SR %", "(b) R", "(c) TE", "(d) CR %"]
    models = sorted({r["model"] for r in data})
    games = {m: sum(int(r["games"]) for r in data if r["model"] == m) for m in models}
    for p, (ax, (key, _, pct, _), title) in enumerate(zip(axes.flat, METRICS, titles, strict=True)):
        scale = 100.0 if pct else 1.0
        for model in models:
            pts = [r for r in data if r["model"] == model and not math.isnan(r[key])]
            if not pts:
                continue
            xs = [r["N"] for r in pts]
            ys = [r[key] * scale for r in pts]
            err = [
                [(r[key] - r[f"{key}_ci_low"]) * scale for r in pts],
                [(r[f"{key}_ci_high"] - r[key]) * scale for r in pts],
            ]
            ax.errorbar(xs, ys, yerr=err, marker="o", ms=3.5, lw=1.2, capsize=2,
                        label=f"{model} (n = {games[model]})")  # fmt: skip
        ax.set_title(title, fontsize=8)
        ax.tick_params(labelsize=7)
        if p >= 2:
            ax.set_xlabel("number of agents N", fontsize=8)
        ax.set_xticks(sorted({r["N"] for r in data}))
        ax.grid(alpha=0.3)
    legend_below(fig, ncol=2)
    fig.suptitle(
        "Against the number of agents (means over K, modes, backends, conditions)", fontsize=8
    )
    total = sum(games.values())
    low = min((int(r["games"]) for r in data), default=0)
    save_figure(fig, path, note=ci_note(f"{total} ({low} or more a point)"))
    return path


def _mtok(value: float) -> str:
    return f"{value / 1e6:.3f}"


def cost_table(rows: Sequence[Row]) -> list[Row]:
    """App. C Table 4 per model (every task): tokens, communication share and cost."""
    out: list[Row] = []
    for (model, source), group in sorted(_group(rows, "model", "tokens").items()):
        total = sum(float(r["total_tokens"]) for r in group)
        comm = sum(float(r["comm_tokens"]) for r in group)
        priced = all(r["cost_mid"] is not None for r in group)

        def add(key: str, rs: Sequence[Row] = group) -> float:
            return sum(float(r[key]) for r in rs)

        cost = "–"
        if priced and source == "model":
            mid, low, high = add("cost_mid"), add("cost_low"), add("cost_high")
            cost = f"{mid:.2f} [{low:.2f}, {high:.2f}]"
        out.append(
            {
                "model": model,
                "tokens": source,
                "runs": len(group),
                "total (MTok)": _mtok(total),
                "comm (MTok)": _mtok(comm),
                "comm %": f"{100 * comm / total:.2f}" if total else "–",
                "tokens/run": f"{total / len(group):,.0f}",
                "cost $ (midpoint [all-input, all-output])": cost,
                "cost $ (actual split)": f"{add('cost_usd'):.4f}" if cost != "–" else "–",
            }
        )
    return out


def tasks_table(rows: Sequence[Row]) -> list[Row]:
    """App. G.3: SR % and success % per model, task and condition."""
    out: list[Row] = []
    by = _group(rows, "model", "task", "condition")
    for model, task, cond in sorted(
        by, key=lambda key: (key[0], _rank(key[1], TASKS), _rank(key[2], CONDITION_ORDER))
    ):
        group = by[(model, task, cond)]
        out.append(
            {
                "model": model,
                "task": task,
                "condition": cond,
                "SR %": _cell(group, "sr", True, 1),
                "success %": _cell(group, "success", True, 1),
                "games": len(group),
            }
        )
    return out


def build(
    traces: list[Trace], out: Path, prices: Mapping[str, Prices] = PAPER_PRICES
) -> list[Path]:
    """Write every table and the figure for `traces` into `out`; return the files."""
    rows = [game_row(t, prices) for t in traces if t.status == "complete"]
    written: list[Path] = []

    def table(
        name: str, make: Callable[[Sequence[Row]], list[Row]], data: Sequence[Row], title: str
    ) -> None:
        made = make(data)
        if made:
            written.extend(write_table(made, out / name, title=title))

    table("games", lambda rs: list(rs), rows, "Games")
    sort_rows = [r for r in rows if r["task"] == "sort"]
    table("table1", table1, sort_rows, "Per model and condition, per backend (MAS-Bench Table 1)")
    table("table2", by_team(table2), sort_rows, "SR % by N, backend and K (MAS-Bench Table 2)")
    table("table3", by_team(table3), sort_rows, "Effect of input order (MAS-Bench Table 3)")
    if sort_rows:
        data = figure2_data(sort_rows)
        written += write_table(data, out / "figure2", title="Figure 2 points (means, 95% CI)")
        written.append(plot_figure2(data, out / "figure2.png"))
        written.append(out / "figure2.svg")
    table("cost", cost_table, rows, "Tokens and cost (MAS-Bench App. C, Table 4)")
    table("tasks", tasks_table, rows, "SR per task (MAS-Bench App. G.3)")
    table("phases", appendix.phases_table, sort_rows, "R, TE and CR % per phase (§3.4, Table 1)")
    table(
        "table6",
        by_team(appendix.table6),
        sort_rows,
        "Tokens per run, CAMOC vs Base/Abl. (Table 6)",
    )
    table("table7", appendix.table7, sort_rows, "Tokens per correct instance, K-V (Table 7)")
    table("table8", by_team(appendix.table8), sort_rows, "Tokens per run at N = 1 (Table 8)")
    table("table11", appendix.table11, sort_rows, "SR per condition, Welch's test (Table 11)")
    table("welch", appendix.welch_table, sort_rows, "Each condition vs Base, Welch's t-tests")
    table("welch_backends", appendix.welch_backends, sort_rows, "SR between backends, Welch")
    table("failures", appendix.failures_table, sort_rows, "Failure modes by rule (§5.3)")
    return written
