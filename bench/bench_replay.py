"""Cache-hit replay of an LLM trace: model calls answered per second (printed, never asserted).

A negotiation game between two mock models (4 rounds, up to 5 messages each per round; a
few dozen model calls) is played once through an empty cache, filling it. The trace is then replayed
from the cache (`accord replay`'s path: trace -> spec -> game, every call a hit) many times.
Baseline in the same run: the same game played straight against the mock model with no cache
(zero latency, so it measures the harness and the mock, not a network).

Run:  python bench/bench_replay.py [--replays 30]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from accord.models.cache import ModelCache
from accord.runner.play import play_game
from accord.runner.replay import differences, spec_from_trace
from accord.runner.specs import AgentSpec, GameSpec

MOCK = AgentSpec(model="mock/schema")


async def main(replays: int) -> None:
    spec = GameSpec(
        trace_id="bench",
        game="negotiation",
        options={"rounds": 4, "talk_turns": 5},
        seed=7,
        agents=[MOCK, MOCK],
    )
    with tempfile.TemporaryDirectory() as tmp:
        filling = ModelCache(Path(tmp))
        original = await play_game(spec, cache=filling)
        calls = original.usage["total"].calls

        t0 = time.perf_counter()
        for _ in range(replays):
            await play_game(spec)
        direct = (time.perf_counter() - t0) / replays

        cache = ModelCache(Path(tmp), replay_errors=True, offline=True)
        t0 = time.perf_counter()
        for _ in range(replays):
            fresh = await play_game(spec_from_trace(original), cache=cache)
        replay = (time.perf_counter() - t0) / replays
    assert cache.stats.misses == 0
    same = not differences(original, fresh)
    print(f"replay of a {calls}-call LLM trace from the cache, mean of {replays}")
    print(f"  cache-hit replay : {1000 * replay:7.1f} ms/game  {calls / replay:8.0f} calls/s")
    print(f"  mock, no cache   : {1000 * direct:7.1f} ms/game  {calls / direct:8.0f} calls/s")
    print(f"  ratio replay/mock: {replay / direct:7.2f}x   identical trace: {same}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--replays", type=int, default=30)
    asyncio.run(main(parser.parse_args().replays))
