"""What an A2A seat costs per decision, against an MCP seat, both agents started by Accord.

On the same games and seeds (the ``accord agent check`` games: negotiation against greedy,
sorting and calendar against their reference agents), seat 0 is played two ways, each a
process Accord starts once per game:

- MCP: the example seat-protocol agent (examples/remote-agent/agent.py; it calls Accord);
- A2A: the example A2A agent (examples/a2a-agent/agent.py; Accord calls it through a2a-sdk).

The two agents decide differently (a mock-model brain against a scripted strategy), so the
numbers to compare are the protocol's: the mean time an answer took (``remote_action``'s
``response_s``, from the request to the accepted reply) and the wall time per decision of seat
0 (whole game, process start and stop included, divided by seat 0's decisions). Prints both and
the A2A / MCP ratio. Nothing is asserted.

Measured on two shared cores under a load average of 22 (noisy), 3 games each, ms per decision
/ ms per answer: calendar MCP 698 / 423, A2A 252 / 44; negotiation MCP 628 / 464, A2A 749 / 49;
sorting MCP 1926 / 1332, A2A 2145 / 18. Per decision both are dominated by starting the agent
process once per game; an A2A answer (one ``message/send``) took 18-49 ms, against an MCP
answer's wait and act calls plus its mock brain.

Run from the repository's root:  python bench/a2a_overhead.py [--games 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from accord.core.registry import make, resolve
from accord.runner.play import play_game
from accord.runner.specs import GameSpec, parse_agent
from accord.testing.agent_check import check_games

ROOT = Path(__file__).resolve().parents[1]
WAYS = {
    "MCP": {"command": f"{sys.executable} {ROOT / 'examples/remote-agent/agent.py'}",
            "max_errors": 40},
    "A2A": {"command": f"{sys.executable} {ROOT / 'examples/a2a-agent/agent.py'}",
            "protocol": "a2a"},
}  # fmt: skip


async def measure(game: str, way: str, games: int) -> tuple[float, float]:
    """(ms per decision of seat 0, mean ms per answer) over `games` games."""
    options, other = next((o, r) for g, o, r in check_games() if g == game)
    game_id = resolve(game)
    seats = make(game_id, options).num_seats
    wall, decisions, answers = 0.0, 0, []
    for seed in range(1, games + 1):
        agents = [parse_agent({"agent": WAYS[way]})] + [parse_agent(other)] * (seats - 1)
        spec = GameSpec(trace_id=f"{way}-{game}-{seed}", game=game_id, seed=seed,
                        agents=agents, options=options)  # fmt: skip
        started = time.perf_counter()
        trace = await play_game(spec)
        wall += time.perf_counter() - started
        if trace.status != "complete":
            raise SystemExit(f"{way} {game} seed {seed}: {trace.error}")
        done = [e for e in trace.events if e["type"] == "remote_action" and e["seat"] == 0]
        decisions += len(done)
        answers += [float(e["response_s"]) for e in done]
    return 1000 * wall / decisions, 1000 * statistics.mean(answers)


async def main(games: int) -> None:
    print(f"{'game':<12} {'way':<4} {'ms/decision':>12} {'ms/answer':>10}")
    for game, _, _ in check_games():
        row = {}
        for way in WAYS:
            row[way] = await measure(game, way, games)
            print(f"{game:<12} {way:<4} {row[way][0]:>12.1f} {row[way][1]:>10.1f}")
        wall = row["A2A"][0] / row["MCP"][0]
        answer = row["A2A"][1] / row["MCP"][1]
        print(f"{game:<12} A2A/MCP: {wall:.2f}x per decision, {answer:.2f}x per answer")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="Games per game and way.")
    asyncio.run(main(parser.parse_args().games))
