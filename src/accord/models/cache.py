"""A content-addressed cache of model calls on disk, for exact replay and cheap re-runs.

A call's key is the SHA-256 of its canonical JSON: provider/model, messages, response schema,
temperature, max tokens, seed, the tools offered, and every client option that can change a
reply (`reply_options`: the server address, the provider's extra request fields, a local
model's file and context window, a mock's faults), after the client's option defaults are
applied, so "no temperature given" and "the default given" are one key. Two servers that
serve different models under one name (``default``) therefore never share replies, and a run
against a server that refuses every call is never answered from another server's entries.
Credentials are not part of the key (a user name, password or key in the address is dropped
first): they choose who pays, not what the model says. The game, the trace id and the
conversation's session name are not part of the key either: the same request in another run
is the same call.

Layout: ``DIR/<first 2 hex digits>/<key>.json``, one file per call, each written atomically
(temporary file + rename), so any number of processes (Ray workers included, on a shared
file system) can fill one cache at once and a killed run never leaves a torn entry.

An entry holds the reply (text, usage, cost, attempts, latency) or, for a call that failed for
good, the error. Errors are replayed only in replay mode (`ModelCache(replay_errors=True)`):
an exact replay needs the failure again, while a re-run should try the model once more.

`scrub_secrets` removes the values of secret-looking environment variables from text; the
cache and the runner pass everything they write through it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from accord.core.errors import ModelError

# Re-exported: callers have imported these from here since before `accord.core.secrets`.
from accord.core.secrets import scrub_secrets as scrub_secrets
from accord.core.secrets import secret_values as secret_values
from accord.core.spec import JSONSchema
from accord.models.base import Completion, Message, ToolCall, ToolSpec, Usage
from accord.models.client import ModelClient, RetriesExhaustedError
from accord.models.options import ModelOptions

CACHE_VERSION = 1


@dataclass
class CacheStats:
    """Lookups of one `ModelCache` object."""

    hits: int = 0
    misses: int = 0

    def add(self, other: CacheStats) -> None:
        """Add another object's counts (e.g. from a Ray worker)."""
        self.hits += other.hits
        self.misses += other.misses


class CacheMissError(ModelError):
    """An offline cache has no entry for a call."""


class ModelCache:
    """A directory of cached model calls.

    Args:
        root: the cache directory (created on first write).
        replay_errors: give back recorded failures too (exact replay); otherwise a cached
            failure counts as a miss and the model is asked again.
        offline: never call a model; a miss raises `CacheMissError`.
    """

    def __init__(self, root: Path, *, replay_errors: bool = False, offline: bool = False) -> None:
        self.root = root
        self.replay_errors = replay_errors
        self.offline = offline
        self.stats = CacheStats()

    def __repr__(self) -> str:
        return f"ModelCache({str(self.root)!r})"

    @staticmethod
    def key(
        spec: str,
        messages: Sequence[Message],
        *,
        response_schema: JSONSchema | None,
        temperature: float | None,
        max_tokens: int | None,
        seed: int | None,
        extra_params: dict[str, Any] | None = None,
        options: dict[str, Any] | None = None,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> str:
        """The content address of one call.

        Args:
            extra_params: the provider's extra request fields.
            options: the rest of `reply_options` (server address, local model, faults).
            tools: the native tools the call offers, if any.
        """
        provider, _, model = spec.partition("/")
        payload = {
            "provider": provider,
            "model": model,
            "messages": [_key_message(m) for m in messages],
            "response_schema": response_schema,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "seed": seed,
            "extra_params": extra_params or {},
            "options": options or {},
            "tools": list(tools or []),
        }
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def path(self, key: str) -> Path:
        """Where the entry of `key` lives."""
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry of `key`, or None (an unreadable entry counts as missing)."""
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None
        if not isinstance(entry, dict) or entry.get("version") != CACHE_VERSION:
            return None
        return entry

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store an entry atomically; concurrent writers of one key all write the same call."""
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = scrub_secrets(json.dumps({"version": CACHE_VERSION, **entry}, ensure_ascii=False))
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:8]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def entries(self) -> list[Path]:
        """Every entry file (for tools and tests)."""
        return sorted(self.root.glob("*/*.json")) if self.root.exists() else []


