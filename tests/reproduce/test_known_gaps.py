"""reproduction.md points a "no" of a row with a documented difference from the paper to where
it is explained (CalBench Table 2, SD-MAP: docs/calendar.md "SD-MAP: a paper/release
discrepancy"), and leaves other rows' "no" as they are."""

from __future__ import annotations

from pathlib import Path

from accord.analysis.stats import Estimate
from accord.games.calendar.paper import CalBenchKit
from accord.reproduce.compare import Cell, Comparison
from accord.reproduce.writeup import table_markdown


def row(label: str, inside: bool) -> Comparison:
    table = CalBenchKit().published.table("2")
    cells = [
        Cell(col.label, Estimate(1.0, 1.0, 1.0, 3), 0.5, inside, percent=col.percent)
        for col in table.columns
    ]
    return Comparison("2", label, {}, 3, "value", cells)


def test_sd_map_no_marks_point_to_the_documented_discrepancy() -> None:
    kit = CalBenchKit()
    table = kit.published.table("2")
    text = table_markdown(
        table, [row("sd-map · uniform", False), row("imap · uniform", False)], table.where,
        kit.known_gaps.get("2"),
    )  # fmt: skip
    lines = text.splitlines()
    (sd,) = [ln for ln in lines if ln.startswith("| sd-map")]
    (imap,) = [ln for ln in lines if ln.startswith("| imap")]
    assert sd.count("**no** (note 1)") == len(table.columns)
    assert "(note" not in imap and imap.count("**no**") == len(table.columns)
    (note,) = [ln for ln in lines if ln.startswith("Note 1")]
    assert "docs/calendar.md" in note and "SD-MAP: a paper/release discrepancy" in note
    heading = "### SD-MAP: a paper/release discrepancy"
    docs = Path(__file__).parents[2] / "docs" / "calendar.md"
    assert heading in docs.read_text(encoding="utf-8")


def test_no_note_without_a_row_that_has_one() -> None:
    kit = CalBenchKit()
    table = kit.published.table("2")
    text = table_markdown(table, [row("imap · uniform", True)], table.where, kit.known_gaps["2"])
    assert "Note 1" not in text and "(note" not in text
