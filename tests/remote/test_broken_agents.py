"""`accord agent check` against deliberately broken agents: each fails the right point, and no
point the game never put to the test is a pass."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from accord.agents import remote as remote_agent
from accord.cli.main import app
from accord.remote.client import http_agent, mock_policy
from accord.remote.spec import RemoteSeatSpec
from accord.testing.agent_check import FAIL, PASS, POINTS, UNTESTED, GameCheck, check_agent

Run = Callable[[str, str], Awaitable[None]]


async def _check(kit: Any, run: Run, **options: Any) -> GameCheck:
    """One negotiation check game whose seat is joined by `run(url, token)`."""
    joins = kit.Joins()
    remote_agent.ANNOUNCE[:] = [joins]

    async def agents() -> None:
        while True:
            _, url, token = await joins.queue.get()
            await run(url, token)

    task = asyncio.ensure_future(agents())
    try:
        spec = RemoteSeatSpec(remote="http", **{"max_errors": 20, **options})
        (result,) = await check_agent(spec, games=("negotiation",))
    finally:
        task.cancel()
        remote_agent.ANNOUNCE[:] = [remote_agent._print_to_terminal]
    assert set(result.points) == set(POINTS)
    return result


def _client(url: str, token: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"})


async def _first_request(c: httpx.AsyncClient) -> dict[str, Any]:
    while True:
        state = (await c.post("/wait", json={"timeout_s": 5})).json()
        if state["status"] == "request":
            return dict(state["request"])


async def test_a_well_behaved_agent_passes_and_lists_what_was_not_exercised(kit: Any) -> None:
    result = await _check(kit, http_agent)
    assert result.passed, result.points
    assert result.verdict("idempotent retry") == UNTESTED
    assert result.verdict("identity") == UNTESTED
    for point in ("joins", "reads its observation", "acts only when asked", "body bounds"):
        assert result.verdict(point) == PASS, point


async def test_no_show(kit: Any) -> None:
    async def absent(url: str, token: str) -> None:
        del url, token

    result = await _check(kit, absent, join_s=0.5)
    assert result.verdict("joins") == FAIL and "no-show" in result.points["joins"][1]
    assert result.verdict("game complete") == FAIL
    # Nothing was put to the test: no point may pass.
    for point in ("reads its observation", "acts only when asked", "respects deadlines"):
        assert result.verdict(point) == UNTESTED, point
    assert PASS not in {v for v, _ in result.points.values()}


async def test_late(kit: Any) -> None:
    async def slow(url: str, token: str) -> None:
        async with _client(url, token) as c:
            request = await _first_request(c)
            # Wait until the seat says the request is no longer open (its deadline passed).
            while (await c.get("/observe")).json().get("status") == "request":
                await asyncio.sleep(0.05)
            reply = await mock_policy(request, [])
            await c.post("/act", json={"request_id": request["request_id"], "reply": reply})

    result = await _check(kit, slow, deadline_s=0.4)
    assert result.verdict("respects deadlines") == FAIL
    assert result.verdict("joins") == PASS


async def test_out_of_turn(kit: Any) -> None:
    async def eager(url: str, token: str) -> None:
        async with _client(url, token) as c:
            await c.post("/act", json={"request_id": 99, "reply": {}})
        await http_agent(url, token)

    result = await _check(kit, eager)
    assert result.verdict("acts only when asked") == FAIL
    assert result.verdict("idempotent retry") == UNTESTED  # request 99 was never accepted
    assert result.verdict("game complete") == PASS


async def test_malformed(kit: Any) -> None:
    async def sloppy(url: str, token: str) -> None:
        async with _client(url, token) as c:
            request = await _first_request(c)
            await c.post("/act", json={"request_id": str(request["request_id"]), "reply": {}})
        await http_agent(url, token)

    result = await _check(kit, sloppy)
    assert result.verdict("malformed arguments") == FAIL
    assert result.verdict("acts only when asked") == PASS  # not taken for acting out of turn
    assert result.verdict("body bounds") == PASS


async def test_oversize(kit: Any) -> None:
    async def wordy(url: str, token: str) -> None:
        async with _client(url, token) as c:
            request = await _first_request(c)
            big = {"request_id": request["request_id"], "reply": "x" * 70_000}
            await c.post("/act", json=big)
        await http_agent(url, token)

    result = await _check(kit, wordy)
    assert result.verdict("body bounds") == FAIL
    assert result.verdict("malformed arguments") == PASS


async def test_wrong_token(kit: Any) -> None:
    async def forged(url: str, token: str) -> None:
        for _ in range(3):
            async with _client(url, token + "x") as c:
                await c.post("/wait", json={"timeout_s": 0})
            await asyncio.sleep(0.1)

    result = await _check(kit, forged, join_s=1.0)
    assert result.verdict("uses its token") == FAIL
    assert result.verdict("joins") == FAIL
    assert result.verdict("acts only when asked") == UNTESTED


async def test_retries_an_accepted_act_with_another_reply(kit: Any) -> None:
    async def unsure(url: str, token: str) -> None:
        async with _client(url, token) as c:
            while True:
                state = (await c.post("/wait", json={"timeout_s": 5})).json()
                if state["status"] == "ended":
                    return
                if state["status"] != "request":
                    continue
                request = state["request"]
                messages: list[Any] = []
                while True:
                    reply = await mock_policy(request, messages)
                    r = await c.post(
                        "/act", json={"request_id": request["request_id"], "reply": reply}
                    )
                    if r.json().get("ok"):
                        changed = {"request_id": request["request_id"], "reply": "changed mind"}
                        await c.post("/act", json=changed)
                        break
                    messages.append({"role": "user", "content": r.json()["error"]})

    result = await _check(kit, unsure, max_errors=60)
    assert result.verdict("idempotent retry") == FAIL
    assert "after it was accepted" in result.points["idempotent retry"][1]
    assert result.verdict("acts only when asked") == PASS


async def test_a_retry_with_its_key_passes_idempotent_retry(kit: Any) -> None:
    async def careful(url: str, token: str) -> None:
        async with _client(url, token) as c:
            n = 0
            await c.post("/wait", json={"timeout_s": 0, "agent": {"name": "careful"}})
            while True:
                try:
                    state = (await c.post("/wait", json={"timeout_s": 5})).json()
                except httpx.TransportError:
                    return
                if state["status"] == "ended":
                    return
                if state["status"] != "request":
                    continue
                request = state["request"]
                messages: list[Any] = []
                while True:
                    n += 1
                    body = {
                        "request_id": request["request_id"],
                        "reply": await mock_policy(request, messages),
                        "key": f"k{n}",
                    }
                    r = await c.post("/act", json=body)
                    if r.json().get("ok"):
                        try:
                            await c.post("/act", json=body)
                        except httpx.TransportError:
                            return
                        break
                    messages.append({"role": "user", "content": r.json()["error"]})

    result = await _check(kit, careful, max_errors=60)
    assert result.verdict("idempotent retry") == PASS
    assert result.verdict("identity") == PASS
    assert result.passed, result.points


EXITS = """
import os, sys, httpx
c = httpx.Client(base_url=os.environ["ACCORD_SEAT_URL"],
                 headers={"Authorization": "Bearer " + os.environ["ACCORD_SEAT_TOKEN"]})
while c.post("/wait", json={"timeout_s": 5}).json()["status"] != "request":
    pass
print("leaving early", file=sys.stderr)
sys.exit(0)
"""


def test_exits_mid_game_and_out_keeps_trace_and_stderr(tmp_path: Path) -> None:
    script = tmp_path / "exits.py"
    script.write_text(EXITS)
    out = tmp_path / "check"
    done = CliRunner(env={"COLUMNS": "200"}).invoke(
        app,
        [
            *("agent", "check", "--command", f"{sys.executable} {script}"),
            *("--game", "negotiation", "--join", "30", "--out", str(out)),
        ],
    )
    assert done.exit_code == 1, done.output
    assert "stays to the end" in done.output and "exited" in done.output
    assert (out / "traces" / "check-negotiation.json").is_file()
    (log,) = (out / "remote").glob("*.stderr.log")
    assert "leaving early" in log.read_text()


@pytest.mark.parametrize("verdict", [PASS, FAIL, UNTESTED])
def test_verdicts_are_three(verdict: str) -> None:
    check = GameCheck("g", points={"p": (verdict, "")})
    assert check.passed is (verdict != FAIL)
