"""`accord.load` reads a run kept in a store in place, through the one trace reader: no local
copy is made, and damaged, hostile and unsafe objects are listed, never fatal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import accord
from accord.analysis.query import run_query
from accord.core.errors import ConfigError
from accord.store import RunStore, StoredTraces
from accord.store.mirror import scratch_folder
from accord.traces.reader import source_traces


def no_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every local copy of a run fail, so a reader that still makes one is caught."""

    def refuse(prefix: str) -> Path:
        raise AssertionError(f"a local copy was made ({prefix})")

    monkeypatch.setattr("accord.store.mirror.scratch_folder", refuse)


def test_load_reads_in_place_and_lists_what_it_passes_over(
    bucket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    loc = f"{bucket}/runs/in-place"
    report = accord.run("negotiation", agents=["cooperative", "greedy"], games=3, out=loc,
                        live=False)  # fmt: skip
    assert report.played == 3
    store = RunStore(loc)
    good = json.loads(store.read("traces/negotiation-p00-g000.json") or b"{}")
    store.delete("traces/negotiation-p00-g001.json")
    store.create("traces/negotiation-p00-g001.json", b'{"schema_version": 1, "trace_')
    escaped = {**good, "trace_id": "../../escaped"}
    store.create("traces/negotiation-p00-g009.json", json.dumps(escaped).encode())
    import obstore
    from obstore.store import S3Store

    obstore.put(S3Store(bucket.removeprefix("s3://")), "runs/in-place/traces/.. evil.json", b"{}")

    no_copies(monkeypatch)
    data = accord.load(loc)
    assert sorted(g["trace_id"] for g in data.games) == [
        "negotiation-p00-g000",
        "negotiation-p00-g002",
    ]
    assert data.path == loc and len(data.seats) == 4 and data.events
    text = "\n".join(data.skipped)
    assert len(data.skipped) == 3, data.skipped
    assert "negotiation-p00-g001.json" in text and "escaped" in text and "not a safe name" in text
    # The same rows as a local copy of the run gives.
    from accord.store import local_view

    monkeypatch.setattr("accord.store.mirror.scratch_folder", scratch_folder)

    view = local_view(loc)
    copied = accord.load(view)
    assert data.games == copied.games and data.seats == copied.seats
    # `accord query`'s tables, read in place, hold what they hold from a local copy.
    sql = "SELECT * EXCLUDE (run_dir) FROM {} ORDER BY ALL"
    for table in ("games", "seats", "events", "messages"):
        left: list[str] = []
        right: list[str] = []
        here = run_query([StoredTraces(store)], sql.format(table), cache=False, skipped=left)
        there = run_query([view], sql.format(table), cache=False, skipped=right)
        assert here == there, table
        assert len(left) == 3 and len(right) == 2, (
            left,
            right,
        )  # the copy leaves the unsafe key out


def test_an_empty_location_is_one_line(bucket: str, monkeypatch: pytest.MonkeyPatch) -> None:
    no_copies(monkeypatch)
    with pytest.raises(ConfigError, match="holds no run") as err:
        accord.load(f"{bucket}/nothing-here")
    assert "\n" not in str(err.value)


def test_an_oversized_trace_is_refused_before_it_is_read(bucket: str) -> None:
    class Huge(StoredTraces):
        def trace_entries(self) -> list[tuple[str, int]]:
            return [("x.json", 10**12)]

        def trace_data(self, name: str) -> bytes | None:
            raise AssertionError("read despite its size")

    skipped: list[str] = []
    assert list(source_traces(Huge(RunStore(f"{bucket}/r")), skipped)) == []
    assert len(skipped) == 1 and "over the" in skipped[0] and "x.json" in skipped[0]
