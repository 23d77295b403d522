"""The mock provider: scripts, schema-valid replies, echo, deterministic injected faults."""

from __future__ import annotations

import json
import random

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core.errors import ConfigError, ModelError, TransientModelError
from accord.models import MockModel, ModelOptions, RetriesExhaustedError, get_model
from accord.models.mock import sample_valid
from accord.testing.schemas import envelope_schema

NEGOTIATION = envelope_schema(speech_min=1, speech_max=300, closed=True)
CALENDAR = {
    "type": "object",
    "properties": {
        "decision": {"enum": ["accept", "reject", "propose"]},
        "slots": {
            "type": "array",
            "items": {"type": "integer", "minimum": 9, "exclusiveMaximum": 17},
            "minItems": 1,
            "maxItems": 4,
        },
        "note": {"type": ["string", "null"], "maxLength": 40},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "final": {"type": "boolean"},
    },
    "required": ["decision", "slots", "note", "confidence", "final"],
}
WITH_REFS = {
    "$defs": {"move": {"oneOf": [{"const": "pass"}, {"$ref": "#/$defs/swap"}]}},
    "type": "object",
    "properties": {"move": {"$ref": "#/$defs/move"}},
    "required": ["move"],
}
WITH_REFS["$defs"]["swap"] = {
    "type": "object",
    "properties": {"i": {"type": "integer", "minimum": 0, "maximum": 9}},
    "required": ["i"],
}
SCHEMAS = [NEGOTIATION, CALENDAR, WITH_REFS, {"type": "integer", "exclusiveMinimum": -3}]


@settings(max_examples=60, deadline=None)
@given(schema=st.sampled_from(SCHEMAS), seed=st.integers(0, 2**32))
def test_sampled_values_validate_against_the_schema(schema, seed):
    value = sample_valid(schema, random.Random(seed))
    jsonschema.validate(value, schema)


@settings(max_examples=25, deadline=None)
@given(text=st.text(max_size=40), seed=st.integers(0, 1000), schema=st.sampled_from(SCHEMAS))
async def test_mock_schema_replies_are_valid_json_for_the_schema(text, seed, schema):
    model = MockModel(model="schema")
    completion = await model.complete(
        [{"role": "user", "content": text}], response_schema=schema, seed=seed
    )
    jsonschema.validate(json.loads(completion.text), schema)
    assert completion.usage.output_tokens > 0


async def test_mock_schema_is_deterministic_in_messages_and_seed():
    model = get_model("mock/random")
    ask = [{"role": "user", "content": "your move"}]
    first = await model.complete(ask, response_schema=NEGOTIATION, seed=1)
    again = await MockModel(model="schema").complete(ask, response_schema=NEGOTIATION, seed=1)
    others = {
        (await model.complete(ask, response_schema=NEGOTIATION, seed=s)).text for s in range(2, 8)
    }
    assert first.text == again.text
    assert len(others | {first.text}) > 1


async def test_mock_without_schema_gives_a_sentence_and_echo_echoes():
    sentence = await get_model("mock/schema").complete([{"role": "user", "content": "hi"}])
    assert sentence.text.endswith(".") and len(sentence.text.split()) > 3
    convo = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "second"},
    ]
    assert (await get_model("mock/echo").complete(convo)).text == "second"


async def test_script_plays_strings_functions_and_errors_in_order():
    model = MockModel(
        ["one", lambda messages: f"saw {len(messages)}", ValueError("scripted failure")]
    )
    assert (await model.complete([{"role": "user", "content": "a"}])).text == "one"
    assert (await model.complete([{"role": "user", "content": "b"}])).text == "saw 1"
    with pytest.raises(ModelError, match="scripted failure"):
        await model.complete([{"role": "user", "content": "c"}])
    with pytest.raises(
        ModelError, match="ran out of scripted replies: call 4 but the script has 3"
    ):
        await model.complete([{"role": "user", "content": "d"}])
    assert [m[0]["content"] for m in model.calls] == ["a", "b", "c", "d"]


def test_scripted_mock_needs_a_script():
    with pytest.raises(ConfigError, match="MockModel\\(replies="):
        MockModel(model="scripted")


def faulty(fault: str, **options) -> MockModel:
    return MockModel(
        model="schema",
        options=ModelOptions(fault_rate=1.0, faults=(fault,), max_retries=0, **options),
    )


@pytest.mark.parametrize(
    ("fault", "message", "retry_after"),
    [
        ("429", "HTTP 429", 1.0),
        ("500", "HTTP 500", None),
        ("timeout", "timed out", None),
        ("drop", "connection dropped", None),
    ],
)
async def test_transient_faults_raise_retryable_errors(fault, message, retry_after):
    with pytest.raises(RetriesExhaustedError, match=message) as info:
        await faulty(fault).complete([{"role": "user", "content": "x"}])
    cause = info.value.__cause__
    assert isinstance(cause, TransientModelError)
    assert cause.retry_after_s == retry_after


async def test_reply_faults_damage_the_text():
    ask = [{"role": "user", "content": "x"}]
    assert (await faulty("empty").complete(ask, response_schema=NEGOTIATION)).text == ""
    truncated = await faulty("truncated").complete(ask, response_schema=NEGOTIATION)
    with pytest.raises(json.JSONDecodeError):
        json.loads(truncated.text)
    long = await faulty("long").complete(ask, max_tokens=50)
    assert long.usage.output_tokens > 2 * 50
    assert long.raw["fault"] == "long"


async def test_faults_are_reproducible_however_calls_interleave():
    opts = ModelOptions(fault_rate=0.5, faults=("empty",))
    prompts = [[{"role": "user", "content": f"prompt {i}"}] for i in range(40)]
    forward, backward = (
        MockModel(model="schema", options=opts),
        MockModel(model="schema", options=opts),
    )
    got_forward = {i: (await forward.complete(p)).text for i, p in enumerate(prompts)}
    got_backward = {
        i: (await backward.complete(prompts[i])).text for i in reversed(range(len(prompts)))
    }
    assert got_forward == got_backward
    empties = sum(1 for text in got_forward.values() if text == "")
    assert 5 < empties < 35


async def test_retries_ride_out_injected_transient_faults(fake_time):
    model = MockModel(
        model="schema",
        options=ModelOptions(fault_rate=0.4, faults=("429", "500", "drop")),
        sleep=fake_time.sleep,
    )
    replies = [
        await model.complete([{"role": "user", "content": f"q{i}"}], response_schema=CALENDAR)
        for i in range(30)
    ]
    for reply in replies:
        jsonschema.validate(json.loads(reply.text), CALENDAR)
    assert any(reply.attempts > 1 for reply in replies)
    assert fake_time.sleeps  # backoff went through the injected sleep
