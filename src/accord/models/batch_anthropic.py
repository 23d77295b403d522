"""Anthropic Message Batches, over plain HTTP (``httpx``).

Why not the ``anthropic`` SDK: it is not a dependency of Accord (LiteLLM speaks Anthropic's
API for live calls without it), and a batch needs four documented endpoints
(``POST /v1/messages/batches``, ``GET /v1/messages/batches[/{id}]``, ``GET .../{id}/results``,
``POST .../{id}/cancel``): a small, testable client beats a new dependency.

A request's ``params`` is a Messages API body: the system prompt apart, the conversation's
turns (tool calls as ``tool_use`` blocks, their answers as ``tool_result`` blocks), and Accord's
prompt-cache breakpoints on the system prompt and the newest message, as in live calls
(`accord.models.litellm_provider.with_cache_breakpoints`; batches read and write the cache the
same way). A response schema is not sent: live Anthropic calls ask for JSON by the prompt
alone (LiteLLM's JSON mode sends Anthropic no schema), and a batch asks exactly what a live
call asks, so a batch run measures the same thing as a live one. A forced tool named
``reply`` (how batches of an earlier version asked) is still read back as the reply text.

Results are read from the batch's own results endpoint at ``base_url`` (never from a URL the
server names), one line per request: ``succeeded`` (the message), ``errored`` (an error type:
overload, rate limit and API errors are passing, the others permanent), ``canceled`` or
``expired`` (both passing: the request is asked again in the next batch).

Anthropic batches carry no metadata, so a batch created just before a kill, whose id was never
written, is found again as the one batch created since the record was written with the same
number of requests; if there is not exactly one, the record's requests are submitted again.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Sequence
from typing import Any

import httpx

from accord.core.errors import InputLimitError, ModelError, TransientModelError
from accord.core.inputs import usage_number
from accord.models.base import Completion, ToolCall, Usage
from accord.models.batch import BatchAPI, BatchOutcome, BatchRequest, BatchState, Submitted
from accord.models.client import Call
from accord.models.options import ModelOptions
from accord.models.tool_calls import bound_calls

ANTHROPIC_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
REPLY_TOOL = "reply"
"""The forced tool earlier versions asked a response schema with: its input is the reply."""
DEFAULT_MAX_TOKENS = 4096
"""Anthropic requires ``max_tokens``; LiteLLM's default for live calls."""
_EPHEMERAL = {"type": "ephemeral"}
EMPTY_TEXT = "[System: Empty message content sanitised to satisfy protocol]"
"""What LiteLLM puts in place of an empty text block of a live Anthropic call."""
_PASSING = frozenset({"overloaded_error", "rate_limit_error", "api_error", "timeout_error"})
_LINE_LIMIT = 4 * 1024 * 1024


