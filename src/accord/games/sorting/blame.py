"""What `accord blame` needs of the sorting game (`GameInfo.blame`).

Recovered: the task solved (MAS-Bench §3: every agent submitted its correct slice, success
1). The counterfactual seat is the ``share-all`` reference agent, which solves every task in
a team of its own kind. A message is a turn's sending commands (``broadcast_message``,
``send_message``, ``write_file``); withholding it sends the turn without them (``wait`` when
nothing else is left).
"""

from __future__ import annotations

from typing import Any

from accord.core.blame import Blame
from accord.traces.schema import Trace

SENDING = ("broadcast_message", "send_message", "write_file")
"""The verbs that put information where another agent can read it."""


def recovered(trace: Trace) -> bool:
    """The task was solved."""
    return trace.metrics.get("success") == 1.0


def outcome(trace: Trace) -> float:
    """SR, the share of agents whose submission was correct (§3)."""
    value = trace.metrics.get("sr")
    return float(value) if isinstance(value, int | float) else 0.0


def silence(action: dict[str, Any]) -> dict[str, Any] | None:
    """The turn without its sending commands; None when it sent nothing."""
    commands = action.get("commands")
    if not isinstance(commands, list):
        return None
    kept = [
        c
        for c in commands
        if not (isinstance(c, str) and c.split(None, 1)[:1] and c.split(None, 1)[0] in SENDING)
    ]
    if len(kept) == len(commands):
        return None
    return {**action, "commands": kept or ["wait"]}


BLAME = Blame(
    counterfactual="share-all",
    recovered=recovered,
    outcome=outcome,
    silence=silence,
    what="recovered: the task solved; outcome: SR",
)
