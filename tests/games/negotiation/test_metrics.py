"""Negotiation metrics on hand-built rounds whose expected values are worked out by hand
(seed 004 §4.2, §5.3-§5.5, App. B, App. E, Fig. 6)."""

from __future__ import annotations

import pytest

from accord.games.negotiation import metrics as mx
from accord.games.negotiation import rates, speech
from accord.games.negotiation import strategies as sx
from accord.games.negotiation.rates import Rate
from accord.games.negotiation.record import RoundRecord, Utterance

NAMES = {"r1": "wood", "r2": "stone", "r3": "gold"}


def rec(
    n: int,
    purchases: tuple[dict[str, int], dict[str, int]],
    rewards: tuple[int, int],
    m: int = 20,
    *,
    annulled: bool = False,
    scenario: str = "s",
    fallback: tuple[bool, bool] = (False, False),
    early: tuple[bool, bool] = (False, False),
    messages: tuple[tuple[int, str], ...] = (),
) -> RoundRecord:
    rewards = (0, 0) if annulled else rewards
    joint = sum(rewards)
    return RoundRecord(
        round=n,
        scenario_id=scenario,
        names=NAMES,
        first_speaker=0,
        purchases=list(purchases),
        runs=[{}, {}],
        rewards=list(rewards),
        annulled=annulled,
        joint_reward=joint,
        oracle_max=m,
        optimal=not annulled and joint == m,
        efficiency=joint / m if m else 0.0,
        early_decision=list(early),
        fallback=list(fallback),
        stated_runs=[True, True],
        messages=[Utterance(seat=s, turn=i + 1, speech=t) for i, (s, t) in enumerate(messages)],
    )


# Game A (non-rotating, M = 20): R1 equal 5/5 wood split, suboptimal; R2 annulled (13 wood);
# R3 optimal, seat 0 leads; R4 optimal, seat 1 leads, equal 4/4 stone; R5 repeats R4.
GAME_A = [
    rec(1, ({"r1": 5}, {"r1": 5}), (5, 5), early=(True, False)),
    rec(2, ({"r1": 6, "r3": 2}, {"r1": 7}), (9, 9), annulled=True),
    rec(3, ({"r2": 4}, {"r1": 10}), (12, 8), early=(True, True)),
    rec(4, ({"r2": 4, "r3": 2}, {"r2": 4, "r1": 6}), (8, 12), early=(False, True)),
    rec(5, ({"r3": 2, "r2": 4}, {"r1": 6, "r2": 4, "r3": 0}), (8, 12)),
]


def test_outcome_metrics() -> None:
    assert mx.overdraw_rate(GAME_A) == Rate(1, 5)
    assert mx.allocation_efficiency(GAME_A) == Rate(0.5 + 0 + 1 + 1 + 1, 5)
    assert mx.optimum_rate(GAME_A) == Rate(3, 5)
    assert mx.early_decision_rate(GAME_A) == Rate(4, 10)


def test_strategy_taxonomy() -> None:
    # App. E's indicator 1[A leads]: F, F, T, F, F over rounds 1-5, so pairs (2,3) and (3,4)
    # flip. The strict variant needs a strict leader on both sides: only (3,4).
    assert sx.payoff_alternation(GAME_A, rotating=False) == Rate(2, 4)
    assert sx.payoff_alternation(GAME_A, rotating=False, strict=True) == Rate(1, 4)
    assert sx.full_alternation(GAME_A, rotating=False) == Rate(0, 1)
    # Win-stay: pairs after non-annulled rounds (1,2), (3,4), (4,5); only (4,5) repeats (the
    # zero r3 and the key order of R5 do not matter).
    assert sx.win_stay(GAME_A, rotating=False) == Rate(1, 3)
    # Lose-shift: pairs after non-optimal rounds (1,2), (2,3); both change.
    assert sx.lose_shift(GAME_A, rotating=False) == Rate(2, 2)
    for fn in (sx.payoff_alternation, sx.full_alternation, sx.win_stay, sx.lose_shift):
        assert fn(GAME_A, rotating=True) == Rate()


