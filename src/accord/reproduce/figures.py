"""The figures of a reproduction: one per reproduced table and each paper figure in its shape.

* ``table<id>.png``: a dot plot of the table, a panel per column side by side, its rows down
  the shared y axis (labelled once, on the left). Ours: a filled dot with its 95% CI; the paper:
  a hollow diamond; for a row of another model, the paper's models' range in that cell (a grey
  band, or a grey diamond when they agree).
* ``figure<id>.png``: the paper figure as the paper draws it (`PublishedFigure.shape`): grouped
  bars (CalBench Figure 4, negotiation Figure 2: self-play solid, cross-play hatched), lines
  over N per team (MAS-Bench Figure 2), or talk against no-talk dots with the gain shaded
  (negotiation Figure 3, 1 - overdraw drawn so that higher is better, as in its caption).

Without the paper's models, a bar figure also draws the paper's own bars: as dotted ticks
across the groups ours share with it (negotiation Figure 2, by M/C), and as hollow bars after
ours for the groups ours lack (CalBench Figure 4: the paper's models), so the paper's values
are always in the figure. Every percentage axis spans 0-100 (`PERCENT_LIMITS`).

Every figure is `PAPER_WIDTH` wide, written as PNG, SVG and PDF, states n and what its CIs
resample in its legend or footnote and keeps its legend outside the panels, so no text covers
data or other text (`accord.analysis.figures.overlaps`).
"""

from __future__ import annotations

import math
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matplotlib.ticker import MaxNLocator

from accord.analysis.figures import PAPER_WIDTH, ci_note, legend_below, new_figure, save_figure
from accord.analysis.stats import Estimate, bootstrap_mean
from accord.reproduce.compare import Comparison, Observation
from accord.reproduce.published import PublishedFigure, PublishedTable

if TYPE_CHECKING:
    from accord.reproduce.kit import Kit
    from accord.reproduce.plan import Plan
    from accord.reproduce.writeup import Reproduction

OURS = "C0"
PAPER = "C3"
TALK_DODGE = 0.012
"""Sideways shift (in M/C) of the talk and no-talk dots of Figure 3: where both rates are equal
(0% optimum with and without talk) the two would otherwise sit on each other."""
PERCENT_LIMITS = (-4.0, 104.0)
"""Every percentage axis spans 0-100 (with room for the markers at its ends), so panels and
figures compare at a glance and a narrow range is never stretched to look wide."""


def write_figures(kit: Kit, plan: Plan, rep: Reproduction, folder: Path) -> list[Path]:
    """One figure per table and one per reproduced paper figure (module docstring)."""
    pub = kit.published
    written: list[Path] = []
    for table_id, comps in rep.tables.items():
        if comps and pub.table(table_id).printed:  # a drawn-only table is its figure
            written += table_figure(pub.table(table_id), comps, folder / f"table{table_id}.png")
    for figure_id in plan.figures:
        spec = pub.figure(figure_id)
        comps = rep.tables.get(spec.table, [])
        if not comps:
            continue
        path = folder / f"figure{figure_id}.png"
        table = pub.table(spec.table)
        if spec.shape == "talk":
            obs = [o for o in rep.observations if o.table == spec.table]
            written += talk_figure(spec, table, obs, path)
        elif spec.shape == "lines":
            written += lines_figure(spec, table, comps, kit, path)
        else:
            written += bars_figure(spec, table, comps, kit, path)
    return written


def _scale(table: PublishedTable, key: str) -> tuple[int, float, str]:
    i = next(i for i, c in enumerate(table.columns) if c.key == key)
    col = table.columns[i]
    return i, (100.0 if col.percent else 1.0), col.label


def _usable(est: Estimate) -> bool:
    return est.n > 0 and not math.isnan(est.mean)


