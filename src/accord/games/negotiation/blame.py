"""What `accord blame` needs of the negotiation game (`GameInfo.blame`).

Recovered: every round at the joint optimum M (seed 004 §3: efficiency 1 and the optimum
rate, §5.1). The counterfactual seat is the ``cooperative`` reference agent, which reaches a
joint optimum every round with a partner that shares its projects. A message is a turn's
speech; withholding it sends the same turn with no speech (the decision, if any, stays).
"""

from __future__ import annotations

from typing import Any

from accord.core.blame import Blame
from accord.traces.schema import Trace


def recovered(trace: Trace) -> bool:
    """Every round reached the joint optimum."""
    return trace.metrics.get("optimum_rate") == 1.0


def outcome(trace: Trace) -> float:
    """Efficiency: the joint reward over the oracle's, averaged over rounds (§3)."""
    value = trace.metrics.get("efficiency")
    return float(value) if isinstance(value, int | float) else 0.0


def silence(action: dict[str, Any]) -> dict[str, Any] | None:
    """The turn without its speech; None when it said nothing."""
    if not action.get("speech"):
        return None
    return {**action, "speech": ""}


BLAME = Blame(
    counterfactual="cooperative",
    recovered=recovered,
    outcome=outcome,
    silence=silence,
    what="recovered: every round at the joint optimum; outcome: efficiency",
)
