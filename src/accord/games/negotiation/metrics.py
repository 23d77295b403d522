"""Outcome and process metrics of the negotiation game.

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

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from accord.games.negotiation import oracle, rules
from accord.games.negotiation.record import RoundRecord
from accord.games.negotiation.scenario import RESOURCES
from accord.games.negotiation.speech import proposals_to_partner, self_commitments

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


# -- outcome metrics (§4.2, Table 2) -------------------------------------------------------


def overdraw_rate(records: Sequence[RoundRecord]) -> Rate:
    """Annulled rounds / analysed rounds. Paper: 15.7% overall (§5)."""
    return _rate(r.annulled for r in analysed(records))


def allocation_efficiency(records: Sequence[RoundRecord]) -> Rate:
    """Mean of ``joint_reward / M`` over analysed rounds; an annulled round scores 0.

    Rounds with ``M = 0`` (nothing to gain) are left out. Paper: Table 3, 56.8-97.9%.
    """
    vals = [
        0.0 if r.annulled else r.joint_reward / r.oracle_max
        for r in analysed(records)
        if r.oracle_max > 0
    ]
    return Rate(sum(vals), len(vals))


def optimum_rate(records: Sequence[RoundRecord]) -> Rate:
    """Optimal rounds / analysed rounds with ``M > 0`` (Table 3: 21.9-91.3%). A round with
    ``M = 0`` has no optimum to reach: with ``M = 0`` everywhere the rate is undefined."""
    return _rate(is_round_optimal(r) for r in analysed(records) if r.oracle_max > 0)


def early_decision_rate(records: Sequence[RoundRecord], seat: int | None = None) -> Rate:
    """Seat-rounds decided during cheap talk before the turn limit / seat-rounds (§5.2).

    Detection: the engine's ``early_decision`` flag per seat. With `seat`, that seat's rounds
    only. From `negotiation-v3` on, a partner that decides after the other did still counts
    (App. D.1), so two identical policies share the rate whoever opens; in v2 traces the
    second seat could never decide early.
    """
    seats = (0, 1) if seat is None else (seat,)
    return _rate(r.early_decision[s] for r in analysed(records) for s in seats)


def early_decision_round_rate(records: Sequence[RoundRecord]) -> Rate:
    """Fig. 5's rate: rounds in which an early decision was reached (by either seat) before the
    turn limit / analysed rounds."""
    return _rate(any(r.early_decision) for r in analysed(records))


# -- strategy taxonomy (§5.3, App. E) ------------------------------------------------------


def _leader(r: RoundRecord) -> int:
    """+1 if seat 0 earned more, -1 if seat 1 did, 0 on a tie (annulled rounds tie at 0)."""
    a, b = r.rewards[0], r.rewards[1]
    return (a > b) - (a < b)


def _flip(a: RoundRecord, b: RoundRecord) -> bool:
    """App. E exactly: ``1[(rA_t > rB_t) != (rA_t+1 > rB_t+1)]`` (a tie reads as "A does not
    lead", so 5-5 then 10-5 is a flip)."""
    return (a.rewards[0] > a.rewards[1]) != (b.rewards[0] > b.rewards[1])


def _strict_flip(a: RoundRecord, b: RoundRecord) -> bool:
    """A strict leader in both rounds, and a different one (ties never flip)."""
    return _leader(a) != 0 and _leader(b) != 0 and _leader(a) != _leader(b)


def payoff_alternation(
    records: Sequence[RoundRecord], *, rotating: bool, strict: bool = False
) -> Rate:
    """2-round payoff alternation: consecutive pairs that flip / pairs (App. E).

    A flip is App. E's indicator (`_flip`); ``strict`` uses `_strict_flip` instead (reported
    as ``payoff_alternation_strict``, the v1 definition). Non-rotating games only (empty
    otherwise). Paper: 16.3%.
    """
    if rotating:
        return Rate()
    flip = _strict_flip if strict else _flip
    return _rate(flip(a, b) for a, b in _pairs(records))


def full_alternation(
    records: Sequence[RoundRecord], *, rotating: bool, strict: bool = False
) -> Rate:
    """Game-level: 1/1 when every consecutive pair of the game flips (App. E's indicator, or
    the strict one), 0/1 otherwise: the paper's "4-round rate" for 4-round games.

    Eligible (denominator 1) only for non-rotating games with at least two rounds and no
    excluded round, so that "every pair" really covers the whole game. Paper: 2.2% of games.
    """
    kept = analysed(records)
    if rotating or len(kept) < 2 or len(kept) != len(records):
        return Rate()
    pairs = _pairs(records)
    flip = _strict_flip if strict else _flip
    return Rate(int(len(pairs) == len(kept) - 1 and all(flip(a, b) for a, b in pairs)), 1)


def win_stay(records: Sequence[RoundRecord], *, rotating: bool) -> Rate:
    """Pairs repeating the exact joint allocation / pairs whose first round was not annulled.

    Non-rotating games only. Paper: 51.5% (Table 4).
    """
    if rotating:
        return Rate()
    return _rate(allocation(a) == allocation(b) for a, b in _pairs(records) if not a.annulled)


def lose_shift(records: Sequence[RoundRecord], *, rotating: bool) -> Rate:
    """Pairs changing the joint allocation / pairs whose first round was non-optimal.

    "Lose" covers both annulled and suboptimal rounds (App. E). Non-rotating games only.
    Paper: 84.3% (Table 4).
    """
    if rotating:
        return Rate()
    return _rate(
        allocation(a) != allocation(b) for a, b in _pairs(records) if not is_round_optimal(a)
    )


# -- perfunctory fairness (§5.4) -----------------------------------------------------------


def is_equal_split(r: RoundRecord, supply: Mapping[str, int] | None = None) -> bool:
    """Companion analysis (``rq16_perfunctory_fairness``): at least one resource both seats
    bought, and the same quantity of EVERY resource both bought.

    With `supply` (Accord's own stricter variant, not the companion's) some shared resource
    must also be split exactly in half of its supply ("5/5 stone").
    """
    p0, p1 = r.purchases[0], r.purchases[1]
    shared = [res for res in RESOURCES if p0.get(res, 0) > 0 and p1.get(res, 0) > 0]
    if not shared or any(p0[res] != p1[res] for res in shared):
        return False
    return supply is None or any(2 * p0[res] == supply.get(res, -1) for res in shared)


def is_equal_split_any(r: RoundRecord) -> bool:
    """Accord v2's reading of §5.4's text: the same positive quantity of at least one
    resource, whatever the other shared resources."""
    p0, p1 = r.purchases[0], r.purchases[1]
    return any(p0.get(res, 0) == p1.get(res, 0) > 0 for res in RESOURCES)


def _companion_suboptimal(r: RoundRecord) -> bool:
    """Joint efficiency below `PERFUNCTORY_EFFICIENCY` (annulled = 0); ``M = 0`` never is."""
    if r.oracle_max <= 0:
        return False
    return (0.0 if r.annulled else r.joint_reward / r.oracle_max) < PERFUNCTORY_EFFICIENCY


def equal_split_rate(
    records: Sequence[RoundRecord],
    supply: Mapping[str, int] | None = None,
    *,
    rule: str = "companion",
) -> Rate:
    """Equal-split rounds / analysed rounds (§5.4; paper 12.5%). `rule`: ``companion``
    (`is_equal_split`, default), ``any`` (`is_equal_split_any`, v2); `supply` gives the
    half-supply variant of the companion rule."""
    test = is_equal_split_any if rule == "any" else (lambda r: is_equal_split(r, supply))
    return _rate(test(r) for r in analysed(records))


def perfunctory_fairness(
    records: Sequence[RoundRecord],
    supply: Mapping[str, int] | None = None,
    *,
    rule: str = "companion",
) -> Rate:
    """§5.4: equal-split rounds that failed / analysed rounds (paper: 6.1%).

    ``companion``: `is_equal_split` and joint efficiency below 0.95, as the companion analysis
    counts it. ``any`` (v2): `is_equal_split_any` and not jointly optimal. Annulled rounds
    count as failed under both (an even split of one resource can still overdraw another).
    """
    if rule == "any":
        return _rate(is_equal_split_any(r) and not is_round_optimal(r) for r in analysed(records))
    return _rate(is_equal_split(r, supply) and _companion_suboptimal(r) for r in analysed(records))


def perfunctory_share(
    records: Sequence[RoundRecord], supply: Mapping[str, int] | None = None
) -> Rate:
    """Failed equal splits / equal splits (companion rules; paper: 48.8%)."""
    return _rate(_companion_suboptimal(r) for r in analysed(records) if is_equal_split(r, supply))


# -- §5 headline figures -------------------------------------------------------------------


def any_optimum(records: Sequence[RoundRecord]) -> Rate:
    """Game-level: 1/1 if some analysed round is jointly optimal, 0/1 otherwise (0/0 when no
    analysed round has ``M > 0``). Paper §5: 81.7% of games."""
    rounds = [r for r in analysed(records) if r.oracle_max > 0]
    return Rate(int(any(is_round_optimal(r) for r in rounds)), 1) if rounds else Rate()


def first_optimum_round(records: Sequence[RoundRecord], *, shifting: bool) -> Rate:
    """Mean round of the first optimum, as (round, 1) per stable game that reaches one.

    Stable-partner games only, as in §5 ("after an average of 1.6 rounds"); pooled, the
    rate is the mean over games.
    """
    if shifting:
        return Rate()
    first = next((r.round for r in analysed(records) if is_round_optimal(r)), None)
    return Rate(first, 1) if first is not None else Rate()


def positive_after_overdraw(records: Sequence[RoundRecord]) -> Rate:
    """Rounds after an annulled round with a positive joint reward / such rounds (§5: 83.3%)."""
    return _rate(b.joint_reward > 0 for a, b in _pairs(records) if a.annulled)


# -- anchoring (§5.5) ----------------------------------------------------------------------


def _same_scenario_pairs(records: Sequence[RoundRecord]) -> list[tuple[RoundRecord, RoundRecord]]:
    return [(a, b) for a, b in _pairs(records) if a.scenario_id == b.scenario_id]


def repeat_rate(records: Sequence[RoundRecord]) -> Rate:
    """Same-scenario consecutive pairs with an exact joint-allocation repeat / such pairs.

    Paper: 46.5% (55.1% after non-annulled rounds, 0.6% after annulled ones).
    """
    return _rate(allocation(a) == allocation(b) for a, b in _same_scenario_pairs(records))


def repeat_after_overdraw(records: Sequence[RoundRecord]) -> Rate:
    """As `repeat_rate`, restricted to pairs whose first round was annulled. Paper: 0.6%."""
    return _rate(
        allocation(a) == allocation(b) for a, b in _same_scenario_pairs(records) if a.annulled
    )


def stubborn_anchoring(records: Sequence[RoundRecord]) -> Rate:
    """Companion analysis (``rq13_anchoring``): among same-scenario consecutive pairs whose
    CURRENT round is suboptimal and not annulled (a failure the dyad could have corrected),
    those repeating the previous round's joint allocation (combined totals).

    Paper: 29.2% of 339 rounds (40.7% stable, 15.9% shifting; 28.3% at M/C 0.5, 46.0% at 1.0).
    """
    return _rate(
        allocation(a) == allocation(b)
        for a, b in _same_scenario_pairs(records)
        if not (b.annulled or is_round_optimal(b))
    )


def stubborn_anchoring_v2(records: Sequence[RoundRecord]) -> Rate:
    """Accord v2's variant: the PREVIOUS round suboptimal (not annulled), a seat-wise repeat."""
    return _rate(
        seat_allocation(a) == seat_allocation(b)
        for a, b in _same_scenario_pairs(records)
        if not (a.annulled or is_round_optimal(a))
    )


# -- deference and coherence (§5.5, §5.6; speech detection in `speech.py`) ---------------


@dataclass(frozen=True)
class Deference:
    """First-proposal deference of one or more games (§5.5)."""

    proposal: Rate = field(default_factory=Rate)
    turns: tuple[int, ...] = ()
    deference: Rate = field(default_factory=Rate)
    deference_optimal: Rate = field(default_factory=Rate)
    deference_suboptimal: Rate = field(default_factory=Rate)
    deference_round1: Rate = field(default_factory=Rate)


def first_proposal_deference(records: Sequence[RoundRecord], *, rotating: bool) -> Deference:
    """Does the responder buy exactly what the first partner-directed proposal offered it?

    Detection: the round's first message with a partner-directed quantity ("you take 4
    stone", "you get 4 stone", "for you: stone=4", "leaves you 4 stone"; themed names from
    ``names``, plurals, ``name=N``/``name×N`` and number words one-ten accepted, ranges like
    "2-3" ignored). The proposal is every quantity in that message's partner-directed clauses.
    The responder defers when its final purchase holds exactly N of each proposed resource.

    - proposal: rounds with a proposal / analysed rounds (paper: 12.9%);
    - turns: turn of each first proposal (paper: median 1);
    - deference: deferring rounds / rounds with a proposal (paper: 21-44% by model);
    - deference_optimal / _suboptimal: deferring and optimal (non-optimal) / proposals
      (paper, non-rotating: 16.9% vs 15.5%);
    - deference_round1: deference among round-1 proposals of non-rotating games (20.4%).
    """
    kept = analysed(records)
    found: list[tuple[RoundRecord, int, bool]] = []  # (round, turn of proposal, deferred)
    for r in kept:
        for u in sorted(r.messages, key=lambda u: u.turn):
            if not u.delivered:  # the responder never read it: nothing to defer to
                continue
            proposal = proposals_to_partner(u.speech, r.names)
            if proposal:
                bought = r.purchases[1 - u.seat]
                deferred = all(bought.get(res, 0) == n for res, n in proposal.items())
                found.append((r, u.turn, deferred))
                break
    return Deference(
        proposal=Rate(len(found), len(kept)),
        turns=tuple(t for _, t, _ in found),
        deference=_rate(d for _, _, d in found),
        deference_optimal=Rate(sum(d and is_round_optimal(r) for r, _, d in found), len(found)),
        deference_suboptimal=Rate(
            sum(d and not is_round_optimal(r) for r, _, d in found), len(found)
        ),
        deference_round1=_rate(d for r, _, d in found if r.round == 1 and not rotating),
    )


def deference_events(records: Sequence[RoundRecord]) -> list[tuple[int, int, bool]]:
    """(round, responder seat, deferred) for every analysed round with a first proposal:
    the per-seat detail behind `first_proposal_deference` (per-model deference, §5.5)."""
    out = []
    for r in analysed(records):
        for u in sorted(r.messages, key=lambda u: u.turn):
            if not u.delivered:
                continue
            proposal = proposals_to_partner(u.speech, r.names)
            if proposal:
                bought = r.purchases[1 - u.seat]
                out.append(
                    (r.round, 1 - u.seat, all(bought.get(k, 0) == n for k, n in proposal.items()))
                )
                break
    return out


def stated_vs_actual(records: Sequence[RoundRecord]) -> Rate:
    """Seat-rounds whose final purchase matches their own stated quantities / seat-rounds
    with a statement (§4.2 "stated-vs-actual coherence", §5.6).

    Detection: self-directed cues ("I'll take 6 stone", "I will buy 4 gold", "I'm taking
    stone=6", "I take stone×2"); hedges such as "I could take" do not count. Over a seat's
    messages of the round, a later statement about a resource replaces an earlier one. The
    seat is coherent when it bought exactly the stated units of every stated resource.
    """
    flags: list[bool] = []
    for r in analysed(records):
        for seat in (0, 1):
            stated: dict[str, int] = {}
            for u in sorted(r.messages, key=lambda u: u.turn):
                if u.seat == seat:
                    stated.update(self_commitments(u.speech, r.names))
            if stated:
                flags.append(all(r.purchases[seat].get(res, 0) == n for res, n in stated.items()))
    return _rate(flags)


# -- failure buckets (Fig. 6) --------------------------------------------------------------

BUCKETS: tuple[str, ...] = ("no_prior_context", "failed_improvement", "repeated", "after_excluded")


def bucket_labels(records: Sequence[RoundRecord]) -> dict[int, str]:
    """Round number -> failure bucket of each non-optimal analysed round (Fig. 6):

    - no_prior_context: round 1 (no shared history yet);
    - failed_improvement: round 2+, joint allocation changed from the previous round;
    - repeated: round 2+, joint allocation unchanged;
    - after_excluded: round 2+ whose previous round was excluded or missing (rare; kept so
      the buckets always add up).
    """
    by_round = {r.round: r for r in analysed(records)}
    out: dict[int, str] = {}
    for r in by_round.values():
        if is_round_optimal(r):
            continue
        prev = by_round.get(r.round - 1)
        if r.round <= 1:
            out[r.round] = "no_prior_context"
        elif prev is None:
            out[r.round] = "after_excluded"
        else:
            out[r.round] = "failed_improvement" if allocation(prev) != allocation(r) else "repeated"
    return out


def failure_buckets(records: Sequence[RoundRecord]) -> dict[str, Rate]:
    """Share of each `bucket_labels` bucket among non-optimal analysed rounds."""
    labels = list(bucket_labels(records).values())
    return {b: Rate(labels.count(b), len(labels)) for b in BUCKETS}


# -- per game and pooled -------------------------------------------------------------------


@dataclass(frozen=True)
class GameMetrics:
    """Every metric of one game, as counts that add across games (`aggregate`).

    `rates` keys: overdraw, optimum, early_decision (seat-rounds), early_decision_round
    (Fig. 5), early_decision_seat0/1, payoff_alternation, full_alternation (and their
    ``_strict`` variants), win_stay, lose_shift, equal_split, perfunctory_fairness,
    perfunctory_share (companion rules), equal_split_any, perfunctory_fairness_any (v2),
    equal_split_half, perfunctory_fairness_half (Accord's), any_optimum, first_optimum_round,
    positive_after_overdraw, repeat, repeat_after_overdraw, stubborn_anchoring (companion),
    stubborn_anchoring_v2, proposal, deference, deference_optimal, deference_suboptimal,
    deference_round1, coherence and ``bucket_<name>`` for `BUCKETS`.
    """

    rounds: int
    fallback_rounds: int
    efficiency: Rate
    rates: dict[str, Rate]
    proposal_turns: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form; the same as `aggregate` of this one game."""
        return aggregate([self])


def game_metrics(
    records: Sequence[RoundRecord],
    *,
    rotating: bool,
    shifting: bool = False,
    supply: Mapping[str, int] | None = None,
) -> GameMetrics:
    """All metrics of one game. `shifting` only restricts `first_optimum_round` to stable
    games; `supply` (the market's) enables the strict equal-split variant."""
    kept = analysed(records)
    half = supply if supply is not None else {"r1": 10, "r2": 10, "r3": 6}
    d = first_proposal_deference(records, rotating=rotating)
    rates = {
        "overdraw": overdraw_rate(records),
        "optimum": optimum_rate(records),
        "early_decision": early_decision_rate(records),
        "early_decision_round": early_decision_round_rate(records),
        "early_decision_seat0": early_decision_rate(records, 0),
        "early_decision_seat1": early_decision_rate(records, 1),
        "payoff_alternation": payoff_alternation(records, rotating=rotating),
        "full_alternation": full_alternation(records, rotating=rotating),
        "payoff_alternation_strict": payoff_alternation(records, rotating=rotating, strict=True),
        "full_alternation_strict": full_alternation(records, rotating=rotating, strict=True),
        "win_stay": win_stay(records, rotating=rotating),
        "lose_shift": lose_shift(records, rotating=rotating),
        "equal_split": equal_split_rate(records),
        "perfunctory_fairness": perfunctory_fairness(records),
        "perfunctory_share": perfunctory_share(records),
        "equal_split_any": equal_split_rate(records, rule="any"),
        "perfunctory_fairness_any": perfunctory_fairness(records, rule="any"),
        "equal_split_half": equal_split_rate(records, half),
        "perfunctory_fairness_half": perfunctory_fairness(records, half),
        "any_optimum": any_optimum(records),
        "first_optimum_round": first_optimum_round(records, shifting=shifting),
        "positive_after_overdraw": positive_after_overdraw(records),
        "repeat": repeat_rate(records),
        "repeat_after_overdraw": repeat_after_overdraw(records),
        "stubborn_anchoring": stubborn_anchoring(records),
        "stubborn_anchoring_v2": stubborn_anchoring_v2(records),
        "proposal": d.proposal,
        "deference": d.deference,
        "deference_optimal": d.deference_optimal,
        "deference_suboptimal": d.deference_suboptimal,
        "deference_round1": d.deference_round1,
        "coherence": stated_vs_actual(records),
    }
    rates.update({f"bucket_{k}": v for k, v in failure_buckets(records).items()})
    return GameMetrics(
        len(kept), len(records) - len(kept), allocation_efficiency(records), rates, d.turns
    )


def aggregate(games: Iterable[GameMetrics]) -> dict[str, Any]:
    """Pool rounds across games: counts add, so each rate is pooled hits / pooled total.

    Every rate (and the efficiency mean) comes out as ``{"num", "den", "rate"}``;
    ``proposal_turn_median`` is None without proposals.
    """
    pooled = list(games)
    turns = [t for g in pooled for t in g.proposal_turns]
    out: dict[str, Any] = {
        "games": len(pooled),
        "rounds": sum(g.rounds for g in pooled),
        "fallback_rounds": sum(g.fallback_rounds for g in pooled),
        "efficiency": sum((g.efficiency for g in pooled), Rate()).as_dict(),
        "proposal_turn_median": statistics.median(turns) if turns else None,
    }
    keys = dict.fromkeys(k for g in pooled for k in g.rates)  # first-seen order, no repeats
    for key in keys:
        out[key] = sum((g.rates.get(key, Rate()) for g in pooled), Rate()).as_dict()
    return out
