"""Reply parsing of the sorting game (MAS-Bench App. F.3): the commands in a model's reply,
the fallback for a failed model call, the check of a built action, and the harness replies
to a reply that could not be run.

`parse_fenced` takes every fenced block of a reply (the regex of App. F.3: an optional first
line is a language tag and is dropped, trailing newlines are stripped); each block is one
command, run by `commands.Dispatcher`.
"""

from __future__ import annotations

import re

from accord.core.errors import ActionError
from accord.core.spec import Action

MODEL_FAILED = (
    "The environment could not process that step: your model call failed, so nothing was "
    "run. Write your commands again in this turn."
)
"""Reply after a failed model call (App. F.3, mu_err)."""
NO_COMMAND = (
    "No command found in your last reply, so nothing was run. Put each command in its own "
    "``` fenced code block: three backticks on a line, the command on the next line, three "
    "backticks on the line after it."
)
"""Reply to a reply without any fenced block (App. F.3, mu_noCmd)."""
UNCLOSED_FENCE = (
    " Your reply opened a ``` fence that was never closed: a block only counts once its "
    "closing ``` is written."
)
"""Added to `NO_COMMAND` when the reply has an odd number of fences."""

_FENCE = re.compile(r"```(?:[^\n`]*\n)?(.*?)```", re.S)


def parse_fenced(text: str) -> list[str]:
    """Every fenced block of `text`, in order, language tag dropped, trailing newlines cut.

    The App. F.3 regex, non-greedy across lines: an unterminated fence yields nothing, and a
    one-line block whose content is followed by a newline loses that line as a "tag".
    """
    return [body for _, body in parse_blocks(text)]


def parse_blocks(text: str) -> list[tuple[str, str]]:
    """Like `parse_fenced`, keeping each block's dropped tag line: ``(tag, command)`` pairs.

    The tag does not change what runs (App. F.3 drops it); it lets the reply explain a block
    whose command was written on the opening fence line and so read as a tag.
    """
    out = []
    for m in _FENCE.finditer(text):
        opening = m.group(0)[3:]
        tag = opening.split("\n", 1)[0] if "\n" in opening else ""
        out.append((tag.strip(), m.group(1).rstrip("\n")))
    return out


def no_command_reply(text: str) -> str:
    """The reply to a reply without any complete block (App. F.3, mu_noCmd), with the reason
    when a fence was opened and never closed."""
    return NO_COMMAND + (UNCLOSED_FENCE if text.count("```") % 2 else "")


def parse_reply(text: str) -> Action:
    """Model text -> action. Never fails: a reply without commands is answered by the game."""
    blocks = parse_blocks(text)
    return {"text": text, "commands": [b for _, b in blocks], "tags": [t for t, _ in blocks]}


def model_failed() -> Action:
    """The fallback action: the model call failed (answered with the App. F.3 error reply)."""
    return {"failed": True}


def validate_action(action: Action) -> Action:
    """Check an action built by a reference agent or a person."""
    if not isinstance(action, dict):
        raise ActionError('an action must be a dict such as {"commands": ["wait"]}')
    commands = action.get("commands")
    if commands is not None and (
        not isinstance(commands, list) or not all(isinstance(c, str) for c in commands)
    ):
        raise ActionError('"commands" must be a list of command strings')
    text = action.get("text")
    if text is not None and not isinstance(text, str):
        raise ActionError('"text" must be the reply text (a string)')
    if commands is None and text is None and not action.get("failed"):
        raise ActionError('an action needs "text" (a reply) or "commands" (a list of commands)')
    return action


def render_blocks(commands: list[str]) -> str:
    """Commands written as the fenced blocks a model would produce."""
    return "\n".join(f"```\n{c}\n```" for c in commands)
