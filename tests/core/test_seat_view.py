"""`Game.seat_view`: what a seat may see of an event as it happens (people in the browser)."""

from __future__ import annotations

from accord.core.game import Game
from accord.core.registry import game_class


def test_the_default_shows_nothing() -> None:
    assert Game.seat_view(0, {"type": "message", "seat": 1, "speech": "hi"}) is None
    assert game_class("sorting").seat_view(0, {"type": "turn", "seat": 1, "text": "x"}) is None


def test_negotiation_shows_the_partners_delivered_speech_and_never_its_thinking() -> None:
    view = game_class("negotiation").seat_view
    message = {
        "type": "message",
        "round": 2,
        "seat": 1,
        "speech": "I need glass",
        "thinking": "they must not learn my budget",
        "delivered": True,
    }
    assert view(0, message) == {"from": 1, "text": "I need glass", "round": 2}
    assert view(1, message) is None  # one's own message is not news
    assert view(0, message | {"delivered": False}) is None
    assert view(0, {"type": "decision", "seat": 1, "purchase": {"r1": 3}}) is None
    assert view(0, {"type": "reflection", "seat": 1, "text": "private"}) is None


def test_calendar_shows_messages_to_the_seat_only() -> None:
    view = game_class("calendar").seat_view
    dm = {
        "type": "dm_sent",
        "round": 1,
        "sender": 0,
        "channel": "dm",
        "to": 2,
        "recipients": [2],
        "content": "slot 3?",
    }
    assert view(2, dm) == {"from": 0, "text": "slot 3?", "channel": "dm", "round": 1}
    assert view(1, dm) is None and view(0, dm) is None
    group = dm | {"type": "message", "channel": "participant_groupchat", "recipients": [1, 2]}
    assert view(1, group) is not None and view(2, group) is not None
    assert view(0, {"type": "turn_start", "agent": 1, "prompt": "Slot 0: Errand"}) is None
    assert view(0, {"type": "message_dropped", "agent": 1, "channel": "dm"}) is None
