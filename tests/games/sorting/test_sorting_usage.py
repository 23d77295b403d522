"""TE, CR and cost from model-reported tokens (MAS-Bench §3.4, App. C; `sorting.usage`)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from accord.agents.base import Agent
from accord.agents.llm import LLMAgent
from accord.core.registry import make
from accord.games.sorting.engine import SortingGame
from accord.games.sorting.metrics import estimate_tokens
from accord.games.sorting.protocols import answer, list_message, read_lists
from accord.games.sorting.usage import (
    PAPER_PRICES,
    call_tokens,
    reasoning_apart,
    seat_prices,
    trace_metrics,
)
from accord.models.base import Completion, Message, Usage
from accord.models.mock import MockModel
from accord.models.options import Prices
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import SeatUsage, Trace


def scripted(n: int = 3, **opts: Any) -> Trace:
    spec = GameSpec(
        trace_id="s",
        game="sorting",
        seed=3,
        options={"n": n, "k": 2, **opts},
        agents=[AgentSpec(agent="share-all")] * n,
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    return trace


def with_calls(trace: Trace, in_scale: float, out_scale: float) -> Trace:
    """`trace` as if every turn had come from one model call with scaled estimated tokens."""
    events: list[dict[str, Any]] = []
    usage = {s.name: SeatUsage() for s in trace.seats}
    for e in trace.events:
        if e["type"] == "turn":
            est = e["tokens_est"]
            call = {
                "type": "model_call",
                "t": e["t"] - 0.5,
                "seat": e["seat"],
                "input_tokens": round(est["input"] * in_scale),
                "output_tokens": round(est["output"] * out_scale),
            }
            events.append(call)
            u = usage[f"Agent-{e['seat']}"]
            u.calls += 1
            u.input_tokens += call["input_tokens"]
            u.output_tokens += call["output_tokens"]
        events.append(e)
    return trace.model_copy(update={"events": events, "usage": usage})


def test_reference_traces_keep_the_text_estimates() -> None:
    t = scripted(backend="kv")
    m = trace_metrics(t)
    assert m["token_source"] == "estimate"
    assert m["te"] == t.metrics["te_est"] and m["cr"] == t.metrics["cr_est"]
    assert m["tokens"] == m["input_tokens"] + m["output_tokens"] == t.metrics["tokens_est"]
    assert m["cost_usd"] is None


@pytest.mark.parametrize("backend", ["broadcast", "p2p", "kv"])
def test_reported_tokens_equal_to_the_estimates_reproduce_them(backend: str) -> None:
    t = scripted(backend=backend)
    m = trace_metrics(with_calls(t, 1.0, 1.0))
    assert m["token_source"] == "model"
    assert m["tokens"] == t.metrics["tokens_est"]
    assert m["comm_tokens"] == pytest.approx(t.metrics["comm_tokens_est"])
    assert m["te"] == pytest.approx(t.metrics["te_est"])
    assert m["cr"] == pytest.approx(t.metrics["cr_est"])


def test_each_call_is_split_in_its_own_proportions() -> None:
    t = scripted(backend="p2p")
    m = trace_metrics(with_calls(t, 2.0, 3.0))
    turns = [e["tokens_est"] for e in t.events if e["type"] == "turn"]
    comm = sum(2 * e["input_comm"] + 3 * e["output_comm"] for e in turns)
    total = sum(2 * e["input"] + 3 * e["output"] for e in turns)
    assert m["tokens"] == total and m["cr"] == pytest.approx(comm / total)
    assert m["te"] == pytest.approx(t.metrics["nk"] / total * 1e5)
    assert m["cr"] != pytest.approx(t.metrics["cr_est"])


def test_calls_pair_with_their_turns_per_seat() -> None:
    events = [
        {"type": "model_call", "t": 1, "seat": 1, "input_tokens": 10, "output_tokens": 4},
        {"type": "model_call", "t": 2, "seat": 0, "input_tokens": 20, "output_tokens": 2},
        {"type": "turn", "t": 3, "seat": 0, "tokens_est": {"input": 10, "output": 2,
                                                            "input_comm": 5, "output_comm": 1}},
        {"type": "turn", "t": 4, "seat": 1, "tokens_est": {"input": 5, "output": 4,
                                                            "input_comm": 0, "output_comm": 2}},
        {"type": "model_call", "t": 5, "seat": 0, "input_tokens": 7, "output_tokens": 1},
    ]  # fmt: skip
    calls = call_tokens(events)
    assert [(c.seat, c.input_est) for c in calls] == [(0, 10), (1, 5), (0, 0)]
    assert [c.comm_tokens for c in calls] == [pytest.approx(11.0), pytest.approx(2.0), 0.0]


def test_the_game_counts_communication_where_the_model_handles_it() -> None:
    g = make("sorting", {"n": 1, "k": 1, "backend": "kv"})
    assert isinstance(g, SortingGame)
    g.reset(0)
    write = "write_file note\nhello there"
    g.submit(0, {"commands": [write, "wait"]})
    (shown,) = g.pending()
    g.submit(0, {"commands": [f"submit_result {list(g.task.expected[0])}"]})
    turns = [e for e in g.drain_events() if e["type"] == "turn"]
    first, second = (t["tokens_est"] for t in turns)
    assert first["input_comm"] == 0 and first["output_comm"] == estimate_tokens(write)
    # The write's reply is communication in the call that reads it; "wait"'s reply is not.
    piece = shown.observation.split("\n\n")[0]
    assert piece.startswith("[write_file note]")
    assert second["input_comm"] == estimate_tokens(piece) and second["output_comm"] == 0
    assert g.result().metrics["comm_tokens_est"] == first["output_comm"] + second["input_comm"]


# -- LLM seats through the mock model ---------------------------------------------------------
def share_by_text(messages: list[Message]) -> str:
    """A model that shares its list, reads the others' and submits its slice (broadcast)."""
    system = messages[0]["content"]
    me = int(re.search(r"You are Agent-(\d+)", system).group(1))  # type: ignore[union-attr]
    n = int(re.search(r"There are N = (\d+)", system).group(1))  # type: ignore[union-attr]
    k = int(re.search(r"holds K = (\d+)", system).group(1))  # type: ignore[union-attr]
    mine = [int(v) for v in re.findall(r"-?\d+", system.split("Your list: ", 1)[1].split("]")[0])]
    turn = sum(m["role"] == "user" for m in messages)
    if turn == 1:
        return f"Sharing.\n```\nbroadcast_message {list_message(me, mine)}\n```"
    if turn == 2:
        return "Reading.\n```\nreceive_messages\n```"
    lists = {me: mine}
    for m in messages:
        if m["role"] == "user":
            lists.update(read_lists(m["content"]))
    values = answer("sort", me, k, [lists[j] for j in range(n)])
    return f"Done.\n```\nsubmit_result {values}\n```"


