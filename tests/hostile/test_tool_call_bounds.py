"""Issue 37 case 2: a model's tool calls are bounded as they are read.

A reply of 1,000 tool calls, one of 30 MB of arguments, or arguments nested deeper than
`MAX_DEPTH` is kept cut to the bound and refused as an invalid action naming the limit
(``validation_error``, ``error_kind: input_limit``): the same retries, then the fallback; the
game ends ``complete`` and its trace reads back. Nothing the size of the reply is sent back to
the model or written to the trace.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from accord.agents.llm import LLMAgent
from accord.core.inputs import MAX_TOOL_ARGUMENT_CHARS, MAX_TOOL_CALLS
from accord.core.spec import ActionSpec, Request
from accord.games.negotiation.actions import turn_spec
from accord.games.negotiation.scenario import Market, Project
from accord.models.base import Completion, ToolCall
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.run import write_checked_trace
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.wire import Answer, openai_body, wire_server
from accord.traces.io import read_trace

OPTIONS = {"rounds": 1, "talk_turns": 1}


def _tool_body(calls: list[tuple[str, str]]) -> dict[str, Any]:
    """A chat-completions body whose message makes `calls` (name, arguments as raw text)."""
    body = openai_body("")
    message = body["choices"][0]["message"]
    message["content"] = None
    message["tool_calls"] = [
        {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
        for i, (n, a) in enumerate(calls)
    ]
    return body


def _play(server_url: str, trace_id: str) -> Any:
    seat = AgentSpec(
        model="openai-compatible/fake",
        action_mode="tools",
        options={"base_url": f"{server_url}/v1", "max_retries": 0},
    )
    spec = GameSpec(
        trace_id=trace_id,
        game="negotiation",
        options=OPTIONS,
        seed=1,
        agents=[seat, AgentSpec(agent="greedy")],
    )
    return asyncio.run(play_game(spec))


def _limits(trace: Any) -> list[str]:
    return [
        e["error"]
        for e in trace.events
        if e["type"] == "validation_error" and e.get("error_kind") == "input_limit"
    ]


def _written(trace: Any, tmp_path: Path) -> Path:
    path, written = write_checked_trace(tmp_path, trace)
    assert written.status == "complete", written.error
    assert read_trace(path).status == "complete"
    return path


def test_a_thousand_tool_calls_are_an_invalid_action(tmp_path: Path) -> None:
    def answer(body: dict[str, Any]) -> Answer:
        name = body["tools"][0]["function"]["name"]
        return 200, {}, _tool_body([(name, "{}")] * 1000)

    with wire_server([], answer=answer) as server:
        trace = _play(server.url, "thousand")
    assert trace.status == "complete", trace.error
    limits = _limits(trace)
    assert limits and all("1,000 tool calls" in e and "MAX_TOOL_CALLS" in e for e in limits)
    assert [e for e in trace.events if e["type"] == "heuristic_fallback"]
    for call in (e for e in trace.events if e["type"] == "model_call"):
        assert len(call["tool_calls"]) <= MAX_TOOL_CALLS
    # The retry carries the cut reply, not the thousand calls.
    for request in server.requests[1:]:
        sent = [m for m in request["body"]["messages"] if m.get("tool_calls")]
        assert all(len(m["tool_calls"]) <= MAX_TOOL_CALLS for m in sent)
    _written(trace, tmp_path)


def test_thirty_megabytes_of_arguments_are_cut_and_refused(tmp_path: Path) -> None:
    huge = json.dumps({"message": "x" * (30 * 1024 * 1024)})
    sizes: list[int] = []

    def answer(body: dict[str, Any]) -> Answer:
        sizes.append(len(json.dumps(body)))
        name = body["tools"][0]["function"]["name"]
        # The first answer is the 30 MB one; later ones are small (and over no bound).
        return 200, {}, _tool_body([(name, huge if len(sizes) == 1 else "{}")])

    with wire_server([], answer=answer) as server:
        trace = _play(server.url, "huge")
    assert trace.status == "complete", trace.error
    limits = _limits(trace)
    assert limits and "MAX_TOOL_ARGUMENT_CHARS" in limits[0]
    assert f"{len(huge):,} characters" in limits[0]
    # The retry carries the cut arguments back to the model, not the 30 MB.
    assert len(sizes) >= 2 and max(sizes[1:]) < MAX_TOOL_ARGUMENT_CHARS + 100_000, sizes
    assert len(server.requests) == len(sizes)
    path = _written(trace, tmp_path)
    assert path.stat().st_size < 2_000_000


@pytest.mark.parametrize("depth", [200_000, 5_000], ids=["200k deep", "5k deep"])
def test_deeply_nested_arguments_name_the_limit(depth: int, tmp_path: Path) -> None:
    deep = '{"message": ' + "[" * depth + "]" * depth + "}"

    def answer(body: dict[str, Any]) -> Answer:
        name = body["tools"][0]["function"]["name"]
        return 200, {}, _tool_body([(name, deep)])

    with wire_server([], answer=answer) as server:
        trace = _play(server.url, f"deep{depth}")
    assert trace.status == "complete", trace.error
    limits = _limits(trace)
    expected = "MAX_TOOL_ARGUMENT_CHARS" if len(deep) > MAX_TOOL_ARGUMENT_CHARS else "MAX_DEPTH"
    assert limits and all(expected in e for e in limits), limits
    assert not any("RecursionError" in str(e.get("error", "")) for e in trace.events)
    del server
    _written(trace, tmp_path)


async def test_a_deeply_nested_json_reply_is_an_invalid_action() -> None:
    spec = ActionSpec(
        kind="say", parse=lambda text: {"said": text[:5]}, fallback=lambda: {"said": ""}
    )
    deep = '{"a": ' + "[" * 50_000 + "]" * 50_000 + "}"
    model = MockModel(replies=[deep, deep, deep, deep])
    agent = LLMAgent(model)
    request = Request(seat=0, observation="go", spec=_json_spec(spec))
    events: list[tuple[str, dict[str, Any]]] = []
    action = await agent.act(request, lambda type_, **f: events.append((type_, f)))
    assert action == {"said": ""}
    errors = [f for kind, f in events if kind == "validation_error"]
    assert len(errors) == 4 and all(e["error_kind"] == "input_limit" for e in errors)
    assert "MAX_DEPTH" in errors[0]["error"]


def _json_spec(spec: ActionSpec) -> ActionSpec:
    """`spec` parsing its reply as one JSON object, as the games do."""
    from accord.core.json_reply import extract_json_object

    def parse(text: str) -> dict[str, Any]:
        obj, _ = extract_json_object(text)
        return obj

    return ActionSpec(kind=spec.kind, parse=parse, fallback=spec.fallback)


async def test_scripted_calls_over_the_bound_are_cut_for_every_source() -> None:
    """A reply that did not come through a provider (a mock, a recording) is bounded too."""
    names = {"r1": "wood", "r2": "stone", "r3": "gold"}
    projects = [Project(name="alpha", requirements={"r1": 2, "r2": 1}, reward=10)]
    spec = turn_spec(names, projects, Market(), thinking=True, must_decide=False)
    calls = [ToolCall(f"c{i}", "talk", "{}") for i in range(MAX_TOOL_CALLS + 5)]
    model = MockModel(replies=[Completion(text="", tool_calls=calls)] * 4)
    agent = LLMAgent(model, action_mode="tools")
    events: list[tuple[str, dict[str, Any]]] = []
    await agent.act(
        Request(seat=0, observation="talk", spec=spec), lambda type_, **f: events.append((type_, f))
    )
    errors = [f for kind, f in events if kind == "validation_error"]
    assert errors and f"{MAX_TOOL_CALLS + 5} tool calls" in errors[0]["error"]
    assert all(len(f["tool_calls"]) == MAX_TOOL_CALLS for k, f in events if k == "model_call")
