"""`accord.core.json_reply`: the one extractor gives what calendar's and negotiation's gave.

The two extractors it replaced are kept here, verbatim in behaviour, as the reference; random
replies built from objects, fences, prose and broken JSON must get the same object, the same
warnings and the same error (with each game's own wording) from both.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core.errors import ActionError
from accord.core.json_reply import EMPTY, INVALID, extract_json_object
from accord.games.calendar.actions import EMPTY_REPLY, NOT_ONE_OBJECT, extract_object

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def old_calendar(text: str) -> tuple[dict[str, Any], list[str]]:
    stripped = text.strip()
    if not stripped:
        raise ActionError('the reply was empty; reply with {"thinking": "...", "actions": [...]}')
    candidates = [stripped]
    fenced = _FENCE.search(stripped)
    if fenced:
        candidates.append(fenced.group(1).strip())
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start : end + 1])
    for i, candidate in enumerate(candidates):
        try:
            obj = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            warnings = ["reply had text around the JSON object; the object was used"] if i else []
            return obj, warnings
    raise ActionError(
        'the reply is not one valid JSON object; reply with exactly {"thinking": "...", '
        '"actions": [...]} and nothing else'
    )


def old_negotiation(text: str) -> tuple[dict[str, Any], list[str]]:
    stripped = text.strip()
    warnings: list[str] = []
    candidates = [stripped]
    m = _FENCE.search(stripped)
    if m:
        candidates.append(m.group(1).strip())
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start : end + 1])
    for i, cand in enumerate(candidates):
        try:
            obj = json.loads(cand)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            if i > 0:
                warnings.append("reply had text around the JSON object; the object was used")
            return obj, warnings
    if not stripped:
        raise ActionError("the reply was empty; reply with one JSON object")
    raise ActionError(
        "the reply is not a valid JSON object (check quotes, commas and braces); reply with "
        "exactly one JSON object and nothing else"
    )


def outcome(fn: Any, text: str) -> tuple[str, Any]:
    try:
        return "ok", fn(text)
    except ActionError as exc:
        return "error", str(exc)


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
objects = st.dictionaries(st.text(max_size=6), values, max_size=4).map(json.dumps)
pieces = st.one_of(
    objects,
    values.map(json.dumps),
    objects.map(lambda o: f"```json\n{o}\n```"),
    objects.map(lambda o: f"```{o}```"),
    objects.map(lambda o: o[:-1]),  # cut short
    st.sampled_from(["", " ", "\n", "{", "}", "```", "Sure, here it is:", "Done.", "{x}", "[]"]),
    st.text(max_size=12),
)
replies = st.lists(pieces, max_size=4).map("".join)


@settings(max_examples=400, deadline=None)
@given(replies)
def test_both_old_behaviours_are_kept(text: str) -> None:
    kind, got = outcome(lambda t: extract_json_object(t), text)
    assert (kind, got) == outcome(old_negotiation, text)
    assert outcome(extract_object, text) == outcome(old_calendar, text)
    if kind == "error":
        assert got in (EMPTY, INVALID)


@pytest.mark.parametrize(
    ("text", "want", "warned"),
    [
        ('{"a": 1}', {"a": 1}, False),
        ('  {"a": 1}\n', {"a": 1}, False),
        ('```json\n{"a": [1, 2]}\n```', {"a": [1, 2]}, True),
        ('Here you go: {"a": {"b": null}} hope it helps', {"a": {"b": None}}, True),
        ('```\n{"a": 1}``` and {"b": 2}', {"a": 1}, True),
    ],
)
def test_the_object_is_found_and_text_around_it_warned(
    text: str, want: dict[str, Any], warned: bool
) -> None:
    obj, warnings = extract_json_object(text)
    assert obj == want
    assert bool(warnings) is warned


@pytest.mark.parametrize(
    ("text", "calendar_error"),
    [
        ("", EMPTY_REPLY),
        ("   \n", EMPTY_REPLY),
        ("[1, 2]", NOT_ONE_OBJECT),
        ("{oops}", NOT_ONE_OBJECT),
    ],
)
def test_each_caller_keeps_its_own_error_text(text: str, calendar_error: str) -> None:
    with pytest.raises(ActionError) as caught:
        extract_object(text)
    assert str(caught.value) == calendar_error
    with pytest.raises(ActionError) as caught:
        extract_json_object(text)
    assert str(caught.value) == (EMPTY if calendar_error == EMPTY_REPLY else INVALID)
