"""A resumed run's rebuild of results.jsonl and summary.json reuses the scan's read of each
kept trace: same bytes as a fresh rebuild, one read per unchanged file, a replaced file read
anew, unreadable files listed alike."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import accord.traces.reader as trace_reader
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.results import write_outputs
from accord.runner.run import run_sync
from accord.runner.scan import scan_run

FILES = ("results.jsonl", "summary.json")


def test_rebuild_from_the_scan_equals_a_fresh_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exp = Experiment(
        name="t",
        defaults=Defaults(game="negotiation", games=5, agents=["cooperative", "greedy"]),
        batches=[Batch(name="a", options={"rounds": 3}), Batch(name="b", options={"rounds": 2})],
    )
    specs = expand(exp)
    run_sync(specs, tmp_path)
    traces = tmp_path / "traces"
    (traces / "junk.json").write_text("{not json")
    order = [s.trace_id for s in reversed(specs)]  # the CIs depend on the order: keep it
    write_outputs(tmp_path, order)
    fresh = {f: (tmp_path / f).read_bytes() for f in FILES}

    scan = scan_run(tmp_path)
    replaced = sorted(p for p in traces.glob("*.json") if p.name != "junk.json")[1]
    text = replaced.read_text()
    replaced.unlink()
    replaced.write_text(text)  # a new file (a game played again): its record is stale
    reads: Counter[str] = Counter()
    original = trace_reader.trace_bytes

    def counting(path: Path) -> bytes:
        reads[Path(path).name] += 1
        return original(path)

    monkeypatch.setattr(trace_reader, "trace_bytes", counting)
    statuses: dict[str, str] = {}
    summary = write_outputs(tmp_path, order, statuses=statuses, known=scan.records)
    assert {f: (tmp_path / f).read_bytes() for f in FILES} == fresh
    assert reads == Counter({replaced.name: 1})
    assert len(statuses) == len(specs) and set(statuses.values()) == {"complete"}
    assert [u["file"] for u in summary["unreadable"]] == ["junk.json"]
