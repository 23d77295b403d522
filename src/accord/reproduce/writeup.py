"""``reproduction.md``, ``reproduction.json`` and the figures of a reproduction.

Everything is computed from the traces in the run directory, one at a time (memory does not
grow with the number of games), so the write-up of a resumed or extended run is rebuilt from
all its games. Only complete games enter a value; failed games are counted and named by reason.
Each table is written as our rows beside the paper's (`accord.reproduce.compare`), and each
figure as our means with their 95% CIs, the published values overlaid as hollow diamonds.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.analysis.stats import Estimate
from accord.core.errors import ConfigError
from accord.reproduce.compare import Comparison, Observation, compare, missing_rows, our_rows
from accord.reproduce.kit import Kit
from accord.reproduce.plan import Plan, get_kit
from accord.reproduce.published import PublishedTable
from accord.traces.io import atomic_write_text, read_trace
from accord.traces.schema import Trace


@dataclass
class Reproduction:
    """What the write-up says, also saved as ``reproduction.json``."""

    paper: str
    title: str
    tables: dict[str, list[Comparison]] = field(default_factory=dict)
    complete: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    planned: int = 0


def _traces(out: Path, ids: set[str] | None) -> Iterator[Trace]:
    for path in sorted((out / "traces").glob("*.json")):
        if ids is not None and path.stem not in ids:
            continue
        try:
            yield read_trace(path)
        except ConfigError:
            continue


def collect(plan: Plan, out: Path) -> Reproduction:
    """Our rows beside the paper's for every planned table, from the traces in `out`."""
    kit = get_kit(plan.paper)
    pub = kit.published
    rep = Reproduction(plan.paper, pub.title, planned=len(plan.specs))
    observations: list[Observation] = []
    for trace in _traces(out, {s.trace_id for s in plan.specs}):
        if trace.status != "complete":
            rep.failed[str(trace.error or "failed")] += 1
            continue
        rep.complete += 1
        observations += [o for o in kit.observe(trace) if o.table in plan.tables]
    rows = our_rows(observations)
    same = kit.plays_paper_models(plan.models)
    for table_id in plan.tables:
        rep.tables[table_id] = compare(
            pub.table(table_id), rows, label=kit.row_label, pooled_same=same
        )
    return rep


def _num(value: float, percent: bool) -> str:
    k = 100.0 if percent else 1.0
    digits = 1 if percent else 2
    return f"{value * k:.{digits}f}"


def _ours(est: Estimate, percent: bool) -> str:
    if est.n == 0 or math.isnan(est.mean):
        return "–"
    if est.lo == est.hi:
        return _num(est.mean, percent)
    return f"{_num(est.mean, percent)} [{_num(est.lo, percent)}, {_num(est.hi, percent)}]"


def _paper_cell(c: Comparison, i: int) -> tuple[str, str]:
    """The paper column and the in-CI column of one cell."""
    cell = c.cells[i]
    if c.kind == "value" and cell.published is not None:
        inside = "–" if cell.inside is None else ("yes" if cell.inside else "**no**")
        return _num(cell.published, cell.percent), inside
    if c.kind == "shape" and cell.published is not None:  # a pooled row, other models
        return _num(cell.published, cell.percent), "shape only (other models)"
    if c.kind == "shape" and cell.paper_range is not None:
        lo, hi = (_num(v, cell.percent) for v in cell.paper_range)
        shown = lo if lo == hi else f"{lo}–{hi}"
        return f"{shown} (paper's models)", "shape only (other model)"
    return "–", "no published row"


def verdict(comps: Sequence[Comparison]) -> str:
    """One line on how a table compares: published values inside our CI, or why none is."""
    judged = [cell.inside for c in comps if c.kind == "value" for cell in c.cells]
    known = [x for x in judged if x is not None]
    if known:
        return f"{sum(known)} of {len(known)} published values inside our 95% CI"
    if any(c.kind == "shape" for c in comps):
        return "compared by shape only: no row was played with the paper's models"
    if comps:
        return "no published counterpart: reference rows the paper does not print"
    return "no complete game"


