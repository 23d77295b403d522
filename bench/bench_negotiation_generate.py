"""Seconds per accepted scenario of the annealing generator (seed 004 §3.1), per target ratio.

Prints median / min / max over seeds and how many seeds failed; never asserts a time.

    python bench/bench_negotiation_generate.py [--seeds 10]
"""

from __future__ import annotations

import argparse
import statistics
import time

from accord.games.negotiation import oracle
from accord.games.negotiation.generate import ScenarioGenerationError, generate_scenario
from accord.games.negotiation.scenario import Market


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds per ratio (0..N-1)")
    args = parser.parse_args()

    market = Market()
    print(
        f"{'ratio':>5} {'median s':>9} {'min s':>7} {'max s':>7} {'failed':>6} "
        f"{'mean |M/C - target|':>20}"
    )
    for ratio in (0.5, 0.8, 1.0):
        times: list[float] = []
        errors: list[float] = []
        failed = 0
        for seed in range(args.seeds):
            oracle.clear_caches()  # each scenario pays for its own oracle calls
            start = time.perf_counter()
            try:
                scenario = generate_scenario(ratio, seed, market)
            except ScenarioGenerationError:
                failed += 1
                continue
            times.append(time.perf_counter() - start)
            errors.append(abs(oracle.solve(market, scenario).ratio - ratio))
        if times:
            print(
                f"{ratio:>5} {statistics.median(times):>9.3f} {min(times):>7.3f} "
                f"{max(times):>7.3f} {failed:>6} {statistics.fmean(errors):>20.4f}"
            )
        else:
            print(f"{ratio:>5} {'-':>9} {'-':>7} {'-':>7} {failed:>6} {'-':>20}")


if __name__ == "__main__":
    main()
