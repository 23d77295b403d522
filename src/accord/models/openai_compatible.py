"""The ``openai-compatible`` provider: any server speaking the OpenAI chat completions API.

A plain HTTP POST to ``{base_url}/chat/completions`` (vLLM, SGLang, llama.cpp's server, LM
Studio, Ollama's /v1, ...), without LiteLLM. A response schema is sent as a ``json_schema``
``response_format``; a server that rejects that field is remembered and asked again without it
(the agent validates replies anyway). HTTP 408/409/429/5xx, timeouts and dropped connections
are transient and retried by `ModelClient`.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from typing import Any

import httpx

from accord.core.errors import ConfigError, ModelError, TransientModelError
from accord.models.base import Completion, Usage
from accord.models.client import Call, ModelClient, retry_after_seconds
from accord.models.options import ModelOptions

_TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
_SCHEMA_HINTS = ("response_format", "json_schema", "guided", "grammar")


class OpenAICompatibleModel(ModelClient):
    """Chat completions over HTTP against ``options.base_url``.

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
                f"{spec} needs base_url, the address of the server, e.g. "
                "base_url='http://127.0.0.1:8000/v1'."
            )
        self.model_name = spec.split("/", 1)[1]
        self._url = options.base_url.rstrip("/") + "/chat/completions"
        self._transport = transport
        self._schema_supported = True
        # httpx clients hold connections bound to the loop that opened them.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )

    def _concurrency(self) -> tuple[str, int]:
        # Two servers are two providers as far as load goes.
        return f"{self.provider}@{self._url}", self.options.max_concurrency

    def _http(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            headers = {}
            if self.options.api_key_env:
                key = os.environ.get(self.options.api_key_env, "")
                headers["Authorization"] = f"Bearer {key}"
            client = httpx.AsyncClient(
                transport=self._transport,
                headers=headers,
                timeout=httpx.Timeout(self.options.timeout_s),
                limits=httpx.Limits(max_connections=self.options.max_concurrency),
            )
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the HTTP connections opened on the running event loop."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    async def _complete_once(self, call: Call) -> Completion:
        body: dict[str, Any] = {"model": self.model_name, "messages": call.messages}
        if call.temperature is not None:
            body["temperature"] = call.temperature
        if call.max_tokens is not None:
            body["max_tokens"] = call.max_tokens
        if call.seed is not None:
            body["seed"] = call.seed
        body.update(self.options.extra_params)
        if call.response_schema is not None and self._schema_supported:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": call.response_schema},
            }
            response = await self._post(body)
            if response.status_code == 400 and _mentions_schema(response.text):
                self._schema_supported = False
                del body["response_format"]
                response = await self._post(body)
        else:
            response = await self._post(body)
        return self._parse(response)

    async def _post(self, body: dict[str, Any]) -> httpx.Response:
        try:
            response = await self._http().post(self._url, json=body)
        except httpx.TimeoutException as err:
            raise TransientModelError(f"{self.spec}: request timed out ({err!r})") from err
        except httpx.TransportError as err:
            raise TransientModelError(f"{self.spec}: connection failed ({err!r})") from err
        status = response.status_code
        if status in _TRANSIENT_STATUS or status >= 500:
            raise TransientModelError(
                f"{self.spec}: HTTP {status}: {_short(response.text)}",
                retry_after_s=retry_after_seconds(response.headers.get("retry-after")),
            )
        return response

    def _parse(self, response: httpx.Response) -> Completion:
        status = response.status_code
        if status in (401, 403):
            hint = (
                f"check the key in ${self.options.api_key_env}"
                if self.options.api_key_env
                else "set api_key_env to the variable holding the server's key"
            )
            raise ModelError(f"{self.spec}: HTTP {status} (not authorised): {hint}.")
        if status >= 400:
            raise ModelError(
                f"{self.spec}: HTTP {status}: {_short(response.text)}. Check the model name "
                f"and base_url ({self.options.base_url})."
            )
        try:
            data = response.json()
            choice = data["choices"][0]
            message = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError) as err:
            raise TransientModelError(
                f"{self.spec}: malformed reply from the server: {_short(response.text)}"
            ) from err
        usage = data.get("usage") or {}
        details = usage.get("completion_tokens_details") or {}
        prompt_details = usage.get("prompt_tokens_details") or {}
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        raw: dict[str, Any] = {
            "id": data.get("id"),
            "finish_reason": choice.get("finish_reason"),
            "served_model": data.get("model"),
        }
        if not self._schema_supported:
            raw["response_format_dropped"] = True
        return Completion(
            text=message.get("content") or "",
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
                reasoning_tokens=int(details.get("reasoning_tokens") or 0),
                cached_input_tokens=int(prompt_details.get("cached_tokens") or 0),
            ),
            raw=raw,
            reasoning=reasoning if isinstance(reasoning, str) else None,
        )


def _mentions_schema(text: str) -> bool:
    lowered = text.lower()
    return any(hint in lowered for hint in _SCHEMA_HINTS)


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."
