"""Every command that reads a run takes a store location (``s3://...``) as well as a path,
and what it writes beside the run (a report, a fork, a replay, labels) goes back to the
store; `accord.load` reads a stored run from Python."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import accord
from accord.cli.main import app
from accord.store import RunStore

TRACE = "negotiation-p00-g000"


@pytest.fixture(scope="module")
def stored(s3_endpoint: str) -> Iterator[str]:
    """A finished run of two mock-model games kept in a new bucket; its location."""
    with pytest.MonkeyPatch.context() as mp:
        env = {
            "AWS_ACCESS_KEY_ID": "AKIDSTORETESTS0002",
            "AWS_SECRET_ACCESS_KEY": "S3cr3t-Readers-0a9d",
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": s3_endpoint,
            "AWS_ALLOW_HTTP": "true",
        }
        for key, value in env.items():
            mp.setenv(key, value)
        name = f"t-{uuid.uuid4().hex[:20]}"
        put = urllib.request.Request(f"{s3_endpoint}/{name}", method="PUT")
        urllib.request.urlopen(put, timeout=10).close()
        loc = f"s3://{name}/runs/readers"
        report = accord.run("negotiation", model="mock/schema", games=2, out=loc, live=False)
        assert report.played == 2
        yield loc


def names(loc: str, folder: str) -> list[str]:
    return [e.name for e in RunStore(loc).list(folder)]


def invoke(*args: str) -> str:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_report_writes_back_into_the_store(stored: str) -> None:
    invoke("report", stored)
    assert any(n.endswith("headline.md") for n in names(stored, "report"))


def test_query(stored: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(prefix: str) -> Path:
        raise AssertionError("query made a local copy of the run")

    monkeypatch.setattr("accord.store.mirror.scratch_folder", refuse)  # read in place
    out = invoke("query", stored, "SELECT count(*) AS n FROM games", "-f", "json")
    assert json.loads(out) == [{"n": 2}]
    out = invoke("query", stored, "SELECT DISTINCT run_dir FROM seats", "-f", "json")
    assert json.loads(out) == [{"run_dir": stored}]


def test_compare(stored: str) -> None:
    # The same games with seat B played by another agent, stored beside the first run (a run
    # compared with itself is refused: there would be nothing to compare).
    other = stored.replace("/runs/readers", "/runs/readers-greedy")
    accord.run("negotiation", agents="mock/schema,greedy", games=2, out=other, live=False)
    out = invoke("compare", stored, other, "-f", "json")
    found = json.loads(out)
    assert (found["matched"], found["factor"]) == (2, ["seat 1"]), out
    assert found["rows"] and all(r["pairs"] == 2 for r in found["rows"])


def test_leaderboard(stored: str) -> None:
    assert "mock/schema" in invoke("leaderboard", stored, "-f", "csv")


def test_value(stored: str) -> None:
    assert "without a baseline" in invoke("value", stored)


def test_export(stored: str) -> None:
    invoke("export", stored)
    assert "export/games.parquet" in names(stored, "export")


def test_transcript(stored: str) -> None:
    out = invoke("transcript", f"{stored}/traces/{TRACE}.json")
    assert "system" in out.lower()


def test_replay_and_fork_go_back_to_the_store(stored: str) -> None:
    out = invoke("replay", f"{stored}/traces/{TRACE}.json")
    assert "Identical to the original trace" in out
    assert names(stored, "replays") == [f"replays/{TRACE}.json"]
    invoke("fork", f"{stored}/traces/{TRACE}.json", "--at", "2", "--seat", "1", "--agent",
           "greedy")  # fmt: skip
    assert len(names(stored, "forks")) == 1


def test_judge(stored: str) -> None:
    invoke("judge", stored, "--model", "mock/schema")
    assert "judge/labels.jsonl" in names(stored, "judge")


def test_view_bundle(stored: str, tmp_path: Path) -> None:
    invoke("view", "bundle", stored, "--out", str(tmp_path / "site"))
    assert (tmp_path / "site" / "index.html").is_file()


def test_load_from_python(stored: str) -> None:
    data = accord.load(stored)
    assert sorted(g["trace_id"] for g in data.games) == [TRACE, "negotiation-p00-g001"]


def test_a_trace_location_must_name_a_trace(stored: str) -> None:
    result = CliRunner().invoke(app, ["transcript", f"{stored}/traces/../x.json"])
    assert result.exit_code == 2


def test_serve(stored: str, tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with (tmp_path / "serve.txt").open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "accord", "serve", stored, "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        end, runs = time.monotonic() + 120, None
        while time.monotonic() < end and runs is None:
            try:
                url = f"http://127.0.0.1:{port}/api/runs"
                with urllib.request.urlopen(url, timeout=5) as reply:
                    runs = json.loads(reply.read())
            except OSError:
                assert proc.poll() is None, (tmp_path / "serve.txt").read_text()
                time.sleep(0.3)
        assert runs is not None, "the server did not answer"
        assert sum(int(r.get("games", 0)) for r in runs) == 2, runs
    finally:
        proc.terminate()
        proc.wait(timeout=30)
