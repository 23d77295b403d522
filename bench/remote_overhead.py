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

Then the steady state (``steady``): the seat server started once and held for every game, as
a run now does (`accord.remote.hub.hold`), and the agent keeping one HTTP client: per decision,
the remote game's time less the in-process game's, the agent's calls per decision, and a
loopback HTTP round trip to the same server measured in the same run; the server's start and
stop are timed apart. The agent runs in this process, so its own HTTP client's work counts too.

Measured (two cores shared with other heavy work, 3 games each after a warm-up; HTTP/JSON):
negotiation 34.2 ms over in-process per decision (2.2 calls), sorting 27.7 (2.0), calendar
33.5 (2.0), against a loopback round trip of 0.85 ms: 33-40x, well over the 5 ms / 5x target.
Server start and stop apart: 272 ms, now paid once per run. A profile shows the time spread
over the HTTP client (httpx: building and parsing requests), uvicorn/Starlette routing and the
seat's JSON, not waiting: the per-call cost is CPU, and is what is left to cut.

Run:  python bench/remote_overhead.py [--games 3] [--steady-only]
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
SERVED: list[str] = []
"""The seat server addresses remote seats were told to join (the latest last)."""


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
        SERVED.append(m.group(1).rsplit("/", 1)[0])
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


async def main(games: int, steady_only: bool = False) -> None:
    if steady_only:
        remote_agent.ANNOUNCE[:] = []
        await steady(games)
        remote_agent.ANNOUNCE[:] = [remote_agent._print_to_terminal]
        return
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
    await steady(games)
    remote_agent.ANNOUNCE[:] = [remote_agent._print_to_terminal]


async def _loopback_ms(url: str, n: int = 200) -> float:
    """Median milliseconds of one HTTP round trip to the seat server (a GET it refuses at
    once: the loopback, the HTTP client and the server's own parsing, nothing of a seat)."""
    import httpx

    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        for _ in range(10):
            await client.get("/v1/seat")
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            await client.get("/v1/seat")
            times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


async def _startup_ms(n: int = 5) -> float:
    """Median milliseconds to start and stop a seat server (what a game paid when each game
    started its own)."""
    from accord.remote.hub import Hub

    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        hub = Hub("127.0.0.1", 0)
        await hub.start()
        await hub.stop()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


class _SteadyAgent:
    """`accord.remote.client.http_agent`'s loop with one HTTP client kept for every game, as
    an agent that stays up does (a new client per game builds a TLS context first: ~100 ms
    on this machine, the agent's start-up and not the seat's)."""

    def __init__(self) -> None:
        import httpx

        self.client = httpx.AsyncClient(timeout=60)

    async def __call__(self, url: str, token: str) -> None:
        from accord.remote.client import mock_policy

        headers = {"Authorization": f"Bearer {token}"}
        messages: list[Any] = []
        while True:
            r = await self.client.post(f"{url}/wait", json={"timeout_s": 10}, headers=headers)
            state = r.json()
            if r.status_code != 200 or state["status"] == "ended":
                return
            request = state.get("request")
            if request is None:
                continue
            if request["system"] and (request["reset_context"] or not messages):
                messages = [{"role": "system", "content": request["system"]}]
            messages.append({"role": "user", "content": request["observation"]})
            while True:
                reply = await mock_policy(request, messages)
                body = {"request_id": request["request_id"], "reply": reply}
                r = await self.client.post(f"{url}/act", json=body, headers=headers)
                answer = r.json()
                if answer.get("ok") or r.status_code not in (400, 413, 422):
                    break
                messages.append({"role": "user", "content": f"Error: {answer['error']}"})


async def steady(games: int) -> None:
    """The steady state: the seat server started once (`accord.remote.hub.hold`, as a run
    does) and reused by every game, the agent's HTTP client too; per decision, the remote
    game's time less the in-process game's, against a loopback HTTP round trip to the same
    server measured in between, and per agent call (wait or act)."""
    from accord.remote.hub import hold
    from accord.remote.spec import RemoteSeatSpec

    agent = _SteadyAgent()
    ways: list[tuple[str, Any, Join | None]] = [
        ("remote http", {"agent": {"remote": "http", "max_errors": 50}}, agent)
    ]

    n = max(games, 3) + 1  # the first game of each way is a warm-up
    print()
    print(f"steady state: one seat server for all games ({n - 1} games each, after a warm-up)")
    head = f"{'game':<12} {'seat 0':<12} {'ms/decision':>12} {'over in-proc':>13}"
    print(f"{head} {'calls/dec':>10} {'loopback ms':>12} {'x loopback':>11}")
    spec = RemoteSeatSpec(remote="http")
    async with hold([spec]):
        loopbacks = []
        for game, options, other in GAMES:
            base_ms = None
            for name, seat0, join in [("in-process", "mock/schema", None), *ways]:
                per, calls = [], []
                for seed in range(1, n + 1):
                    elapsed, trace = await _one(game, options, other, seed, seat0, join)
                    decisions = trace.usage[trace.seats[0].name].decisions
                    if seed > 1:
                        per.append(1000 * elapsed / decisions)
                        made = sum(e["type"] == "remote_call" for e in trace.events)
                        calls.append(made / decisions)
                ms = statistics.median(per)
                if base_ms is None:
                    base_ms = ms
                    continue
                loop_ms = await _loopback_ms(SERVED[-1])
                loopbacks.append(loop_ms)
                over = ms - base_ms
                print(f"{game:<12} {name:<12} {ms:12.2f} {over:13.2f} "
                      f"{statistics.mean(calls):10.1f} {loop_ms:12.2f} "
                      f"{over / loop_ms:10.1f}x")  # fmt: skip
    await agent.client.aclose()
    print(f"server start and stop, apart: {await _startup_ms():.1f} ms (once per run now); "
          f"loopback round trip median {statistics.median(loopbacks):.2f} ms")  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="Games per game and way.")
    parser.add_argument(
        "--steady-only", action="store_true", help="Only the steady state (one server)."
    )
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.games, args.steady_only)))
