"""LiteLLM provider, offline: LiteLLM's own mock_response and a patched acompletion."""

from __future__ import annotations

import json

import httpx
import pytest

from accord.core.errors import ModelError
from accord.models import ModelOptions, RetriesExhaustedError, get_model
from accord.models.litellm_provider import LiteLLMModel, _load_litellm

litellm = _load_litellm()
ASK = [{"role": "user", "content": "hello"}]
SCHEMA = {"type": "object", "properties": {"say": {"type": "string", "maxLength": 9}}}


def model(fake_time, **options) -> LiteLLMModel:
    return LiteLLMModel(
        "openai/gpt-4o-mini",
        ModelOptions(**options),
        litellm_model="openai/gpt-4o-mini",
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    )


def response(content: str = "hi there") -> object:
    return litellm.ModelResponse(
        id="resp-1",
        model="gpt-4o-mini",
        choices=[
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": content,
                    "reasoning_content": "thought it through",
                },
            }
        ],
        usage={
            "prompt_tokens": 20,
            "completion_tokens": 10,
            "total_tokens": 30,
            "completion_tokens_details": {"reasoning_tokens": 4},
            "prompt_tokens_details": {"cached_tokens": 16},
        },
    )


class Patched:
    """Stands in for litellm.acompletion: raises or returns scripted items, records kwargs."""

    def __init__(self, script):
        self.script = list(script)
        self.kwargs: list[dict] = []

    async def __call__(self, **kwargs):
        self.kwargs.append(kwargs)
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        return step


def rate_limited(retry_after: str) -> Exception:
    reply = httpx.Response(
        429,
        headers={"retry-after": retry_after},
        request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"),
    )
    return litellm.RateLimitError("too many requests", "openai", "gpt-4o-mini", response=reply)


async def test_mock_response_round_trip_through_get_model(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    client = get_model("openai/gpt-4o-mini", extra_params={"mock_response": '{"say": "yo"}'})
    completion = await client.complete(ASK, response_schema=SCHEMA, temperature=0)
    assert json.loads(completion.text) == {"say": "yo"}
    assert completion.usage.input_tokens > 0 and completion.usage.output_tokens > 0
    assert completion.model == "openai/gpt-4o-mini"
    assert completion.cost_usd is None or completion.cost_usd >= 0
    assert "sk-test-not-real" not in json.dumps(completion.raw, default=str)


async def test_request_carries_schema_mode_and_no_hidden_retries(monkeypatch, fake_time):
    patched = Patched([response()])
    monkeypatch.setattr(litellm, "acompletion", patched)
    completion = await model(fake_time, timeout_s=30).complete(
        ASK, response_schema=SCHEMA, max_tokens=77, seed=5
    )
    sent = patched.kwargs[0]
    assert sent["response_format"] == {"type": "json_object"}
    assert (sent["num_retries"], sent["max_retries"], sent["timeout"]) == (0, 0, 30)
    assert (sent["max_tokens"], sent["seed"]) == (77, 5)
    assert "api_key" not in sent and "temperature" not in sent
    assert completion.text == "hi there"
    assert completion.reasoning == "thought it through"
    usage = completion.usage
    assert (usage.input_tokens, usage.output_tokens) == (20, 10)
    assert (usage.reasoning_tokens, usage.cached_input_tokens) == (4, 16)
    assert completion.raw["finish_reason"] == "stop"


async def test_rate_limit_with_retry_after_then_success(monkeypatch, fake_time):
    patched = Patched([rate_limited("11"), response()])
    monkeypatch.setattr(litellm, "acompletion", patched)
    completion = await model(fake_time).complete(ASK)
    assert completion.attempts == 2
    assert fake_time.sleeps == [11.0]
    assert "RateLimitError" in completion.raw["retries"][0]["error"]


@pytest.mark.parametrize(
    "error",
    [
        litellm.InternalServerError("upstream exploded", "openai", "gpt-4o-mini"),
        litellm.ServiceUnavailableError("overloaded", "openai", "gpt-4o-mini"),
        litellm.APIConnectionError("connection reset", "openai", "gpt-4o-mini"),
        litellm.Timeout("read timeout", "gpt-4o-mini", "openai"),
    ],
)
async def test_transient_litellm_errors_are_retried(monkeypatch, fake_time, error):
    patched = Patched([error, response("second time lucky")])
    monkeypatch.setattr(litellm, "acompletion", patched)
    completion = await model(fake_time).complete(ASK)
    assert (completion.text, completion.attempts) == ("second time lucky", 2)


@pytest.mark.parametrize(
    ("error", "hint"),
    [
        (litellm.AuthenticationError("bad key", "openai", "gpt-4o-mini"), "API key"),
        (litellm.NotFoundError("no such model", "gpt-4o-mini", "openai"), "model name"),
        (litellm.BadRequestError("bad request", "gpt-4o-mini", "openai"), "BadRequestError"),
    ],
)
async def test_permanent_litellm_errors_fail_at_once(monkeypatch, fake_time, error, hint):
    patched = Patched([error, response()])
    monkeypatch.setattr(litellm, "acompletion", patched)
    with pytest.raises(ModelError, match=hint) as info:
        await model(fake_time).complete(ASK)
    assert not isinstance(info.value, RetriesExhaustedError)
    assert len(patched.kwargs) == 1


async def test_litellm_mock_rate_limit_exhausts_retries(fake_time):
    client = model(
        fake_time, max_retries=2, extra_params={"mock_response": "litellm.RateLimitError"}
    )
    with pytest.raises(RetriesExhaustedError, match="all 3 attempts failed"):
        await client.complete(ASK)
    # Two backoffs between the three attempts; the shared pool's pause after a 429 may add a
    # wait of its own, but together they stay within the default backoff schedule.
    assert 2 <= len(fake_time.sleeps) <= 4
    assert 0 < sum(fake_time.sleeps) < 10


async def test_custom_key_variable_and_base_url_are_passed(monkeypatch, fake_time):
    monkeypatch.setenv("GATEWAY_KEY", "gw-secret")
    patched = Patched([response()])
    monkeypatch.setattr(litellm, "acompletion", patched)
    completion = await model(
        fake_time, api_key_env="GATEWAY_KEY", base_url="http://127.0.0.1:4000"
    ).complete(ASK)
    assert patched.kwargs[0]["api_key"] == "gw-secret"
    assert patched.kwargs[0]["api_base"] == "http://127.0.0.1:4000"
    assert "gw-secret" not in json.dumps(completion.raw, default=str)
