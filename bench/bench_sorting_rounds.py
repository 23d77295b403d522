"""Sorting game: whole games and round throughput (printed as ratios, never asserted).

1. A scripted N = 20, K = 10 game per backend (`share-all`: 3 rounds, everything shared),
   against the named baseline `local-sort` on the same size (one round, no communication):
   what coordination traffic costs the harness.
2. Round throughput with the mock provider at a fixed latency: 20 LLM seats that `wait` for
   10 rounds. Named baseline: one bare model latency (``asyncio.sleep``). STEPBENCH puts all of
   a round's calls in flight together, so a round should cost about one latency, not 20.

Run:  python bench/bench_sorting_rounds.py
"""

from __future__ import annotations

import asyncio
import statistics
import time

from accord.agents.base import Agent
from accord.agents.llm import LLMAgent
from accord.models.mock import MockModel
from accord.models.options import ModelOptions
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

N, K = 20, 10


def scripted_seconds(agent: str, backend: str, repeats: int = 5) -> float:
    """Median wall time of one scripted game."""
    times = []
    for r in range(repeats):
        spec = GameSpec(
            trace_id=f"{agent}-{backend}-{r}",
            game="sorting",
            seed=r,
            options={"n": N, "k": K, "backend": backend},
            agents=[AgentSpec(agent=agent)] * N,
        )
        t0 = time.perf_counter()
        trace = asyncio.run(play_game(spec))
        times.append(time.perf_counter() - t0)
        if trace.status != "complete":
            raise RuntimeError(trace.error)
    return statistics.median(times)


def whole_games() -> None:
    base = scripted_seconds("local-sort", "broadcast")
    print(f"scripted N={N}, K={K} game (median of 5)")
    print(f"  baseline local-sort (1 round, no traffic): {base * 1e3:8.1f} ms")
    for backend in ("broadcast", "p2p", "kv"):
        t = scripted_seconds("share-all", backend)
        print(f"  share-all {backend:9s}: {t * 1e3:8.1f} ms  ->  {t / base:5.1f}x the baseline")


async def rounds(latency: float, count: int) -> tuple[float, int]:
    opts = ModelOptions(latency_s=latency, max_concurrency=10_000)
    agents: list[Agent] = [
        LLMAgent(MockModel(replies=["```\nwait\n```"] * count, options=opts)) for _ in range(N)
    ]
    spec = GameSpec(
        trace_id="rounds",
        game="sorting",
        seed=0,
        options={"n": N, "k": K, "max_rounds": count},
        agents=[AgentSpec(model="mock/scripted")] * N,
    )
    t0 = time.perf_counter()
    trace = await play_game(spec, agents)
    elapsed = time.perf_counter() - t0
    if trace.status != "complete":
        raise RuntimeError(trace.error)
    return elapsed, int(trace.metrics["rounds"])


async def bare(latency: float, count: int) -> float:
    t0 = time.perf_counter()
    for _ in range(count):
        await asyncio.sleep(latency)
    return time.perf_counter() - t0


def round_throughput(latency: float = 0.05, count: int = 10) -> None:
    base = asyncio.run(bare(latency, count)) / count
    elapsed, played = asyncio.run(rounds(latency, count))
    per_round = elapsed / played
    print(f"round throughput, {N} LLM seats on the mock at {latency * 1e3:.0f} ms per call")
    print(f"  baseline one model latency: {base * 1e3:7.1f} ms")
    print(
        f"  one round ({N} calls):       {per_round * 1e3:7.1f} ms  ->  {per_round / base:4.2f}x "
        f"the baseline ({N}x if the calls ran one after another)"
    )


def main() -> None:
    whole_games()
    round_throughput()


if __name__ == "__main__":
    main()
