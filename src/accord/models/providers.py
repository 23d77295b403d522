"""Accord's own model providers, each a builder ``(model, spec, options) -> ModelClient``.

They are declared as ``accord.models`` entry points in Accord's ``pyproject.toml`` (``mock``,
``local``, ``openai-compatible``, ``litellm``), like a provider from any other package, and
import their client only when called, so listing providers stays cheap.
"""

from __future__ import annotations

import os

from accord.core.errors import ConfigError
from accord.models.client import ModelClient
from accord.models.options import ModelOptions
from accord.models.registry import API_KEY_ENV, require_key


def build_mock(model: str, spec: str, opts: ModelOptions) -> ModelClient:
    """``mock/<name>``: offline replies (`accord.models.mock`)."""
    from accord.models.mock import MockModel

    return MockModel(model=model, options=opts)


def build_local(model: str, spec: str, opts: ModelOptions) -> ModelClient:
    """``local/smollm2``: the bundled model, in-process."""
    from accord.models.local import LocalModel

    return LocalModel(spec, opts)


def build_openai_compatible(model: str, spec: str, opts: ModelOptions) -> ModelClient:
    """``openai-compatible/<name>``: any OpenAI-style server at ``base_url``."""
    from accord.models.openai_compatible import OpenAICompatibleModel

    require_key(spec, opts, ())
    return OpenAICompatibleModel(spec, opts)


def build_litellm(model: str, spec: str, opts: ModelOptions) -> ModelClient:
    """``litellm/<LiteLLM model>`` and every hosted prefix (``openai/...``)."""
    from accord.models.litellm_provider import LiteLLMModel

    inner_provider = model.partition("/")[0]
    if inner_provider == "hosted_vllm" and not (
        opts.base_url or os.environ.get("HOSTED_VLLM_API_BASE")
    ):
        # Without an address LiteLLM would send the calls to a public hosted API instead.
        raise ConfigError(
            f"{spec} needs base_url, the address of your vLLM server: pass --model-base-url "
            "http://127.0.0.1:8000/v1 (or -M base_url=...), or set options: {base_url: ...} "
            "under the seat in the experiment file."
        )
    require_key(inner_provider, opts, API_KEY_ENV.get(inner_provider, ()))
    return LiteLLMModel(spec, opts, litellm_model=model)
