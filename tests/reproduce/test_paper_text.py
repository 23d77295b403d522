"""Every stored published number against the paper's own text (the seed papers, where they
are checked out beside the repository): each value of a table row appears among the numbers
of that table's block in the text, and each stated result among the numbers of the paper."""

from __future__ import annotations

import math
import re
from functools import cache
from pathlib import Path

import pytest

from accord.reproduce.published import PAPERS, load_published

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
FILES = {"calbench": "000_", "mas-bench": "002_", "grounding": "004_"}

# Where each table sits in the text: its block runs from the first marker to the next
# occurrence of the second ("\n\n": the end of the paragraph).
BLOCKS: dict[tuple[str, str], tuple[str, str]] = {
    ("calbench", "1"): ("Setting Model NN Meetings", "Table 1:"),
    ("calbench", "2"): ("Method Coord. Excess Msgs.", "\n\n"),
    ("calbench", "7"): ("Model Traces Uniform Varied Total", "\n\n"),
    ("calbench", "11"): ("Model Full seats Mean excess", "Table 11:"),
    ("calbench", "12"): ("VPS VPS qq", "Table 12:"),
    ("calbench", "13"): ("Regex label Precision Recall", "Table 13:"),
    ("calbench", "15"): ("Rank Pattern Count Level", "Table 15:"),
    ("calbench", "16"): ("Dataset Beliefs Raw judge VPS", "Table 16:"),
    ("calbench", "17"): ("Agreement statistic Value", "Table 17:"),
    ("mas-bench", "1"): ("Model & Setting", "Table 1:"),
    ("mas-bench", "2"): ("$N$\tBroadcasting", "Table 2:"),
    ("mas-bench", "3"): ("Input family", "Table 3:"),
    ("mas-bench", "4"): ("Model\t#Logs", "Table 4:"),
    ("mas-bench", "6"): ("Backend\tBase/Abl.", "Table 6:"),
    ("mas-bench", "7"): ("Model\tBase\tCAMOC\tReduction", "Table 7:"),
    ("mas-bench", "8"): ("Backend at $N=1$", "Table 8:"),
    ("mas-bench", "9"): ("Task (coupling)", "Table 9:"),
    ("mas-bench", "10"): ("Condition\tDist. Max", "Table 10:"),
    ("mas-bench", "11"): ("Qwen3 P2P condition", "Table 11:"),
    ("grounding", "3"): ("Table 3: Self-play vs. cross-play", "Figure 2:"),
    ("grounding", "4"): ("Table 4: Game-strategy", "We classify"),
    ("grounding", "5"): ("Table 5: LLM judge label", "metrics and the label"),
    ("grounding", "8"): ("Table 8: Repeated-game", "F. Additional"),
    ("grounding", "9"): ("Table 9: Full-transparency", "Table 10:"),
    ("grounding", "10"): ("Table 10: Cheap talk", "Table 11 presents"),
    ("grounding", "11"): ("Table 11: Self-play performance", "F.2 Token"),
    ("grounding", "12"): ("Table 12: Average API", "G. LLM judge"),
    ("grounding", "13"): ("Table 13: LLM judge", "with all three models"),
    ("grounding", "14"): ("Table 14: Human", "recovery, and"),
}

NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


@cache
def paper_text(paper: str) -> str:
    found = sorted(SEEDS.glob(FILES[paper] + "*.txt")) if SEEDS.is_dir() else []
    if not found:
        pytest.skip("the seed papers are not checked out beside the repository")
    return found[0].read_text("utf-8")


def numbers(text: str) -> set[float]:
    """Every number printed in `text`, unsigned (the papers print minus signs several ways)."""
    return {float(m.replace(",", "")) for m in NUMBER.findall(text)}


def printed(value: float, found: set[float]) -> bool:
    v = abs(value)
    if v and v < 1e-3:  # printed as m x 10^-e: look for the mantissa
        v = round(v / 10 ** math.floor(math.log10(v)), 2)
    return any(math.isclose(v, f, rel_tol=1e-9, abs_tol=1e-9) for f in found)


def block(paper: str, table: str) -> str:
    text = paper_text(paper)
    start, end = BLOCKS[(paper, table)]
    i = text.index(start)
    j = text.find(end, i + len(start))
    return text[i : j if j > 0 else None]


@pytest.mark.parametrize("paper", PAPERS)
def test_every_printed_table_has_a_block_in_the_text(paper: str) -> None:
    printed_tables = {t.id for t in load_published(paper).tables if t.printed}
    assert printed_tables == {t for p, t in BLOCKS if p == paper}


@pytest.mark.parametrize(("paper", "table"), sorted(BLOCKS))
def test_stored_values_are_the_papers(paper: str, table: str) -> None:
    found = numbers(block(paper, table))
    missing = [
        (row.label, value)
        for row in load_published(paper).table(table).rows
        for value in row.values
        if value is not None and not printed(value, found)
    ]
    assert not missing


@pytest.mark.parametrize("paper", PAPERS)
def test_stated_results_are_printed_in_the_paper(paper: str) -> None:
    found = numbers(paper_text(paper))
    missing = [
        r.id
        for r in load_published(paper).results
        if not printed(r.value, found) or (r.of is not None and not printed(r.of, found))
    ]
    assert not missing


def test_the_check_catches_a_wrong_value() -> None:
    found = numbers(block("mas-bench", "11"))
    assert printed(56.9, found) and not printed(57.4, found)
    assert printed(2.84e-8, numbers(block("calbench", "12")))


@pytest.mark.parametrize("paper", PAPERS)
def test_kit_titles_are_the_papers_titles(paper: str) -> None:
    title = load_published(paper).title
    head = " ".join(paper_text(paper)[:600].split())
    assert title in head
