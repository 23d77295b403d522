"""Small JSON-schema helpers shared by the grammar compiler and the mock provider."""

from __future__ import annotations

from typing import Any

from accord.core.errors import ConfigError
from accord.core.spec import JSONSchema


def resolve_ref(root: JSONSchema, ref: str) -> JSONSchema:
    """The sub-schema a local ``$ref`` (``#/$defs/name``) points to."""
    if not ref.startswith("#"):
        raise ConfigError(f"Only local $ref values (#/...) are supported, not {ref!r}.")
    node: Any = root
    try:
        for part in ref[1:].strip("/").split("/"):
            if part:
                node = node[part.replace("~1", "/").replace("~0", "~")]
    except (KeyError, TypeError) as err:
        raise ConfigError(f"$ref {ref!r} points nowhere in the response schema.") from err
    if not isinstance(node, dict):
        raise ConfigError(f"$ref {ref!r} does not point to a schema object.")
    return node


def merge_all_of(schema: JSONSchema) -> JSONSchema:
    """`schema` with its ``allOf`` parts folded in (properties and required lists combined)."""
    merged: JSONSchema = {k: v for k, v in schema.items() if k != "allOf"}
    for part in schema["allOf"]:
        for key, value in part.items():
            if key == "properties":
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required":
                merged["required"] = [*merged.get("required", []), *value]
            else:
                merged.setdefault(key, value)
    return merged


def infer_type(schema: JSONSchema) -> str | None:
    """The JSON type a schema without ``type`` describes, from its keywords."""
    if "properties" in schema:
        return "object"
    if "items" in schema or "minItems" in schema or "maxItems" in schema:
        return "array"
    if "maxLength" in schema or "minLength" in schema:
        return "string"
    if "minimum" in schema or "maximum" in schema:
        return "number"
    return None
