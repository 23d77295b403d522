"""A person at the terminal (`HumanAgent`): the input syntax is said up front, a typed JSON reply
is read as a model's reply is, its private ``thinking`` is never delivered, and no decision goes
out with blank speech. Played through real negotiation games with a scripted keyboard."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from rich.console import Console

from accord.agents.human import HumanAgent
from accord.core.errors import ActionError
from accord.core.registry import make, resolve
from accord.games.negotiation.human import human_adapter
from accord.games.negotiation.protocols import GreedyAgent
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec


def play(lines: Iterator[str], **options: Any) -> tuple[dict[str, Any], str]:
    """Play one negotiation game as seat 0 against `greedy`; returns (trace, screen)."""
    screen = io.StringIO()
    console = Console(file=screen, width=120, force_terminal=False)
    human = HumanAgent(resolve("negotiation"), console=console, read=lambda _: next(lines))
    spec = GameSpec(
        trace_id="t",
        game=resolve("negotiation"),
        options={"rounds": 1, "reflection": False, **options},
        seed=0,
        agents=[AgentSpec(agent="human"), AgentSpec(agent="greedy")],
    )
    trace = asyncio.run(play_game(spec, [human, GreedyAgent()]))
    return trace.model_dump(mode="json"), screen.getvalue()


def first_talk_request():  # type: ignore[no-untyped-def]
    game = make("negotiation", {"rounds": 1})
    game.reset(0)
    (req,) = game.pending()
    assert req.info["phase"] == "talk"
    return req


def test_the_input_syntax_is_said_once_before_the_briefing() -> None:
    trace, screen = play(iter(["hello there", "buy nothing", "buy nothing"]), talk_turns=1)
    assert trace["status"] == "complete"
    assert screen.count("How to answer") == 1
    assert screen.index("How to answer") < screen.index("Your briefing")
    how = screen[screen.index("How to answer") : screen.index("Your briefing")]
    assert "buy <resource> <n>" in how and "JSON" in how and "/quit" in how


def test_a_typed_json_reply_is_parsed_as_a_models_and_thinking_stays_private() -> None:
    secret = "my budget is secretly tiny"
    reply = json.dumps({"thinking": secret, "speech": "shall we split?", "action": None})
    trace, _ = play(iter([reply, "buy nothing"]), talk_turns=1)
    assert trace["status"] == "complete"
    mine = [e for e in trace["events"] if e["type"] == "message" and e["seat"] == 0]
    assert [e["speech"] for e in mine] == ["shall we split?"]
    # Kept in the trace as a model's thinking is, but never in what the partner is shown.
    assert mine[0]["thinking"] == secret
    partner_saw = [e for e in trace["events"] if e.get("seat") == 1 and secret in json.dumps(e)]
    assert partner_saw == []
    assert all(secret not in m["content"] for t in trace["transcripts"] for m in t["messages"])


def test_a_typed_json_decision_decides() -> None:
    game = make("negotiation", {"rounds": 1})
    game.reset(0)
    (req,) = game.pending()
    first = req.info["names"]["r1"]
    reply = json.dumps({"thinking": "t", "speech": "I take these", "action": {first: 1}})
    trace, _ = play(iter([reply]), talk_turns=1)
    assert trace["status"] == "complete"
    decisions = [e for e in trace["events"] if e["type"] == "decision" and e["seat"] == 0]
    assert decisions and decisions[0]["purchase"] == {"r1": 1}


def test_buy_during_talk_needs_a_message_and_never_sends_blank_speech() -> None:
    req = first_talk_request()
    with pytest.raises(ActionError, match="after '\\|'"):
        human_adapter(req, "buy")
    first = req.info["names"]["r1"]
    action = human_adapter(req, f"buy {first} 1 | that works for me")
    assert action["speech"] == "that works for me"
    assert action["decision"]["purchase"] == {"r1": 1}
    # A message with a '|' that is not a decision is said as typed.
    assert human_adapter(req, "a | b")["speech"] == "a | b"


def test_a_bare_buy_during_talk_is_asked_again_not_delivered() -> None:
    trace, screen = play(iter(["buy", "buy nothing | deciding now"]), talk_turns=1)
    assert trace["status"] == "complete"
    assert "say something with your decision" in screen
    mine = [e for e in trace["events"] if e["type"] == "message" and e["seat"] == 0]
    assert [e["speech"] for e in mine] == ["deciding now"]
    assert all(e["speech"].strip() for e in trace["events"] if e["type"] == "message")


def test_a_bare_buy_in_the_decision_phase_is_asked_again_in_the_games_own_names() -> None:
    """A bare 'buy' is not taken as an empty purchase (the round would be lost to a slip);
    examples use this game's resource names, never names it does not have."""
    game = make("negotiation", {"rounds": 1, "talk_turns": 1})
    game.reset(0)
    while (req := game.pending()[0]).info["phase"] == "talk":
        game.submit(req.seat, {"thinking": "", "speech": "hi", "decision": None})
    assert req.info["phase"] == "decide"
    names = [req.info["names"][r] for r in ("r1", "r2")]
    with pytest.raises(ActionError, match="buy nothing") as refused:
        human_adapter(req, "buy")
    assert f"buy {names[0]} 4 {names[1]} 2" in str(refused.value)
    assert "wood" not in str(refused.value) or "wood" in names
    assert human_adapter(req, "buy nothing")["decision"]["purchase"] == {}
    assert human_adapter(req, f"buy {names[0]} 1")["decision"]["purchase"] == {"r1": 1}