def test_llm_seats_get_te_and_cr_from_reported_tokens() -> None:
    n = 3
    agents: list[Agent] = [LLMAgent(MockModel(replies=[share_by_text] * 3)) for _ in range(n)]
    spec = GameSpec(
        trace_id="m",
        game="sorting",
        seed=4,
        options={"n": n, "k": 2},
        agents=[AgentSpec(model="mock/scripted")] * n,
    )
    trace = asyncio.run(play_game(spec, agents))
    assert trace.status == "complete" and trace.metrics["sr"] == 1.0
    m = trace_metrics(trace)
    total = trace.usage["total"].input_tokens + trace.usage["total"].output_tokens
    assert m["token_source"] == "model" and m["tokens"] == total
    assert m["te"] == pytest.approx(6 / total * 1e5)
    assert len(call_tokens(trace.events)) == trace.usage["total"].calls == 9
    # The mock counts 4 characters a token plus 4 per message: close to the text estimate.
    assert 0 < m["cr"] < 1 and m["cr"] == pytest.approx(trace.metrics["cr_est"], rel=0.25)
    assert m["cost_usd"] is None  # mock/scripted has no price


def test_prices_come_from_agent_options_then_the_paper_table() -> None:
    t = with_calls(scripted(n=2), 1.0, 1.0)
    models = ["openrouter/openai/gpt-oss-120b", "local/smollm2"]
    seats = [s.model_copy(update={"model": m}) for s, m in zip(t.seats, models, strict=True)]
    t = t.model_copy(update={"seats": seats})
    assert seat_prices(t, 0) == PAPER_PRICES["gpt-oss-120b"]
    assert seat_prices(t, 1) is None and trace_metrics(t)["cost_usd"] is None
    priced = {"options": {"prices": {"input_per_mtok": 1.0, "output_per_mtok": 3.0}}}
    t = t.model_copy(update={"agents_config": [{}, priced]})
    assert seat_prices(t, 1) == Prices(input_per_mtok=1.0, output_per_mtok=3.0)
    m = trace_metrics(t)
    u0, u1 = t.usage["Agent-0"], t.usage["Agent-1"]
    exact = (u0.input_tokens * 0.02 + u0.output_tokens * 0.10) / 1e6 + (
        u1.input_tokens * 1.0 + u1.output_tokens * 3.0
    ) / 1e6
    assert m["cost_usd"] == pytest.approx(exact)
    t0, t1 = u0.input_tokens + u0.output_tokens, u1.input_tokens + u1.output_tokens
    assert m["cost_low"] == pytest.approx((t0 * 0.02 + t1 * 1.0) / 1e6)
    assert m["cost_high"] == pytest.approx((t0 * 0.10 + t1 * 3.0) / 1e6)
    assert m["cost_mid"] == pytest.approx((m["cost_low"] + m["cost_high"]) / 2)
    assert m["cost_low"] <= m["cost_usd"] <= m["cost_high"]


