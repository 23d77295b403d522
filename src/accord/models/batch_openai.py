"""The OpenAI Batch API (files + batches), through the official ``openai`` SDK.

Why the SDK and not LiteLLM's batch helpers: Accord already talks to OpenAI-style servers
through the ``openai`` SDK (`accord.models.openai_compatible`), the SDK covers every endpoint
a batch needs (file upload, batch create / retrieve / cancel / list, file content) for any
``base_url``, so gateways and self-hosted servers that offer ``/v1/batches`` work the same, and
its requests are plain HTTP a fake server can answer (`accord.testing.batch_server`). LiteLLM's
batch support wraps the same calls with less control over the address and the metadata.

A batch's input file holds one JSON line per request, ``{custom_id, method, url, body}``; its
output file one line per answered request, ``{custom_id, response: {status_code, body}}``, and
its error file one per failed request, ``{custom_id, error: {code, message}}``. A line that does
not parse is skipped (its request counts as unanswered and is asked again in the next batch).
"""

from __future__ import annotations

import asyncio
import json
import os
import weakref
from collections.abc import Sequence
from typing import Any

import httpx

from accord.core.errors import ModelError, TransientModelError
from accord.models.base import Completion
from accord.models.batch import BatchAPI, BatchOutcome, BatchRequest, BatchState, Submitted
from accord.models.client import Call
from accord.models.openai_compatible import chat_completion, response_format
from accord.models.options import ModelOptions

ENDPOINT = "/v1/chat/completions"
OPENAI_URL = "https://api.openai.com/v1"
_TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
_TRANSIENT_CODES = frozenset(
    {"batch_expired", "batch_cancelled", "rate_limit_exceeded", "server_error", "timeout"}
)
_LINE_LIMIT = 4 * 1024 * 1024
"""Longest result line read (a longer one is treated as malformed)."""


class OpenAIBatchAPI(BatchAPI):
    """OpenAI's Batch API at `base_url` (OpenAI itself by default).

    Args:
        model_name: the model as the server knows it (``gpt-4o-mini``).
        options: the seat's model options (``base_url``, ``api_key_env``, ``extra_params``).
        key_env: the variable holding the key when ``api_key_env`` names none.
        schema_form: how a response schema is asked for, as the seat's live client asks
            (``json_schema`` for an OpenAI-compatible server, ``json_object`` as LiteLLM
            sends it to OpenAI), so a batched call is the live call's request.
        transport: an httpx transport instead of the network (tests).
    """

    kind = "openai"
    max_requests = 50_000
    max_bytes = 190 * 1024 * 1024  # OpenAI's limit is 200 MB per input file

    def __init__(
        self,
        model_name: str,
        options: ModelOptions,
        *,
        key_env: str | None = "OPENAI_API_KEY",
        schema_form: str = "json_schema",
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.model_name = model_name
        self.schema_form = schema_form
        self.options = options
        self.base_url = (options.base_url or OPENAI_URL).rstrip("/")
        self._key_env = options.api_key_env or key_env
        self._transport = transport
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def key(self) -> str:
        return f"openai@{self.base_url}|{self._key_env or ''}"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "base_url": self.base_url, "model": self.model_name}

    def _sdk(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            import openai

            key = os.environ.get(self._key_env, "") if self._key_env else ""
            client = openai.AsyncOpenAI(
                api_key=key or "not-needed",
                base_url=self.base_url,
                max_retries=2,
                timeout=self.options.timeout_s,
                http_client=httpx.AsyncClient(
                    transport=self._transport, timeout=httpx.Timeout(self.options.timeout_s)
                ),
            )
            self._clients[loop] = client
        return client

    def body(self, call: Call) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model_name, "messages": call.messages}
        if call.temperature is not None:
            body["temperature"] = call.temperature
        if call.max_tokens is not None:
            body["max_tokens"] = call.max_tokens
        if call.seed is not None:
            body["seed"] = call.seed
        if call.tools:
            body["tools"] = call.tools
            body["tool_choice"] = "auto"
        elif call.response_schema is not None:
            body["response_format"] = response_format(self.schema_form, call.response_schema)
        return {**body, **dict(self.options.extra_params)}

    def parse(self, outcome: BatchOutcome) -> Completion:
        return completion_from_body(outcome.body or {})

    async def submit(self, requests: Sequence[BatchRequest], *, label: str) -> Submitted:
        lines = [
            json.dumps(
                {"custom_id": r.custom_id, "method": "POST", "url": ENDPOINT, "body": r.body},
                ensure_ascii=False,
            )
            for r in requests
        ]
        data = ("\n".join(lines) + "\n").encode()
        async with _mapped(self.base_url):
            sdk = self._sdk()
            uploaded = await sdk.files.create(
                file=(f"{label}.jsonl", data, "application/jsonl"), purpose="batch"
            )
            batch = await sdk.batches.create(
                input_file_id=uploaded.id,
                endpoint=ENDPOINT,
                completion_window="24h",
                metadata={"accord_batch": label},
            )
        return Submitted(batch_id=str(batch.id), file_id=str(uploaded.id))

    async def find(self, label: str, *, size: int = 0, since: float = 0.0) -> str | None:
        async with _mapped(self.base_url):
            page = await self._sdk().batches.list(limit=100)
            for batch in page.data:
                if (batch.metadata or {}).get("accord_batch") == label:
                    return str(batch.id)
        return None

    async def status(self, batch_id: str) -> BatchState:
        async with _mapped(self.base_url):
            batch = await self._sdk().batches.retrieve(batch_id)
        counts = batch.request_counts
        errors = getattr(batch, "errors", None)
        message = None
        if errors is not None and getattr(errors, "data", None):
            message = "; ".join(str(e.message) for e in errors.data[:3])
        return BatchState(
            batch_id=str(batch.id),
            status=str(batch.status),
            output=batch.output_file_id,
            errors=batch.error_file_id,
            counts=(
                {"total": counts.total, "completed": counts.completed, "failed": counts.failed}
                if counts is not None
                else {}
            ),
            error=message,
        )

    async def results(self, state: BatchState) -> list[BatchOutcome]:
        outcomes: list[BatchOutcome] = []
        for file_id in (state.output, state.errors):
            if not file_id:
                continue
            async with _mapped(self.base_url):
                content = await self._sdk().files.content(file_id)
            outcomes += read_result_lines(content.content)
        return outcomes

    async def cancel(self, batch_id: str) -> None:
        async with _mapped(self.base_url):
            await self._sdk().batches.cancel(batch_id)


