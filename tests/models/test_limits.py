"""Adaptive and fixed concurrency limits (`accord.models.limits`) and their use by clients."""

from __future__ import annotations

import asyncio

import pytest

from accord.core.errors import TransientModelError
from accord.models.client import pool_stats
from accord.models.limits import (
    AdaptiveLimit,
    FixedLimit,
    Outcome,
    RateInfo,
    duration_s,
    rate_info,
)
from accord.models.mock import MockModel
from accord.models.openai_compatible import OpenAICompatibleModel
from accord.models.options import ModelOptions
from accord.testing.ratelimit import rate_limited_server

SCHEMA = {"type": "object", "properties": {"say": {"type": "string", "maxLength": 10}}}


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1.5", 1.5), ("20ms", 0.02), ("6m0s", 360.0), ("1h2m3.5s", 3723.5), ("0.033s", 0.033),
     ("soon", None), ("-1", None), ("", None), (None, None), ("1x", None)],
)  # fmt: skip
def test_reset_durations(text: str | None, seconds: float | None) -> None:
    assert duration_s(text) == (pytest.approx(seconds) if seconds is not None else None)


def test_rate_headers_are_read_with_or_without_litellms_prefix() -> None:
    info = rate_info(
        {
            "X-RateLimit-Limit-Requests": "500",
            "llm_provider-x-ratelimit-remaining-requests": "499",
            "x-ratelimit-reset-requests": "120ms",
            "x-ratelimit-remaining-tokens": "garbage",
            "content-type": "application/json",
        }
    )
    assert info == RateInfo(limit_requests=500, remaining_requests=499, reset_requests_s=0.12)
    assert rate_info({"content-type": "text/plain"}) is None
    assert rate_info(None) is None


async def test_the_window_grows_while_calls_succeed_and_stops_at_the_ceiling(fake_time) -> None:
    pool = AdaptiveLimit(ceiling=6, start=2, clock=fake_time.clock, sleep=fake_time.sleep)
    sizes = []
    for _ in range(40):
        ticket = await pool.acquire()
        pool.release(ticket, Outcome())
        sizes.append(pool.window)
    assert sizes == sorted(sizes) and sizes[0] == 2.5 and sizes[-1] == 6.0
    assert fake_time.sleeps == []  # nothing said to wait


async def test_a_429_halves_the_window_once_per_window_and_pauses_the_pool(fake_time) -> None:
    pool = AdaptiveLimit(ceiling=64, start=8, clock=fake_time.clock, sleep=fake_time.sleep)
    tickets = [await pool.acquire() for _ in range(8)]
    assert pool.in_flight == 8
    # All eight were in flight when the server said stop: one decrease, not eight.
    for ticket in tickets:
        pool.release(ticket, Outcome(ok=False, rate_limited=True, retry_after_s=5.0))
    assert pool.window == 4.0 and pool.stats.decreases == 1 and pool.stats.rate_limited == 8
    # The next call waits out the server's Retry-After, whoever got the 429.
    ticket = await pool.acquire()
    assert fake_time.sleeps == [5.0]
    # A call started after the decrease that is refused again halves it again.
    pool.release(ticket, Outcome(ok=False, rate_limited=True, retry_after_s=1.0))
    assert pool.window == 2.0 and pool.stats.decreases == 2


async def test_a_failure_that_is_not_a_rate_limit_teaches_nothing(fake_time) -> None:
    pool = AdaptiveLimit(ceiling=64, start=8, clock=fake_time.clock, sleep=fake_time.sleep)
    ticket = await pool.acquire()
    pool.release(ticket, Outcome(ok=False))
    assert pool.window == 8.0 and pool.stats.decreases == 0


async def test_near_the_servers_limit_calls_are_paced_at_its_refill_rate(fake_time) -> None:
    pool = AdaptiveLimit(ceiling=64, start=4, clock=fake_time.clock, sleep=fake_time.sleep)
    near = RateInfo(limit_requests=120, remaining_requests=1)  # 2 per second
    ticket = await pool.acquire()
    pool.release(ticket, Outcome(rate=near))
    assert pool.window == 4.0  # no growth at the limit
    for _ in range(3):
        ticket = await pool.acquire()
        pool.release(ticket, Outcome(rate=near))
    assert fake_time.sleeps == pytest.approx([0.5, 0.5])  # the first paced start goes at once
    far = RateInfo(limit_requests=120, remaining_requests=100)
    ticket = await pool.acquire()
    pool.release(ticket, Outcome(rate=far))
    assert pool.window > 4.0  # room again: pacing off, growth back


