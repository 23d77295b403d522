"""Pydantic validation errors in the words of the file a person wrote.

A pydantic location such as ``batches.1.agents.0.function-after[_one_kind(), AgentSpec].str``
names validator internals and union branches, and a union reports one error per branch
("Input should be a valid string" beside "unknown key" for the same entry). What a person
needs is the place in their own YAML or JSON (``batches[1].agents[0]``), what is wrong, and
what is allowed there. `format_validation_error` walks each location along the input it was
raised on, keeps only the segments that exist in that input, merges the branches of a union
into one line, and for an unknown key lists the keys the model allows.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

_MISSING = object()

_KIND_WORDS = {
    "str": "a string",
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "dict": "a mapping",
    "list": "a list",
    "none": "nothing (null)",
}


def _branch_word(tag: str) -> str:
    """A union branch's tag (``str``, ``AgentSpec``, ``function-after[f(), AgentSpec]``,
    ``list[str]``) -> what a person would call it."""
    base = tag.split("[", 1)[0].strip().lower()
    if base in _KIND_WORDS:
        return _KIND_WORDS[base]
    if base.startswith("function-") and "[" in tag:
        inner = tag[tag.rfind(",") + 1 :].rstrip("]").strip() if "," in tag else tag
        return _branch_word(inner.split("[", 1)[-1].rstrip("]"))
    return "a mapping"  # a model: written as a mapping of its keys


def _walk(data: Any, loc: Sequence[int | str]) -> tuple[list[int | str], list[str], Any]:
    """The segments of `loc` that exist in `data` (the person's path), the union branch tags
    passed on the way, and the value found at the end (`_MISSING` if the path leaves `data`)."""
    path: list[int | str] = []
    branches: list[str] = []
    here: Any = data
    for seg in loc:
        if (isinstance(here, Mapping) and seg in here) or (
            _is_list(here) and isinstance(seg, int) and 0 <= seg < len(here)
        ):
            path.append(seg)
            here = here[seg]
        elif isinstance(here, Mapping) and isinstance(seg, str) and not _looks_internal(seg):
            path.append(seg)  # a key that is missing or unknown: named, and the walk ends
            here = _MISSING
        else:
            branches.append(str(seg))
    return path, branches, here


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _looks_internal(seg: str) -> bool:
    return any(c in seg for c in "[](),") or seg.lower() in _KIND_WORDS or seg[:1].isupper()


def _render_path(path: Sequence[int | str]) -> str:
    out = ""
    for seg in path:
        out += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if out else str(seg))
    return out or "(top level)"


def _model_at(model: type[BaseModel] | None, path: Sequence[int | str]) -> type[BaseModel] | None:
    """The pydantic model that validates the mapping at `path`, following fields, list items
    and union members (the first model member); None when it cannot be told."""
    here: Any = model
    for seg in path:
        if isinstance(seg, int):
            here = _item_type(here)
        elif isinstance(here, type) and issubclass(here, BaseModel):
            field = here.model_fields.get(seg) or next(
                (f for f in here.model_fields.values() if f.alias == seg), None
            )
            here = field.annotation if field is not None else None
        else:
            return None
        here = _the_model(here) or here
    found = _the_model(here)
    return found


def _item_type(tp: Any) -> Any:
    tp = _the_model(tp) or tp
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if origin in (list, tuple, Sequence) or (
        isinstance(origin, type) and issubclass(origin, Sequence)
    ):
        return args[0] if args else None
    for arg in args:  # Optional[list[X]], list[X] | X
        if typing.get_origin(arg) in (list, tuple):
            return typing.get_args(arg)[0]
    return None


def _the_model(tp: Any) -> type[BaseModel] | None:
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _the_model(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            found = _the_model(arg)
            if found is not None:
                return found
    return None


def _allowed_keys(model: type[BaseModel] | None, path: Sequence[int | str]) -> list[str]:
    found = _model_at(model, path)
    if found is None:
        return []
    return [f.alias or name for name, f in found.model_fields.items()]


def _shown(value: Any) -> str:
    if value is _MISSING or isinstance(value, Mapping | list):
        return ""
    text = repr(value)
    return f" (got {text[:60]}{'…' if len(text) > 60 else ''})"


def format_validation_error(
    exc: ValidationError,
    *,
    where: str,
    data: Any = _MISSING,
    model: type[BaseModel] | None = None,
) -> str:
    """A pydantic error as short lines naming each bad place and what is allowed there.

    With the validated input (`data`) the places are written as in the person's file
    (``batches[1].agents[0].latency_s``) and a union's per-branch errors become one line;
    with the root `model`, an unknown key's line lists the allowed keys."""
    errors = exc.errors()
    root = data if data is not _MISSING else None
    grouped: dict[str, list[tuple[dict[str, Any], list[str], Any, list[int | str]]]] = {}
    for err in errors:
        loc = list(err["loc"])
        if root is None:
            path = [p for p in loc if isinstance(p, int) or not _looks_internal(str(p))]
            branches = [
                str(p) for p in loc if not (isinstance(p, int) or not _looks_internal(str(p)))
            ]
            value = err.get("input", _MISSING)
        else:
            path, branches, value = _walk(root, loc)
        grouped.setdefault(_render_path(path), []).append((dict(err), branches, value, path))
    deeper = [e[3] for errs in grouped.values() for e in errs]
    lines = [f"Invalid {where}:"]
    for place, errs in grouped.items():
        if _other_branch_went_deeper(errs, deeper):
            continue

        lines.append(f"  - {place}: {_say(errs, model)}")
    return "\n".join(lines)


def _other_branch_went_deeper(
    errs: list[tuple[dict[str, Any], list[str], Any, list[int | str]]],
    paths: list[list[int | str]],
) -> bool:
    """A union branch that refused the value's type at a place where another branch took the
    value and found a fault inside it: the inner fault is the one to tell."""
    if not all(e[0]["type"].endswith("_type") and e[1] for e in errs):
        return False
    here = errs[0][3]
    return any(len(p) > len(here) and p[: len(here)] == here for p in paths)


def _say(
    errs: list[tuple[dict[str, Any], list[str], Any, list[int | str]]],
    model: type[BaseModel] | None,
) -> str:
    """One sentence for all the errors raised at one place."""
    unknown = [e for e in errs if e[0]["type"] == "extra_forbidden"]
    if unknown:
        err, _, _, path = unknown[0]
        allowed = _allowed_keys(model, path[:-1])
        hint = f"allowed here: {', '.join(allowed)}" if allowed else "see the docs for the keys"
        return f"unknown key (check the spelling; {hint})"
    type_errors = [e for e in errs if e[0]["type"].endswith("_type") and e[1]]
    if len(type_errors) > 1 and len(type_errors) == len(errs):
        kinds = list(dict.fromkeys(_branch_word(e[1][-1]) for e in type_errors))
        return f"must be {' or '.join(kinds)}{_shown(type_errors[0][2])}"
    # A union whose input matched one branch's shape: that branch's errors are the real ones.
    real = [e for e in errs if not (e[0]["type"].endswith("_type") and e[1])] or errs
    err, _, value, _ = real[0]
    msg = str(err["msg"])
    if err["type"] == "missing":
        return "required, but missing"
    return f"{msg}{_shown(value)}"
