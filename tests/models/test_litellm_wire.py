"""LiteLLM's real HTTP path for ``openai/`` and ``anthropic/`` against local fake wire servers.

Nothing is patched: LiteLLM builds the request, sends it over a socket to 127.0.0.1, and parses
what the fake answers, so these tests check the request shape, the usage parsing and how
401, 429 with Retry-After and 5xx answers become Accord's permanent and transient errors.
"""

from __future__ import annotations

import json

import pytest

from accord.core.errors import ModelError
from accord.models import ModelOptions, RetriesExhaustedError
from accord.models.litellm_provider import LiteLLMModel
from accord.testing.wire import anthropic_body, error_body, openai_body, wire_server

ASK = [
    {"role": "system", "content": "You negotiate for seat A."},
    {"role": "user", "content": "Propose a split."},
]
SCHEMA = {"type": "object", "properties": {"say": {"type": "string", "maxLength": 20}}}


def openai_model(url: str, fake_time, **options) -> LiteLLMModel:
    return LiteLLMModel(
        "openai/gpt-4o-mini",
        ModelOptions(base_url=f"{url}/v1", api_key_env="WIRE_OPENAI_KEY", **options),
        litellm_model="openai/gpt-4o-mini",
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    )


def anthropic_model(url: str, fake_time, **options) -> LiteLLMModel:
    return LiteLLMModel(
        "anthropic/claude-sonnet-4-5",
        ModelOptions(base_url=url, api_key_env="WIRE_ANTHROPIC_KEY", **options),
        litellm_model="anthropic/claude-sonnet-4-5",
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    )


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("WIRE_OPENAI_KEY", "sk-wire-openai")
    monkeypatch.setenv("WIRE_ANTHROPIC_KEY", "sk-ant-wire")


async def test_openai_request_shape_and_usage(fake_time):
    with wire_server([(200, {}, openai_body())]) as server:
        completion = await openai_model(server.url, fake_time).complete(
            ASK, response_schema=SCHEMA, temperature=0.3, max_tokens=50, seed=9
        )
    assert completion.text == '{"say": "hi"}'
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (21, 5)
    assert completion.usage.cached_input_tokens == 16
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == "Bearer sk-wire-openai"
    body = request["body"]
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"] == ASK
    assert body["response_format"] == {"type": "json_object"}
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.3, 50, 9)


async def test_openai_401_is_permanent_and_names_the_key(fake_time):
    script = [(401, {}, error_body("Incorrect API key provided", "invalid_api_key"))]
    with wire_server(script) as server, pytest.raises(ModelError, match="API key") as info:
        await openai_model(server.url, fake_time).complete(ASK)
    assert not isinstance(info.value, RetriesExhaustedError)
    assert info.value.status == 401
    assert len(server.requests) == 1, "a bad key must not be retried"


async def test_openai_429_waits_for_retry_after_then_succeeds(fake_time):
    script = [
        (429, {"Retry-After": "3"}, error_body("Rate limit reached", "rate_limit_exceeded")),
        (200, {}, openai_body("fine")),
    ]
    with wire_server(script) as server:
        completion = await openai_model(server.url, fake_time).complete(ASK)
    assert completion.text == "fine" and completion.attempts == 2
    assert len(server.requests) == 2, "LiteLLM's own retries must stay off"
    assert fake_time.sleeps and fake_time.sleeps[0] >= 3.0


async def test_openai_retry_after_is_capped(fake_time):
    script = [
        (429, {"Retry-After": "3600"}, error_body("slow down", "rate_limit_exceeded")),
        (200, {}, openai_body("fine")),
    ]
    with wire_server(script) as server:
        completion = await openai_model(server.url, fake_time, backoff_cap_s=5).complete(ASK)
    assert completion.text == "fine"
    assert fake_time.sleeps == [5.0]


async def test_openai_5xx_is_retried_until_exhausted(fake_time):
    script = [(503, {}, error_body("overloaded", "server_error"))] * 3
    with wire_server(script) as server, pytest.raises(RetriesExhaustedError) as info:
        await openai_model(server.url, fake_time, max_retries=2).complete(ASK)
    assert len(server.requests) == 3
    assert info.value.attempts == 3


async def test_anthropic_request_shape_and_usage(fake_time):
    with wire_server([(200, {}, anthropic_body())]) as server:
        completion = await anthropic_model(server.url, fake_time).complete(
            ASK, max_tokens=64, temperature=0.0
        )
    assert completion.text == '{"say": "hi"}'
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (30, 7)
    [request] = server.requests
    assert request["path"].endswith("/v1/messages")
    assert request["headers"]["x-api-key"] == "sk-ant-wire"
    assert "anthropic-version" in request["headers"]
    body = request["body"]
    assert body["model"] == "claude-sonnet-4-5"
    assert body["max_tokens"] == 64
    # Anthropic takes the system prompt beside the messages, not as one of them.
    system = body["system"]
    system_text = system if isinstance(system, str) else " ".join(b["text"] for b in system)
    assert system_text == "You negotiate for seat A."
    assert [m["role"] for m in body["messages"]] == ["user"]


