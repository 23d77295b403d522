"""Fixtures for the model layer: a fake clock and sleep so retry and cooldown tests never wait."""

from __future__ import annotations

import pytest


class FakeTime:
    """A clock that only moves when something sleeps on it; every sleep is recorded."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()
