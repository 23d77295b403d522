"""Strategy metrics of the negotiation game: the strategy taxonomy (seed 004 §5.3, App. E),
perfunctory fairness (§5.4), anchoring (§5.5), deference and coherence (§5.5, §5.6; speech
detection in `speech.py`). Each is a `rates.Rate` under the conventions of `rates.py`; each
docstring gives the formula, the detection rule and the paper's value. `metrics.game_metrics`
gathers them with the outcome metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from accord.games.negotiation.rates import (
    PERFUNCTORY_EFFICIENCY,
    Rate,
    _pairs,
    _rate,
    allocation,
    analysed,
    is_round_optimal,
    seat_allocation,
)
from accord.games.negotiation.record import RoundRecord
from accord.games.negotiation.scenario import RESOURCES
from accord.games.negotiation.speech import proposals_to_partner, self_commitments

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
    One departure: like every Accord metric, pairs touching a fallback round are left out
    (App. B); the companion keeps them (181 against 185 eligible pairs on the mock grid).
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
