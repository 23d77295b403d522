"""Reading files people edit by hand (experiment YAML, traces, suites) without trusting them.

Every reader here turns a bad file into one `ConfigError` line naming the file and what to do,
never a traceback, and bounds the memory a file can make Accord use:

- size: a file larger than its cap is refused before it is read (`MAX_YAML_BYTES`,
  `MAX_TRACE_BYTES`; the ``ACCORD_MAX_INPUT_MB`` variable raises both);
- encoding: files are UTF-8; other bytes are reported with their offset;
- YAML: duplicate keys are an error (the later value would silently win), and aliases may not
  expand the document beyond `MAX_NODES` values (a "billion laughs" bomb is a few lines);
- nesting deeper than `MAX_DEPTH` and integers longer than Python's digit limit are refused.

The same module bounds what arrives over the network while a run plays (`parse_json`,
`usage_number`, `MAX_TOOL_CALLS`, `MAX_TOOL_ARGUMENT_CHARS`): a model's tool calls, a remote
agent's request bodies and self-reported usage, a model server's metadata. A violation is an
`InputLimitError` naming the limit; the caller turns it into the event its layer records (an
invalid action for a model, a refused call for an agent), never a crash. Every limit is in one
table in ``docs/running.md`` ("Bounds on untrusted input").
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

import yaml

from accord.core.errors import ConfigError, InputLimitError

MAX_YAML_BYTES = 4 * 1024 * 1024
"""Experiment and option files: a large experiment is a few kilobytes."""
MAX_TRACE_BYTES = 512 * 1024 * 1024
"""One trace: stored replies are capped, so even a long game stays far below this."""
MAX_NODES = 1_000_000
"""Values (scalars, lists, mappings) a YAML document may hold once its aliases are expanded."""
MAX_DEPTH = 100
"""Nesting depth of any document (Accord's own files nest fewer than 15 levels)."""
MAX_TOOL_CALLS = 32
"""Tool calls read from one model reply (the calendar's busiest turn makes a handful); a reply
with more is an invalid action, re-prompted like any other."""
MAX_TOOL_ARGUMENT_CHARS = 16 * 1024
"""Characters of one tool call's arguments (the seat protocol's reply cap): longer arguments are
stored cut and refused as an invalid action."""
MAX_USAGE_NUMBER = 1e12
"""Largest token count or cost (USD) one call may report, by a provider or a remote agent:
finite numbers from 0 to this only (``inf``, ``1e309`` and ``NaN`` are refused)."""
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""A model server's answer to one call (an OpenAI-compatible server): larger is a failed
attempt, retried like a dropped connection. Below it, the calls inside are bounded by
`MAX_TOOL_CALLS` and `MAX_TOOL_ARGUMENT_CHARS`."""
MAX_SERVER_JSON_BYTES = 1024 * 1024
"""A model server's metadata answer (``/props``, ``/v1/models``) read before a run."""


def _cap(default: int) -> int:
    raw = os.environ.get("ACCORD_MAX_INPUT_MB")
    if raw:
        try:
            return max(default, int(float(raw) * 1024 * 1024))
        except ValueError:
            pass
    return default


def size_limit(default: int) -> int:
    """The size cap in force for a kind of file whose own cap is `default` bytes (raised, never
    lowered, by ``ACCORD_MAX_INPUT_MB``)."""
    return _cap(default)


def read_text(path: Path, *, what: str, max_bytes: int) -> str:
    """The UTF-8 text of `path`, refusing files over `max_bytes` or not UTF-8."""
    limit = _cap(max_bytes)
    try:
        size = path.stat().st_size
        if size > limit:
            raise ConfigError(
                f"{what} {path} is {size / 1e6:.1f} MB, over the {limit / 1e6:.0f} MB limit; "
                "check that it is the right file (set ACCORD_MAX_INPUT_MB to allow more)."
            )
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"Cannot read {what} {path}: {exc.strerror or exc}.") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{what} {path} is not UTF-8 text (bad byte at offset {exc.start}); save it as UTF-8."
        ) from exc


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing duplicate keys."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            duplicate = key in seen
            seen.add(key)
        except TypeError:  # an unhashable key: construct_mapping reports it
            continue
        if duplicate:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (line {mark.line + 1}); keep only one", mark
            )
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_yaml(text: str, *, source: str) -> Any:
    """Parse YAML strictly (see the module docstring); errors name `source`."""
    try:
        _check_yaml_depth(text, source)
        data = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source} is not valid YAML: {_one_line(str(exc))}") from exc
    except ValueError as exc:  # e.g. an integer beyond Python's 4300-digit conversion limit
        raise ConfigError(f"{source}: {_one_line(str(exc))}; use a smaller number.") from exc
    except RecursionError as exc:
        raise ConfigError(
            f"{source} nests too deeply to read; flatten it (at most {MAX_DEPTH} levels)."
        ) from exc
    check_shape(data, source=source)
    return data


