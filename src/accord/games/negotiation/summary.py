"""Process metrics of a group of negotiation games for ``summary.json`` (seed 004 §5, App. E).

Each metric is pooled over the group's games as in the paper (hits / eligible rounds, pairs
or games) with a percentile-bootstrap 95% CI that resamples games. The per-game counts come
from the trace's ``metrics.detail`` (`metrics.aggregate` of one game).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable
from typing import Any

import numpy as np

from accord.analysis.value import bootstrap_ratio
from accord.traces.schema import Trace

PROCESS_METRICS: tuple[tuple[str, str], ...] = (
    ("payoff_alternation", "payoff alternation, 2 rounds (App. E)"),
    ("full_alternation", "payoff alternation, whole game (App. E)"),
    ("payoff_alternation_strict", "payoff alternation, 2 rounds, ties never flip"),
    ("full_alternation_strict", "payoff alternation, whole game, ties never flip"),
    ("win_stay", "win-stay"),
    ("lose_shift", "lose-shift"),
    ("early_decision_round", "rounds with an early decision (Fig. 5, Accord reading)"),
    ("early_decision_seat0", "early decision, seat A's rounds"),
    ("early_decision_seat1", "early decision, seat B's rounds"),
    ("equal_split", "equal split (§5.4; companion analysis rule)"),
    ("perfunctory_fairness", "perfunctory fairness (§5.4; companion: efficiency < 0.95)"),
    ("perfunctory_share", "failed share of equal splits (companion rules)"),
    ("equal_split_any", "equal split, any one resource (Accord v2 reading)"),
    ("perfunctory_fairness_any", "perfunctory fairness, any-resource rule (Accord v2)"),
    ("equal_split_half", "equal split of half the supply (Accord's stricter variant)"),
    ("perfunctory_fairness_half", "perfunctory fairness, half-supply splits (Accord's)"),
    ("repeat", "allocation repeat (combined totals)"),
    ("repeat_after_overdraw", "repeat after overdraw"),
    (
        "stubborn_anchoring",
        "stubborn anchoring (companion rule: current round suboptimal; fallback rounds left "
        "out, the companion keeps them)",
    ),
    ("stubborn_anchoring_v2", "stubborn anchoring (Accord v2: previous round, seat-wise)"),
    ("proposal", "rounds with a partner-directed proposal"),
    ("deference", "first-proposal deference"),
    ("deference_optimal", "deference and optimal"),
    ("deference_suboptimal", "deference and not optimal"),
    ("deference_round1", "deference in round 1 (non-rotating)"),
    ("coherence", "stated-vs-actual coherence"),
    ("any_optimum", "games with a jointly optimal round (§5)"),
    ("first_optimum_round", "round of the first optimum, stable games (§5, a mean)"),
    ("positive_after_overdraw", "positive rounds after an overdraw (§5)"),
    ("bucket_no_prior_context", "failure bucket: no prior context (Fig. 6)"),
    ("bucket_failed_improvement", "failure bucket: failed improvement (Fig. 6)"),
    ("bucket_repeated", "failure bucket: repeated (Fig. 6)"),
    ("bucket_after_excluded", "failure bucket: after an excluded round (Fig. 6)"),
)


class ProcessMetricPool:
    """The counts behind `PROCESS_METRICS`, kept as two float columns per metric (a game not
    eligible for a metric is a NaN), so a group of 20,000 games holds about 9 MB, not its
    traces' metric dicts."""

    def __init__(self) -> None:
        self._nums: dict[str, array[float]] = {key: array("d") for key, _ in PROCESS_METRICS}
        self._dens: dict[str, array[float]] = {key: array("d") for key, _ in PROCESS_METRICS}

    def add(self, trace: Trace) -> None:
        """Count one game's ``metrics.detail`` cells."""
        self.add_cells(self.cells(trace))

    @staticmethod
    def cells(trace: Trace) -> array[float]:
        """What `add` keeps of one game: numerator and denominator of every process metric
        (NaN when the game is not eligible), so a resumed run's rebuild needs no trace."""
        detail = trace.metrics.get("detail") or {}
        out = array("d")
        for key, _ in PROCESS_METRICS:
            cell = detail.get(key) if isinstance(detail, dict) else None
            if isinstance(cell, dict):
                out.extend((float(cell["num"]), float(cell["den"])))
            else:
                out.extend((math.nan, math.nan))
        return out

    def add_cells(self, cells: array[float]) -> None:
        """Count one game from its `cells`."""
        for i, (key, _) in enumerate(PROCESS_METRICS):
            self._nums[key].append(cells[2 * i])
            self._dens[key].append(cells[2 * i + 1])

    def result(self) -> dict[str, Any]:
        """``{key: {"label", "num", "den", "mean", "ci_low", "ci_high", "games"}}`` for every
        process metric; ``mean`` is None when no game was eligible."""
        out: dict[str, Any] = {}
        for key, label in PROCESS_METRICS:
            num_all = np.frombuffer(self._nums[key], dtype=float)
            den_all = np.frombuffer(self._dens[key], dtype=float)
            cell = ~np.isnan(den_all)
            nums, dens = num_all[cell], den_all[cell]
            mean, lo, hi = bootstrap_ratio(nums, dens)
            out[key] = {
                "label": label,
                "num": float(nums.sum()),
                "den": float(dens.sum()),
                "mean": mean,
                "ci_low": lo,
                "ci_high": hi,
                "games": int((dens > 0).sum()),
            }
        return out


def pooled_process_metrics(traces: Iterable[Trace]) -> dict[str, Any]:
    """`ProcessMetricPool` over `traces`."""
    pool = ProcessMetricPool()
    for trace in traces:
        pool.add(trace)
    return pool.result()
