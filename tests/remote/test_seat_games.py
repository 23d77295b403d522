"""Remote agents complete games of every built-in game, over MCP (the example agent) and over
plain HTTP/JSON, and the trace records what they were sent and every call they made."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from accord.core import plugins
from accord.remote.client import http_agent
from accord.traces.events import RemoteAction, RemoteCall
from accord.traces.schema import trace_json_schema

ROOT = Path(__file__).resolve().parents[2]

GAMES: list[tuple[str, list[Any], dict[str, Any]]] = [
    ("negotiation", ["greedy"], {}),
    ("sorting", ["share-all", "share-all"], {"max_rounds": 4}),
    ("calendar", ["oracle-follower", "oracle-follower"], {}),
]


async def _http(via: str, url: str, token: str) -> None:
    assert via == "http"
    await http_agent(url, token)


@pytest.mark.parametrize(("game", "others", "options"), GAMES)
@pytest.mark.parametrize("via", ["mcp", "http"])
async def test_a_remote_agent_completes_the_game(
    kit, via: str, game: str, others: list[Any], options: dict[str, Any]
) -> None:
    agent = kit.example()

    async def _mcp(via: str, url: str, token: str) -> None:
        assert via == "mcp" and url.endswith("/mcp")
        await agent.play(url, token)

    seat = kit.remote(via, max_errors=40, deadline_s=30)
    trace, joins = await kit.play_with(
        game, [seat, *others], _mcp if via == "mcp" else _http, options=options
    )
    assert trace.status == "complete", trace.error
    assert len(joins.lines) == 1
    kinds = Counter(e["type"] for e in trace.events)
    assert kinds["remote_join"] == 1
    assert (
        kinds["remote_request"]
        == kinds["remote_action"]
        == trace.usage[trace.seats[0].name].decisions
        > 0
    )
    calls = [e for e in trace.events if e["type"] == "remote_call"]
    assert {c["via"] for c in calls} == {via}
    accepted = [c for c in calls if c["tool"] == "act" and c["ok"]]
    assert len(accepted) == kinds["remote_action"]
    # What the agent was sent, and what it answered, is the seat's transcript.
    transcript = trace.transcripts[trace.seats[0].name]
    roles = Counter(m["role"] for m in transcript.messages)
    assert roles["user"] == kinds["remote_request"]
    assert roles["assistant"] >= kinds["remote_action"]
    assert transcript.calls == len(calls) or transcript.calls > len(calls)
    # The example agent (MCP) says who it is; the HTTP client does not.
    said = " (says: accord-example 2)" if via == "mcp" else ""
    assert trace.seats[0].agent == f"remote-{via}{said}"
    assert all(e.get("seat") == 0 for e in trace.events if e["type"].startswith("remote_"))
    # Remote events are typed harness events, and the trace meets `accord trace-schema`.
    assert all(isinstance(c, RemoteCall) for c in calls)
    assert all(isinstance(e, RemoteAction) for e in trace.events if e["type"] == "remote_action")
    jsonschema.validate(trace.model_dump(mode="json"), trace_json_schema())


@pytest.fixture(scope="module")
def meeting_point(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The example game installed into a folder on sys.path (found by its entry points)."""
    work = tmp_path_factory.mktemp("mp")
    copy = work / "meeting-point"
    shutil.copytree(ROOT / "examples" / "meeting-point", copy,
                    ignore=shutil.ignore_patterns(".*", "__pycache__"))  # fmt: skip
    site = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--target", str(site), str(copy)],
        check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    sys.path.insert(0, str(site))
    plugins.refresh()
    yield "meeting-point"
    sys.path.remove(str(site))
    for name in [m for m in sys.modules if m.split(".")[0] == "meeting_point"]:
        del sys.modules[name]
    plugins.refresh()


@pytest.mark.parametrize("via", ["mcp", "http"])
async def test_a_remote_agent_plays_a_plugin_game(kit, meeting_point: str, via: str) -> None:
    agent = kit.example()

    async def join(via: str, url: str, token: str) -> None:
        await (agent.play(url, token) if via == "mcp" else http_agent(url, token))

    seat = kit.remote(via, max_errors=40)
    trace, _ = await kit.play_with(meeting_point, [seat, "share"], join)
    assert trace.status == "complete", trace.error
    assert trace.game_id == "meeting-point-v1"
    assert trace.usage[trace.seats[0].name].decisions > 0


async def test_a_remote_seat_is_offered_when_the_game_starts(kit) -> None:
    """Seat 1 speaks second: its join details come at game start, before seat 0 acts."""
    agent = kit.example()

    async def _mcp(via: str, url: str, token: str) -> None:
        await agent.play(url, token)

    seat = kit.remote("mcp", max_errors=40, deadline_s=30)
    trace, joins = await kit.play_with("negotiation", ["greedy", seat], _mcp)
    assert trace.status == "complete", trace.error
    assert len(joins.lines) == 1 and "seat 1" in joins.lines[0]
    (join,) = [e for e in trace.events if e["type"] == "remote_join"]
    assert join["seat"] == 1
    acted = [e["t"] for e in trace.events if e.get("seat") == 0 or e["type"] == "remote_request"]
    assert acted and join["t"] < min(acted)


async def test_accord_transcript_shows_a_remote_seats_exchanges(kit, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from accord.cli.main import app
    from accord.traces.io import write_trace

    seat = kit.remote("http", max_errors=40, deadline_s=30)
    trace, _ = await kit.play_with("negotiation", [seat, "greedy"], _http)
    assert trace.status == "complete", trace.error
    path = write_trace(tmp_path, trace)
    runner = CliRunner(env={"COLUMNS": "200"})
    shown = runner.invoke(app, ["transcript", str(path), "--seat", "0"])
    assert shown.exit_code == 0, shown.output
    sent = [e for e in trace.events if e["type"] == "remote_request"]
    acts = [e for e in trace.events if e["type"] == "remote_call" and e["tool"] == "act"]
    assert f"remote · {len(sent)} requests" in shown.output
    assert shown.output.count("\nrequest ") == len(sent) > 0
    assert shown.output.count("call act via http") == len(acts)
    assert shown.output.count("answered in") == len(sent)
    messages = trace.transcripts[trace.seats[0].name].messages
    replies = [m for m in messages if m["role"] == "assistant"]
    assert len(replies) == len(acts) and shown.output.count(" assistant") == len(replies)
    one = runner.invoke(app, ["transcript", str(path), "--seat", "0", "--call", "2"])
    assert one.exit_code == 0 and one.output.count("\nrequest ") == 1
    assert " system" in one.output  # the system prompt in force is shown with one request
    missing = runner.invoke(app, ["transcript", str(path), "--seat", "0", "--call", "999"])
    assert missing.exit_code == 2 and "has no request 999" in missing.output
