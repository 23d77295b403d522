"""The report's figure conventions (`accord.analysis.figures`)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from accord.analysis.figures import ci_note, mark_zero_bars, pad_to, save_figure


def test_a_zero_bar_is_drawn_and_an_absent_one_is_not() -> None:
    fig, ax = plt.subplots()
    ax.bar([0, 1, 2], [0.0, 3.0, float("nan")])  # 0, a value, and no data
    lines_before = len(ax.lines)
    assert mark_zero_bars(ax) == 1
    assert len(ax.lines) == lines_before + 1
    (mark,) = ax.lines[lines_before:]
    xs, ys = mark.get_data()
    assert list(ys) == [0.0, 0.0] and xs[0] < 0 < xs[1]  # across the first bar, at height 0
    assert [t.get_text() for t in ax.texts] == ["0"]
    plt.close(fig)


def test_padding_keeps_every_point_and_the_origin_inside() -> None:
    fig, ax = plt.subplots()
    ax.errorbar([12.4], [0.2], yerr=[[0.05], [0.07]], fmt="o")
    pad_to(ax, [12.4, 12.4], [0.15, 0.27])
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < 0 < 12.4 < x1 and y0 < 0 < 0.27 < y1
    plt.close(fig)


def test_save_writes_png_svg_and_pdf_with_the_footnote(tmp_path: Path) -> None:
    fig, ax = plt.subplots()
    ax.bar([0, 1], [1.0, 0.0], label="x")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    note = ci_note(12)
    assert note == "n = 12 games; error bars: 95% percentile-bootstrap CI over games"
    assert "bands: 95%" in ci_note(3, marks="bands")
    paths = save_figure(fig, tmp_path / "f.png", note=note)
    assert [p.name for p in paths] == ["f.png", "f.svg", "f.pdf"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = paths[1].read_text()
    assert "n = 12 games" in svg  # matplotlib keeps each text as a comment beside its glyphs
    assert paths[2].read_bytes()[:5] == b"%PDF-"
    plt.close(fig)
    assert ci_note(5, "rounds", None) == "n = 5 rounds; no CI (counts)"


def test_a_zero_bar_with_a_ci_gets_its_mark_but_no_label_on_the_error_bar() -> None:
    fig, ax = plt.subplots()
    ax.bar([0, 1], [0.0, 2.0], yerr=[[0.0, 0.2], [1.5, 0.2]])  # 0 with an upper CI end at 1.5
    assert mark_zero_bars(ax) == 1
    assert [t.get_text() for t in ax.texts] == []  # the "0" would sit on the error bar
    plt.close(fig)