class AnthropicBatchAPI(BatchAPI):
    """Anthropic's Message Batches at `base_url` (Anthropic itself by default)."""

    kind = "anthropic"
    max_requests = 100_000
    max_bytes = 250 * 1024 * 1024  # Anthropic's limit is 256 MB per batch

    def __init__(
        self,
        model_name: str,
        options: ModelOptions,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.model_name = model_name
        self.options = options
        base = (options.base_url or ANTHROPIC_URL).rstrip("/")
        self.base_url = base.removesuffix("/v1")
        self._key_env = options.api_key_env or "ANTHROPIC_API_KEY"
        self._transport = transport

    @property
    def key(self) -> str:
        return f"anthropic@{self.base_url}|{self._key_env}"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "base_url": self.base_url, "model": self.model_name}

    def body(self, call: Call) -> dict[str, Any]:
        system = "\n\n".join(m["content"] for m in call.messages if m["role"] == "system")
        turns = messages_of(call.messages)
        cache = self.options.prompt_cache
        if cache and turns:
            last = turns[-1]
            if isinstance(last["content"], str):
                block = {"type": "text", "text": last["content"], "cache_control": _EPHEMERAL}
                turns[-1] = {**last, "content": [block]}
            elif last["content"] and last["content"][-1].get("type") == "text":
                marked = {**last["content"][-1], "cache_control": _EPHEMERAL}
                turns[-1] = {**last, "content": [*last["content"][:-1], marked]}
        params: dict[str, Any] = {
            "model": self.model_name,
            "max_tokens": call.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": turns,
        }
        if system:
            params["system"] = (
                [{"type": "text", "text": system, "cache_control": _EPHEMERAL}] if cache else system
            )
        if call.temperature is not None:
            params["temperature"] = call.temperature
        if call.tools:
            params["tools"] = [_tool(t) for t in call.tools]
            params["tool_choice"] = {"type": "auto"}
        # A response schema is asked for by the prompt alone, as a live Anthropic call asks
        # for it (LiteLLM's JSON mode sends Anthropic no schema): batch mode changes where a
        # call goes, never what the model is asked.
        return {**params, **dict(self.options.extra_params)}

    def parse(self, outcome: BatchOutcome) -> Completion:
        return completion_from_message(outcome.body or {})

    def _client(self) -> httpx.AsyncClient:
        key = os.environ.get(self._key_env, "")
        return httpx.AsyncClient(
            base_url=self.base_url,
            transport=self._transport,
            timeout=httpx.Timeout(self.options.timeout_s),
            headers={"x-api-key": key, "anthropic-version": API_VERSION},
        )

    async def _call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        try:
            async with self._client() as http:
                response = await http.request(method, path, json=body)
        except httpx.HTTPError as err:
            raise TransientModelError(
                f"batch endpoint {self.base_url} unreachable ({err})"
            ) from err
        status = response.status_code
        if status >= 400:
            text = f"batch endpoint {self.base_url}{path}: HTTP {status}: {response.text[:300]}"
            if status in (408, 409, 425, 429, 529) or status >= 500:
                raise TransientModelError(text, status=status)
            raise ModelError(text, status=status)
        return response

    async def submit(self, requests: Sequence[BatchRequest], *, label: str) -> Submitted:
        body = {"requests": [{"custom_id": r.custom_id, "params": r.body} for r in requests]}
        data = (await self._call("POST", "/v1/messages/batches", body)).json()
        return Submitted(batch_id=str(data["id"]))

    async def find(self, label: str, *, size: int = 0, since: float = 0.0) -> str | None:
        data = (await self._call("GET", "/v1/messages/batches?limit=100")).json()
        found = [
            str(b["id"])
            for b in data.get("data", [])
            if _total(b.get("request_counts")) == size and _unix(b.get("created_at")) >= since - 5
        ]
        return found[0] if len(found) == 1 else None

    async def status(self, batch_id: str) -> BatchState:
        data = (await self._call("GET", f"/v1/messages/batches/{batch_id}")).json()
        counts = data.get("request_counts") or {}
        return BatchState(
            batch_id=str(data.get("id", batch_id)),
            status=str(data.get("processing_status", "")),
            output=batch_id if data.get("processing_status") == "ended" else None,
            counts={
                "total": _total(counts),
                "completed": int(counts.get("succeeded") or 0),
                "failed": int(counts.get("errored") or 0),
            },
        )

    async def results(self, state: BatchState) -> list[BatchOutcome]:
        if not state.output:
            return []
        response = await self._call("GET", f"/v1/messages/batches/{state.batch_id}/results")
        return read_result_lines(response.content)

    async def cancel(self, batch_id: str) -> None:
        await self._call("POST", f"/v1/messages/batches/{batch_id}/cancel")


