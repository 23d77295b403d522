"""`accord.core.jsonbounds`: the limits of untrusted JSON, checked without a walk in Python."""

from __future__ import annotations

import json

import pytest

from accord.core.errors import ConfigError
from accord.core.jsonbounds import MAX_STRING_BYTES, loads_bounded


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_nesting_up_to_the_limit_reads_and_one_more_level_is_refused() -> None:
    assert loads_bounded(_nested(100), source="doc") == json.loads(_nested(100))
    with pytest.raises(ConfigError, match="nests deeper than 100 levels"):
        loads_bounded(_nested(101), source="doc")
    with pytest.raises(ConfigError, match="nests deeper"):
        loads_bounded(b"[" * 200_000, source="doc")  # unclosed: still named for its depth


def test_brackets_and_escaped_quotes_inside_strings_do_not_count_as_nesting() -> None:
    text = json.dumps({"a": "[" * 500 + '\\" {{{ "' + "]" * 3, "b": ["]]]\\\\"]}).encode()
    assert loads_bounded(text, source="doc") == json.loads(text)


def test_a_string_over_the_limit_is_refused_and_one_at_the_limit_reads() -> None:
    at_limit = b'{"a": "' + b"x" * MAX_STRING_BYTES + b'"}'
    assert len(loads_bounded(at_limit, source="doc")["a"]) == MAX_STRING_BYTES
    with pytest.raises(ConfigError, match="MiB"):
        loads_bounded(b'["' + b"x" * (MAX_STRING_BYTES + 1) + b'"]', source="doc")


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity", b"1e309", b"-1e400"])
def test_numbers_that_are_not_finite_are_refused(number: bytes) -> None:
    with pytest.raises(ConfigError, match="doc"):
        loads_bounded(b'{"x": ' + number + b"}", source="doc")
    with pytest.raises(ConfigError, match="doc"):  # the exact path too
        loads_bounded(b'{"n": 123456789012345678901234, "x": ' + number + b"}", source="doc")


def test_integers_beyond_64_bits_stay_exact() -> None:
    big = 10**30 + 7
    assert loads_bounded(json.dumps({"seed": big}).encode(), source="doc") == {"seed": big}


def test_bad_bytes_are_named_as_such() -> None:
    with pytest.raises(ConfigError, match="not UTF-8"):
        loads_bounded(b'{"a": "\xff"}', source="doc")
    with pytest.raises(ConfigError, match="not valid JSON"):
        loads_bounded(b'{"a": ', source="doc")
