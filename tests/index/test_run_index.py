"""The run index (`accord.index`): the same rows as reading every trace, checked against the
traces on every use (a trace added, replaced or removed after indexing, an index changed by
anything but Accord), kept current by the runner, rebuilt by `accord index`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from accord.analysis.query import run_query
from accord.cli.main import app
from accord.index import run_index, writer
from accord.index.run_index import index_folder, open_index, sync
from accord.index.writer import IndexWriter
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.reader import readable_traces, run_traces_folder

runner = CliRunner(env={"COLUMNS": "200"})

_VIEWS = ("games", "seats", "messages")


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "cache"))


def _specs(n: int, start: int = 0) -> list[GameSpec]:
    return [
        GameSpec(
            trace_id=f"g{i:03d}",
            game="negotiation",
            seed=i,
            agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")],
        )
        for i in range(start, start + n)
    ]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("played") / "run"
    run_sync(_specs(4), out)
    return out


@pytest.fixture
def run_dir(played: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    (out / "traces").mkdir(parents=True)
    for p in sorted((played / "traces").glob("*.json")):
        (out / "traces" / p.name).write_bytes(p.read_bytes())
    return out


def rows(run: Path, sql: str, *, cache: bool = True) -> tuple[list[Any], list[str]]:
    skipped: list[str] = []
    _, _, result = run_query([run], sql, cache=cache, skipped=skipped)
    return result, skipped


def _same_as_traces(run: Path) -> None:
    """Every view read through the index equals the one built from every trace."""
    for view in _VIEWS:
        sql = f"SELECT * FROM {view} ORDER BY ALL"
        assert rows(run, sql) == rows(run, sql, cache=False), view


def test_index_holds_what_reading_every_trace_gives(run_dir: Path) -> None:
    _same_as_traces(run_dir)
    assert (index_folder(run_dir) / run_index.DATABASE).is_file()
    assert rows(run_dir, "SELECT count(*) FROM games")[0] == [(4,)]


def test_a_trace_added_after_indexing_is_read_alone(run_dir: Path, played: Path) -> None:
    assert sync(run_dir).indexed == 4
    extra = json.loads((played / "traces" / "g000.json").read_text())
    extra["trace_id"] = "z-added"
    (run_dir / "traces" / "z-added.json").write_text(json.dumps(extra, indent=1))
    state = sync(run_dir)
    assert (state.indexed, state.rebuilt) == (1, False)
    assert rows(run_dir, "SELECT count(*) FROM games WHERE trace_id = 'z-added'")[0] == [(1,)]
    _same_as_traces(run_dir)


def test_a_replaced_or_removed_trace_is_never_answered_from_the_index(run_dir: Path) -> None:
    sync(run_dir)
    path = run_dir / "traces" / "g001.json"
    data = json.loads(path.read_text())
    data["status"], data["error"] = "failed", "replayed"
    path.write_text(json.dumps(data, indent=1))
    (run_dir / "traces" / "g002.json").unlink()
    got, _ = rows(run_dir, "SELECT trace_id, status FROM games ORDER BY 1")
    assert got == [("g000", "complete"), ("g001", "failed"), ("g003", "complete")]
    assert rows(run_dir, "SELECT DISTINCT trace_id FROM seats ORDER BY 1")[0] == [
        ("g000",), ("g001",), ("g003",),
    ]  # fmt: skip
    _same_as_traces(run_dir)


def test_a_tampered_index_is_rebuilt_from_the_traces(run_dir: Path) -> None:
    state = sync(run_dir)
    truth = rows(run_dir, "SELECT trace_id, efficiency FROM games ORDER BY 1")
    with duckdb.connect(str(state.path)) as con:  # someone edits a result in the index
        con.execute("UPDATE games SET efficiency = 99, status = 'forged'")
        con.execute("DELETE FROM seats WHERE seat = 1")
    assert rows(run_dir, "SELECT trace_id, efficiency FROM games ORDER BY 1") == truth
    assert rows(run_dir, "SELECT count(*) FROM games WHERE status = 'forged'")[0] == [(0,)]
    _same_as_traces(run_dir)


def test_a_damaged_index_file_is_rebuilt(run_dir: Path) -> None:
    state = sync(run_dir)
    state.path.write_bytes(b"not a database")
    _same_as_traces(run_dir)
    assert sync(run_dir).indexed == 0  # rebuilt once, then current


def test_skipped_files_are_listed_as_every_command_lists_them(run_dir: Path) -> None:
    traces = run_traces_folder(run_dir)
    (traces / "broken.json").write_text("{nope")
    (traces / "old.json").write_text('{"schema_version": 99}')
    reference: list[str] = []
    assert len(list(readable_traces(traces, reference))) == 4
    first, skipped = rows(run_dir, "SELECT count(*) FROM games")
    assert first == [(4,)] and skipped == reference
    again, skipped_again = rows(run_dir, "SELECT count(*) FROM games")  # from the index
    assert again == [(4,)] and skipped_again == reference


def test_an_index_that_cannot_be_brought_up_to_date_is_not_used(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sync(run_dir)
    (run_dir / "traces" / "g003.json").unlink()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError("read-only file system")

    monkeypatch.setattr(run_index, "sync", refuse)
    assert open_index(run_dir) is None
    assert rows(run_dir, "SELECT count(*) FROM games")[0] == [(3,)]  # read from the traces


def test_the_runner_indexes_games_as_they_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer, "FLUSH_EVERY", 4)
    short = tmp_path / "short"
    run_sync(_specs(3), short, concurrency=1)
    assert not index_folder(short).exists()  # a short run leaves the index to its readers
    out = tmp_path / "run"
    run_sync(_specs(9), out, concurrency=1)
    state = sync(out)
    assert (state.files, state.indexed, state.rebuilt) == (9, 0, False)
    for name in ("g002.json", "g007.json"):  # played again on resume
        (out / "traces" / name).unlink()
    run_sync(_specs(9), out, concurrency=1, resume=True)
    assert sync(out).indexed == 0  # the runner indexed them as they finished
    _same_as_traces(out)


def test_resume_reads_only_the_new_traces(run_dir: Path, played: Path) -> None:
    sync(run_dir)
    writer = IndexWriter(run_dir, every=1)
    data = json.loads((played / "traces" / "g000.json").read_text())
    data["trace_id"] = "g900"
    path = run_dir / "traces" / "g900.json"
    path.write_text(json.dumps(data, indent=1))
    writer.add(path)
    con = duckdb.connect(str(index_folder(run_dir) / run_index.DATABASE), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM files").fetchone() == (5,)
    finally:
        con.close()
    assert sync(run_dir).indexed == 0


def test_accord_index_command(run_dir: Path) -> None:
    res = runner.invoke(app, ["index", "--help"])
    assert res.exit_code == 0 and "accord index runs/demo" in res.output
    res = runner.invoke(app, ["index", str(run_dir)])
    assert res.exit_code == 0, res.output
    assert "index built: 4 trace files, 4 read" in res.output
    res = runner.invoke(app, ["index", str(run_dir)])
    assert "index current: 4 trace files, 0 read" in res.output
    res = runner.invoke(app, ["index", str(run_dir), "--rebuild"])
    assert "index built: 4 trace files, 4 read" in res.output
    res = runner.invoke(app, ["index", str(run_dir / "nowhere")])
    assert res.exit_code == 2 and "not a run directory" in res.output


def test_a_linked_traces_folder_is_refused(run_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    os.symlink(run_dir / "traces", other / "traces")
    res = runner.invoke(app, ["index", str(other)])
    assert res.exit_code == 2 and "link" in res.output