def messages_of(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """The conversation without its system prompt, as the Messages API takes it."""
    out: list[dict[str, Any]] = []
    for m in messages:
        role = m["role"]
        if role == "system":
            continue
        if role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": m.get("tool_call_id", ""),
                "content": m["content"],
            }
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
            continue
        if role == "assistant" and m.get("tool_calls"):
            blocks: list[dict[str, Any]] = []
            if isinstance(m["content"], str):
                # Live, LiteLLM sends an empty text beside the calls as a placeholder sentence
                # (Anthropic refuses empty text): the model sees the same here.
                text = m["content"] if m["content"].strip() else EMPTY_TEXT
                blocks.append({"type": "text", "text": text})
            for entry in m["tool_calls"]:
                call = ToolCall.from_message(entry)
                try:
                    args = json.loads(call.arguments or "{}")
                except ValueError:
                    args = {}
                blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": args})
            out.append({"role": "assistant", "content": blocks})
            continue
        out.append({"role": role, "content": m["content"]})
    return _merged(out)


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _merged(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive turns of one role as one turn of their blocks (a tool's answer and the
    next user message), as live calls send them through LiteLLM (and as Anthropic reads
    consecutive turns anyway)."""
    out: list[dict[str, Any]] = []
    for turn in turns:
        if out and out[-1]["role"] == turn["role"]:
            out[-1] = {
                "role": turn["role"],
                "content": _blocks(out[-1]["content"]) + _blocks(turn["content"]),
            }
        else:
            out.append(turn)
    return out


def _tool(spec: Any) -> dict[str, Any]:
    function = spec.get("function", {}) if isinstance(spec, dict) else {}
    return {
        "name": function.get("name", ""),
        "description": function.get("description", ""),
        "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
    }


def completion_from_message(data: dict[str, Any]) -> Completion:
    """The completion in a Messages API reply (the forced ``reply`` tool's input as text)."""
    blocks = data.get("content")
    if not isinstance(blocks, list):
        raise TransientModelError(f"malformed reply in a batch result: {str(data)[:300]}")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(str(block.get("text") or ""))
        elif block.get("type") == "tool_use":
            args = json.dumps(block.get("input") or {}, ensure_ascii=False)
            if block.get("name") == REPLY_TOOL:
                texts.append(args)
            else:
                calls.append(ToolCall(str(block.get("id", "")), str(block.get("name", "")), args))
    found = data.get("usage")
    usage: dict[str, Any] = found if isinstance(found, dict) else {}

    def count(key: str) -> int:
        value = usage.get(key)
        return 0 if value is None else int(usage_number(value, what=f"usage.{key}"))

    try:  # a batch's result file is as untrusted as a live reply (`accord.core.inputs`)
        read, written = count("cache_read_input_tokens"), count("cache_creation_input_tokens")
        counts = Usage(
            input_tokens=count("input_tokens") + read + written,
            output_tokens=count("output_tokens"),
            cached_input_tokens=read,
            cache_write_tokens=written,
        )
    except InputLimitError as exc:
        raise TransientModelError(f"a batch result's usage: {exc}") from None
    kept, problem = bound_calls(calls)
    return Completion(
        text="".join(texts),
        usage=counts,
        raw={
            "id": data.get("id"),
            "finish_reason": data.get("stop_reason"),
            "served_model": data.get("model"),
            **({"input_limit": problem} if problem else {}),
        },
        tool_calls=kept,
    )


def read_result_lines(data: bytes) -> list[BatchOutcome]:
    """The outcomes of a results file; malformed lines are skipped."""
    out: list[BatchOutcome] = []
    for raw in data.splitlines():
        if not raw.strip() or len(raw) > _LINE_LIMIT:
            continue
        try:
            line = json.loads(raw)
            custom_id = line["custom_id"]
            result = line["result"]
            kind = result["type"]
        except (ValueError, KeyError, TypeError):
            continue
        if not isinstance(custom_id, str):
            continue
        if kind == "succeeded" and isinstance(result.get("message"), dict):
            out.append(BatchOutcome(custom_id=custom_id, body=result["message"]))
            continue
        if kind == "errored":
            error = (result.get("error") or {}).get("error") or result.get("error") or {}
            etype = str(error.get("type") or "error")
            message = f"{etype}: {error.get('message') or ''!s}"[:500]
            out.append(
                BatchOutcome(custom_id, status=0, error=message, transient=etype in _PASSING)
            )
            continue
        out.append(
            BatchOutcome(custom_id, status=0, error=f"request {kind} in the batch", transient=True)
        )
    return out


def _total(counts: Any) -> int:
    if not isinstance(counts, dict):
        return 0
    return sum(int(v or 0) for v in counts.values() if isinstance(v, int))


def _unix(stamp: Any) -> float:
    try:
        return dt.datetime.fromisoformat(str(stamp)).timestamp()
    except ValueError:
        return 0.0