async def test_anthropic_401_429_and_5xx(fake_time):
    script = [
        (429, {"retry-after": "2"}, error_body("rate limited", "rate_limit_error")),
        (529, {}, error_body("overloaded", "overloaded_error")),
        (200, {}, anthropic_body("done")),
    ]
    with wire_server(script) as server:
        completion = await anthropic_model(server.url, fake_time).complete(ASK, max_tokens=20)
    assert completion.text == "done" and completion.attempts == 3
    assert fake_time.sleeps[0] >= 2.0
    script = [(401, {}, error_body("invalid x-api-key", "authentication_error"))]
    with wire_server(script) as s, pytest.raises(ModelError, match="API key") as info:
        await anthropic_model(s.url, fake_time).complete(ASK, max_tokens=20)
    assert info.value.status == 401 and len(s.requests) == 1


def _cached_anthropic_body() -> dict:
    body = anthropic_body()
    body["usage"] = {
        "input_tokens": 30,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 200,
        "output_tokens": 7,
    }
    return body


LONG = [
    {"role": "system", "content": "You negotiate for seat A."},
    {"role": "user", "content": "Round 1: propose a split."},
    {"role": "assistant", "content": '{"say": "half each"}'},
    {"role": "user", "content": "Round 2: propose a split."},
]


async def test_anthropic_requests_carry_cache_breakpoints_and_cache_use_is_priced(fake_time):
    prices = {
        "input_per_mtok": 3.0,
        "output_per_mtok": 15.0,
        "cached_input_per_mtok": 0.3,
        "cache_write_per_mtok": 3.75,
    }
    with wire_server([(200, {}, _cached_anthropic_body())]) as server:
        completion = await anthropic_model(server.url, fake_time, prices=prices).complete(
            LONG, max_tokens=20
        )
    body = server.requests[0]["body"]
    assert body["system"] == [
        {
            "type": "text",
            "text": "You negotiate for seat A.",
            "cache_control": {"type": "ephemeral"},
        }
    ]
    *earlier, newest = body["messages"]
    assert newest["content"] == [
        {
            "type": "text",
            "text": "Round 2: propose a split.",
            "cache_control": {"type": "ephemeral"},
        }
    ]
    # Only the newest message is marked: the earlier turns are read through it.
    assert all("cache_control" not in json.dumps(m) for m in earlier)
    usage = completion.usage
    assert (usage.input_tokens, usage.cached_input_tokens, usage.cache_write_tokens) == (
        1230,
        1000,
        200,
    )
    # 30 fresh at $3, 1,000 read at $0.30, 200 written at $3.75, 7 out at $15 (per million).
    assert completion.cost_usd == pytest.approx((30 * 3 + 1000 * 0.3 + 200 * 3.75 + 7 * 15) / 1e6)


async def test_anthropic_breakpoints_can_be_turned_off(fake_time):
    with wire_server([(200, {}, anthropic_body())]) as server:
        await anthropic_model(server.url, fake_time, prompt_cache=False).complete(
            LONG, max_tokens=20
        )
    assert "cache_control" not in json.dumps(server.requests[0]["body"])


async def test_openai_caches_by_itself_so_nothing_is_marked(fake_time):
    with wire_server([(200, {}, openai_body())]) as server:
        completion = await openai_model(server.url, fake_time).complete(LONG)
    assert "cache_control" not in json.dumps(server.requests[0]["body"])
    assert completion.usage.cached_input_tokens == 16  # prompt_tokens_details.cached_tokens


async def test_a_429_asking_for_an_hour_ends_within_the_deadline_and_names_the_429(fake_time):
    # The reproduction: Retry-After 3600 on every answer, backoff_cap_s=1,
    # deadline_s=10. The call keeps retrying one capped second at a time, gives up inside its
    # deadline (pool pauses included, on the same fake clock), and says the server refused it
    # for load, not that it was slow.
    refusal = (429, {"Retry-After": "3600"}, error_body("slow down", "rate_limit_exceeded"))
    with wire_server([refusal] * 40) as server:
        model = openai_model(server.url, fake_time, backoff_cap_s=1, deadline_s=10, max_retries=30)
        with pytest.raises(RetriesExhaustedError) as info:
            await model.complete(ASK)
    assert fake_time.now <= 10.0 and max(fake_time.sleeps) <= 1.0
    assert len(server.requests) == info.value.attempts > 1
    message = str(info.value)
    assert info.value.status == 429 and "HTTP 429 (rate limit)" in message
    assert "asked to wait up to 3600 s (Retry-After)" in message
    assert "slow" not in message.split("last error")[0]
