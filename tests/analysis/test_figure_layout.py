"""Every figure of a reproduction and of a report, drawn at paper width, checked from
matplotlib's own layout (`accord.analysis.figures.overlaps`): no text covers data, a legend or
other text, and no figure is a copy of another under another name."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from accord.analysis.figures import PAPER_WIDTH, check_layout, new_figure, overlaps, save_figure
from accord.analysis.report import build_report
from accord.reproduce.plan import make_plan
from accord.reproduce.writeup import write_reproduction
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec

MODELS = {
    "calbench": ["mock/schema"],
    "mas-bench": ["mock/schema"],
    "grounding": ["mock/schema", "mock/random"],
}
EXPECTED = {
    "calbench": {"table1.png", "table2.png", "figure4.png"},
    "mas-bench": {"table1.png", "table2.png", "table3.png", "table11.png", "figure2.png"},
    "grounding": {
        "table3.png",
        "table4.png",
        "table9.png",
        "table10.png",
        "table11.png",
        "figure2.png",
        "figure3.png",
    },
}


def _negotiation_extras() -> list[GameSpec]:
    """Shifting partners and rotating projects, which the smoke grid leaves out (Figures 4-5)."""
    out = []
    for i, (ratio, partner, projects) in enumerate(
        [(0.5, "shifting", "fixed"), (1.0, "shifting", "rotating"), (0.8, "stable", "rotating")]
    ):
        out.append(
            GameSpec(
                trace_id=f"extra{i}",
                game="negotiation",
                seed=100 + i,
                options={"ratio": ratio, "partner": partner, "projects": projects},
                agents=[AgentSpec(model="mock/schema"), AgentSpec(model="mock/schema")],
            )
        )
    return out


@pytest.fixture(scope="module", params=sorted(MODELS))
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path]:
    paper = str(request.param)
    out = tmp_path_factory.mktemp(paper)
    plan = make_plan(paper, models=MODELS[paper], smoke=True)
    extras = _negotiation_extras() if paper == "grounding" else []
    run_sync([*plan.specs, *extras], out, concurrency=4)
    return paper, out


def _clean(found: dict[str, list[str]]) -> None:
    bad = {name: problems for name, problems in found.items() if problems}
    assert not bad


def _distinct(paths: list[Path]) -> None:
    pngs = [p for p in paths if p.suffix == ".png"]
    digests = {hashlib.sha256(p.read_bytes()).hexdigest(): p.name for p in pngs}
    assert len(digests) == len(pngs)  # no figure is a byte copy of another


def test_reproduction_figures_are_paper_shaped_and_clean(played: tuple[str, Path]) -> None:
    paper, out = played
    plan = make_plan(paper, models=MODELS[paper], smoke=True)
    with check_layout() as found:
        written = write_reproduction(plan, out)
    assert EXPECTED[paper] <= set(found)
    _clean(found)
    _distinct(written)


def test_report_figures_are_clean(played: tuple[str, Path]) -> None:
    _, out = played
    with check_layout() as found:
        written = build_report([out], out / "report")
    assert any(name.startswith("figure") for name in found)
    _clean(found)
    _distinct(written)


def test_the_check_finds_text_over_text_data_and_legend(tmp_path: Path) -> None:
    fig = new_figure(PAPER_WIDTH, 2.5)
    ax = fig.add_subplot(1, 1, 1)
    ax.plot([0, 1, 2], [0, 1, 0.05], "o", label="a series")
    ax.text(1, 1, "over a point", ha="center", va="center")
    ax.text(0.2, 0.8, "twice")
    ax.text(0.2, 0.8, "twice again")
    ax.legend(loc="lower right")  # inside the axes, over the last point
    with check_layout() as found:
        save_figure(fig, tmp_path / "bad.png", note="n = 3")
    problems = " | ".join(found["bad.png"])
    assert "'over a point' covers data" in problems
    assert "'twice' overlaps text 'twice again'" in problems
    assert "legend covers data" in problems
    # A label on an error bar's line (no vertex inside it) and a label inside a bar.
    bars = new_figure(PAPER_WIDTH, 2.5)
    bx = bars.add_subplot(1, 1, 1)
    bx.bar([0, 1], [0.0, 5.0], yerr=[[0.0, 0.0], [4.0, 0.5]])
    bx.text(0, 2, "on the bar's CI", ha="center", va="center")
    bx.text(1, 2.5, "in a bar", ha="center", va="center")
    found_bars = overlaps(bars)
    assert any("on the bar's CI" in p and "covers data" in p for p in found_bars)
    assert any("'in a bar' covers data" in p for p in found_bars)
    wide = new_figure(PAPER_WIDTH, 2.5)
    wide.add_subplot(1, 1, 1).plot([0, 1], [0, 1])
    wide.suptitle("a title far too long for the page " * 8)
    assert any("wide, more than the figure's 6.75 in" in p for p in overlaps(wide))
    clean = new_figure(PAPER_WIDTH, 2.5)
    clean.add_subplot(1, 1, 1).plot([0, 1], [0, 1])
    assert overlaps(clean) == []
