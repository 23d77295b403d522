"""Exact oracle of the negotiation game (seed 004 §3, §3.1, App. C).

A *plan* is a vector of runs, one entry per project of an agent's portfolio. Its *needs* are
the resources those runs consume (`rules.run_needs`); the plan is feasible when the needs,
bought as a purchase, pass `rules.check_purchase` (at most `max_types` types, within budget)
and stay within the supply. Buying more than the needs never raises a reward, so the minimal
purchase of a plan is its needs, and searching over plans is the same as searching over
purchases (`brute_force` checks this the slow way).

- ``V_i`` (`individual_max`): best reward of agent i alone, with the full supply.
- ``C = V_1 + V_2``: what both would get if their individual optima never collided.
- ``M`` (`joint_max`): best joint reward over pairs of plans whose needs fit the supply
  together; ``M / C`` is the compatibility ratio of §3.1.
- joint optima (`joint_optima`): every plan pair reaching ``M``.

Runs of zero-reward projects are never part of a plan: they only consume resources, and
allowing them would multiply the joint optima by pointless variants.

Speed: each portfolio's plans are enumerated once (depth-first over projects; adding a run
only grows the needs, so a branch stops at the first infeasible count) and cached by
(market, portfolio). ``M`` pairs the two Pareto fronts (highest reward first, with early
exits); the optima are then listed by matching plans on the complementary reward.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Generic, TypeVar

from accord.core.errors import ActionError
from accord.games.negotiation import rules
from accord.games.negotiation.scenario import RESOURCES, Market, Project, Scenario

Need = tuple[int, ...]
"""Units of each resource, in `RESOURCES` order."""

_EPS = 1e-9
_CACHE_SIZE = 4096

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class Plan:
    """One feasible plan of an agent: runs per project (portfolio order), needs, reward."""

    runs: tuple[int, ...]
    need: Need
    reward: int


@dataclass(frozen=True, slots=True)
class JointOptimum:
    """A pair of plans reaching the joint maximum ``M``.

    `runs[i]` and `purchases[i]` are seat i's project runs and minimal purchase (zero entries
    dropped); `rewards[i]` is its reward. Treat the dicts as read-only.
    """

    runs: tuple[rules.Runs, rules.Runs]
    purchases: tuple[rules.Purchase, rules.Purchase]
    rewards: tuple[int, int]

    def as_dict(self) -> dict[str, object]:
        """JSON-able form (used by `pool.scenario_json`)."""
        return {
            "runs": [dict(r) for r in self.runs],
            "purchases": [dict(p) for p in self.purchases],
            "rewards": list(self.rewards),
        }


@dataclass(frozen=True, slots=True)
class OracleResult:
    """Everything the oracle knows about one scenario (seed 004 §3.1).

    Attributes:
        v1, v2: each agent's individual maximum ``V_i``.
        m: the joint maximum ``M``.
        joint_optima: every plan pair reaching ``M``, ordered by seat 0's reward (highest
            first), then by the runs of seat 0 and seat 1.
        payoff_ranges: ``(lowest, highest)`` reward of each seat among the joint optima.
    """

    v1: int
    v2: int
    m: int
    joint_optima: tuple[JointOptimum, ...]
    payoff_ranges: tuple[tuple[int, int], tuple[int, int]]

    @property
    def c(self) -> int:
        """``C = V_1 + V_2``."""
        return self.v1 + self.v2

    @property
    def ratio(self) -> float:
        """Compatibility ratio ``M / C`` (0.0 in the degenerate case ``C = 0``)."""
        return self.m / self.c if self.c else 0.0

    @property
    def swap_gap(self) -> int:
        """``|best_0 - best_1|``: how unevenly the joint optima can favour the two seats.

        ``best_i`` is seat i's highest reward among the joint optima. Zero means the most
        favourable optimum for either seat pays the same.
        """
        return abs(self.payoff_ranges[0][1] - self.payoff_ranges[1][1])

    @property
    def swap_fair(self) -> bool:
        """Each seat is favoured (or tied) in at least one joint optimum.

        Formally ``2 * best_i >= M`` for both seats: some optimum gives seat 0 at least half of
        ``M`` and some gives seat 1 at least half. All 15 scenarios of App. C satisfy this;
        three of them do not satisfy the stricter ``swap_gap == 0``.
        """
        return all(2 * hi >= self.m for _, hi in self.payoff_ranges)


def is_optimal(joint_reward: int, m: int) -> bool:
    """True when a round's joint reward reaches the joint maximum ``M``."""
    return joint_reward >= m


# -- keys and caches -----------------------------------------------------------------------

_MarketKey = tuple[tuple[int, ...], tuple[float, ...], float, int]
_PortfolioKey = tuple[tuple[str, tuple[int, ...], int], ...]