def read_result_lines(data: bytes) -> list[BatchOutcome]:
    """The outcomes of an output or error file; malformed lines are skipped."""
    out: list[BatchOutcome] = []
    for raw in data.splitlines():
        if not raw.strip() or len(raw) > _LINE_LIMIT:
            continue
        try:
            line = json.loads(raw)
            custom_id = line["custom_id"]
        except (ValueError, KeyError, TypeError):
            continue
        if not isinstance(custom_id, str):
            continue
        response = line.get("response") if isinstance(line.get("response"), dict) else None
        error = line.get("error") if isinstance(line.get("error"), dict) else None
        status = int(response.get("status_code") or 0) if response else 0
        body = response.get("body") if response else None
        if error is None and status == 200 and isinstance(body, dict):
            out.append(BatchOutcome(custom_id=custom_id, body=body, status=200))
            continue
        code = str((error or {}).get("code") or "")
        message = str((error or {}).get("message") or "") or _body_error(body) or "no reply"
        transient = code in _TRANSIENT_CODES or status in _TRANSIENT_STATUS or status >= 500
        out.append(
            BatchOutcome(
                custom_id=custom_id,
                status=status,
                error=f"{code or 'HTTP ' + str(status)}: {message}"[:500],
                transient=transient,
            )
        )
    return out


def _body_error(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message") or "")
    return ""


def completion_from_body(data: dict[str, Any]) -> Completion:
    """The completion in a chat-completions response body, read exactly as a live call's reply
    is (`accord.models.openai_compatible.chat_completion`: the same bounds on untrusted usage
    numbers and tool calls)."""
    return chat_completion(data, spec="batch result")


class _mapped:
    """The SDK's errors as Accord's: transient for load and connection trouble, else permanent."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, kind: Any, err: BaseException | None, tb: Any) -> bool:
        if err is None:
            return False
        import openai

        if isinstance(err, openai.APIConnectionError | openai.APITimeoutError):
            raise TransientModelError(
                f"batch endpoint {self.base_url} unreachable ({err})"
            ) from err
        if isinstance(err, openai.APIStatusError):
            status = err.response.status_code
            text = f"batch endpoint {self.base_url}: HTTP {status}: {str(err)[:300]}"
            if status in _TRANSIENT_STATUS or status >= 500:
                raise TransientModelError(text, status=status) from err
            if status == 404:
                text += " (does this server offer the Batch API at /v1/batches?)"
            raise ModelError(text, status=status) from err
        return False
