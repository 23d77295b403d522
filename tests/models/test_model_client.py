"""ModelClient: retries, backoff and jitter, timeout, concurrency limit, cooldown, timing, cost."""

from __future__ import annotations

import ast
import asyncio
import random
from pathlib import Path

import pytest

import accord
from accord.core.errors import ModelError, TransientModelError
from accord.models import (
    Completion,
    MockModel,
    ModelClient,
    ModelOptions,
    Prices,
    RetriesExhaustedError,
    Usage,
)
from accord.models.client import Call, retry_after_seconds
from accord.models.pricing import cost_usd
from accord.models.retry import Retrying, backoff_s

ASK = HELLO = [{"role": "user", "content": "hello"}]


class Probe(ModelClient):
    """Counts calls in flight across every Probe sharing `shared`; optionally advances a clock."""

    def __init__(self, spec: str, options: ModelOptions, shared: dict[str, int], **kw) -> None:
        super().__init__(spec, options, **kw)
        self.shared = shared
        self.advance = None
        self.hang_first = False
        self.calls = 0

    async def _complete_once(self, call: Call) -> Completion:
        self.calls += 1
        if self.hang_first and self.calls == 1:
            await asyncio.Event().wait()
        self.shared["now"] += 1
        self.shared["max"] = max(self.shared["max"], self.shared["now"])
        try:
            await asyncio.sleep(0.005)
        finally:
            self.shared["now"] -= 1
        if self.advance is not None:
            self.advance()
        return Completion(text="ok", usage=Usage(input_tokens=1000, output_tokens=500))


def scripted(replies, fake_time, **options) -> MockModel:
    return MockModel(
        replies,
        options=ModelOptions(**options),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
        rng=random.Random(7),
    )


async def test_rate_limit_honours_retry_after(fake_time):
    model = scripted([TransientModelError("HTTP 429", retry_after_s=30.0), "ok"], fake_time)
    completion = await model.complete(HELLO)
    assert completion.text == "ok"
    assert completion.attempts == 2
    assert fake_time.sleeps == [30.0]
    assert completion.raw["retries"] == [{"attempt": 1, "error": "HTTP 429", "wait_s": 30.0}]


@pytest.mark.parametrize("error", ["HTTP 500", "connection dropped"])
async def test_transient_error_is_retried_after_jittered_backoff(fake_time, error):
    model = scripted([TransientModelError(error), "ok"], fake_time)
    completion = await model.complete(HELLO)
    assert (completion.text, completion.attempts) == ("ok", 2)
    assert len(fake_time.sleeps) == 1
    assert 0.0 <= fake_time.sleeps[0] <= 2.0  # base 2 s, first retry


async def test_timeout_counts_as_transient(fake_time):
    shared = {"now": 0, "max": 0}
    probe = Probe("probe/x", ModelOptions(timeout_s=0.01), shared, sleep=fake_time.sleep)
    probe.hang_first = True
    completion = await probe.complete(HELLO)
    assert completion.attempts == 2
    assert "no reply within 0.01 s" in completion.raw["retries"][0]["error"]


async def test_permanent_error_is_not_retried(fake_time):
    model = scripted([ModelError("model not found"), "never reached"], fake_time)
    with pytest.raises(ModelError, match="model not found"):
        await model.complete(HELLO)
    assert len(model.calls) == 1
    assert fake_time.sleeps == []


async def test_unexpected_exception_becomes_permanent_model_error(fake_time):
    model = scripted([KeyError("choices"), "never reached"], fake_time)
    with pytest.raises(ModelError, match="unexpected KeyError"):
        await model.complete(HELLO)
    assert len(model.calls) == 1


async def test_exhausted_attempts_raise_with_last_error(fake_time):
    failures = [TransientModelError(f"HTTP 503 number {i}") for i in range(4)]
    model = scripted(failures, fake_time, max_retries=3)
    records = []
    model.on_retry = records.append
    with pytest.raises(RetriesExhaustedError, match=r"all 4 attempts failed.*number 3") as info:
        await model.complete(HELLO)
    assert info.value.attempts == 4
    assert len(info.value.retries) == 3 == len(fake_time.sleeps) == len(records)
    assert records == info.value.retries


