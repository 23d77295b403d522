"""`accord agent check` against the example agent, and against agents that get points wrong."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.remote.spec import RemoteSeatSpec
from accord.testing.agent_check import FAIL, PASS, POINTS, REFUSAL, check_agent


def test_the_example_agent_passes_every_point(kit) -> None:
    command = f"{sys.executable} {kit.example().__file__}"
    done = CliRunner().invoke(
        app, ["agent", "check", "--command", command, "--max-errors", "40", "--deadline", "20"]
    )
    assert done.exit_code == 0, done.output
    assert "3 of 3 games failed no point" in done.output
    for point in POINTS:
        assert done.output.count(point) == 3


BLIND = """
import json, os, httpx
c = httpx.Client(base_url=os.environ["ACCORD_SEAT_URL"],
                 headers={"Authorization": "Bearer " + os.environ["ACCORD_SEAT_TOKEN"]})
# Acts before it is asked, then answers blindly, and never retries after an error.
c.post("/act", json={"request_id": 99, "reply": {}})
c.post("/act", json={"request_id": 1, "reply": {"message": "hi"}})
"""


async def test_an_agent_that_acts_blindly_fails_points(tmp_path: Path) -> None:
    script = tmp_path / "blind.py"
    script.write_text(BLIND)
    remote = RemoteSeatSpec(command=f"{sys.executable} {script}", deadline_s=2, join_s=20)
    (result,) = await check_agent(remote, games=("negotiation",))
    assert not result.passed
    assert result.verdict("joins") == PASS
    assert result.verdict("acts only when asked") == FAIL
    assert result.verdict("reads its observation") == FAIL
    assert result.verdict("handles an error reply") != PASS
    assert result.verdict("game complete") == FAIL
    assert REFUSAL not in (result.error or "")


def test_bad_input_gets_one_line_and_exit_2() -> None:
    runner = CliRunner()
    for args, says in (
        (["agent", "check"], "give the URL to serve on, or --command"),
        (["agent", "check", "ftp://x"], "is not an address to serve on"),
        (["agent", "check", "--command", "true", "--game", "chess"], "unknown check game"),
        (["agent", "check", "--command", "true", "--deadline", "0"], "deadline_s"),
        (["agent", "check", "--command", "no-such-agent-program x"], "cannot find the program"),
        (["agent", "check", "--command", "a 'b"], "cannot be split"),
    ):
        done = runner.invoke(app, args)
        assert done.exit_code == 2, done.output
        assert says in done.output


def test_agent_schema_prints_the_protocol() -> None:
    done = CliRunner().invoke(app, ["agent", "schema"])
    assert done.exit_code == 0
    schemas = json.loads(done.output)
    assert schemas["protocol"] == "accord-seat/1"
    assert {
        *("SeatInfoReply", "WaitArgs", "WaitReply", "ActArgs", "ActReply", "ErrorReply"),
        "AgentIdentity",
    } == set(schemas["messages"])


async def test_an_agent_started_by_hand_is_checked_through_the_printed_details(kit) -> None:
    import asyncio

    from accord.agents import remote as remote_agent

    joins = kit.Joins()
    remote_agent.ANNOUNCE[:] = [joins]

    async def agents() -> None:
        while True:
            via, url, token = await joins.queue.get()
            assert via == "http"
            await kit.http_agent(url, token)

    task = asyncio.ensure_future(agents())
    try:
        remote = RemoteSeatSpec(remote="http", max_errors=40)
        results = await check_agent(remote, games=("negotiation", "sorting"))
    finally:
        task.cancel()
        remote_agent.ANNOUNCE[:] = [remote_agent._print_to_terminal]
    assert [r.game for r in results] == ["negotiation", "sorting"]
    assert all(r.passed for r in results), [r.points for r in results]
    assert len(joins.lines) == 2


def test_agent_check_serves_on_the_url_it_is_given(kit) -> None:
    import asyncio
    import queue
    import re
    import socket
    import threading

    from accord.agents import remote as remote_agent

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    lines: queue.Queue[str] = queue.Queue()
    remote_agent.ANNOUNCE[:] = [lines.put]
    seen: list[str] = []

    def agent() -> None:
        line = lines.get(timeout=60)
        seen.append(line)
        m = re.search(r"at (\S+) with 'Authorization: Bearer (\S+)'", line)
        assert m is not None
        asyncio.run(kit.http_agent(m.group(1), m.group(2)))

    thread = threading.Thread(target=agent, daemon=True)
    thread.start()
    try:
        done = CliRunner().invoke(
            app,
            ["agent", "check", f"http://127.0.0.1:{port}/v1", "--game", "negotiation",
             "--max-errors", "40"],
        )  # fmt: skip
    finally:
        remote_agent.ANNOUNCE[:] = [remote_agent._print_to_terminal]
    thread.join(30)
    assert done.exit_code == 0, done.output
    assert "1 of 1 games failed no point" in done.output
    assert f"join over http at http://127.0.0.1:{port}/v1 with" in seen[0]


def test_a_versioned_game_id_is_accepted_like_everywhere_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--game negotiation-v3` names the same check game as `--game negotiation`."""
    import accord.testing.agent_check as agent_check
    from accord.core.registry import resolve

    asked: list[tuple[str, ...] | None] = []

    async def fake_check(
        remote: object, *, games: tuple[str, ...] | None = None, seed: int = 1, out: object = None
    ):  # type: ignore[no-untyped-def]
        asked.append(games)
        return []

    monkeypatch.setattr(agent_check, "check_agent", fake_check)
    versioned = resolve("negotiation")
    assert versioned != "negotiation"
    done = CliRunner().invoke(app, ["agent", "check", "--command", "true", "--game", versioned])
    assert done.exit_code == 0, done.output
    assert asked == [("negotiation",)]
