"""Provider registry: spec parsing, guiding errors, API-key checks, caching, lazy imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from accord.core.errors import ConfigError, MissingAPIKeyError, ProviderNotFoundError
from accord.models import MockModel, ModelOptions, get_model, known_providers
from accord.models.registry import API_KEY_ENV

HOSTED = [
    "openai", "anthropic", "openrouter", "gemini", "hosted_vllm", "together_ai", "groq",
    "mistral", "deepseek", "azure", "bedrock", "vertex_ai", "xai",
]  # fmt: skip


def test_known_providers_cover_local_mock_and_hosted():
    names = known_providers()
    assert names == sorted(names)
    for name in ["mock", "local", "openai-compatible", "litellm", *HOSTED]:
        assert name in names


def test_unknown_provider_lists_the_known_ones():
    with pytest.raises(ProviderNotFoundError) as info:
        get_model("opnai/gpt-4o")
    message = str(info.value)
    assert "Did you mean 'openai'?" in message
    for name in ["mock", "local", "openai-compatible", "anthropic"]:
        assert name in message


def test_spec_without_model_says_how_to_write_it():
    with pytest.raises(ConfigError, match="mock/schema"):
        get_model("mock")


@pytest.mark.parametrize(
    ("spec", "env_var"),
    [
        ("openai/gpt-5.4-mini", "OPENAI_API_KEY"),
        ("anthropic/claude-sonnet-4-6", "ANTHROPIC_API_KEY"),
        ("openrouter/meta-llama/llama-3.1-8b-instruct", "OPENROUTER_API_KEY"),
        ("gemini/gemini-2.5-flash", "GEMINI_API_KEY"),
        ("litellm/groq/llama-3.1-8b-instant", "GROQ_API_KEY"),
    ],
)
def test_missing_api_key_names_the_variable(monkeypatch, spec, env_var):
    for name in API_KEY_ENV[spec.removeprefix("litellm/").split("/")[0]]:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(MissingAPIKeyError) as info:
        get_model(spec)
    assert info.value.env_var == env_var
    assert f"export {env_var}=" in str(info.value)


def test_custom_api_key_variable_is_checked(monkeypatch):
    monkeypatch.delenv("MY_GATEWAY_KEY", raising=False)
    with pytest.raises(MissingAPIKeyError, match="MY_GATEWAY_KEY"):
        get_model(
            "openai-compatible/qwen", base_url="http://127.0.0.1:9/v1", api_key_env="MY_GATEWAY_KEY"
        )


def test_hosted_vllm_needs_no_key():
    client = get_model("hosted_vllm/Qwen2.5-7B", base_url="http://127.0.0.1:9/v1")
    assert type(client).__name__ == "LiteLLMModel"
    assert client.litellm_model == "hosted_vllm/Qwen2.5-7B"


def test_explicit_litellm_prefix_passes_the_rest_through(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    client = get_model("litellm/anthropic/claude-sonnet-4-6")
    assert client.litellm_model == "anthropic/claude-sonnet-4-6"
    assert client.spec == "litellm/anthropic/claude-sonnet-4-6"


def test_clients_are_cached_per_spec_and_options():
    first = get_model("mock/schema", latency_s=0.25)
    assert get_model("mock/schema", ModelOptions(latency_s=0.25)) is first
    assert get_model("mock/schema", latency_s=0.5) is not first
    assert get_model("mock/echo", latency_s=0.25) is not first
    assert isinstance(first, MockModel)


def test_keyword_overrides_replace_fields_of_options():
    client = get_model("mock/echo", ModelOptions(timeout_s=5, max_retries=2), max_retries=0)
    assert (client.options.timeout_s, client.options.max_retries) == (5, 0)


def test_invalid_option_names_the_key():
    with pytest.raises(ConfigError, match="temprature"):
        get_model("mock/schema", temprature=0.2)


def test_openai_compatible_needs_base_url():
    with pytest.raises(ConfigError, match="base_url"):
        get_model("openai-compatible/qwen")


def test_unknown_mock_model_lists_the_mock_models():
    with pytest.raises(ConfigError, match="mock/echo"):
        get_model("mock/chatty")


def test_local_model_other_than_bundled_needs_a_path():
    pytest.importorskip("llama_cpp", reason="the local extra is not installed")
    with pytest.raises(ConfigError, match="model_path"):
        get_model("local/llama-3-8b")


def test_importing_accord_models_loads_no_heavy_library():
    code = (
        "import sys, accord.models\n"
        "heavy = [m for m in ('litellm', 'llama_cpp', 'openai') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
