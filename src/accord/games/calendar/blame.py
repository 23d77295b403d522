"""What `accord blame` needs of the calendar game (`GameInfo.blame`).

Recovered: every meeting scheduled at the oracle's cost (CalBench §4.2: success rate 1 and
excess cost 0). The counterfactual seat is the ``oracle-follower`` team driver, which
proposes and accepts the oracle's schedule. A message is a turn's DMs and group-chat posts
(App. A.5); withholding it sends the same turn without them (its scheduling actions stay).
"""

from __future__ import annotations

from typing import Any

from accord.core.blame import Blame
from accord.traces.schema import Trace


def recovered(trace: Trace) -> bool:
    """Every meeting scheduled, at no cost above the oracle's."""
    m = trace.metrics
    return m.get("success_rate") == 1.0 and m.get("excess_cost") == 0.0


def outcome(trace: Trace) -> float:
    """Success rate minus adjusted excess cost (§4.2): 1 is the oracle's schedule."""
    success = trace.metrics.get("success_rate")
    excess = trace.metrics.get("adjusted_excess")
    s = float(success) if isinstance(success, int | float) else 0.0
    return s - (float(excess) if isinstance(excess, int | float) else 0.0)


def silence(action: dict[str, Any]) -> dict[str, Any] | None:
    """The turn without its messages; None when it sent none."""
    from accord.games.calendar.actions import MESSAGE_TYPES

    acts = action.get("actions")
    if not isinstance(acts, list):
        return None
    kept = [a for a in acts if not (isinstance(a, dict) and a.get("type") in MESSAGE_TYPES)]
    if len(kept) == len(acts):
        return None
    return {**action, "actions": kept}


BLAME = Blame(
    counterfactual="oracle-follower",
    recovered=recovered,
    outcome=outcome,
    silence=silence,
    what="recovered: every meeting scheduled at the oracle's cost; outcome: success rate "
    "minus adjusted excess",
)
