"""Fit a results table to the terminal: whole headers, one line per cell, columns chosen.

Rich squeezes a table wider than the terminal by cropping headers ("calend…") and wrapping
cells, so a confidence interval ``72.9 [25.0, 100.0]`` ends up on three lines. Here the
table is rebuilt instead: columns with no value in any row are left out, every cell keeps one
line, and when the rest is still too wide the last columns are left out and named in the
caption (their values stay in ``summary.json`` and ``accord report``).
"""

from __future__ import annotations

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


def _width(column: Column, cells: Sequence[object]) -> int:
    """Width the column needs to show its header and every cell on one line."""
    header = Text.from_markup(column.header).cell_len if isinstance(column.header, str) else 0
    return max([header, *(Text.from_markup(c).cell_len for c in cells if isinstance(c, str))])


def fit_table(table: Table, width: int, *, keep: int = 2, where: str = "summary.json") -> Table:
    """`table` rebuilt to fit `width` terminal columns.

    Args:
        table: a rich table whose cells are strings (markup allowed).
        width: the terminal's width in characters.
        keep: the first columns always kept (names: batch, pairing); they may wrap.
        where: where the left-out columns' values can be read, for the caption.
    """
    columns = list(table.columns)
    cells = [list(c._cells) for c in columns]
    chosen = [
        i for i, col in enumerate(cells) if i < keep or any(_text(c) not in EMPTY for c in col)
    ]
    needs = {i: _width(columns[i], cells[i]) for i in chosen}
    needs.update({i: min(needs[i], NAME_WIDTH) for i in chosen[:keep]})
    # Per column: one space of padding each side and one border; plus the table's last border.
    total = 1 + sum(needs[i] + 3 for i in chosen)
    dropped: list[int] = []
    while total > width and len(chosen) > keep + 1:
        last = chosen.pop()
        dropped.insert(0, last)
        total -= needs[last] + 3
    caption = table.caption
    if dropped:
        names = ", ".join(_text(columns[i].header) for i in dropped)
        caption = f"Left out for the terminal's width: {names} (see {where}, or widen it)."
    fitted = Table(title=table.title, caption=caption, show_lines=table.show_lines)
    for i in chosen:
        col = columns[i]
        fitted.add_column(
            col.header,
            justify=col.justify,
            no_wrap=i >= keep,
            min_width=needs[i] if i >= keep else None,
        )
    for row in range(table.row_count):
        fitted.add_row(*(cells[i][row] for i in chosen))
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
