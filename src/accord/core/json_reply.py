"""The one JSON-reply extractor: the JSON object inside a model's reply text.

Models asked for "one JSON object and nothing else" often wrap it in a code fence or add a
sentence around it. Every game and judge reads replies through `extract_json_object`, which
tries, in order, the whole reply, the first fenced block, and the text from the first ``{`` to
the last ``}``; the first candidate that parses to an object wins. Any candidate after the
first adds a warning (recorded as an output-format warning, never an error). The messages of
the `ActionError` raised when nothing parses are the caller's, so each game can say what its
reply should look like.
"""

from __future__ import annotations

import json
import re
from typing import Any

from accord.core.errors import ActionError
from accord.core.inputs import MAX_DEPTH, json_depth

FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
"""A fenced code block, with or without the ``json`` tag."""

AROUND = "reply had text around the JSON object; the object was used"
"""The warning when the object was found inside other text."""
EMPTY = "the reply was empty; reply with one JSON object"
"""The default error for an empty (or whitespace-only) reply."""
INVALID = (
    "the reply is not a valid JSON object (check quotes, commas and braces); reply with "
    "exactly one JSON object and nothing else"
)
"""The default error for a reply with no JSON object in it."""


def candidates(stripped: str) -> list[str]:
    """The texts tried as the object, in order: all, the first fenced block, first { to last }."""
    found = [stripped]
    fenced = FENCE.search(stripped)
    if fenced:
        found.append(fenced.group(1).strip())
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        found.append(stripped[start : end + 1])
    return found


def extract_json_object(
    text: str, *, empty: str = EMPTY, invalid: str = INVALID
) -> tuple[dict[str, Any], list[str]]:
    """The JSON object in `text` and the format warnings found on the way.

    Raises `ActionError` with `empty` when the reply is blank and with `invalid` when no
    candidate parses to a JSON object.
    """
    stripped = text.strip()
    if not stripped:
        raise ActionError(empty)
    for i, candidate in enumerate(candidates(stripped)):
        if json_depth(candidate) > MAX_DEPTH:  # the parser would recurse past Python's limit
            raise ActionError(
                f"the reply nests deeper than {MAX_DEPTH} levels (MAX_DEPTH); answer with a flat "
                "JSON object",
                kind="input_limit",
            )
        try:
            obj = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            return obj, [AROUND] if i else []
    raise ActionError(invalid)
