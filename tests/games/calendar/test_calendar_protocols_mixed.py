"""Protocol seats are ordinary agents: registered specs, mixable with LLM seats in one game, and
they only ever send typed JSON (CalBench App. D preamble and D.4)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from accord.agents.base import Agent
from accord.agents.llm import LLMAgent
from accord.agents.reference import make_reference, reference_names
from accord.core.registry import make
from accord.games.calendar import write_suite
from accord.games.calendar.actions import CONTENT_MAX
from accord.games.calendar.layout import scenario_from_layout
from accord.games.calendar.privacy import analyse_trace
from accord.games.calendar.protocols import PROTOCOL_AGENTS, ImapAgent
from accord.games.calendar.protocols import messages as pm
from accord.models.base import Message
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

PROTOCOLS = ["imap", "sd-map", "dsm-welfare", "dsm-private"]
TYPED = re.compile(r'^\{[\[\]{}",:0-9A-Za-z_-]*\}$')
"""Identifiers, numbers and punctuation only: no spaces, so no sentence fits."""


def test_specs_are_registered() -> None:
    assert set(PROTOCOLS) <= set(reference_names("calendar-v2"))
    variants = {"dsm-welfare-v1", "dsm-private-v1", "dsm-private-nofallback"}
    variants |= {"dsm-welfare-v2", "dsm-private-v2", "dsm-welfare-release", "sd-map-paper"}
    assert set(PROTOCOL_AGENTS) == set(PROTOCOLS) | variants
    assert variants <= set(reference_names("calendar-v2"))
    assert isinstance(make_reference("calendar-v2", "imap"), ImapAgent)


def test_decode_accepts_only_the_vocabulary() -> None:
    msg = pm.Propose(meeting=3, slot=4)
    assert pm.decode(msg.encode()) == msg
    assert pm.decode("Let us meet at slot 4.") is None
    assert pm.decode('{"proto":"sd","type":"propose","meeting":3,"slot":4,"note":"hi"}') is None
    assert pm.decode('{"proto":"sd","type":"gossip","meeting":3}') is None


def test_long_messages_are_split_into_parts_that_fit() -> None:
    costs = pm.Costs(meeting=1, slots=list(range(200)), costs=[None] * 200)
    parts = pm.fit(costs, CONTENT_MAX)
    assert len(parts) > 1 and all(len(p.encode()) <= CONTENT_MAX for p in parts)
    merged = [s for p in parts for s in p.slots]  # type: ignore[attr-defined]
    assert merged == list(range(200))


def _llm_policy(messages: list[Message]) -> str:
    """A scripted LLM seat: proposes slot 2 in words, follows any typed IMAP decision."""
    seat = int(re.search(r"You are Agent (\d+)\.", messages[0]["content"]).group(1))  # type: ignore[union-attr]
    user = messages[-1]["content"]
    if "- DECISION ===" in user:
        meeting = int(re.search(r"schedule action for M(\d+)", user).group(1))  # type: ignore[union-attr]
        text = " ".join(m["content"] for m in messages if m["role"] == "user")
        typed = re.findall(rf'"type":"decision","meeting":{meeting},"slot":(\d+)', text)
        slot = int(typed[-1]) if typed else 2
        call = {"type": "schedule", "meeting_id": meeting, "slot": slot}
        return json.dumps({"thinking": "", "actions": [call]})
    if "START ===" in user:
        found = re.search(r"participants \[([\d, ]+)\]", user)
        others = [int(a) for a in found.group(1).split(",") if int(a) != seat]  # type: ignore[union-attr]
        calls = [{"type": "dm", "to": a, "content": "Let us meet at slot 2."} for a in others]
        return json.dumps({"thinking": "", "actions": calls})
    return json.dumps({"thinking": "", "actions": []})


def test_imap_seats_play_with_mock_llm_seats(tmp_path: Path) -> None:
    path = tmp_path / "task.jsonl"
    layout = [". . . . ."] * 4
    write_suite(path, [scenario_from_layout(layout, [[0, 1], [1, 2], [1, 3]])])
    llms = [LLMAgent(MockModel(replies=[_llm_policy] * 60)) for _ in range(2)]
    agents: list[Agent] = [llms[0], ImapAgent(), ImapAgent(), llms[1]]
    llm, imap = AgentSpec(model="mock/scripted"), AgentSpec(agent="imap")
    spec = GameSpec(
        trace_id="mixed",
        game="calendar-v2",
        seed=0,
        options={"suite": str(path)},
        agents=[llm, imap, imap, llm],
    )
    trace = asyncio.run(play_game(spec, agents))
    assert trace.status == "complete", trace.error
    # M1: the LLM initiator named slot 2 in words; IMAP seat 1 followed it. M2: IMAP alone.
    # M3: IMAP seat 1 decided with the vectors it had and the LLM followed the typed decision.
    assert trace.final_state["schedule"] == [
        {"meeting_id": 1, "slot": 2},
        {"meeting_id": 2, "slot": 0},
        {"meeting_id": 3, "slot": 1},
    ]
    for m in trace.final_state["messages"]:
        typed = pm.decode(m["content"]) is not None
        assert typed == (m["sender"] in (1, 2))
    assert trace.metrics["vps"] is not None  # typed messages were measured


def _play(agent: str, options: dict[str, Any], seed: int) -> Trace:
    n = make("calendar-v2", options).num_seats
    spec = GameSpec(
        trace_id="typed", game="calendar-v2", seed=seed, options=options,
        agents=[AgentSpec(agent=agent)] * n,
    )  # fmt: skip
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    return trace


@pytest.mark.parametrize("agent", PROTOCOLS)
def test_protocols_send_only_typed_json(agent: str) -> None:
    games = [({"suite": "canonical", "task": t}, 0) for t in (0, 30, 50, 80)]
    games += [({"channels": c, "num_agents": 4, "num_meetings": 4}, s) for c, s in
              (("all", 1), ("participant_groupchat", 2), ("all_groupchat", 3))]  # fmt: skip
    sent = 0
    for options, seed in games:
        trace = _play(agent, options, seed)
        for m in trace.final_state["messages"]:
            sent += 1
            assert TYPED.match(m["content"]), m["content"]
            assert pm.decode(m["content"]) is not None
            assert len(m["content"]) <= CONTENT_MAX
        assert analyse_trace(trace).leaks == [] and trace.metrics["semantic_leaks"] == 0
        for e in trace.events:
            if e["type"] in ("turn_end", "decide_end"):
                json.loads(e["thinking"])  # the logged status is typed too
    assert sent > 0
