"""Reply schemas shared by the model-layer tests and benchmarks.

A negotiation-style envelope (a private note, a public message, and either nothing or an
allocation of items) exercises strings with caps, ``anyOf`` with ``null``, and bounded
integers: everything the local provider's grammar and the mock's sampler must handle.
"""

from __future__ import annotations

from collections.abc import Mapping

from accord.core.spec import JSONSchema

DEFAULT_ITEMS: Mapping[str, int] = {"books": 3, "hats": 2}


def envelope_schema(
    *,
    thinking_max: int = 200,
    speech_max: int = 200,
    speech_min: int | None = None,
    items: Mapping[str, int] = DEFAULT_ITEMS,
    closed: bool = False,
) -> JSONSchema:
    """``{"thinking", "speech", "action": null | {item: 0..max}}`` with the given caps.

    `closed` forbids properties beyond the declared ones (``additionalProperties: false``).
    """
    speech: JSONSchema = {"type": "string", "maxLength": speech_max}
    if speech_min is not None:
        speech["minLength"] = speech_min
    action: JSONSchema = {
        "type": "object",
        "properties": {
            k: {"type": "integer", "minimum": 0, "maximum": v} for k, v in items.items()
        },
        "required": list(items),
    }
    schema: JSONSchema = {
        "type": "object",
        "properties": {
            "thinking": {"type": "string", "maxLength": thinking_max},
            "speech": speech,
            "action": {"anyOf": [{"type": "null"}, action]},
        },
        "required": ["thinking", "speech", "action"],
    }
    if closed:
        action["additionalProperties"] = False
        schema["additionalProperties"] = False
    return schema
