"""`ModelOptions`: every knob a model client takes, validated, with a docstring per field.

One options model serves every provider; fields that only one provider reads say so. Options are
frozen so a client can be cached per ``(spec, options)`` and shared by every game in a process.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FaultKind = Literal["429", "500", "timeout", "drop", "empty", "truncated", "long"]
"""A failure the mock provider can inject (see `accord.models.mock`)."""

ALL_FAULTS: tuple[FaultKind, ...] = ("429", "500", "timeout", "drop", "empty", "truncated", "long")


class Prices(BaseModel):
    """What a model charges, in US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    input_per_mtok: float = Field(ge=0)
    """Price of one million input (prompt) tokens."""

    output_per_mtok: float = Field(ge=0)
    """Price of one million output tokens, reasoning tokens included."""

    cached_input_per_mtok: float | None = Field(default=None, ge=0)
    """Price of one million input tokens read from the provider's prompt cache; ``None``
    charges them as ordinary input."""

    cache_write_per_mtok: float | None = Field(default=None, ge=0)
    """Price of one million input tokens written to the prompt cache (Anthropic: 1.25x the
    input price); ``None`` charges them as ordinary input."""


class ModelOptions(BaseModel):
    """How to reach a model and how patiently to call it."""

    # Field docstrings double as descriptions in the JSON schema of experiment configs.
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    base_url: str | None = None
    """Server address, e.g. ``http://127.0.0.1:8000/v1``. Required by ``openai-compatible``;
    optional for hosted providers (passed to LiteLLM as ``api_base``)."""

    api_key_env: str | None = None
    """Name of the environment variable holding the API key. Defaults to the provider's
    conventional variable (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ...). The key itself is
    never stored in options, traces or any other file."""

    timeout_s: float = Field(default=120.0, gt=0)
    """Seconds one attempt may take; a slower attempt is abandoned and retried."""

    max_concurrency: int | None = Field(default=None, ge=1)
    """A fixed number of calls in flight at once per provider pool (shared by all its
    clients, and across the cluster on Ray). ``None`` (the default) sizes the pool from the
    server's answers instead: it grows while calls succeed, halves on a 429, waits out a
    Retry-After as a pool and paces calls at the rate the server's ``x-ratelimit-*`` headers
    allow (`accord.models.limits`), up to ``concurrency_ceiling``."""

    concurrency_ceiling: int = Field(default=256, ge=1)
    """The most calls in flight an adaptive pool may reach (with ``max_concurrency`` unset)."""

    @property
    def concurrency_limit(self) -> int:
        """The pool's fixed limit, or the ceiling of an adaptive one."""
        return (
            self.max_concurrency if self.max_concurrency is not None else self.concurrency_ceiling
        )

    cooldown_s: float = Field(default=0.0, ge=0)
    """Minimum seconds between the starts of two calls of one client (the paper used 1 s)."""

    max_retries: int = Field(default=10, ge=0)
    """Retries after a transient failure (rate limit, 5xx, timeout, dropped connection);
    a call makes at most ``max_retries + 1`` attempts."""

    backoff_base_s: float = Field(default=2.0, ge=0)
    """Backoff before retry ``k`` is drawn uniformly from ``[0, min(cap, base * 2**(k-1))]``."""

    backoff_cap_s: float = Field(default=60.0, ge=0)
    """Upper bound of one backoff wait, a server's Retry-After included (a server asking for
    longer is retried after the cap)."""

    deadline_s: float = Field(default=600.0, gt=0)
    """Total seconds one decision's model calls may take, every attempt and wait included;
    when the next retry could not finish in time the call fails for good."""

    temperature: float | None = Field(default=None, ge=0)
    """Sampling temperature when the caller gives none; ``None`` keeps the provider default."""

    max_tokens: int | None = Field(default=None, ge=1)
    """Output token limit when the caller gives none; ``None`` keeps the provider default."""

    prices: Prices | None = None
    """Prices used for ``cost_usd``; ``None`` uses LiteLLM's price map where it knows the
    model, else the cost is reported as unknown."""

    prompt_cache: bool = True
    """Mark prompt-cache breakpoints for providers whose caching is explicit (Anthropic, also
    through Bedrock or Vertex): the system prompt and the newest message, so the next turn of
    the conversation reads everything before it from the cache. Providers that cache on
    their own (OpenAI and compatible servers) need no marks."""

    batch_missing: Literal["resubmit", "live"] = "resubmit"
    """Batch mode: a request a batch did not answer (it expired, was cancelled, or failed in
    part) is asked again in the next batch (``resubmit``) or at once as a live call at the
    live price (``live``); either way the call's ``retries`` record it."""

    extra_params: dict[str, Any] = Field(default_factory=dict)
    """Extra request fields passed to the provider unchanged (e.g. ``reasoning_effort``)."""

    model_path: str | None = None
    """``local`` only: path of a GGUF file (``local/smollm2`` finds the bundled one)."""

    n_ctx: int = Field(default=8192, ge=256)
    """``local`` only: context window in tokens."""

    n_threads: int | None = Field(default=None, ge=1)
    """``local`` only: CPU threads; ``None`` uses every core."""

    session_cache_mb: int = Field(default=512, ge=0)
    """``local`` only: memory for the saved prompt state of each conversation (session), so a
    seat's next turn evaluates only its new tokens. 0 disables the cache."""

    latency_s: float = Field(default=0.0, ge=0)
    """``mock`` only: seconds each reply takes."""

    fault_rate: float = Field(default=0.0, ge=0, le=1)
    """``mock`` only: share of calls that fail with one of ``faults``."""

    faults: tuple[FaultKind, ...] = ALL_FAULTS
    """``mock`` only: failures to inject, chosen deterministically per call."""
