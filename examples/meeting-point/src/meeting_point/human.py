"""A person plays meeting-point with short commands (`accord play meeting-point`), declared in
this package's `INFO`: while talking, the typed line is what they say; when deciding, the number
of the place they go to."""

from __future__ import annotations

from accord.core.errors import ActionError
from accord.core.spec import Action, Request


def help_line(request: Request) -> str:
    """One line telling the person what to type for `request`."""
    if request.spec.kind == "talk":
        return "Type what you say to your partner."
    return f"Type the number of the place you go to (0-{len(request.info['places']) - 1})."


def adapter(request: Request, line: str) -> Action:
    """A typed line -> the action `request` asks for (checked by the game's own rules)."""
    if request.spec.kind == "talk":
        action: Action = {"message": line.strip()}
    else:
        word = line.strip().removeprefix("go").strip()
        if not word.isdigit():
            raise ActionError(f"type a place number, e.g. 0 (got {line.strip()!r})")
        action = {"place": int(word)}
    check = request.spec.validate
    return check(action) if check is not None else action
