"""An Accord model client answered by an Inspect AI model (one Inspect model role per seat).

Accord seats talk to `ModelClient`s; inside an Inspect task the seat's model is an Inspect
`Model` (``get_model(role=...)``), so every call goes through Inspect's providers, its retries,
limits and cache, and lands in the Inspect log as a model event of the running sample. Accord
adds nothing on top: no retries (Inspect already retried), no timeout or deadline of its own
(Inspect's ``--timeout`` and sample limits apply) and no concurrency limit (Inspect's
``--max-connections`` governs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from accord.core.errors import ModelError
from accord.models.base import Completion, Message, Usage
from accord.models.client import Call, ModelClient
from accord.models.options import ModelOptions

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage, GenerateConfig, Model

_DAY_S = 24 * 3600.0
_DEFER = ModelOptions(max_retries=0, timeout_s=_DAY_S, deadline_s=_DAY_S, max_concurrency=1_000_000)
"""Options leaving retries, timeouts and concurrency to Inspect."""

PROVIDER = "inspect"
"""Prefix of the model ids seats answered through Inspect carry in Accord traces."""


def inspect_model_id(model: Model) -> str:
    """The Accord ``provider/model`` id of an Inspect model (``inspect/<its name>``)."""
    return f"{PROVIDER}/{model}"


def to_chat(messages: list[Message]) -> list[ChatMessage]:
    """Accord chat messages as Inspect chat messages (same roles, same text)."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    out: list[ChatMessage] = []
    for m in messages:
        if m["role"] == "system":
            out.append(ChatMessageSystem(content=m["content"]))
        elif m["role"] == "assistant":
            out.append(ChatMessageAssistant(content=m["content"]))
        else:
            out.append(ChatMessageUser(content=m["content"]))
    return out


def generate_config(call: Call) -> GenerateConfig:
    """Inspect's generate options for one Accord call: sampling parameters and, where Inspect's
    schema model can hold it, the action's JSON schema as structured output (the reply is
    validated by the seat's agent either way)."""
    from inspect_ai.model import GenerateConfig, ResponseSchema
    from inspect_ai.util import JSONSchema
    from pydantic import ValidationError

    response: ResponseSchema | None = None
    if call.response_schema is not None:
        try:
            schema = JSONSchema.model_validate(call.response_schema)
        except ValidationError:
            schema = None  # a schema Inspect cannot express: the prompt still describes it
        if schema is not None:
            response = ResponseSchema(name="action", json_schema=schema)
    return GenerateConfig(
        temperature=call.temperature,
        max_tokens=call.max_tokens,
        seed=call.seed,
        response_schema=response,
    )


class InspectModel(ModelClient):
    """A `ModelClient` whose calls are made by an Inspect `Model`.

    Args:
        model: the Inspect model (e.g. ``get_model(role="A")`` inside a task).
    """

    def __init__(self, model: Model) -> None:
        super().__init__(inspect_model_id(model), _DEFER)
        self.model = model

    async def _complete_once(self, call: Call) -> Completion:
        from inspect_ai.util import LimitExceededError

        try:
            output = await self.model.generate(to_chat(call.messages), config=generate_config(call))
        except LimitExceededError:
            raise  # the sample's token, time or message limit: Inspect ends the sample
        except Exception as exc:  # Inspect raises provider errors after its own retries
            raise ModelError(f"the Inspect model {self.model} failed: {exc}") from exc
        if output.error:
            raise ModelError(f"the Inspect model {self.model} failed: {output.error}")
        usage = output.usage
        raw: dict[str, Any] = {"stop_reason": output.stop_reason}
        return Completion(
            text=output.completion,
            usage=Usage(
                input_tokens=usage.input_tokens if usage else 0,
                output_tokens=usage.output_tokens if usage else 0,
                reasoning_tokens=(usage.reasoning_tokens or 0) if usage else 0,
                cached_input_tokens=(usage.input_tokens_cache_read or 0) if usage else 0,
                cache_write_tokens=(usage.input_tokens_cache_write or 0) if usage else 0,
            ),
            model=self.spec,
            raw=raw,
        )