def test_full_alternation_hit_and_tie_rule() -> None:
    game = [rec(i + 1, ({"r1": i}, {}), r) for i, r in enumerate([(10, 5), (5, 10), (10, 5)])]
    assert sx.payoff_alternation(game, rotating=False) == Rate(2, 2)
    assert sx.full_alternation(game, rotating=False) == Rate(1, 1)
    # App. E reads a tie as "A does not lead": 5-5 then 10-5 flips; the strict variant not.
    tied = [rec(1, ({}, {}), (5, 5)), rec(2, ({"r1": 1}, {}), (10, 5))]
    assert sx.payoff_alternation(tied, rotating=False) == Rate(1, 1)
    assert sx.full_alternation(tied, rotating=False) == Rate(1, 1)
    assert sx.payoff_alternation(tied, rotating=False, strict=True) == Rate(0, 1)
    assert sx.full_alternation(tied, rotating=False, strict=True) == Rate(0, 1)
    # Seat B leading twice is no flip either way.
    b_leads = [rec(1, ({}, {}), (1, 5)), rec(2, ({"r1": 1}, {}), (2, 5))]
    assert sx.payoff_alternation(b_leads, rotating=False) == Rate(0, 1)


def test_perfunctory_fairness() -> None:
    assert sx.equal_split_rate(GAME_A) == Rate(3, 5)  # R1 wood 5/5, R4 and R5 stone 4/4
    assert sx.perfunctory_fairness(GAME_A) == Rate(1, 5)  # only R1 is also non-optimal
    assert sx.perfunctory_share(GAME_A) == Rate(1, 3)


def test_equal_split_rules_companion_against_v2() -> None:
    # wood 5/5 but stone 3/4: v2 ("some resource equal") counts it, the companion ("every
    # shared resource equal") does not; 5/5 wood + gold only on one side counts for both.
    mixed = [rec(1, ({"r1": 5, "r2": 3}, {"r1": 5, "r2": 4}), (5, 5))]
    assert sx.equal_split_rate(mixed) == Rate(0, 1)
    assert sx.equal_split_rate(mixed, rule="any") == Rate(1, 1)
    assert sx.perfunctory_fairness(mixed, rule="any") == Rate(1, 1)
    one_sided = [rec(1, ({"r1": 5, "r3": 2}, {"r1": 5}), (5, 5))]
    assert sx.equal_split_rate(one_sided) == Rate(1, 1)
    # The companion's failure threshold is efficiency < 0.95: 19/20 is not a failure.
    near = [rec(1, ({"r1": 5}, {"r1": 5}), (10, 9))]
    assert sx.perfunctory_fairness(near) == Rate(0, 1)
    assert sx.perfunctory_fairness(near, rule="any") == Rate(1, 1)


def test_equal_split_of_half_the_supply_is_the_stricter_variant() -> None:
    supply = {"r1": 10, "r2": 10, "r3": 6}
    # R1 wood 5/5 is half the supply; R4 and R5 stone 4/4 are not.
    assert sx.equal_split_rate(GAME_A, supply) == Rate(1, 5)
    assert sx.perfunctory_fairness(GAME_A, supply) == Rate(1, 5)


def test_headline_figures() -> None:
    assert mx.any_optimum(GAME_A) == Rate(1, 1)
    assert mx.any_optimum(GAME_A[:2]) == Rate(0, 1)
    assert mx.first_optimum_round(GAME_A, shifting=False) == Rate(3, 1)
    assert mx.first_optimum_round(GAME_A, shifting=True) == Rate()
    assert mx.first_optimum_round(GAME_A[:2], shifting=False) == Rate()
    # Round 2 was annulled; round 3 earned 20.
    assert mx.positive_after_overdraw(GAME_A) == Rate(1, 1)


def test_no_optimum_when_m_is_zero() -> None:
    zero = [rec(1, ({}, {}), (0, 0), m=0)]
    assert mx.optimum_rate(zero) == Rate() and mx.optimum_rate(zero).value is None
    assert mx.allocation_efficiency(zero).value is None
    assert mx.any_optimum(zero) == Rate()


def test_anchoring() -> None:
    assert sx.repeat_rate(GAME_A) == Rate(1, 4)
    assert sx.repeat_after_overdraw(GAME_A) == Rate(0, 1)
    # Companion: only pairs whose CURRENT round is suboptimal and not annulled; none in A.
    assert sx.stubborn_anchoring(GAME_A) == Rate(0, 0)
    assert sx.stubborn_anchoring_v2(GAME_A) == Rate(0, 1)  # after R1 the dyad changed course


