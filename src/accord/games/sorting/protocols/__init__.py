"""Reference (non-LLM) agents of the sorting game.

MAS-Bench defines no scripted protocol; these are ours. They act through the same command
surface as a model (commands in an action) and read only their own replies, so they prove every
backend is solvable and give a floor on R and on communication volume.

- ``share-all``: everyone shares their whole list, then each agent computes the answer for its
  own index (ownership by agent id, the paper's convention) and submits once. Round 1 shares
  (broadcast one message / send one to every other agent / write ``list_agent_<i>``) and, on the
  messaging backends, already collects what lower ids sent; round 2 collects the rest; round 3
  submits. One agent alone submits in round 1. Every backend, task and mode ends with SR = 1 in
  3 rounds per phase; in the verification phase it simply runs again.
- ``local-sort``: no communication; submits its own list sorted (or its own maximum / its own
  prefix sums) in round 1. Right only by luck (e.g. the ``asc`` family): a no-coordination floor.

Shared lists use the wording of the prompt's example (``Agent-3 here. My list: [..]``), so a
model partner can read them and a model that follows the example is understood.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

from accord.agents.base import Agent, Recorder, no_record
from accord.core.spec import Action, Request
from accord.games.sorting.commands import format_list

_LIST = re.compile(r"Agent-(\d+) here\. My list: \[([-\d,\s]*)\]")


def list_message(agent: int, values: Sequence[int]) -> str:
    """How the reference agents share a list."""
    return f"Agent-{agent} here. My list: {format_list(values)}"


def list_key(agent: int) -> str:
    """The K-V key under which an agent's list is shared."""
    return f"list_agent_{agent}"


def read_lists(text: str) -> dict[int, list[int]]:
    """Every shared list found in `text`, by agent id."""
    return {
        int(m.group(1)): [int(v) for v in re.findall(r"-?\d+", m.group(2))]
        for m in _LIST.finditer(text)
    }


def answer(task: str, agent: int, k: int, lists: Sequence[Sequence[int]]) -> list[int]:
    """The submission for `agent` once every list (in agent order) is known."""
    flat = [v for seg in lists for v in seg]
    if task == "max":
        return [max(flat)]
    if task == "prefix_sum":
        return list(accumulate(flat))[agent * k : (agent + 1) * k]
    return sorted(flat)[agent * k : (agent + 1) * k]


def _submit(values: Sequence[int]) -> Action:
    return {"commands": [f"submit_result {format_list(values)}"]}


class ShareAllAgent(Agent):
    """Share everything, own the slice at your own index, submit once (see module docstring)."""

    spec = "share-all"

    def __init__(self) -> None:
        super().__init__()
        self._known: dict[int, list[int]] = {}
        self._shared = False

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        info: dict[str, Any] = request.info
        me, n = int(info["agent"]), int(info["n"])
        # A new phase starts from a fresh environment; a seat taken over mid-game (a fork)
        # starts from its own list and reads what it can still reach.
        if info["round"] == 1 or me not in self._known:
            self._known = {me: list(info["xs"])}
            self._shared = False
        for reply in info["replies"]:
            data = reply["data"]
            for msg in data.get("messages", []):
                self._known.update(read_lists(msg["body"]))
            if "content" in data:
                self._known.update(read_lists(data["content"]))
        if len(self._known) == n:
            lists = [self._known[j] for j in range(n)]
            return _submit(answer(info["task"], me, int(info["k"]), lists))
        backend = info["backend"]
        commands: list[str] = []
        if not self._shared:
            self._shared = True
            text = list_message(me, info["xs"])
            if backend == "broadcast":
                commands.append(f"broadcast_message {text}")
            elif backend == "p2p":
                commands += [f"send_message {j} {text}" for j in range(n) if j != me]
            else:
                # Nobody else has written yet when we first act; read from the next round on.
                return {"commands": [f"write_file {list_key(me)}\n{text}"]}
        if backend == "kv":
            commands += [f"read_file {list_key(j)}" for j in range(n) if j not in self._known]
        else:
            commands.append("receive_messages")
        return {"commands": commands}


class LocalSortAgent(Agent):
    """Never communicates: submits what its own list alone suggests, at once."""

    spec = "local-sort"

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        info = request.info
        xs: list[int] = list(info["xs"])
        if info["task"] == "max":
            return _submit([max(xs)])
        if info["task"] == "prefix_sum":
            return _submit(list(accumulate(xs)))
        return _submit(sorted(xs))


REFERENCE_AGENTS: dict[str, Callable[[], Agent]] = {
    "share-all": ShareAllAgent,
    "local-sort": LocalSortAgent,
}
