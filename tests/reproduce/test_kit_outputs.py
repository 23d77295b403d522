"""What a kit writes for a paper: figures with the paper's values on fixed scales in three
formats, and a reproduction.md whose every line is true of the run (rows that do not apply,
figures that exist, counts beside counts, every table and figure of the paper listed)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

import accord.reproduce.figures as kit_figures
from accord.analysis.stats import Estimate
from accord.reproduce.compare import compare, observation, our_rows
from accord.reproduce.plan import get_kit, make_plan
from accord.reproduce.published import PAPERS, StatedResult, load_published
from accord.reproduce.stated import StatedComparison
from accord.reproduce.writeup import (
    contents_markdown,
    stated_markdown,
    table_markdown,
    verdict,
    write_reproduction,
)
from accord.runner.run import run_sync


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The matplotlib figures the kit saves (then saved as usual)."""
    seen: list[Any] = []
    real = kit_figures.save_figure

    def keep(fig: Any, path: Path, *, note: str) -> list[Path]:
        seen.append((fig, note))
        return real(fig, path, note=note)

    monkeypatch.setattr(kit_figures, "save_figure", keep)
    return seen


def _calbench_comps() -> tuple[Any, list[Any]]:
    kit = get_kit("calbench")
    table = kit.published.table("1")
    obs = [
        observation(
            "1",
            {"model": "mock/schema", "cost_setting": setting, "suite": "canonical"},
            {"fairness": value, "success": 0.5},
        )
        for setting, values in (("uniform", (0.2, 0.4)), ("varied", (0.6, 1.0)))
        for value in values
    ]
    return table, compare(table, our_rows(obs), label=kit.row_label)


def test_calbench_figure4_draws_the_papers_bars_beside_another_models(
    tmp_path: Path, figures: list[Any]
) -> None:
    kit = get_kit("calbench")
    table, comps = _calbench_comps()
    spec = kit.published.figure("4")
    paths = kit_figures.bars_figure(spec, table, comps, kit, tmp_path / "figure4.png")
    assert [p.suffix for p in paths] == [".png", ".svg", ".pdf"]
    assert all(p.is_file() and p.stat().st_size > 0 for p in paths)
    ((fig, note),) = figures
    assert "task instances" in note  # the kit's games are the paper's unit here
    ax = fig.get_axes()[0]
    hollow = sorted(round(p.get_height(), 3) for p in ax.patches if p.get_facecolor()[3] == 0)
    fairness = table.columns.index(next(c for c in table.columns if c.key == "fairness"))
    want = sorted(round(float(r.values[fairness] or 0), 3) for r in table.rows)
    assert hollow == want  # every published fairness of Table 1, one hollow bar each
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks[0] == "mock/schema" and "paper:\nClaude\nSonnet 4.6" in ticks
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("paper (its models, no CI printed)" in lab for lab in labels)


def test_percentage_panels_span_0_to_100(tmp_path: Path, figures: list[Any]) -> None:
    table = load_published("grounding").table("4")
    obs = [
        observation("4", {"projects": "fixed"}, {c.key: v for c in table.columns})
        for v in (0.9, 0.95, 1.0)
    ]
    comps = compare(table, our_rows(obs))
    kit_figures.table_figure(table, comps, tmp_path / "table4.png")
    ((fig, _),) = figures
    assert [ax.get_xlim() for ax in fig.get_axes()] == [kit_figures.PERCENT_LIMITS] * 4


def test_a_table_without_rows_says_why() -> None:
    table = load_published("calbench").table("11")
    assert verdict([], 0) == "no complete game"
    text = table_markdown(table, [], table.where, complete=6)
    assert "no complete game" not in text
    assert "no row applies: none of the 6 complete games gives this table a row" in text
    assert "scheduled every one of its meetings" in text


def test_a_figure_drawn_without_numbers_is_not_called_reference_rows() -> None:
    table = load_published("mas-bench").table("F2")
    obs = [observation("F2", {"model": "mock/schema", "n": 1}, {"sr": 0.5})]
    text = table_markdown(table, compare(table, our_rows(obs)), table.where, complete=1)
    assert "without printing its numbers: ours only" in text
    assert "reference rows" not in text


