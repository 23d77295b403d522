"""Model clients: ``get_model("provider/model")`` returns a `ModelClient`; every client and
every layer over one (cache, recorded replies) speaks one protocol, `ChatModel`.

Providers: ``mock/...`` (offline), ``local/smollm2`` (bundled, in-process),
``openai-compatible/...`` (any OpenAI-style server at ``base_url``) and every hosted prefix
LiteLLM serves (``openai/``, ``anthropic/``, ``openrouter/``, ``gemini/``, ``hosted_vllm/``,
...). `known_providers` lists them.
Importing this package loads neither LiteLLM nor llama.cpp; each provider loads on first use.
"""

from accord.models.base import ChatModel, Completion, Message, Usage
from accord.models.client import ModelClient, RetriesExhaustedError, RetryRecord
from accord.models.mock import MockModel
from accord.models.options import ModelOptions, Prices
from accord.models.registry import get_model, known_providers

__all__ = [
    "ChatModel",
    "Completion",
    "Message",
    "MockModel",
    "ModelClient",
    "ModelOptions",
    "Prices",
    "RetriesExhaustedError",
    "RetryRecord",
    "Usage",
    "get_model",
    "known_providers",
]
