"""A person's browser controls for the negotiation game (`accord.games.negotiation.controls`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accord.core.controls import play_controls
from accord.core.errors import ActionError
from accord.core.game import Game
from accord.core.registry import make
from accord.core.spec import Request
from accord.games.negotiation.controls import build, form


def _until(game: Game, want: Callable[[Request], bool]) -> Request:
    """Play every seat's fallback until a request `want` accepts is pending."""
    for _ in range(200):
        for req in game.pending():
            if want(req):
                return req
        for req in game.pending():
            assert req.spec.fallback is not None
            game.submit(req.seat, req.spec.fallback())
    raise AssertionError("no such request came up")


def _request(phase: str, **options: object) -> Request:
    game = make("negotiation", {"rounds": 1, **options})
    game.reset(5)
    return _until(game, lambda r: r.info["phase"] == phase)


def _affordable(shown: dict) -> dict[str, int]:  # type: ignore[type-arg]
    """The most of the cheapest resource the budget buys."""
    cheap = min(shown["resources"], key=lambda r: r["cost"])
    return {cheap["name"]: int(shown["budget"] // cheap["cost"])}


def test_the_negotiation_game_declares_its_controls() -> None:
    controls = play_controls("negotiation-v3")
    assert controls is not None and controls.form is form


def test_the_form_shows_the_market_budget_and_own_projects() -> None:
    req = _request("talk")
    shown = form(req)
    market, names = req.info["market"], req.info["names"]
    assert shown["budget"] == market.budget and shown["max_types"] == market.max_types
    assert [r["name"] for r in shown["resources"]] == list(names.values())
    assert [r["max"] for r in shown["resources"]] == [
        int(market.budget // market.costs[r]) for r in names
    ]
    assert [p["name"] for p in shown["projects"]] == [p.name for p in req.info["projects"]]
    assert shown["speech"] == "required" and shown["may_decide"] and not shown["must_decide"]
    assert "thinking" not in str(shown)


def test_talk_sends_a_message_and_may_decide() -> None:
    req = _request("talk")
    said = build(req, {"speech": "shall we split?", "decide": False})
    assert said["speech"] == "shall we split?" and said["decision"] is None
    assert said["thinking"] == ""
    shown = form(req)
    want = _affordable(shown)
    decided = build(req, {"speech": "deal", "decide": True, "purchase": want})
    by_name = {v: k for k, v in req.info["names"].items()}
    assert decided["decision"]["purchase"] == {by_name[n]: q for n, q in want.items()}
    with pytest.raises(ActionError, match="write a message"):
        build(req, {"speech": "  ", "decide": False})


def test_a_purchase_over_budget_or_types_is_refused_with_the_rules_words() -> None:
    req = _request("decide")
    shown = form(req)
    assert shown["must_decide"]
    over = {r["name"]: r["max"] + 1 for r in shown["resources"][:1]}
    with pytest.raises(ActionError, match="exceeds your budget"):
        build(req, {"speech": "x", "purchase": over})
    every = {r["name"]: 1 for r in shown["resources"]}
    with pytest.raises(ActionError, match="resource types"):
        build(req, {"speech": "x", "purchase": every})
    with pytest.raises(ActionError, match="whole number"):
        build(req, {"speech": "x", "purchase": {shown["resources"][0]["name"]: -1}})
    project = shown["projects"][0]["name"]
    with pytest.raises(ActionError, match="cannot cover"):
        build(req, {"speech": "x", "purchase": {}, "runs": {project: 1}})


def test_the_plain_format_sends_a_decision_alone() -> None:
    req = _request("decide", thinking=False)
    shown = form(req)
    assert shown["speech"] == "none"
    action = build(req, {"purchase": _affordable(shown)})
    assert action["decision"]["purchase"] and action["speech"] == ""
    talk = _request("talk", thinking=False)
    assert form(talk)["speech"] == "alone"
    assert build(talk, {"speech": "hello"})["speech"] == "hello"
    with pytest.raises(ActionError, match="may not start"):
        build(talk, {"speech": '{"a": 1}'})


def test_the_reflection_is_a_text() -> None:
    req = _request("reflect")
    assert form(req) == {"game": "negotiation", "phase": "reflect", "text_max": 600}
    assert build(req, {"text": " it went well "})["reflection"] == "it went well"
    with pytest.raises(ActionError, match="reflection"):
        build(req, {"text": ""})