def test_backoff_is_full_jitter_under_an_exponential_cap():
    options, rng = ModelOptions(backoff_base_s=2.0, backoff_cap_s=20.0), random.Random(3)
    plain = TransientModelError("busy")
    for attempt in range(1, 10):
        ceiling = min(20.0, 2.0 * 2 ** (attempt - 1))
        waits = [backoff_s(attempt, plain, options, rng) for _ in range(200)]
        assert all(0.0 <= w <= ceiling for w in waits)
        assert max(waits) > 0.8 * ceiling and min(waits) < 0.2 * ceiling  # spread, not fixed
    asked = TransientModelError("slow down", retry_after_s=15.0)
    assert backoff_s(1, asked, options, rng) == 15.0  # Retry-After wins over a shorter draw
    # ... but never past the cap: an hour, forever or a date in 2100 all wait the cap.
    for seconds in (3600.0, float("inf"), retry_after_seconds("Fri, 01 Jan 2100 00:00:00 GMT")):
        assert seconds is not None
        assert backoff_s(1, TransientModelError("x", retry_after_s=seconds), options, rng) == 20.0


async def test_a_server_asking_to_wait_forever_does_not_stall_the_call(fake_time):
    forever = TransientModelError("HTTP 429", retry_after_s=float("inf"), status=429)
    model = MockModel(
        replies=[forever, forever, "ok"],
        options=ModelOptions(backoff_cap_s=30.0),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    )
    completion = await model.complete(ASK)
    assert completion.text == "ok" and fake_time.sleeps == [30.0, 30.0]


async def test_the_deadline_bounds_all_retries_of_a_call(fake_time):
    busy = TransientModelError("HTTP 503", status=503)
    model = MockModel(
        replies=[busy] * 20,
        options=ModelOptions(backoff_base_s=10, backoff_cap_s=10, deadline_s=35, max_retries=50),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
        rng=random.Random(0),
    )
    with pytest.raises(RetriesExhaustedError, match="deadline") as info:
        await model.complete(ASK)
    assert sum(fake_time.sleeps) < 35.0 and info.value.status == 503
    assert info.value.attempts < 20


async def test_concurrency_limit_bounds_calls_in_flight():
    model = MockModel(model="schema", options=ModelOptions(max_concurrency=3), latency_s=0.005)
    await asyncio.gather(
        *(model.complete([{"role": "user", "content": str(i)}]) for i in range(20))
    )
    assert model.max_in_flight == 3


async def test_concurrency_limit_is_shared_by_clients_of_one_provider():
    shared = {"now": 0, "max": 0}
    opts = ModelOptions(max_concurrency=2)
    first, second = Probe("probe/a", opts, shared), Probe("probe/b", opts, shared)
    await asyncio.gather(*(m.complete(HELLO) for m in [first, second] * 6))
    assert shared["max"] == 2


def test_semaphores_work_across_event_loops():
    model = MockModel(model="echo", options=ModelOptions(max_concurrency=1))
    for _ in range(2):
        assert asyncio.run(model.complete(HELLO)).text == "hello"


async def test_cooldown_spaces_call_starts(fake_time):
    model = scripted(["a", "b", "c", "d"], fake_time, cooldown_s=1.0)
    for _ in range(3):
        await model.complete(HELLO)
    assert fake_time.sleeps == [1.0, 1.0]
    fake_time.now += 5.0  # a long pause: the next call need not wait
    await model.complete(HELLO)
    assert fake_time.sleeps == [1.0, 1.0]


async def test_no_cooldown_by_default(fake_time):
    model = scripted(["a", "b"], fake_time)
    await model.complete(HELLO)
    await model.complete(HELLO)
    assert fake_time.sleeps == []


async def test_latency_cost_and_model_are_filled_in(fake_time):
    shared = {"now": 0, "max": 0}
    prices = Prices(input_per_mtok=1.0, output_per_mtok=2.0)
    probe = Probe("probe/x", ModelOptions(prices=prices), shared, clock=fake_time.clock)

    def advance() -> None:
        fake_time.now += 3.0

    probe.advance = advance
    completion = await probe.complete(HELLO)
    assert completion.latency_s == 3.0
    assert completion.cost_usd == pytest.approx(0.002)
    assert completion.model == "probe/x"
    assert "retries" not in completion.raw


