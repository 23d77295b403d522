"""``reproduction.md``, ``reproduction.json`` and the figures of a reproduction.

Everything is computed from the traces in the run directory, one at a time (memory does not
grow with the number of games), so the write-up of a resumed or extended run is rebuilt from
all its games. Only complete games enter a value; failed games are counted and named by reason.
Each table is written as our rows beside the paper's (`accord.reproduce.compare`), the numbers
the text states beside ours (`accord.reproduce.stated`), every item the kit cannot reproduce
with its reason, and the figures (`accord.reproduce.figures`).
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
from accord.reproduce.compare import (
    TEXT,
    Comparison,
    Observation,
    compare,
    missing_rows,
    our_rows,
)
from accord.reproduce.figures import write_figures
from accord.reproduce.kit import Kit
from accord.reproduce.plan import Plan, get_kit
from accord.reproduce.published import PublishedPaper, PublishedTable
from accord.reproduce.stated import StatedComparison, compare_stated
from accord.traces.io import atomic_write_text, read_trace
from accord.traces.reader import run_traces_folder, trace_files
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
    stated: list[StatedComparison] = field(default_factory=list)
    """The numbers the paper's text states, beside ours."""
    observations: list[Observation] = field(default_factory=list)
    """Every observation of the complete games (the figures pool some of them)."""


def _traces(out: Path, ids: set[str] | None) -> Iterator[Trace]:
    if not (out / "traces").is_dir():
        return
    for path in trace_files(run_traces_folder(out)):
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
        observations += [o for o in kit.observe(trace) if o.table in plan.tables or o.table == TEXT]
    rows = our_rows(o for o in observations if o.table != TEXT)
    same = kit.plays_paper_models(plan.models)
    for table_id in plan.tables:
        rep.tables[table_id] = compare(
            pub.table(table_id), rows, label=kit.row_label, pooled_same=same
        )
    rep.stated = compare_stated(pub.results, observations, same_models=same)
    rep.observations = observations
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


def verdict(
    comps: Sequence[Comparison], complete: int | None = None, rows_need: str | None = None
) -> str:
    """One line on how a table compares: published values inside our CI, or why none is.

    A table without rows says whether no game completed (`complete` is 0) or whether the
    complete games give it no row (`rows_need`: what a game needs to give it one)."""
    judged = [cell.inside for c in comps if c.kind == "value" for cell in c.cells]
    known = [x for x in judged if x is not None]
    if known:
        return f"{sum(known)} of {len(known)} published values inside our 95% CI"
    if any(c.kind == "shape" for c in comps):
        return "compared by shape only: no row was played with the paper's models"
    if comps:
        return "no published counterpart: reference rows the paper does not print"
    if not complete:
        return "no complete game"
    need = f" (a row needs {rows_need})" if rows_need else ""
    return f"no row applies: none of the {complete} complete games gives this table a row{need}"


