"""A game's own controls for a person playing in the browser (`accord serve --play`).

A model answers a request with text in the briefing's format (JSON with a private
``thinking``, fenced commands, ...). A person should not have to: a game declares how its
requests are shown as controls (slots to pick, quantities within a budget, commands from the
game's command list) and how the values of those controls become the action. The answer still
goes through the request's own parser, so a person meets exactly the rules a model meets and
a bad answer gets the parser's own message.

A game declares its controls once, next to its terminal human adapter, in its `GameInfo`::

    human=HumanSeat(adapter=..., help=..., controls=PlayControls(form=my_form, build=my_build))

(`register_play_controls(game_id, controls)` sets them from code.)

A game that declares none is played through a form built from the request's JSON schema.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from accord.core.spec import Action, Request

ControlsForm = Callable[[Request], dict[str, Any]]
"""A request -> what the page needs to draw the game's controls (JSON-able; a ``"game"`` key
names the control set the page draws). Only what the seat may know: the request's own text
and `Request.info`, never another seat's private information."""

ControlsBuild = Callable[[Request, Mapping[str, Any]], Action]
"""A request and the controls' values (as the page sent them) -> the action, through the
request's own parser; raises `accord.core.errors.ActionError` saying what to change."""


@dataclass(frozen=True)
class PlayControls:
    """How a person answers a game's requests in the browser."""

    form: ControlsForm
    build: ControlsBuild


_CONTROLS: dict[str, PlayControls] = {}
"""Controls registered from code; the others come from each game's `GameInfo.human`."""


def register_play_controls(game_id: str, controls: PlayControls) -> None:
    """Let people play `game_id` in the browser with these controls (from code)."""
    _CONTROLS[game_id] = controls


def play_controls(game_id: str) -> PlayControls | None:
    """The controls `game_id` declared, or None (the page then builds a form from the
    request's JSON schema)."""
    if game_id in _CONTROLS:
        return _CONTROLS[game_id]
    from accord.core.gameinfo import resolve_ref
    from accord.core.registry import info_or_none

    info = info_or_none(game_id)
    if info is None or info.human.controls is None:
        return None
    return resolve_ref(info.human.controls)
