"""The opt-in departures of `sorting-v3` (docs/sorting.md, "Departures"): Algorithm 2's whole
blocks (`multi_command_block: whole`) and eq. (7) over T_total (`cr_tokens: total`)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from accord.agents.llm import LLMAgent
from accord.core.registry import make
from accord.games.sorting.commands import Dispatcher
from accord.games.sorting.config import SortingConfig
from accord.games.sorting.usage import trace_metrics
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

NONE = [False, False, False]


def dispatcher(kind: str, *, whole: bool) -> Dispatcher:
    d = Dispatcher(kind, whole_blocks=whole)  # type: ignore[arg-type]
    d.reset(3)
    return d


def test_whole_blocks_send_a_swallowed_command_as_message_text() -> None:
    block = "broadcast_message my list is [4, 9]\nsubmit_result [4, 9]"
    refused = dispatcher("broadcast", whole=False).run(0, block, NONE)
    assert refused.reply.startswith("Nothing was run")
    d = dispatcher("broadcast", whole=True)
    out = d.run(0, block, NONE)
    # Algorithm 2: the block is one command; the later line travels as text, nothing submits.
    assert out.ok and out.submitted is None
    received = d.run(1, "receive_messages", NONE).reply
    assert "submit_result [4, 9]" in received and "my list is [4, 9]" in received


def test_whole_blocks_fail_a_verb_without_arguments_on_the_later_line() -> None:
    out = dispatcher("broadcast", whole=True).run(0, "wait\nsubmit_result [1, 2]", NONE)
    assert not out.ok and out.submitted is None
    assert out.reply.startswith("Command failed (wait)")


def test_whole_blocks_store_a_swallowed_command_in_the_file() -> None:
    d = dispatcher("kv", whole=True)
    assert d.run(0, "write_file mine\n[1, 2]\nsubmit_result [1, 2]", NONE).ok
    assert "submit_result [1, 2]" in d.run(1, "read_file mine", NONE).reply


def test_added_options_stay_out_of_the_default_config_dump() -> None:
    assert "multi_command_block" not in SortingConfig().model_dump(mode="json")
    assert "cr_tokens" not in SortingConfig().model_dump(mode="json")
    dumped = SortingConfig(multi_command_block="whole", cr_tokens="total").model_dump(mode="json")
    assert dumped["multi_command_block"] == "whole" and dumped["cr_tokens"] == "total"
    assert SortingConfig.model_validate(dumped) == SortingConfig.model_validate(dumped)
    game = make("sorting", {"multi_command_block": "whole"})
    assert game.config.multi_command_block == "whole"  # type: ignore[attr-defined]


def _model_trace(**options: Any) -> Trace:
    """Two mock seats that broadcast every round (so some tokens are communication)."""
    spec = GameSpec(
        trace_id="cr",
        game="sorting",
        seed=1,
        options={"n": 2, "k": 2, "max_rounds": 3, **options},
        agents=[AgentSpec(model="mock/scripted")] * 2,
    )
    talk = "Sharing.\n```\nbroadcast_message my numbers are coming\n```"
    agents = [LLMAgent(MockModel(replies=[talk] * 10)) for _ in range(2)]
    return asyncio.run(play_game(spec, agents))


def _with_reasoning(trace: Trace, reasoning: int) -> Trace:
    """`trace` as if every call had reported `reasoning` reasoning tokens inside its output."""
    events = []
    for e in trace.events:
        if e.get("type") == "model_call":
            e = {**e, "output_tokens": int(e.get("output_tokens") or 0) + reasoning}
            e["reasoning_tokens"] = reasoning
        events.append(e)
    usage = {
        name: u.model_copy(
            update={
                "output_tokens": u.output_tokens + reasoning * u.calls,
                "reasoning_tokens": reasoning * u.calls,
            }
        )
        for name, u in trace.usage.items()
    }
    return trace.model_copy(update={"events": events, "usage": usage})


def test_cr_over_total_tokens_counts_reasoning_and_both_readings_are_reported() -> None:
    plain = trace_metrics(_model_trace())
    assert "cr_total" not in plain  # no reasoning: the two readings are one number
    visible = trace_metrics(_with_reasoning(_model_trace(), 500))
    total = trace_metrics(_with_reasoning(_model_trace(cr_tokens="total"), 500))
    assert visible["cr"] == pytest.approx(plain["cr"])  # reasoning stays out of T_visible
    assert visible["cr"] == visible["cr_visible"] and total["cr"] == total["cr_total"]
    assert total["cr"] == pytest.approx(visible["cr_total"])
    assert total["cr"] < visible["cr"]  # the same comm over more tokens
    assert total["cr"] == pytest.approx(visible["comm_tokens"] / visible["tokens"]), (
        "one phase: eq. (7) over eq. (6)'s T_total"
    )
