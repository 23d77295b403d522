"""The Markdown tables of `accord report`: p-values never read as zero, notes under a table."""

from __future__ import annotations

from pathlib import Path

from accord.analysis.report import COMPARISON_NOTES, write_table


def test_a_p_value_that_underflows_is_not_printed_as_zero(tmp_path: Path) -> None:
    write_table([{"metric": "m", "p": 0.0, "p_holm": 0.00042}], tmp_path / "t")
    md = (tmp_path / "t.md").read_text()
    assert "| m | < 1e-300 | 0.00042 |" in md and "0.000 |" not in md


def test_notes_follow_the_table(tmp_path: Path) -> None:
    write_table([{"a": 1}], tmp_path / "t", title="T", notes=COMPARISON_NOTES)
    md = (tmp_path / "t.md").read_text()
    table_end = md.index("| 1 |")
    for note in COMPARISON_NOTES:
        assert md.index(note) > table_end
    assert "counted once" in md and "played first" in md
