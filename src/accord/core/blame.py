"""What `accord blame` needs to know about a game (`GameInfo.blame`).

Blame forks a finished game at each decision point, once with a *counterfactual seat* (an
agent that plays well) taking over the seat that decided there, and once with that decision's
message withheld, and plays each fork to the end. A game declares what "plays well" and
"recovered" mean for it, and how to take the message out of an action; everything else
(finding the decision points, forking, the statistics) is the same for every game
(`accord.analysis.blame`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accord.traces.schema import Trace

Action = dict[str, Any]


def _no_message(action: Action) -> Action | None:
    return None


@dataclass(frozen=True)
class Blame:
    """A game's declaration for `accord blame`."""

    counterfactual: str
    """The reference agent that takes over a seat at a fork: the game's oracle-follower or
    its best reference agent (a person may name another agent instead)."""
    recovered: Callable[[Trace], bool]
    """Whether a finished game reached the oracle's outcome (or the game's declared
    threshold). Complete games where this is False are the ones blamed by default."""
    outcome: Callable[[Trace], float]
    """The number a message's value is measured in (higher is better): the outcome with the
    message minus the outcome without it."""
    silence: Callable[[Action], Action | None] = _no_message
    """The same action with its message taken out, or None when the action sends none (then
    the decision has no message to withhold)."""
    what: str = ""
    """One line saying what `recovered` and `outcome` are, for reports and ``--help``."""
