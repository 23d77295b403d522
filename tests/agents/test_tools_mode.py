"""Tools mode: action specs offered as native tools, tool calls validated as JSON replies are.

Scripted `MockModel` completions carry tool calls; the checks are that a call becomes exactly
the action the same JSON reply would give, that a bad call gets json mode's error text and
retries and fallback, that the conversation answers each call, and that a game played in tools
mode records the tools offered and the calls returned per model call.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from accord.agents.llm import LLMAgent
from accord.agents.tools import resolve_mode, tool_set
from accord.core.errors import ActionError, ConfigError
from accord.core.spec import Request
from accord.core.tools import tools_from_schema
from accord.games.calendar import actions as cal_actions
from accord.games.calendar.actions import ParseContext
from accord.games.calendar.requests import action_spec
from accord.games.negotiation.actions import turn_spec
from accord.games.negotiation.scenario import Market, Project
from accord.models.base import Completion, ToolCall
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

TALK = ParseContext(
    seat=0,
    phase="CHEAP_TALK",
    num_agents=3,
    num_slots=8,
    meeting_id=2,
    is_participant=True,
    message_types=("dm", "all_groupchat"),
)
DECIDE = ParseContext(**{**TALK.__dict__, "phase": "DECISION"})


class Rec:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, type_: str, **fields: Any) -> None:
        self.events.append((type_, fields))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [f for t, f in self.events if t == kind]


def _calls(*calls: tuple[str, Any], text: str = "") -> Completion:
    return Completion(
        text=text,
        tool_calls=[
            ToolCall(f"c{i}", name, args if isinstance(args, str) else json.dumps(args))
            for i, (name, args) in enumerate(calls)
        ],
    )


def _cal_request(ctx: ParseContext) -> Request:
    return Request(seat=0, observation="your turn", spec=action_spec(ctx, []), system="sys")


def test_calendar_tools_follow_the_phase_rules() -> None:
    talk = tool_set(action_spec(TALK, []))
    decide = tool_set(action_spec(DECIDE, []))
    assert talk is not None and decide is not None
    assert talk.names == ["dm", "all_groupchat"]  # CHEAP_TALK: the channel condition's messages
    assert decide.names == ["schedule", "reschedule"]  # DECISION: App. A.2's batch tools
    assert talk.batch and decide.batch
    dm = talk.tools[0]["function"]["parameters"]
    assert dm["required"] == ["to", "content"] and dm["properties"]["to"]["enum"] == [1, 2]
    voluntary = tool_set(action_spec(ParseContext(**{**TALK.__dict__, "phase": "VOLUNTARY"}), []))
    assert voluntary is not None and voluntary.names == ["reschedule"]


def test_a_batch_of_calls_is_the_same_action_as_the_json_reply() -> None:
    spec = action_spec(DECIDE, [])
    toolset = tool_set(spec)
    assert toolset is not None
    calls = [
        ("reschedule", {"item_id": 4, "from_slot": 1, "to_slot": 5, "justification": "free"}),
        ("schedule", {"meeting_id": 2, "slot": 1}),
    ]
    text = toolset.to_reply("my plan", [(n, json.dumps(a)) for n, a in calls])
    as_json = json.dumps({"thinking": "my plan", "actions": [{"type": n, **a} for n, a in calls]})
    assert spec.parse(text) == spec.parse(as_json)
    assert [c["type"] for c in spec.parse(text)["actions"]] == ["reschedule", "schedule"]


def test_no_call_passes_and_unreadable_arguments_are_an_error() -> None:
    toolset = tool_set(action_spec(TALK, []))
    assert toolset is not None
    assert json.loads(toolset.to_reply("nothing to say", [])) == {
        "thinking": "nothing to say",
        "actions": [],
    }
    with pytest.raises(ActionError, match=r"tool call 1 \(dm\): the arguments are not a JSON"):
        toolset.to_reply("", [("dm", "{to: 1")])


def test_a_request_without_schema_offers_no_tools() -> None:
    assert tools_from_schema("commands", None) is None
    single = tools_from_schema("reflect", {"type": "object", "properties": {"r": {}}})
    assert single is not None and single.names == ["reflect"]
    assert single.to_reply("", [("reflect", '{"r": 1}')]) == '{"r": 1}'
    with pytest.raises(ActionError, match="exactly once"):
        single.to_reply("", [("reflect", "{}"), ("reflect", "{}")])


async def test_agent_acts_through_tool_calls_and_answers_each_call() -> None:
    calls = [("dm", {"to": 1, "content": "slot 3?"}), ("all_groupchat", {"content": "hi all"})]
    model = MockModel(replies=[_calls(*calls, text="thinking aloud")])
    agent = LLMAgent(model, action_mode="tools")
    rec = Rec()
    action = await agent.act(_cal_request(TALK), rec)
    assert action["thinking"] == "thinking aloud"
    assert [c["type"] for c in action["actions"]] == ["dm", "all_groupchat"]
    [call] = rec.of("model_call")
    assert call["tools"] == ["dm", "all_groupchat"]
    assert [c["name"] for c in call["tool_calls"]] == ["dm", "all_groupchat"]
    assert json.loads(call["tool_calls"][0]["arguments"]) == calls[0][1]
    # The reply keeps its calls and each call is answered, so the next turn is well formed.
    roles = [m["role"] for m in agent.history]
    assert roles == ["system", "user", "assistant", "tool", "tool"]
    assert len(agent.history[2]["tool_calls"]) == 2
    assert [m["tool_call_id"] for m in agent.history[3:]] == ["c0", "c1"]
    # The transcript in the trace holds the calls too.
    stored = agent.transcript.messages[call["reply"]]
    assert stored["tool_calls"][1]["function"]["name"] == "all_groupchat"
    # The request told the model to act through the tools.
    assert "calling the tools" in model.calls[0][-1]["content"]


async def test_a_bad_call_gets_json_modes_error_text_then_retries() -> None:
    bad = ("dm", {"to": 0, "content": "to myself"})  # seat 0 may not DM itself
    json_error = ""
    try:
        cal_actions.parse_reply(
            json.dumps({"thinking": "", "actions": [{"type": "dm", **bad[1]}]}), TALK
        )
    except ActionError as exc:
        json_error = str(exc)
    assert json_error
    good = ("dm", {"to": 2, "content": "hello"})
    model = MockModel(replies=[_calls(bad, ("all_groupchat", {"content": "x"})), _calls(good)])
    agent = LLMAgent(model, action_mode="tools")
    rec = Rec()
    action = await agent.act(_cal_request(TALK), rec)
    assert action["actions"] == [{"type": "dm", "to": 2, "content": "hello"}]
    [error] = rec.of("validation_error")
    assert error["error"] == json_error
    assert json.loads(error["raw"])["tool_calls"][0]["name"] == "dm"
    # The retry answered the failed calls with the error, then asked again.
    second = model.calls[1]
    assert [m["role"] for m in second[-3:]] == ["assistant", "tool", "tool"]
    assert json_error in second[-2]["content"] and "not carried out" in second[-1]["content"]
    # Only the valid exchange stays.
    assert [m["role"] for m in agent.history] == ["system", "user", "assistant", "tool"]


async def test_retries_are_bounded_and_end_in_the_documented_fallback() -> None:
    junk = _calls(("schedule", "not json"))
    model = MockModel(replies=[junk] * 4)
    agent = LLMAgent(model, action_mode="tools")
    rec = Rec()
    action = await agent.act(_cal_request(DECIDE), rec)
    assert action["actions"] == []
    assert "_fallback" not in action  # provenance is recorded, never carried in the action
    assert len(rec.of("validation_error")) == 4
    [fallback] = rec.of("heuristic_fallback")
    assert fallback["action"] == action


def _negotiation(must_decide: bool, thinking: bool = True) -> Any:
    market = Market()
    projects = [Project(name="alpha", requirements={"r1": 2, "r2": 1}, reward=10)]
    names = {"r1": "wood", "r2": "stone", "r3": "gold"}
    return turn_spec(names, projects, market, thinking=thinking, must_decide=must_decide)


def test_negotiation_offers_talk_and_decide() -> None:
    talk, decide = tool_set(_negotiation(False)), tool_set(_negotiation(True))
    assert talk is not None and decide is not None
    assert talk.names == ["talk", "decide"] and decide.names == ["decide"]
    spec = _negotiation(True)
    text = decide.to_reply("why", [("decide", '{"speech": "done", "purchase": {"wood": 3}}')])
    assert (
        spec.parse(text)["decision"]
        == spec.parse(json.dumps({"thinking": "why", "speech": "done", "action": {"wood": 3}}))[
            "decision"
        ]
    )
    with pytest.raises(ActionError, match="unknown tool"):
        decide.to_reply("", [("talk", '{"speech": "hi"}')])
    plain = tool_set(_negotiation(False, thinking=False))
    assert plain is not None
    assert (
        _negotiation(False, thinking=False).parse(
            plain.to_reply("", [("talk", '{"speech": "hello"}')])
        )["speech"]
        == "hello"
    )


def test_mode_resolution_and_labels() -> None:
    assert resolve_mode(None, "mock/schema") == "json"
    assert resolve_mode("auto", "mock/schema") == "tools"
    assert resolve_mode("auto", "local/smollm2") == "json"
    assert resolve_mode("auto", "openai-compatible/x") == "json"
    assert resolve_mode("auto", "openai/gpt-4o-mini") == "tools"  # LiteLLM's model map says so
    with pytest.raises(ConfigError, match="json mode"):
        resolve_mode("tools", "local/smollm2")
    assert AgentSpec(model="mock/schema", action_mode="tools").display == "mock/schema [tools]"
    assert AgentSpec(model="mock/schema", action_mode="json").display == "mock/schema"
    assert AgentSpec(model="mock/schema", label="m", action_mode="auto").display == "m [auto]"


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        ("calendar", 3, {"max_turns_per_round": 2}),
        ("negotiation", 2, {"rounds": 1, "talk_turns": 1}),
    ],
)
def test_a_game_in_tools_mode_records_tools_and_calls(game, seats, options) -> None:
    seat = AgentSpec(model="mock/schema", action_mode="tools")
    spec = GameSpec(trace_id="t", game=game, options=options, seed=1, agents=[seat] * seats)
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    assert trace.agents_config[0]["action_mode"] == "tools"
    calls = [e for e in trace.events if e["type"] == "model_call"]
    assert calls and all(c["tools"] for c in calls)
    assert all(len(c["tool_calls"]) == 1 for c in calls)
    assert all(c["tool_calls"][0]["name"] in c["tools"] for c in calls)
    name = trace.seats[0].name
    replies = [trace.transcripts[name].messages[c["reply"]] for c in calls if c["seat"] == 0]
    assert all(r["tool_calls"] for r in replies)


def test_a_tools_mode_trace_replays_to_the_same_events() -> None:
    seat = AgentSpec(model="mock/schema", action_mode="tools")
    options = {"rounds": 1, "talk_turns": 2}
    spec = GameSpec(trace_id="t", game="negotiation", options=options, seed=4, agents=[seat] * 2)
    first = asyncio.run(play_game(spec))
    again = asyncio.run(play_game(spec, recorded=first))
    assert again.status == "complete", again.error

    def strip(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k not in ("latency_s", "t")} for e in events]

    assert strip(again.events) == strip(first.events)
    assert again.transcripts == first.transcripts


async def test_the_cache_keys_tools_apart_and_replays_tool_calls(tmp_path) -> None:
    from accord.models.cache import CachedModel, ModelCache

    reply = _calls(("dm", {"to": 1, "content": "hi"}), text="t")
    tools = list(tool_set(action_spec(TALK, [])).tools)  # type: ignore[union-attr]
    ask = [{"role": "user", "content": "go"}]
    cache = ModelCache(tmp_path, offline=False)
    first = CachedModel(MockModel(replies=[reply, "plain"]), cache)
    made = await first.complete(ask, tools=tools)
    assert made.tool_calls == reply.tool_calls
    # The same conversation without tools is another call (json mode), not a hit.
    assert (await first.complete(ask)).text == "plain"
    hit = await CachedModel(MockModel(replies=[]), ModelCache(tmp_path, offline=True)).complete(
        ask, tools=tools
    )
    assert hit.raw["cache"] == "hit" and hit.tool_calls == reply.tool_calls
