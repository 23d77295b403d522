"""A person at the terminal plays sorting with the commands a model writes, one line per turn
(`accord play sorting`): ``submit_result 1 2 3``, or several commands joined by ``;``
(``receive_messages; broadcast_message 4 7 9``). Each command becomes one fenced block, the
reply format of MAS-Bench App. F.3, and goes through the request's own parser, so a person
meets exactly the rules a model meets. A line with its own ``` fences is parsed as it is.
Declared in this package's `INFO` (`accord.core.gameinfo.HumanSeat`).
"""

from __future__ import annotations

from accord.core.errors import ActionError
from accord.core.spec import Action, Request
from accord.games.sorting.actions import render_blocks
from accord.games.sorting.commands import VERBS

FENCE = "```"


def human_help(request: Request) -> str:
    """One line: the commands of the seat's backend and how to join them."""
    verbs = ", ".join(VERBS[request.info["backend"]])
    return f"Type commands separated by ';' (yours: {verbs}), e.g. 'submit_result 1 2 3'."


def human_adapter(request: Request, line: str) -> Action:
    """A typed line -> the seat's action: each ``;``-separated command as one fenced block."""
    if FENCE in line:
        return request.spec.parse(line)
    commands = [part.strip() for part in line.split(";") if part.strip()]
    if not commands:
        raise ActionError(f"type at least one command. {human_help(request)}")
    return request.spec.parse(render_blocks(commands))
