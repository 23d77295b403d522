"""Parsing untrusted JSON bytes with bounds, at the speed of the parser (traces, run files).

`loads_bounded` enforces the limits of `accord.core.inputs` on a JSON document without
walking its values in Python (issue "fast at every size": the walk of `check_shape` cost five
times the parse itself):

- **size**: the caller refuses an oversized file before reading it (`accord.core.inputs`);
- **nesting** deeper than `MAX_DEPTH` and **strings** longer than `MAX_STRING_BYTES` are
  found by a scan of the bytes made of native operations only (replace, split, translate):
  escaped quotes and backslashes are dropped, the text is split at the remaining quotes
  (every odd piece is the body of a string; only a document longer than the limit can hold
  one too long), and what lies outside strings is reduced to its brackets, from which
  innermost ``[]`` pairs are removed one level per pass;
- **numbers**: orjson refuses ``NaN``, ``Infinity`` and any number that overflows a double
  (``1e309``), so every float is finite. It reads integers beyond 64 bits as floats, which
  would change them silently: a document holding 20 digits in a row is parsed by the
  standard library instead (exact integers, Python's digit limit), its floats then checked
  for finiteness.

Why orjson: it parses traces in about 0.4x the time of ``json.loads`` and refuses non-finite
numbers and malformed UTF-8 by itself, so the checks left to do are the two scans above.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

from accord.core.errors import ConfigError
from accord.core.inputs import MAX_DEPTH

MAX_STRING_BYTES = 4 * 1024 * 1024
"""Longest string a document may hold, in bytes of its JSON text, escaped quotes and
backslashes aside (Accord stores model replies capped at 64 KiB; see `accord.agents`)."""

_QUOTES_AND_BRACKETS = bytes(range(256)).replace(b"{", b"[").replace(b"}", b"]")
_OTHERS = bytes(c for c in range(256) if c not in b'[]{}"')
_DIGITS = bytes(48 if 48 <= c <= 57 else 32 for c in range(256))
_LONG_NUMBER = b"0" * 20
"""20 digits in a row (every digit read as 0): an integer orjson would read as a float (it
keeps integers exact up to 2**64 - 1). Also found inside strings and fractions, which only
costs the exact parse."""


def scan_bounds(
    data: bytes, *, source: str, max_depth: int = MAX_DEPTH, max_string: int = MAX_STRING_BYTES
) -> bool:
    """Refuse `data` (JSON text) when it nests deeper than `max_depth` or holds a string over
    `max_string` bytes; return whether it may hold an integer too long for orjson to keep
    exact.

    Meaningful for valid JSON only (invalid text is refused by the parser afterwards).
    """
    # Escapes: a backslash or quote after a backslash is part of a string's text (each
    # replace runs only when needed: most traces hold neither).
    text = data
    if b"\\\\" in text:
        text = text.replace(b"\\\\", b"")
    if b'\\"' in text:
        text = text.replace(b'\\"', b"")
    if _may_hold_long_string(text, max_string):
        bodies = text.split(b'"')[1::2]
        if bodies and max(map(len, bodies)) > max_string:
            raise ConfigError(
                f"{source} holds a text over {max_string // (1024 * 1024)} MiB (the limit for "
                "one string); check that it is the right file."
            )
    # Quotes and brackets only; every even piece between quotes lies outside the strings.
    marks = text.translate(_QUOTES_AND_BRACKETS, _OTHERS)
    # Two quotes in a row enclose nothing (a string without brackets, or the end of one and
    # the start of the next): dropping them leaves every bracket inside or outside as it was.
    marks = marks.replace(b'""', b"")
    brackets = b"".join(marks.split(b'"')[0::2]) if b'"' in marks else marks
    depth = 0
    while brackets and depth <= max_depth:
        inner = brackets.replace(b"[]", b"")
        if len(inner) == len(brackets):
            # Unbalanced (the parser says what is wrong), unless what is left opens more
            # levels in a row than allowed: then that is the first problem to report.
            if b"[" * (max_depth - depth + 1) in brackets:
                depth = max_depth + 1
            break
        brackets = inner
        depth += 1
    if depth > max_depth:
        raise ConfigError(f"{source} nests deeper than {max_depth} levels (the limit); flatten it.")
    return _LONG_NUMBER in data.translate(_DIGITS)


def _may_hold_long_string(text: bytes, limit: int) -> bool:
    """Whether `text` may hold a string over `limit` bytes: a shorter document cannot, and a
    string that long covers a whole aligned window of half the limit, which then holds no
    quote (one search per window, nothing copied). The exact check runs only when a window
    has no quote."""
    step = max(1, limit // 2)
    if len(text) <= limit:
        return False
    return any(text.find(b'"', i, i + step) == -1 for i in range(0, len(text), step))


def loads_bounded(data: bytes, *, source: str, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON `data` within the bounds of the module docstring; `ConfigError` naming
    `source` on anything else."""
    long_numbers = scan_bounds(data, source=source, max_depth=max_depth)
    if long_numbers:
        return _loads_exact(data, source)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise ConfigError(
                f"{source} is not UTF-8 text (bad byte at offset {bad.start}); save it as UTF-8."
            ) from exc
        raise ConfigError(f"{source} is not valid JSON: {_one_line(str(exc))}") from exc


def _loads_exact(data: bytes, source: str) -> Any:
    """The standard library's parse (exact big integers), non-finite numbers refused."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not a number JSON allows")

    try:
        value = json.loads(data, parse_constant=refuse)
    except RecursionError as exc:  # pragma: no cover - the scan refuses deep nesting first
        raise ConfigError(f"{source} nests too deeply to read.") from exc
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, the int digit limit
        raise ConfigError(f"{source} is not valid JSON: {_one_line(str(exc))}") from exc
    stack = [value]
    while stack:  # the rare document with huge integers: a walk is affordable here
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ConfigError(f"{source} holds a number too large to read ({item}).")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


def _one_line(text: str) -> str:
    return " ".join(text.split())
