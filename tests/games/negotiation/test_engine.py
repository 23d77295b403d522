"""The negotiation engine driven by model-like text through the real parsers and the mock model."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from accord.agents.llm import LLMAgent
from accord.core.errors import ActionError
from accord.core.provenance import parse_reply
from accord.core.registry import make
from accord.games.negotiation.engine import NegotiationGame
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

# 0.5/gen_012: seat 0 has project_a r2x3 (9), project_b r3x2,r2x3 (4), project_c r3x2,r1x1 (1);
# seat 1 has project_a r3x3 (1), project_b r1x1,r2x3 (9), project_c r2x2 (4).
BASE = {"scenario": "0.5/gen_012", "theme": "medieval", "rounds": 2, "reflection": False}


def game(**opts: Any) -> NegotiationGame:
    g = make("negotiation", {**BASE, **opts})
    assert isinstance(g, NegotiationGame)
    g.reset(1)
    return g


def env(speech: str = "hi", action: Any = None, thinking: str = "t") -> str:
    return json.dumps({"thinking": thinking, "speech": speech, "action": action})


def answer(g: NegotiationGame, seat: int, text: str) -> None:
    req = next(r for r in g.pending() if r.seat == seat)
    g.submit(seat, req.spec.parse(text))


def parse_error(g: NegotiationGame, text: str) -> str:
    req = g.pending()[0]
    with pytest.raises(ActionError) as exc:
        req.spec.parse(text)
    return str(exc.value)


def test_first_request_is_seat0_talk_with_rules_and_projects() -> None:
    g = game()
    (req,) = g.pending()
    assert req.seat == 0 and req.spec.kind == "talk"
    assert "CHEAP TALK (round 1 of 2)" in req.observation
    assert "up to 5 messages each" in req.observation
    assert req.system and "stone×3" in req.system and "pays 9 per run" in req.system
    assert '{"wood": 10, "stone": 10, "gold": 6}' in req.system
    assert "$18" in req.system


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("{not json", "not a valid JSON object"),
        ('{"speech": "x", "action": null}', "missing the field(s) ['thinking']"),
        (env(action={"gold": 6, "stone": 2}), "exceeds your budget of 18"),
        (env(action={"wood": 1, "stone": 1, "gold": 1}), "at most 2 are allowed"),
        (env(speech="  "), '"speech" is blank'),
        (env(action={"diamond": 1}), 'unknown resource "diamond"'),
        (env(action={"wood": -1}), "non-negative integer"),
        (env(action={"stone": 3, "projects": {"project_z": 1}}), "unknown project"),
    ],
)
def test_invalid_replies_are_explained(text: str, needle: str) -> None:
    assert needle in parse_error(game(), text)


def test_strict_runs_reject_runs_the_purchase_cannot_supply() -> None:
    text = env(action={"stone": 2, "projects": {"project_a": 1}})
    assert "short by" in parse_error(game(runs="strict"), text)


def test_prose_around_json_is_a_warning_not_an_error() -> None:
    g = game()
    action, warnings = parse_reply(g.pending()[0].spec, "Sure! ```json\n" + env() + "\n```")
    assert warnings and action["speech"] == "hi"
    assert not any(key.startswith("_") for key in action)


def test_early_decision_v2_rule_sends_partner_to_decision_with_last_message() -> None:
    g = game(after_early_decision="decide_now")
    answer(g, 0, env("I take 9 stone", {"stone": 9, "projects": {"project_a": 3}}))
    (req,) = g.pending()
    assert req.seat == 1 and req.spec.kind == "decide"
    assert 'The other party said: "I take 9 stone"' in req.observation
    assert "DECISION" in req.observation
    assert "must be your decision object" in parse_error(g, env())
    answer(g, 1, env("ok", {"gold": 6}))
    rec = g._records[0]
    assert rec.early_decision == [True, False]
    assert rec.purchases == [{"r2": 9}, {"r3": 6}]
    assert rec.runs == [{"project_a": 3}, {"project_a": 2}]  # seat 1's runs assigned in order
    assert rec.rewards == [27, 2] and rec.optimal and rec.stated_runs == [True, False]
    assert [u.delivered for u in rec.messages] == [True, False]  # forced-decision speech


def test_partner_keeps_talking_after_an_early_decision_and_its_decision_is_early() -> None:
    g = game()
    answer(g, 0, env("I take 9 stone", {"stone": 9, "projects": {"project_a": 3}}))
    (req,) = g.pending()
    assert req.seat == 1 and req.spec.kind == "talk"  # App. D.1: its turns are not taken away
    assert 'The other party said: "I take 9 stone"' in req.observation
    assert "already made its final decision" in req.observation
    answer(g, 1, env("hm, let me think"))
    (req,) = g.pending()
    assert req.seat == 1 and req.spec.kind == "talk"  # the decided seat gets no prompt
    assert "The other party said" not in req.observation
    assert "already made its final decision" in req.observation
    answer(g, 1, env("ok", {"gold": 6}))
    rec = g._records[0]
    assert rec.early_decision == [True, True]
    assert [(u.seat, u.delivered) for u in rec.messages] == [(0, True), (1, False), (1, False)]
    assert g._round == 2


def test_partner_that_uses_up_its_turns_after_an_early_decision_is_forced() -> None:
    g = game(talk_turns=2)
    answer(g, 0, env("a"))
    answer(g, 1, env("b"))
    answer(g, 0, env("done", {"gold": 6}))
    (req,) = g.pending()
    assert req.seat == 1 and req.spec.kind == "talk"
    answer(g, 1, env("last words"))
    (req,) = g.pending()
    assert req.seat == 1 and req.spec.kind == "decide"
    assert "already made its final decision" in req.observation
    answer(g, 1, env("fine", {"stone": 9}))
    assert g._records[0].early_decision == [True, False]


@pytest.mark.parametrize("first", [0, 1])
def test_two_decide_at_once_policies_share_the_early_rate_whoever_opens(first: int) -> None:
    g = game(first_speaker=first)
    for _ in range(2):  # two rounds
        for _ in range(2):
            (req,) = g.pending()
            assert req.spec.kind == "talk"
            answer(g, req.seat, env("deciding", {"gold": 3}))
    assert [r.early_decision for r in g._records] == [[True, True], [True, True]]
    assert g.result().seat_rows[0]["early_decision_rate"] == 1.0
    assert g.result().seat_rows[1]["early_decision_rate"] == 1.0


def test_bare_json_early_decision_without_thinking_is_not_quoted_as_empty_speech() -> None:
    for rule in ("talk_on", "decide_now"):
        g = game(thinking=False, after_early_decision=rule)
        req = g.pending()[0]
        g.submit(0, req.spec.parse('{"gold": 6}'))
        (req,) = g.pending()
        assert 'said: ""' not in req.observation
        assert "already made its final decision" in req.observation


def test_forced_decision_after_five_messages_each_is_simultaneous() -> None:
    g = game()
    for i in range(10):
        (req,) = g.pending()
        assert req.seat == i % 2 and req.spec.kind == "talk"
        answer(g, req.seat, env(f"m{i}"))
    reqs = g.pending()
    assert [r.seat for r in reqs] == [0, 1] and {r.spec.kind for r in reqs} == {"decide"}
    assert '"m9"' in reqs[0].observation  # seat 0 sees seat 1's last message
    answer(g, 0, env("x", {"stone": 6}))
    answer(g, 1, env("y", {"stone": 6}))
    rec = g._records[0]
    assert rec.annulled and rec.rewards == [0, 0] and not rec.optimal
    # Round 2 opens with the annulment notice.
    (req,) = g.pending()
    assert "ANNULLED" in req.observation and "CHEAP TALK (round 2 of 2)" in req.observation


def test_no_project_completed_notice() -> None:
    g = game()
    answer(g, 0, env("x", {"wood": 2}))
    answer(g, 1, env("y", {"gold": 6}))
    (req,) = g.pending()
    assert "could not supply a single run" in req.observation


def test_first_speaker_swap() -> None:
    g = game(first_speaker=1)
    assert g.pending()[0].seat == 1


def test_no_talk_baseline_starts_with_simultaneous_decisions() -> None:
    g = game(cheap_talk=False)
    reqs = g.pending()
    assert [r.spec.kind for r in reqs] == ["decide", "decide"]
    assert "CHEAP TALK" not in reqs[0].observation


def test_shifting_partner_resets_one_seat_with_redacted_prompt() -> None:
    g = game(partner="shifting")
    answer(g, 0, env("a", {"stone": 9}))
    answer(g, 1, env("b", {"gold": 6}))
    (r0,) = g.pending()
    assert r0.seat == 0 and not r0.reset_context and "Round result" in r0.observation
    answer(g, 0, env("again"))
    (r1,) = g.pending()
    assert r1.seat == 1 and r1.reset_context and "Round result" not in r1.observation
    assert r1.system and "stand-alone" in r1.system and "Nothing carries over" not in r1.system
    assert r0.system and "Nothing carries over" in r0.system
    assert "DIFFERENT opponent in every round" in r0.system


def test_rotating_projects_announced_each_round() -> None:
    g = make("negotiation", {"ratio": 0.8, "projects": "rotating", "rounds": 3, "theme": "space"})
    g.reset(2)
    ids = g.scenario()["per_round"]
    assert len(set(ids)) == 3 and all(i.startswith("0.8/") for i in ids)
    answer(g, 0, env("a", {"titanium": 1}))
    answer(g, 1, env("b", {"titanium": 1}))
    (req,) = g.pending()
    assert "YOUR PROJECTS FOR THIS ROUND" in req.observation


@pytest.mark.parametrize(("mode", "joint"), [("full", False), ("joint", True)])
def test_transparency_shows_partner_projects(mode: str, joint: bool) -> None:
    """§5.7: complete specifications (requirements and rewards) in both modes; the joint
    variant adds how each party is paid and the joint goal."""
    g = game(transparency=mode)
    system = g.pending()[0].system or ""
    assert "The other party's projects" in system
    partner = system.split("The other party's projects")[1].split("##")[0]
    assert "gold×3" in partner and "pays 1 per run" in partner
    assert ("How each party is paid" in partner) is joint
    assert ("JOINT reward" in system) is joint


def test_no_thinking_format_plain_text_talks_json_decides() -> None:
    g = game(thinking=False)
    req = g.pending()[0]
    assert req.spec.schema is None and "NO private channel" in (req.system or "")
    a = req.spec.parse("Hello there, I need stone.")
    assert a["decision"] is None and a["speech"].startswith("Hello")
    g.submit(0, a)
    d = g.pending()[0].spec.parse('{"gold": 6}')
    assert d["decision"] == {"purchase": {"r3": 6}, "runs": None}


def test_interventions_change_the_system_prompt() -> None:
    share = game(intervention="share_projects").pending()[0]
    tom = game(intervention="theory_of_mind").pending()[0]
    assert "tell the other party your projects" in (share.system or "")
    assert "Reminder:" in tom.observation and "think about what the other party" in (
        tom.system or ""
    )


def test_unlimited_talk_continues_until_a_decision() -> None:
    g = game(talk_turns=0)
    assert "as many messages as you need" in g.pending()[0].observation
    for i in range(12):
        answer(g, i % 2, env(f"m{i}"))
    assert g.pending()[0].spec.kind == "talk"


def _llm_game(replies_a: list[Any], replies_b: list[Any], **opts: Any) -> Any:
    spec = GameSpec(
        trace_id="mock",
        game="negotiation",
        options={**BASE, "rounds": 1, **opts},
        seed=1,
        agents=[AgentSpec(model="mock/scripted")] * 2,
    )
    agents = [LLMAgent(MockModel(replies=replies_a)), LLMAgent(MockModel(replies=replies_b))]
    return asyncio.run(play_game(spec, agents))


def test_llm_seats_recover_from_bad_output_and_fall_back() -> None:
    trace = _llm_game(
        ["{oops", env("deal", {"stone": 9})],
        ["{bad", "{bad", "{bad", "{bad"],
        after_early_decision="decide_now",
    )
    assert trace.status == "complete"
    types = [e["type"] for e in trace.events]
    assert types.count("validation_error") == 5
    assert "heuristic_fallback" in types and "decision_auto_filled" in types
    rec = trace.final_state["rounds"][0]
    assert rec["fallback"] == [False, True] and rec["purchases"][1] == {}
    assert trace.metrics["fallback_rounds"] == 1
    assert trace.metrics["detail"]["rounds"] == 0  # the fallback round is left out


def test_usage_lands_in_trace() -> None:
    trace = _llm_game([env("deal", {"stone": 9})], [env("ok", {"gold": 6})])
    assert trace.usage["A"].calls == 1 and trace.usage["total"].calls == 2
    assert trace.usage["total"].input_tokens > 0
