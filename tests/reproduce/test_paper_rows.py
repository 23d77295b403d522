"""Row-wise check of every stored published number against the paper's own text.

`test_paper_text` finds each value somewhere in its table's block. This finds it in its cell:
for every stored row, the row is located in the text by its printed label (with its parent
label where the paper groups rows, such as a model above its conditions), and each of the
row's values must be the number in the column it is stored under (a position among the
numbers printed after the label). A value moved to another row or another column fails.
Every stated result is found in the section its ``where`` names, not merely in the paper.
And each kit's list of the paper's tables and figures is the paper's own numbering.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest
from tests.reproduce.test_paper_text import BLOCKS, paper_text

from accord.reproduce.published import PAPERS, PublishedRow, PublishedTable, load_published

Cell = float | None

# A number in running text: thousands groups, decimals, a cleaned "m e-k"; not a digit inside a
# word (P2A, Qwen3, V3.1). A lone dash is a printed empty cell.
TOKEN = re.compile(
    r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:e-\d+)?)|(?<![\w\d])[–—](?![\w\d])"
)


def clean(text: str) -> str:
    """The text with its PDF-extraction twins and markup removed, so each cell reads once."""
    text = re.sub(r"\$[\d.,]+(?:\\sim)?\\mathdollar\s*", "", text)  # "$42.61\mathdollar 42.61"
    # "2.84×1082.84\times 10^{-8}": the rendered and the LaTeX form of 2.84e-8.
    # Also "p=9.26×1024p=9.26\times 10^{-24}" in running text.
    text = re.sub(r"(\d+(?:\.\d+)?)×10\d+(?:[a-z]+[=<>])?\1\\times 10\^\{-(\d+)\}", r"\1e-\2", text)
    text = re.sub(r"</?[bi]>", "", text)
    text = re.sub(r"\\text\{[KM]\}|\\sim|\\%|\$", "", text)
    return text.replace("\\times", "×").replace("κ\\kappa", "κ")


def cells(text: str) -> list[Cell]:
    return [
        None if m.group(0) in "–—" else float(m.group(0).replace(",", ""))
        for m in TOKEN.finditer(text)
    ]


@dataclass(frozen=True)
class Layout:
    """Where a stored row is printed: its label path and the position of each column among
    the numbers after the last label (None: the column is part of the label itself)."""

    path: Callable[[PublishedRow], Sequence[str]]
    columns: Callable[[PublishedRow, int], Sequence[int | None]]
    read: Callable[[str], list[Cell]] = cells
    """How the row's text reads as cells."""
    seats: int | None = None
    """The position of the row's printed N (`PublishedRow.seats`), when the table prints it."""


def _same(row: PublishedRow) -> Sequence[str]:
    return [row.label]


def _in_order(row: PublishedRow, n: int) -> Sequence[int | None]:
    return list(range(n))


DEFAULT = Layout(_same, _in_order)

RATIOS = (0.5, 0.8, 1.0)
BACKENDS = ("broadcast", "p2p", "kv")
CONDITIONS = {"base": "Base", "camoc": "CAMOC", "abl-submit": "Abl. submit",
              "abl-message": "Abl. message"}  # fmt: skip


def _ratio(row: PublishedRow) -> int:
    return RATIOS.index(float(row.identity["ratio"]))


def _before(word: str) -> Callable[[PublishedRow], Sequence[str]]:
    """The label up to `word` (grounding rows add " M/C=..." and conditions to the name)."""
    return lambda row: [row.label.split(word)[0].strip()]


def _by_ratio(row: PublishedRow, n: int) -> Sequence[int | None]:
    """Three metrics, each with a column per M/C (grounding Tables 3, 9, 11)."""
    return [j * 3 + _ratio(row) for j in range(n)]


def _talk(row: PublishedRow, n: int) -> Sequence[int | None]:
    """Table 10's ``talk / no-talk`` cells: two numbers per metric and M/C."""
    return [2 * (j * 3 + _ratio(row)) + (0 if row.identity["cheap_talk"] else 1) for j in range(n)]


def _calbench15(row: PublishedRow) -> Sequence[str]:
    """Table 15 prints each row's rank (its first column) before the pattern's name."""
    rank = row.values[0]
    return [f"{'?' if rank is None else f'{rank:g}'} {row.label.split(' (')[0]}"]


def _count_and_tops(text: str) -> list[Cell]:
    """Table 15's cells: the count, then each top model's count in parentheses (the
    detection method after them holds numbers of its own)."""
    first = cells(text)[:1]
    return [*first, *(float(n.replace(",", "")) for n in re.findall(r"\((\d[\d,]*)\)", text))]