# -- reasoning tokens and phases ----------------------------------------------------------------
class ReasoningMock(MockModel):
    """The mock, reporting `reasoning` hidden tokens per call inside ``output_tokens``, as a
    reasoning model does under the OpenAI usage convention."""

    def __init__(self, reasoning: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reasoning = reasoning

    async def _complete_once(self, call: Any) -> Completion:
        done = await super()._complete_once(call)
        usage = Usage(
            input_tokens=done.usage.input_tokens,
            output_tokens=done.usage.output_tokens + self.reasoning,
            reasoning_tokens=self.reasoning,
        )
        return Completion(text=done.text, usage=usage, cost_usd=0.0, raw=done.raw)


def play_mock(reasoning: int, **opts: Any) -> Trace:
    n = 3
    agents: list[Agent] = [
        LLMAgent(ReasoningMock(reasoning, replies=[share_by_text] * 6)) for _ in range(n)
    ]
    spec = GameSpec(
        trace_id=f"r{reasoning}",
        game="sorting",
        seed=4,
        options={"n": n, "k": 2, **opts},
        agents=[AgentSpec(model="mock/scripted")] * n,
    )
    trace = asyncio.run(play_game(spec, agents))
    assert trace.status == "complete" and trace.metrics["sr"] == 1.0
    return trace


def test_hidden_reasoning_is_not_communication() -> None:
    plain, thinking = play_mock(0), play_mock(2000)
    p, r = trace_metrics(plain), trace_metrics(thinking)
    assert p["reasoning_tokens"] == 0 and r["reasoning_tokens"] == 9 * 2000
    # The same visible conversation: the same communication tokens, reasoning or not.
    assert r["comm_tokens"] == pytest.approx(p["comm_tokens"])
    # Reasoning is paid for, so it stays in T_total (TE falls) ...
    assert r["tokens"] == p["tokens"] + 9 * 2000
    assert r["te"] == pytest.approx(6 / r["tokens"] * 1e5)
    # ... but CR is over the visible tokens only, so it is unchanged; reasoning is apart.
    assert r["visible_tokens"] == p["tokens"] and r["cr"] == pytest.approx(p["cr"])
    assert r["reasoning_phase1"] == r["reasoning_combined"] == 9 * 2000
    assert r["reasoning_phase2"] is None and p["reasoning_combined"] == 0
    # The old rule (reported output split in the visible proportions) would have counted
    # reasoning as communication: more than ten times the visible share here.
    calls = call_tokens(thinking.events)
    old = sum(
        c.input_tokens * c.input_comm_est / c.input_est
        + c.output_tokens * c.output_comm_est / c.output_est
        for c in calls
    )
    assert old > 5 * r["comm_tokens"] and old / r["tokens"] > 3 * p["cr"]


def test_reasoning_reported_apart_from_the_output_is_added_to_the_total() -> None:
    c = call_tokens(
        [
            {"type": "model_call", "t": 1, "seat": 0, "input_tokens": 10, "output_tokens": 4,
             "reasoning_tokens": 50},
            {"type": "turn", "t": 2, "seat": 0, "phase": 1,
             "tokens_est": {"input": 10, "output": 4, "input_comm": 0, "output_comm": 2}},
        ]
    )[0]  # fmt: skip
    assert c.visible_output == 4 and c.total == 64 and c.comm_tokens == pytest.approx(2.0)
    assert c.apart and c.visible == 14


def test_where_reasoning_was_counted_is_decided_per_provider() -> None:
    events = [
        {"type": "model_call", "t": 1, "seat": 0, "input_tokens": 10, "output_tokens": 40,
         "reasoning_tokens": 30},
        {"type": "turn", "t": 2, "seat": 0, "phase": 1,
         "tokens_est": {"input": 10, "output": 10, "input_comm": 0, "output_comm": 5}},
    ]  # fmt: skip
    # Fewer reasoning than output tokens: the OpenAI convention (inside the output) for every
    # shipped provider ...
    (inside,) = call_tokens(events, {0: "openai"})
    assert not inside.apart and inside.visible_output == 10 and inside.total == 50
    assert inside.comm_tokens == pytest.approx(5.0)
    assert not reasoning_apart("gemini", 30, 40) and not reasoning_apart("mock", 30, 40)
    # ... and beside it for a provider named as reporting it apart.
    (beside,) = call_tokens(events, {0: "myserver"}, apart=frozenset({"myserver"}))
    assert beside.apart and beside.visible_output == 40 and beside.total == 80
    assert beside.comm_tokens == pytest.approx(20.0)
    assert reasoning_apart(None, 50, 4)  # more reasoning than output: apart for anyone


def test_two_phase_cr_has_one_definition_per_scope() -> None:
    m = trace_metrics(play_mock(0, condition="camoc"))
    calls = call_tokens(play_mock(0, condition="camoc").events)
    comm = sum(c.comm_tokens for c in calls)
    # Without reasoning the headline CR is exactly the final phase's; combined covers both.
    assert m["cr"] == m["cr_phase2"] and m["cr_combined"] == pytest.approx(comm / m["tokens"])
    assert "cr_visible" not in m and m["visible_tokens"] == m["tokens"]


def test_te_and_cr_per_phase_from_reported_tokens() -> None:
    trace = play_mock(0, condition="camoc")
    m = trace_metrics(trace)
    calls = call_tokens(trace.events)
    assert {c.phase for c in calls} == {1, 2}
    per = {p: sum(c.input_tokens + c.output_tokens for c in calls if c.phase == p) for p in (1, 2)}
    assert per[1] + per[2] == m["tokens"]
    assert m["te_phase1"] == pytest.approx(6 / per[1] * 1e5)
    assert m["te_phase2"] == pytest.approx(6 / per[2] * 1e5)
    assert m["te_combined"] == pytest.approx(6 / m["tokens"] * 1e5)
    assert m["te"] == m["te_phase2"]  # the final phase is the default headline
    comm2 = sum(c.comm_tokens for c in calls if c.phase == 2)
    assert m["cr_phase2"] == pytest.approx(comm2 / per[2]) and m["cr"] == m["cr_phase2"]
    assert m["te_combined"] < min(m["te_phase1"], m["te_phase2"])
    combined = play_mock(0, condition="camoc", metrics_phase="combined")
    assert trace_metrics(combined)["te"] == pytest.approx(trace_metrics(combined)["te_combined"])


def test_the_leaderboard_te_is_the_reports_te() -> None:
    from accord.games.sorting.outcomes import token_efficiency

    trace = play_mock(0, condition="camoc")
    assert token_efficiency(trace) == pytest.approx(trace_metrics(trace)["te_phase2"])
    estimate = scripted(backend="kv", condition="camoc")
    assert token_efficiency(estimate) == pytest.approx(estimate.metrics["te_est_phase2"])


def test_sorting_v2_traces_keep_their_cr_definition() -> None:
    trace = play_mock(2000)
    new = trace_metrics(trace)
    old = trace_metrics(trace.model_copy(update={"game_id": "sorting-v2"}))
    assert trace.game_id == "sorting-v3"
    # sorting-v2: CR over T_total with reasoning, and the visible share beside it.
    assert old["cr"] == pytest.approx(old["comm_tokens"] / old["tokens"])
    assert old["cr_visible"] == pytest.approx(new["cr"]) and old["cr"] < new["cr"]
    # v3 names both readings when a model reasons; its headline stays the visible one.
    assert new["cr_visible"] == new["cr"] and new["cr_total"] == pytest.approx(old["cr"])
