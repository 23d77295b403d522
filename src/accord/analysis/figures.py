"""Drawing the report's figures the same way everywhere: paper width (`new_figure`), PNG, SVG
and PDF (the vector forms a paper includes) with nothing clipped, a bar of height 0 drawn so
it cannot be mistaken for a missing bar, a footnote giving the figure's sample size and what
its error bars are, and a layout check (`overlaps`) that finds text covering data, a legend
or other text, from matplotlib's own layout. Inside `check_layout`, every saved figure is
checked and its problems collected.
"""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PAPER_WIDTH = 6.75
"""Width in inches of a figure spanning a two-column paper's text (its ``figure*`` width)."""

_checking: list[dict[str, list[str]]] = []

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
            if not _error_bar_at(ax, x, x + w, y):  # its CI already shows the bar is there
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


def _error_bar_at(ax: Any, left: float, right: float, y: float) -> bool:
    """True when a vertical error bar of `ax` rises from `y` inside [left, right] (the "0" of a
    zero bar would sit on it)."""
    from matplotlib.collections import LineCollection

    for coll in ax.collections:
        if not isinstance(coll, LineCollection):
            continue
        for seg in coll.get_segments():
            xs, ys = [float(p[0]) for p in seg], [float(p[1]) for p in seg]
            if len(xs) and min(xs) >= left and max(xs) <= right and max(ys) > y >= min(ys) - 1e-12:
                return True
    return False


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


def new_figure(width: float = PAPER_WIDTH, height: float = 3.0) -> Any:
    """A matplotlib Figure with constrained layout on its own Agg canvas (no pyplot state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def legend_below(fig: Any, *, ncol: int = 3, fontsize: float = 7) -> None:
    """One legend for every panel of `fig` (each label once), under the panels and outside
    the layout, so it covers no data; `save_figure`'s note goes below it."""
    handles: list[Any] = []
    labels: list[str] = []
    for ax in fig.get_axes():
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if handles:
        # As many columns as fit the figure's width (7-point text: about 17 characters an
        # inch, plus the handle), so the legend is never wider than the page.
        fits = int(fig.get_figwidth() * 17 / (max(len(lab) for lab in labels) + 6))
        ncol = max(1, min(ncol, fits))
        fig.legend(
            handles,
            labels,
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=max(1, min(ncol, len(labels))),
            fontsize=fontsize,
            frameon=False,
        )


def save_figure(fig: Any, path: Path, *, note: str) -> list[Path]:
    """Mark zero bars, add `note` under the figure, and write `path` (PNG) and the same name
    as SVG and PDF with a tight bounding box (legends and labels outside the axes are kept)."""
    for ax in fig.get_axes():
        mark_zero_bars(ax)
    fig.canvas.draw()  # lay out first, so the note goes under everything drawn
    lowest = fig.get_tightbbox(fig.canvas.get_renderer()).y0 / fig.get_figheight()
    wrapped = textwrap.fill(note, int(fig.get_figwidth() * 17))  # 7-point text, figure wide
    fig.text(0.5, min(-0.01, lowest - 0.01), wrapped, ha="center", va="top", fontsize=7,
             color="0.3")  # fmt: skip
    if _checking:
        _checking[-1][path.name] = overlaps(fig)
    path.parent.mkdir(parents=True, exist_ok=True)
    svg, pdf = path.with_suffix(".svg"), path.with_suffix(".pdf")
    fig.savefig(path, dpi=150, bbox_inches="tight")
    fig.savefig(svg, bbox_inches="tight", metadata={"Date": None})
    # No creation date: the same figure gives the same bytes, run after run.
    fig.savefig(pdf, bbox_inches="tight", metadata={"CreationDate": None})
    return [path, svg, pdf]


def ci_note(
    n: int | str,
    what: str = "games",
    ci: str | None = "95% percentile-bootstrap CI",
    *,
    marks: str = "error bars",
) -> str:
    """The standard footnote: ``n = 90 games; error bars: 95% percentile-bootstrap CI over
    games``. `marks` names what draws the CI (``error bars`` or ``bands``), so a footnote
    never promises a band the figure does not draw."""
    text = f"n = {n} {what}"
    return f"{text}; {marks}: {ci} over {what}" if ci else f"{text}; no CI (counts)"


@contextmanager
def check_layout() -> Iterator[dict[str, list[str]]]:
    """Within the block, `save_figure` checks each figure with `overlaps`; yields file name ->
    problems (an empty list: a clean figure)."""
    found: dict[str, list[str]] = {}
    _checking.append(found)
    try:
        yield found
    finally:
        _checking.remove(found)


