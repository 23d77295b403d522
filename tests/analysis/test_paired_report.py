"""`accord report` writes the comparison and noise-floor tables with `accord compare`'s code."""

from __future__ import annotations

import csv
from pathlib import Path

from accord.analysis.paired import compare, headline_metrics, record, select
from accord.analysis.report import build_report
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.run import run_sync
from accord.traces.io import iter_traces


def test_report_compares_pairings_paired_and_gives_the_noise_floor(tmp_path: Path) -> None:
    exp = Experiment(
        name="x",
        defaults=Defaults(game="negotiation", games=8, repeats=2, options={"rounds": 2}),
        batches=[Batch(name="cross", crossplay=["cooperative", "greedy"], self_play=True)],
    )
    run_sync(expand(exp), tmp_path / "run")
    written = build_report([tmp_path / "run"], tmp_path / "run" / "report")
    names = {p.name for p in written}
    assert {"comparisons.csv", "comparisons.md", "noise_floor.csv", "noise_floor.md"} <= names
    folder = tmp_path / "run" / "report" / "negotiation-v3"
    rows = list(csv.DictReader((folder / "comparisons.csv").read_text().splitlines()))
    pairings = sorted({r["b"] for r in rows})
    assert rows[0]["a"] == "pairing=cooperative vs cooperative"
    assert pairings == ["pairing=cooperative vs greedy", "pairing=greedy vs greedy"]
    assert {r["mode"] for r in rows} == {"paired"} and {r["pairs"] for r in rows} == {"8"}
    # The same numbers as accord compare on those sides.
    records = [record(t) for t in iter_traces(tmp_path / "run" / "traces")]
    a = select(records, {"pairing": "cooperative vs cooperative"})
    b = select(records, {"pairing": "greedy vs greedy"})
    expected = compare(a, b, metrics=headline_metrics({"negotiation-v3"}))
    got = {r["metric"]: float(r["diff"]) for r in rows if r["b"] == "pairing=greedy vs greedy"}
    assert got == {r.metric: r.diff for r in expected.rows}
    floor = list(csv.DictReader((folder / "noise_floor.csv").read_text().splitlines()))
    # Reference agents repeat exactly: no spread, no flips.
    assert floor and all(float(r["within_sd"]) == 0 and float(r["flip_share"]) == 0 for r in floor)
    assert {r["scenarios"] for r in floor} == {"24"} and {r["repeats"] for r in floor} == {"2.0"}


def test_identical_metrics_enter_the_holm_family_once_and_holm_spans_the_family() -> None:
    from accord.analysis.paired import GameRecord
    from accord.analysis.paired_report import distinct_metrics
    from accord.analysis.paired_stats import holm

    games = [
        GameRecord(f"g{i}", "g-v1", i, f"s{i}", "", {"sr": i % 2, "success": i % 2, "x": i})
        for i in range(4)
    ]
    kept, same = distinct_metrics(games, ["sr", "success", "x", "global_check"])
    assert kept == ["sr", "x", "global_check"] and same == {"success": "sr"}
    # global_check is missing in every game: a column of None, kept once.
    assert holm([0.01, 0.02, 0.03, 0.04]) == [0.04, 0.06, 0.06, 0.06]


def test_comparisons_table_names_its_baseline_and_adjusts_over_every_row(tmp_path: Path) -> None:
    exp = Experiment(
        name="x",
        defaults=Defaults(game="negotiation", games=8, options={"rounds": 2}),
        batches=[
            Batch(name="zeta", crossplay=["cooperative", "greedy", "equal-split"], self_play=True)
        ],
    )
    run_sync(expand(exp), tmp_path / "run")
    build_report([tmp_path / "run"], tmp_path / "run" / "report")
    folder = tmp_path / "run" / "report" / "negotiation-v3"
    rows = list(csv.DictReader((folder / "comparisons.csv").read_text().splitlines()))
    # The first pairing of the plan is the baseline, not the alphabetically first one.
    assert {r["a"] for r in rows} == {"pairing=cooperative vs cooperative"}
    assert len({r["b"] for r in rows}) == 5
    from accord.analysis.paired_stats import holm

    raw = [float(r["p"]) for r in rows]
    assert [float(r["p_holm"]) for r in rows] == holm(raw)
    md = (folder / "comparisons.md").read_text()
    assert "baseline pairing=cooperative vs cooperative (the group played first)" in md
    lines = [line.split(" | ") for line in md.splitlines() if line.startswith("| ")]
    header, body = lines[0], lines[2:] if lines[1][0].startswith("|-") else lines[1:]
    p_cols = [header.index("p"), header.index("p_holm")]
    assert all(row[i] != "0.000" for row in body for i in p_cols)  # a p is never "0.000"


def test_small_p_values_keep_their_digits_in_markdown(tmp_path: Path) -> None:
    from accord.analysis.report import write_table

    rows = [{"metric": "m", "diff": 0.0001, "p": 0.0001, "p_holm": 0.00042}]
    write_table(rows, tmp_path / "t")
    md = (tmp_path / "t.md").read_text()
    assert "| m | 0.000 | 0.0001 | 0.00042 |" in md
