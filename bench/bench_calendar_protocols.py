"""Calendar reference protocols benchmark: prints numbers, asserts nothing.

Each protocol of CalBench App. D (IMAP, SD-MAP, DSM-Welfare, DSM-Private) plays every task of a
suite (default: the canonical 90 of §4.1) in every seat, one game after another in process
(`play_game`: engine, agents, metrics including VPS, trace object). Printed per protocol: total
seconds, games per second, the ratio against the ``oracle-follower`` team in the same run (the
named baseline: same engine and scoring, a policy that needs no messages), and the Table 2
numbers of that run per cost setting. Last, the cost of re-deriving VPS from finished traces
(`privacy.analyse_trace`, what `accord report` does) per game.

Usage: python bench/bench_calendar_protocols.py [--suite canonical|calbench-uniform|...]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from statistics import mean

from accord.games.calendar import load_suite
from accord.games.calendar.privacy import analyse_trace
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

BASELINE = "oracle-follower"
PROTOCOLS = ("imap", "sd-map", "dsm-welfare", "dsm-private")
COLUMNS = ("success_rate", "excess_cost", "messages_per_meeting", "fairness", "vps")


def play_suite(suite: str, agent: str) -> tuple[list[Trace], float]:
    tasks = load_suite(suite)
    start = time.perf_counter()
    traces = []
    for i, task in enumerate(tasks):
        spec = GameSpec(
            trace_id=f"{agent}-{i:03d}",
            game="calendar-v2",
            options={"suite": suite, "task": i},
            seed=i,
            agents=[AgentSpec(agent=agent)] * task.num_agents,
        )
        traces.append(asyncio.run(play_game(spec)))
    return traces, time.perf_counter() - start


def table2(traces: list[Trace]) -> list[str]:
    lines = []
    for setting in ("uniform", "varied"):
        mine = [
            t for t in traces if t.status == "complete" and t.scenario["cost_setting"] == setting
        ]
        if not mine:
            continue
        cells = []
        for key in COLUMNS:
            values = [float(v) for t in mine if isinstance(v := t.metrics.get(key), int | float)]
            value = mean(values) if values else float("nan")
            cells.append(
                f"{key}={value * 100:.1f}%" if key == "success_rate" else f"{key}={value:.2f}"
            )
        lines.append(f"    {setting:8s} n={len(mine):3d}  " + "  ".join(cells))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="canonical")
    args = parser.parse_args()

    play_suite(args.suite, BASELINE)  # warm-up: loads the suite and the solver once
    base, base_s = play_suite(args.suite, BASELINE)
    n = len(base)
    print(f"{args.suite}: {n} tasks, one protocol in every seat")
    print(f"  {BASELINE:12s} (baseline) {base_s:6.2f} s  {n / base_s:6.1f} games/s")
    played: dict[str, list[Trace]] = {}
    for agent in PROTOCOLS:
        traces, seconds = play_suite(args.suite, agent)
        played[agent] = traces
        failed = sum(t.status != "complete" for t in traces)
        print(
            f"  {agent:12s} {seconds:17.2f} s  {n / seconds:6.1f} games/s  "
            f"x{seconds / base_s:.2f} vs baseline  failed={failed}"
        )
        for line in table2(traces):
            print(line)
    start = time.perf_counter()
    count = 0
    for traces in played.values():
        for trace in traces:
            analyse_trace(trace)
            count += 1
    vps_s = time.perf_counter() - start
    print(f"  VPS from traces: {count} games in {vps_s:.2f} s, {1000 * vps_s / count:.1f} ms/game")


if __name__ == "__main__":
    main()