LAYOUTS: dict[tuple[str, str], Layout] = {
    ("calbench", "1"): Layout(
        lambda r: [str(r.identity["cost_setting"]).capitalize(), r.label],
        lambda r, n: [j + 1 for j in range(n)],
        seats=0,
    ),
    ("calbench", "2"): Layout(
        lambda r: [f"{str(r.identity['cost_setting']).capitalize()} Cost", r.label], _in_order
    ),
    ("calbench", "7"): Layout(lambda r: [r.label.split(" (")[0]], _in_order),
    ("calbench", "15"): Layout(_calbench15, lambda r, n: [None, *range(n - 1)], _count_and_tops),
    ("mas-bench", "1"): Layout(
        lambda r: [r.label.split(" ")[0], CONDITIONS[str(r.identity["condition"])]],
        lambda r, n: [BACKENDS.index(str(r.identity["backend"])) * n + j for j in range(n)],
    ),
    ("mas-bench", "2"): Layout(
        lambda r: [f"^{r.identity['n']}"],
        lambda r, n: [
            BACKENDS.index(str(r.identity["backend"])) * 3 + (1, 5, 10).index(int(r.identity["k"]))
        ],
    ),
    ("grounding", "3"): Layout(_before(" M/C="), _by_ratio),
    ("grounding", "4"): Layout(lambda r: [""], _in_order),
    ("grounding", "8"): Layout(lambda r: [""], _in_order),
    ("grounding", "9"): Layout(
        lambda r: [r.label.split(" ")[0], str(r.identity["partner"]).capitalize()], _by_ratio
    ),
    ("grounding", "10"): Layout(
        lambda r: [
            r.label.split(f" {r.identity['partner']}")[0],
            str(r.identity["partner"]).capitalize(),
        ],
        _talk,
    ),
    ("grounding", "11"): Layout(_before(" M/C="), _by_ratio),
}

PRINTED_AS: dict[tuple[str, str, str], str] = {
    ("calbench", "17", "Cohen's kappa, signs over full union"): "Cohen’s κ, signs over full union",
}
"""Row labels the paper prints differently (typography only)."""


def _find(text: str, label: str, start: int, *, last: bool) -> re.Match[str] | None:
    """`label` at or after `start`, as a whole cell: at the start of a line or after blank
    space (a leading "^": at a line start only); the row's own label (`last`) must be
    followed by its numbers, not more words."""
    tail = r"(?![\w.])(?![ \t]*[A-Za-z×:(])" if last else r"(?![\w.])"
    head = r"^" if label.startswith("^") else r"(?:^|(?<=\s))"  # "^": only at a line start
    return re.compile(head + re.escape(label.lstrip("^")) + tail, re.M).search(text, start)


def printed_cells(
    block: str, path: Sequence[str], others: Sequence[str], read: Callable[[str], list[Cell]]
) -> list[Cell] | None:
    """The numbers printed after the row at `path`, up to the end of its line or the next
    row label (`others`: several rows on one line); None when the row is not found."""
    if path == [""]:  # an unlabelled single-row table: its first line of numbers
        line = next((ln for ln in block.splitlines() if re.match(r"\s*\d", ln)), None)
        return None if line is None else read(line)
    pos = 0
    found = None
    for i, label in enumerate(path):
        found = _find(block, label, pos, last=i == len(path) - 1)
        if found is None:
            return None
        pos = found.end()
    end = block.find("\n", pos)
    end = len(block) if end < 0 else end
    for other in others:
        nxt = _find(block, other, pos, last=False)
        if nxt is not None and nxt.start() < end:
            end = nxt.start()
    return read(block[pos:end])


def _block(paper: str, table: str) -> str:
    text = clean(paper_text(paper))
    start, end = BLOCKS[(paper, table)]
    i = text.index(clean(start))
    j = text.find(end, i + len(start))
    found = text[i : j if j > 0 else None]
    if found.startswith("Table"):  # the caption first: its prose names rows too
        found = found[found.index("\n") :]
    return found


def _equal(stored: float | None, printed: Cell) -> bool:
    if stored is None:
        return printed is None
    return printed is not None and math.isclose(abs(stored), printed, rel_tol=1e-9, abs_tol=1e-9)


def row_problems(paper: str, table: PublishedTable, block: str) -> list[str]:
    """Every stored value of `table` that is not the number in its row and column."""
    layout = LAYOUTS.get((paper, table.id), DEFAULT)
    paths = {
        id(r): [PRINTED_AS.get((paper, table.id, p), p) for p in layout.path(r)] for r in table.rows
    }
    problems = []
    for row in table.rows:
        path = paths[id(row)]
        others = [paths[id(o)][-1] for o in table.rows if paths[id(o)][-1] != path[-1]]
        found = printed_cells(block, path, others, layout.read)
        if found is None:
            problems.append(f"{row.label}: no printed row {' / '.join(path)!r}")
            continue
        if layout.seats is not None and not _equal(row.seats, found[layout.seats]):
            problems.append(f"{row.label} / N: stored {row.seats}, printed {found[0]}")
        for col, pos, value in zip(
            table.columns, layout.columns(row, len(table.columns)), row.values, strict=True
        ):
            if pos is None:
                continue  # checked as part of the label
            got = found[pos] if pos < len(found) else None
            if value is None and pos >= len(found):
                continue  # an empty cell at the end of the row
            if not _equal(value, got):
                problems.append(f"{row.label} / {col.label}: stored {value}, printed {got}")
    return problems


