"""Models on your own server: which specs are served models, what their context is, and the
fixes to print when a server's context or an uncapped reply gets in the way.

A server started with its defaults has a small context (llama.cpp and llama-cpp-python: 2,048
tokens) and, asked without ``max_tokens``, generates until that context is full. So a served
model (``openai-compatible/...``, ``hosted_vllm/...``, or any model given a ``base_url``) gets
the game's reply budget as its default ``max_tokens`` (`accord.core.game.Game.reply_tokens`),
and before the first game Accord asks the server for its context size where the server says it:

* llama.cpp's ``llama-server``: ``GET /props`` (``default_generation_settings.n_ctx``);
* vLLM and SGLang: ``GET /v1/models`` (``max_model_len`` of the model);
* llama-cpp-python's server does not say it, but its context-length error does: the check
  sends the game's longest conversation (played with a stand-in model) once with
  ``max_tokens: 1`` and reads the number from the refusal (and the exact prompt size from the
  reply's usage when it fits).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from accord.core.errors import InputLimitError
from accord.core.inputs import MAX_SERVER_JSON_BYTES, parse_json

if TYPE_CHECKING:
    import httpx

SERVER_PROVIDERS = ("openai-compatible", "hosted_vllm")
"""Model prefixes that always mean a server someone runs (not a hosted API)."""

CONTEXT_FLAGS = (
    "llama.cpp: llama-server -c 8192; llama-cpp-python: python -m llama_cpp.server "
    "--n_ctx 8192; vLLM: --max-model-len 8192; SGLang: --context-length 8192"
)
"""How to give each server a larger context (also in docs/running.md)."""

_CONTEXT_PATTERNS = (
    # OpenAI, vLLM and llama-cpp-python: "maximum context length is 2048 tokens ... requested
    # 2120 tokens"
    re.compile(r"maximum context length is (\d+) tokens.*?\((\d+) in the messages", re.S),
    re.compile(r"maximum context length is (\d+) tokens.*?(?:requested|resulted in) (\d+)", re.S),
    re.compile(r"maximum context length is (\d+) tokens", re.S),
    # llama.cpp's server: "the request exceeds the available context size (2048 tokens)"
    re.compile(r"exceeds the available context size[^\d]*(\d+)", re.S),
    # llama.cpp (older) and llama-cpp-python's library: "exceed context window of 2048"
    re.compile(r"exceed(?:s)? context window of (\d+)", re.S),
    # SGLang: "... is longer than the model's context length (4096 tokens)"
    re.compile(r"context length \((\d+) tokens\)", re.S),
)


def is_server_model(model: str, options: dict[str, Any] | None = None) -> bool:
    """True for a model on a server someone runs: a server prefix, or any ``base_url``."""
    provider = model.partition("/")[0]
    if provider == "litellm":
        provider = model.split("/", 2)[1] if model.count("/") >= 2 else provider
    return provider in SERVER_PROVIDERS or bool((options or {}).get("base_url"))


def context_error(text: str) -> tuple[int, int | None] | None:
    """``(context size, prompt tokens or None)`` when `text` is a context-length refusal (the
    tokens asked for in all where the message does not give the prompt's share)."""
    for pattern in _CONTEXT_PATTERNS:
        m = pattern.search(text)
        if m is not None:
            asked = int(m.group(2)) if m.lastindex and m.lastindex >= 2 else None
            return int(m.group(1)), asked
    return None


def context_fix(n_ctx: int, needed: int | None = None) -> str:
    """The advice printed when a prompt and its reply do not fit the server's context."""
    need = f" needs {needed} tokens but" if needed else ""
    bigger = max(8192, 1 << (max(needed or 0, n_ctx) * 2 - 1).bit_length())
    return (
        f"the request{need} the server's context is {n_ctx} tokens: start the server with a "
        f"larger context ({CONTEXT_FLAGS.replace('8192', str(bigger))}), or lower max_tokens "
        "(-M max_tokens=N)"
    )


UNCAPPED_FIX = (
    "the call ran past timeout_s with no max_tokens: a server asked without max_tokens "
    "generates until its context is full; set max_tokens (--max-tokens N or -M max_tokens=N)"
)
"""Advice for a timeout of a call that had no output cap."""


_TIMEOUT_MARKS = ("no reply within", "timed out", "timeout")


def is_timeout(err: Exception) -> bool:
    """Whether a transient failure was an attempt that ran out of time."""
    text = str(err).lower()
    return any(mark in text for mark in _TIMEOUT_MARKS)


def server_root(base_url: str) -> str:
    """``http://h:8000/v1`` -> ``http://h:8000`` (llama.cpp serves ``/props`` at the root)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def reported_context(
    base_url: str, model: str, *, headers: dict[str, str], timeout_s: float = 5.0
) -> int | None:
    """The context size the server at `base_url` reports for `model`, or None if it does not
    say (or cannot be asked)."""
    import httpx

    base = base_url.rstrip("/")
    with httpx.Client(timeout=timeout_s, headers=headers) as http:
        props = _get_json(http, f"{server_root(base)}/props")
        if isinstance(props, dict):
            settings = props.get("default_generation_settings")
            for source in (settings, props):
                if isinstance(source, dict) and _positive(source.get("n_ctx")):
                    return int(source["n_ctx"])
        listing = _get_json(http, f"{base}/models")
        data = listing.get("data") if isinstance(listing, dict) else None
        if isinstance(data, list):
            entries = [e for e in data if isinstance(e, dict)]
            named = [e for e in entries if e.get("id") == model] or entries[:1]
            for entry in named:
                if _positive(entry.get("max_model_len")):
                    return int(entry["max_model_len"])
                meta = entry.get("meta")
                if isinstance(meta, dict) and _positive(meta.get("n_ctx")):
                    return int(meta["n_ctx"])
    return None


def measure_prompt(
    base_url: str,
    model: str,
    messages: list[dict[str, str]],
    *,
    headers: dict[str, str],
    timeout_s: float,
) -> tuple[int | None, int | None]:
    """Send `messages` once with ``max_tokens: 1``: ``(prompt tokens, context size)``, each
    None when the server's answer does not say it."""
    import httpx

    body = {"model": model, "messages": messages, "max_tokens": 1, "temperature": 0}
    with httpx.Client(timeout=httpx.Timeout(timeout_s, connect=5.0), headers=headers) as http:
        try:
            response = http.post(f"{base_url.rstrip('/')}/chat/completions", json=body)
        except httpx.HTTPError:
            return None, None
    if response.status_code >= 400:
        found = context_error(response.text)
        if found is None:
            return None, None
        n_ctx, asked = found
        return asked, n_ctx
    body = _json_of(response)
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return None, None
    tokens = usage.get("prompt_tokens")
    return (tokens if isinstance(tokens, int) and _positive(tokens) else None), None


def _get_json(http: httpx.Client, url: str) -> Any:
    import httpx

    try:
        response = http.get(url)
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    return _json_of(response)


def _json_of(response: httpx.Response) -> Any:
    """A server's JSON answer within `accord.core.inputs`' bounds (size, depth, finite
    numbers), or None: a server that answers nonsense is a server that does not say."""
    try:
        return parse_json(
            response.content,
            what="the server's answer",
            max_chars=MAX_SERVER_JSON_BYTES,
            limit="MAX_SERVER_JSON_BYTES",
        )
    except InputLimitError:
        return None


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
