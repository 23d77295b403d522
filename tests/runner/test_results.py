"""The streamed summary: pooled details equal a direct computation over the traces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord.analysis import value
from accord.analysis.value import bootstrap_ratio
from accord.games.negotiation.summary import PROCESS_METRICS
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.results import SummaryBuilder
from accord.runner.run import run_sync
from accord.traces.io import iter_traces
from accord.traces.schema import Trace


def test_summary_details_pool_the_traces_counts(tmp_path: Path) -> None:
    exp = Experiment(
        name="t",
        defaults=Defaults(game="negotiation", games=6, agents=["cooperative", "greedy"]),
        batches=[Batch(name="b", options={"rounds": 4})],
    )
    run_sync(expand(exp), tmp_path)
    traces = list(iter_traces(tmp_path / "traces"))
    (group,) = json.loads((tmp_path / "summary.json").read_text())["groups"]
    details = group["details"]
    assert set(details) == {key for key, _ in PROCESS_METRICS}
    checked = 0
    for key, label in PROCESS_METRICS:
        cells = [t.metrics["detail"][key] for t in traces if key in t.metrics["detail"]]
        nums = [float(c["num"]) for c in cells]
        dens = [float(c["den"]) for c in cells]
        got = details[key]
        assert got["label"] == label
        assert got["num"] == sum(nums) and got["den"] == sum(dens)
        assert got["games"] == sum(d > 0 for d in dens)
        mean, lo, hi = bootstrap_ratio(nums, dens)
        assert (got["mean"], got["ci_low"], got["ci_high"]) == (mean, lo, hi)
        checked += got["mean"] is not None
    assert checked > 0  # some metric had eligible games, so the comparison above had numbers


def test_the_builder_keeps_no_trace(tmp_path: Path) -> None:
    exp = Experiment(
        name="t",
        defaults=Defaults(game="negotiation", games=2, agents=["cooperative", "greedy"]),
        batches=[Batch(name="b", options={"rounds": 2})],
    )
    run_sync(expand(exp), tmp_path)
    builder = SummaryBuilder()
    for t in iter_traces(tmp_path / "traces"):
        builder.add(t)
    held = [v for g in builder._groups.values() for v in g.values()]
    held += [x for v in held if isinstance(v, list | dict) for x in v]
    assert not any(isinstance(v, Trace) for v in held)
    assert builder.result()["complete"] == 2


def test_bootstrap_ratio_gives_the_same_ci_when_drawn_in_blocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nums = [float(i % 5) for i in range(101)]
    dens = [4.0 + (i % 3) for i in range(101)]
    whole = bootstrap_ratio(nums, dens, resamples=300)
    monkeypatch.setattr(value, "_BLOCK", 7 * 101)  # 7 resamples per block, the last one short
    assert bootstrap_ratio(nums, dens, resamples=300) == whole
    assert whole[1] is not None and whole[1] < whole[0] < whole[2]  # type: ignore[operator]
