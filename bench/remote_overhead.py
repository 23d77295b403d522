"""What a remote seat costs per decision, against an in-process scripted seat.

On the same games and seeds (negotiation against greedy, sorting and calendar against their
reference agents), seat 0 is played three ways, each answering with the same mock-model
policy (a reply valid against the request's schema, errors fed back):

- in-process: an `LLMAgent` on the mock model (no network, no server);
- remote HTTP/JSON: `accord.remote.client.http_agent` in this process, over the loopback;
- remote MCP: the example agent (examples/remote-agent/agent.py) in this process, over the
  loopback.

Prints, per game and way, the milliseconds of wall time per decision of seat 0 (whole game
time, server start and stop included, divided by seat 0's decisions) and the ratio to the
in-process seat; then the mean time a remote agent took to answer (``remote_action``'s
``response_s``), which is the protocol's own latency. Nothing is asserted.

Measured (two shared cores, 3 games each), ms per decision and ratio to in-process:
negotiation 2.6 / HTTP 40.0 (15x) / MCP 53.6 (21x); sorting 1.2 / 34.6 (29x) / 46.7 (40x);
calendar 6.6 / 40.9 (6x) / 41.2 (6x). A remote answer took 13-21 ms over HTTP and 20-31 ms
over MCP (a wait and an act call, plus the mock's retries); the rest is starting and stopping
the seat server once per game (about 40 ms and 190 ms), which games played concurrently share.
Next to the seconds a hosted model takes per decision, this is small; before the server set
TCP_NODELAY, every call paid about 40 ms more (Nagle's algorithm and delayed ACKs).

Run:  python bench/remote_overhead.py [--games 3]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import re
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from accord.agents import remote as remote_agent
from accord.remote.client import http_agent
from accord.runner.play import play_game
from accord.runner.specs import GameSpec, parse_agent
from accord.traces.schema import Trace

ROOT = Path(__file__).resolve().parents[1]
GAMES: list[tuple[str, dict[str, Any], str]] = [
    ("negotiation", {}, "greedy"),
    ("sorting", {"max_rounds": 10}, "share-all"),
    ("calendar", {}, "oracle-follower"),
]
_JOIN = re.compile(r"at (\S+) with 'Authorization: Bearer (\S+)'")
Join = Callable[[str, str], Awaitable[None]]


def _example_play() -> Join:
    spec = importlib.util.spec_from_file_location("remote_agent_example", ROOT / "examples" /
                                                  "remote-agent" / "agent.py")  # fmt: skip
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    play: Join = module.play
    return play


async def _one(game: str, options: dict[str, Any], other: str, seed: int, seat0: Any,
               join: Join | None) -> tuple[float, Trace]:  # fmt: skip
    from accord.core.registry import make

    seats = make(game, options).num_seats
    agents = [parse_agent(seat0)] + [parse_agent(other)] * (seats - 1)
    spec = GameSpec(trace_id=f"b{seed}", game=game, seed=seed, options=options, agents=agents)
    queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

    def announce(text: str) -> None:
        m = _JOIN.search(text)
        assert m is not None
        queue.put_nowait((m.group(1), m.group(2)))

    remote_agent.ANNOUNCE[:] = [announce]

    async def agent() -> None:
        if join is not None:
            url, token = await queue.get()
            await join(url, token)

    task = asyncio.ensure_future(agent())
    start = time.perf_counter()
    trace = await play_game(spec)
    elapsed = time.perf_counter() - start
    await task
    assert trace.status == "complete", trace.error
    return elapsed, trace


async def main(games: int) -> None:
    mcp_play = _example_play()
    ways: list[tuple[str, Any, Join | None]] = [
        ("in-process", "mock/schema", None),
        ("remote http", {"agent": {"remote": "http", "max_errors": 50}}, http_agent),
        ("remote mcp", {"agent": {"remote": "mcp", "max_errors": 50}}, mcp_play),
    ]
    print(f"{'game':<12} {'seat 0':<12} {'ms/decision':>12} {'ratio':>7} {'answer ms':>10}")
    for game, options, other in GAMES:
        base = None
        for name, seat0, join in ways:
            per_decision, answers = [], []
            for seed in range(1, games + 1):
                elapsed, trace = await _one(game, options, other, seed, seat0, join)
                decisions = trace.usage[trace.seats[0].name].decisions
                per_decision.append(1000 * elapsed / decisions)
                answers += [1000 * e["response_s"] for e in trace.events
                            if e["type"] == "remote_action"]  # fmt: skip
            ms = statistics.median(per_decision)
            base = base or ms
            answer = f"{statistics.mean(answers):10.1f}" if answers else f"{'-':>10}"
            print(f"{game:<12} {name:<12} {ms:12.1f} {ms / base:6.1f}x {answer}")
    remote_agent.ANNOUNCE[:] = [remote_agent._print_to_terminal]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="Games per game and way.")
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.games)))