def _market_key(market: Market) -> _MarketKey:
    # Market and Project hold dicts, so they are not hashable; cache on plain tuples.
    return (
        tuple(market.supply[r] for r in RESOURCES),
        tuple(market.costs[r] for r in RESOURCES),
        market.budget,
        market.max_types,
    )


def _portfolio_key(projects: Sequence[Project]) -> _PortfolioKey:
    return tuple(
        (p.name, tuple(p.requirements.get(r, 0) for r in RESOURCES), p.reward) for p in projects
    )


class _Cache(Generic[K, V]):
    """A small bounded LRU map (results are immutable tuples, safe to share)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._data: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._data[key] = value
        if len(self._data) > self._size:
            self._data.popitem(last=False)

    def clear(self) -> None:
        self._data.clear()


_plans_cache: _Cache[tuple[_MarketKey, _PortfolioKey], tuple[Plan, ...]] = _Cache(_CACHE_SIZE)
_Solution = tuple[int, int, int, tuple[tuple[Plan, Plan], ...]]
_solve_cache: _Cache[tuple[_MarketKey, _PortfolioKey, _PortfolioKey], _Solution] = _Cache(
    _CACHE_SIZE
)


def clear_caches() -> None:
    """Forget cached plans and solutions (for cold-start timings in ``bench/``)."""
    _plans_cache.clear()
    _solve_cache.clear()


# -- plans ---------------------------------------------------------------------------------


def agent_plans(market: Market, projects: Sequence[Project]) -> tuple[Plan, ...]:
    """Every feasible plan of one agent (including doing nothing), cached.

    Order: depth-first over projects in portfolio order, fewer runs first.
    """
    key = (_market_key(market), _portfolio_key(projects))
    cached = _plans_cache.get(key)
    if cached is None:
        cached = _enumerate_plans(market, projects)
        _plans_cache.put(key, cached)
    return cached


def _enumerate_plans(market: Market, projects: Sequence[Project]) -> tuple[Plan, ...]:
    supply = tuple(market.supply[r] for r in RESOURCES)
    costs = tuple(market.costs[r] for r in RESOURCES)
    reqs = [tuple(p.requirements.get(r, 0) for r in RESOURCES) for p in projects]
    zero: Need = tuple(0 for _ in RESOURCES)

    def fits(need: Need) -> bool:
        # Same test as rules.check_purchase plus the supply cap, inlined because it runs for
        # every candidate; tests/games/negotiation/test_oracle.py checks the two agree.
        if sum(1 for q in need if q) > market.max_types:
            return False
        if any(q > s for q, s in zip(need, supply, strict=True)):
            return False
        return sum(q * c for q, c in zip(need, costs, strict=True)) <= market.budget + _EPS

    plans: list[Plan] = []

    def extend(i: int, need: Need, runs: tuple[int, ...], value: int) -> None:
        if i == len(projects):
            plans.append(Plan(runs, need, value))
            return
        extend(i + 1, need, (*runs, 0), value)
        if projects[i].reward <= 0:
            return
        k = 0
        while True:
            need = tuple(a + b for a, b in zip(need, reqs[i], strict=True))
            if not fits(need):
                return  # more runs only need more, so no larger count fits either
            k += 1
            value += projects[i].reward
            extend(i + 1, need, (*runs, k), value)

    extend(0, zero, (), 0)
    return tuple(plans)


def _pareto(plans: Sequence[Plan]) -> list[Plan]:
    """Plans no other plan beats with needs that are no larger; highest reward first."""
    best: dict[Need, Plan] = {}
    for p in plans:
        if p.need not in best or p.reward > best[p.need].reward:
            best[p.need] = p
    front: list[Plan] = []
    for p in sorted(best.values(), key=lambda p: (-p.reward, sum(p.need), p.need)):
        # Everything already kept pays at least as much, so p survives only if none of them
        # needs less in every resource.
        if not any(all(a <= b for a, b in zip(q.need, p.need, strict=True)) for q in front):
            front.append(p)
    return front


def _fits_with(a: Need, b: Need, supply: Need) -> bool:
    return all(x + y <= s for x, y, s in zip(a, b, supply, strict=True))


def _solve_plans(market: Market, p0: Sequence[Project], p1: Sequence[Project]) -> _Solution:
    key = (_market_key(market), _portfolio_key(p0), _portfolio_key(p1))
    cached = _solve_cache.get(key)
    if cached is not None:
        return cached
    plans0, plans1 = agent_plans(market, p0), agent_plans(market, p1)
    supply: Need = tuple(market.supply[r] for r in RESOURCES)
    v1 = max(p.reward for p in plans0)
    v2 = max(p.reward for p in plans1)

    front0, front1 = _pareto(plans0), _pareto(plans1)
    m = 0
    for a in front0:
        if a.reward + front1[0].reward <= m:
            break  # front0 is sorted by reward, so no later plan can do better
        for b in front1:
            if a.reward + b.reward <= m:
                break
            if _fits_with(a.need, b.need, supply):
                m = a.reward + b.reward
                break

    by_reward: dict[int, list[Plan]] = {}
    for b in plans1:
        by_reward.setdefault(b.reward, []).append(b)
    pairs = [
        (a, b)
        for a in plans0
        for b in by_reward.get(m - a.reward, ())
        if _fits_with(a.need, b.need, supply)
    ]
    pairs.sort(key=lambda ab: (-ab[0].reward, ab[0].runs, ab[1].runs))
    solution = (v1, v2, m, tuple(pairs))
    _solve_cache.put(key, solution)
    return solution


def _runs_dict(projects: Sequence[Project], runs: tuple[int, ...]) -> rules.Runs:
    return {p.name: k for p, k in zip(projects, runs, strict=True) if k > 0}


def _optimum(p0: Sequence[Project], p1: Sequence[Project], a: Plan, b: Plan) -> JointOptimum:
    runs = (_runs_dict(p0, a.runs), _runs_dict(p1, b.runs))
    # The published purchase and reward come from the rules, not from the search's tuples.
    purchases = (rules.run_needs(p0, runs[0]), rules.run_needs(p1, runs[1]))
    return JointOptimum(runs, purchases, (rules.reward(p0, runs[0]), rules.reward(p1, runs[1])))


# -- public API ----------------------------------------------------------------------------


def individual_max(market: Market, projects: Sequence[Project]) -> int:
    """``V_i``: the best reward one agent can reach alone with the full supply."""
    return max(p.reward for p in agent_plans(market, projects))


def joint_max(market: Market, p0: Sequence[Project], p1: Sequence[Project]) -> int:
    """``M``: the best joint reward of two plans whose needs fit the supply together."""
    return _solve_plans(market, p0, p1)[2]


def joint_optima(
    market: Market, p0: Sequence[Project], p1: Sequence[Project]
) -> tuple[JointOptimum, ...]:
    """Every pair of plans reaching ``M`` (order as in `OracleResult.joint_optima`)."""
    return tuple(_optimum(p0, p1, a, b) for a, b in _solve_plans(market, p0, p1)[3])


def solve(market: Market, scenario: Scenario) -> OracleResult:
    """``V_1``, ``V_2``, ``M``, the joint optima and each seat's payoff range among them."""
    p0, p1 = scenario.agents
    v1, v2, m, pairs = _solve_plans(market, p0, p1)
    optima = tuple(_optimum(p0, p1, a, b) for a, b in pairs)
    ranges = tuple(
        (min(o.rewards[i] for o in optima), max(o.rewards[i] for o in optima)) for i in (0, 1)
    )
    return OracleResult(v1, v2, m, optima, (ranges[0], ranges[1]))


