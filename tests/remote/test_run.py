"""Remote seats in experiments: ``agent: {remote: mcp}`` prints where to join,
``agent: {command: ...}`` starts the example agent per seat per game through `accord run`,
with concurrency and resume as for model seats."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.errors import ConfigError
from accord.runner.play import play_game
from accord.runner.specs import GameSpec, parse_agent


def test_remote_seats_are_written_as_agent_mappings() -> None:
    mcp = parse_agent({"agent": {"remote": "mcp", "deadline_s": 5}})
    assert mcp.agent == "remote" and mcp.remote is not None
    assert mcp.remote.deadline_s == 5 and mcp.display == "remote-mcp"
    cmd = parse_agent({"agent": {"command": "python my_agent.py --fast"}})
    assert cmd.display == "cmd-my_agent"
    assert parse_agent({"agent": {"remote": "http"}, "label": "mine"}).display == "mine"
    assert parse_agent(mcp.model_dump(exclude_none=True)) == mcp  # a plan file round-trips


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ({"agent": {"remote": "ftp"}}, "agent.remote"),
        ({"agent": {}}, "exactly one of 'remote: mcp|http' or 'command'"),
        ({"agent": {"remote": "mcp", "command": "x"}}, "exactly one of"),
        ({"agent": {"command": "  "}}, "'command' is empty"),
        ({"agent": {"remote": "mcp", "token": "abc"}}, "token"),
        ({"agent": "remote"}, "a remote seat is written 'agent: {remote: mcp}'"),
    ],
)
def test_bad_remote_seats_get_one_line(value: dict[str, object], says: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_agent(value)
    assert says in str(err.value) and "\n" not in str(err.value)


async def test_a_remote_mcp_seat_prints_where_to_join(capsys: pytest.CaptureFixture[str]) -> None:
    seats = [parse_agent({"agent": {"remote": "mcp", "join_s": 0.1}}), parse_agent("greedy")]
    trace = await play_game(GameSpec(trace_id="p1", game="negotiation", seed=1, agents=seats))
    assert trace.status == "failed"
    err = capsys.readouterr().err
    assert "p1 seat 0 (negotiation-v3): join over mcp at http://127.0.0.1:" in err
    assert "/mcp with 'Authorization: Bearer " in err


def test_accord_run_plays_the_example_agent_and_resumes(kit, tmp_path: Path) -> None:
    example = Path(kit.example().__file__)
    config = yaml.safe_load((example.parent / "experiment.yaml").read_text())
    (seat, other) = config["batches"][0]["agents"]
    assert seat["agent"]["command"] == "python examples/remote-agent/agent.py"
    command = f"{sys.executable} {example}"  # this test's interpreter, from any folder
    seat["agent"]["command"] = command
    exp = tmp_path / "exp.yaml"
    exp.write_text(yaml.safe_dump(config))
    out = tmp_path / "run"
    runner = CliRunner()
    done = runner.invoke(app, ["run", str(exp), "--out", str(out), "--concurrency", "3"])
    assert done.exit_code == 0, done.output
    traces = sorted((out / "traces").glob("*.json"))
    assert len(traces) == config["defaults"]["games"] == 3
    for path in traces:
        trace = json.loads(path.read_text())
        assert trace["status"] == "complete", trace["error"]
        assert trace["seats"][0]["agent"] == "cmd-agent (says: accord-example 2)"
        assert trace["agents_config"][0]["remote"]["command"] == command
    assert len(list((out / "remote").glob("*.0.stderr.log"))) == 3
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {r["agent"] for r in rows} >= {"cmd-agent (says: accord-example 2)", other}
    before = {p.name: p.stat().st_mtime_ns for p in traces}
    again = runner.invoke(app, ["run", str(exp), "--out", str(out), "--resume"])
    assert again.exit_code == 0, again.output
    assert {p.name: p.stat().st_mtime_ns for p in traces} == before  # nothing played again


def test_remote_seats_need_the_local_executor(tmp_path: Path) -> None:
    from accord.runner.run import run_sync

    seats = [parse_agent({"agent": {"remote": "mcp"}}), parse_agent("greedy")]
    spec = GameSpec(trace_id="r1", game="negotiation", seed=1, agents=seats)
    with pytest.raises(ConfigError, match="use the local executor"):
        run_sync([spec], tmp_path / "run", executor="ray")
    assert not (tmp_path / "run").exists()


def test_other_seats_serialize_as_before() -> None:
    assert "remote" not in parse_agent("greedy").model_dump(mode="json")
    assert "remote" not in parse_agent("mock/schema").model_dump_json()


def test_the_docs_experiment_is_valid(tmp_path: Path) -> None:
    import re

    from accord.runner.config import expand, load_experiment

    doc = (Path(__file__).resolve().parents[2] / "docs" / "agents.md").read_text()
    (block,) = re.findall(r"```yaml\n(.*?)```", doc, re.S)
    (tmp_path / "exp.yaml").write_text(block)
    specs = expand(load_experiment(tmp_path / "exp.yaml"))
    assert len(specs) == 20
    kinds = {s.agents[0].display for s in specs}
    assert kinds == {"cmd-my_agent", "remote-mcp"}


async def test_without_the_remote_extra_a_seat_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "accord.remote.app", None)  # as if mcp were missing
    seats = [parse_agent({"agent": {"remote": "mcp"}}), parse_agent("greedy")]
    trace = await play_game(GameSpec(trace_id="p2", game="negotiation", seed=1, agents=seats))
    assert trace.status == "failed"
    assert "pip install 'accord[remote]'" in (trace.error or "")


@pytest.mark.parametrize("program", ["no-such-accord-agent-program", "./agents/missing.py"])
def test_a_command_seat_whose_program_is_missing_is_refused_before_any_game(
    tmp_path: Path, program: str
) -> None:
    exp = tmp_path / "exp.yaml"
    seat = {"agent": {"command": f"{program} --fast"}}
    exp.write_text(
        yaml.safe_dump(
            {"name": "x", "defaults": {"game": "negotiation", "agents": [seat, "greedy"]}}
        )
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(exp), "--out", str(out)])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())  # one message (wrapped to the terminal's width)
    assert said.startswith("error: agent command") and said.count("error:") == 1
    assert f"program '{program}' not found" in said
    assert not (out / "traces").exists()
    ok = parse_agent({"agent": {"command": f"{sys.executable} agent.py"}})
    assert ok.remote is not None and ok.remote.missing_program() is None