def test_joint_allocation_is_combined_totals() -> None:
    # The seats swap 6/4 wood: the same joint allocation for the companion, not for v2.
    swap = [rec(1, ({"r1": 6}, {"r1": 4}), (5, 5)), rec(2, ({"r1": 4}, {"r1": 6}), (5, 5))]
    assert rates.allocation(swap[0]) == rates.allocation(swap[1]) == (("r1", 10),)
    assert sx.stubborn_anchoring(swap) == Rate(1, 1)
    assert sx.stubborn_anchoring_v2(swap) == Rate(0, 1)
    assert sx.repeat_rate(swap) == Rate(1, 1)


def test_early_decision_round_and_seat_rates() -> None:
    # GAME_A: early flags (T,F), (F,F), (T,T), (F,T), (F,F).
    assert mx.early_decision_rate(GAME_A) == Rate(4, 10)
    assert mx.early_decision_round_rate(GAME_A) == Rate(3, 5)
    assert mx.early_decision_rate(GAME_A, 0) == Rate(2, 5)
    assert mx.early_decision_rate(GAME_A, 1) == Rate(2, 5)


def test_fig5_two_readings_accord_against_the_companion_turn_loop() -> None:
    def talk(*turns: tuple[int, bool]) -> tuple[Utterance, ...]:
        return tuple(
            Utterance(seat=s, turn=i + 1, speech=f"m{i}", decided=d)
            for i, (s, d) in enumerate(turns)
        )

    def round_(n: int, early: tuple[bool, bool], msgs: tuple[Utterance, ...]) -> RoundRecord:
        r = rec(n, ({"r1": 5}, {"r1": 5}), (5, 5), early=early)
        return r.model_copy(update={"messages": list(msgs)})

    five = [(0, False), (1, False)] * 5
    rounds = [
        # Both decide in turn 2 of 5: the companion's loop stops after 2 turns; early in both.
        round_(1, (True, True), talk((0, False), (1, False), (0, True), (1, True))),
        # A decides in turn 1 and B talks to its 5th turn, then is asked to decide (its speech
        # then is no talk turn): early for Accord, the turn limit was reached for the companion.
        round_(2, (True, False), talk((0, True), *[(1, False)] * 5, (1, True))),
        # B decides in the 5th and last turn: early for Accord only.
        round_(3, (False, True), talk(*five[:-1], (1, True), (0, True))),
        # Nobody decides during talk: early in neither.
        round_(4, (False, False), talk(*five, (0, True), (1, True))),
    ]
    assert mx.early_decision_round_rate(rounds) == Rate(3, 4)
    assert mx.talk_ended_early_rate(rounds, 5) == Rate(1, 4)
    assert mx.talk_ended_early_rate(rounds, 0) == Rate()  # no limit to end before
    assert mx.talk_turn_limit({"talk_turns": 5}) == 5
    assert mx.talk_turn_limit({"talk_turns": 0}) == 0
    assert mx.talk_turn_limit({"cheap_talk": False, "talk_turns": 5}) == 0


def test_failure_buckets_partition_non_optimal_rounds() -> None:
    b = mx.failure_buckets(GAME_A)
    assert b["no_prior_context"] == Rate(1, 2)  # R1
    assert b["failed_improvement"] == Rate(1, 2)  # R2 changed from R1, still non-optimal
    assert b["repeated"] == Rate(0, 2) and b["after_excluded"] == Rate(0, 2)


# Game B: the same suboptimal 5/5 split twice, then a fallback round that must be ignored.
GAME_B = [
    rec(1, ({"r1": 5}, {"r1": 5}), (5, 5)),
    rec(2, ({"r1": 5}, {"r1": 5}), (5, 5)),
    rec(3, ({"r1": 10}, {"r1": 10}), (0, 0), annulled=True, fallback=(False, True)),
]


def test_fallback_rounds_are_excluded_everywhere() -> None:
    g = mx.game_metrics(GAME_B, rotating=False)
    assert (g.rounds, g.fallback_rounds) == (2, 1)
    assert g.rates["overdraw"] == Rate(0, 2)
    assert g.rates["stubborn_anchoring"] == Rate(1, 1)
    assert g.rates["win_stay"] == Rate(1, 1) and g.rates["lose_shift"] == Rate(0, 1)
    assert g.rates["full_alternation"] == Rate()  # a round is missing: not eligible
    assert g.rates["bucket_repeated"] == Rate(1, 2)
    assert g.rates["bucket_no_prior_context"] == Rate(1, 2)