async def test_option_defaults_apply_when_the_caller_gives_none():
    seen = []

    def reply(messages):
        return "ok"

    class Recorder(MockModel):
        async def _complete_once(self, call: Call) -> Completion:
            seen.append(call)
            return await super()._complete_once(call)

    model = Recorder([reply, reply], options=ModelOptions(temperature=0.3, max_tokens=99))
    await model.complete(HELLO)
    await model.complete(HELLO, temperature=0.9, max_tokens=5, seed=1, session="s")
    assert (seen[0].temperature, seen[0].max_tokens) == (0.3, 99)
    assert (seen[1].temperature, seen[1].max_tokens, seen[1].seed, seen[1].session) == (
        0.9,
        5,
        1,
        "s",
    )


def test_cost_uses_cached_price_and_is_none_without_prices():
    usage = Usage(input_tokens=1_000_000, output_tokens=0, cached_input_tokens=400_000)
    assert cost_usd(usage, None) is None
    plain = Prices(input_per_mtok=2.0, output_per_mtok=8.0)
    assert cost_usd(usage, plain) == pytest.approx(2.0)
    cached = Prices(input_per_mtok=2.0, output_per_mtok=8.0, cached_input_per_mtok=0.5)
    assert cost_usd(usage, cached) == pytest.approx(0.6 * 2.0 + 0.4 * 0.5)


def test_retry_after_header_parsing():
    assert retry_after_seconds("12") == 12.0
    assert retry_after_seconds("1.5") == 1.5
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a past date
    assert retry_after_seconds("inf") == float("inf")  # capped by the client, not here
    assert retry_after_seconds("nan") is None


def test_providers_make_one_attempt_and_share_one_call_path():
    # A provider implements one attempt; none re-declares complete() to add behaviour, and
    # the layers over a client (cache, recorded replies, a fork's trace-first model) are not
    # clients at all but wrappers behind the same protocol. Read from the source, so every
    # provider in the package counts, the optional ones included.
    providers = {}
    for path in Path(accord.__file__).parent.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "ModelClient" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and "ModelClient" in map(ast.unparse, node.bases):
                providers[node.name] = {
                    f.name
                    for f in node.body
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                }
    assert {"MockModel", "LocalModel", "OpenAICompatibleModel", "LiteLLMModel"} <= set(providers)
    for name, methods in providers.items():
        assert "complete" not in methods and "_complete_once" in methods, name
    from accord.models.cache import CachedModel
    from accord.models.recorded import RecordedModel
    from accord.runner.fork import TraceFirstModel

    for layer in (CachedModel, RecordedModel, TraceFirstModel):
        assert not issubclass(layer, ModelClient), layer


class Flaky:
    """A `ChatModel` that is not a `ModelClient`: refused with a long Retry-After `refusals`
    times, then answers."""

    spec = "flaky/x"

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.deadlines: list[float | None] = []

    async def complete(self, messages, **kwargs) -> Completion:
        self.deadlines.append(kwargs.get("deadline"))
        if self.refusals:
            self.refusals -= 1
            raise TransientModelError("HTTP 429", retry_after_s=3600.0, status=429)
        return Completion(text="ok")

    async def aclose(self) -> None:
        pass


async def test_the_retrying_layer_wraps_any_chat_model(fake_time):
    flaky = Flaky(refusals=2)
    retrying = Retrying(
        flaky,
        flaky.spec,
        ModelOptions(backoff_cap_s=2.0, deadline_s=50.0),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
        rng=random.Random(0),
    )
    completion = await retrying.complete(HELLO, deadline=40.0)
    assert completion.text == "ok" and completion.attempts == 3
    assert fake_time.sleeps == [2.0, 2.0]  # the hour asked for, capped
    assert [r["attempt"] for r in completion.raw["retries"]] == [1, 2]
    assert flaky.deadlines == [40.0, 40.0, 40.0]  # every attempt bounded by the call's deadline
    # Refused until the deadline: the error names the 429s and the cap, not a slow server.
    stubborn = Retrying(
        Flaky(refusals=99),
        "flaky/x",
        ModelOptions(backoff_cap_s=2.0, deadline_s=5.0, max_retries=50),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
        rng=random.Random(0),
    )
    start = fake_time.now
    with pytest.raises(RetriesExhaustedError, match=r"HTTP 429 \(rate limit\)") as info:
        await stubborn.complete(HELLO, deadline=start + 5.0)
    assert fake_time.now - start <= 5.0 and info.value.status == 429