# -- slow reference ------------------------------------------------------------------------


def _all_purchases(market: Market) -> list[rules.Purchase]:
    """Every purchase one agent may make that does not exceed the supply on its own."""
    out: list[rules.Purchase] = []
    for qs in product(*(range(market.supply[r] + 1) for r in RESOURCES)):
        purchase = rules.normalize_purchase(dict(zip(RESOURCES, qs, strict=True)))
        try:
            rules.check_purchase(market, purchase)
        except ActionError:
            continue
        out.append(purchase)
    return out


def _best_use(projects: Sequence[Project], purchase: rules.Purchase) -> int:
    """Best reward from a purchase, by trying every run vector it could cover."""
    caps = [min(purchase.get(r, 0) // q for r, q in p.requirements.items()) for p in projects]
    best = 0
    for ks in product(*(range(c + 1) for c in caps)):
        runs = {p.name: k for p, k in zip(projects, ks, strict=True)}
        if rules.covers(purchase, rules.run_needs(projects, runs)):
            best = max(best, rules.reward(projects, runs))
    return best


def brute_force(market: Market, scenario: Scenario) -> tuple[int, int, int]:
    """``(V_1, V_2, M)`` by the naive route: every pair of legal purchases, rules only.

    Slow on purpose; the reference that tests and ``bench/`` compare `solve` against.
    """
    purchases = _all_purchases(market)
    values = [[_best_use(projects, p) for p in purchases] for projects in scenario.agents]
    m = 0
    for i, a in enumerate(purchases):
        for j, b in enumerate(purchases):
            total = values[0][i] + values[1][j]
            if total > m and not rules.overdrawn(market, [a, b]):
                m = total
    return max(values[0]), max(values[1]), m
