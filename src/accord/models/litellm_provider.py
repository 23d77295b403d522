"""Hosted models through LiteLLM: ``openai/...``, ``anthropic/...``, ``openrouter/...`` and more.

LiteLLM is imported on first use, with its price map read from the installed package (never
fetched) and its own logging, retries and debug banners turned off: retrying and recording are
`ModelClient`'s job. Rate limits, timeouts, dropped connections and 5xx answers become
`TransientModelError` (with the server's Retry-After when it sent one); every other failure is
permanent. In tools mode the call's tools go out as LiteLLM's ``tools`` (OpenAI function format,
which LiteLLM translates for Anthropic and others) and the reply's tool calls come back in
`Completion.tool_calls`. Otherwise a response schema is sent as ``{"type": "json_object"}``,
which nearly every provider accepts, rather than strict ``json_schema``, which many do not;
the agent validates the reply against the schema anyway.
"""

from __future__ import annotations

import logging
import math
import os
import warnings
from collections.abc import Sequence
from typing import Any

from accord.core.errors import ModelError, TransientModelError
from accord.core.inputs import MAX_USAGE_NUMBER
from accord.models.base import Completion, Message, Usage
from accord.models.client import Call, ModelClient, retry_after_seconds
from accord.models.limits import rate_info
from accord.models.options import ModelOptions
from accord.models.server import context_error, context_fix
from accord.models.tool_calls import read_tool_calls
from accord.models.versions import version_headers

_TRANSIENT_NAMES = frozenset(
    {
        "RateLimitError",
        "APIConnectionError",
        "Timeout",
        "APITimeoutError",
        "InternalServerError",
        "ServiceUnavailableError",
        "BadGatewayError",
    }
)
_litellm: Any = None


def load_litellm() -> Any:
    """Import LiteLLM once, configured to stay offline and quiet."""
    global _litellm
    if _litellm is None:
        # Without this LiteLLM downloads its price map at import time.
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        # LiteLLM's response types finish building on first use, and pydantic then warns about
        # their typing; build them here, quietly, so no such warning surfaces inside a call.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                import litellm
            except ImportError as err:  # pragma: no cover - litellm is a core dependency
                raise ModelError(
                    "Hosted models need LiteLLM, a dependency of Accord: reinstall Accord "
                    "(`pip install -e .`)."
                ) from err
            litellm.ModelResponse()
        litellm.suppress_debug_info = True
        litellm.turn_off_message_logging = True
        litellm.drop_params = True
        for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        _litellm = litellm
    return _litellm


_load_litellm = load_litellm  # the older private name, used inside this module


class LiteLLMModel(ModelClient):
    """A hosted model called through ``litellm.acompletion``.

    Args:
        spec: the spec the user wrote (``openai/gpt-5.4-mini`` or ``litellm/<model>``).
        options: model options; ``base_url`` becomes LiteLLM's ``api_base``.
        litellm_model: the model string handed to LiteLLM.
    """

    def __init__(
        self, spec: str, options: ModelOptions, *, litellm_model: str, **client_args: Any
    ) -> None:
        super().__init__(spec, options, **client_args)
        self.litellm_model = litellm_model

    def _concurrency(self) -> tuple[str, int]:
        # Hosted providers limit each model separately (its own requests and tokens per
        # minute), so each model is its own pool.
        return self.spec, self.options.concurrency_limit

    async def _complete_once(self, call: Call) -> Completion:
        litellm = _load_litellm()
        messages: list[Any] = list(call.messages)
        if self.options.prompt_cache and explicit_cache(self.litellm_model):
            messages = with_cache_breakpoints(call.messages)
        kwargs: dict[str, Any] = {
            "model": self.litellm_model,
            "messages": messages,
            "timeout": self.options.timeout_s,
            "num_retries": 0,
            "max_retries": 0,
        }
        if call.temperature is not None:
            kwargs["temperature"] = call.temperature
        if call.max_tokens is not None:
            kwargs["max_tokens"] = call.max_tokens
        if call.seed is not None:
            kwargs["seed"] = call.seed
        if call.tools:
            # Tools mode: the action arrives as tool calls, so no JSON response format.
            kwargs["tools"] = call.tools
            kwargs["tool_choice"] = "auto"
        elif call.response_schema is not None:
            kwargs["response_format"] = {"type": "json_object"}
        if self.options.base_url:
            kwargs["api_base"] = self.options.base_url
        if self.options.api_key_env:
            kwargs["api_key"] = os.environ.get(self.options.api_key_env, "")
        kwargs.update(self.options.extra_params)
        try:
            response = await litellm.acompletion(**kwargs)
        except Exception as err:
            raise _map_error(self.spec, err) from err
        return self._parse(litellm, response)

    def _parse(self, litellm: Any, response: Any) -> Completion:
        try:
            choice = response.choices[0]
            message = choice.message
        except (AttributeError, IndexError, TypeError) as err:
            raise TransientModelError(f"{self.spec}: the reply had no message") from err
        usage = getattr(response, "usage", None)
        details = getattr(usage, "completion_tokens_details", None)
        prompt_details = getattr(usage, "prompt_tokens_details", None)
        reasoning = getattr(message, "reasoning_content", None)
        tool_calls, problem = read_tool_calls(getattr(message, "tool_calls", None))
        return Completion(
            text=getattr(message, "content", None) or "",
            usage=Usage(
                input_tokens=_int(getattr(usage, "prompt_tokens", 0)),
                output_tokens=_int(getattr(usage, "completion_tokens", 0)),
                reasoning_tokens=_int(getattr(details, "reasoning_tokens", 0)),
                cached_input_tokens=_int(getattr(prompt_details, "cached_tokens", 0)),
                cache_write_tokens=_int(getattr(usage, "cache_creation_input_tokens", 0)),
            ),
            cost_usd=_cost(litellm, response),
            raw={
                "id": getattr(response, "id", None),
                "finish_reason": getattr(choice, "finish_reason", None),
                "served_model": getattr(response, "model", None),
                **({"input_limit": problem} if problem else {}),
                "fingerprint": getattr(response, "system_fingerprint", None),
                **(
                    {"versions": versions}
                    if (versions := version_headers(_headers(response)))
                    else {}
                ),
            },
            reasoning=reasoning if isinstance(reasoning, str) and reasoning else None,
            rate=rate_info(_headers(response)),
            tool_calls=tool_calls,
        )


