"""Per-game replay views: what a game shows at each step of a finished trace.

A game declares its view with ``Game.replay_module`` (a module holding
``replay(trace) -> Replay``); a game that declares none keeps the web view's generic event
timeline. The view is a list of *frames* in a small vocabulary every front end draws alike, so
a game from another package gets a replay page without front-end code:

- ``grid``: rows of labelled cells (``{"text", "tone", "note", "overlay"}``), e.g. one row per
  agent and one column per calendar slot;
- ``facts``: labelled values (``{"label", "value", "tone"}``);
- ``messages``: who said what to whom (``{"from", "to", "text", "current"}``).

`tone` is one of `TONES` (the page colours cells by it); `overlay` is a second text drawn on
top of a cell when the page's overlay is switched on (the oracle's schedule, say).

The same module may declare ``seat_frame(request) -> Frame | None``: the view a person playing
that seat in the browser sees above their controls (`seat_frame_of`). It is built from the
seat's own `Request` only, so it can show nothing the rules keep from that seat.

A `Replay` holds one step per trace event, each naming its frame and its *mark* (a number that
never decreases: the round, say), so two games of one scenario can be stepped side by side
round by round (`align`). Consecutive equal frames are stored once.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from accord.core.errors import ConfigError

if TYPE_CHECKING:
    from accord.core.spec import Request
    from accord.traces.schema import Trace

TONES = frozenset(
    {"free", "busy", "blocked", "meeting", "current", "moved", "new", "good", "bad", "muted"}
)
"""Cell and value tones the page knows how to draw."""

Frame = dict[str, Any]
Panel = dict[str, Any]
Tone = Literal[
    "free", "busy", "blocked", "meeting", "current", "moved", "new", "good", "bad", "muted"
]


def cell(
    text: str, tone: Tone | None = None, note: str | None = None, overlay: str | None = None
) -> dict[str, Any]:
    """One grid cell: its text, tone, a longer note (shown on hover) and an overlay text."""
    out: dict[str, Any] = {"text": text}
    if tone is not None:
        out["tone"] = tone
    if note:
        out["note"] = note
    if overlay:
        out["overlay"] = overlay
    return out


def grid(
    title: str, columns: Sequence[str], rows: Sequence[tuple[str, Sequence[dict[str, Any]]]]
) -> Panel:
    """A table of cells: `columns` name the columns, each row is (label, cells)."""
    return {
        "kind": "grid",
        "title": title,
        "columns": list(columns),
        "rows": [{"label": label, "cells": list(cells)} for label, cells in rows],
    }


def facts(title: str, items: Sequence[tuple[str, object] | tuple[str, object, Tone]]) -> Panel:
    """Labelled values; a third element gives the value's tone."""
    out = []
    for item in items:
        entry: dict[str, Any] = {"label": item[0], "value": item[1]}
        if len(item) > 2:
            entry["tone"] = item[2]
        out.append(entry)
    return {"kind": "facts", "title": title, "items": out}


def messages(title: str, items: Sequence[Mapping[str, Any]]) -> Panel:
    """Messages as ``{"from", "to", "text", "current"}`` (``to`` None: to everyone)."""
    return {"kind": "messages", "title": title, "items": [dict(m) for m in items]}


@dataclass
class Replay:
    """Frames and one step per trace event (built with `add`)."""

    frames: list[Frame] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)

    def add(self, frame: Frame, mark: int, label: str) -> None:
        """The next event's frame, its mark (never below the previous one) and a short label."""
        if self.steps and mark < self.steps[-1]["mark"]:
            mark = self.steps[-1]["mark"]
        if not self.frames or self.frames[-1] != frame:
            self.frames.append(frame)
        self.steps.append({"frame": len(self.frames) - 1, "mark": mark, "label": label})

    def as_dict(self) -> dict[str, Any]:
        """The JSON the web view draws."""
        return {"frames": self.frames, "steps": self.steps}


def replay_of(game_cls: type[Any], trace: Trace) -> dict[str, Any] | None:
    """The replay of `trace` by the view `game_cls` declares; None when it declares none.

    Raises ConfigError when the view cannot read this trace (a trace edited by hand, say), so
    the page can say so and keep its timeline.
    """
    name = getattr(game_cls, "replay_module", None)
    if not name:
        return None
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        raise ConfigError(
            f"the replay view {name!r} of {trace.game_id} cannot be imported ({exc}); "
            "reinstall the game's package"
        ) from exc
    try:
        built: Replay = module.replay(trace)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(
            f"the {trace.game_id} replay view cannot read this trace ({type(exc).__name__}: "
            f"{exc}); its timeline below still shows every event"
        ) from exc
    if len(built.steps) != len(trace.events):
        raise ConfigError(
            f"the {trace.game_id} replay view gave {len(built.steps)} steps for "
            f"{len(trace.events)} events; report this as a bug of the game's view"
        )
    return built.as_dict()


def seat_frame_of(game_cls: type[Any], request: Request) -> Frame | None:
    """The frame the view `game_cls` declares shows a person at `request.seat` (its
    ``seat_frame``), or None when it declares none or cannot draw this request."""
    name = getattr(game_cls, "replay_module", None)
    if not name:
        return None
    try:
        draw = getattr(importlib.import_module(name), "seat_frame", None)
    except ImportError:
        return None
    if draw is None:
        return None
    try:
        frame: Frame | None = draw(request)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        return None  # the controls below still say everything the seat needs
    return frame


def align(marks_a: Sequence[int], marks_b: Sequence[int]) -> list[tuple[int, int]]:
    """Step pairs (a, b) that walk two games side by side, mark by mark (round by round).

    Within a mark both games step together; the shorter one waits on its last step of that
    mark (or its last step before it, when it has none there) while the other goes on.
    Every step of each game appears, in order.
    """
    if not marks_a or not marks_b:
        return []
    pairs: list[tuple[int, int]] = []
    i = j = 0
    for mark in sorted(set(marks_a) | set(marks_b)):
        na = _run_length(marks_a, i, mark)
        nb = _run_length(marks_b, j, mark)
        for n in range(max(na, nb)):
            a = i + min(n, na - 1) if na else max(i - 1, 0)
            b = j + min(n, nb - 1) if nb else max(j - 1, 0)
            pairs.append((a, b))
        i += na
        j += nb
    return pairs


def _run_length(marks: Sequence[int], start: int, mark: int) -> int:
    """How many steps from `start` on carry `mark` (marks never decrease)."""
    n = 0
    while start + n < len(marks) and marks[start + n] == mark:
        n += 1
    return n
