"""Negotiation rules as pure functions over frozen values (seed 004 §3, App. D.1).

The engine, the oracle, the reference agents and the metrics all call these; none re-derives
the rules. Purchases and runs use abstract resource ids (``r1..r3``) and project names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from accord.core.errors import ActionError
from accord.games.negotiation.scenario import RESOURCES, Market, Project

Purchase = dict[str, int]
Runs = dict[str, int]

_EPS = 1e-9


def normalize_purchase(purchase: Mapping[str, int]) -> Purchase:
    """Drop zero entries and order by resource id (two equal purchases compare equal)."""
    return {r: int(purchase[r]) for r in RESOURCES if int(purchase.get(r, 0)) > 0}


def purchase_cost(market: Market, purchase: Mapping[str, int]) -> float:
    """Total price of a purchase."""
    return sum(market.costs[r] * q for r, q in purchase.items())


def check_purchase(market: Market, purchase: Mapping[str, int]) -> None:
    """Raise `ActionError` unless the purchase is allowed for one agent (App. D.1.1).

    Allowed: non-negative integer quantities of known resources, at most `max_types` types,
    total cost within the budget. Buying more than the supply is allowed: it is a legal move
    that annuls the round.
    """
    for r, q in purchase.items():
        if r not in RESOURCES:
            raise ActionError(f"unknown resource {r!r}")
        if not isinstance(q, int) or isinstance(q, bool) or q < 0:
            raise ActionError(f"quantity of {r!r} must be a non-negative integer, got {q!r}")
    p = normalize_purchase(purchase)
    if len(p) > market.max_types:
        raise ActionError(
            f"you chose {len(p)} resource types; at most {market.max_types} are allowed"
        )
    cost = purchase_cost(market, p)
    if cost > market.budget + _EPS:
        raise ActionError(f"total cost {cost:g} exceeds your budget of {market.budget:g}")


def run_needs(projects: Sequence[Project], runs: Mapping[str, int]) -> Purchase:
    """Resources needed to complete `runs` of each project."""
    by_name = {p.name: p for p in projects}
    need: dict[str, int] = dict.fromkeys(RESOURCES, 0)
    for name, k in runs.items():
        for r, q in by_name[name].requirements.items():
            need[r] += q * k
    return normalize_purchase(need)


def covers(purchase: Mapping[str, int], need: Mapping[str, int]) -> bool:
    """True when `purchase` holds at least `need` of every resource."""
    return all(purchase.get(r, 0) >= q for r, q in need.items())


def check_runs(
    projects: Sequence[Project], purchase: Mapping[str, int], runs: Mapping[str, int]
) -> None:
    """Raise `ActionError` unless `runs` names known projects and the purchase covers them."""
    check_run_names(projects, runs)
    need = run_needs(projects, runs)
    if not covers(purchase, need):
        short = {r: q - purchase.get(r, 0) for r, q in need.items() if purchase.get(r, 0) < q}
        raise ActionError(f"your purchase cannot cover those project runs: short by {short}")


def assign_runs(projects: Sequence[Project], purchase: Mapping[str, int]) -> Runs:
    """Runs chosen by the engine when an agent omits ``projects`` (App. D.1.3).

    Projects are taken in the order shown to the agent; each gets as many runs as the
    remaining resources allow.
    """
    left = dict(purchase)
    runs: Runs = {}
    for p in projects:
        k = min(left.get(r, 0) // q for r, q in p.requirements.items())
        if k > 0:
            runs[p.name] = k
            for r, q in p.requirements.items():
                left[r] -= q * k
    return runs


def check_run_names(projects: Sequence[Project], runs: Mapping[str, int]) -> None:
    """Raise `ActionError` unless `runs` names known projects with non-negative integers."""
    names = {p.name for p in projects}
    for name, k in runs.items():
        if name not in names:
            raise ActionError(f"unknown project {name!r}; your projects are {sorted(names)}")
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            raise ActionError(f"runs of {name!r} must be a non-negative integer, got {k!r}")


def resolve_runs(
    projects: Sequence[Project], purchase: Mapping[str, int], runs: Mapping[str, int] | None
) -> Runs:
    """The runs a purchase completes for stated `runs` (seed 004 companion code semantics).

    Without stated runs (None or empty) this is `assign_runs`. Otherwise, in the order the
    projects were shown, each project gets its stated runs capped at what the remaining
    resources supply; then whatever is left fills further runs in the same order, as
    `assign_runs` does. Stated runs the purchase covers are therefore kept exactly.
    """
    if not runs:
        return assign_runs(projects, purchase)
    left = dict(purchase)
    out: Runs = {}
    for p in projects:
        want = int(runs.get(p.name, 0))
        k = min(want, min(left.get(r, 0) // q for r, q in p.requirements.items()))
        if k > 0:
            out[p.name] = k
            for r, q in p.requirements.items():
                left[r] -= q * k
    for name, k in assign_runs(projects, left).items():
        out[name] = out.get(name, 0) + k
    return {p.name: out[p.name] for p in projects if p.name in out}


def reward(projects: Sequence[Project], runs: Mapping[str, int]) -> int:
    """Sum of runs × reward per run."""
    by_name = {p.name: p for p in projects}
    return sum(by_name[n].reward * k for n, k in runs.items())


def overdrawn(market: Market, purchases: Sequence[Mapping[str, int]]) -> bool:
    """True when total demand for any resource exceeds its supply (round annulled)."""
    return any(sum(p.get(r, 0) for p in purchases) > market.supply[r] for r in RESOURCES)


@dataclass(frozen=True)
class Decision:
    """One agent's final move of a round: what it bought and which runs it claims."""

    purchase: Purchase
    runs: Runs | None = None


@dataclass(frozen=True)
class RoundOutcome:
    """The resolution of one round (seed 004 §3)."""

    annulled: bool
    purchases: tuple[Purchase, ...]
    runs: tuple[Runs, ...]
    rewards: tuple[int, ...]

    @property
    def joint_reward(self) -> int:
        """Sum of both agents' rewards."""
        return sum(self.rewards)


def resolve_round(
    market: Market, portfolios: Sequence[Sequence[Project]], decisions: Sequence[Decision]
) -> RoundOutcome:
    """Resolve simultaneous decisions: annul on overdraw, else reward each agent's runs.

    Runs come from `resolve_runs` (stated runs capped, leftovers filled). An agent whose
    purchase completes no run earns 0 (not an annulment). Unspent money is worth nothing.
    """
    purchases = tuple(normalize_purchase(d.purchase) for d in decisions)
    runs = tuple(
        {n: k for n, k in resolve_runs(pr, pu, d.runs).items() if k > 0}
        for d, pr, pu in zip(decisions, portfolios, purchases, strict=True)
    )
    if overdrawn(market, purchases):
        return RoundOutcome(True, purchases, runs, tuple(0 for _ in decisions))
    rewards = tuple(reward(pr, ru) for pr, ru in zip(portfolios, runs, strict=True))
    return RoundOutcome(False, purchases, runs, rewards)
