"""DSM's parameters and plan arithmetic (CalBench App. D.3, Table 9): the presets, satisfaction
levels, scoring cost and reward, the offer size that maximises U(L), and the initiator's
candidate plans. The protocol itself, `DsmAgent`, and the full account of the rules are in
`dsm.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from accord.games.calendar.protocols import dsm_chains
from accord.games.calendar.protocols.base import (
    View,
    plan_cost,
    reachable,
    satisfaction_cost,
)
from accord.games.calendar.protocols.messages import (
    Move,
    PlanTuple,
)
from accord.games.calendar.rules import Calendar
from accord.games.calendar.scenario import display_cost

D = 12
"""Satisfaction levels 0..D-1 (App. D.3)."""


@dataclass(frozen=True)
class DsmParams:
    """One DSM preset (Table 9)."""

    name: str
    client: str
    l_min: int
    l_max: int
    beta: float
    theta: float
    w_soc: float
    cascade_depth: int
    displacement_targets: int
    exhaustive: bool
    scale: Literal["shown", "log"] = "shown"
    """Satisfaction scale (module docstring, step 3): 'shown' is the paper presets'."""
    fallback: bool = True
    """Announce the best plan and fall back to a locally clearable slot (step 5)."""
    offer_scope: Literal["all", "moves"] = "all"
    """What a displaced meeting's outside participant is offered (step 3): the whole offer set
    ('all', the paper presets) or only the plans that move its meetings ('moves')."""
    privacy_cost: float = 1.0
    """c_priv: each offered slot counts as one unit of leakage."""
    rank: Literal["loss", "offer"] = "loss"
    """How the initiator ranks plans (step 4): by (total loss, number of scorers, slot, id) over
    the plan's own scorers ('loss', the release's client) or by least concession over every
    scorer, offer order on ties ('offer', the presets before issue 24)."""
    decision_to: Literal["plan", "scorers"] = "plan"
    """Who gets the decision (step 4): the other participants and the outsiders whose meeting
    the chosen plan moves ('plan', the release's client) or everyone who scored ('scorers')."""
    one_offer: bool = False
    """Stop after the first sub-round whatever the search policy says (the release's
    ``paper_dsm`` client never searches further)."""
    chains: Literal["release", "clearable"] = "release"
    """Which displacement plans exist and how scorers price them (`dsm_chains`): the release's
    ('release': chains onto free slots or moving meetings, every chain listed) or the rules
    before issue 24 ('clearable': a target may hold an errand, one chain per target)."""
    walk: Literal["schedulable", "first"] = "schedulable"
    """DECISION fallback (step 5): the release's walk over the schedulable slots, one per
    attempt ('schedulable'), or the lowest slot this seat can clear alone at once ('first')."""


WELFARE = DsmParams("dsm-welfare", "paper_dsm", 1, 12, 1.0, 0.0, 1.0, 2, 4, True)
PRIVATE = DsmParams("dsm-private", "private_dsm", 1, 2, 0.25, 10.0, 0.25, 1, 2, False)
WELFARE_RELEASE = replace(WELFARE, name="dsm-welfare-release", exhaustive=False, one_offer=True)
"""DSM-Welfare as the release's client runs it: one sub-round, then the best plan (fully
feasible or not). Table 9 and D.3 say the search is exhaustive, so that is the default."""
_V2: dict[str, Any] = {
    "rank": "offer",
    "decision_to": "scorers",
    "walk": "first",
    "chains": "clearable",
}
WELFARE_V2 = replace(WELFARE, name="dsm-welfare-v2", **_V2)
PRIVATE_V2 = replace(PRIVATE, name="dsm-private-v2", **_V2)
_V1: dict[str, Any] = {"scale": "log", "fallback": False, "offer_scope": "moves", **_V2}
WELFARE_V1 = replace(WELFARE, name="dsm-welfare-v1", **_V1)
PRIVATE_V1 = replace(PRIVATE, name="dsm-private-v1", **_V1)
PRIVATE_NOFALLBACK = replace(PRIVATE, name="dsm-private-nofallback", fallback=False)
PRESETS: tuple[DsmParams, ...] = (
    WELFARE,
    PRIVATE,
    WELFARE_RELEASE,
    WELFARE_V2,
    PRIVATE_V2,
    WELFARE_V1,
    PRIVATE_V1,
    PRIVATE_NOFALLBACK,
)
"""Every registered DSM spec: the two Table 9 presets as the paper ran them (the CalBench
release's client), DSM-Welfare with the release's single sub-round, the presets as they were
before issue 24 (``-v2``: offer-order choice, decision to every scorer, first-clearable
fallback), their `calendar-v1` forms (log scale, no fallback, outsiders offered only the plans
that move their meetings) and DSM-Private without its fallback."""


def level(cost: int | None, scale: str = "log", display: str = "linear") -> int:
    """Satisfaction level of a displacement cost in task units (None: infeasible).

    ``scale="shown"`` converts the cost to what the agent is shown (`display` is the
    scenario's ``cost_display``) and subtracts it from D-1, floored at 1, as the CalBench
    release's client does; ``"log"`` subtracts 1 + ceil(log2 cost)."""
    if cost is None:
        return 0
    if cost == 0:
        return D - 1
    if scale == "shown":
        shown = display_cost(cost) if display == "log10" else cost
        return max(1, D - 1 - shown)
    return max(1, D - 1 - satisfaction_cost(cost))


