"""Ray executor against the local executor on 200 scripted games (printed, never asserted).

Both run the same 200 negotiation games between reference agents (4 rounds, talk on) through
`run_specs`, writing traces and results. The local executor plays them on one event loop in
this process; the Ray executor plays them as tasks on a local instance. Ray's start-up (the
instance and its worker processes) is timed separately and left out of the ratio, as a
cluster would already be running. Scripted games are pure CPU, so Ray can only win with
spare cores; its price is a task, a serialised spec and a serialised trace per game.

Run:  python bench/bench_executors.py [--games 200] [--cpus N]
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time
from pathlib import Path

import ray

from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.run import run_sync
from accord.runner.specs import GameSpec


def specs(games: int) -> list[GameSpec]:
    exp = Experiment(
        name="bench",
        defaults=Defaults(game="negotiation", games=games, agents=["cooperative", "greedy"]),
        batches=[Batch(name="b", options={"rounds": 4})],
    )
    return expand(exp)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    plan = specs(args.games)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        run_sync(plan, root / "local", concurrency=16)
        local = time.perf_counter() - t0

        t0 = time.perf_counter()
        ray.init(num_cpus=args.cpus, include_dashboard=False, logging_level=logging.WARNING)
        # One throwaway run starts the worker processes, as on a warm cluster.
        run_sync(plan[: args.cpus], root / "warm", executor="ray", concurrency=args.cpus)
        startup = time.perf_counter() - t0
        t0 = time.perf_counter()
        run_sync(plan, root / "ray", executor="ray", concurrency=16)
        remote = time.perf_counter() - t0
        ray.shutdown()
        same = (root / "local" / "results.jsonl").read_text() == (
            root / "ray" / "results.jsonl"
        ).read_text()
    n = len(plan)
    print(f"{n} scripted negotiation games, {args.cpus} CPUs for Ray")
    print(f"  local executor : {local:7.2f} s  ({1000 * local / n:6.1f} ms/game)")
    print(f"  ray executor   : {remote:7.2f} s  ({1000 * remote / n:6.1f} ms/game)")
    print(f"  ray start-up   : {startup:7.2f} s  (instance + warm-up, not in the ratio)")
    print(f"  ratio ray/local: {remote / local:7.2f}x   identical results: {same}")


if __name__ == "__main__":
    main()