def table_markdown(
    table: PublishedTable,
    comps: Sequence[Comparison],
    where: str,
    gaps: Mapping[str, str] | None = None,
) -> str:
    """One reproduced table as Markdown: ours, paper, inside the CI, per column.

    `gaps` (`Kit.known_gaps` of the table) marks each "no" of a row with a documented
    difference from the paper ("**no**¹") and explains it under the table."""
    gaps = gaps or {}
    marks = {agent: i + 1 for i, agent in enumerate(gaps)}
    head = ["row", "games"]
    for col in table.columns:
        head += [f"{col.label} ours", "paper", "in CI"]
    lines = [
        f"## Table {table.id} ({where})",
        "",
        table.caption,
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for c in comps:
        cells = [c.label, str(c.games)]
        mark = marks.get(c.label.split(" ")[0])
        for i, col in enumerate(table.columns):
            paper, inside = _paper_cell(c, i)
            if mark is not None and inside == "**no**":
                inside = f"**no** (note {mark})"
            cells += [_ours(c.cells[i].ours, col.percent), paper, inside]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for agent, mark in marks.items():
        if any(c.label.split(" ")[0] == agent for c in comps):
            lines += [f"Note {mark} ({agent}, a documented difference): {gaps[agent]}", ""]
    judged = [cell.inside for c in comps if c.kind == "value" for cell in c.cells]
    known = [x for x in judged if x is not None]
    if known:
        lines.append(
            f"{sum(known)} of {len(known)} published values lie inside our 95% CI "
            f"(rows compared by value: {sum(1 for c in comps if c.kind == 'value')})."
        )
    else:
        lines.append(verdict(comps) + ".")
    missing = missing_rows(table, comps)
    if missing and len(missing) < len(table.rows):
        lines.append(
            "Published rows not compared by value here: "
            + ", ".join(r.label for r in missing)
            + "."
        )
    lines.append("")
    return "\n".join(lines)


def write_reproduction(
    plan: Plan, out: Path, *, command: str = "", rep: Reproduction | None = None
) -> list[Path]:
    """Write ``reproduction.md``, ``reproduction.json`` and the figures into `out` (from `rep`
    when the caller has already collected it)."""
    kit = get_kit(plan.paper)
    rep = rep if rep is not None else collect(plan, out)
    written = [_write_markdown(kit, plan, rep, out, command)]
    written.append(_write_json(rep, out))
    written += write_figures(kit, plan, rep, out / "reproduction")
    return written


def _model_lines(kit: Kit, plan: Plan) -> list[str]:
    if not plan.models:
        return ["- No model: only the reference rows were played."]
    out = []
    for m in plan.models:
        name = m.model or "?"
        if kit.is_paper_model(name):
            out.append(f"- `{name}`: one of the paper's models, so its rows compare by value.")
        else:
            out.append(
                f"- `{name}`: not a model of the paper, so its rows are set beside the paper's "
                "models for their shape (ordering, trends), not their values."
            )
    return out


def _write_markdown(kit: Kit, plan: Plan, rep: Reproduction, out: Path, command: str) -> Path:
    pub = kit.published
    lines = [f"# Reproduction: {pub.title}", ""]
    if command:
        lines += ["```", command, "```", ""]
    if plan.smoke:
        lines += [
            "**Smoke run**: a reduced grid to check the pipeline end to end. Its numbers are "
            "not a reproduction of the paper.",
            "",
        ]
    lines += _model_lines(kit, plan)
    lines += [
        f"- Games: {rep.planned} planned, {rep.complete} complete, "
        f"{sum(rep.failed.values())} failed (kept out of every value).",
    ]
    for reason, count in rep.failed.most_common():
        lines.append(f"  - {count} × {reason}")
    lines += [f"- {note}" for note in plan.notes]
    lines += [
        "",
        "Ours: mean [95% percentile-bootstrap CI] over complete games (games are the resampling "
        "unit). Paper: the published value, transcribed. In CI: whether the published value lies "
        "inside our interval (a rounding tolerance of half a printed digit). Percentages as the "
        "paper prints them.",
        "",
    ]
    for table_id, comps in rep.tables.items():
        table = pub.table(table_id)
        lines.append(table_markdown(table, comps, table.where, kit.known_gaps.get(table_id)))
    figs = [f"table{t}.png" for t in rep.tables] + [f"figure{f}.png" for f in plan.figures]
    lines += [
        "Figures (published values as hollow diamonds): "
        + ", ".join(f"`reproduction/{name}`" for name in figs),
        "",
    ]
    path = out / "reproduction.md"
    atomic_write_text(path, "\n".join(lines))
    return path


def _estimate_json(est: Estimate) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in est.as_dict().items()}  # fmt: skip


