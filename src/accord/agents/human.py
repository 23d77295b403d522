"""A seat played by a person at the terminal (`accord play GAME`).

The person sees exactly what an LLM seat would see (system prompt once, then each
observation), preceded once by how to answer: the briefing is written for models ("reply with
JSON"), so the person is told up front which short commands the game takes. A typed line that
starts with ``{`` is a JSON reply and goes through the request's own parser, exactly as a
model's reply does: its private ``thinking`` stays private and is never delivered to anyone.
Any other line goes through the game's human adapter when it declares one (`GameInfo.human`:
short commands instead of JSON), else straight to the request's parser. A bad entry is
explained and asked again; nothing is lost. Typing ``/quit`` leaves the game (recorded as
failed). Each accepted answer records ``human_action`` with its response time in seconds
(``response_s``), also summed into the seat's ``latency_s``, as for people in the browser
(`accord.web.seat`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from accord.agents.base import Agent, Recorder, _no_record
from accord.core.errors import AccordError, ActionError
from accord.core.gameinfo import resolve_ref
from accord.core.registry import info_or_none
from accord.core.spec import Action, Request

HumanAdapter = Callable[[Request, str], Action]
"""Turns a typed line into an action for a request; raises `ActionError` with help text."""

HumanHelp = Callable[[Request], str]

_FROM_CODE: dict[str, tuple[HumanAdapter, HumanHelp]] = {}
"""Adapters registered from code (`register_human_adapter`); the others come from each game's
`GameInfo.human`."""


def register_human_adapter(game_id: str, adapter: HumanAdapter, help_text: HumanHelp) -> None:
    """Let people play `game_id` with short commands, from code (a game declares its own
    adapter in its `GameInfo`; this overrides it, e.g. in a notebook)."""
    _FROM_CODE[game_id] = (adapter, help_text)


def human_adapter(game_id: str) -> tuple[HumanAdapter, HumanHelp] | None:
    """The short-command adapter and its help line for `game_id`; None: JSON replies only."""
    if game_id in _FROM_CODE:
        return _FROM_CODE[game_id]
    info = info_or_none(game_id)
    seat = info.human if info is not None else None
    if seat is None or seat.adapter is None or seat.help is None:
        return None
    return resolve_ref(seat.adapter), resolve_ref(seat.help)


class HumanAgent(Agent):
    """A person at a terminal."""

    spec = "human"

    def __init__(
        self,
        game_id: str,
        *,
        console: Console | None = None,
        read: Callable[[str], str] = input,
    ) -> None:
        super().__init__()
        self.game_id = game_id
        self.console = console or Console()
        self._read = read
        self._shown_system: str | None = None
        self._told_syntax = False

    def _how_to_answer(self, request: Request) -> str:
        """The input syntax, said once before the first briefing."""
        adapter = human_adapter(self.game_id)
        lines = ["The briefing below is written for models; you may answer more simply."]
        if adapter is not None:
            lines.append(adapter[1](request))
        elif request.spec.format_hint:
            lines.append(request.spec.format_hint)
        lines += [
            "You may also paste a JSON reply in the briefing's format (a line starting with '{');",
            'it is read as a model\'s reply is, and its "thinking" is kept private.',
            "Type /quit to leave the game.",
        ]
        return "\n".join(lines)

    def _parse(self, request: Request, line: str) -> Action:
        """A typed line -> action: JSON through the model's parser, else the game's commands."""
        adapter = human_adapter(self.game_id)
        if adapter is None or line.lstrip().startswith("{"):
            return request.spec.parse(line)
        return adapter[0](request, line)

    async def act(self, request: Request, record: Recorder = _no_record) -> Action:
        c = self.console
        if not self._told_syntax:
            c.print(Panel(Text(self._how_to_answer(request)), title="How to answer"))
            self._told_syntax = True
        if request.system and (request.reset_context or request.system != self._shown_system):
            # Game text goes in as plain Text: rich would read "[r1]" as markup and drop it.
            c.print(Panel(Text(request.system), title=f"Your briefing (seat {request.seat})"))
            self._shown_system = request.system
        title = escape(f"{request.spec.kind} · round {request.round}")
        c.print(Panel(Text(request.observation), title=title))
        adapter = human_adapter(self.game_id)
        if adapter is not None:
            c.print(Text(adapter[1](request), style="dim"))
        asked = time.monotonic()
        while True:
            try:
                line = await asyncio.to_thread(self._read, "> ")
            except EOFError as exc:
                raise AccordError("the input ended before the game did") from exc
            if line.strip() == "/quit":
                raise AccordError("the person at the terminal left the game")
            try:
                action = self._parse(request, line)
            except ActionError as exc:
                record("validation_error", kind=request.spec.kind, error=str(exc), raw=line)
                c.print(Text.assemble(("Not valid: ", "red"), str(exc)))
                continue
            response_s = round(time.monotonic() - asked, 3)
            record("human_action", kind=request.spec.kind, response_s=response_s)
            self.usage.decisions += 1
            self.usage.latency_s += response_s
            return action
