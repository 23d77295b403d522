"""A2A seats for tests: the example A2A agent, started by Accord or by the test on a free port."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.runner.play import play_game
from accord.runner.specs import GameSpec, parse_agent
from accord.testing.agent_check import check_games
from accord.traces.schema import Trace

pytest.importorskip("a2a.client", reason="A2A seats need the 'a2a' extra")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "a2a-agent" / "agent.py"
BROKEN = Path(__file__).resolve().parent / "broken_agent.py"
GAMES = [g for g, _, _ in check_games()]


def example_command() -> str:
    return f"{sys.executable} {EXAMPLE}"


def broken_command(fault: str) -> str:
    return f"{sys.executable} {BROKEN} {fault}"


async def play_a2a(game: str, seat: dict[str, Any], *, trace_id: str = "a2a-1") -> Trace:
    """One check-sized game of `game` with `seat` (an ``agent: {...}`` mapping) in seat 0 and
    the game's check opponents in the others."""
    options, other = next((o, r) for g, o, r in check_games() if g == game)
    from accord.core.registry import make, resolve

    game_id = resolve(game)
    seats = make(game_id, options).num_seats
    agents = [parse_agent({"agent": seat})] + [parse_agent(other)] * (seats - 1)
    spec = GameSpec(trace_id=trace_id, game=game_id, seed=1, agents=agents, options=options)
    return await play_game(spec)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.asynccontextmanager
async def agent_by_hand(token: str, command: list[str] | None = None) -> AsyncIterator[str]:
    """Start the example agent (or `command`) on a free loopback port with `token` in
    MY_A2A_TOKEN; its URL once its card answers. Ended (and waited for) on exit."""
    port = _free_port()
    argv = command or [sys.executable, str(EXAMPLE)]
    proc = await asyncio.create_subprocess_exec(
        *argv, "--port", str(port), "--token-env", "MY_A2A_TOKEN",
        env={**os.environ, "MY_A2A_TOKEN": token},
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(300):
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(f"{url}/.well-known/agent-card.json")).status_code == 200:
                        break
                assert proc.returncode is None, "the agent exited before serving"
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("the agent did not serve its card within 30 s")
        yield url
    finally:
        if proc.returncode is None:
            proc.terminate()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), 10)
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


class Kit:
    """What this folder's tests share (a fixture: test modules cannot import conftest)."""

    games = GAMES
    example_command = staticmethod(example_command)
    example_dir = staticmethod(lambda: EXAMPLE.parent)
    broken_command = staticmethod(broken_command)
    play_a2a = staticmethod(play_a2a)
    agent_by_hand = staticmethod(agent_by_hand)


@pytest.fixture
def a2a() -> type[Kit]:
    return Kit