PRINTED_TABLES = [(p, t.id) for p in PAPERS for t in load_published(p).tables if t.printed]


@pytest.mark.parametrize(("paper", "table"), PRINTED_TABLES)
def test_each_value_is_in_its_row_and_column(paper: str, table: str) -> None:
    published = load_published(paper).table(table)
    assert not row_problems(paper, published, _block(paper, table))


def test_a_value_in_the_wrong_row_or_column_is_caught() -> None:
    table = load_published("grounding").table("3")
    rows = list(table.rows)
    # Two rows' efficiency swapped: every value still appears in the table's block.
    a, b = rows[0], rows[3]
    swapped = [
        a.model_copy(update={"values": [a.values[0], b.values[1], a.values[2]]}),
        *rows[1:3],
        b.model_copy(update={"values": [b.values[0], a.values[1], b.values[2]]}),
        *rows[4:],
    ]
    block = _block("grounding", "3")
    bad = table.model_copy(update={"rows": swapped})
    assert len(row_problems("grounding", bad, block)) == 2
    # Two columns of one row exchanged.
    c = rows[0]
    turned = c.model_copy(update={"values": [c.values[1], c.values[0], c.values[2]]})
    bad = table.model_copy(update={"rows": [turned, *rows[1:]]})
    assert len(row_problems("grounding", bad, block)) == 2
    assert not row_problems("grounding", table, block)


@pytest.mark.parametrize(("paper", "table"), PRINTED_TABLES)
def test_every_row_of_every_table_is_checked_by_position(paper: str, table: str) -> None:
    """For each row: its values in reverse order, and another row's values, are caught."""
    published = load_published(paper).table(table)
    block = _block(paper, table)
    rows = list(published.rows)
    for i, row in enumerate(rows):
        others = [*rows[:i], *rows[i + 1 :]]
        if list(reversed(row.values)) != row.values:
            turned = row.model_copy(update={"values": list(reversed(row.values))})
            bad = published.model_copy(update={"rows": [turned, *others]})
            assert row_problems(paper, bad, block), row.label
        other = next((o for o in others if o.values != row.values), None)
        if other is not None:
            moved = row.model_copy(update={"values": list(other.values)})
            bad = published.model_copy(update={"rows": [moved, *others]})
            assert row_problems(paper, bad, block), row.label


# -- stated results: in the section they cite --------------------------------------------------
SECTION = re.compile(r"(?m)^(?:#+\s*)?(?:Appendix\s+)?([A-Z]|\d+)((?:\.\d+)*)\.?\s+[A-Z]\w")


def section_id(where: str) -> str:
    """``§4.3 (message audit)`` -> ``4.3``; ``App. G.1`` -> ``G.1``."""
    found = re.search(r"(?:§|App\.\s*)([A-Z]|\d+)((?:\.\d+)*)", where)
    assert found, f"no section in {where!r}"
    return found.group(1) + found.group(2)


def section_text(text: str, sid: str) -> str | None:
    """The text of section `sid`, sub-sections included, up to the next section not inside it."""
    heads = [(m.start(), m.group(1) + m.group(2)) for m in SECTION.finditer(text)]
    for i, (pos, hid) in enumerate(heads):
        if hid == sid:
            end = next((p for p, h in heads[i + 1 :] if not h.startswith(sid + ".")), len(text))
            return text[pos:end]
    return None


def _stated_problems(paper: str) -> list[str]:
    text = clean(paper_text(paper))
    problems = []
    for r in load_published(paper).results:
        part = section_text(text, section_id(r.where))
        if part is None:
            problems.append(f"{r.id}: no section {section_id(r.where)} in the paper")
            continue
        found = {c for c in cells(part) if c is not None}
        # The value, its total, and every number its description quotes ("(31 of 51)",
        # "p = 9.26e-24"): all of them the paper's, printed in that section.
        quoted = [c for c in cells(clean(r.what)) if c is not None]
        for value in (r.value, *([r.of] if r.of is not None else []), *quoted):
            if not any(math.isclose(abs(value), f, rel_tol=1e-9) for f in found):
                problems.append(f"{r.id}: {value:g} not printed in {r.where}")
    return problems


