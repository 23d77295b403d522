"""JSON schema -> GBNF grammar whose every sentence is compact, valid, bounded JSON.

The local provider constrains a tiny model with this grammar so that whatever it samples parses.
We compile schemas ourselves rather than with llama-cpp-python's converter because that one
(checked against 0.3.x) lets strings contain raw control characters (a raw newline inside a
string is invalid JSON), ignores integer ``minimum``/``maximum``, and allows optional spaces
between tokens, so the length of its output cannot be bounded exactly.

What the grammar allows:

* no whitespace outside strings; object properties in schema order, every declared property
  present (a valid instance whether or not the schema requires it);
* strings of printable ASCII plus the escapes ``\\"``, ``\\\\`` and ``\\n``, at most
  ``maxLength`` characters (`DEFAULT_MAX_LENGTH` when the schema gives none);
* integers within ``minimum``/``maximum`` (enumerated when the range is small, else bounded in
  digits), numbers with at most 15 integer and 6 decimal digits;
* ``enum``, ``const``, ``anyOf``/``oneOf`` (any branch), ``allOf``, local ``$ref``, arrays with
  ``minItems``/``maxItems`` (at most `MAX_ITEMS` when unbounded), fixed tuples (``prefixItems``
  with ``items: false``: exactly those elements in order), type lists, null.

Because everything is ASCII and every token carries at least one byte, `Grammar.max_chars` also
bounds the number of tokens a complete reply needs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, TypeGuard

from accord.core.errors import ConfigError
from accord.core.spec import JSONSchema
from accord.models._schema import infer_type, merge_all_of, resolve_ref

DEFAULT_MAX_LENGTH = 400
"""Length cap of a string whose schema has no ``maxLength``."""

MAX_ITEMS = 16
"""Length cap of an array whose schema has no ``maxItems``."""

_ENUMERATE_UP_TO = 256
_INT_DIGITS = 15
_CHAR_RULE = r'[\x20\x21\x23-\x5b\x5d-\x7e] | "\\" [\x22\x5c\x6e]'


@dataclass(frozen=True)
class Grammar:
    """A compiled grammar.

    Attributes:
        gbnf: the grammar text (root rule ``root``).
        max_chars: the longest reply the grammar allows, in characters (= bytes).
    """

    gbnf: str
    max_chars: int


def schema_to_grammar(
    schema: JSONSchema, *, default_max_length: int = DEFAULT_MAX_LENGTH
) -> Grammar:
    """Compile a JSON schema to a GBNF grammar of compact JSON (see the module docstring).

    Raises:
        ConfigError: the schema uses something that cannot be bounded (recursion) or a
            keyword combination the compiler does not know.
    """
    builder = _Builder(schema, default_max_length)
    expr, max_chars = builder.visit(schema, "reply", ())
    rules = [f"root ::= {expr}", *(f"{name} ::= {body}" for name, body in builder.rules.items())]
    if builder.uses_char:
        rules.append(f"char ::= {_CHAR_RULE}")
    return Grammar(gbnf="\n".join(rules) + "\n", max_chars=max_chars)


def literal(value: Any) -> str:
    """A GBNF literal matching the compact JSON text of `value`."""
    return _text(json.dumps(value, separators=(",", ":"), ensure_ascii=True))


def _text(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Builder:
    def __init__(self, root: JSONSchema, default_max_length: int) -> None:
        self.root = root
        self.default_max_length = default_max_length
        self.rules: dict[str, str] = {}
        self._names_by_body: dict[str, str] = {}
        self.uses_char = False

    def rule(self, hint: str, body: str) -> str:
        """A named rule for `body` (reusing an identical one)."""
        if body in self._names_by_body:
            return self._names_by_body[body]
        base = re.sub(r"[^a-zA-Z0-9-]+", "-", hint).strip("-").lower() or "r"
        name, n = base, 1
        while name in self.rules or name in ("root", "char"):
            n += 1
            name = f"{base}-{n}"
        self.rules[name] = body
        self._names_by_body[body] = name
        return name

    def visit(self, schema: JSONSchema, hint: str, refs: tuple[str, ...]) -> tuple[str, int]:
        if not isinstance(schema, dict):
            raise ConfigError(f"Schema for {hint!r} must be an object, not {schema!r}.")
        if "$ref" in schema:
            ref = schema["$ref"]
            if ref in refs:
                raise ConfigError(
                    f"The response schema refers to itself through {ref!r}; a recursive "
                    "schema has no length bound, so it cannot become a grammar."
                )
            return self.visit(resolve_ref(self.root, ref), hint, (*refs, ref))
        if "const" in schema:
            return literal(schema["const"]), _json_len(schema["const"])
        if "enum" in schema:
            values = list(schema["enum"])
            if not values:
                raise ConfigError(f"Schema for {hint!r} has an empty enum.")
            body = " | ".join(literal(v) for v in values)
            return self.rule(hint, body), max(_json_len(v) for v in values)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self._alternatives(schema[key], hint, refs)
        if "allOf" in schema:
            return self.visit(merge_all_of(schema), hint, refs)
        kind = schema.get("type")
        if isinstance(kind, list):
            return self._alternatives([{**schema, "type": k} for k in kind], hint, refs)
        kind = kind or infer_type(schema)
        if kind is None:
            scalars = [{"type": k} for k in ("string", "number", "boolean", "null")]
            return self._alternatives(scalars, hint, refs)
        if kind == "object":
            return self._object(schema, hint, refs)
        if kind == "array":
            return self._array(schema, hint, refs)
        if kind == "string":
            return self._string(schema, hint)
        if kind == "integer":
            return self._integer(schema, hint)
        if kind == "number":
            low = _lower_bound(schema)
            sign = '"-"? ' if low is None or low < 0 else ""
            body = f'{sign}("0" | [1-9] [0-9]{{0,{_INT_DIGITS - 1}}}) ("." [0-9]{{1,6}})?'
            return self.rule("number", body), len(sign and "-") + _INT_DIGITS + 7
        if kind == "boolean":
            return '("true" | "false")', 5
        if kind == "null":
            return '"null"', 4
        raise ConfigError(f"Schema for {hint!r} has unknown type {kind!r}.")

    def _alternatives(
        self, options: list[JSONSchema], hint: str, refs: tuple[str, ...]
    ) -> tuple[str, int]:
        if not options:
            raise ConfigError(f"Schema for {hint!r} offers no alternatives.")
        parts = [self.visit(opt, f"{hint}-{i}", refs) for i, opt in enumerate(options)]
        body = " | ".join(expr for expr, _ in parts)
        return self.rule(hint, body), max(n for _, n in parts)

    def _object(self, schema: JSONSchema, hint: str, refs: tuple[str, ...]) -> tuple[str, int]:
        props: dict[str, JSONSchema] = schema.get("properties", {})
        if not props:
            return '"{}"', 2
        pieces: list[str] = []
        total = 1 + len(props)  # braces and separators
        for i, (name, sub) in enumerate(props.items()):
            expr, n = self.visit(sub, name if hint == "reply" else f"{hint}-{name}", refs)
            key = ("{" if i == 0 else ",") + json.dumps(name, ensure_ascii=True) + ":"
            pieces.append(f"{_text(key)} {expr}")
            total += _json_len(name) + 1 + n
        return self.rule(hint, " ".join(pieces) + ' "}"'), total

    def _array(self, schema: JSONSchema, hint: str, refs: tuple[str, ...]) -> tuple[str, int]:
        if "prefixItems" in schema:
            return self._tuple(schema, hint, refs)
        low = int(schema.get("minItems", 0))
        high = int(schema.get("maxItems", max(low, MAX_ITEMS)))
        if high < low:
            raise ConfigError(f"Schema for {hint!r} has maxItems < minItems.")
        if high == 0:
            return '"[]"', 2
        items = schema.get("items", {})
        item, n = self.visit(items if isinstance(items, dict) else {}, f"{hint}-item", refs)
        more = f'("," {item}){{{max(low - 1, 0)},{high - 1}}}'
        inner = f"{item} {more}" if low >= 1 else f"({item} {more})?"
        return self.rule(hint, f'"[" {inner} "]"'), 2 + high * n + (high - 1)

    def _tuple(self, schema: JSONSchema, hint: str, refs: tuple[str, ...]) -> tuple[str, int]:
        """``prefixItems`` with ``items: false``: exactly these elements, in this order."""
        prefix = schema["prefixItems"]
        if schema.get("items") is not False or not isinstance(prefix, list):
            raise ConfigError(
                f"Schema for {hint!r}: prefixItems is supported only as a fixed tuple "
                "(with items: false)."
            )
        if not prefix:
            return '"[]"', 2
        parts = [self.visit(p, f"{hint}-{i}", refs) for i, p in enumerate(prefix)]
        body = ' "," '.join(expr for expr, _ in parts)
        return self.rule(hint, f'"[" {body} "]"'), 2 + sum(n for _, n in parts) + len(parts) - 1

    def _string(self, schema: JSONSchema, hint: str) -> tuple[str, int]:
        low = int(schema.get("minLength", 0))
        high = int(schema.get("maxLength", max(low, self.default_max_length)))
        if high < low:
            raise ConfigError(f"Schema for {hint!r} has maxLength < minLength.")
        if high == 0:
            return '"\\"\\""', 2
        self.uses_char = True
        return self.rule(f"{hint}-string", f'"\\"" char{{{low},{high}}} "\\""'), 2 + 2 * high

    def _integer(self, schema: JSONSchema, hint: str) -> tuple[str, int]:
        low, high = _lower_bound(schema), _upper_bound(schema)
        if low is not None and high is not None:
            low_i, high_i = -int(-low // 1), int(high // 1)
            if high_i < low_i:
                raise ConfigError(f"Schema for {hint!r} allows no integer.")
            if high_i - low_i < _ENUMERATE_UP_TO:
                values = range(low_i, high_i + 1)
                body = " | ".join(literal(v) for v in values)
                return self.rule(f"{hint}-int", body), max(len(str(v)) for v in values)
        digits = _INT_DIGITS
        if low is not None and high is not None:
            digits = max(len(str(abs(int(low)))), len(str(abs(int(high)))))
        sign = '"-"? ' if low is None or low < 0 else ""
        body = f'{sign}("0" | [1-9] [0-9]{{0,{digits - 1}}})' if digits > 1 else f"{sign}[0-9]"
        return self.rule(f"{hint}-int", body), len(sign and "-") + digits


def _json_len(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=True))


def _lower_bound(schema: JSONSchema) -> float | None:
    values = [float(v) for v in (schema.get("minimum"), schema.get("exclusiveMinimum")) if _num(v)]
    if _num(schema.get("exclusiveMinimum")) and schema.get("type") == "integer":
        values.append(float(schema["exclusiveMinimum"]) + 1)
    return max(values) if values else None


def _upper_bound(schema: JSONSchema) -> float | None:
    values = [float(v) for v in (schema.get("maximum"), schema.get("exclusiveMaximum")) if _num(v)]
    if _num(schema.get("exclusiveMaximum")) and schema.get("type") == "integer":
        values.append(float(schema["exclusiveMaximum"]) - 1)
    return min(values) if values else None


def _num(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)