def _check_yaml_depth(text: str, source: str) -> None:
    """Refuse deep nesting from the event stream, before PyYAML's parser slows down on it
    (5,000 nested brackets take it seconds before it fails) and its composer recurses."""
    if _bracket_depth(text) > MAX_DEPTH:
        raise ConfigError(f"{source} nests deeper than {MAX_DEPTH} levels; flatten it.")
    depth = 0
    for event in yaml.parse(text, Loader=_StrictLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise ConfigError(f"{source} nests deeper than {MAX_DEPTH} levels; flatten it.")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


_SYNTAX = re.compile(r"""[\[\]{}'"#\n]""")


def _bracket_depth(text: str) -> int:
    """Deepest nesting of flow brackets outside quotes and comments (the scanner's worst case:
    it reads a whole run of opening brackets before the parser sees the first)."""
    depth = deepest = 0
    quote: str | None = None
    comment = False
    for m in _SYNTAX.finditer(text):
        ch = m.group()
        if ch == "\n":
            comment = False
        elif comment:
            continue
        elif quote is not None:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            comment = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(0, depth - 1)
    return deepest


def load_json(text: str | bytes, *, source: str) -> Any:
    """Parse JSON, turning bad documents, huge integers and deep nesting into `ConfigError`."""
    try:
        data = json.loads(text)
    except RecursionError as exc:
        raise ConfigError(f"{source} nests too deeply to read (over {MAX_DEPTH} levels).") from exc
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, the int digit limit
        raise ConfigError(f"{source} is not valid JSON: {_one_line(str(exc))}") from exc
    check_shape(data, source=source, max_nodes=None)
    return data


def check_shape(data: Any, *, source: str, max_nodes: int | None = MAX_NODES) -> None:
    """Refuse documents nested deeper than `MAX_DEPTH`, holding a cycle (a recursive YAML
    alias) or, counting shared (aliased) values once per use, more than `max_nodes` values."""
    sizes: dict[int, tuple[int, int]] = {}  # id -> (values inside, height)
    open_ids: set[int] = set()
    # Iterative post-order walk: the document may be deeper than Python's recursion limit.
    stack: list[tuple[Any, int, bool]] = [(data, 1, False)]
    while stack:
        obj, depth, done = stack.pop()
        if not isinstance(obj, dict | list):
            continue
        key = id(obj)
        children = list(obj.values()) if isinstance(obj, dict) else obj
        if done:
            open_ids.discard(key)
            inner = [sizes.get(id(c), (1, 0)) for c in children]
            total = 1 + sum(n for n, _ in inner)
            sizes[key] = (total, 1 + max((h for _, h in inner), default=0))
            if max_nodes is not None and total > max_nodes:
                raise ConfigError(
                    f"{source} expands to over {max_nodes:,} values (YAML aliases repeated "
                    "inside each other?); write the values out or make the file smaller."
                )
            continue
        if key in open_ids:
            raise ConfigError(f"{source} refers to itself (a recursive YAML alias); remove it.")
        height = sizes[key][1] if key in sizes else 1
        if depth + height - 1 > MAX_DEPTH:
            raise ConfigError(f"{source} nests deeper than {MAX_DEPTH} levels; flatten it.")
        if key in sizes:
            continue
        open_ids.add(key)
        stack.append((obj, depth, True))
        stack.extend((c, depth + 1, False) for c in children)


def _one_line(text: str) -> str:
    return " ".join(text.split())


_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_JSON_TOKENS_B = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def json_depth(text: str | bytes) -> int:
    """Deepest bracket nesting of JSON text, outside strings, found without parsing it (the
    parser recurses once per level: 20,000 brackets end it with `RecursionError`)."""
    opened = (
        text.count("[") + text.count("{")
        if isinstance(text, str)
        else (text.count(b"[") + text.count(b"{"))
    )
    if opened <= MAX_DEPTH:
        return opened
    depth = deepest = 0
    pattern = _JSON_TOKENS if isinstance(text, str) else _JSON_TOKENS_B
    for m in pattern.finditer(text):  # type: ignore[arg-type]
        token = m.group()
        first = token[:1]
        if first in ("[", "{", b"[", b"{"):
            depth += 1
            if depth > deepest:
                deepest = depth
        elif first in ("]", "}", b"]", b"}"):
            depth = max(0, depth - 1)
    return deepest


def _no_constant(name: str) -> Any:
    raise InputLimitError(
        f"{name} is not a JSON number; send finite numbers only", limit="finite numbers"
    )


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputLimitError(
            f"the number {text[:40]} is too large to be finite; send finite numbers only",
            limit="finite numbers",
        )
    return value


def parse_json(
    text: str | bytes, *, what: str, max_chars: int, limit: str, max_depth: int = MAX_DEPTH
) -> Any:
    """Parse untrusted JSON text within bounds: at most `max_chars` characters (`limit` names
    that bound in the error), nested at most `max_depth` levels, finite numbers only.

    Raises:
        InputLimitError: naming the limit broken, or ``valid JSON`` for a syntax error.
    """
    if len(text) > max_chars:
        raise InputLimitError(
            f"{what} is {len(text):,} characters, over the limit of {max_chars:,} ({limit})",
            limit=limit,
        )
    if json_depth(text) > max_depth:
        raise InputLimitError(
            f"{what} nests deeper than {max_depth} levels (MAX_DEPTH); flatten it",
            limit="MAX_DEPTH",
        )
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except InputLimitError as exc:
        raise InputLimitError(f"{what}: {exc}", limit=exc.limit) from None
    except RecursionError:  # a depth the scanner missed (cannot happen for valid JSON)
        raise InputLimitError(
            f"{what} nests too deeply (MAX_DEPTH is {max_depth})", limit="MAX_DEPTH"
        ) from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, the int digit limit
        raise InputLimitError(
            f"{what} is not valid JSON: {_one_line(str(exc))[:200]}", limit="valid JSON"
        ) from None


def usage_number(value: Any, *, what: str) -> float | int:
    """`value` as a usage figure (tokens or USD): a finite number from 0 to
    `MAX_USAGE_NUMBER`, never a boolean; `InputLimitError` naming the limit otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputLimitError(f"{what} must be a number, not {type(value).__name__}", limit="type")
    if not (math.isfinite(value) and 0 <= value <= MAX_USAGE_NUMBER):
        shown = repr(value) if isinstance(value, float) else f"{value:.3g}"
        raise InputLimitError(
            f"{what} is {shown[:40]}; it must be a finite number from 0 to "
            f"{MAX_USAGE_NUMBER:.0e} (MAX_USAGE_NUMBER)",
            limit="MAX_USAGE_NUMBER",
        )
    return value
