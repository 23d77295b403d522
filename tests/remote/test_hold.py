"""A run's remote seats share one seat server, started once and stopped when the run ends
(`accord.remote.hub.hold`), instead of one start and stop per game."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from accord.remote import hub
from accord.runner.play import play_game
from accord.runner.specs import GameSpec, parse_agent

SEAT = {"agent": {"remote": "http", "join_s": 0.05}}  # nobody joins: each game fails fast


def _spec(i: int) -> GameSpec:
    return GameSpec(
        trace_id=f"h{i}",
        game="negotiation",
        seed=i,
        agents=[parse_agent(SEAT), parse_agent("greedy")],
    )


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seen: list[int] = []
    start = hub.Hub.start

    async def counted(self: hub.Hub) -> None:
        await start(self)
        seen.append(self.port)

    monkeypatch.setattr(hub.Hub, "start", counted)
    monkeypatch.setattr("accord.agents.remote.ANNOUNCE", [lambda text: None])
    return seen


def _served() -> dict[Any, hub.Hub]:
    return hub._HUBS.get(asyncio.get_running_loop(), {})


async def test_games_outside_a_run_start_their_own_server(starts: list[int]) -> None:
    for i in range(3):
        assert (await play_game(_spec(i))).status == "failed"
    assert len(starts) == 3 and not _served()


async def test_a_held_server_is_started_once_and_stopped_at_the_end(starts: list[int]) -> None:
    remote = parse_agent(SEAT).remote
    assert remote is not None
    async with hub.hold([remote]):
        for i in range(3):
            trace = await play_game(_spec(i))
            assert trace.status == "failed" and "no-show" in str(trace.error)
            assert len(_served()) == 1  # still serving between games
    assert len(starts) == 1 and not _served()
