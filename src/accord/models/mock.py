"""The mock provider: offline replies for tests, demos and load tests.

From code, ``MockModel(replies=[...])`` plays a script: each call takes the next item, which is
a reply string, an exception to raise (a `TransientModelError` exercises the retry path) or a
function of the conversation returning the reply.

From a config or the command line:

* ``mock/schema`` (alias ``mock/random``): a JSON value valid against the request's response
  schema (every declared property, strings within their length limits, numbers within their
  bounds, one branch of ``anyOf``/``oneOf``), chosen deterministically from the conversation and
  the seed. Without a schema: a short fixed sentence.
* ``mock/echo``: the last user message.

When a call offers tools (tools mode), ``mock/schema`` answers with one call of one of them,
its arguments valid against that tool's parameters; a script item may be a `Completion` whose
``tool_calls`` are returned as they are.

Options ``latency_s``, ``fault_rate`` and ``faults`` make it slow or unreliable on purpose. Which
call fails depends only on the conversation, the seed and how often that same request was seen,
so a run is reproducible however its calls interleave. Token counts are rough (4 characters per
token).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from accord.core.errors import ConfigError, ModelError, TransientModelError
from accord.core.spec import JSONSchema
from accord.models._schema import infer_type, merge_all_of, resolve_ref
from accord.models.base import Completion, Message, ToolCall, ToolSpec, Usage
from accord.models.client import Call, ClockFn, ModelClient, RetryHook, SleepFn
from accord.models.options import FaultKind, ModelOptions

ScriptedReply = str | BaseException | Callable[[list[Message]], str] | Completion
"""One item of a `MockModel` script."""

MOCK_MODELS = ("schema", "random", "echo", "scripted")
"""Names accepted after ``mock/``."""

_SENTENCE = "I agree; let us settle on a fair split."
_WORDS = (
    "we", "can", "agree", "on", "a", "fair", "split", "offer", "accept", "counter", "time",
    "slot", "meet", "value", "deal", "share", "items", "propose", "today", "works",
)  # fmt: skip
_DEFAULT_STRING_CAP = 40
CALL_LOG = 1000
"""Calls a `MockModel` remembers in `calls` (the most recent ones)."""
_MAX_DEPTH = 32


def _rough_tokens(text: str) -> int:
    return (len(text) + 3) // 4


class MockModel(ModelClient):
    """A model that needs no network: scripted, schema-following or echoing replies.

    Args:
        replies: a script consumed in order; giving one selects the ``scripted`` model.
        model: ``"schema"``, ``"random"``, ``"echo"`` or ``"scripted"`` (default: scripted
            when `replies` is given, else schema).
        options: model options; ``latency_s``, ``fault_rate`` and ``faults`` apply here.
        latency_s: shortcut overriding ``options.latency_s``.

    Attributes:
        calls: the messages of every call received, in order.
        in_flight: calls currently inside the model.
        max_in_flight: the most calls that were ever inside the model at once.
    """

    def __init__(
        self,
        replies: Sequence[ScriptedReply] | None = None,
        *,
        model: str | None = None,
        options: ModelOptions | None = None,
        latency_s: float | None = None,
        sleep: SleepFn | None = None,
        clock: ClockFn | None = None,
        rng: random.Random | None = None,
        on_retry: RetryHook | None = None,
    ) -> None:
        name = model or ("scripted" if replies is not None else "schema")
        if name not in MOCK_MODELS:
            raise ConfigError(
                f"Unknown mock model {name!r}; use one of "
                + ", ".join(f"mock/{m}" for m in MOCK_MODELS)
                + "."
            )
        if name == "scripted" and replies is None:
            raise ConfigError(
                "mock/scripted plays a script given in code: build MockModel(replies=[...]) "
                "instead, or use mock/schema or mock/echo."
            )
        opts = options if options is not None else ModelOptions()
        if latency_s is not None:
            opts = opts.model_copy(update={"latency_s": latency_s})
        super().__init__(f"mock/{name}", opts, sleep=sleep, clock=clock, rng=rng, on_retry=on_retry)
        self._mode = "schema" if name == "random" else name
        self._script = list(replies or [])
        self._next_reply = 0
        self._seen: dict[str, int] = {}
        # The last calls, for tests and demos; bounded, since one client serves a whole run.
        self.calls: deque[list[Message]] = deque(maxlen=CALL_LOG)
        self.in_flight = 0
        self.max_in_flight = 0
        self._scripted_calls: list[ToolCall] = []

    async def _complete_once(self, call: Call) -> Completion:
        self.calls.append(call.messages)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.options.latency_s > 0:
                await asyncio.sleep(self.options.latency_s)
            # Hashing the whole conversation is only needed to pick faults and schema samples;
            # scripted and echo replies skip it (it dominates the cost of a mock call).
            needs_key = self._mode == "schema" or (
                self.options.fault_rate > 0 and bool(self.options.faults)
            )
            key = _request_key(call) if needs_key else ""
            fault = self._pick_fault(key)
            _raise_fault(fault)
            self._scripted_calls = []
            text = self._reply(call, key)
            tool_calls = self._scripted_calls
            if call.tools and self._mode == "schema":
                text, tool_calls = "", sample_tool_calls(call.tools, random.Random(key))
        finally:
            self.in_flight -= 1
        if fault == "empty":
            text = ""
        elif fault == "truncated":
            text = text[: len(text) // 2]
        elif fault == "long":
            text = " ".join(["more"] * (4 * (call.max_tokens or 256)))
        usage = Usage(
            input_tokens=sum(_rough_tokens(m["content"]) + 4 for m in call.messages),
            output_tokens=_rough_tokens(text),
        )
        raw: dict[str, Any] = {"fault": fault} if fault else {}
        return Completion(text=text, usage=usage, cost_usd=0.0, raw=raw, tool_calls=tool_calls)

    def _pick_fault(self, key: str) -> FaultKind | None:
        if self.options.fault_rate <= 0 or not self.options.faults:
            return None
        seen = self._seen[key] = self._seen.get(key, 0) + 1
        digest = hashlib.sha256(f"{key}:{seen}".encode()).digest()
        if int.from_bytes(digest[:4]) / 2**32 >= self.options.fault_rate:
            return None
        return self.options.faults[int.from_bytes(digest[4:8]) % len(self.options.faults)]

    def _reply(self, call: Call, key: str) -> str:
        if self._mode == "echo":
            users = [m["content"] for m in call.messages if m["role"] == "user"]
            return users[-1] if users else ""
        if self._mode == "schema":
            if call.response_schema is None:
                return _SENTENCE
            rng = random.Random(key)
            return json.dumps(sample_valid(call.response_schema, rng), ensure_ascii=False)
        if self._next_reply >= len(self._script):
            raise ModelError(
                f"MockModel ran out of scripted replies: call {self._next_reply + 1} but the "
                f"script has {len(self._script)}. Add replies to the script."
            )
        item = self._script[self._next_reply]
        self._next_reply += 1
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, str):
            return item
        if isinstance(item, Completion):
            self._scripted_calls = list(item.tool_calls)
            return item.text
        return item(call.messages)


def _request_key(call: Call) -> str:
    parts: list[Any] = [call.messages, call.response_schema, call.seed]
    if call.tools:  # tools mode only: json-mode keys (and so samples) stay as they were
        parts.append(call.tools)
    payload = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def sample_tool_calls(tools: Sequence[ToolSpec], rng: random.Random) -> list[ToolCall]:
    """One call of one of `tools`, chosen with `rng`, its arguments valid against the tool's
    parameter schema (the mock's answer in tools mode)."""
    function = rng.choice(list(tools)).get("function", {})
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    arguments = json.dumps(sample_valid(parameters, rng), ensure_ascii=False)
    return [ToolCall(id="call_1", name=str(function.get("name", "")), arguments=arguments)]


def _raise_fault(fault: FaultKind | None) -> None:
    if fault == "429":
        raise TransientModelError(
            "rate limited (HTTP 429, injected by mock)", retry_after_s=1.0, status=429
        )
    if fault == "500":
        raise TransientModelError("server error (HTTP 500, injected by mock)", status=500)
    if fault == "timeout":
        raise TransientModelError("request timed out (injected by mock)")
    if fault == "drop":
        raise TransientModelError("connection dropped (injected by mock)")


def sample_valid(schema: JSONSchema, rng: random.Random) -> Any:
    """A JSON value valid against `schema`, drawn with `rng`.

    Supports the subset Accord's action schemas use: ``type`` (or a list of types), ``enum``,
    ``const``, ``anyOf``/``oneOf``/``allOf``, local ``$ref``, object ``properties``, array
    ``items``/``minItems``/``maxItems`` and fixed tuples (``prefixItems``), string
    ``minLength``/``maxLength``, and numeric ``minimum``/``maximum`` (exclusive too).
    ``pattern`` and ``format`` are not followed.
    """
    return _sample(schema, rng, schema, 0)


def _sample(schema: JSONSchema, rng: random.Random, root: JSONSchema, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise ConfigError("The response schema nests too deeply (or refers to itself).")
    if "$ref" in schema:
        return _sample(resolve_ref(root, schema["$ref"]), rng, root, depth + 1)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _sample(rng.choice(schema[key]), rng, root, depth + 1)
    if "allOf" in schema:
        merged = merge_all_of(schema)
        return _sample(merged, rng, root, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = rng.choice(kind)
    if kind is None:
        kind = infer_type(schema) or "string"
    if kind == "object":
        props: dict[str, JSONSchema] = schema.get("properties", {})
        return {name: _sample(sub, rng, root, depth + 1) for name, sub in props.items()}
    if kind == "array" and "prefixItems" in schema:
        return [_sample(sub, rng, root, depth + 1) for sub in schema["prefixItems"]]
    if kind == "array":
        low = int(schema.get("minItems", 0))
        high = int(schema.get("maxItems", low + 3))
        items: JSONSchema = schema.get("items", {"type": "string", "maxLength": 12})
        return [_sample(items, rng, root, depth + 1) for _ in range(rng.randint(low, high))]
    if kind == "string":
        return _sample_string(schema, rng)
    if kind in ("integer", "number"):
        return _sample_number(schema, rng, integer=kind == "integer")
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    raise ConfigError(f"The mock cannot produce JSON of type {kind!r}; fix the schema.")


def _sample_string(schema: JSONSchema, rng: random.Random) -> str:
    low = int(schema.get("minLength", 0))
    high = int(schema.get("maxLength", max(low, _DEFAULT_STRING_CAP)))
    target = rng.randint(low, max(low, min(high, low + _DEFAULT_STRING_CAP)))
    words: list[str] = []
    while len(" ".join(words)) < target:
        words.append(rng.choice(_WORDS))
    text = " ".join(words)[:target].rstrip()
    return text.ljust(low, "x")


def _sample_number(schema: JSONSchema, rng: random.Random, *, integer: bool) -> int | float:
    low = schema.get("minimum")
    high = schema.get("maximum")
    ex_low = schema.get("exclusiveMinimum")
    ex_high = schema.get("exclusiveMaximum")
    step = 1 if integer else 1e-3
    if isinstance(ex_low, int | float) and not isinstance(ex_low, bool):
        low = ex_low + step if low is None else max(low, ex_low + step)
    if isinstance(ex_high, int | float) and not isinstance(ex_high, bool):
        high = ex_high - step if high is None else min(high, ex_high - step)
    if low is None:
        low = 0 if high is None or high >= 0 else high - 100
    if high is None:
        high = low + 100
    if integer:
        return rng.randint(int(-(-low // 1)), int(high // 1))
    return min(high, max(low, round(rng.uniform(low, high), 3)))