def test_rotating_game_with_excluded_first_round() -> None:
    game = [
        rec(1, ({"r1": 1}, {}), (1, 0), scenario="x", fallback=(True, False)),
        rec(2, ({"r1": 3}, {"r2": 2}), (3, 4), m=10, scenario="y"),
        rec(3, ({"r1": 3}, {"r2": 2}), (3, 4), m=7, scenario="z"),
    ]
    g = mx.game_metrics(game, rotating=True)
    assert g.rates["bucket_after_excluded"] == Rate(1, 1)
    assert g.rates["repeat"] == Rate() and g.rates["payoff_alternation"] == Rate()
    assert g.rates["optimum"] == Rate(1, 2)


# Game C: cheap talk with one deferred and one ignored proposal (themed names: medieval).
GAME_C = [
    rec(
        1,
        ({"r2": 4, "r1": 5}, {"r2": 6, "r3": 2}),
        (10, 10),
        messages=(
            (0, "Hi! What do you need this round?"),
            (1, "I'll take 6 stone. You take 4 stone and some wood."),
            (0, "Deal, I'm taking 4 stone."),
        ),
    ),
    rec(
        2,
        ({"r1": 8}, {"r3": 2}),
        (8, 4),
        messages=((0, "For you: 3 gold, and I will buy 10 wood."), (1, "Fine.")),
    ),
]


def test_first_proposal_deference() -> None:
    d = sx.first_proposal_deference(GAME_C, rotating=False)
    assert d.proposal == Rate(2, 2)
    assert d.turns == (2, 1)
    assert d.deference == Rate(1, 2)  # round 1: seat 0 bought the 4 stone offered to it
    assert d.deference_optimal == Rate(1, 2) and d.deference_suboptimal == Rate(0, 2)
    assert d.deference_round1 == Rate(1, 1)
    assert sx.first_proposal_deference(GAME_C, rotating=True).deference_round1 == Rate()


def test_stated_vs_actual() -> None:
    # Round 1: seat 1 said 6 stone (bought 6), seat 0 said 4 stone (bought 4); round 2: seat 0
    # said 10 wood but bought 8.
    assert sx.stated_vs_actual(GAME_C) == Rate(2, 3)


@pytest.mark.parametrize(
    ("text", "partner", "own"),
    [
        ("I'll take 6 stone and some gold, and you take 4 stone plus wood.", {"r2": 4}, {"r2": 6}),
        (
            "I take stone×2, wood×8; you take stone×8, wood×2.",
            {"r2": 8, "r1": 2},
            {"r2": 2, "r1": 8},
        ),
        ("You get four gold, I’ll take 2 golds and 6 wood.", {"r3": 4}, {"r3": 2, "r1": 6}),
        ("That leaves you with 4 stones.", {"r2": 4}, {}),
        ("Could you instead take stone=4?", {"r2": 4}, {}),
        ("I could take 6 stone, about 2-3 gold ($6-9).", {}, {}),
        ("you take 1.5 stone", {}, {}),
        ("I'm planning to buy 3 gold for project_a runs (27 reward).", {}, {"r3": 3}),
    ],
)
def test_speech_parsing(text: str, partner: dict[str, int], own: dict[str, int]) -> None:
    assert speech.proposals_to_partner(text, NAMES) == partner
    assert speech.self_commitments(text, NAMES) == own


def test_underscored_theme_names() -> None:
    names = {"r1": "pixie_dust", "r2": "moonstone", "r3": "starlight"}
    assert speech.proposals_to_partner("you take 4 pixie dust", names) == {"r1": 4}
    assert speech.self_commitments("I will buy pixie_dust = 6 and nothing else", names) == {"r1": 6}


def test_aggregate_pools_counts() -> None:
    games = [mx.game_metrics(g, rotating=False) for g in (GAME_A, GAME_B)]
    out = mx.aggregate(games)
    assert (out["games"], out["rounds"], out["fallback_rounds"]) == (2, 7, 1)
    assert out["overdraw"] == {"num": 1, "den": 7, "rate": pytest.approx(1 / 7)}
    assert out["efficiency"]["num"] == pytest.approx(3.5 + 1.0)  # A: .5+0+1+1+1, B: .5+.5
    assert out["efficiency"]["den"] == 7
    assert out["win_stay"] == {"num": 2, "den": 4, "rate": 0.5}
    assert out["proposal_turn_median"] is None
    assert out["deference"] == {"num": 0, "den": 0, "rate": None}
    assert mx.game_metrics(GAME_C, rotating=False).as_dict()["proposal_turn_median"] == 1.5
    assert games[0].as_dict() == mx.aggregate(games[:1])
