"""`accord fork` on a run made without --cache: the requests before the fork point are
answered from the parent trace, counted by a fake server that sees every model call."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.testing.served import ServedModel, served_model
from accord.traces.io import iter_traces, read_trace

runner = CliRunner(env={"COLUMNS": "200"})


@pytest.fixture
def parent_run(tmp_path: Path) -> tuple[ServedModel, Path]:
    with served_model() as server:
        out = tmp_path / "run"
        result = runner.invoke(
            app,
            [
                "run",
                "negotiation",
                "--model",
                "openai-compatible/fake",
                "--model-base-url",
                server.url,
                "-o",
                "rounds=3",
                "-o",
                "talk_turns=2",
                "--out",
                str(out),
            ],
        )
        assert result.exit_code == 0, result.output
        (trace,) = iter_traces(out / "traces")
        assert trace.status == "complete"
        yield server, out / "traces" / f"{trace.trace_id}.json"


def _fork(server: ServedModel, trace: Path, *extra: str) -> object:
    args = ["fork", str(trace), "--at", "2/1", "--seat", "A", "--model", "openai-compatible/new"]
    return runner.invoke(app, [*args, "--model-base-url", server.url, *extra])


def test_no_model_call_before_the_fork_point(parent_run: tuple[ServedModel, Path]) -> None:
    server, trace_path = parent_run
    parent = read_trace(trace_path)
    before = len(server.chats)
    result = _fork(server, trace_path)
    assert result.exit_code == 0, result.output
    asked_of_server = server.chats[before:]
    (path,) = (trace_path.parent.parent / "forks").glob("*.json")
    forked = read_trace(path)
    (switch,) = [e for e in forked.events if e["type"] == "fork"]
    calls = [e for e in forked.events if e["type"] == "model_call"]
    early = [e for e in calls if e["t"] < switch["t"]]
    parent_early = [e for e in parent.events if e["type"] == "model_call" and e["t"] < switch["t"]]
    assert early and len(early) == len(parent_early)
    m = re.search(r"Model calls: (\d+) answered from the parent trace, (\d+) asked", result.output)
    assert m is not None, result.output
    from_trace, asked = int(m.group(1)), int(m.group(2))
    # Every call before the fork point came from the trace; only the later ones reached the
    # server, and the server saw exactly those.
    assert from_trace >= len(early)
    assert asked == len(asked_of_server) and asked >= 1
    assert from_trace + asked == len(calls)
    assert {c["model"] for c in asked_of_server} <= {"new", "fake"}
    assert any(c["model"] == "new" for c in asked_of_server)
    # Progress: each round as it is reached.
    assert "round 1: " in result.output and "round 3: " in result.output
    assert "fork point 2/1 reached: openai-compatible/new" in result.output
    # The new model is a served one: it gets the game's reply cap too.
    assert {c["max_tokens"] for c in asked_of_server} == {512}
    assert forked.run["fork"]["agent"]["max_tokens"] == 512


def test_a_trace_without_stored_replies_is_refused_before_any_call(
    parent_run: tuple[ServedModel, Path], tmp_path: Path
) -> None:
    server, trace_path = parent_run
    data = json.loads(trace_path.read_text())
    data["transcripts"] = {}
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    before = len(server.chats)
    result = _fork(server, old)
    assert result.exit_code == 2, result.output
    assert "stores no model replies" in result.output and "--cache" in result.output
    assert len(server.chats) == before
    assert not (tmp_path / "forks").exists()