def _write_json(rep: Reproduction, out: Path) -> Path:
    data: dict[str, Any] = {
        "paper": rep.paper,
        "title": rep.title,
        "planned": rep.planned,
        "complete": rep.complete,
        "failed": dict(rep.failed),
        "tables": {
            tid: [
                {
                    "label": c.label,
                    "identity": {k: list(v) if isinstance(v, tuple) else v
                                 for k, v in c.identity.items()},
                    "games": c.games,
                    "kind": c.kind,
                    "published_row": c.published_label,
                    "cells": [
                        {
                            "column": cell.label,
                            "ours": _estimate_json(cell.ours),
                            "published": cell.published,
                            "inside_ci": cell.inside,
                            "paper_range": cell.paper_range,
                        }
                        for cell in c.cells
                    ],
                }
                for c in comps
            ]
            for tid, comps in rep.tables.items()
        },
    }  # fmt: skip
    path = out / "reproduction.json"
    atomic_write_text(path, json.dumps(data, indent=1) + "\n")
    return path


def write_figures(kit: Kit, plan: Plan, rep: Reproduction, folder: Path) -> list[Path]:
    """One figure per table (a panel per column) and one per reproduced paper figure."""
    pub = kit.published
    written: list[Path] = []
    for table_id, comps in rep.tables.items():
        if comps:
            table = pub.table(table_id)
            cols = [c.key for c in table.columns]
            written += _figure(table, comps, cols, folder / f"table{table_id}.png")
    for figure_id in plan.figures:
        fig = pub.figure(figure_id)
        comps = rep.tables.get(fig.table, [])
        if comps:
            written += _figure(
                pub.table(fig.table), comps, [fig.column], folder / f"figure{figure_id}.png"
            )
    return written


def _figure(
    table: PublishedTable, comps: Sequence[Comparison], keys: Sequence[str], path: Path
) -> list[Path]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from accord.analysis.figures import ci_note, save_figure

    index = [i for i, c in enumerate(table.columns) if c.key in keys]
    width = min(40.0, max(5.0, 0.32 * len(comps) + 2.0))
    fig = Figure(figsize=(width, 2.8 * len(index) + 0.8), layout="constrained")
    FigureCanvasAgg(fig)  # no display, no global pyplot state
    xs = list(range(len(comps)))
    for p, i in enumerate(index):
        col = table.columns[i]
        k = 100.0 if col.percent else 1.0
        ax = fig.add_subplot(len(index), 1, p + 1)
        seen: set[str] = set()

        def once(name: str, seen: set[str] = seen) -> str:
            if name in seen:
                return "_nolegend_"  # matplotlib leaves labels starting with _ out of legends
            seen.add(name)
            return name

        for x, c in zip(xs, comps, strict=True):
            est, cell = c.cells[i].ours, c.cells[i]
            if est.n and not math.isnan(est.mean):
                ax.errorbar(
                    x, est.mean * k,
                    yerr=[[(est.mean - est.lo) * k], [(est.hi - est.mean) * k]],
                    fmt="o", color="C0", capsize=3, label=once("ours (95% CI)"),
                )  # fmt: skip
            if c.kind == "value" and cell.published is not None:
                ax.plot(x, cell.published * k, "D", mfc="none", mec="C3", ms=8,
                        label=once("paper"))  # fmt: skip
            elif c.kind == "shape" and cell.paper_range is not None:
                lo, hi = cell.paper_range
                ax.vlines(x, lo * k, hi * k, colors="0.6", lw=4, alpha=0.6,
                          label=once("paper, other models"))  # fmt: skip
        ax.set_ylabel(col.label)
        ax.set_xticks(xs)
        ax.set_xticklabels([c.label for c in comps], rotation=60, ha="right", fontsize=7)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.suptitle(f"Table {table.id} ({table.where}): ours beside the paper", fontsize=9)
    games = sum(c.games for c in comps)
    return save_figure(fig, path, note=ci_note(games, "games"))
