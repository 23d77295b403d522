"""Remote seats for tests: join details captured from the announcement, agents in-process."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from accord.agents import remote as remote_agent
from accord.remote.client import http_agent
from accord.runner.play import play_game
from accord.runner.specs import GameSpec, parse_agent
from accord.traces.schema import Trace

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "remote-agent" / "agent.py"
_JOIN = re.compile(r"join over (\w+) at (\S+) with 'Authorization: Bearer (\S+)'")


def example() -> ModuleType:
    """The example agent, imported from its file."""
    spec = importlib.util.spec_from_file_location("remote_agent_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Joins:
    """Collects the join details `remote:` seats announce; hands them to agents."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.queue: asyncio.Queue[tuple[str, str, str]] = asyncio.Queue()

    def __call__(self, text: str) -> None:
        self.lines.append(text)
        m = _JOIN.search(text)
        assert m is not None, text
        self.queue.put_nowait((m.group(1), m.group(2), m.group(3)))


async def serve_agents(
    joins: Joins, count: int, run: Callable[[str, str, str], Awaitable[None]]
) -> None:
    """Start `run(via, url, token)` for each of the next `count` announced seats."""
    tasks = []
    for _ in range(count):
        via, url, token = await joins.queue.get()
        tasks.append(asyncio.ensure_future(run(via, url, token)))
    await asyncio.gather(*tasks)


async def play_with(
    game: str,
    seats: list[Any],
    run: Callable[[str, str, str], Awaitable[None]],
    *,
    options: dict[str, Any] | None = None,
    seed: int = 1,
) -> tuple[Trace, Joins]:
    """Play one game whose `remote:` seats are joined by `run`; the trace and the joins."""
    joins = Joins()
    remote_agent.ANNOUNCE[:] = [joins]
    agents = [parse_agent(s) for s in seats]
    spec = GameSpec(trace_id="g1", game=game, seed=seed, agents=agents, options=options or {})
    count = sum(1 for a in agents if a.remote is not None and a.remote.remote is not None)
    agents_task = asyncio.ensure_future(serve_agents(joins, count, run))
    try:
        trace = await play_game(spec)
        await asyncio.wait_for(agents_task, 30)
    finally:
        agents_task.cancel()
        remote_agent.ANNOUNCE[:] = [remote_agent._print_to_terminal]
    return trace, joins


def remote(via: str = "http", **options: Any) -> dict[str, Any]:
    """An ``agent: {remote: ...}`` seat spec."""
    return {"agent": {"remote": via, **options}}


class Kit:
    """What the tests of this folder share (a fixture: test modules cannot import conftest)."""

    example = staticmethod(example)
    play_with = staticmethod(play_with)
    remote = staticmethod(remote)
    http_agent = staticmethod(http_agent)
    Joins = Joins


@pytest.fixture
def kit() -> type[Kit]:
    return Kit
