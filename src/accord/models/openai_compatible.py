"""The ``openai-compatible`` provider: any server speaking the OpenAI chat completions API.

Calls go through the official ``openai`` SDK (its own retries off: retrying is `ModelClient`'s
job) to ``{base_url}/chat/completions``: vLLM, SGLang, llama.cpp's server, llama-cpp-python's
server, LM Studio, Ollama's /v1, ...

Servers differ in which structured-output request they accept, so a response schema is asked
for in the strictest form first and relaxed when a server refuses it:

1. ``json_schema`` (OpenAI, vLLM, SGLang);
2. ``json_object`` carrying the schema (llama-cpp-python turns it into a grammar);
3. plain ``json_object``;
4. no ``response_format`` at all (the agent validates replies anyway).

A refusal is an HTTP 400 or 422, or a 5xx whose body names the schema or ``response_format``
(llama-cpp-python's server answers ``json_schema`` with a 500). The first form a server accepts
is remembered for the client, so the probing costs one extra request per refused form per run,
and every switch is reported in ``Completion.raw["response_format_fallback"]`` (the agent
records it as a ``response_format_fallback`` trace event). HTTP 408/409/425/429/5xx, timeouts
and dropped connections are transient and retried by `ModelClient`.

In tools mode (`accord.agents.tools`) a call carries ``tools`` (with ``tool_choice: auto``)
instead of a response schema, and the reply's ``tool_calls`` come back in
`Completion.tool_calls`.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Mapping
from typing import Any

import httpx

from accord.core.errors import ConfigError, InputLimitError, ModelError, TransientModelError
from accord.core.inputs import MAX_RESPONSE_BYTES, parse_json, usage_number
from accord.core.spec import JSONSchema
from accord.models.base import Completion, Usage
from accord.models.client import Call, ModelClient, retry_after_seconds
from accord.models.limits import rate_info
from accord.models.options import ModelOptions
from accord.models.server import context_error, context_fix
from accord.models.tool_calls import read_tool_calls
from accord.models.versions import version_headers

_TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
_SCHEMA_HINTS = ("response_format", "json_schema", "json schema", "schema", "guided", "grammar")
FORMATS = ("json_schema", "json_object_schema", "json_object", "none")
"""Structured-output request forms, strictest first."""


class OpenAICompatibleModel(ModelClient):
    """Chat completions against ``options.base_url`` through the ``openai`` SDK.

    Args:
        spec: ``openai-compatible/<model name the server knows>``.
        options: must set ``base_url``; ``api_key_env`` names an optional bearer token.
        transport: an httpx transport to use instead of the network (tests).
    """

    def __init__(
        self,
        spec: str,
        options: ModelOptions,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        **client_args: Any,
    ) -> None:
        super().__init__(spec, options, **client_args)
        if not options.base_url:
            raise ConfigError(
                f"{spec} needs base_url, the address of the server: pass "
                "--model-base-url http://127.0.0.1:8000/v1 (or -M base_url=...) on the command "
                "line, or set options: {base_url: http://127.0.0.1:8000/v1} under the seat in "
                "the experiment file."
            )
        self.model_name = spec.split("/", 1)[1]
        self._base_url = options.base_url.rstrip("/")
        self._transport = transport
        self.format_index = 0
        """Index in `FORMATS` of the strictest form this server accepted so far."""
        # SDK clients hold connections bound to the loop that opened them.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )

    def _concurrency(self) -> tuple[str, int]:
        # Two servers are two providers as far as load goes.
        return f"{self.provider}@{self._base_url}", self.options.concurrency_limit

    def _sdk(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            import openai

            key = os.environ.get(self.options.api_key_env, "") if self.options.api_key_env else ""
            client = openai.AsyncOpenAI(
                # Local servers usually need no key, but the SDK insists on one.
                api_key=key or "not-needed",
                base_url=self._base_url,
                max_retries=0,
                timeout=self.options.timeout_s,
                http_client=httpx.AsyncClient(
                    transport=self._transport,
                    timeout=httpx.Timeout(self.options.timeout_s),
                    limits=httpx.Limits(max_connections=self.options.concurrency_limit),
                ),
            )
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the HTTP connections opened on the running event loop."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    async def _complete_once(self, call: Call) -> Completion:
        body: dict[str, Any] = {"model": self.model_name, "messages": call.messages}
        if call.temperature is not None:
            body["temperature"] = call.temperature
        if call.max_tokens is not None:
            body["max_tokens"] = call.max_tokens
        if call.seed is not None:
            body["seed"] = call.seed
        if call.tools:  # tools mode: the agent sends no response schema with tools
            body["tools"] = call.tools
            body["tool_choice"] = "auto"
        switches: list[dict[str, Any]] = []
        while True:
            mode = FORMATS[self.format_index] if call.response_schema is not None else "none"
            request = dict(body)
            if call.response_schema is not None and mode != "none":
                request["response_format"] = response_format(mode, call.response_schema)
            status, text, data, headers = await self._post(request)
            refused = status in (400, 422) or (status is not None and status >= 500)
            if (
                refused
                and call.response_schema is not None
                and mode != "none"
                and _mentions_schema(text)
            ):
                # Step down one form and ask again at once: this is not a retry of a failure.
                self.format_index += 1
                switches.append(
                    {
                        "from": mode,
                        "to": FORMATS[self.format_index],
                        "status": status,
                        "error": _short(text, 200),
                    }
                )
                continue
            completion = self._parse(status, text, data)
            completion.rate = rate_info(headers)
            versions = version_headers(headers)
            if versions:
                completion.raw["versions"] = versions
            if call.response_schema is not None:
                completion.raw["response_format"] = mode
            if switches:
                completion.raw["response_format_fallback"] = switches
            return completion

    async def _post(self, body: dict[str, Any]) -> tuple[int, str, Any, Mapping[str, str]]:
        """One request: (status, body text, parsed JSON or None, headers). Transient failures
        raise."""
        import openai

        extra = dict(self.options.extra_params)
        kwargs = {k: v for k, v in body.items() if k not in ("model", "messages")}
        try:
            raw = await self._sdk().chat.completions.with_raw_response.create(
                model=body["model"], messages=body["messages"], extra_body=extra or None, **kwargs
            )
        except openai.APITimeoutError as err:
            raise TransientModelError(f"{self.spec}: request timed out ({err})") from err
        except openai.APIConnectionError as err:
            cause = err.__cause__ or err
            raise TransientModelError(
                f"{self.spec}: connection to {self._base_url} failed ({cause!r}); is the "
                "server running?"
            ) from err
        except openai.APIStatusError as err:
            response = err.response
            status = response.status_code
            # A 5xx naming the schema is a refusal of the response_format, not an outage.
            refusal = "response_format" in body and _mentions_schema(_text(err))
            if status in _TRANSIENT_STATUS or (status >= 500 and not refusal):
                raise TransientModelError(
                    f"{self.spec}: HTTP {status}: {_short(_text(err))}",
                    retry_after_s=retry_after_seconds(response.headers.get("retry-after")),
                    status=status,
                ) from err
            return status, _text(err), None, response.headers
        http = raw.http_response
        try:
            data = parse_json(
                http.content,
                what="the server's reply",
                max_chars=MAX_RESPONSE_BYTES,
                limit="MAX_RESPONSE_BYTES",
            )
        except InputLimitError as exc:
            if exc.limit == "valid JSON":
                data = None
            else:
                raise TransientModelError(f"{self.spec}: {exc}") from None
        # A parsed answer's text is quoted only in errors: its start is enough (a 30 MB answer
        # is not decoded a second time).
        ok = data is not None and http.status_code < 400
        text = http.content[:4096].decode(errors="replace") if ok else http.text
        return http.status_code, text, data, http.headers

    def _parse(self, status: int, text: str, data: Any) -> Completion:
        if status in (401, 403):
            hint = (
                f"check the key in ${self.options.api_key_env}"
                if self.options.api_key_env
                else "set api_key_env to the variable holding the server's key (-M api_key_env=...)"
            )
            raise ModelError(f"{self.spec}: HTTP {status} (not authorised): {hint}.", status=status)
        if status == 404:
            hint = (
                "Check the model name and base_url"
                if self._base_url.endswith("/v1")
                else "base_url usually ends with /v1 (e.g. http://127.0.0.1:8000/v1); check it "
                "and the model name"
            )
            raise ModelError(
                f"{self.spec}: HTTP 404 from {self._base_url}/chat/completions: "
                f"{_short(text)}. {hint}.",
                status=status,
            )
        found = context_error(text) if status >= 400 else None
        if found is not None:
            raise ModelError(f"{self.spec}: HTTP {status}: {context_fix(*found)}.", status=status)
        if status >= 400:
            raise ModelError(
                f"{self.spec}: HTTP {status}: {_short(text)}. Check the model name, base_url "
                f"({self._base_url}) and extra_params.",
                status=status,
            )
        return chat_completion(data, spec=self.spec, text=text)


def chat_completion(data: Any, *, spec: str, text: str = "") -> Completion:
    """The completion in a chat-completions response body, read with the bounds of every
    untrusted reply (usage numbers, tool calls: `accord.core.inputs`), whether it came from a
    live call or a batch's result file (`accord.models.batch_openai`)."""
    try:
        choice = data["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as err:
        raise TransientModelError(
            f"{spec}: malformed reply from the server: {_short(text or str(data))}"
        ) from err
    usage = _mapping(data.get("usage"))
    details = _mapping(usage.get("completion_tokens_details"))
    prompt_details = _mapping(usage.get("prompt_tokens_details"))
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    tool_calls, problem = read_tool_calls(message.get("tool_calls"))
    raw: dict[str, Any] = {
        "id": data.get("id"),
        "finish_reason": choice.get("finish_reason"),
        "served_model": data.get("model"),
        **({"input_limit": problem} if problem else {}),
        "fingerprint": data.get("system_fingerprint"),
    }
    try:
        counts = Usage(
            input_tokens=_count(usage.get("prompt_tokens"), "prompt_tokens"),
            output_tokens=_count(usage.get("completion_tokens"), "completion_tokens"),
            reasoning_tokens=_count(details.get("reasoning_tokens"), "reasoning_tokens"),
            cached_input_tokens=_count(prompt_details.get("cached_tokens"), "cached_tokens"),
        )
    except InputLimitError as exc:
        raise TransientModelError(f"{spec}: the server's usage: {exc}") from None
    content = message.get("content")
    return Completion(
        text=content if isinstance(content, str) else "",
        usage=counts,
        raw=raw,
        reasoning=reasoning if isinstance(reasoning, str) and reasoning else None,
        tool_calls=tool_calls,
    )


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _count(value: Any, what: str) -> int:
    """A token count of the server's usage: absent is 0, else a whole number within
    `MAX_USAGE_NUMBER` (`InputLimitError` otherwise)."""
    if value is None:
        return 0
    return int(usage_number(value, what=f"usage.{what}"))


def response_format(mode: str, schema: JSONSchema) -> dict[str, Any]:
    """The ``response_format`` request field of one structured-output form."""
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_object"}


def _text(err: Any) -> str:
    try:
        return str(err.response.text)
    except Exception:
        return str(err)


def _mentions_schema(text: str) -> bool:
    lowered = text.lower()
    return any(hint in lowered for hint in _SCHEMA_HINTS)


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."
