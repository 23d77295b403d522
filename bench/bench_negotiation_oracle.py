"""Negotiation oracle vs the naive search over every pair of legal purchases (seed 004 §3.1).

Times `oracle.solve` (cold caches) and `oracle.brute_force` on the 15 scenarios of the
``paper`` pool and on 50 random scenarios drawn like App. C's (three projects per seat, 1-2
resource types, 1-6 units, reward 1-10), checks that V1, V2 and M agree, and prints the speed
ratio. Prints only; never asserts a time.

    python bench/bench_negotiation_oracle.py [--random 50] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import time

from accord.core.rng import make_rng
from accord.games.negotiation import oracle
from accord.games.negotiation.pool import load_pool
from accord.games.negotiation.scenario import RESOURCES, Market, Project, Scenario


def random_scenario(seed: int, index: int) -> Scenario:
    rng = make_rng(seed, "bench-negotiation-oracle", index)
    seats = []
    for _ in range(2):
        projects = []
        for name in ("project_a", "project_b", "project_c"):
            kinds = rng.sample(RESOURCES, rng.choice((1, 2)))
            req = {r: rng.randint(1, 6) for r in kinds}
            projects.append(Project(name=name, requirements=req, reward=rng.randint(1, 10)))
        seats.append(tuple(projects))
    return Scenario(id=f"random/{index}", agents=(seats[0], seats[1]))


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=50, help="number of random scenarios")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    market = Market()
    groups = {
        "paper pool": load_pool(),
        "random": [random_scenario(args.seed, i) for i in range(args.random)],
    }
    print(
        f"{'set':<11} {'n':>3} {'oracle ms':>10} {'warm ms':>8} {'naive ms':>9} "
        f"{'ratio':>7} {'agree':>6}"
    )
    all_fast: list[float] = []
    all_slow: list[float] = []
    for label, scenarios in groups.items():
        fast, warm, slow, agree = [], [], [], 0
        for sc in scenarios:
            oracle.clear_caches()
            res, t_cold = timed(oracle.solve, market, sc)
            _, t_warm = timed(oracle.solve, market, sc)
            naive, t_naive = timed(oracle.brute_force, market, sc)
            fast.append(t_cold)
            warm.append(t_warm)
            slow.append(t_naive)
            agree += naive == (res.v1, res.v2, res.m)
        all_fast += fast
        all_slow += slow
        print(
            f"{label:<11} {len(scenarios):>3} {1e3 * statistics.median(fast):>10.3f} "
            f"{1e3 * statistics.median(warm):>8.3f} {1e3 * statistics.median(slow):>9.2f} "
            f"{sum(slow) / sum(fast):>6.1f}x {agree:>3}/{len(scenarios)}"
        )
    print(
        f"overall: oracle {sum(all_fast):.3f}s, naive {sum(all_slow):.3f}s, "
        f"speed ratio {sum(all_slow) / sum(all_fast):.1f}x (target >= 10x); "
        "per-set columns are medians per scenario, ratio is total naive / total oracle"
    )


if __name__ == "__main__":
    main()
