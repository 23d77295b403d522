"""Accord's own models as an Inspect model provider: ``--model accord/<provider>/<model>``.

Inspect's ``mockllm/model`` counts tokens with a tokenizer it downloads on first use, so it
fails on a machine without internet, and its fixed reply is not valid for any game. Through
this provider Inspect reaches any model Accord knows, offline ones included:

- ``inspect eval accord/accord_game -T game=negotiation --model accord/mock/schema`` answers
  every call with random JSON valid against the action's schema (Accord's ``mock/schema``);
- ``--model accord/local/smollm2`` plays the bundled model, grammar-constrained as in Accord.

Inspect passes the action's schema as its structured-output setting (`accord.inspectai.model`),
and this provider hands it back to Accord's model as the response schema, so the reply is the
one the same model would give in ``accord run``. Usage comes from Accord's model, so Inspect
never needs its tokenizer. Registered with Inspect through the ``inspect_ai`` entry point
(`accord.inspectai.registry`).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from accord.models.base import Message
from accord.models.client import ModelClient

PROVIDER = "accord"
"""Inspect's name for this provider (``--model accord/<Accord model spec>``)."""


def _messages(input: list[ChatMessage]) -> list[Message]:
    out: list[Message] = []
    for m in input:
        role = m.role if m.role in {"system", "user", "assistant"} else "user"
        out.append({"role": role, "content": m.text})
    return out


@modelapi(name=PROVIDER)
def accord_models() -> type[ModelAPI]:
    return AccordModelAPI


class AccordModelAPI(ModelAPI):
    """Calls Accord's model ``<provider>/<model>`` (the part of Inspect's model name after
    ``accord/``), built once per Inspect model."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 - Inspect's own signature
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        from accord.models.registry import get_model

        options: dict[str, Any] = {"base_url": base_url} if base_url else {}
        self._model: ModelClient = get_model(model_name, **options, **model_args)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        del tools, tool_choice  # Accord's games send their actions as a JSON schema
        schema = config.response_schema
        completion = await self._model.complete(
            _messages(input),
            response_schema=(
                schema.json_schema.model_dump(exclude_none=True, by_alias=True)
                if schema is not None
                else None
            ),
            temperature=config.temperature,
            max_tokens=config.max_tokens,
            seed=config.seed,
        )
        output = ModelOutput.from_content(model=self.model_name, content=completion.text)
        output.usage = ModelUsage(
            input_tokens=completion.usage.input_tokens,
            output_tokens=completion.usage.output_tokens,
            total_tokens=completion.usage.input_tokens + completion.usage.output_tokens,
        )
        return output
