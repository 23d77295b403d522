"""Calendar games benchmark: prints numbers, asserts nothing.

A whole suite (default: the canonical 90 tasks of CalBench §4.1) played by a team of scripted
``oracle-follower`` seats, three ways in the same run:

1. baseline: the solver work scoring needs per task, alone (`compute_oracle` for the trace's
   scenario view, plus the full and scheduled-subset optima and the worst schedule that
   `metrics.game_metrics` solves), so the harness overhead shows as a ratio against it;
2. in process: `play_game` on one game after another (engine, agents, metrics, trace object);
3. through the runner: `run_sync` with --concurrency games in flight, writing every trace.

It also counts games that did not reach the oracle (success 100% at exactly the oracle cost).

Usage: python bench/bench_calendar_games.py [--suite canonical|calbench-uniform|calbench-varied]
       [--concurrency N]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from accord.games.calendar import compute_oracle, load_suite, optimal_schedule, worst_schedule
from accord.games.calendar.metrics import level_scenario
from accord.runner.play import play_game
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec


def specs_for(suite: str) -> list[GameSpec]:
    tasks = load_suite(suite)
    return [
        GameSpec(
            trace_id=f"bench-{i:03d}",
            game="calendar-v2",
            options={"suite": suite, "task": i},
            seed=i,
            agents=[AgentSpec(agent="oracle-follower")] * task.num_agents,
        )
        for i, task in enumerate(tasks)
    ]


def baseline(suite: str) -> float:
    """Seconds of solver work for scoring every task once (what any harness must pay)."""
    start = time.perf_counter()
    for task in load_suite(suite):
        compute_oracle(task)
        level = level_scenario(task)
        optimal_schedule(level)
        optimal_schedule(level, [m.id for m in task.meetings])
        worst_schedule(level)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="canonical")
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()

    specs = specs_for(args.suite)
    n = len(specs)
    asyncio.run(play_game(specs[0]))  # warm-up: loads the suite and the solver once

    base_s = baseline(args.suite)
    print(f"{args.suite}: {n} tasks, oracle-follower in every seat")
    print(f"  baseline (scoring solver work only): {base_s:.2f} s, {n / base_s:.1f} tasks/s")

    start = time.perf_counter()
    off = 0
    for spec in specs:
        trace = asyncio.run(play_game(spec))
        m = trace.metrics
        exact = m.get("success_rate") == 1.0 and m.get("total_cost") == m.get("oracle_cost")
        off += trace.status != "complete" or not exact
    play_s = time.perf_counter() - start
    print(
        f"  in process: {play_s:.2f} s, {n / play_s:.1f} games/s "
        f"({play_s / base_s:.2f}x the baseline); games off the oracle: {off}"
    )

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        report = run_sync(specs, Path(tmp), concurrency=args.concurrency)
        run_s = time.perf_counter() - start
    print(
        f"  runner (concurrency {args.concurrency}, traces written): {run_s:.2f} s, "
        f"{n / run_s:.1f} games/s ({run_s / base_s:.2f}x the baseline); "
        f"failed: {len(report.failed)}"
    )


if __name__ == "__main__":
    main()