def table_figure(table: PublishedTable, comps: Sequence[Comparison], path: Path) -> list[Path]:
    """The dot plot of one table (module docstring)."""
    ncols = len(table.columns)
    height = 1.4 + 0.17 * len(comps)
    fig = new_figure(PAPER_WIDTH, height)
    axes = fig.subplots(1, ncols, sharey=True, squeeze=False)[0]
    ys = list(range(len(comps)))
    for i, (ax, col) in enumerate(zip(axes, table.columns, strict=True)):
        k = 100.0 if col.percent else 1.0
        for y, c in zip(ys, comps, strict=True):
            est, cell = c.cells[i].ours, c.cells[i]
            if _usable(est):
                ax.errorbar(
                    est.mean * k,
                    y,
                    xerr=[[(est.mean - est.lo) * k], [(est.hi - est.mean) * k]],
                    fmt="o",
                    ms=3.5,
                    color=OURS,
                    capsize=2,
                    lw=1,
                    label="ours (95% CI)",
                )
            if c.kind in ("value", "shape") and cell.published is not None:
                face = "none" if c.kind == "value" else "0.6"
                ax.plot(
                    cell.published * k,
                    y,
                    "D",
                    mfc=face,
                    mec=PAPER,
                    ms=5,
                    label="paper" if c.kind == "value" else "paper (pooled, its models)",
                )
            elif c.kind == "shape" and cell.paper_range is not None:
                lo, hi = cell.paper_range
                if math.isclose(lo, hi):
                    ax.plot(lo * k, y, "D", mfc="0.6", mec="0.4", ms=5, label="paper, its models")
                else:
                    ax.plot(
                        [lo * k, hi * k],
                        [y, y],
                        color="0.6",
                        lw=5,
                        alpha=0.6,
                        solid_capstyle="butt",
                        label="paper, its models (range)",
                    )
        ax.set_title(textwrap.fill(col.label, max(8, 80 // ncols)), fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=3))  # narrow panels: few, readable ticks
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
        if col.percent:  # a rate on its whole scale: 84-100 must not look like 0-100
            ax.set_xlim(*PERCENT_LIMITS)
        else:
            ax.margins(x=0.12)
    axes[0].set_yticks(ys)
    axes[0].set_yticklabels([_short(c.label) for c in comps], fontsize=6.5)
    axes[0].set_ylim(len(comps) - 0.5, -0.5)  # the paper's row order, top to bottom
    legend_below(fig)
    fig.suptitle(_title(f"Table {table.id} ({table.where})"), fontsize=8)
    games = sum(c.games for c in comps)
    return save_figure(fig, path, note=ci_note(games, "games") + "; n per row in reproduction.md")


def _title(text: str) -> str:
    """`text` wrapped to the figure's width (the layout then leaves room for every line)."""
    return textwrap.fill(text, 110)


def _short(label: str, width: int = 46) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def _series_name(identity: Mapping[str, Any], key: str | None, kit: Kit) -> str:
    if key is None:
        return kit.row_label(identity)
    value = identity.get(key, identity.get("team") if key == "model" else None)
    if isinstance(value, tuple | list):
        return " × ".join(map(str, value))
    return str(value)


def bars_figure(
    spec: PublishedFigure, table: PublishedTable, comps: Sequence[Comparison], kit: Kit, path: Path
) -> list[Path]:
    """Grouped bars with 95% CIs: a group per `spec.x`, a bar per `spec.group`; the paper's
    values as hollow diamonds on the bars, or, without the paper's models, its own bars
    (`_paper_ticks`, `_paper_bars`). Pairs of two models are hatched (cross-play)."""
    key = spec.columns[0]
    i, k, label = _scale(table, key)
    xs = sorted({_series_name(c.identity, spec.x, kit) for c in comps}, key=_natural)
    groups = sorted({_series_name(c.identity, spec.group, kit) for c in comps}, key=_natural)
    fig = new_figure(PAPER_WIDTH, 3.2)
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(1, len(groups))
    counts: dict[str, list[int]] = defaultdict(list)
    for c in comps:
        x = xs.index(_series_name(c.identity, spec.x, kit))
        g = groups.index(_series_name(c.identity, spec.group, kit))
        est, cell = c.cells[i].ours, c.cells[i]
        pos = x - 0.4 + width * (g + 0.5)
        name = groups[g]
        hatched = (
            isinstance(c.identity.get("models"), tuple | list) and len(c.identity["models"]) == 2
        )
        if _usable(est):
            counts[name].append(c.games)
            ax.bar(
                pos,
                est.mean * k,
                width * 0.92,
                color=f"C{g % 10}",
                hatch="///" if hatched else None,
                edgecolor="white",
                label=name,
            )
            ax.errorbar(
                pos,
                est.mean * k,
                yerr=[[(est.mean - est.lo) * k], [(est.hi - est.mean) * k]],
                fmt="none",
                ecolor="0.15",
                capsize=2,
                lw=1,
            )
        if c.kind == "value" and cell.published is not None:
            ax.plot(pos, cell.published * k, "D", mfc="none", mec=PAPER, ms=6, label="paper")
    ticks = [f"M/C = {x}" if spec.x == "ratio" else x for x in xs]
    if not any(c.kind == "value" for c in comps):
        _paper_ticks(ax, spec, table, xs, i, k)
        ticks += _paper_bars(ax, spec, table, kit, xs, groups, i)
    ax.set_xticks(range(len(ticks)))
    ax.set_xticklabels(ticks, fontsize=7 if len(ticks) < 7 else 6)
    ax.set_ylabel(label, fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(axis="y", alpha=0.3)
    if k == 100.0:
        ax.set_ylim(0, PERCENT_LIMITS[1])
    else:
        ax.set_ylim(bottom=0)
    _relabel_with_n(ax, counts)
    legend_below(fig)
    fig.suptitle(_title(f"Figure {spec.id} ({spec.where})"), fontsize=8)
    games = sum(c.games for c in comps)
    return save_figure(fig, path, note=ci_note(games, spec.unit))


def _paper_ticks(
    ax: Any, spec: PublishedFigure, table: PublishedTable, xs: Sequence[str], i: int, k: float
) -> None:
    """Without the paper's models, the paper's own bars of each group as grey ticks across
    the group (the values our bars are set beside for their shape)."""
    for row in table.rows:
        value = row.values[i]
        where = str(row.identity.get(spec.x or "", ""))
        if value is None or where not in xs:
            continue
        x = xs.index(where)
        ax.plot([x - 0.42, x + 0.42], [float(value)] * 2,
                color="0.45", lw=0.8, ls=":", label="paper's bars (its models)")  # fmt: skip


def _paper_bars(
    ax: Any,
    spec: PublishedFigure,
    table: PublishedTable,
    kit: Kit,
    xs: Sequence[str],
    groups: Sequence[str],
    i: int,
) -> list[str]:
    """The paper's own bars for the x groups ours lack (CalBench Figure 4 drawn with other
    models: the paper's models after ours), hollow, in the same colour per group; no CI, as
    the paper prints none. Returns their tick labels."""
    ticks: list[str] = []
    names: list[str] = []
    for row in table.rows:  # in the paper's row order, each of its x groups once
        if _series_name(row.identity, spec.x, kit) not in xs and row.label not in names:
            names.append(row.label)
    first = len(xs)
    width = 0.8 / max(1, len(groups))
    for name in names:
        bars = [
            (groups.index(g_name), float(value))
            for row in table.rows
            if row.label == name
            and (value := row.values[i]) is not None
            and (g_name := _series_name(row.identity, spec.group, kit)) in groups
        ]
        if not bars:  # a paper group none of our series can be set beside
            continue
        x = first + len(ticks)
        for g, value in bars:
            ax.bar(
                x - 0.4 + width * (g + 0.5),
                value,
                width * 0.92,
                facecolor="none",
                edgecolor=f"C{g % 10}",
                lw=1.2,
                label=f"{groups[g]}: paper (its models, no CI printed)",
            )
        ticks.append("paper:\n" + textwrap.fill(name, 12))
    if ticks:
        ax.axvline(first - 0.5, color="0.5", lw=0.8, ls="--")
    return ticks


def _relabel_with_n(ax: Any, counts: Mapping[str, list[int]]) -> None:
    """Each series' legend entry says its n (games per bar, a range when they differ)."""
    for artist in [*ax.patches, *ax.lines, *ax.collections, *ax.containers]:
        name = artist.get_label()
        if name in counts:
            lo, hi = min(counts[name]), max(counts[name])
            n = f"{lo}" if lo == hi else f"{lo}-{hi}"
            artist.set_label(f"{name} (n = {n})")


def _natural(text: str) -> tuple[float, str]:
    try:
        return (float(text.split("=")[-1]), text)
    except ValueError:
        return (math.inf, text)


def lines_figure(
    spec: PublishedFigure, table: PublishedTable, comps: Sequence[Comparison], kit: Kit, path: Path
) -> list[Path]:
    """A panel per column in a 2 x 2 grid (MAS-Bench Figure 2 (a)-(d)), a line per team over
    `spec.x` with 95% CI bars."""
    fig = new_figure(PAPER_WIDTH, 4.6)
    n_panels = len(spec.columns)
    rows = 2 if n_panels > 2 else 1
    axes = fig.subplots(rows, math.ceil(n_panels / rows), sharex=True, squeeze=False).ravel()
    series: dict[str, list[Comparison]] = defaultdict(list)
    for c in comps:
        series[_series_name(c.identity, spec.group, kit)].append(c)
    games: dict[str, int] = {name: sum(c.games for c in cs) for name, cs in series.items()}
    for p, (ax, key) in enumerate(zip(axes, spec.columns, strict=False)):
        i, k, label = _scale(table, key)
        for s, (name, cs) in enumerate(sorted(series.items())):
            pts = sorted(
                (
                    (float(c.identity[spec.x or "n"]), c.cells[i].ours)
                    for c in cs
                    if _usable(c.cells[i].ours)
                ),
                key=lambda t: t[0],
            )
            if not pts:
                continue
            xs = [x for x, _ in pts]
            ax.errorbar(
                xs,
                [e.mean * k for _, e in pts],
                yerr=[[(e.mean - e.lo) * k for _, e in pts], [(e.hi - e.mean) * k for _, e in pts]],
                fmt="-o",
                ms=3.5,
                lw=1.2,
                capsize=2,
                color=f"C{s % 10}",
                label=f"{name} (n = {games[name]})",
            )
        ax.set_title(f"({'abcd'[p]}) {label}", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        if p >= len(axes) - math.ceil(n_panels / rows):
            ax.set_xlabel(f"number of agents {(spec.x or 'n').upper()}", fontsize=8)
    xs_all = sorted({float(c.identity[spec.x or "n"]) for c in comps})
    axes[0].set_xticks(xs_all)
    axes[0].set_xticklabels([f"{x:g}" for x in xs_all])
    legend_below(fig, ncol=2)
    fig.suptitle(_title(f"Figure {spec.id} ({spec.where})"), fontsize=8)
    return save_figure(fig, path, note=ci_note(sum(games.values()), "games"))


def talk_figure(
    spec: PublishedFigure, table: PublishedTable, obs: Iterable[Observation], path: Path
) -> list[Path]:
    """Negotiation Figure 3: per M/C, cheap talk (filled) against no talk (hollow), pooled over
    models and partner stability, the gain shaded; overdraw drawn as 1 - overdraw."""
    pooled: dict[tuple[float, bool], list[Observation]] = defaultdict(list)
    for o in obs:
        ident = dict(o.identity)
        pooled[(float(ident["ratio"]), bool(ident["cheap_talk"]))].append(o)
    ratios = sorted({r for r, _ in pooled})
    fig = new_figure(PAPER_WIDTH, 2.6)
    axes = fig.subplots(1, len(spec.columns), sharey=True, squeeze=False)[0]
    n_games = sum(len(v) for v in pooled.values())
    for ax, key in zip(axes, spec.columns, strict=True):
        flip = key == "overdraw_rate"
        i, _, label = _scale(table, key)
        drawn: dict[bool, list[float]] = {}
        for talk in (True, False):
            xs, ys, lo, hi = [], [], [], []
            for r in ratios:
                vals = [
                    v for o in pooled.get((r, talk), []) if (v := o.values.get(key)) is not None
                ]
                est = bootstrap_mean([1.0 - v for v in vals] if flip else vals)
                if _usable(est):
                    xs.append(r + (-TALK_DODGE if talk else TALK_DODGE))
                    ys.append(est.mean * 100)
                    lo.append((est.mean - est.lo) * 100)
                    hi.append((est.hi - est.mean) * 100)
            if xs:
                n = sum(len(pooled.get((r, talk), [])) for r in ratios)
                ax.errorbar(
                    xs,
                    ys,
                    yerr=[lo, hi],
                    fmt="o-" if talk else "o--",
                    ms=5,
                    mfc=OURS if talk else "white",
                    mec=OURS,
                    color=OURS,
                    capsize=2,
                    lw=1,
                    label=f"{'cheap talk' if talk else 'no talk'} (n = {n})",
                )
                drawn[talk] = ys
        if len(drawn) == 2 and len(drawn[True]) == len(drawn[False]) == len(ratios):
            ax.fill_between(
                ratios, drawn[False], drawn[True], color=OURS, alpha=0.12, label="gain from talk"
            )
        for talk, marker in ((True, "D"), (False, "d")):
            paper = _paper_mean(table, i, ratios, talk, flip)
            if paper:
                ax.plot(
                    [r + (-TALK_DODGE if talk else TALK_DODGE) for r in ratios],
                    paper,
                    marker,
                    mfc="none" if not talk else PAPER,
                    mec=PAPER,
                    ls="none",
                    ms=5,
                    label=f"paper, {'talk' if talk else 'no talk'}",
                )
        ax.set_title(("1 - " + label) if flip else label, fontsize=8)
        ax.set_xticks(ratios)
        ax.set_xticklabels([f"{r:g}" for r in ratios])
        ax.set_xlabel("M/C", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        ax.margins(x=0.15)
        ax.set_ylim(*PERCENT_LIMITS)
    legend_below(fig, ncol=3)
    fig.suptitle(_title(f"Figure {spec.id} ({spec.where})"), fontsize=8)
    note = (
        ci_note(n_games, "games")
        + f"; talk and no talk drawn {TALK_DODGE:g} apart either side of each M/C, so equal "
        "values stay visible; shaded: the gain from talk (a difference of means, no CI)"
    )
    return save_figure(fig, path, note=note)


def _paper_mean(
    table: PublishedTable, i: int, ratios: Sequence[float], talk: bool, flip: bool
) -> list[float]:
    """The paper's figure values: the mean of its table rows per M/C and talk condition."""
    out = []
    for r in ratios:
        vals: list[float] = []
        for row in table.rows:
            value = row.values[i]
            same = math.isclose(float(row.identity.get("ratio", -1)), r)
            if same and row.identity.get("cheap_talk") is talk and value is not None:
                vals.append(float(value))
        if not vals:
            return []
        mean = sum(vals) / len(vals)
        out.append(100.0 - mean if flip else mean)
    return out
