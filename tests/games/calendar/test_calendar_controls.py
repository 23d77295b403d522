"""A person's browser controls for the calendar game (`accord.games.calendar.controls`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accord.core.controls import play_controls
from accord.core.errors import ActionError
from accord.core.game import Game
from accord.core.registry import make
from accord.core.spec import Request
from accord.games.calendar.controls import build, form


def _until(game: Game, want: Callable[[Request], bool]) -> Request:
    """Play every seat's fallback until a request `want` accepts is pending."""
    for _ in range(500):
        for req in game.pending():
            if want(req):
                return req
        for req in game.pending():
            assert req.spec.fallback is not None
            game.submit(req.seat, req.spec.fallback())
    raise AssertionError("no such request came up")


def _game(**options: object) -> Game:
    game = make("calendar", dict(options))
    game.reset(0)
    return game


def test_the_calendar_game_declares_its_controls() -> None:
    controls = play_controls("calendar-v2")
    assert controls is not None and controls.build is build


def test_talk_shows_the_own_calendar_and_the_calls_of_the_phase() -> None:
    req = _game().pending()[0]
    shown = form(req)
    assert shown["game"] == "calendar" and shown["phase"] == "CHEAP_TALK"
    assert shown["calls"] == ["dm"]  # the default game has DMs only
    assert shown["agents"] == [a for a in range(3) if a != req.seat]
    own = req.info["calendar"]
    assert [s["free"] for s in shown["slots"]] == [item is None for item in own]
    assert [s.get("id") for s in shown["slots"]] == [i and i["id"] for i in own]
    assert "thinking" not in str(shown)


def test_messages_become_the_models_reply_through_its_parser() -> None:
    req = _game().pending()[0]
    to = form(req)["agents"][0]
    action = build(req, {"calls": [{"type": "dm", "to": to, "content": " slot 2? "}]})
    assert action["thinking"] == ""
    assert action["actions"] == [{"type": "dm", "to": to, "content": "slot 2?"}]
    assert build(req, {"calls": []})["actions"] == []


@pytest.mark.parametrize(
    ("calls", "needle"),
    [
        ([{"type": "dm", "to": 1, "content": ""}], "fill in content"),
        ([{"type": "dance"}], "choose what to do"),
        ([{"type": "all_groupchat", "content": "hi"}], "not available in this game"),
        ([{"type": "schedule", "slot": 1}], "only valid in the DECISION phase"),
        ([{"type": "dm", "to": 99, "content": "hi"}], "must be another agent"),
        ("nope", "list of"),
    ],
)
def test_a_bad_answer_says_what_to_change(calls: object, needle: str) -> None:
    req = _game().pending()[0]
    with pytest.raises(ActionError, match=needle):
        build(req, {"calls": calls})


def test_the_decision_places_the_meeting_and_moves_errands() -> None:
    game = _game()
    req = _until(game, lambda r: r.info["phase"] == "DECISION" and r.info["is_participant"])
    shown = form(req)
    assert set(shown["calls"]) == {"schedule", "reschedule"}
    movable = [s for s in shown["slots"] if s.get("movable")]
    free = [s["slot"] for s in shown["slots"] if s["free"]]
    calls = [{"type": "schedule", "slot": free[0]}]
    if movable:
        m = movable[0]
        calls.append(
            {
                "type": "reschedule",
                "item_id": m["id"],
                "from_slot": m["slot"],
                "to_slot": free[-1],
                "justification": "frees the slot",
            }
        )
    action = build(req, {"calls": calls})
    meeting = req.info["meeting"]["id"]
    assert action["actions"][0] == {"type": "schedule", "meeting_id": meeting, "slot": free[0]}
    assert len(action["actions"]) == len(calls)
    with pytest.raises(ActionError, match="fill in justification"):
        build(req, {"calls": [{**calls[-1], "type": "reschedule", "justification": ""}]})


def test_the_reflection_takes_a_number_per_slot_of_each_other_agent() -> None:
    game = _game(reflection=True)
    req = _until(game, lambda r: r.info["phase"] == "REFLECTION")
    shown = form(req)
    assert shown["targets"] == req.info["targets"] and shown["max"] == 3
    zeros = {str(t): [0] * shown["num_slots"] for t in shown["targets"]}
    assert build(req, {"deltas": zeros})["deltas"] == zeros
    with pytest.raises(ActionError):
        build(req, {"deltas": {str(t): [9] for t in shown["targets"]}})


def test_a_batch_that_breaks_the_rules_is_refused_as_typed_with_the_conflict() -> None:
    game = _game()
    req = _until(game, lambda r: r.info["phase"] == "DECISION" and r.info["is_participant"])
    slots = form(req)["slots"]
    taken = next(s for s in slots if not s["free"])
    with pytest.raises(ActionError, match=f"schedule slot {taken['slot']} is not free"):
        build(req, {"calls": [{"type": "schedule", "slot": taken["slot"]}]})
    free = next(s for s in slots if s["free"])
    with pytest.raises(ActionError, match="Expected exactly 1 schedule action, got 2"):
        build(req, {"calls": [{"type": "schedule", "slot": free["slot"]}] * 2})
    # Not scheduling stays possible: the game records it as a batch without a schedule.
    assert build(req, {"calls": []})["actions"] == []
    # The engine agrees with what the controls accept: the valid batch is staged.
    ok = build(req, {"calls": [{"type": "schedule", "slot": free["slot"]}]})
    game.submit(req.seat, ok)
    staged = [e for e in game.drain_events() if e["type"] == "batch_staged"]
    assert staged and staged[-1]["agent"] == req.seat
