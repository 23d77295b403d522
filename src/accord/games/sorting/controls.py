"""The sorting game's controls for a person in the browser (`accord serve --play`).

The person sees their own slice, the task and the replies to their last commands, and writes
commands by picking each one from their backend's command list (MAS-Bench Table 5) and
filling in its arguments. The commands become the fenced blocks a model writes (App. F.3) and
go through the request's own parser; what a command does is the game's, as for a model.

Checked as the person types, so nothing is sent that the game would refuse to run: a known
verb, its arguments present (a single-word key, a list of integers for ``submit_result``, an
agent id for ``send_message``), no ````` inside a command, and no line inside a message or
file value that starts with a verb (the game runs nothing from such a block).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.core.controls import PlayControls
from accord.core.errors import ActionError
from accord.core.spec import Action, Request
from accord.games.sorting.actions import render_blocks
from accord.games.sorting.commands import VERBS, parse_int_list

ARGS: dict[str, str] = {
    "receive_messages": "none",
    "list_agents": "none",
    "wait": "none",
    "broadcast_message": "text",
    "send_message": "to_text",
    "list_files": "prefix",
    "read_file": "key",
    "delete_file": "key",
    "write_file": "key_value",
    "submit_result": "list",
}
"""What each command takes after its verb (the page draws the matching inputs)."""

HELP: dict[str, str] = {
    "receive_messages": "read the messages sent to you since you last asked",
    "list_agents": "list every registered agent",
    "wait": "do nothing this round",
    "broadcast_message": "send a message to every other agent",
    "send_message": "send a message to one agent (refused once it has submitted)",
    "list_files": "list the keys in the shared store (optionally those starting with a prefix)",
    "read_file": "read the value stored under a key",
    "delete_file": "delete a key",
    "write_file": "store a value under a key (overwrites)",
    "submit_result": "submit your final list of integers (you are then offline)",
}
MAX_COMMANDS = 8
"""Commands one turn of the page holds (a model may write more; a person rarely needs to)."""


def form(request: Request) -> dict[str, Any]:
    """The seat's slice, the task and its backend's command list."""
    info = request.info
    backend = info["backend"]
    return {
        "game": "sorting",
        "round": info["round"],
        "max_rounds": info["max_rounds"],
        "task": info["task"],
        "backend": backend,
        "xs": list(info["xs"]),
        "submit_len": info["submit_len"],
        "agents": [a for a in range(info["n"]) if a != request.seat],
        "commands": [{"verb": v, "args": ARGS[v], "help": HELP[v]} for v in VERBS[backend]],
        "max_commands": MAX_COMMANDS,
    }


def _text(value: object, what: str, verbs: tuple[str, ...], where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ActionError(f"{where}: write the {what}")
    for line in value.splitlines()[1:] if what == "value" else value.splitlines():
        first = line.split(maxsplit=1)[0] if line.split() else ""
        if first in verbs:
            raise ActionError(
                f"{where}: a line of the {what} starts with the command {first!r}; reword it "
                "(the game would read it as a second command and run nothing)"
            )
    return value


def _command(raw: object, backend: str, agents: list[int], where: str) -> str:
    verbs = VERBS[backend]  # type: ignore[index]
    if not isinstance(raw, Mapping) or raw.get("verb") not in verbs:
        raise ActionError(f"{where}: pick a command from the list ({', '.join(verbs)})")
    verb = str(raw["verb"])
    kind = ARGS[verb]
    if kind == "none":
        command = verb
    elif kind == "text":
        command = f"{verb} {_text(raw.get('text'), 'message', verbs, where).strip()}"
    elif kind == "to_text":
        to = raw.get("to")
        if isinstance(to, bool) or not isinstance(to, int) or to not in agents:
            raise ActionError(f"{where}: choose who to send it to")
        command = f"{verb} {to} {_text(raw.get('text'), 'message', verbs, where).strip()}"
    elif kind == "list":
        try:
            values = parse_int_list(str(raw.get("text") or ""))
        except ValueError as exc:
            raise ActionError(f"{where}: {exc}") from None
        command = f"{verb} [{', '.join(str(v) for v in values)}]"
    else:
        key = str(raw.get("key") or "").strip()
        if kind != "prefix" and not key:
            raise ActionError(f"{where}: write the key")
        if len(key.split()) > 1:
            raise ActionError(f"{where}: a key is one word, without spaces")
        command = f"{verb} {key}".rstrip()
        if kind == "key_value":
            value = _text(raw.get("value"), "value", verbs, where)
            command = f"{command}\n{value.rstrip(chr(10))}"
    if "```" in command:
        raise ActionError(f"{where}: a command may not contain ```")
    return command


def build(request: Request, values: Mapping[str, Any]) -> Action:
    """``{"commands": [{"verb", ...}]}`` from the page -> the seat's action, through its
    parser."""
    raw = values.get("commands")
    if not isinstance(raw, list) or not raw:
        raise ActionError("add at least one command (wait, to do nothing this round)")
    if len(raw) > MAX_COMMANDS:
        raise ActionError(f"at most {MAX_COMMANDS} commands per turn")
    info = request.info
    agents = [a for a in range(info["n"]) if a != request.seat]
    commands = [_command(c, info["backend"], agents, f"command {i + 1}") for i, c in enumerate(raw)]
    action = request.spec.parse(render_blocks(commands))
    if action.get("commands") != commands:
        raise ActionError("a command could not be written as its own block; simplify it")
    return action


CONTROLS = PlayControls(form=form, build=build)
