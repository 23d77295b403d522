"""The command surface of each backend and what every command does (MAS-Bench App. F.3-F.4,
Table 5, App. D.1).

Agents act by writing plain-text commands in fenced code blocks, each block one command
(`actions.parse_fenced`, App. F.3). `Dispatcher.run` executes one command for one agent and
returns an `Outcome`: the reply the agent will read next round, whether it was communication
(for CR, §3.4 / App. C), and a submitted result if any.

Commands per backend (Table 5; the K-V store keeps file-system verbs, App. F.4):

- broadcast: ``receive_messages``, ``broadcast_message <text>``, ``list_agents``, ``wait``,
  ``submit_result <list>`` (also announces the result to every other agent).
- p2p: ``receive_messages``, ``send_message <to> <body>`` (refused once ``<to>`` has
  submitted: it is offline), ``wait``, ``submit_result <list>``.
- kv: ``list_files [prefix]``, ``read_file <key>``, ``write_file <key>`` + newline + value
  (multi-line, stored verbatim, overwrites), ``delete_file <key>``, ``wait``,
  ``submit_result <list>`` (also writes ``Agent-<i>_submission.txt``).

A command that does not follow its grammar is a bad argument: nothing changes and the reply
says what the right form is. An unknown verb gets its own reply. A block with a second command
on a later line (a line whose first word is a verb of the backend) runs nothing: a message or
file would otherwise swallow that command as text, and a ``wait`` would fail with "takes no
arguments"; the reply names the lines to split into their own blocks. The paper's Algorithm 2
dispatches such a block whole (``multi_command_block: whole``). Replies carry the
information of Table 5 in our own words.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from accord.games.sorting.backends import (
    BackendError,
    BroadcastStore,
    DirectStore,
    KeyValueStore,
    agent_name,
)

BackendKind = Literal["broadcast", "p2p", "kv"]
BACKENDS: tuple[BackendKind, ...] = get_args(BackendKind)

VERBS: dict[BackendKind, tuple[str, ...]] = {
    "broadcast": ("receive_messages", "broadcast_message", "list_agents", "wait", "submit_result"),
    "p2p": ("receive_messages", "send_message", "wait", "submit_result"),
    "kv": ("list_files", "read_file", "write_file", "delete_file", "wait", "submit_result"),
}
COMM_VERBS = frozenset(
    {
        "receive_messages",
        "broadcast_message",
        "send_message",
        "list_files",
        "read_file",
        "write_file",
        "delete_file",
    }
)
"""Message and file operations: their commands and replies count as communication (App. C)."""

PREVIEW_CHARS = 120
"""Characters of a written value echoed back by write_file (Table 5)."""
HEAD_CHARS = 80

_INT_LIST = re.compile(r"^\[?\s*(-?\d+(?:\s*[,\s]\s*-?\d+)*)?\s*,?\s*\]?$")


def head(command: str) -> str:
    """The first line of a command, shortened, to name it in replies and traces."""
    line = command.strip().split("\n", 1)[0].strip()
    return line if len(line) <= HEAD_CHARS else line[: HEAD_CHARS - 3] + "..."


def parse_int_list(text: str) -> list[int]:
    """``[1, 2, 3]``, ``1, 2, 3`` or ``1 2 3`` -> integers; raises `ValueError` otherwise."""
    m = _INT_LIST.match(text.strip())
    if m is None or m.group(1) is None:
        raise ValueError("expected a non-empty list of integers such as [3, 17, 42]")
    return [int(v) for v in re.findall(r"-?\d+", m.group(1))]


def format_list(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def submission_key(agent: int) -> str:
    """The marker file written on submission in the K-V store (Table 5)."""
    return f"{agent_name(agent)}_submission.txt"


@dataclass(frozen=True)
class Outcome:
    """What one command did.

    Attributes:
        command: the block as written.
        verb: its first word ("" for an empty block).
        ok: False for errors, unknown verbs and refused sends.
        reply: the text the agent reads at the start of its next round.
        comm: counts as communication (App. C): message and file operations.
        submitted: the result recorded by ``submit_result``.
        data: the reply's facts in structured form, for scripted agents.
    """

    command: str
    verb: str
    ok: bool
    reply: str
    comm: bool = False
    submitted: list[int] | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def as_event(self) -> dict[str, Any]:
        """JSON-able record for the trace."""
        out: dict[str, Any] = {"command": self.command, "ok": self.ok, "reply": self.reply}
        if self.submitted is not None:
            out["submitted"] = list(self.submitted)
        return out


Handler = Callable[[int, str, str, Sequence[bool]], Outcome]
"""``handler(agent, command, text after the verb, submitted flags) -> Outcome``."""


class _BadArgument(Exception):
    """A command that breaks its grammar; the message says the right form."""


def _no_args(verb: str, rest: str) -> None:
    if rest.strip():
        raise _BadArgument(f"{verb} takes no arguments")


class Dispatcher:
    """Executes commands for one backend over its store (Table 5)."""

    def __init__(self, kind: BackendKind, *, whole_blocks: bool = False) -> None:
        """`whole_blocks`: dispatch a block holding later command lines as one command, as
        the paper's Algorithm 2 does (``multi_command_block: whole``)."""
        if kind not in BACKENDS:
            raise ValueError(f"unknown backend {kind!r}; use one of {', '.join(BACKENDS)}")
        self.kind: BackendKind = kind
        self.whole_blocks = whole_blocks
        self.store: BroadcastStore | DirectStore | KeyValueStore
        if kind == "broadcast":
            self.store = BroadcastStore()
        elif kind == "p2p":
            self.store = DirectStore()
        else:
            self.store = KeyValueStore()
        self._handlers: dict[str, Handler] = {v: getattr(self, "_" + v) for v in VERBS[kind]}

    @property
    def verbs(self) -> tuple[str, ...]:
        return VERBS[self.kind]

    def reset(self, n: int) -> None:
        """A fresh environment with agents ``0 .. n-1`` (start of every phase)."""
        self.store.reset(n)

    def close(self) -> None:
        self.store.close()

    def run(self, agent: int, command: str, submitted: Sequence[bool], tag: str = "") -> Outcome:
        """Execute `command` for `agent`; `submitted[j]` says whether agent j has submitted.

        `tag` is the block's opening-fence line, dropped as a language tag (App. F.3); it only
        shapes the reply when it looks like a command.
        """
        text = command.lstrip()
        verb = text.split(None, 1)[0] if text.strip() else ""
        rest = text[len(verb) :]
        stowaways = [] if self.whole_blocks else self.later_commands(command)
        if verb not in self.verbs:
            shown = head(command) or "(empty block)"
            reply = f"Unknown command: {shown}. {self.hint(verb, tag)}"
            if stowaways:
                reply += " " + _split_hint(stowaways)
            return Outcome(command, verb, False, reply)
        if stowaways:
            reply = f"Nothing was run ({head(command)}): {_split_hint(stowaways, first=verb)}"
            return Outcome(command, verb, False, reply, comm=verb in COMM_VERBS)
        try:
            return self._handlers[verb](agent, command, rest, submitted)
        except (_BadArgument, BackendError, ValueError) as exc:
            reply = f"Command failed ({head(command)}): {exc}"
            return Outcome(command, verb, False, reply, comm=verb in COMM_VERBS)

    def later_commands(self, command: str) -> list[tuple[int, str]]:
        """(line number, line) for every line after the first that is a whole command of this
        backend (its verb with arguments of the right form): a second command written into
        the same block. A line of text that merely starts with a verb ("wait for my list") is
        not one."""
        lines = command.strip("\n").split("\n")
        return [
            (i, line.strip())
            for i, line in enumerate(lines[1:], start=2)
            if self._is_command(line.strip())
        ]

    def _is_command(self, line: str) -> bool:
        verb, _, rest = line.partition(" ")
        rest = rest.strip()
        if verb not in self.verbs:
            return False
        if verb in ("receive_messages", "list_agents", "wait"):
            return not rest
        if verb == "submit_result":
            try:
                parse_int_list(rest)
            except ValueError:
                return False
            return True
        if verb == "send_message":
            to, _, body = rest.partition(" ")
            return to.lstrip("-").isdigit() and bool(body.strip())
        if verb == "list_files":
            return len(rest.split()) <= 1
        if verb in ("read_file", "delete_file", "write_file"):
            return len(rest.split()) == 1
        return bool(rest)  # broadcast_message <text>

    def hint(self, verb: str, tag: str = "") -> str:
        """What to do after an unknown or empty command: the likely intended verb, the
        command-on-the-fence-line mistake, and this backend's verbs."""
        tag_verb = tag.split(None, 1)[0] if tag else ""
        known = f"The commands here are: {', '.join(self.verbs)}."
        if tag_verb in self.verbs:
            return (
                f"The block was empty: {tag!r} was written on the opening ``` line, which is "
                "read as a language tag and ignored. Write the command on its own line inside "
                f"the block:\n```\n{tag}\n```"
            )
        if not verb:
            return f"The block was empty: write one command inside it. {known}"
        lowered = {v.lower(): v for v in self.verbs}
        if verb.lower() in lowered:
            return f"Commands are lower case: did you mean {lowered[verb.lower()]}? {known}"
        others = [b for b, vs in VERBS.items() if verb in vs]
        if others:
            there = f"{verb} belongs to another backend ({others[0]}), not this one."
            if verb == "list_agents" and self.kind == "kv":
                names = _names([a for a, _ in self.store.agents()])
                there += (
                    f" The key-value store has no agent list: the agents are {names}, and "
                    "list_files shows what they have stored."
                )
            return f"{there} {known}"
        close = difflib.get_close_matches(verb, self.verbs, n=1, cutoff=0.6)
        close += [v for v in self.verbs if v.startswith(verb.lower() + "_")]
        close += [v for v in self.verbs if v == _SHELL.get(verb)]
        if close:
            return f"Did you mean {close[0]}? {known}"
        return (
            f"A block must hold exactly one command and nothing else (no code or comments). {known}"
        )

    # -- shared ------------------------------------------------------------------------------
    def _wait(self, agent: int, command: str, rest: str, submitted: Sequence[bool]) -> Outcome:
        _no_args("wait", rest)
        return Outcome(command, "wait", True, "OK, waited.")

    def _submit_result(
        self, agent: int, command: str, rest: str, submitted: Sequence[bool]
    ) -> Outcome:
        try:
            values = parse_int_list(rest)
        except ValueError as exc:
            raise _BadArgument(f"submit_result needs a list of integers: {exc}") from None
        shown = format_list(values)
        reply = f"Result recorded: {shown}."
        data: dict[str, Any] = {"values": values}
        store = self.store
        if isinstance(store, BroadcastStore):
            # Table 5: the submission is announced to everyone else automatically.
            to = store.broadcast(agent, f"{agent_name(agent)} submitted its result: {shown}")
            reply += " Announced to " + (_names(to) or "nobody") + "."
        elif isinstance(store, KeyValueStore):
            key = submission_key(agent)
            store.write(key, f"{agent_name(agent)} submitted {shown} and is now offline.")
            reply += f" Wrote file {key}."
            data["file"] = key
        return Outcome(command, "submit_result", True, reply, submitted=values, data=data)

    # -- messaging (broadcast and p2p) -------------------------------------------------------
    def _receive_messages(
        self, agent: int, command: str, rest: str, submitted: Sequence[bool]
    ) -> Outcome:
        _no_args("receive_messages", rest)
        store = self.store
        assert isinstance(store, BroadcastStore | DirectStore)
        msgs = store.receive(agent)
        how = "broadcast" if self.kind == "broadcast" else "to you"
        lines = [f"{agent_name(m.sender)} {how}: {m.body}" for m in msgs]
        reply = "\n".join(lines) if lines else "No new messages."
        data = {"messages": [{"from": m.sender, "body": m.body} for m in msgs]}
        return Outcome(command, "receive_messages", True, reply, comm=True, data=data)

    def _broadcast_message(
        self, agent: int, command: str, rest: str, submitted: Sequence[bool]
    ) -> Outcome:
        body = rest.strip()
        if not body:
            raise _BadArgument("broadcast_message needs the text to send after the command")
        store = self.store
        assert isinstance(store, BroadcastStore)
        to = store.broadcast(agent, body)
        reply = f"Sent to {_names(to)}." if to else "Sent to nobody: there are no other agents."
        data = {"to": to}
        return Outcome(command, "broadcast_message", True, reply, comm=True, data=data)

    def _list_agents(
        self, agent: int, command: str, rest: str, submitted: Sequence[bool]
    ) -> Outcome:
        _no_args("list_agents", rest)
        agents = self.store.agents()
        reply = "Registered agents: " + ", ".join(name for _, name in agents) + "."
        return Outcome(command, "list_agents", True, reply, data={"agents": [a for a, _ in agents]})

    def _send_message(
        self, agent: int, command: str, rest: str, submitted: Sequence[bool]
    ) -> Outcome:
        parts = rest.strip().split(None, 1)
        form = "send_message <to> <body>, e.g. send_message 2 hello"
        if len(parts) < 2 or not parts[1].strip():
            raise _BadArgument(f"expected {form}")
        try:
            to = int(parts[0])
        except ValueError:
            raise _BadArgument(f"<to> must be an agent id number; expected {form}") from None
        store = self.store
        assert isinstance(store, DirectStore)
        if 0 <= to < len(submitted) and submitted[to]:
            # App. E.3: refused at the harness layer, nothing is inserted.
            reply = f"Not delivered: {agent_name(to)} has already submitted and is offline."
            return Outcome(command, "send_message", False, reply, comm=True, data={"to": to})
        store.send(agent, to, parts[1].strip())
        reply = f"Delivered to {agent_name(to)}."
        return Outcome(command, "send_message", True, reply, comm=True, data={"to": to})

    # -- key-value store ---------------------------------------------------------------------
    def _kv(self) -> KeyValueStore:
        assert isinstance(self.store, KeyValueStore)
        return self.store

    def _list_files(
        self, agent: int, command: str, rest: str, submitted: Sequence[bool]
    ) -> Outcome:
        args = rest.split()
        if len(args) > 1:
            raise _BadArgument("list_files takes at most one argument, a key prefix")
        prefix = args[0] if args else ""
        rows = self._kv().list(prefix)
        lines = [f"id={r.id} key={r.key} length={r.length} updated=round {r.updated}" for r in rows]
        empty = f"No files with prefix {prefix!r}." if prefix else "No files."
        reply = "\n".join(lines) if lines else empty
        data = {"files": [r.key for r in rows]}
        return Outcome(command, "list_files", True, reply, comm=True, data=data)

    def _one_key(self, verb: str, rest: str) -> str:
        args = rest.split()
        if len(args) != 1:
            raise _BadArgument(f"expected {verb} <key> (one key, no spaces)")
        return args[0]

    def _read_file(self, agent: int, command: str, rest: str, submitted: Sequence[bool]) -> Outcome:
        key = self._one_key("read_file", rest)
        content = self._kv().read(key)
        reply = f"Content of {key}:\n{content}"
        data = {"key": key, "content": content}
        return Outcome(command, "read_file", True, reply, comm=True, data=data)

    def _write_file(
        self, agent: int, command: str, rest: str, submitted: Sequence[bool]
    ) -> Outcome:
        first, newline, value = rest.partition("\n")
        key = first.strip()
        form = "write_file <key> on the first line and the value on the lines below"
        if not key or len(key.split()) != 1:
            raise _BadArgument(f"expected {form}")
        if not newline:
            raise _BadArgument(f"the value is missing; expected {form}")
        existed = self._kv().write(key, value)
        how = "overwritten" if existed else "new file"
        preview = value[:PREVIEW_CHARS] + ("..." if len(value) > PREVIEW_CHARS else "")
        reply = f"Wrote {key} ({len(value)} chars, {how}). Preview: {preview}"
        return Outcome(command, "write_file", True, reply, comm=True, data={"key": key})

    def _delete_file(
        self, agent: int, command: str, rest: str, submitted: Sequence[bool]
    ) -> Outcome:
        key = self._one_key("delete_file", rest)
        self._kv().delete(key)
        return Outcome(command, "delete_file", True, f"Deleted {key}.", comm=True)


_SHELL = {"ls": "list_files", "cat": "read_file", "rm": "delete_file", "echo": "write_file"}
"""Shell habits on the key-value backend and the verbs they stand for."""


def _split_hint(stowaways: Sequence[tuple[int, str]], first: str = "") -> str:
    """What to say about a block holding more than one command."""
    where = "; ".join(f"line {i}: {head(line)}" for i, line in stowaways)
    lead = (
        f"this block holds {len(stowaways) + 1} commands ({first} and {where})"
        if first
        else (f"This block also holds commands ({where})")
    )
    return (
        f"{lead}. A block runs exactly one command; put each command in its own ``` block, "
        "in the order you want them run."
    )


def _names(agents: Sequence[int]) -> str:
    return ", ".join(agent_name(a) for a in agents)


def render_reply(outcome: Outcome) -> str:
    """One command's part of the next-round observation: its first line, then its reply."""
    return f"[{head(outcome.command) or '(empty block)'}]\n{outcome.reply}"


def render_replies(outcomes: Sequence[Outcome]) -> str:
    """The next-round observation: each command's reply, in the order they ran."""
    return "\n\n".join(render_reply(o) for o in outcomes)
