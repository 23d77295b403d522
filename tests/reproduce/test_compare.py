"""Our rows beside the published ones: identity matching, CIs, value versus shape."""

from __future__ import annotations

import pytest

from accord.reproduce.compare import (
    compare,
    half_digit,
    missing_rows,
    model_matches,
    models_match,
    observation,
    our_rows,
)
from accord.reproduce.published import load_published


def test_model_strings_match_the_papers_identifiers_behind_a_provider() -> None:
    assert model_matches("openai/gpt-5.4-mini", "gpt-5.4-mini")
    assert model_matches("openrouter/qwen/qwen3.6-plus", "qwen/qwen3.6-plus")
    assert model_matches("gpt-5.4-mini", "gpt-5.4-mini")
    assert not model_matches("openai/gpt-5.4-mini-2", "gpt-5.4-mini")
    assert not model_matches("openai/xgpt-5.4-mini", "gpt-5.4-mini")
    assert models_match(["b/y", "a/x"], ["x", "y"])
    assert not models_match(["a/x", "a/x"], ["x", "y"])


def test_half_a_printed_digit() -> None:
    assert half_digit(45.8) == pytest.approx(0.05)
    assert half_digit(0.53) == pytest.approx(0.005)
    assert half_digit(20) == pytest.approx(0.5)


def _imap(values: list[float], setting: str = "uniform") -> list:
    ident = {"agent": "imap", "cost_setting": setting, "suite": "canonical"}
    return [
        observation(
            "2",
            ident,
            {"success": 1.0, "excess_cost": v, "messages_per_meeting": 2.0, "fairness": v},
        )
        for v in values
    ]


def test_a_reference_row_is_compared_by_value_with_its_ci() -> None:
    table = load_published("calbench").table("2")
    rows = our_rows(_imap([0.2, 0.3, 0.25, 0.3, 0.2, 0.35]))
    [comp] = compare(table, rows)
    assert comp.kind == "value" and comp.published_label == "IMAP" and comp.games == 6
    coord, excess, msgs, fair, vps = comp.cells
    assert msgs.published == pytest.approx(2.0) and msgs.inside is True
    assert coord.published == pytest.approx(1.0) and coord.inside is True  # 100.0 printed
    assert excess.ours.mean == pytest.approx(0.2667, abs=1e-3)
    assert excess.published == pytest.approx(0.26) and excess.inside is True
    assert fair.published == pytest.approx(0.53) and fair.inside is False  # 0.53 above our CI
    assert vps.ours.n == 0 and vps.inside is None  # nothing measured: nothing to judge
    missing = missing_rows(table, [comp])
    assert len(missing) == 7 and all(r.label != "IMAP" or r.identity != comp.identity
                                     for r in missing)  # fmt: skip


def test_a_model_the_paper_did_not_run_is_compared_by_shape_only() -> None:
    table = load_published("calbench").table("1")
    ident = {"model": "mock/schema", "cost_setting": "varied", "suite": "canonical"}
    rows = our_rows([observation("1", ident, {"success": 0.5}), observation("1", ident, {})])
    [comp] = compare(table, rows)
    assert comp.kind == "shape" and comp.published_label is None
    success = comp.cells[1]
    assert success.inside is None and success.published is None
    assert success.paper_range == pytest.approx((0.7679, 0.8444))


def test_the_papers_model_behind_a_provider_prefix_is_compared_by_value() -> None:
    table = load_published("calbench").table("1")
    ident = {"model": "openai/gpt-5.4-mini", "cost_setting": "varied", "suite": "canonical"}
    [comp] = compare(table, our_rows([observation("1", ident, {"success": 0.7679})]))
    assert comp.kind == "value" and comp.published_label == "GPT-5.4 Mini"
    assert comp.cells[1].inside is True


def test_pooled_rows_compare_by_value_only_with_the_papers_models() -> None:
    table = load_published("mas-bench").table("3")
    rows = our_rows([observation("3", {"team": "models", "mode": "asc"}, {"sr": 0.874})])
    [other] = compare(table, rows, pooled_same=False)
    assert other.kind == "shape" and other.cells[0].inside is None
    [same] = compare(table, rows, pooled_same=True)
    assert same.kind == "value" and same.cells[0].inside is True


def test_a_row_without_published_counterpart_stands_alone() -> None:
    table = load_published("mas-bench").table("3")
    rows = our_rows([observation("3", {"team": "share-all", "mode": "asc"}, {"sr": 1.0})])
    [comp] = compare(table, rows)
    assert comp.kind == "ours" and comp.cells[0].published is None
