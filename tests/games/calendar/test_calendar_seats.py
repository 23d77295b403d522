"""Who sits at the calendar table (CalBench App. A.2-A.3): per-seat models in one game, one
conversation per seat across rounds, prompt variants recorded in the trace, and reply schemas
a grammar-constrained local model can follow."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from itertools import pairwise, product
from pathlib import Path
from typing import Any

import pytest

from accord.agents.llm import LLMAgent
from accord.agents.reference import make_reference
from accord.core.spec import JSONSchema
from accord.games.calendar import prompts
from accord.games.calendar.actions import ParseContext, envelope_schema
from accord.games.calendar.config import CHANNEL_TYPES
from accord.models.base import Message
from accord.models.grammar import schema_to_grammar
from accord.models.mock import MockModel
from accord.models.options import ModelOptions
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

PASS = json.dumps({"thinking": "listening", "actions": []})


def _spec(agents: list[AgentSpec], **options: Any) -> GameSpec:
    return GameSpec(trace_id="seats", game="calendar-v2", options=options, seed=5, agents=agents)


def test_each_seat_has_its_own_model() -> None:
    agents = [AgentSpec(model="mock/schema"), AgentSpec(agent="oracle-follower")]
    agents.append(AgentSpec(model="mock/echo"))
    trace = asyncio.run(play_game(_spec(agents, max_turns_per_round=2)))
    assert trace.status == "complete", trace.error
    assert [s.model for s in trace.seats] == ["mock/schema", None, "mock/echo"]
    assert [s.agent for s in trace.seats] == ["mock/schema", "oracle-follower", "mock/echo"]
    calls = Counter(e["seat"] for e in trace.events if e["type"] == "model_call")
    assert set(calls) == {0, 2} and calls[0] > 0 and calls[2] > 0
    assert trace.usage["agent1"].calls == 0
    assert trace.usage["agent0"].calls == calls[0] and trace.usage["agent2"].calls == calls[2]
    # The echo model repeats the prompt, which is no JSON: its turns fall back, the others' not.
    fallbacks = {e["seat"] for e in trace.events if e["type"] == "heuristic_fallback"}
    assert 2 in fallbacks and 1 not in fallbacks


def test_one_conversation_per_seat_runs_through_the_whole_game() -> None:
    models = [MockModel(replies=[PASS] * 80), MockModel(replies=[PASS] * 80)]
    agents = [LLMAgent(models[0]), make_reference("calendar-v2", "oracle-follower")]
    agents.append(LLMAgent(models[1]))
    seats = [AgentSpec(model="mock/scripted"), AgentSpec(agent="oracle-follower")]
    seats.append(AgentSpec(model="mock/scripted"))
    trace = asyncio.run(play_game(_spec(seats, decision_retries=0), agents=agents))
    assert trace.status == "complete", trace.error
    for seat, model in zip((0, 2), models, strict=True):
        rounds = {e["round"] for e in trace.events if e.get("agent") == seat and "prompt" in e}
        assert len(rounds) >= 2, rounds  # the seat plays in more than one round
        calls: list[list[Message]] = model.calls
        assert len(calls) >= 3
        for before, after in pairwise(calls):
            assert after[: len(before)] == before  # nothing is dropped between calls
            assert after[len(before)]["role"] == "assistant"
        assert sum(m["role"] == "system" for m in calls[-1]) == 1
        prompts_sent = [
            e["prompt"] for e in trace.events if e.get("agent") == seat and "prompt" in e
        ]
        assert calls[-1][1]["content"] == prompts_sent[0]  # round 1's first message is kept


def test_variant_file_and_seats_are_recorded_in_the_trace(tmp_path: Path) -> None:
    text = "## Extra guidance\nAsk each partner for one slot at a time."
    (tmp_path / "probe.md").write_text(text + "\n", encoding="utf-8")
    options = {
        "prompt_variant": "probe",
        "prompt_variant_dir": str(tmp_path),
        "variant_seats": [1, 2, 7],
    }
    trace = asyncio.run(play_game(_spec([AgentSpec(agent="oracle-follower")] * 3, **options)))
    assert trace.status == "complete", trace.error
    start = next(e for e in trace.events if e["type"] == "game_start")
    assert start["variant"] == {
        "name": "probe",
        "source": "probe.md",
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    assert start["nosy_agents"] == [1, 2]  # seats beyond the table are ignored
    registered = [e for e in trace.events if e["type"] == "agent_registered"]
    assert [e["is_nosy"] for e in registered] == [False, True, True]
    assert [e["system_prompt"].endswith(text) for e in registered] == [False, True, True]
    # The folder is part of the options (to replay the run), never of what the game records.
    assert str(tmp_path) not in json.dumps(trace.model_dump(mode="json")["events"])


def test_builtin_adversarial_variant_reaches_only_its_seat() -> None:
    spec = _spec([AgentSpec(agent="oracle-follower")] * 3, prompt_variant="redteam")
    trace = asyncio.run(play_game(spec))
    registered = [e["system_prompt"] for e in trace.events if e["type"] == "agent_registered"]
    assert registered[0].endswith(prompts.REDTEAM)
    assert not any(prompts.REDTEAM in p for p in registered[1:])


def _strings(schema: Any) -> list[JSONSchema]:
    if isinstance(schema, dict):
        own = [schema] if schema.get("type") == "string" else []
        return own + [s for v in schema.values() for s in _strings(v)]
    if isinstance(schema, list):
        return [s for v in schema for s in _strings(v)]
    return []


@pytest.mark.parametrize("channels", sorted(CHANNEL_TYPES))
def test_reply_schemas_bound_every_string_and_fit_the_local_context(channels: str) -> None:
    n_ctx = ModelOptions().n_ctx
    for phase, participant in product(("CHEAP_TALK", "VOLUNTARY", "DECISION"), (True, False)):
        ctx = ParseContext(
            seat=0,
            phase=phase,
            num_agents=5,
            num_slots=16,
            meeting_id=3,
            is_participant=participant,
            message_types=CHANNEL_TYPES[channels],
        )
        schema = envelope_schema(ctx, list(range(1, 14)))
        strings = _strings(schema)
        assert strings and all(isinstance(s.get("maxLength"), int) for s in strings)
        grammar = schema_to_grammar(schema)
        assert grammar.gbnf.startswith("root ::=")
        # The local provider reserves the longest reply (in tokens, at most one per character)
        # in its context window; the rest must hold the system prompt and the conversation.
        assert n_ctx - grammar.max_chars >= 4600, (phase, grammar.max_chars)