def table_markdown(
    table: PublishedTable,
    comps: Sequence[Comparison],
    where: str,
    gaps: Mapping[str, str] | None = None,
    complete: int | None = None,
) -> str:
    """One reproduced table as Markdown: ours, paper, inside the CI, per column (`complete`:
    how many games of the run completed, for the line of a table without rows).

    `gaps` (`Kit.known_gaps` of the table) marks each "no" of a row with a documented
    difference from the paper ("**no**¹") and explains it under the table."""
    gaps = gaps or {}
    marks = {agent: i + 1 for i, agent in enumerate(gaps)}
    head = ["row", "games"]
    for col in table.columns:
        head += [f"{col.label} ours", "paper", "in CI"]
    lines = [
        f"## Table {table.id} ({where})" if table.printed else f"## {where}",
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
    elif not table.printed and comps:
        lines.append("The paper draws this figure without printing its numbers: ours only.")
    else:
        lines.append(verdict(comps, complete, table.rows_need) + ".")
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
    figures = write_figures(kit, plan, rep, out / "reproduction")
    # The write-up links only the figures that were drawn (a table without rows has none).
    drawn = [p.relative_to(out) for p in figures if p.suffix == ".png" and p.is_file()]
    written = [_write_markdown(kit, plan, rep, out, command, drawn)]
    written.append(_write_json(rep, out))
    return [*written, *figures]


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


def _write_markdown(
    kit: Kit, plan: Plan, rep: Reproduction, out: Path, command: str, drawn: Sequence[Path]
) -> Path:
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
        gaps = kit.known_gaps.get(table_id)
        lines.append(table_markdown(table, comps, table.where, gaps, rep.complete))
    lines += stated_markdown(rep.stated)
    lines += not_reproduced_markdown(pub)
    lines += figures_markdown(drawn)
    lines += contents_markdown(pub, plan)
    path = out / "reproduction.md"
    atomic_write_text(path, "\n".join(lines))
    return path


def stated_markdown(stated: Sequence[StatedComparison]) -> list[str]:
    """The numbers the text states: ours beside the paper's, or why the kit has none."""
    shown = [s for s in stated if s.ours is not None]
    if not shown:
        return []
    lines = [
        "## Numbers stated in the text",
        "",
        "| where | what | paper | ours | in CI |",
        "|---|---|---|---|---|",
    ]
    for s in shown:
        r = s.result
        pct = r.percent or r.of is not None
        paper = r.shown
        if r.of:  # a count of a total: the share beside it, in the unit ours is printed in
            paper += f" ({100 * r.value / r.of:.1f}%)"
        ours = _ours(s.ours, pct) if s.ours is not None else "–"
        if s.ours is not None and s.ours.n == 0:
            ours = "– (no game of this run applies)"
        elif ours != "–" and s.ours is not None and pct:
            ours += "%"
            if r.of:  # our count of our total, so a share never reads as a count
                ours += f" ({round(s.ours.mean * s.ours.n)} of {s.ours.n})"
        if s.inside is None:
            inside = "–" if ours.startswith("–") else "shape only (other models)"
        else:
            inside = "yes" if s.inside else "**no**"
        lines.append(f"| {r.where} | {r.what} | {paper} | {ours} | {inside} |")
    return [*lines, ""]


def not_reproduced_markdown(pub: PublishedPaper) -> list[str]:
    """Every table and stated number of the paper the kit cannot reproduce, with the reason."""
    tables = [t for t in pub.tables if t.not_reproduced]
    results = [r for r in pub.results if r.not_reproduced]
    if not tables and not results:
        return []
    lines = ["## Not reproduced by this kit", ""]
    for t in tables:
        lines.append(f"- Table {t.id} ({t.where}): {t.not_reproduced}")
    by_reason: dict[str, list[str]] = {}
    for r in results:  # one reason, said once, for every number it covers
        by_reason.setdefault(str(r.not_reproduced), []).append(f"{r.where}, {r.what}: {r.shown}")
    for reason, items in by_reason.items():
        lines.append(f"- {reason[:1].upper()}{reason[1:]}")
        lines += [f"  - {item}" for item in items]
    return [*lines, ""]


def figures_markdown(drawn: Sequence[Path]) -> list[str]:
    """The figures this write-up drew (each also as SVG and PDF), or that there are none."""
    if not drawn:
        return ["No figures: no table of this run has a row to draw.", ""]
    names = ", ".join(f"`{p.as_posix()}`" for p in drawn)
    return [
        f"Figures (each also as `.svg` and `.pdf`): {names}. Ours: a dot or bar with its 95% "
        "CI. The paper: a hollow diamond where its value is compared; where our rows are "
        "another model's, its models' value or range in grey, and in a bar figure its own bars "
        "(dotted lines across our groups, hollow bars for the groups ours lack).",
        "",
    ]


STATUS = {
    "reproduced": "reproduced",
    "drawn": "drawn by `accord report`",
    "not_reproduced": "not reproduced",
    "specification": "specification (no result)",
}
"""How `contents_markdown` names each `PaperItem.status`."""


def contents_markdown(pub: PublishedPaper, plan: Plan) -> list[str]:
    """Every table and figure of the paper, in its order, with what this kit does with it."""
    if not pub.contents:
        return []
    played = {f"Table {t}" for t in plan.tables} | {f"Figure {f}" for f in plan.figures}
    lines = [
        "## The paper's tables and figures",
        "",
        "| item | what | status | how |",
        "|---|---|---|---|",
    ]
    for item in pub.contents:
        status = STATUS[item.status]
        if item.status == "reproduced" and item.item not in played:
            status += " (not in this run)"
        why = (item.reason or "").replace("|", "\\|")
        lines.append(f"| {item.item} | {item.what} | {status} | {why} |")
    return [*lines, ""]


def _estimate_json(est: Estimate) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in est.as_dict().items()}  # fmt: skip


def _write_json(rep: Reproduction, out: Path) -> Path:
    contents = [i.model_dump() for i in get_kit(rep.paper).published.contents]
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
        "stated": [
            {
                "id": s.result.id,
                "where": s.result.where,
                "what": s.result.what,
                "published": s.published,
                "printed": s.result.shown,
                "ours": None if s.ours is None else _estimate_json(s.ours),
                "inside_ci": s.inside,
                "not_reproduced": s.result.not_reproduced,
            }
            for s in rep.stated
        ],
        "contents": contents,
    }  # fmt: skip
    path = out / "reproduction.json"
    atomic_write_text(path, json.dumps(data, indent=1) + "\n")
    return path
