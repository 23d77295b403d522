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
