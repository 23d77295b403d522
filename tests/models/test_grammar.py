"""JSON schema -> GBNF: every sentence is compact valid JSON within the schema's bounds.

The grammars are non-recursive, so each one translates into a regular expression; the tests
check that valid instances match it, that invalid text does not, and that `max_chars` really
bounds every sentence.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core.errors import ConfigError
from accord.models.grammar import DEFAULT_MAX_LENGTH, schema_to_grammar
from accord.models.mock import sample_valid
from accord.testing.schemas import envelope_schema

NEGOTIATION = envelope_schema(thinking_max=60, speech_max=80)
MIXED = {
    "$defs": {"slot": {"type": "integer", "minimum": -5, "maximum": 100000}},
    "type": "object",
    "properties": {
        "decision": {"enum": ["accept", "reject", 3, None]},
        "slots": {"type": "array", "items": {"$ref": "#/$defs/slot"}, "maxItems": 3},
        "note": {"type": ["string", "null"], "minLength": 2, "maxLength": 5},
        "score": {"type": "number", "minimum": 0},
        "done": {"type": "boolean"},
        "kind": {"const": "move"},
    },
}
TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]|\{\d+,\d+\}|[()|?*+]|[a-z0-9-]+')


def to_regex(gbnf: str) -> re.Pattern[str]:
    """Translate one of our (non-recursive) grammars into an equivalent regular expression."""
    rules = dict(line.split(" ::= ", 1) for line in gbnf.strip().splitlines())

    def expand(name: str) -> str:
        out = []
        for token in TOKEN.findall(rules[name]):
            if token.startswith('"'):
                text = re.sub(r"\\(.)", r"\1", token[1:-1])
                out.append(re.escape(text))
            elif token.startswith("[") or token.startswith("{") or token in "|?*+)":
                out.append(token)
            elif token == "(":
                out.append("(?:")
            else:
                out.append(f"(?:{expand(token)})")
        return "".join(out)

    return re.compile(expand("root"))


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


@settings(max_examples=80, deadline=None)
@given(schema=st.sampled_from([NEGOTIATION, MIXED]), seed=st.integers(0, 2**32))
def test_valid_instances_match_and_fit_the_bound(schema, seed):
    grammar = schema_to_grammar(schema)
    value = sample_valid(schema, random.Random(seed))
    text = compact(value)
    assert to_regex(grammar.gbnf).fullmatch(text), text
    assert len(text) <= grammar.max_chars


def test_negotiation_grammar_rejects_what_would_break_json_or_the_bounds():
    pattern = to_regex(schema_to_grammar(NEGOTIATION).gbnf)
    good = {"thinking": "fine", "speech": 'say "hi"\nbye \\o/', "action": {"books": 3, "hats": 0}}
    assert pattern.fullmatch(compact(good))
    bad = [
        '{"thinking":"a\nb","speech":"","action":null}',  # raw newline inside a string
        '{"thinking":"a","speech":"","action":{"books":4,"hats":0}}',  # above maximum
        '{"thinking":"a","speech":"","action":{"books":01,"hats":0}}',  # not JSON
        '{"thinking": "a","speech":"","action":null}',  # whitespace outside strings
        '{"thinking":"' + "x" * 61 + '","speech":"","action":null}',  # over maxLength
        '{"speech":"","thinking":"a","action":null}',  # another key order
        '{"thinking":"é","speech":"","action":null}',  # non-ASCII
    ]
    for text in bad:
        assert not pattern.fullmatch(text), text


def test_max_chars_is_exact_for_the_longest_sentence():
    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "maxLength": 3}, "n": {"enum": [1, 100]}},
    }
    grammar = schema_to_grammar(schema)
    longest = '{"s":"\\n\\n\\n","n":100}'
    assert to_regex(grammar.gbnf).fullmatch(longest)
    assert grammar.max_chars == len(longest)


def test_strings_without_max_length_get_the_default_cap():
    grammar = schema_to_grammar({"type": "string"})
    assert f"char{{0,{DEFAULT_MAX_LENGTH}}}" in grammar.gbnf
    assert grammar.max_chars == 2 + 2 * DEFAULT_MAX_LENGTH
    assert "char{0,12}" in schema_to_grammar({"type": "string"}, default_max_length=12).gbnf


def test_large_integer_ranges_are_bounded_in_digits():
    pattern = to_regex(schema_to_grammar({"type": "integer", "minimum": 0, "maximum": 5000}).gbnf)
    assert pattern.fullmatch("4999") and pattern.fullmatch("0")
    assert (
        not pattern.fullmatch("-1")
        and not pattern.fullmatch("12345")
        and not pattern.fullmatch("007")
    )


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"$defs": {"n": {"$ref": "#/$defs/n"}}, "$ref": "#/$defs/n"}, "refers to itself"),
        ({"type": "string", "minLength": 5, "maxLength": 2}, "maxLength < minLength"),
        ({"type": "integer", "minimum": 5, "maximum": 2}, "allows no integer"),
        ({"enum": []}, "empty enum"),
        ({"type": "date"}, "unknown type"),
        ({"$ref": "#/$defs/missing"}, "points nowhere"),
    ],
)
def test_unusable_schemas_are_config_errors(schema, message):
    with pytest.raises(ConfigError, match=message):
        schema_to_grammar(schema)
