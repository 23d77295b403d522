"""Scenario generation by simulated annealing (seed 004 §3.1).

Six projects (three per seat) start random: one or two resource types, 1-6 units of each,
reward 1-10 per run, as in App. C. Each step perturbs one thing — a requirement, a reward, or
which seat owns a project (a swap between the two portfolios) — and the Metropolis rule keeps
or drops the change under a geometric temperature schedule. The loss adds (weights 4, 2,
1 + 0.25, 0.5 and 2, in this order):

- ``|M/C - target|`` (the compatibility ratio, `oracle.solve`);
- ``|V1 - V2| / max(V1, V2)`` (equal individual maxima);
- swap fairness: ``max(0, M - 2 best_0) + max(0, M - 2 best_1)`` over ``M``, where
  ``best_i`` is seat i's highest reward among the joint optima, plus a lighter
  ``|best_0 - best_1| / M`` that prefers fully symmetric optima;
- 1 when there is a single joint optimum;
- the share of projects whose single run is not affordable alone (budget, type limit, supply).

A state is accepted, and the search stops, when every hard constraint holds: ratio within
``target ± tolerance``, ``V1 == V2 > 0``, both seats favoured (or tied) in some joint optimum
(`OracleResult.swap_fair`; with ``exact_swap`` also ``best_0 == best_1``), at least two joint
optima, and every project affordable. The paper's own pool meets these (``exact_swap`` aside:
3 of its 15 scenarios have ``best_0 != best_1``). The paper further filtered scenarios by
whether the studied models could solve them alone (pass@1); that step needs models and is not
done here.

Everything random comes from ``make_rng(seed, "negotiation-generate", ratio, restart)``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from accord.core.errors import AccordError, ActionError
from accord.core.rng import make_rng
from accord.games.negotiation import oracle, rules
from accord.games.negotiation.scenario import RESOURCES, Market, Project, Scenario

NAMES: tuple[str, ...] = ("project_a", "project_b", "project_c")
MAX_QTY = 6
MAX_REWARD = 10


class ScenarioGenerationError(AccordError):
    """Annealing found no scenario meeting every constraint within its iteration budget."""


_Req = tuple[int, ...]  # units per resource, RESOURCES order
_State = tuple[tuple[_Req, int], ...]  # six (requirements, reward); 0-2 seat 0, 3-5 seat 1


@dataclass(frozen=True)
class _Eval:
    loss: float
    error: float  # |M/C - target|
    ok: bool


def _portfolio(state: _State, seat: int) -> tuple[Project, ...]:
    return tuple(
        Project(
            name=NAMES[i],
            requirements={r: q for r, q in zip(RESOURCES, req, strict=True) if q},
            reward=rew,
        )
        for i, (req, rew) in enumerate(state[3 * seat : 3 * seat + 3])
    )


def affordable(market: Market, project: Project) -> bool:
    """One run of the project can be bought by one agent alone (budget, types, supply)."""
    try:
        rules.check_purchase(market, project.requirements)
    except ActionError:
        return False
    return not rules.overdrawn(market, [project.requirements])


def _evaluate(
    market: Market, state: _State, target: float, tolerance: float, exact_swap: bool
) -> _Eval:
    p0, p1 = _portfolio(state, 0), _portfolio(state, 1)
    res = oracle.solve(market, Scenario(id="candidate", agents=(p0, p1)))
    unaffordable = sum(not affordable(market, p) for p in (*p0, *p1))
    m = max(res.m, 1)
    hi0, hi1 = res.payoff_ranges[0][1], res.payoff_ranges[1][1]
    swap_hinge = (max(0, res.m - 2 * hi0) + max(0, res.m - 2 * hi1)) / m
    swap_gap = res.swap_gap / m
    loss = (
        4.0 * abs(res.ratio - target)
        + 2.0 * abs(res.v1 - res.v2) / max(res.v1, res.v2, 1)
        + swap_hinge
        + (1.0 if exact_swap else 0.25) * swap_gap
        + 0.5 * (len(res.joint_optima) < 2)
        + 2.0 * unaffordable / 6
    )
    ok = (
        abs(res.ratio - target) <= tolerance + 1e-9  # inclusive, up to float rounding
        and res.v1 == res.v2 > 0
        and res.swap_fair
        and (res.swap_gap == 0 or not exact_swap)
        and len(res.joint_optima) >= 2
        and unaffordable == 0
    )
    return _Eval(loss, abs(res.ratio - target), ok)


def _random_req(rng: random.Random) -> _Req:
    kinds = rng.sample(range(len(RESOURCES)), rng.choice((1, 2)))
    return tuple(rng.randint(1, MAX_QTY) if i in kinds else 0 for i in range(len(RESOURCES)))


def _random_state(rng: random.Random) -> _State:
    return tuple((_random_req(rng), rng.randint(1, MAX_REWARD)) for _ in range(6))


def _perturb_req(rng: random.Random, req: _Req) -> _Req:
    q = list(req)
    used = [i for i, x in enumerate(q) if x]
    free = [i for i, x in enumerate(q) if not x]
    move = rng.random()
    if move < 0.5:  # nudge one quantity
        i = rng.choice(used)
        q[i] = min(MAX_QTY, max(1, q[i] + rng.choice((-2, -1, 1, 2))))
    elif move < 0.75 and free:  # swap which resource a requirement uses
        i, j = rng.choice(used), rng.choice(free)
        q[j], q[i] = q[i], 0
    elif len(used) == 1 and free:  # add a second resource
        q[rng.choice(free)] = rng.randint(1, MAX_QTY)
    elif len(used) == 2:  # drop one of two resources
        q[rng.choice(used)] = 0
    else:
        return _random_req(rng)
    return tuple(q)


def _neighbour(rng: random.Random, state: _State) -> _State:
    s = list(state)
    move = rng.random()
    if move < 0.5:
        i = rng.randrange(6)
        s[i] = (_perturb_req(rng, s[i][0]), s[i][1])
    elif move < 0.8:
        i = rng.randrange(6)
        rew = s[i][1] + rng.choice((-3, -2, -1, 1, 2, 3))
        s[i] = (s[i][0], min(MAX_REWARD, max(1, rew)))
    else:  # reassign: one project of each seat changes hands
        i, j = rng.randrange(3), 3 + rng.randrange(3)
        s[i], s[j] = s[j], s[i]
    return tuple(s)


def _format_ratio(ratio: float) -> str:
    return repr(float(ratio))  # 0.5 -> "0.5", 1 -> "1.0", like the pool ids


def generate_scenario(
    target_ratio: float,
    seed: int,
    market: Market | None = None,
    *,
    tolerance: float = 0.05,
    max_iters: int = 4000,
    restarts: int = 8,
    polish_iters: int = 200,
    t_start: float = 0.3,
    t_end: float = 0.003,
    exact_swap: bool = False,
) -> Scenario:
    """Anneal a scenario whose ``M/C`` is within ``target_ratio ± tolerance``.

    Deterministic in ``(target_ratio, seed, market, options)``. The id is
    ``generated/<ratio>/<seed>``. Each of `restarts` runs starts from a fresh random state
    and cools from `t_start` to `t_end` over `max_iters` steps; the first acceptable state is
    then polished for `polish_iters` steps towards the exact target ratio. Raises
    `ScenarioGenerationError` when no run reaches a state meeting every constraint.
    """
    market = market or Market()
    if not 0.5 - tolerance <= target_ratio <= 1.0:
        # M >= max(V1, V2) >= C / 2 (one seat may simply yield), so M/C is never below 0.5.
        raise ScenarioGenerationError(
            f"target_ratio must lie in [0.5, 1.0] (M/C cannot fall below 0.5), got {target_ratio}"
        )
    if max_iters < 1 or restarts < 1 or polish_iters < 0:
        raise ScenarioGenerationError(
            "max_iters and restarts must be at least 1, polish_iters at least 0"
        )
    label = _format_ratio(target_ratio)
    cooling = (t_end / t_start) ** (1.0 / max(1, max_iters - 1))
    for restart in range(restarts):
        rng = make_rng(seed, "negotiation-generate", label, restart)
        state = _random_state(rng)
        current = _evaluate(market, state, target_ratio, tolerance, exact_swap)
        temp = t_start
        for _ in range(max_iters):
            if current.ok:
                break
            cand = _neighbour(rng, state)
            trial = _evaluate(market, cand, target_ratio, tolerance, exact_swap)
            delta = trial.loss - current.loss
            # Metropolis: always take improvements and any acceptable state; sometimes take a
            # worse one to escape plateaus (rewards and M are integers, so the loss is flat in
            # many directions).
            if trial.ok or delta <= 0 or rng.random() < math.exp(-delta / temp):
                state, current = cand, trial
            temp *= cooling
        if not current.ok:
            continue
        # Polish: the first acceptable state often sits at the edge of the tolerance band.
        # Keep annealing at the final temperature (through unacceptable states too) and keep
        # the acceptable state closest to the target ratio (then with the lowest loss).
        best, best_eval = state, current
        for _ in range(polish_iters):
            cand = _neighbour(rng, state)
            trial = _evaluate(market, cand, target_ratio, tolerance, exact_swap)
            delta = trial.loss - current.loss
            if delta <= 0 or rng.random() < math.exp(-delta / t_end):
                state, current = cand, trial
                if current.ok and (current.error, current.loss) < (best_eval.error, best_eval.loss):
                    best, best_eval = state, current
        state = best
        return Scenario(
            id=f"generated/{label}/{seed}",
            agents=(_portfolio(state, 0), _portfolio(state, 1)),
            target_ratio=target_ratio,
        )
    raise ScenarioGenerationError(
        f"no scenario with M/C within {target_ratio:g} ± {tolerance:g} found for seed {seed} "
        f"after {restarts} restarts of {max_iters} steps; raise max_iters or restarts, widen "
        "the tolerance, or try another seed"
    )
