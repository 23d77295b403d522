"""Saving the report's figures the same way everywhere: PNG and SVG, nothing clipped, a bar of
height 0 drawn so it cannot be mistaken for a missing bar, and a footnote giving the figure's
sample size and what its error bars are.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

ZERO_TICK = 0.012
"""Height of the mark drawn for a zero-height bar, as a share of the axis span."""


def mark_zero_bars(ax: Any) -> int:
    """Draw a short thick line (in the bar's colour) and a "0" over every bar of height 0 on
    `ax`; returns how many were marked. An empty slot (no data) stays empty, so the two read
    differently."""
    from matplotlib.patches import Rectangle

    marked = 0
    lo, hi = ax.get_ylim()
    left, right = ax.get_xlim()
    for patch in list(ax.patches):
        if not isinstance(patch, Rectangle):
            continue
        w, h = patch.get_width(), patch.get_height()
        x, y = patch.get_x(), patch.get_y()
        color = patch.get_facecolor()
        if h == 0 and w > 0:  # a vertical bar at zero
            ax.plot([x, x + w], [y, y], color=color, linewidth=3, solid_capstyle="butt")
            ax.annotate("0", (x + w / 2, y), xytext=(0, 3), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7)  # fmt: skip
            marked += 1
        elif w == 0 and h > 0:  # a horizontal bar at zero
            ax.plot([x, x], [y, y + h], color=color, linewidth=3, solid_capstyle="butt")
            ax.annotate("0", (x, y + h / 2), xytext=(3, 0), textcoords="offset points",
                        ha="left", va="center", fontsize=7)  # fmt: skip
            marked += 1
    ax.set_ylim(lo, hi)
    ax.set_xlim(left, right)
    return marked


def pad_to(ax: Any, xs: Iterable[float], ys: Iterable[float], *, share: float = 0.08) -> None:
    """Set `ax`'s limits so every given point (error-bar ends included) lies inside with a
    margin, and the origin stays in view."""
    xv, yv = [float(x) for x in xs], [float(y) for y in ys]
    if not xv or not yv:
        return
    for values, setter in ((xv, ax.set_xlim), (yv, ax.set_ylim)):
        low, high = min(0.0, *values), max(0.0, *values)
        span = (high - low) or 1.0
        setter(low - share * span, high + share * span)


def save_figure(fig: Any, path: Path, *, note: str) -> list[Path]:
    """Mark zero bars, add `note` under the figure, and write `path` (PNG) and the same name
    as SVG with a tight bounding box (legends and labels outside the axes are kept)."""
    for ax in fig.get_axes():
        mark_zero_bars(ax)
    fig.text(0.5, -0.01, note, ha="center", va="top", fontsize=8, color="0.3", wrap=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    svg = path.with_suffix(".svg")
    fig.savefig(path, dpi=150, bbox_inches="tight")
    fig.savefig(svg, bbox_inches="tight")
    return [path, svg]


def ci_note(
    n: int | str, what: str = "games", ci: str | None = "95% percentile-bootstrap CI"
) -> str:
    """The standard footnote: ``n = 90 games; bars: 95% percentile-bootstrap CI over games``."""
    text = f"n = {n} {what}"
    return f"{text}; error bars and bands: {ci} over {what}" if ci else f"{text}; no CI (counts)"
