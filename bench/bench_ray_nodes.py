"""Games per minute on a Ray cluster of 1, 2 and 3 nodes whose workers write into a store
(printed, never asserted).

Each size is a fresh `ray.cluster_utils.Cluster` on this machine: a head node and 0, 1 or 2
more nodes, each with `--cpus` CPUs. Every size plays the same negotiation games (a mock model
seat that waits `--latency` seconds a call, against a scripted agent) with ``--executor ray``
and ``--out`` a store location (``file://`` on a temporary folder), so each worker writes its
game's trace itself and the driver receives headers only. Games are API-bound (they wait on
the mock), so more nodes mean more games in flight: the ratio against one node is the scaling.
Cluster start-up is timed apart and left out of the rate, as a cluster would be running.

All nodes share this machine's cores, so the figures measure the driver's and the store's
share of the work rather than real hardware scaling; the ratio is what to read.

Run:  python bench/bench_ray_nodes.py [--games 60] [--cpus 2] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import ray
from ray.cluster_utils import Cluster

from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.ray_executor import RayExecutor
from accord.runner.run import run_specs
from accord.runner.specs import GameSpec
from accord.store import RunStore


def specs(games: int, latency: float) -> list[GameSpec]:
    slow = {"model": "mock/schema", "options": {"latency_s": latency}}
    exp = Experiment(
        name="nodes",
        defaults=Defaults(game="negotiation", games=games, agents=[slow, "cooperative"]),
        batches=[Batch(name="b", options={"rounds": 2, "talk_turns": 1})],
    )
    return expand(exp)


def one_size(nodes: int, cpus: int, plan: list[GameSpec], root: Path) -> tuple[float, float]:
    """Start-up seconds and games per minute on `nodes` nodes of `cpus` CPUs each."""
    began = time.perf_counter()
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": cpus, "include_dashboard": False}
    )
    try:
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=cpus)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, logging_level=logging.WARNING)
        # Warm every node's workers (imports) with a few games not counted.
        warm = f"file://{root}/warm-{nodes}"
        asyncio.run(
            run_specs(
                plan[: nodes * cpus],
                root / f"w-warm-{nodes}",
                executor=RayExecutor(),
                store=warm,
                concurrency=nodes * cpus,
                live=False,
            )
        )
        startup = time.perf_counter() - began
        location = f"file://{root}/run-{nodes}"
        t0 = time.perf_counter()
        report = asyncio.run(
            run_specs(
                plan,
                root / f"w-{nodes}",
                executor=RayExecutor(),
                store=location,
                concurrency=nodes * cpus,
                live=False,
            )
        )
        took = time.perf_counter() - t0
        assert report.played == len(plan) and not report.failed, report.failed
        assert len(RunStore(location).list("traces")) == len(plan)
        return startup, len(plan) / took * 60
    finally:
        ray.shutdown()
        cluster.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs (game slots) per node")
    parser.add_argument("--latency", type=float, default=0.2, help="mock seconds per call")
    args = parser.parse_args()
    plan = specs(args.games, args.latency)
    print(
        f"{args.games} games, {args.cpus} slots per node, mock latency {args.latency}s; "
        f"machine: {os.cpu_count()} cores, shared"
    )
    rates: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="accord-bench-nodes-") as tmp:
        for nodes in (1, 2, 3):
            startup, rate = one_size(nodes, args.cpus, plan, Path(tmp))
            rates[nodes] = rate
            print(f"{nodes} node(s): {rate:7.1f} games/min  (cluster start {startup:.1f}s)")
    for nodes in (2, 3):
        print(f"scaling {nodes} nodes / 1 node: {rates[nodes] / rates[1]:.2f}x (ideal {nodes}x)")


if __name__ == "__main__":
    main()
