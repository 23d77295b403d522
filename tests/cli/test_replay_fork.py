"""`accord replay` and `accord fork` on games played by mock models through a cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.replay import comparable, differences
from accord.runner.run import run_sync
from accord.traces.io import read_trace

runner = CliRunner(env={"COLUMNS": "200"})

# A flaky priced model (retried calls and bad replies are recorded, and must replay) against a
# steady one. Backoff is tiny so the mock's faults cost no time.
FLAKY = {
    "model": "mock/schema",
    "options": {
        "fault_rate": 0.4,
        "max_retries": 8,
        "backoff_base_s": 0.001,
        "backoff_cap_s": 0.002,
        "prices": {"input_per_mtok": 1.0, "output_per_mtok": 2.0},
    },
}
STEADY = {"model": "mock/schema", "options": {"latency_s": 0.001}}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("played")
    exp = Experiment(
        name="llm",
        defaults=Defaults(game="negotiation", games=2, agents=[FLAKY, STEADY]),
        batches=[Batch(name="b", options={"rounds": 3, "talk_turns": 2})],
    )
    report = run_sync(expand(exp), root / "run", cache=root / "cache")
    assert report.cache is not None and report.cache.misses > 0
    return root / "run", root / "cache"


def _trace(run: Path) -> Path:
    return run / "traces" / "b-p00-g001.json"


def test_replay_from_the_cache_is_identical(played: tuple[Path, Path]) -> None:
    run, cache = played
    original = read_trace(_trace(run))
    kinds = {e["type"] for e in original.events}
    assert "validation_error" in kinds, "bad replies and their corrections replay too"
    assert any(e.get("retries") for e in original.events), "so do the client's retries"
    result = runner.invoke(
        app, ["replay", str(_trace(run)), "--cache", str(cache), "--offline", "--check"]
    )
    assert result.exit_code == 0, result.output
    assert "Identical" in result.output and " 0 misses" in result.output
    fresh = read_trace(run / "replays" / "b-p00-g001.json")
    assert comparable(fresh) == comparable(original)


def test_replay_reports_a_difference(played: tuple[Path, Path], tmp_path: Path) -> None:
    run, cache = played
    data = json.loads(_trace(run).read_text())
    data["metrics"]["efficiency"] = -1.0
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    args = ["replay", str(edited), "--cache", str(cache), "--out", str(tmp_path / "o")]
    result = runner.invoke(app, [*args, "--check"])
    assert result.exit_code == 1 and "metrics.efficiency: -1.0 vs" in result.output
    assert runner.invoke(app, args).exit_code == 0, "without --check a difference is a report"
    empty = runner.invoke(
        app, ["replay", str(_trace(run)), "--cache", str(tmp_path / "none"), "--offline"]
    )
    assert empty.exit_code == 0 and "Differs" in empty.output, "misses fail calls, not the tool"


def _fork(run: Path, cache: Path, *extra: str) -> Any:
    return runner.invoke(app, ["fork", str(_trace(run)), "--cache", str(cache), *extra])


def _before(events: list[dict[str, Any]], step: int) -> list[dict[str, Any]]:
    return [e for e in events if e["t"] < step]


def test_fork_to_a_reference_agent(played: tuple[Path, Path]) -> None:
    run, cache = played
    result = _fork(run, cache, "--at", "2/1", "--seat", "A", "--agent", "greedy")
    assert result.exit_code == 0, result.output
    assert "Parent vs fork" in result.output
    (path,) = (run / "forks").glob("*greedy.json")
    forked, parent = read_trace(path), read_trace(_trace(run))
    assert forked.trace_id == "b-p00-g001.fork-r2t1-s0-greedy"
    fork = forked.run["fork"]
    assert (fork["parent"], fork["round"], fork["turn"], fork["seat"]) == (parent.trace_id, 2, 1, 0)
    assert fork["agent"]["agent"] == "greedy"
    assert forked.seats[0].agent.startswith("greedy (fork of mock/schema")
    (switch,) = [e for e in forked.events if e["type"] == "fork"]
    assert switch["round"] == 2 and switch["seat"] == 0
    # Up to the fork point the game is the parent's, call for call.
    early = _before(comparable(forked)["events"], switch["t"])
    assert early == _before(comparable(parent)["events"], switch["t"])
    assert any(e.get("round") == 1 and e["type"] == "model_call" for e in early)
    later = [e for e in forked.events if e["type"] == "model_call" and e["seat"] == 0]
    assert all(e["round"] < 2 for e in later), "seat A makes no model call after the fork"


def test_fork_to_another_model_replays_exactly(played: tuple[Path, Path]) -> None:
    run, cache = played
    result = _fork(run, cache, "--at", "2", "--seat", "1", "--model", "mock/echo")
    assert result.exit_code == 0, result.output
    (path,) = (run / "forks").glob("*mock-echo.json")
    forked = read_trace(path)
    assert forked.seats[1].model == "mock/echo"
    # Echoed prompts are not valid actions: the new model's turns show up as retries.
    assert any(e["type"] == "validation_error" and e["seat"] == 1 for e in forked.events)
    again = runner.invoke(app, ["replay", str(path), "--cache", str(cache), "--offline", "--check"])
    assert again.exit_code == 0, again.output
    assert not differences(read_trace(run / "replays" / path.name), forked)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--at", "two", "--seat", "A", "--agent", "greedy"], "ROUND/TURN"),
        (["--at", "9/1", "--seat", "A", "--agent", "greedy"], "ended in round 3"),
        (["--at", "2/1", "--seat", "C", "--agent", "greedy"], "no seat 'C'"),
        (["--at", "2/1", "--seat", "A"], "exactly one of --model"),
        (["--at", "2/1", "--seat", "A", "--agent", "human"], "cannot seat a person"),
    ],
)
def test_fork_errors_say_what_to_do(played: tuple[Path, Path], args: list[str], message: str):
    run, cache = played
    result = _fork(run, cache, *args)
    assert result.exit_code == 2 and message in result.output, result.output


def test_replay_from_the_trace_alone_is_identical(played: tuple[Path, Path]) -> None:
    run, _ = played
    original = read_trace(_trace(run))
    result = runner.invoke(app, ["replay", str(_trace(run)), "--check"])
    assert result.exit_code == 0, result.output
    assert "answered from the replies stored in the trace" in result.output
    assert "Identical" in result.output
    assert comparable(read_trace(run / "replays" / "b-p00-g001.json")) == comparable(original)


def test_replay_from_the_trace_stops_where_a_prompt_differs(
    played: tuple[Path, Path], tmp_path: Path
) -> None:
    run, _ = played
    data = json.loads(_trace(run).read_text())
    first_user = next(m for m in data["transcripts"]["A"]["messages"] if m["role"] == "user")
    first_user["content"] = "a prompt the game never sent"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    out = tmp_path / "o"
    result = runner.invoke(app, ["replay", str(edited), "--out", str(out), "--check"])
    assert result.exit_code == 1
    fresh = read_trace(out / "b-p00-g001.json")
    assert fresh.status == "failed" and "differs from the recorded one" in (fresh.error or "")


def test_a_failed_game_replays_its_failure_from_the_trace(tmp_path: Path) -> None:
    dead = {
        "model": "mock/schema",
        "options": {
            "fault_rate": 1.0,
            "faults": ["500"],
            "max_retries": 1,
            "backoff_base_s": 0.001,
        },
    }
    exp = Experiment(
        name="dead",
        defaults=Defaults(game="negotiation", agents=[STEADY, dead]),
        batches=[Batch(name="b", options={"rounds": 1, "talk_turns": 1})],
    )
    run_sync(expand(exp), tmp_path / "run")
    (path,) = (tmp_path / "run" / "traces").glob("*.json")
    original = read_trace(path)
    assert original.status == "failed" and "HTTP 500" in (original.error or "")
    result = runner.invoke(app, ["replay", str(path), "--check"])
    assert result.exit_code == 0, result.output
    fresh = read_trace(tmp_path / "run" / "replays" / path.name)
    assert fresh.status == "failed" and comparable(fresh) == comparable(original)
