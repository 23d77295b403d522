"""The model-call cache: content addressing, hits, recorded failures, offline mode, secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accord.core.errors import ModelError, TransientModelError
from accord.core.spec import JSONSchema
from accord.models import Message, ModelOptions, RetriesExhaustedError
from accord.models.cache import CachedModel, CacheMissError, ModelCache, scrub_secrets
from accord.models.mock import MockModel

ASK: list[Message] = [{"role": "user", "content": "hello"}]
SCHEMA: JSONSchema = {"type": "object", "properties": {"x": {"type": "integer"}}}


def _key(
    spec: str = "mock/schema",
    messages: list[Message] = ASK,
    schema: JSONSchema | None = SCHEMA,
    temperature: float | None = 0.5,
    max_tokens: int | None = 10,
    seed: int | None = 1,
    extra_params: dict[str, Any] | None = None,
) -> str:
    return ModelCache.key(
        spec,
        messages,
        response_schema=schema,
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        extra_params=extra_params,
    )


def test_key_covers_every_field_of_a_call() -> None:
    base = _key()
    assert base == _key(), "the key is stable"
    variants = [
        _key(spec="mock/echo"),
        _key(spec="other/schema"),
        _key(messages=[{"role": "user", "content": "hello!"}]),
        _key(messages=[{"role": "system", "content": "hello"}]),
        _key(schema=None),
        _key(temperature=0.6),
        _key(max_tokens=11),
        _key(seed=2),
        _key(extra_params={"reasoning_effort": "low"}),
    ]
    assert len({base, *variants}) == len(variants) + 1


async def test_miss_then_hit_returns_the_recorded_completion(tmp_path: Path) -> None:
    inner = MockModel(model="schema", options=ModelOptions(temperature=0.3))
    cache = ModelCache(tmp_path)
    model = CachedModel(inner, cache)
    first = await model.complete(ASK, response_schema=SCHEMA, seed=5, session="t/seat0")
    # The option default and the same value given explicitly are one call.
    again = await model.complete(ASK, response_schema=SCHEMA, seed=5, temperature=0.3)
    assert len(inner.calls) == 1 and (cache.stats.hits, cache.stats.misses) == (1, 1)
    assert again.text == first.text and again.usage == first.usage
    assert (again.cost_usd, again.attempts, again.model) == (first.cost_usd, 1, "mock/schema")
    assert again.raw["cache"] == "hit"
    (entry,) = cache.entries()
    assert entry.parent.name == entry.stem[:2]
    await model.complete(ASK, response_schema=SCHEMA, seed=6)
    assert len(inner.calls) == 2, "another seed is another call"


async def test_failures_replay_only_in_replay_mode(tmp_path: Path) -> None:
    failing = MockModel(
        replies=[TransientModelError("overloaded"), "fine"], options=ModelOptions(max_retries=0)
    )
    with pytest.raises(RetriesExhaustedError):
        await CachedModel(failing, ModelCache(tmp_path)).complete(ASK, seed=1)
    replaying = ModelCache(tmp_path, replay_errors=True)
    with pytest.raises(RetriesExhaustedError, match="overloaded") as info:
        await CachedModel(MockModel(replies=[]), replaying).complete(ASK, seed=1)
    assert info.value.attempts == 1 and replaying.stats.hits == 1
    # An ordinary re-run asks the model again and keeps the success.
    rerun = CachedModel(failing, ModelCache(tmp_path))
    assert (await rerun.complete(ASK, seed=1)).text == "fine"
    replayed = CachedModel(MockModel(replies=[]), ModelCache(tmp_path, replay_errors=True))
    assert (await replayed.complete(ASK, seed=1)).text == "fine"


async def test_offline_miss_is_an_error_that_says_what_to_do(tmp_path: Path) -> None:
    model = CachedModel(MockModel(model="echo"), ModelCache(tmp_path, offline=True))
    with pytest.raises(CacheMissError, match="--cache") as info:
        await model.complete(ASK, seed=1)
    assert isinstance(info.value, ModelError)


async def test_secrets_never_reach_the_cache(tmp_path: Path, monkeypatch) -> None:
    secret = "sk-test-cache-0123456789abcdef"
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", secret)
    model = CachedModel(MockModel(model="echo"), ModelCache(tmp_path))
    # An echo repeats its prompt: the worst case of a reply quoting a key.
    reply = await model.complete([{"role": "user", "content": f"my key is {secret}"}], seed=1)
    assert secret in reply.text
    (entry,) = ModelCache(tmp_path).entries()
    text = entry.read_text()
    assert secret not in text and "[redacted:SOME_PROVIDER_API_KEY]" in text
    assert json.loads(text)["version"] == 1
    assert scrub_secrets("short values stay", ()) == "short values stay"
