"""The worked example of `accord compare` in docs/analysis.md ("Example (measured)") is
regenerated here: IMAP against DSM-Welfare on the 90-task canonical calendar suite (reference
agents, no model), compared as the docs say, and every number the paragraph states is checked
against the fresh comparison. A change to the games, the agents or the statistics that moves
a number fails this test instead of leaving the docs stale."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import accord
from accord.analysis.paired import (
    MetricComparison,
    compare,
    headline_metrics,
    load_records,
    select,
)
from accord.runner.config import Batch, Defaults, Experiment

DOCS = Path(__file__).resolve().parents[2] / "docs" / "analysis.md"


def _example() -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("**Example (measured).**")
    return " ".join(text[start : text.index("## Sequential comparisons", start)].split())


def _widths(rows: list[MetricComparison]) -> tuple[int, int, float, float]:
    """(paired narrower, equal, summed paired widths, summed unpaired widths): the line
    `accord compare` prints under its table."""
    widths = [(r.paired_ci[1] - r.paired_ci[0], r.unpaired_ci[1] - r.unpaired_ci[0]) for r in rows
              if r.mode == "paired"]  # fmt: skip
    narrower = sum(pw < uw - 1e-12 for pw, uw in widths)
    equal = sum(abs(pw - uw) <= 1e-12 for pw, uw in widths)
    return narrower, equal, sum(w for w, _ in widths), sum(w for _, w in widths)


@pytest.mark.slow  # 270 calendar games: a minute or two
def test_the_compare_example_in_the_docs_is_what_compare_prints(tmp_path: Path) -> None:
    exp = Experiment(
        name="imap-vs-dsm",
        defaults=Defaults(game="calendar", suite="canonical"),
        batches=[
            Batch(name="imap", agents=["imap"]),  # type: ignore[list-item]
            Batch(name="dsm-welfare", agents=["dsm-welfare"]),  # type: ignore[list-item]
            Batch(name="dsm-private", agents=["dsm-private"]),  # type: ignore[list-item]
        ],
    )
    accord.run(exp, out=tmp_path / "seq", concurrency=2)
    records, left = load_records(tmp_path / "seq")
    assert left == 0 and len(records) == 270
    result = compare(  # what `accord compare runs/seq --a batch=imap --b batch=dsm-welfare` runs
        select(records, {"batch": "imap"}),
        select(records, {"batch": "dsm-welfare"}),
        metrics=headline_metrics({r.game_id for r in records}),
    )
    rows = {r.metric: r for r in result.rows}
    assert all(r.mode == "paired" for r in rows.values())
    ex = rows["adjusted_excess"]
    narrower, _, paired_width, unpaired_width = _widths(list(rows.values()))

    doc = _example()
    assert f"{result.matched} scenarios paired" in doc
    assert (
        "calendar-v2:uniform_success_rate" in result.left_out
        and "`uniform_success_rate` is 1" in doc
    )
    assert f"narrower on {narrower} of the other {len(rows)} summary metrics" in doc
    assert f"(summed widths {paired_width:.2f} paired against {unpaired_width:.2f} unpaired)" in doc
    stated = (
        f"+{ex.diff:.3f}, paired [{ex.paired_ci[0]:.3f}, {ex.paired_ci[1]:.3f}], unpaired "
        f"[{ex.unpaired_ci[0]:.3f}, {ex.unpaired_ci[1]:.3f}], p = {ex.p:.3f}, Holm p = "
        f"{ex.p_holm:.3f} over the {len(rows)} metrics"
    ).replace("-", "−")
    assert stated in doc, (stated, doc)
    assert re.search(r"90 scenarios paired on scenario and setup", doc)

    private = compare(
        select(records, {"batch": "imap"}),
        select(records, {"batch": "dsm-private"}),
        metrics=headline_metrics({r.game_id for r in records}),
    )
    narrower, equal, paired_width, unpaired_width = _widths(private.rows)
    assert (
        f"narrower on {narrower} of {len(private.rows)} metrics only ({equal} equal; summed "
        f"widths {paired_width:.2f} paired, {unpaired_width:.2f} unpaired)"
    ) in doc
