"""Power from the variance that matters: `accord plan --from` on a pilot.

A paired comparison's power rests on the spread of the *paired differences* d = b - a over
scenarios, not on the spread of either arm's games. So:

* **Both arms in the pilot** (two runs, ``--from A --from B``, or one run with ``--a``/``--b``
  selections): the games are paired exactly as `accord compare` pairs them
  (`accord.analysis.paired_match`) and the plan uses the SD of the real paired differences
  (``sd_paired``, with the number of pairs it came from). The unpaired plan uses each arm's own
  spread, ``sqrt((sd_a^2 + sd_b^2) / 2)``: pooling the two arms' games would add the
  difference between their means to the spread (0.441 instead of 0.211 on an IMAP and
  DSM-Welfare pilot) and ask for several times the games.
* **One arm** with repeats: the within-scenario SD times sqrt(2) is the spread of the
  differences *only if the two sides differ by the same amount in every scenario*; real
  differences vary from scenario to scenario, so the figure is a **lower bound** of the
  spread and the paired size an **optimistic** plan, and the output says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.analysis.paired import GameRecord
from accord.analysis.paired_match import drop_duplicates, match
from accord.analysis.power import games_needed
from accord.core.errors import ConfigError

ONE_ARM_ASSUMPTION = (
    "assumes the two sides differ by the same amount in every scenario; real differences "
    "vary between scenarios, so this is a lower bound of their spread and the paired size "
    "is optimistic: plan from a pilot of both arms (--from A --from B) for the real one"
)


def _sd(xs: Sequence[float]) -> float:
    return float(np.std(xs, ddof=1)) if len(xs) >= 2 else math.nan


def paired_differences(
    a: Sequence[GameRecord], b: Sequence[GameRecord], metric: str
) -> list[float]:
    """B - A of `metric` over the pairs `accord compare` would form (repeats averaged)."""
    a, _ = drop_duplicates(a)
    b, _ = drop_duplicates(b)
    m = match(a, b)
    out = []
    for key in m.shared:
        xa = [a[i].metrics[metric] for i in m.keys_a[key] if metric in a[i].metrics]
        xb = [b[i].metrics[metric] for i in m.keys_b[key] if metric in b[i].metrics]
        if xa and xb:
            out.append(sum(xb) / len(xb) - sum(xa) / len(xa))
    return out


def two_arm_plan(
    a: Sequence[GameRecord],
    b: Sequence[GameRecord],
    metric: str,
    detect: float,
    *,
    power: float,
    alpha: float,
) -> dict[str, Any]:
    """The plan from a pilot holding both arms (module docstring)."""
    diffs = paired_differences(a, b, metric)
    if len(diffs) < 2:
        raise ConfigError(
            f"the pilot's two arms share {len(diffs)} scenario(s) carrying {metric!r}: play both "
            "on the same suite or seeds, or plan from one arm"
        )
    sd_d = _sd(diffs)
    va = [r.metrics[metric] for r in a if metric in r.metrics]
    vb = [r.metrics[metric] for r in b if metric in r.metrics]
    sd_arms = math.sqrt((_sd(va) ** 2 + _sd(vb) ** 2) / 2.0)
    return {
        "game_id": ", ".join(sorted({r.game_id for r in [*a, *b]})),
        "metric": metric,
        "detect": detect,
        "power": power,
        "alpha": alpha,
        "pairs": len(diffs),
        "mean_difference": float(np.mean(diffs)),
        "sd_paired": sd_d,
        "sd_paired_from": f"the SD of {len(diffs)} real paired differences of the pilot",
        "sd": sd_arms,
        "sd_from": "each arm's own spread, sqrt((sd_a^2 + sd_b^2) / 2)",
        "scenarios_paired": games_needed(detect, sd_d, paired=True, power=power, alpha=alpha),
        "games_per_side_unpaired": games_needed(
            detect, sd_arms, paired=False, power=power, alpha=alpha
        ),
        "lower_bound": False,
        "assumption": "",
    }