async def test_token_headers_pace_by_the_tokens_a_call_spends(fake_time) -> None:
    pool = AdaptiveLimit(ceiling=64, start=4, clock=fake_time.clock, sleep=fake_time.sleep)
    near = RateInfo(limit_tokens=60_000, remaining_tokens=500)  # 1,000 tokens a second
    for _ in range(3):
        ticket = await pool.acquire()
        pool.release(ticket, Outcome(rate=near, tokens=250))
    assert fake_time.sleeps == pytest.approx([0.25])  # 250 tokens at 1,000 per second


async def test_waiting_calls_start_as_the_window_allows() -> None:
    pool = AdaptiveLimit(ceiling=3, start=3)
    peak = 0

    async def call() -> None:
        nonlocal peak
        ticket = await pool.acquire()
        peak = max(peak, pool.in_flight)
        await asyncio.sleep(0.001)
        pool.release(ticket, Outcome())

    await asyncio.gather(*(call() for _ in range(30)))
    assert peak == 3 and pool.in_flight == 0 and pool.stats.calls == 30


async def test_fixed_limit_holds_its_number() -> None:
    pool = FixedLimit(2)
    peak = 0

    async def call() -> None:
        nonlocal peak
        ticket = await pool.acquire()
        peak = max(peak, pool.stats.peak_in_flight)
        await asyncio.sleep(0.001)
        pool.release(ticket, Outcome(ok=False, rate_limited=True))

    await asyncio.gather(*(call() for _ in range(10)))
    assert peak == 2 and pool.stats.rate_limited == 10


async def test_a_client_reports_429s_to_its_pool(fake_time) -> None:
    limited = TransientModelError("slow down", retry_after_s=2.0, status=429)
    model = MockModel(
        model="scripted",
        replies=[limited, '{"say": "ok"}'],
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    )
    assert model.adaptive_concurrency
    completion = await model.complete([{"role": "user", "content": "hi"}])
    assert completion.attempts == 2
    (stats,) = pool_stats().values()
    assert stats.rate_limited == 1 and stats.decreases == 1 and stats.calls == 2


def test_pinning_max_concurrency_makes_the_limit_fixed() -> None:
    assert not MockModel(model="echo", options=ModelOptions(max_concurrency=3)).adaptive_concurrency
    assert ModelOptions().concurrency_limit == 256
    assert ModelOptions(max_concurrency=3).concurrency_limit == 3


async def test_against_a_rate_limited_server_adaptive_is_refused_less_than_fixed(
    fake_time,
) -> None:
    # The server's buckets, the clients' backoff and the pool's pauses all run on one fake
    # clock: every wait the server asks for passes at once, and is recorded.
    ask = [{"role": "user", "content": "hello"}]
    refused = {}
    for name, extra in (("adaptive", {}), ("fixed", {"max_concurrency": 40})):
        fake_time.sleeps.clear()
        with rate_limited_server(
            rpm=600, tpm=10_000_000, latency_s=0.001, clock=fake_time.clock
        ) as server:
            model = OpenAICompatibleModel(
                "openai-compatible/fake",
                ModelOptions(base_url=server.url, max_retries=60, backoff_cap_s=0.5,
                             backoff_base_s=0.05, **extra),
                sleep=fake_time.sleep,
                clock=fake_time.clock,
            )  # fmt: skip
            done = await asyncio.gather(
                *(model.complete(ask, response_schema=SCHEMA) for _ in range(40))
            )
            refused[name] = server.refused
            await model.aclose()
        assert len(done) == 40 and all(c.text.startswith("{") for c in done)
        assert done[0].rate is not None and done[0].rate.limit_requests == 600
        # Every wait, the server's Retry-After included, was capped at backoff_cap_s.
        assert fake_time.sleeps and max(fake_time.sleeps) <= 0.5
    # 40 calls at once against a bucket of 10: the fixed pool is refused at least 30 times.
    assert refused["fixed"] >= 30
    assert refused["adaptive"] < refused["fixed"] / 3
