"""The `Rate` every negotiation metric is, and the round helpers they share (the conventions
below hold for `metrics.py` and `strategies.py` alike).

Seed 004 §4.2 (Table 2), §5.2-§5.5, App. B, App. E and Fig. 6. Input: one game's
`RoundRecord`s in round order and its condition, ``rotating`` (new scenario every round) and
``shifting`` (one seat's context resets every round). Each docstring gives the formula, the
detection rule and the paper's value. Conventions:

- A round with any ``fallback`` seat is *excluded* from every metric (App. B) and only counted
  in ``fallback_rounds``.
- *Optimal*: not annulled, ``M > 0`` and joint reward reaches ``M``. *Non-optimal*: not
  optimal. *Suboptimal*: not annulled and below ``M``.
- A *joint allocation* is the companion analysis's: the combined units of each resource both
  seats bought (``negotiation_analysis`` ``_alloc_key``); two rounds share it when the combined
  totals match, whoever bought what. v2's seat-wise pair survives only in
  ``stubborn_anchoring_v2``.
- A *consecutive pair* is two analysed rounds ``t`` and ``t+1`` of the same game; a pair with
  an excluded round on either side does not exist.
- Every metric is a `Rate` (numerator, denominator): pooled values and bootstrap resamples
  are rebuilt from per-game counts; `aggregate` sums them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from accord.games.negotiation import oracle, rules
from accord.games.negotiation.record import RoundRecord

Allocation = tuple[tuple[str, int], ...]
SeatAllocation = tuple[tuple[tuple[str, int], ...], ...]

PERFUNCTORY_EFFICIENCY = 0.95
"""The companion analysis's "suboptimal" for perfunctory fairness: joint efficiency below 0.95
(an annulled round has efficiency 0)."""


@dataclass(frozen=True)
class Rate:
    """``hits / total``; `value` is None when nothing was eligible.

    For a mean (allocation efficiency) `hits` is the sum of the per-round values.
    """

    hits: float = 0
    total: int = 0

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None

    def __add__(self, other: Rate) -> Rate:
        return Rate(self.hits + other.hits, self.total + other.total)

    def as_dict(self) -> dict[str, Any]:
        return {"num": self.hits, "den": self.total, "rate": self.value}


# -- shared helpers ------------------------------------------------------------------------


def analysed(records: Sequence[RoundRecord]) -> list[RoundRecord]:
    """Rounds that count: no seat's decision came from the fallback (App. B)."""
    return [r for r in records if not any(r.fallback)]


def is_round_optimal(r: RoundRecord) -> bool:
    """Not annulled, ``M > 0`` and the joint reward reaches ``M``."""
    return not r.annulled and r.oracle_max > 0 and oracle.is_optimal(r.joint_reward, r.oracle_max)


def allocation(r: RoundRecord) -> Allocation:
    """The round's joint allocation as the companion analysis keys it: combined units per
    resource over both seats (zero totals dropped), comparable by equality."""
    total: dict[str, int] = {}
    for p in r.purchases:
        for res, n in p.items():
            total[res] = total.get(res, 0) + n
    return tuple(sorted((res, n) for res, n in total.items() if n > 0))


def seat_allocation(r: RoundRecord) -> SeatAllocation:
    """v2's joint allocation: the pair (seat 0, seat 1) of normalised purchases."""
    return tuple(tuple(rules.normalize_purchase(p).items()) for p in r.purchases)


def _pairs(records: Sequence[RoundRecord]) -> list[tuple[RoundRecord, RoundRecord]]:
    kept = analysed(records)
    return [(a, b) for a, b in pairwise(kept) if b.round == a.round + 1]


def _rate(flags: Iterable[bool]) -> Rate:
    items = list(flags)
    return Rate(sum(items), len(items))
