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

`form` may name one of the page's own control sets (the built-in games' slot tables, market
and command lists) or, as a game from another package does, declare its controls as *fields*
(`fields_form` with `choice`, `number`, `text`, `check`, `note`): the page draws any such
form without code of its own, and `read_fields` checks the values that come back against the
same declaration before `build` writes the reply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.core.errors import ActionError
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


# -- controls declared as fields: drawn by the page whatever the game -----------------------

FIELDS = "fields"
"""The control set of a form made of declared fields (`fields_form`)."""

Field = dict[str, Any]
"""One declared control (JSON-able): ``kind``, ``name``, ``label`` and the kind's limits."""

MAX_CHOICES = 200
"""Most options a `choice` may offer (the page draws them all)."""


def choice(
    name: str, label: str, options: Sequence[tuple[int | str, str]], *, default: object = None
) -> Field:
    """Pick one of `options` (value, text shown); a few are drawn as radio buttons, more as a
    list. Its value comes back as the chosen option's value, or None when none is picked."""
    if not options or len(options) > MAX_CHOICES:
        raise ValueError(f"a choice offers 1 to {MAX_CHOICES} options, not {len(options)}")
    items = [{"value": v, "text": t} for v, t in options]
    return {"kind": "choice", "name": name, "label": label, "options": items, "default": default}


def number(
    name: str,
    label: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    default: int | None = None,
) -> Field:
    """A whole number within `minimum`..`maximum` (either may be open); None when left empty."""
    return {
        "kind": "number",
        "name": name,
        "label": label,
        "min": minimum,
        "max": maximum,
        "default": default,
    }


def text(name: str, label: str, *, max_chars: int = 2000, lines: int = 1) -> Field:
    """Free text of at most `max_chars` characters, on `lines` lines."""
    return {"kind": "text", "name": name, "label": label, "max": max_chars, "lines": lines}


def check(name: str, label: str, *, default: bool = False) -> Field:
    """A box to tick: True or False."""
    return {"kind": "check", "name": name, "label": label, "default": default}


def note(label: str) -> Field:
    """Text shown among the controls (what the seat may know), with no value."""
    return {"kind": "note", "name": "", "label": label}


def fields_form(fields: Sequence[Field], *, title: str | None = None) -> dict[str, Any]:
    """A `ControlsForm` result the page draws field by field, whatever the game."""
    names = [f["name"] for f in fields if f["kind"] != "note"]
    if len(set(names)) != len(names):
        raise ValueError(f"field names must differ: {names}")
    return {"game": FIELDS, "title": title, "fields": list(fields)}


def read_fields(fields: Sequence[Field], values: Mapping[str, Any]) -> dict[str, Any]:
    """The page's `values` checked against the declared `fields`: name -> value (None for an
    empty choice or number). Raises ActionError naming the field and what to change."""
    out: dict[str, Any] = {}
    for f in fields:
        kind, name, label = f["kind"], f["name"], f["label"]
        if kind == "note":
            continue
        value = values.get(name)
        if kind == "choice":
            allowed = [o["value"] for o in f["options"]]
            if value is not None and value not in allowed:
                raise ActionError(f"{label}: pick one of the options shown")
        elif kind == "number":
            if value in (None, ""):
                value = None
            elif isinstance(value, bool) or not isinstance(value, int):
                raise ActionError(f"{label}: give a whole number")
            elif f["min"] is not None and value < f["min"]:
                raise ActionError(f"{label}: give {f['min']} or more")
            elif f["max"] is not None and value > f["max"]:
                raise ActionError(f"{label}: give {f['max']} or less")
        elif kind == "text":
            value = "" if value is None else value
            if not isinstance(value, str):
                raise ActionError(f"{label}: write text")
            if len(value) > f["max"]:
                raise ActionError(f"{label}: at most {f['max']} characters ({len(value)} now)")
        elif kind == "check":
            value = bool(value)
        out[name] = value
    return out
