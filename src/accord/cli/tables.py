"""Fit a results table to the terminal: whole headers, one line per cell, columns chosen.

Rich squeezes a table wider than the terminal by cropping headers ("calend…") and wrapping
cells, so a confidence interval ``72.9 [25.0, 100.0]`` ends up on three lines. Here the
table is rebuilt instead: columns with no value in any row are left out, every cell keeps one
line, and when the rest is still too wide the least essential columns are left out and named
in the caption (their values stay in ``summary.json`` and ``accord report``): each row keeps
its own first columns, so a run of several games keeps every game's headline metric.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.markup import escape
from rich.table import Column, Table
from rich.text import Text

__all__ = ["fit_table", "summary_table"]

EMPTY = frozenset({"", "–", "-"})
"""Cell texts that mean "no value"."""


def _text(cell: object) -> str:
    return Text.from_markup(cell).plain if isinstance(cell, str) else str(cell)


NAME_WIDTH = 30
"""Room given to a kept name column (batch, pairing) before it wraps."""


def _width(column: Column, cells: Sequence[object], *, wrap_header: bool = False) -> int:
    """Width the column needs to show every cell on one line, and its header on one line (or
    with `wrap_header`, its longest word)."""
    header = Text.from_markup(column.header).plain if isinstance(column.header, str) else ""
    words = header.split() if wrap_header else [header]
    header_len = max((Text(w).cell_len for w in words), default=0)
    return max([header_len, *(Text.from_markup(c).cell_len for c in cells if isinstance(c, str))])


def _ranks(cells: Sequence[Sequence[object]], chosen: list[int], keep: int) -> dict[int, int]:
    """Per column, how essential it is (0 most). A mixed-game table's rows each have their
    own game's metrics, and each row's first ones are its essentials: the columns every row
    has before the first a row lacks (games, failed) are 0, any other column its best place
    among a row's other valued columns. In a one-game table that is the column order."""
    rows = range(len(cells[0]) if cells else 0)
    valued = {i: {r for r in rows if _text(cells[i][r]) not in EMPTY} for i in chosen}
    body = [i for i in chosen if i >= keep]
    partial = [i for i in body if len(valued[i]) < len(rows)]
    shared = {i for i in body if partial and i < partial[0]}
    ranks = {i: 0 if i in shared else len(chosen) for i in body}
    for row in rows:
        own = [i for i in body if i not in shared and row in valued[i]]
        for place, i in enumerate(own):
            ranks[i] = min(ranks[i], place)
    return ranks


def _pick(order: list[int], needs: dict[int, int], room: int) -> list[int]:
    """Columns of `order` (most essential first) that fit `room`, each taking its need + 3."""
    picked = []
    for i in order:
        if needs[i] + 3 <= room:
            picked.append(i)
            room -= needs[i] + 3
    return sorted(picked)


def _mean_only(cell: object) -> object:
    """``72.9 [25.0, 100.0]`` -> ``72.9``."""
    return cell.split(" [", 1)[0] if isinstance(cell, str) and _CI.search(cell) else cell


_CI = re.compile(r" \[-?[\d.]+, -?[\d.]+\]")


def fit_table(table: Table, width: int, *, keep: int = 2, where: str = "summary.json") -> Table:
    """`table` rebuilt to fit `width` terminal columns.

    The columns kept are the most essential that fit: those a row shows first (in a
    mixed-game table, each game's own first metrics, not only the first game's). When even
    each row's first columns do not fit with their confidence intervals, the intervals are
    left out (said in the caption) so the means stay readable.

    Args:
        table: a rich table whose cells are strings (markup allowed).
        width: the terminal's width in characters.
        keep: the first columns always kept (names: batch, pairing); they may wrap.
        where: where the left-out columns' values can be read, for the caption.
    """
    columns = list(table.columns)
    cells: list[list[Any]] = [list(c._cells) for c in columns]
    valued = [
        i for i, col in enumerate(cells) if i < keep or any(_text(c) not in EMPTY for c in col)
    ]
    names = valued[:keep]
    ranks = _ranks(cells, valued, keep)
    order = sorted(ranks, key=lambda i: (ranks[i], i))
    essential = [i for i in order if ranks[i] == 0] or order[:1]
    notes: list[str] = []
    for means_only in (False, True):
        shown = [[_mean_only(c) for c in col] if means_only else col for col in cells]
        needs = {i: _width(columns[i], shown[i], wrap_header=means_only) for i in valued}
        needs.update({i: min(needs[i], NAME_WIDTH // (2 if means_only else 1)) for i in names})
        # Per column: one space of padding each side and one border; plus the last border.
        room = width - 1 - sum(needs[i] + 3 for i in names)
        chosen = _pick(order, needs, room)
        if all(i in chosen for i in essential):
            break
    if means_only:
        notes.append("the 95% CIs")
    cells = shown
    dropped = [i for i in order if i not in chosen]
    if dropped:
        notes.append(", ".join(_text(columns[i].header) for i in sorted(dropped)))
    caption = table.caption
    if notes:
        left = "; ".join(notes)
        caption = f"Left out for the terminal's width: {left} (see {where}, or widen it)."
    fitted = Table(title=table.title, caption=caption, show_lines=table.show_lines)
    for i in [*names, *chosen]:
        col = columns[i]
        fitted.add_column(
            col.header,
            justify=col.justify,
            no_wrap=i >= keep and not means_only,
            min_width=needs[i] if i >= keep else None,
            max_width=needs[i] if means_only else None,
            overflow="fold" if i < keep else "ellipsis",  # a long batch name wraps, whole
        )
    for row in range(table.row_count):
        fitted.add_row(*(cells[i][row] for i in [*names, *chosen]))
    return fitted


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
