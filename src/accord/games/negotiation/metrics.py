"""Outcome and process metrics of the negotiation game.

Seed 004 §4.2 (Table 2), §5.2-§5.5, App. B, App. E and Fig. 6. The conventions every metric
follows (excluded fallback rounds, optimal and suboptimal rounds, joint allocations,
consecutive pairs, metrics as `Rate` counts) are stated once, in `rates.py`.

This module holds the outcome metrics (§4.2), the §5 headline figures, the failure buckets
(Fig. 6) and `game_metrics`, which gathers them with the strategy metrics of `strategies.py`;
`Rate` and the shared round helpers are in `rates.py`.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.games.negotiation.rates import (
    Rate,
    _pairs,
    _rate,
    allocation,
    analysed,
    is_round_optimal,
)
from accord.games.negotiation.record import RoundRecord
from accord.games.negotiation.strategies import (
    equal_split_rate,
    first_proposal_deference,
    full_alternation,
    lose_shift,
    payoff_alternation,
    perfunctory_fairness,
    perfunctory_share,
    repeat_after_overdraw,
    repeat_rate,
    stated_vs_actual,
    stubborn_anchoring,
    stubborn_anchoring_v2,
    win_stay,
)

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
    """Fig. 5, Accord's reading: rounds in which either seat decided during cheap talk /
    analysed rounds. The paper's figure does not say which round statistic it plots; the
    companion engine's is `talk_ended_early_rate`."""
    return _rate(any(r.early_decision) for r in analysed(records))


def talk_ended_early_rate(records: Sequence[RoundRecord], talk_turns: int) -> Rate:
    """Fig. 5, the companion engine's reading (its ``early_submit`` round statistic): rounds
    whose cheap talk stopped before the turn limit / analysed rounds.

    The companion's talk loop runs ``talk_turns`` turns, each a message from every seat that
    has not decided, and stops once both have decided; ``early_submit`` is "the last turn
    used < talk_turns". A seat's k-th talk message is sent in turn k, so the turns used are
    the most talk messages either seat sent (speech sent with a decision-phase reply is not
    talk). A seat that decides in its last turn, or whose partner talks on to the limit after
    it decided, is early by `early_decision_round_rate` but not here. `talk_turns` 0 (the
    unlimited mode, where the companion reports False for every round, or the no-talk
    baseline) leaves no round eligible.
    """
    if talk_turns <= 0:
        return Rate()

    def turns_used(r: RoundRecord) -> int:
        sent = [0, 0]
        for m in r.messages:
            if not (m.decided and not r.early_decision[m.seat]):
                sent[m.seat] += 1
        return max(sent)

    return _rate(turns_used(r) < talk_turns for r in analysed(records))


def talk_turn_limit(config: Mapping[str, Any]) -> int:
    """The talk turns per seat of a game with `config` (a trace's); 0 without talk."""
    if config.get("cheap_talk", True) is False:
        return 0
    return int(config.get("talk_turns", 5))


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