def _texts(fig: Any) -> list[Any]:
    """Every text `fig` draws, non-empty and visible: its titles and notes, legend entries,
    and per axes its titles, axis labels, offset texts, annotations and the tick labels of the
    ticks it draws (matplotlib keeps labels of ticks outside the limits, undrawn)."""
    found = [*fig.texts, fig._suptitle, fig._supxlabel, fig._supylabel]
    for legend in fig.legends:
        found += [*legend.get_texts(), legend.get_title()]
    for ax in fig.get_axes():
        found += [ax.title, ax._left_title, ax._right_title, *ax.texts]
        legend = ax.get_legend()
        if legend is not None:
            found += [*legend.get_texts(), legend.get_title()]
        for axis in (ax.xaxis, ax.yaxis):
            found += [axis.label, axis.get_offset_text()]
            for tick in axis._update_ticks():
                found += [tick.label1, tick.label2]
    unique = {id(t): t for t in found if t is not None}  # the suptitle is also in fig.texts
    return [t for t in unique.values() if t.get_visible() and t.get_text().strip()]


def _densify(verts: Any, step: float = 2.0) -> list[tuple[float, float]]:
    """Points every `step` pixels along a polyline in display coordinates."""
    import numpy as np

    pts = np.asarray(verts, dtype=float)
    out: list[tuple[float, float]] = []
    for a, b in itertools.pairwise(pts):
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            continue  # a gap in the line (NaN): nothing drawn between these
        n = max(1, min(2000, int(np.hypot(*(b - a)) // step)))
        out += [tuple(a + (b - a) * k / n) for k in range(n)]
    if len(pts):
        out.append(tuple(pts[-1]))
    return out


def _data_points(ax: Any) -> list[tuple[float, float]]:
    """Display coordinates of what `ax` draws as data: points along every line (markers only
    for marker-only lines), scatter points, error bars and band edges."""
    import numpy as np
    from matplotlib.collections import Collection, PathCollection
    from matplotlib.lines import Line2D

    pts: list[tuple[float, float]] = []
    for line in ax.get_lines():
        if isinstance(line, Line2D) and line.get_visible():
            xy = np.asarray(line.get_xydata(), dtype=float)
            if not xy.size:
                continue
            shown = line.get_transform().transform(xy)
            if str(line.get_linestyle()).lower() in ("none", "", " "):
                pts += [tuple(p) for p in shown]
            else:
                pts += _densify(shown)
    for coll in ax.collections:
        if not isinstance(coll, Collection) or not coll.get_visible():
            continue
        offsets = np.asarray(coll.get_offsets(), dtype=float)
        if isinstance(coll, PathCollection) and offsets.size:
            pts += [tuple(p) for p in coll.get_offset_transform().transform(offsets)]
            continue
        for path in coll.get_paths():
            pts += _densify(coll.get_transform().transform(path.vertices))
    return [(float(x), float(y)) for x, y in pts if np.isfinite(x) and np.isfinite(y)]


def _bars(ax: Any) -> list[Any]:
    """Display boxes of the bars (rectangles with an area) drawn in `ax`."""
    from matplotlib.patches import Rectangle

    return [
        p.get_window_extent()
        for p in ax.patches
        if isinstance(p, Rectangle) and p.get_visible() and p.get_width() and p.get_height()
    ]


def overlaps(fig: Any, *, pad: float = 0.5) -> list[str]:
    """What covers what in `fig`, from its drawn layout: pairs of texts whose boxes intersect,
    a text or legend drawn over a data point of an axes, a text under a legend it is not part
    of, and anything drawn beyond the figure's width (the saved image would be wider than the
    page). Empty when the figure is clean. `pad` (pixels) forgives touching boxes."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.get_axes())]
    legends = [lg for lg in legends if lg is not None and lg.get_visible()]
    legend_texts = {id(t) for lg in legends for t in lg.get_texts()}
    legend_texts |= {id(lg.get_title()) for lg in legends}
    texts = _texts(fig)
    boxes = [(t, t.get_window_extent(renderer).padded(-pad)) for t in texts]
    problems: list[str] = []
    drawn = fig.get_tightbbox(renderer)  # inches
    if drawn.width > fig.get_figwidth() * 1.02:
        problems.append(
            f"drawn {drawn.width:.2f} in wide, more than the figure's {fig.get_figwidth():.2f} in"
        )
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            if box_a.overlaps(box_b) and box_a.width > 0 and box_b.width > 0:
                problems.append(f"text {a.get_text()!r} overlaps text {b.get_text()!r}")
    for lg in legends:
        frame = lg.get_window_extent(renderer).padded(-pad)
        for t, box in boxes:
            if id(t) not in legend_texts and frame.overlaps(box):
                problems.append(f"legend covers text {t.get_text()!r}")
        for ax in fig.get_axes():
            hit = any(frame.contains(x, y) for x, y in _data_points(ax))
            if hit or any(frame.overlaps(b) for b in _bars(ax)):
                problems.append("legend covers data")
                break
    for ax in fig.get_axes():
        inside = [t for t in ax.texts if t.get_visible() and t.get_text().strip()]
        points, bars = _data_points(ax), _bars(ax)
        for t in inside:
            box = t.get_window_extent(renderer).padded(-pad)
            if any(box.contains(x, y) for x, y in points) or any(box.overlaps(b) for b in bars):
                problems.append(f"text {t.get_text()!r} covers data")
    return problems