def test_a_count_of_a_total_is_set_beside_ours_as_a_count() -> None:
    result = StatedResult(id="x", where="App. G.1", what="full seats", value=358, of=630, key="k")
    lines = stated_markdown(
        [StatedComparison(result, 358 / 630, Estimate(0.25, 0.1, 0.4, 36), None)]
    )
    row = next(line for line in lines if line.startswith("| App. G.1"))
    assert "358 of 630 (56.8%)" in row and "25.0 [10.0, 40.0]% (9 of 36)" in row
    empty = StatedComparison(result, 358 / 630, Estimate(math.nan, math.nan, math.nan, 0), None)
    row = next(line for line in stated_markdown([empty]) if line.startswith("| App. G.1"))
    assert row.endswith("| – (no game of this run applies) | – |")


@pytest.mark.parametrize("paper", PAPERS)
def test_reproduction_md_lists_every_table_and_figure_of_the_paper(paper: str) -> None:
    pub = load_published(paper)
    plan = make_plan(paper, models=["mock/schema"], smoke=True)
    text = "\n".join(contents_markdown(pub, plan))
    for item in pub.contents:
        assert f"| {item.item} | {item.what} |" in text


def test_the_writeup_links_only_figures_that_were_drawn(tmp_path: Path) -> None:
    # One model: Table 9 (a pair's intervention) gets no row and so no figure.
    plan = make_plan("grounding", models=["mock/schema"], smoke=True, tables=["3", "9"])
    run_sync(plan.specs, tmp_path)
    write_reproduction(plan, tmp_path)
    text = (tmp_path / "reproduction.md").read_text()
    linked = re.findall(r"`(reproduction/[^`]+\.png)`", text)
    assert linked and "reproduction/table9.png" not in linked
    for name in linked:
        for suffix in (".png", ".svg", ".pdf"):
            assert (tmp_path / name).with_suffix(suffix).is_file()
    assert "no complete game" not in text
    assert "a cross-play game of two models" in text
    data = json.loads((tmp_path / "reproduction.json").read_text())
    assert [i["item"] for i in data["contents"]] == [
        i.item for i in load_published("grounding").contents
    ]
    assert {s["printed"] for s in data["stated"]} >= {"18.0%", "63.2%"}


def test_figure3_keeps_equal_talk_and_no_talk_apart(tmp_path: Path, figures: list[Any]) -> None:
    pub = load_published("grounding")
    spec, table = pub.figure("3"), pub.table("10")
    obs = [
        observation(
            "10",
            {"models": ["m"], "ratio": r, "cheap_talk": talk, "partner": "stable"},
            {"overdraw_rate": 0.2, "efficiency": 0.5, "optimum_rate": 0.0},
        )
        for r in (0.5, 1.0)
        for talk in (True, False)
    ]
    kit_figures.talk_figure(spec, table, obs, tmp_path / "figure3.png")
    ((fig, note),) = figures
    ax = fig.get_axes()[2]  # optimum: 0% with and without talk
    ours = [c for c in ax.containers if c.get_label().startswith(("cheap talk", "no talk"))]
    assert len(ours) == 2
    xs = {tuple(round(float(x), 3) for x in c.lines[0].get_xdata()) for c in ours}
    assert xs == {(0.488, 0.988), (0.512, 1.012)}
    assert "apart" in note and "no CI" in note


def test_paper_groups_without_a_series_of_ours_get_no_empty_slot(
    tmp_path: Path, figures: list[Any]
) -> None:
    # Ours at one M/C only: the paper's other M/C groups are pairs of its models, which no
    # series of ours can be set beside, so they add no empty tick.
    kit = get_kit("grounding")
    table = kit.published.table("3")
    obs = [observation("3", {"models": ["mock/x"], "ratio": 0.5}, {"efficiency": 0.4})] * 2
    comps = compare(table, our_rows(obs), label=kit.row_label)
    kit_figures.bars_figure(kit.published.figure("2"), table, comps, kit, tmp_path / "f.png")
    ((fig, _),) = figures
    assert [t.get_text() for t in fig.get_axes()[0].get_xticklabels()] == ["M/C = 0.5"]
