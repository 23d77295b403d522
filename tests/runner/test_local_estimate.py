"""The estimate printed before a run of the bundled model: its work, counted by playing each
setup once with the mock model, and its speed, measured with two timed calls (here of the mock)."""

from __future__ import annotations

import math

from accord.runner.local_estimate import Speed, Work, estimate_text, local_work, measure_speed
from accord.runner.specs import AgentSpec, GameSpec

LOCAL = AgentSpec(model="local/smollm2", max_tokens=64)


def _spec(i: int, rounds: int, agents: list[AgentSpec]) -> GameSpec:
    return GameSpec(
        trace_id=f"g{i}",
        game="negotiation",
        options={"rounds": rounds, "talk_turns": 1},
        seed=i,
        agents=agents,
    )


def test_work_counts_only_the_bundled_models_seats_and_grows_with_the_game() -> None:
    assert local_work([_spec(0, 1, [AgentSpec(agent="greedy")] * 2)]) is None
    one = local_work([_spec(0, 1, [LOCAL, AgentSpec(agent="greedy")])])
    both = local_work([_spec(0, 1, [LOCAL, LOCAL])])
    longer = local_work([_spec(0, 3, [LOCAL, LOCAL])])
    assert one is not None and both is not None and longer is not None
    assert 0 < one.calls < both.calls < longer.calls
    assert both.prompt_tokens < longer.prompt_tokens
    assert one.reply_tokens <= 64 * one.calls, "replies are capped by max_tokens"
    twice = local_work([_spec(0, 1, [LOCAL, LOCAL]), _spec(1, 1, [LOCAL, LOCAL])])
    assert twice is not None and twice.games == 2 and twice.calls == 2 * both.calls


def test_the_estimate_is_work_over_speed_and_says_it_is_rough() -> None:
    work = Work(games=3, calls=30, prompt_tokens=60_000, reply_tokens=3_000)
    speed = Speed(prompt_tps=200.0, reply_tps=10.0)
    assert work.seconds(speed) == 300 + 300
    text = estimate_text(work, speed)
    assert "about 10 minutes" in text and "rough" in text and "3 games (30 calls)" in text
    quick = estimate_text(Work(1, 2, 100, 10), speed)
    assert "a minute or less" in quick


def test_speed_is_measured_from_two_calls() -> None:
    speed = measure_speed("mock/schema", latency_s=0.01)
    assert math.isfinite(speed.prompt_tps) and speed.prompt_tps > 0
    assert math.isfinite(speed.reply_tps) and speed.reply_tps > 0