class CachedModel:
    """A layer over a `ModelClient` that answers from a `ModelCache` and fills it on a miss.

    It has the wrapped client's spec and options, so an agent cannot tell the two apart; a hit
    returns the recorded completion (text, usage, cost, attempts and latency as first seen)
    with ``raw["cache"] == "hit"``.
    """

    def __init__(self, inner: ModelClient, cache: ModelCache) -> None:
        self.inner = inner
        self.cache = cache

    def __repr__(self) -> str:
        return f"CachedModel({self.spec!r})"

    @property
    def spec(self) -> str:
        """The wrapped client's ``provider/model``."""
        return self.inner.spec

    @property
    def options(self) -> ModelOptions:
        """The wrapped client's options."""
        return self.inner.options

    def concurrency_key(self) -> tuple[str, int]:
        """The wrapped client's pool."""
        return self.inner.concurrency_key()

    @property
    def adaptive_concurrency(self) -> bool:
        """Whether the wrapped client's pool is adaptive."""
        return self.inner.adaptive_concurrency

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        response_schema: JSONSchema | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        session: str | None = None,
        deadline: float | None = None,
        tools: Sequence[ToolSpec] | None = None,
    ) -> Completion:
        opts = self.inner.options
        key = ModelCache.key(
            self.spec,
            messages,
            response_schema=response_schema,
            temperature=temperature if temperature is not None else opts.temperature,
            max_tokens=max_tokens if max_tokens is not None else opts.max_tokens,
            seed=seed,
            extra_params=opts.extra_params,
            options=reply_options(opts),
            tools=tools,
        )
        entry = self.cache.get(key)
        if entry is not None and "completion" in entry:
            self.cache.stats.hits += 1
            return _completion(entry["completion"], self.spec)
        if entry is not None and "error" in entry and self.cache.replay_errors:
            self.cache.stats.hits += 1
            raise _error(entry["error"])
        if self.cache.offline:
            raise CacheMissError(
                f"{self.spec}: this call is not in the cache {self.cache.root} (offline). "
                "Replay with the cache the run wrote (--cache DIR), or drop --offline to ask "
                "the model."
            )
        self.cache.stats.misses += 1
        try:
            completion = await self.inner.complete(
                messages,
                response_schema=response_schema,
                temperature=temperature,
                max_tokens=max_tokens,
                seed=seed,
                session=session,
                deadline=deadline,
                tools=tools,
            )
        except ModelError as exc:
            self.cache.put(key, {"model": self.spec, "seed": seed, "error": _error_entry(exc)})
            raise
        self.cache.put(key, {"model": self.spec, "seed": seed, "completion": _entry(completion)})
        return completion


REPLY_FIELDS = ("base_url", "model_path", "n_ctx", "fault_rate", "faults")
"""`ModelOptions` fields besides the request's own that can change what a call returns: the
server (and so the model behind a name), a local model's file and context window, and the
mock's injected faults. Timeouts, retries, concurrency, prices and the key's variable name do
not change a reply and stay out of the key, so tuning them keeps the cache warm."""


def reply_options(options: ModelOptions) -> dict[str, Any]:
    """The options of a client that enter its cache keys (`REPLY_FIELDS`), defaults left out
    so adding a field later keeps the keys of clients that do not set it."""
    defaults = ModelOptions()
    out: dict[str, Any] = {}
    for name in REPLY_FIELDS:
        value = getattr(options, name)
        if value != getattr(defaults, name):
            out[name] = list(value) if isinstance(value, tuple) else value
    if "base_url" in out:
        out["base_url"] = server_address(out["base_url"])
    return out


def server_address(url: str) -> str:
    """`url` without credentials (user name, password, key-like query fields) or a trailing
    slash: the server it names, for cache keys."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    query = "&".join(
        q for q in parts.query.split("&") if q and not _SECRET_QUERY_FIELD.search(q.split("=")[0])
    )
    return urlunsplit((parts.scheme.lower(), host.lower(), parts.path.rstrip("/"), query, ""))


_SECRET_QUERY_FIELD = re.compile(r"key|token|secret|password|sig|auth", re.I)


def _entry(c: Completion) -> dict[str, Any]:
    return {
        "text": c.text,
        "usage": asdict(c.usage),
        "latency_s": c.latency_s,
        "cost_usd": c.cost_usd,
        "attempts": c.attempts,
        "reasoning": c.reasoning,
        # Retry records replay too (a trace's model_call events list them); the text is
        # scrubbed of secrets like everything the cache writes.
        "raw": dict(c.raw),
        **({"tool_calls": [t.to_message() for t in c.tool_calls]} if c.tool_calls else {}),
    }


def _key_message(m: Message) -> dict[str, Any]:
    """A message as it enters a cache key: role and content, plus a tools-mode message's
    ``tool_calls`` / ``tool_call_id`` (absent in json mode, so those keys are unchanged)."""
    out: dict[str, Any] = {"role": m["role"], "content": m["content"]}
    if "tool_calls" in m:
        out["tool_calls"] = m["tool_calls"]
    if "tool_call_id" in m:
        out["tool_call_id"] = m["tool_call_id"]
    return out


def _completion(data: dict[str, Any], spec: str) -> Completion:
    return Completion(
        text=data["text"],
        usage=Usage(**data["usage"]),
        latency_s=data["latency_s"],
        cost_usd=data["cost_usd"],
        raw={**data["raw"], "cache": "hit"},
        model=spec,
        attempts=data["attempts"],
        reasoning=data["reasoning"],
        tool_calls=[ToolCall.from_message(t) for t in data.get("tool_calls", [])],
    )


def _error_entry(exc: ModelError) -> dict[str, Any]:
    attempts = exc.attempts if isinstance(exc, RetriesExhaustedError) else 1
    return {"type": type(exc).__name__, "message": str(exc), "attempts": attempts}


def _error(data: dict[str, Any]) -> ModelError:
    if data.get("type") == "RetriesExhaustedError":
        return RetriesExhaustedError(data["message"], attempts=data["attempts"], retries=[])
    return ModelError(data["message"])
