"""Tools mode on the wire: whole games through LiteLLM against local fake OpenAI and Anthropic
servers (`accord.testing.wire`), nothing patched.

The fakes answer each request with one call of one of the tools it offers, arguments drawn
valid from that tool's parameters; the checks are what went over HTTP (the tools in each
API's own format, no JSON response format, the earlier calls answered by tool results) and
what the trace kept (tools offered and calls returned per model call). The sorting game offers
its commands as tools only to a seat set to ``action_mode: tools``; under ``auto`` it keeps its
fenced commands (MAS-Bench App. F.3).
"""

from __future__ import annotations

import asyncio
import itertools
import random
from typing import Any

import pytest

from accord.models.mock import sample_valid
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.wire import (
    Answer,
    anthropic_body,
    anthropic_tool_body,
    openai_body,
    openai_tool_body,
    wire_server,
)

GAMES = [
    ("calendar", 3, {"max_turns_per_round": 1, "num_meetings": 2}),
    ("negotiation", 2, {"rounds": 1, "talk_turns": 1}),
    ("sorting", 3, {"max_rounds": 2}),
]


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIRE_OPENAI_KEY", "sk-wire-openai")
    monkeypatch.setenv("WIRE_ANTHROPIC_KEY", "sk-ant-wire")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _pick(tools: list[tuple[str, Any]], seen: int) -> tuple[str, dict[str, Any]]:
    rng = random.Random(seen)
    name, parameters = rng.choice(tools)
    return name, sample_valid(parameters, rng)


def openai_answer(body: dict[str, Any]) -> Answer:
    tools = [(t["function"]["name"], t["function"]["parameters"]) for t in body["tools"]]
    return 200, {}, openai_tool_body([_pick(tools, len(body["messages"]))], "my notes")


def anthropic_answer(body: dict[str, Any]) -> Answer:
    tools = [(t["name"], t["input_schema"]) for t in body["tools"]]
    return 200, {}, anthropic_tool_body([_pick(tools, len(body["messages"]))], "my notes")


def _play(game: str, seats: int, options: dict[str, Any], seat: AgentSpec) -> Any:
    spec = GameSpec(
        trace_id=f"{game}-wire", game=game, options=options, seed=2, agents=[seat] * seats
    )
    return asyncio.run(play_game(spec))


def _check_trace(trace: Any) -> None:
    assert trace.status == "complete", trace.error
    assert trace.agents_config[0]["action_mode"] == "tools"
    calls = [e for e in trace.events if e["type"] == "model_call"]
    assert calls
    for call in calls:
        assert call["tools"], call
        [made] = call["tool_calls"]
        assert made["name"] in call["tools"]
    assert not [e for e in trace.events if e["type"] == "model_error"]


@pytest.mark.parametrize(("game", "seats", "options"), GAMES)
def test_openai_wire_game_in_tools_mode(game: str, seats: int, options: dict[str, Any]) -> None:
    with wire_server([], answer=openai_answer) as server:
        seat = AgentSpec(
            model="openai/gpt-4o-mini",
            action_mode="tools",
            options={"base_url": f"{server.url}/v1", "api_key_env": "WIRE_OPENAI_KEY"},
        )
        trace = _play(game, seats, options, seat)
    _check_trace(trace)
    bodies = [r["body"] for r in server.requests]
    assert len(bodies) == len([e for e in trace.events if e["type"] == "model_call"])
    for body in bodies:
        assert body["tools"][0]["type"] == "function"
        assert body["tool_choice"] == "auto"
        assert "response_format" not in body
    # A later turn carries the earlier calls and their results, in the OpenAI format.
    later = next(b["messages"] for b in bodies if any(m["role"] == "tool" for m in b["messages"]))
    asked = next(m for m in later if m.get("tool_calls"))
    answered = [m for m in later if m["role"] == "tool"]
    assert answered[0]["tool_call_id"] == asked["tool_calls"][0]["id"]
    assert answered[0]["content"] == "done"


@pytest.mark.parametrize(("game", "seats", "options"), GAMES)
def test_anthropic_wire_game_in_tools_mode(game: str, seats: int, options: dict[str, Any]) -> None:
    with wire_server([], answer=anthropic_answer) as server:
        seat = AgentSpec(
            model="anthropic/claude-sonnet-4-5",
            action_mode="tools",
            max_tokens=200,
            options={"base_url": server.url, "api_key_env": "WIRE_ANTHROPIC_KEY"},
        )
        trace = _play(game, seats, options, seat)
    _check_trace(trace)
    bodies = [r["body"] for r in server.requests]
    for body in bodies:
        # Anthropic's own tool format: a name and an input schema per tool.
        assert all("input_schema" in t and "name" in t for t in body["tools"])
        # Anthropic requires user and assistant turns to alternate.
        roles = [m["role"] for m in body["messages"]]
        assert all(a != b for a, b in itertools.pairwise(roles)), roles
    # The calls went back as tool_use blocks answered by tool_result blocks.
    blocks = [
        block
        for body in bodies
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
    ]
    uses = {b["id"] for b in blocks if b.get("type") == "tool_use"}
    results = [b for b in blocks if b.get("type") == "tool_result"]
    assert uses and results
    assert {r["tool_use_id"] for r in results} <= uses


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_sorting_keeps_its_fenced_commands_in_auto_mode(api: str) -> None:
    reply = "```\nsubmit_result [1, 2, 3]\n```"

    def answer(body: dict[str, Any]) -> Answer:
        assert "tools" not in body, "sorting offers its tools only on explicit request"
        return 200, {}, openai_body(reply) if api == "openai" else anthropic_body(reply)

    with wire_server([], answer=answer) as server:
        options: dict[str, Any] = {"api_key_env": f"WIRE_{api.upper()}_KEY"}
        options["base_url"] = f"{server.url}/v1" if api == "openai" else server.url
        model = "openai/gpt-4o-mini" if api == "openai" else "anthropic/claude-sonnet-4-5"
        seat = AgentSpec(model=model, action_mode="auto", max_tokens=100, options=options)
        trace = _play("sorting", 3, {}, seat)
    assert trace.status == "complete", trace.error
    assert trace.agents_config[0]["action_mode"] == "auto"
    calls = [e for e in trace.events if e["type"] == "model_call"]
    assert calls and not any("tools" in c for c in calls)
    assert len(server.requests) == len(calls)
