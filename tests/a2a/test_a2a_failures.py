"""An A2A seat fails the game with a clear reason: no-show, late reply, malformed replies,
wrong token, agent exits mid-game; every one recorded in the trace as `remote_failed`."""

from __future__ import annotations

import sys

from accord.traces.schema import Trace


def _failed(trace: Trace) -> str:
    assert trace.status == "failed", trace.status
    (event,) = [e for e in trace.events if e["type"] == "remote_failed"]
    assert event["error"] in (trace.error or "")
    return str(event["error"])


async def test_an_agent_that_never_serves_is_a_no_show(a2a) -> None:
    command = f"{sys.executable} -c 'import threading; threading.Event().wait()'"
    seat = {"command": command, "protocol": "a2a", "join_s": 1.5, "deadline_s": 5}
    reason = _failed(await a2a.play_a2a("negotiation", seat))
    assert reason.startswith("no-show: no A2A agent card at http://127.0.0.1:")
    assert "within 1.5 s" in reason


async def test_a_late_reply_misses_the_deadline(a2a) -> None:
    seat = {"command": a2a.broken_command("slow"), "protocol": "a2a", "deadline_s": 1.5}
    trace = await a2a.play_a2a("negotiation", seat)
    reason = _failed(trace)
    assert reason.startswith("missed deadline: request 1 was not answered within 1.5 s")
    assert not [e for e in trace.events if e["type"] == "remote_action"]
    (abandoned,) = [
        e for e in trace.events if e["type"] == "remote_call" and e["tool"] == "message/send"
    ]
    assert not abandoned["ok"] and abandoned["error"] == reason  # what was sent is kept
    assert abandoned["sent"]["parts"][1]["data"]["request"]["request_id"] == 1
    assert abandoned["returned"] is None


async def test_malformed_replies_are_refused_then_a_protocol_violation(a2a) -> None:
    seat = {"command": a2a.broken_command("malformed"), "protocol": "a2a", "max_errors": 2}
    trace = await a2a.play_a2a("negotiation", seat)
    reason = _failed(trace)
    assert reason.startswith("protocol violation: 3 bad replies in a row")
    sends = [e for e in trace.events if e["type"] == "remote_call" and e["tool"] == "message/send"]
    assert len(sends) == 3 and not any(e["ok"] for e in sends)
    # Each retry carries the error of the refused reply, in prose and in data.
    second = sends[1]["sent"]["parts"]
    assert "Your last reply was refused" in second[0]["text"]
    assert second[1]["data"]["error"] == sends[0]["error"]
    assert second[1]["data"]["attempt"] == 2


async def test_a_token_the_agent_refuses_fails_the_game(a2a, monkeypatch) -> None:
    monkeypatch.setenv("WRONG_TOKEN_FOR_TEST", "not-the-token-it-expects")
    async with a2a.agent_by_hand("the-token-it-expects") as url:
        seat = {"a2a": url, "token_env": "WRONG_TOKEN_FOR_TEST", "deadline_s": 10}
        reason = _failed(await a2a.play_a2a("negotiation", seat))
    assert reason.startswith("the agent refused Accord's token (HTTP 401)")


async def test_a_seat_without_the_token_the_agent_card_asks_for_fails(a2a) -> None:
    async with a2a.agent_by_hand("some-token") as url:
        reason = _failed(await a2a.play_a2a("negotiation", {"a2a": url, "deadline_s": 10}))
    assert "asks for credentials" in reason and "token_env" in reason


async def test_an_agent_that_exits_mid_game_fails_it_with_its_stderr(a2a) -> None:
    seat = {"command": a2a.broken_command("exit-after-2"), "protocol": "a2a", "deadline_s": 20}
    trace = await a2a.play_a2a("negotiation", seat)
    reason = _failed(trace)
    assert "exited with code 3" in reason or "stopped answering" in reason, reason
    assert "giving up on purpose" in reason
    assert len([e for e in trace.events if e["type"] == "remote_action"]) == 2


async def test_fallback_replaces_a_failed_a2a_seat_and_says_so(a2a) -> None:
    seat = {
        "command": a2a.broken_command("slow"),
        "protocol": "a2a",
        "deadline_s": 1,
        "on_failure": "fallback",
    }
    trace = await a2a.play_a2a("negotiation", seat)
    assert trace.status == "complete"
    assert [e for e in trace.events if e["type"] == "remote_failed"]
    assert [e for e in trace.events if e["type"] == "heuristic_fallback" and e["seat"] == 0]


async def test_an_oversize_response_is_a_bad_call_never_parsed(a2a) -> None:
    seat = {"command": a2a.broken_command("oversize"), "protocol": "a2a", "max_errors": 1}
    trace = await a2a.play_a2a("negotiation", seat)
    reason = _failed(trace)
    assert reason.startswith("protocol violation: 2 bad replies in a row")
    assert "the response is over 262144 bytes" in reason
    sends = [e for e in trace.events if e["type"] == "remote_call" and e["tool"] == "message/send"]
    assert all(e["returned"] is None for e in sends)  # nothing out of bounds reaches the trace


async def test_a_response_nested_too_deep_is_a_bad_call_never_parsed(a2a) -> None:
    seat = {"command": a2a.broken_command("deep"), "protocol": "a2a", "max_errors": 0}
    reason = _failed(await a2a.play_a2a("negotiation", seat))
    assert reason.startswith("protocol violation: 1 bad replies in a row")
    assert "nests deeper than 100 levels (MAX_DEPTH)" in reason


async def test_a_card_that_names_another_address_is_refused_before_any_call(a2a) -> None:
    seat = {"command": a2a.broken_command("elsewhere"), "protocol": "a2a"}
    trace = await a2a.play_a2a("negotiation", seat)
    reason = _failed(trace)
    assert reason.startswith("the agent card names 'http://127.0.0.1:1/', not the address")
    assert not [e for e in trace.events if e["type"] == "remote_call"]


async def test_the_token_never_reaches_the_agents_stderr_log(a2a, tmp_path) -> None:
    from accord.remote.process import RUN_DIR

    seat = {"command": a2a.broken_command("leak"), "protocol": "a2a", "deadline_s": 30}
    reset = RUN_DIR.set(tmp_path)
    try:
        trace = await a2a.play_a2a("sorting", seat)
    finally:
        RUN_DIR.reset(reset)
    assert trace.status == "complete", trace.error
    (log,) = (tmp_path / "remote").glob("*.stderr.log")
    text = log.read_text()
    assert "my token is [redacted:seat-token]" in text
    leaked = text.split("my token is ", 1)[1].split()[0]
    assert leaked == "[redacted:seat-token]"
