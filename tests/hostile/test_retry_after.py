"""Issue 25: a 429 with a huge Retry-After. One policy bounds both the call's backoff and its
pool's pause by ``backoff_cap_s`` and the call's deadline; the pool keeps its clients' (fake)
clock, so nothing here sleeps for real; and the error names the 429, not a slow server."""

from __future__ import annotations

import math

import pytest

from accord.core.errors import TransientModelError
from accord.models import MockModel, ModelOptions, RetriesExhaustedError
from accord.models.client import pool_limit
from accord.models.limits import AdaptiveLimit, Outcome, retry_wait_s

ASK = [{"role": "user", "content": "hello"}]


class FakeTime:
    """A clock that moves only when something sleeps on it; every sleep is recorded."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def refused(seconds: float) -> TransientModelError:
    return TransientModelError("HTTP 429: slow down", retry_after_s=seconds, status=429)


@pytest.mark.parametrize("asked", [3600.0, math.inf, 1e12])
async def test_a_huge_retry_after_is_bounded_by_cap_and_deadline(asked: float) -> None:
    time = FakeTime()
    model = MockModel(
        replies=[refused(asked)] * 20,
        options=ModelOptions(backoff_cap_s=5, deadline_s=12, max_retries=50),
        sleep=time.sleep,
        clock=time.clock,
    )
    with pytest.raises(RetriesExhaustedError) as info:
        await model.complete(ASK)
    # Every wait, the pool's pauses included (they run on the same fake clock), is at most the
    # cap, and all of them together stay inside the deadline.
    assert time.sleeps and max(time.sleeps) <= 5.0
    assert time.now <= 12.0
    message = str(info.value)
    assert "HTTP 429 (rate limit)" in message and "Retry-After" in message
    assert "backoff_cap_s=5" in message and "deadline_s=12" in message
    assert info.value.status == 429


async def test_the_pool_pauses_no_longer_than_the_client_may_wait() -> None:
    time = FakeTime()
    model = MockModel(
        replies=[refused(3600.0), "ok"],
        options=ModelOptions(backoff_cap_s=7),
        sleep=time.sleep,
        clock=time.clock,
    )
    completion = await model.complete(ASK)
    assert completion.text == "ok"
    key, limit = model.concurrency_key()
    pool = pool_limit(key, limit, True, clock=time.clock, sleep=time.sleep)
    assert isinstance(pool, AdaptiveLimit) and pool.stats.rate_limited == 1
    assert time.sleeps == [7.0]  # the backoff; the pool's pause ended with it


async def test_a_pool_given_an_unbounded_retry_after_still_ends_its_pause() -> None:
    time = FakeTime()
    pool = AdaptiveLimit(4, clock=time.clock, sleep=time.sleep, max_pause_s=30.0)
    ticket = await pool.acquire()
    pool.release(ticket, Outcome(ok=False, rate_limited=True, retry_after_s=math.inf))
    await pool.acquire()
    assert time.sleeps == [30.0]


def test_one_policy_for_every_wait() -> None:
    assert retry_wait_s(3600.0, 60.0) == 60.0
    assert retry_wait_s(math.inf, 60.0, left_s=12.5) == 12.5
    assert retry_wait_s(3.0, 60.0, left_s=100.0) == 3.0
    assert retry_wait_s(math.nan, 60.0) == 0.0 and retry_wait_s(-5.0, 60.0) == 0.0
    assert retry_wait_s(None, 60.0) == 0.0
