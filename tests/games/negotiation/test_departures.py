"""The opt-in departures of `negotiation-v3` (docs/negotiation.md, "Departures"): the
companion's handling of a refused decision during talk (`invalid_talk_decision: speech`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from accord.agents.llm import LLMAgent
from accord.core.errors import ActionError
from accord.core.registry import make
from accord.games.negotiation.config import NegotiationConfig
from accord.games.negotiation.engine import NegotiationGame
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

BASE = {"scenario": "0.5/gen_012", "theme": "medieval", "rounds": 1, "reflection": False}
OVER_BUDGET = {"gold": 7}  # 7 gold cost 21 of an 18 budget (and the supply is 6)


def env(speech: str, action: Any = None) -> str:
    return json.dumps({"thinking": "t", "speech": speech, "action": action})


def game(**opts: Any) -> NegotiationGame:
    g = make("negotiation", {**BASE, **opts})
    assert isinstance(g, NegotiationGame)
    g.reset(1)
    return g


def test_by_default_a_refused_talk_decision_is_asked_again_within_the_turn() -> None:
    g = game()
    with pytest.raises(ActionError, match="budget"):
        g.pending()[0].spec.parse(env("my final offer", OVER_BUDGET))
    assert g.pending()[0].seat == 0  # still seat 0's turn


def test_speech_option_spends_the_turn_delivers_the_raw_reply_and_explains() -> None:
    g = game(invalid_talk_decision="speech")
    raw = env("my final offer", OVER_BUDGET)
    g.submit(0, g.pending()[0].spec.parse(raw))
    events = g.drain_events()
    refused = [e for e in events if e["type"] == "decision_refused"]
    assert len(refused) == 1 and "budget" in refused[0]["error"]
    (message,) = [e for e in events if e["type"] == "message"]
    # The speech and the refused decision are delivered, the private scratchpad is not.
    assert message["speech"] == 'my final offer\n{"gold": 7}' and message["turn"] == 1
    assert message["thinking"] == "t"
    assert not [e for e in events if e["type"] == "decision"]  # the seat has not decided
    partner = g.pending()[0]
    assert partner.seat == 1 and '{"gold": 7}' in partner.observation
    assert '"thinking"' not in partner.observation
    g.submit(1, partner.spec.parse(env("that is too much gold")))
    again = g.pending()[0]
    assert again.seat == 0
    assert "carried a decision that was not accepted" in again.observation
    assert "budget" in again.observation
    # A valid decision is taken as usual, and a refused one in the decision phase is refused.
    g.submit(0, again.spec.parse(env("fine", {"stone": 9})))
    assert [e for e in g.drain_events() if e["type"] == "decision"]


def test_speech_option_keeps_the_decision_phase_strict() -> None:
    g = game(invalid_talk_decision="speech", talk_turns=1)
    g.submit(0, g.pending()[0].spec.parse(env("hello")))
    g.submit(1, g.pending()[0].spec.parse(env("hello")))
    decide = g.pending()[0]
    assert decide.spec.kind == "decide"
    with pytest.raises(ActionError):
        decide.spec.parse(env("final", OVER_BUDGET))


def test_the_option_is_absent_from_a_default_config_dump() -> None:
    assert "invalid_talk_decision" not in NegotiationConfig().model_dump(mode="json")
    dumped = NegotiationConfig(invalid_talk_decision="speech").model_dump(mode="json")
    assert dumped["invalid_talk_decision"] == "speech"
    assert NegotiationConfig.model_validate(dumped).invalid_talk_decision == "speech"


def _played(option: str) -> Any:
    spec = GameSpec(
        trace_id="x",
        game="negotiation",
        options={**BASE, "invalid_talk_decision": option},
        seed=1,
        agents=[AgentSpec(model="mock/scripted")] * 2,
    )
    a = [env("offer", OVER_BUDGET), env("ok then", {"stone": 9})]
    b = [env("hmm"), env("deal", {"wood": 1})]
    agents = [LLMAgent(MockModel(replies=a)), LLMAgent(MockModel(replies=b))]
    return asyncio.run(play_game(spec, agents))


def test_played_by_a_model_the_two_handlings_differ_as_named() -> None:
    reask, speech = _played("reask"), _played("speech")
    assert reask.status == speech.status == "complete"
    kinds = [e["type"] for e in reask.events]
    # Accord: the refusal is a validation error and the same turn's retry decides.
    assert "validation_error" in kinds and "decision_refused" not in kinds
    first = reask.final_state["rounds"][0]["messages"][0]
    assert first["seat"] == 0 and first["speech"] == "ok then" and first["decided"]
    # Companion: the refused reply was seat A's first message; its decision came a turn later.
    kinds = [e["type"] for e in speech.events]
    assert "decision_refused" in kinds and "validation_error" not in kinds
    msgs = speech.final_state["rounds"][0]["messages"]
    assert msgs[0]["speech"] == 'offer\n{"gold": 7}' and not msgs[0]["decided"]
    assert msgs[2]["seat"] == 0 and msgs[2]["decided"]