_EXPLICIT_CACHE = ("anthropic/", "bedrock/anthropic", "bedrock/us.anthropic", "vertex_ai/claude")


def explicit_cache(litellm_model: str) -> bool:
    """Whether the provider caches prompts only where the request marks it (Anthropic's
    models, directly or through Bedrock or Vertex)."""
    return litellm_model.startswith(_EXPLICIT_CACHE)


def with_cache_breakpoints(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """`messages` with Anthropic ``cache_control`` breakpoints on the system prompt and on the
    newest message (two of the four allowed).

    A conversation grows by appending turns, so everything up to the newest message is the
    prefix of the next call: the next turn reads it from the cache and writes only what is new.
    The texts are unchanged; only the content becomes a list of one marked text block.
    """
    marked: list[dict[str, Any]] = [dict(m) for m in messages]
    targets = {len(marked) - 1} | {i for i, m in enumerate(marked) if m["role"] == "system"}
    for i in targets:
        if 0 <= i < len(marked) and isinstance(marked[i]["content"], str):
            marked[i]["content"] = [
                {"type": "text", "text": marked[i]["content"], "cache_control": _EPHEMERAL}
            ]
    return marked


_EPHEMERAL = {"type": "ephemeral"}


def _headers(response: Any) -> dict[str, Any] | None:
    hidden = getattr(response, "_hidden_params", None)
    headers = hidden.get("additional_headers") if isinstance(hidden, dict) else None
    return headers if isinstance(headers, dict) else None


def _int(value: Any) -> int:
    # A token count past MAX_USAGE_NUMBER is no count at all (and would not fit a trace reader).
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_USAGE_NUMBER
    return value if ok else 0


def _cost(litellm: Any, response: Any) -> float | None:
    # The price map lacks new and self-hosted models; an unknown price is not an error.
    try:
        cost = litellm.completion_cost(completion_response=response)
    except Exception:
        return None
    if isinstance(cost, bool) or not isinstance(cost, int | float):
        return None
    return float(cost) if math.isfinite(cost) and 0 <= cost <= MAX_USAGE_NUMBER else None


def _map_error(spec: str, err: Exception) -> ModelError:
    status = getattr(err, "status_code", None)
    name = type(err).__name__
    message = f"{spec}: {name}: {_short(str(err))}"
    transient_names = {cls.__name__ for cls in type(err).__mro__} & _TRANSIENT_NAMES
    code = status if isinstance(status, int) else None
    found = context_error(str(err))
    if found is not None:
        return ModelError(f"{spec}: {name}: {context_fix(*found)}.", status=code)
    if transient_names or (code is not None and (code >= 500 or code == 429)):
        return TransientModelError(message, retry_after_s=_retry_after(err), status=code)
    if code in (401, 403) or name in ("AuthenticationError", "PermissionDeniedError"):
        return ModelError(
            f"{message}. Check the API key in the provider's variable (or -M api_key_env=VAR).",
            status=code,
        )
    if code == 404 or name == "NotFoundError":
        return ModelError(
            f"{message}. Check the model name (provider/model) and, with a base_url, that it "
            "is the API's root (often ending in /v1).",
            status=code,
        )
    return ModelError(message, status=code)


def _retry_after(err: Exception) -> float | None:
    sources: list[Any] = [
        getattr(err, "headers", None),
        getattr(getattr(err, "response", None), "headers", None),
        getattr(err, "litellm_response_headers", None),
    ]
    for headers in sources:
        if headers is None:
            continue
        try:
            value = headers.get("retry-after") or headers.get("Retry-After")
        except AttributeError:
            continue
        seconds = retry_after_seconds(value if isinstance(value, str) else None)
        if seconds is not None:
            return seconds
    return None


def _short(text: str, limit: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."