@pytest.mark.parametrize("paper", PAPERS)
def test_stated_results_are_printed_in_the_section_they_cite(paper: str) -> None:
    assert not _stated_problems(paper)


def _as_printed(text: str, number: str) -> bool:
    """`number` printed as a whole number in `text`, plain or with thousands commas."""
    forms = {number}
    whole, _, frac = number.partition(".")
    if whole.isdigit():
        forms.add(f"{int(whole):,}" + (f".{frac}" if frac else ""))
    return any(re.search(rf"(?<![\d.,]){re.escape(f)}(?!\d|[.,]\d)", text) for f in forms)


@pytest.mark.parametrize("paper", PAPERS)
def test_stated_results_read_as_the_paper_prints_them(paper: str) -> None:
    """reproduction.md shows each stated number as the paper prints it: 1.20, not 1.2."""
    text = clean(paper_text(paper))
    wrong = []
    for r in load_published(paper).results:
        part = section_text(text, section_id(r.where)) or ""
        number = r.shown.split(" of ")[0].rstrip("%")
        if not _as_printed(part, number):
            wrong.append(f"{r.id}: {r.shown}")
    assert not wrong


def test_a_stated_result_cited_from_the_wrong_section_is_caught() -> None:
    text = clean(paper_text("calbench"))
    assert section_text(text, "4.3") is not None
    assert "0.875" in (section_text(text, "4.3") or "")
    assert "0.875" not in (section_text(text, "G.1") or "")


# -- the paper's tables and figures --------------------------------------------------------------
CAPTION = re.compile(r"(?m)^(Table|Figure) (\d+):")


@pytest.mark.parametrize("paper", PAPERS)
def test_contents_list_every_table_and_figure_of_the_paper(paper: str) -> None:
    in_text = {f"{kind} {n}" for kind, n in CAPTION.findall(paper_text(paper))}
    listed = [i.item for i in load_published(paper).contents]
    assert len(listed) == len(set(listed))
    assert set(listed) == in_text


# -- the paper's call settings ---------------------------------------------------------------
def test_model_settings_are_the_papers_table_rows() -> None:
    """The negotiation paper's App. B, Table 6: each model string's row prints its temperature
    (a dash where none is set) and completion cap; the one-second cooldown is App. B's text."""
    text = clean(paper_text("grounding"))
    appendix_b = section_text(text, "B") or ""
    assert "1-second cooldown" in appendix_b
    settings = load_published("grounding").model_settings
    assert settings
    for model, cfg in settings.items():
        line = next((ln for ln in text.splitlines() if f"\t{model}\t" in ln), None)
        assert line is not None, model
        after = cells(line.split(f"\t{model}\t", 1)[1])
        temperature = cfg.get("temperature")
        assert after[0] == (None if temperature is None else float(temperature)), model
        assert after[1] == float(cfg["max_tokens"]), model
        assert cfg["options"] == {"cooldown_s": 1}


@pytest.mark.parametrize(("paper", "table"), [("grounding", "11"), ("calbench", "2")])
def test_row_counts_are_the_papers_caption_counts(paper: str, table: str) -> None:
    """An N printed in the caption rather than the rows: grounding Table 11 "($N=120$ games)"
    per model; CalBench Table 2 "computed over N = 45 tasks"."""
    text = clean(paper_text(paper))
    caption = next(ln for ln in text.splitlines() if ln.startswith(f"Table {table}:"))
    for row in load_published(paper).table(table).rows:
        assert row.seats is not None
        name = row.label.split(" M/C=")[0]
        if paper == "grounding":
            assert re.search(re.escape(name) + r" \(N=" + str(row.seats) + " games", caption)
        else:
            assert f"N = {row.seats} tasks" in caption


@pytest.mark.parametrize("paper", PAPERS)
def test_every_number_the_kit_states_in_words_is_printed_in_the_paper(paper: str) -> None:
    """Captions, row and column labels, reasons and the contents list quote the paper's
    numbers ("504 homogeneous-team games", "40 rounds", "Gemini 3.1 Pro"): each one is a
    number the paper prints, never one of ours (a rounded "26-81%" fails)."""
    text = clean(paper_text(paper))
    printed = {c for c in cells(text) if c is not None}
    pub = load_published(paper)
    words = [f.where for f in pub.figures]
    for t in pub.tables:
        words += [t.where, t.caption, t.not_reproduced or "", t.rows_need or ""]
        words += [r.label for r in t.rows] + [c.label for c in t.columns]
    words += [r.not_reproduced or "" for r in pub.results]
    words += [f"{i.what} {i.reason or ''}" for i in pub.contents]
    unknown = [
        (v, w[:60])
        for w in words
        for v in cells(clean(w))
        if v is not None and not any(math.isclose(v, f, rel_tol=1e-9) for f in printed)
    ]
    assert not unknown
