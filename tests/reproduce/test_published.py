"""The published numbers ship as package data, transcribed row by row from the papers."""

from __future__ import annotations

import pytest

from accord.core.errors import ConfigError
from accord.reproduce.published import PAPERS, load_published


@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_loads_with_a_source_for_every_table(paper: str) -> None:
    pub = load_published(paper)
    assert pub.paper == paper and pub.title
    for table in pub.tables:
        assert ("Table" in table.where or "Figure" in table.where) and (
            "§" in table.where or "App." in table.where
        )
        assert table.columns and (table.rows or not table.printed)
        for row in table.rows:
            assert len(row.values) == len(table.columns)
            assert row.identity, row.label  # every row says which of ours it is compared with
    for figure in pub.figures:
        table = pub.table(figure.table)
        assert set(figure.columns) <= {c.key for c in table.columns}
        assert table.not_reproduced is None  # a drawn figure's table is played
    for result in pub.results:  # each stated number: ours beside it, or the reason why not
        assert (result.key is None) != (result.not_reproduced is None), result.id
    assert len({r.id for r in pub.results}) == len(pub.results)


def test_row_counts_match_the_papers_tables() -> None:
    counts = {
        (p, t.id): len(t.rows) for p in PAPERS for t in load_published(p).tables
    }  # fmt: skip
    assert counts == {
        ("calbench", "1"): 14,  # 7 models x 2 cost settings
        ("calbench", "2"): 8,  # 4 protocols x 2 cost settings
        ("calbench", "7"): 7,  # models
        ("calbench", "11"): 7,
        ("calbench", "12"): 7,
        ("calbench", "13"): 3,  # regex labels
        ("calbench", "15"): 12,  # patterns
        ("calbench", "16"): 2,  # audited datasets
        ("calbench", "17"): 11,  # agreement statistics
        ("mas-bench", "1"): 36,  # 3 models x 4 conditions x 3 backends
        ("mas-bench", "2"): 45,  # 5 N x 3 backends x 3 K
        ("mas-bench", "3"): 5,  # input families
        ("mas-bench", "4"): 4,  # 3 models and the total
        ("mas-bench", "6"): 3,  # backends
        ("mas-bench", "7"): 3,
        ("mas-bench", "8"): 3,
        ("mas-bench", "9"): 3,  # tasks
        ("mas-bench", "10"): 4,  # conditions
        ("mas-bench", "11"): 4,
        ("mas-bench", "F2"): 0,  # drawn only
        ("grounding", "3"): 18,  # 6 dyads x 3 ratios
        ("grounding", "4"): 1,
        ("grounding", "5"): 8,  # judge labels
        ("grounding", "8"): 1,
        ("grounding", "9"): 12,  # 2 arms x 2 partner modes x 3 ratios
        ("grounding", "10"): 36,  # 3 models x 2 partner modes x 3 ratios x talk / no talk
        ("grounding", "11"): 6,  # 2 models x 3 ratios
        ("grounding", "12"): 3,
        ("grounding", "13"): 8,
        ("grounding", "14"): 14,
    }


def _row(paper: str, table: str, **ident: object) -> list[float | None]:
    rows = [r for r in load_published(paper).table(table).rows if r.identity == ident]
    assert len(rows) == 1, ident
    return rows[0].values


def test_spot_checks_against_the_printed_tables() -> None:
    imap = {"agent": "imap", "suite": "canonical", "cost_setting": "uniform"}
    assert _row("calbench", "2", **imap) == [100.0, 0.26, 2.00, 0.530, 12.40]
    sdmap = {"agent": "sd-map", "suite": "canonical", "cost_setting": "varied"}
    assert _row("calbench", "2", **sdmap) == [63.1, 3.64, 7.30, 1.376, 0.08]
    gpt = {"model": "gpt-5.4-mini", "suite": "canonical", "cost_setting": "varied"}
    assert _row("calbench", "1", **gpt) == [2.30, 76.79, 1.49, 3.44, 1.376, 4.60]
    kv = {"model": "deepseek-chat-v3.1", "condition": "camoc", "backend": "kv"}
    assert _row("mas-bench", "1", **kv) == [84.7, 45.3, 5.25, 3.7]
    assert _row("mas-bench", "2", team="models", n=20, backend="p2p", k=10) == [22.8]
    assert _row("mas-bench", "3", team="models", mode="asc") == [87.4, 26.9, 7.47, 7.0]
    pair = ["claude-sonnet-4-5-20250929", "gpt-5-mini-2025-08-07"]
    assert _row("grounding", "3", models=pair, ratio=0.5) == [10.6, 79.8, 34.4]
    qwen = {"models": ["qwen/qwen3.5-flash"], "partner": "shifting", "ratio": 0.5}
    assert _row("grounding", "10", **qwen, cheap_talk=True) == [48, 49, 25]
    assert _row("grounding", "10", **qwen, cheap_talk=False) == [75, 23, 13]


def test_unknown_paper_table_or_figure_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="calbench, mas-bench, grounding"):
        load_published("nope")
    with pytest.raises(ConfigError, match="choose one of: 1, 2, 11"):
        load_published("calbench").table("8")
    with pytest.raises(ConfigError, match="not reproduced by this kit: a manual annotation"):
        load_published("calbench").reproduced_table("13")
    with pytest.raises(ConfigError, match="choose one of: 2, 3"):
        load_published("grounding").figure("9")
