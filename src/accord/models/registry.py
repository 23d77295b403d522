"""Provider registry: turn a ``provider/model`` string into a cached `ModelClient`.

Providers are entry points of the ``accord.models`` group (`accord.core.plugins`): Accord declares
its own there, and any package can add one (a provider prefix and a builder). They are imported
only when first used, so ``import accord.models`` stays light and never
loads LiteLLM or llama.cpp. Hosted providers go through LiteLLM; their API key is checked when
the client is built, so a missing key stops a run before any game starts.
"""

from __future__ import annotations

import difflib
import os
import threading
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from accord.core import plugins
from accord.core.errors import (
    AccordError,
    ConfigError,
    MissingAPIKeyError,
    ProviderNotFoundError,
)
from accord.core.registry import format_validation_error
from accord.models.client import ModelClient
from accord.models.options import ModelOptions

# The conventional variable of each hosted provider; any one listed is enough, the first is
# named in the error. Bedrock and Vertex AI authenticate through their cloud SDK (profiles,
# instance roles, gcloud login), which a variable check would wrongly reject, and a vLLM server
# usually has no key: those are not checked.
API_KEY_ENV: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY", "OR_API_KEY"),
    "gemini": ("GEMINI_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY", "TOGETHER_AI_API_KEY"),
    "groq": ("GROQ_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "azure": ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY"),
    "xai": ("XAI_API_KEY",),
    "hosted_vllm": (),
    "bedrock": (),
    "vertex_ai": (),
}

LITELLM_PROVIDERS = tuple(API_KEY_ENV)
"""Hosted prefixes served through LiteLLM (plus ``litellm/<any LiteLLM model string>``)."""

ProviderBuilder = Callable[[str, str, ModelOptions], ModelClient]
"""``build(model, spec, options)``: the client for ``spec`` (``provider/model``)."""

_CLIENTS: dict[tuple[str, str], ModelClient] = {}
_CLIENTS_LOCK = threading.Lock()
_PROVIDERS: dict[str, ProviderBuilder] = {}
_SOURCE: dict[str, str] = {}
_PROVIDERS_LOCK = threading.Lock()


def _forget() -> None:
    with _PROVIDERS_LOCK:
        _PROVIDERS.clear()
        _SOURCE.clear()


plugins.on_refresh(_forget)


def providers() -> dict[str, ProviderBuilder]:
    """Providers declared as ``accord.models`` entry points (Accord's own: ``mock``,
    ``local``, ``openai-compatible``, ``litellm``), by the prefix they answer to."""
    with _PROVIDERS_LOCK:
        if not _PROVIDERS:
            for ep in plugins.entry_points(plugins.MODELS):
                if ep.name in _PROVIDERS or ep.name in LITELLM_PROVIDERS:
                    owner = _SOURCE.get(ep.name, "accord (a LiteLLM route)")
                    plugins.report(
                        plugins.package_of(ep),
                        ep.group,
                        ep.name,
                        ep.value,
                        f"provider {ep.name!r} is already provided by package {owner!r}",
                        "name the entry point with another provider prefix",
                    )
                    continue
                plugin = plugins.load(ep)
                if plugin is None:
                    continue
                if not callable(plugin.obj):
                    plugins.reject(
                        plugin,
                        f"{plugin.obj!r} is not callable",
                        "point it at a function build(model, spec, options) -> ModelClient",
                    )
                    continue
                _PROVIDERS[ep.name] = plugin.obj
                _SOURCE[ep.name] = plugin.package
        return dict(_PROVIDERS)


def known_providers() -> list[str]:
    """Every provider name accepted before the ``/`` of a model spec, sorted."""
    return sorted({*providers(), *LITELLM_PROVIDERS})


def get_model(spec: str, options: ModelOptions | None = None, **overrides: Any) -> ModelClient:
    """The client for ``provider/model``, built once per spec and options in this process.

    Args:
        spec: e.g. ``"openai/gpt-5.4-mini"``, ``"local/smollm2"``, ``"mock/schema"``,
            ``"openai-compatible/Qwen2.5-7B"`` (with ``base_url``).
        options: model options; keyword `overrides` replace single fields of it.

    Raises:
        ProviderNotFoundError: the provider part is not registered.
        MissingAPIKeyError: a hosted provider's API key is not in the environment.
        ConfigError: an option is invalid or a required one is missing.
    """
    provider, model = _split(spec)
    opts = _merge_options(options, overrides)
    key = (spec, opts.model_dump_json())
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            client = _CLIENTS[key] = _build(provider, model, spec, opts)
    return client


def _split(spec: str) -> tuple[str, str]:
    provider, sep, model = spec.partition("/")
    if provider not in known_providers():
        known = known_providers()
        close = difflib.get_close_matches(provider, known, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ProviderNotFoundError(
            f"Unknown model provider {provider!r} in {spec!r}.{hint} Write models as "
            f"'provider/model'; known providers: {', '.join(known)}."
        )
    if not sep or not model:
        raise ConfigError(
            f"Model spec {spec!r} names no model: write '{provider}/<model>', "
            f"e.g. {_EXAMPLES.get(provider, provider + '/<model>')!r}."
        )
    return provider, model


_EXAMPLES = {
    "mock": "mock/schema",
    "local": "local/smollm2",
    "openai-compatible": "openai-compatible/Qwen2.5-7B",
    "litellm": "litellm/openai/gpt-4o-mini",
    "openai": "openai/gpt-5.4-mini",
    "anthropic": "anthropic/claude-sonnet-4-6",
}


def _merge_options(options: ModelOptions | None, overrides: dict[str, Any]) -> ModelOptions:
    if options is not None and not overrides:
        return options
    base = options.model_dump(exclude_unset=True) if options is not None else {}
    try:
        return ModelOptions.model_validate({**base, **overrides})
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, where="model options")) from exc


def _build(provider: str, model: str, spec: str, opts: ModelOptions) -> ModelClient:
    builder = providers().get(provider)
    if builder is not None:
        try:
            client = builder(model, spec, opts)
        except AccordError:
            raise
        except Exception as exc:  # a plugin's bug: one line naming its package, not a traceback
            raise ConfigError(
                f"provider {provider!r} (package {_SOURCE.get(provider, '?')!r}) could not "
                f"build {spec!r}: its builder raised {type(exc).__name__}: {exc}; fix or "
                "update that package, or use another provider"
            ) from exc
        if not isinstance(client, ModelClient):
            raise ConfigError(
                f"provider {provider!r} (package {_SOURCE.get(provider, '?')!r}) returned "
                f"{type(client).__name__}, not a ModelClient; its builder must return one"
            )
        return client
    hosted = providers().get("litellm")
    if hosted is None:
        raise ProviderNotFoundError(f"{spec!r} needs the 'litellm' provider; reinstall Accord")
    return hosted(spec, spec, opts)


def require_key(provider: str, opts: ModelOptions, conventional: tuple[str, ...]) -> None:
    """Stop before any game starts when a provider's API key is not in the environment (and
    redact the named variable's value from every file written)."""
    _require_key(provider, opts, conventional)


def _require_key(provider: str, opts: ModelOptions, conventional: tuple[str, ...]) -> None:
    from accord.core.secrets import register_secret_env

    register_secret_env(opts.api_key_env)  # its value is redacted from every file written
    names = (opts.api_key_env,) if opts.api_key_env else conventional
    if names and not any(os.environ.get(name) for name in names):
        raise MissingAPIKeyError(provider, names[0])