def scoring_cost(score: int) -> int:
    """C(s) = D - s - 1, paid for a positive score."""
    return D - score - 1 if score > 0 else 0


def reward(chosen: int, availability: int, offered: int) -> int:
    """R = (D-1-s*) + max(0, min(A, L) - 1), clipped to 0 at s* = 0 or D-1."""
    if chosen <= 0 or chosen >= D - 1:
        return 0
    return (D - 1 - chosen) + max(0, min(availability, offered) - 1)


def utility(size: int, p_hat: float, levels: list[int], params: DsmParams) -> float:
    """U(L) for the top-`size` local levels `levels` (sorted best first)."""
    p = 1.0 - (1.0 - p_hat) ** size
    v = sum(levels[:size]) / size / (D - 1)
    cost = params.theta * params.privacy_cost * size
    return p * v + params.w_soc * p - cost - params.beta * (1.0 - p)


def offer_size(p_hat: float, levels: list[int], params: DsmParams) -> tuple[int, float]:
    """The L in [L_min, min(L_max, len(levels))] maximising U(L), smaller on ties, and U."""
    top = min(params.l_max, len(levels))
    best = (params.l_min, utility(params.l_min, p_hat, levels, params))
    for size in range(params.l_min + 1, top + 1):
        u = utility(size, p_hat, levels, params)
        if u > best[1]:
            best = (size, u)
    return best


@dataclass(frozen=True)
class Plan:
    """An offered plan: id, slot for the meeting, prior meetings it displaces."""

    id: int
    slot: int
    moves: list[Move]

    def wire(self) -> PlanTuple:
        """The plan as it travels in a proposals message."""
        return (self.id, self.slot, self.moves)


@dataclass
class Candidate:
    """A plan before it is offered: its local level, slot and displacements."""

    level: int
    slot: int
    moves: list[Move]
    alt: int = 0
    """Position among the plans for the same slot (the release's tie-break)."""


def candidate_plans(view: View, params: DsmParams) -> list[Candidate]:
    """The initiator's plans, best local level first (see the module docstring)."""
    if params.chains == "release":
        return _release_candidates(view, params)
    cal = view.calendar

    def local(cost: int | None) -> int:
        return level(cost, params.scale, view.cost_display)

    out: list[Candidate] = []
    for slot, item in enumerate(cal):
        if item is None or item.kind == "errand":
            cost = plan_cost(cal, slot, ())
            if cost is not None:
                out.append(Candidate(local(cost), slot, []))
        elif params.cascade_depth >= 1 and reachable(view, item.participants):
            options: list[tuple[int, int, list[Move]]] = []
            for target in range(len(cal)):
                for moves in _displacements(view, params, slot, target):
                    cost = plan_cost(cal, slot, moves)
                    if cost is not None:
                        options.append((cost, target, moves))
                        break
            options.sort(key=lambda o: (o[0], o[1]))
            for cost, _, moves in options[: params.displacement_targets]:
                out.append(Candidate(local(cost), slot, moves))
    out.sort(key=lambda c: (-c.level, c.slot, len(c.moves)))
    return out


def _release_candidates(view: View, params: DsmParams) -> list[Candidate]:
    """The release's plans (`dsm_chains`): every schedulable slot, a meeting slot with its
    cheapest chains, ordered by local level, slot, then chain order."""
    cal = view.calendar
    out: list[Candidate] = []
    for slot in schedulable_slots(cal):
        item = cal[slot]
        options: list[list[Move]] = [[]]
        if item is not None and item.kind == "meeting":
            depth = params.cascade_depth
            options = dsm_chains.chains(view, slot, depth)[: params.displacement_targets]
        for alt, moves in enumerate(options):
            cost = dsm_chains.plan_cost(cal, slot, moves)
            out.append(Candidate(level(cost, params.scale, view.cost_display), slot, moves, alt))
    out.sort(key=lambda c: (-c.level, c.slot, c.alt))
    return out


def _displacements(view: View, params: DsmParams, slot: int, target: int) -> list[list[Move]]:
    """Move chains sending the meeting at `slot` to `target` (cascading once if allowed)."""
    cal = view.calendar
    held, there = cal[slot], cal[target]
    if held is None or target == slot:
        return []
    first: Move = (held.id, slot, target)
    if there is None or there.kind == "errand":
        return [[first]]
    if params.cascade_depth < 2 or not reachable(view, there.participants):
        return []
    return [
        [first, (there.id, target, onward)]
        for onward, item in enumerate(cal)
        if onward not in (slot, target) and (item is None or item.kind == "errand")
    ]


def p_hat(calendar: Calendar, responders: int) -> float:
    """Joint feasibility of one slot estimated from the initiator's own calendar: its density
    ρ (share of occupied slots, §3 "Calendar density") taken as every responder's, so
    p̂ = (1 - ρ)^R for R responders."""
    rho = sum(item is not None for item in calendar) / max(1, len(calendar))
    return (1.0 - rho) ** max(1, responders)


def schedulable_slots(calendar: Calendar) -> list[int]:
    """The slots the release's client treats as schedulable: free ones, and any holding an
    errand or a meeting while some other slot is free (blocked errands excluded)."""
    free = [s for s, item in enumerate(calendar) if item is None]
    return [
        s
        for s, item in enumerate(calendar)
        if item is None or (not item.blocked and any(f != s for f in free))
    ]
