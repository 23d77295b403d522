"""An A2A agent (the example, on the official A2A SDK's server) plays all three games, started
by Accord (`command:` + `protocol: a2a`) and joined by URL (`a2a:`)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from accord.traces.schema import Trace, trace_json_schema


def _exchanges(trace: Trace) -> list[dict]:
    return [
        dict(e) for e in trace.events if e["type"] == "remote_call" and e["tool"] == "message/send"
    ]


def _check_exchanges(trace: Trace, token: str | None = None) -> None:
    """Every decision went out as an A2A message with prose and data, and came back."""
    assert trace.status == "complete", trace.error
    sends = _exchanges(trace)
    requests = [e for e in trace.events if e["type"] == "remote_request"]
    actions = [e for e in trace.events if e["type"] == "remote_action"]
    assert sends and len(actions) == len(requests) > 0
    for send in sends:
        parts = send["sent"]["parts"]
        assert parts[0]["text"]  # the prose a model would read
        data = parts[1]["data"]
        assert data["protocol"] == "accord-a2a/1"
        assert data["request"]["request_id"] == send["request_id"]
        assert "reply_schema" in data["request"] and isinstance(data["structured"], dict)
        returned = send["returned"]  # a message, or a task with the reply as its artifact
        assert returned.get("parts") or returned.get("artifacts"), returned
        assert send["via"] == "a2a"
    assert all(e["ok"] for e in sends), [e.get("error") for e in sends if not e["ok"]]
    join = next(e for e in trace.events if e["type"] == "remote_join")
    assert join["via"] == "a2a"
    card = next(e for e in trace.events if e["type"] == "remote_call" and e["tool"] == "agent-card")
    assert card["card"]["name"] == "accord-example-a2a-agent" and card["card"]["bearer"]
    written = trace.model_dump(mode="json")
    jsonschema.validate(written, trace_json_schema())  # the extra fields are allowed
    if token is not None:
        assert token not in json.dumps(written)


@pytest.mark.parametrize("game", ["calendar", "negotiation", "sorting"])
async def test_an_a2a_agent_started_by_accord_completes_each_game(a2a, game) -> None:
    assert game in a2a.games
    seat = {"command": a2a.example_command(), "protocol": "a2a", "deadline_s": 30, "join_s": 60}
    trace = await a2a.play_a2a(game, seat)
    _check_exchanges(trace)
    assert trace.seats[0].agent == "cmd-agent"


@pytest.mark.parametrize("game", ["calendar", "negotiation", "sorting"])
async def test_an_a2a_agent_joined_by_url_completes_each_game(a2a, game, monkeypatch) -> None:
    token = "url-seat-token-6f1c0d2e9b"
    monkeypatch.setenv("SEAT_TOKEN_FOR_TEST", token)
    async with a2a.agent_by_hand(token) as url:
        seat = {"a2a": url, "token_env": "SEAT_TOKEN_FOR_TEST", "deadline_s": 30, "join_s": 30}
        trace = await a2a.play_a2a(game, seat)
    _check_exchanges(trace, token)
    assert trace.seats[0].agent == "remote-a2a"


async def test_a_reply_through_a_completed_task_is_read_from_its_artifact(a2a) -> None:
    seat = {"command": a2a.broken_command("task"), "protocol": "a2a", "deadline_s": 30}
    trace = await a2a.play_a2a("sorting", seat)
    _check_exchanges(trace)
    returned = _exchanges(trace)[0]["returned"]
    assert returned["status"]["state"] == "TASK_STATE_COMPLETED"
    assert returned["artifacts"][0]["parts"][0]["text"].startswith("```")


async def test_usage_in_the_reply_metadata_is_recorded_as_self_reported(a2a) -> None:
    seat = {"command": a2a.broken_command("usage"), "protocol": "a2a", "deadline_s": 30}
    trace = await a2a.play_a2a("negotiation", seat)
    _check_exchanges(trace)
    actions = [e for e in trace.events if e["type"] == "remote_action"]
    assert actions[0]["self_reported_usage"] == {
        "input_tokens": 10,
        "output_tokens": 2,
        "cost_usd": 0.001,
    }
