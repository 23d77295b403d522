"""A remote agent that does not join, answers late or breaks the protocol fails its game with
the reason, unless the seat names a fallback policy, which the trace then records."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.core.spec import ActionSpec, Request
from accord.remote.seat import SeatCallError, SeatSession
from accord.remote.spec import RemoteSeatSpec
from accord.runner.play import play_game
from accord.runner.specs import GameSpec, parse_agent


def _events(trace: Any, kind: str) -> list[dict[str, Any]]:
    return [e for e in trace.events if e["type"] == kind]


async def test_an_agent_that_never_joins_fails_the_game(kit) -> None:
    async def absent(via: str, url: str, token: str) -> None:
        del via, url, token

    trace, _ = await kit.play_with("negotiation", [kit.remote(join_s=0.2), "greedy"], absent)
    assert trace.status == "failed"
    assert "no-show: the agent made no call within 0.2 s" in (trace.error or "")
    (failed,) = _events(trace, "remote_failed")
    assert failed["seat"] == 0 and "no-show" in failed["error"]
    assert _events(trace, "heuristic_fallback") == []  # never silently replaced


async def test_a_late_answer_fails_the_game(kit) -> None:
    async def slow(via: str, url: str, token: str) -> None:
        del via
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as c:
            assert (await c.post("/wait", json={"timeout_s": 10})).json()["status"] == "request"
            while (await c.post("/wait", json={"timeout_s": 10})).json()["status"] != "ended":
                pass  # the deadline passes while this agent "thinks"

    trace, _ = await kit.play_with("negotiation", [kit.remote(deadline_s=0.3), "greedy"], slow)
    assert trace.status == "failed"
    assert "missed deadline: request 1 was not answered within 0.3 s" in (trace.error or "")
    (failed,) = _events(trace, "remote_failed")
    assert failed["request_id"] == 1


async def test_an_answer_after_the_deadline_is_refused() -> None:
    now = [100.0]
    seat = SeatSession(
        token="t" * 32,
        game_id="negotiation-v3",
        trace_id="g",
        seat=0,
        spec=RemoteSeatSpec(remote="http", deadline_s=5),
        clock=lambda: now[0],
    )
    request = Request(seat=0, observation="say hi", spec=ActionSpec(kind="talk", parse=_text))
    rid = seat.open_request(request)
    await seat.call("http", "observe", {})  # joins: the deadline runs from now
    now[0] += 5.5
    with pytest.raises(SeatCallError) as late:
        await seat.call("http", "act", {"request_id": rid, "reply": "hi"})
    assert late.value.status == 409 and "past its deadline" in late.value.message
    assert not seat.open.future.done()
    assert seat.calls[-1] == {
        "tool": "act", "via": "http", "at_s": 5.5, "request_id": 1, "reply": "hi", "ok": False,
        "error": "request 1 is past its deadline",
    }  # fmt: skip


def _text(text: str) -> dict[str, Any]:
    return {"text": text}


async def test_repeated_bad_replies_are_a_protocol_violation(kit) -> None:
    async def stubborn(request: dict[str, Any], messages: list[dict[str, str]]) -> Any:
        del request, messages
        return {"not": "a valid reply"}

    async def agent(via: str, url: str, token: str) -> None:
        del via
        await kit.http_agent(url, token, policy=stubborn)

    trace, _ = await kit.play_with("negotiation", [kit.remote(max_errors=2), "greedy"], agent)
    assert trace.status == "failed"
    assert "protocol violation: 3 bad calls in a row" in (trace.error or "")
    refused = [c for c in _events(trace, "remote_call") if c["tool"] == "act"]
    assert [c["ok"] for c in refused] == [False, False, False]
    # The agent got the parser's own error text, as a model would.
    assert len({c["error"] for c in refused}) == 1 and refused[0]["error"]
    notes = [m for m in trace.transcripts["A"].messages if m.get("note")]
    assert len(notes) == 3 and notes[0]["note"].startswith("rejected: ")


async def test_a_fallback_policy_is_recorded_never_silent(kit) -> None:
    async def absent(via: str, url: str, token: str) -> None:
        del via, url, token

    seat = kit.remote(join_s=0.2, on_failure="fallback")
    trace, _ = await kit.play_with("negotiation", [seat, "greedy"], absent)
    assert trace.status == "complete", trace.error
    (failed,) = _events(trace, "remote_failed")
    fallbacks = [e for e in _events(trace, "heuristic_fallback") if e["seat"] == 0]
    usage = trace.usage[trace.seats[0].name]
    assert len(fallbacks) == usage.fallbacks == usage.decisions > 1
    assert all("no-show" in e["error"] for e in fallbacks)
    assert failed["t"] < fallbacks[0]["t"]


async def test_an_agent_process_that_exits_fails_the_game_with_its_stderr() -> None:
    code = "import sys; print('cannot load brain', file=sys.stderr); sys.exit(3)"
    command = f'{sys.executable} -c "{code}"'
    seats = [parse_agent({"agent": {"command": command, "join_s": 30}}), parse_agent("greedy")]
    trace = await play_game(GameSpec(trace_id="x1", game="negotiation", seed=1, agents=seats))
    assert trace.status == "failed"
    assert "exited with code 3" in (trace.error or "")
    assert "cannot load brain" in (trace.error or "")
    assert Counter(e["type"] for e in trace.events)["remote_failed"] == 1


async def test_acting_when_not_asked_is_refused_and_counted(kit) -> None:
    replies: list[httpx.Response] = []

    async def eager(via: str, url: str, token: str) -> None:
        del via
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as c:
            replies.append(await c.post("/act", json={"request_id": 7, "reply": {}}))
        await kit.http_agent(url, token)

    trace, _ = await kit.play_with("negotiation", [kit.remote(max_errors=5), "greedy"], eager)
    assert trace.status == "complete", trace.error
    assert replies[0].status_code == 409
    assert replies[0].json()["errors_left"] == 4
    first = _events(trace, "remote_call")[0]
    assert first["tool"] == "act" and not first["ok"] and "request 7 is not open" in first["error"]


async def test_self_reported_usage_is_recorded_as_such(kit) -> None:
    async def reporting(via: str, url: str, token: str) -> None:
        del via
        headers = {"Authorization": f"Bearer {token}"}
        messages: list[dict[str, str]] = []
        async with httpx.AsyncClient(base_url=url, headers=headers) as c:
            while True:
                state = (await c.post("/wait", json={"timeout_s": 10})).json()
                if state["status"] == "ended":
                    return
                if state["status"] != "request":
                    continue
                request = state["request"]
                messages = [{"role": "user", "content": request["observation"]}]
                while True:
                    reply = await kit_policy(request, messages)
                    usage = {"input_tokens": 100, "output_tokens": 7, "cost_usd": 0.5, "x": 1}
                    r = await c.post(
                        "/act",
                        json={"request_id": request["request_id"], "reply": reply, "usage": usage},
                    )
                    if r.json().get("ok"):
                        break
                    messages.append({"role": "user", "content": r.json()["error"]})

    from accord.remote.client import mock_policy as kit_policy

    trace, _ = await kit.play_with("negotiation", [kit.remote(max_errors=40), "greedy"], reporting)
    assert trace.status == "complete", trace.error
    actions = _events(trace, "remote_action")
    assert actions and all(
        a["self_reported_usage"] == {"input_tokens": 100, "output_tokens": 7, "cost_usd": 0.5}
        for a in actions
    )
    usage = trace.usage[trace.seats[0].name]
    assert usage.input_tokens == usage.output_tokens == 0 and usage.cost_usd == 0


async def test_an_agent_log_keeps_its_last_mebibyte(tmp_path: Path) -> None:
    from accord.remote import process

    token = "s3cret-token-value-0123456789"
    code = (
        f"import sys; sys.stderr.write('x' * {process.MAX_LOG_BYTES} + ' {token} end'); "
        "sys.stderr.flush()"
    )
    run_dir = process.RUN_DIR.set(tmp_path)
    try:
        proc = await process.AgentProcess.start(f'{sys.executable} -c "{code}"', env={}, name="g.0")
        tail = await proc.stop([token])
    finally:
        process.RUN_DIR.reset(run_dir)
    text = (tmp_path / "remote" / "g.0.stderr.log").read_text()
    assert text.startswith("[") and "earlier bytes cut]" in text.splitlines()[0]
    assert text.endswith("[redacted:seat-token] end") and token not in text
    assert tail.endswith("[redacted:seat-token] end")
