"""Structured observations: what a remote seat is sent beside the prose, and their schemas.

Every request a remote agent receives carries ``facts``: the request's structured facts
(`accord.core.spec.Request.info`, the very facts the game's reference agents play from) as
JSON, without the keys the game declares as hints for reference agents only
(`accord.core.gameinfo.GameInfo.hidden_info`, e.g. an oracle's answer). An agent can play from
``facts`` alone, never parsing the prose an LLM reads.

The schema of ``facts`` is published per game and request kind (`observation_schemas`,
``accord agent schema GAME``, the tables of ``docs/agents.md``). It is derived from play: the
game is driven by its reference agents over a few seeds, with its default options, those of its
agent-check game and those of its golden cases (the game's own pick of its variants), and every
``facts`` object sent is read into one JSON schema per kind (a key present in every sample is
required; a number that was ever fractional is a ``number``; an object keyed by seat indices, or
whose keys vary and whose values are numbers, is a map). A test plays other seeds and checks
that every ``facts`` object validates, so the published schema cannot drift from what is sent.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.core.spec import Request

SCHEMA_SEEDS = (0, 1, 2)
"""Seeds the published schemas are derived from (`observation_schemas`)."""

MAX_STEPS = 5_000
"""Bound on the requests answered while deriving a game's schemas."""


def hidden_keys(game_id: str) -> tuple[str, ...]:
    """The ``info`` keys of `game_id` never sent to a remote agent (`GameInfo.hidden_info`)."""
    from accord.core.gameinfo import info_or_none

    info = info_or_none(game_id)
    return tuple(info.hidden_info) if info is not None else ()


def facts(request: Request, hidden: Iterable[str] = ()) -> dict[str, Any]:
    """The request's structured facts as JSON (tuples as lists, keys as text, anything else as
    its text), without the `hidden` keys."""
    drop = set(hidden)
    kept = {str(k): v for k, v in request.info.items() if str(k) not in drop}
    loaded: dict[str, Any] = json.loads(json.dumps(kept, default=_plain, allow_nan=False))
    return loaded


def _plain(value: Any) -> Any:
    """A value `json` cannot write, as plain data: a pydantic model or dataclass as its
    fields, a set as a sorted list, anything else as its text."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    return str(value)


# -- schemas derived from samples ------------------------------------------------------------


def _is_seat_map(samples: Sequence[Mapping[str, Any]]) -> bool:
    keys = {k for s in samples for k in s}
    return bool(keys) and all(k.isdigit() for k in keys)


def _is_varying_map(samples: Sequence[Mapping[str, Any]], values: Sequence[Any]) -> bool:
    """An object whose keys differ between samples and whose values are all numbers (a
    purchase, keyed by resource): a map, not a record."""
    shapes = {frozenset(s) for s in samples}
    kinds = {_kind(v) for v in values}
    return len(shapes) > 1 and bool(kinds) and kinds <= {"integer", "number"}


def infer_schema(samples: Sequence[Any]) -> dict[str, Any]:
    """One JSON schema every value of `samples` validates against (module docstring)."""
    kinds: dict[str, list[Any]] = {}
    for value in samples:
        kinds.setdefault(_kind(value), []).append(value)
    options = [_schema_of(kind, values) for kind, values in sorted(kinds.items())]
    if "integer" in kinds and "number" in kinds:
        options = [o for o in options if o.get("type") != "integer"]
    if not options:
        return {}
    return options[0] if len(options) == 1 else {"anyOf": options}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _schema_of(kind: str, values: list[Any]) -> dict[str, Any]:
    if kind == "array":
        items = [v for value in values for v in value]
        return {"type": "array", "items": infer_schema(items)} if items else {"type": "array"}
    if kind != "object":
        return {"type": kind}
    inner = [v for value in values for v in value.values()]
    if _is_seat_map(values) or _is_varying_map(values, inner):
        return {"type": "object", "additionalProperties": infer_schema(inner)}
    keys: list[str] = []
    for value in values:
        keys += [k for k in value if k not in keys]
    return {
        "type": "object",
        "properties": {k: infer_schema([v[k] for v in values if k in v]) for k in keys},
        "required": [k for k in keys if all(k in v for v in values)],
    }


# -- the game's requests, as a remote seat receives them --------------------------------------


@dataclass
class KindSample:
    """What one request kind of a game looks like: its facts, reply schema and an example."""

    kind: str
    facts: list[dict[str, Any]] = field(default_factory=list)
    reply_schema: dict[str, Any] | None = None
    format_hint: str = ""
    example: Request | None = None


def _option_sets(game_id: str) -> list[dict[str, Any]]:
    from accord.core.gameinfo import info_or_none, resolve_ref

    info = info_or_none(game_id)
    sets: list[dict[str, Any]] = [{}]
    if info is None:
        return sets
    if info.agent_check is not None:
        sets.append(dict(info.agent_check.options))
    if info.golden is not None:
        # The golden cases are the game's own pick of its variants (partners, channels...).
        cases = resolve_ref(info.golden)
        sets += [dict(cases[name].get("options") or {}) for name in sorted(cases)]
    unique: list[dict[str, Any]] = []
    for options in sets:
        if options not in unique:
            unique.append(options)
    return unique


def _reference(game_id: str) -> str:
    from accord.agents.reference import default_opponent
    from accord.core.gameinfo import info_or_none

    info = info_or_none(game_id)
    if info is not None and info.agent_check is not None:
        return info.agent_check.others
    return default_opponent(game_id)


async def _drive(game_id: str, options: Mapping[str, Any], seed: int) -> list[Request]:
    """Every request of one game played by the game's reference agent in every seat."""
    from accord.agents.reference import make_reference
    from accord.core.registry import make

    game = make(game_id, dict(options))
    game.reset(seed)
    name = _reference(game_id)
    agents = [make_reference(game_id, name) for _ in range(game.num_seats)]
    seen: list[Request] = []
    for _ in range(MAX_STEPS):
        if game.done():
            break
        pending = game.pending()
        seen += pending
        actions = [await agents[r.seat].act(r) for r in pending]
        for request, action in zip(pending, actions, strict=True):
            game.submit(request.seat, action)
    return seen


def played_requests(game_id: str, seeds: Sequence[int] = SCHEMA_SEEDS) -> list[Request]:
    """Every request of the reference play `observation_schemas` reads (module docstring)."""

    async def all_games() -> list[Request]:
        out: list[Request] = []
        for options in _option_sets(game_id):
            for seed in seeds:
                out += await _drive(game_id, options, seed)
        return out

    return asyncio.run(all_games())


def samples(game_id: str, seeds: Sequence[int] = SCHEMA_SEEDS) -> dict[str, KindSample]:
    """Per request kind: the facts sent, the reply schema and a first example request."""
    hidden = hidden_keys(game_id)
    out: dict[str, KindSample] = {}
    for request in played_requests(game_id, seeds):
        kind = request.spec.kind
        entry = out.setdefault(kind, KindSample(kind))
        entry.facts.append(facts(request, hidden))
        if entry.example is None:
            entry.example = request
            entry.reply_schema = request.spec.schema
            entry.format_hint = request.spec.format_hint
    return out


@functools.cache
def observation_schemas(game_id: str) -> dict[str, Any]:
    """The schema of ``facts`` per request kind of `game_id`, with each kind's reply schema
    and format hint (computed once per game; do not modify)."""
    kinds = samples(game_id)
    return {
        "game_id": game_id,
        "hidden": list(hidden_keys(game_id)),
        "kinds": {
            kind: {
                "facts": infer_schema(s.facts),
                "reply_schema": s.reply_schema,
                "format_hint": s.format_hint,
            }
            for kind, s in sorted(kinds.items())
        },
    }


# -- the docs' tables, generated from the schemas ---------------------------------------------

DOCS_BEGIN = "<!-- observations: generated by accord.remote.observations.docs_section -->"
DOCS_END = "<!-- end of generated observations -->"


def type_text(schema: Mapping[str, Any]) -> str:
    """A schema as a few words for a table (``list of integer``, ``map of number``)."""
    if "anyOf" in schema:
        return " or ".join(type_text(o) for o in schema["anyOf"])
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        return f"list of {type_text(items)}" if items else "list"
    if kind == "object":
        if "additionalProperties" in schema:
            return f"map of {type_text(schema['additionalProperties'])}"
        keys = list(schema.get("properties", {}))
        return "object {" + ", ".join(keys) + "}" if keys else "object"
    return str(kind or "any")


def _consts(schema: Any, key: str) -> list[str]:
    """Every ``const`` a property named `key` takes anywhere in `schema`, in order."""
    out: list[str] = []
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            if name == key and isinstance(sub, dict) and "const" in sub:
                out.append(str(sub["const"]))
        for sub in schema.values():
            out += [c for c in _consts(sub, key) if c not in out]
    elif isinstance(schema, list):
        for sub in schema:
            out += [c for c in _consts(sub, key) if c not in out]
    return out


def _reply_text(kind: KindSample) -> list[str]:
    schema = kind.reply_schema
    if schema is None:
        return [f"Reply: free text. {kind.format_hint}"]
    fields = ", ".join(f"`{k}`" for k in schema.get("properties", {}))
    lines = [f"Reply: one JSON object valid against `reply_schema`, with {fields}."]
    actions = _consts(schema, "type")
    if actions:
        lines.append(
            "Actions (`type` of each entry): " + ", ".join(f"`{a}`" for a in actions) + "."
        )
    return lines


def _example_reply(schema: dict[str, Any]) -> str:
    from accord.models import get_model

    async def one() -> str:
        done = await get_model("mock/schema").complete(
            [{"role": "user", "content": "example"}], response_schema=schema, seed=0
        )
        return done.text

    return json.dumps(json.loads(asyncio.run(one())))


def docs_section(game_ids: Sequence[str]) -> str:
    """The "Requests and observations per game" tables of ``docs/agents.md`` (between
    `DOCS_BEGIN` and `DOCS_END`), generated from `observation_schemas` and one example of each
    request kind (a test checks the page holds exactly this text)."""
    out = [DOCS_BEGIN, ""]
    for game_id in game_ids:
        published = observation_schemas(game_id)
        kinds = samples(game_id)
        hidden = published["hidden"]
        out += [f"### {game_id}", ""]
        if hidden:
            out += [
                "Never sent (hints for reference agents only): "
                + ", ".join(f"`{h}`" for h in hidden)
                + ".",
                "",
            ]
        for name, entry in published["kinds"].items():
            schema = entry["facts"]
            out += [f"#### `{name}`", "", *_reply_text(kinds[name]), ""]
            out += ["| fact | type | always sent |", "| --- | --- | --- |"]
            required = set(schema.get("required", []))
            for key, sub in schema.get("properties", {}).items():
                out.append(f"| `{key}` | {type_text(sub)} | {'yes' if key in required else 'no'} |")
            example = kinds[name].facts[0]
            out += ["", "Example `facts`:", "", "```json", json.dumps(example), "```", ""]
            if entry["reply_schema"] is not None:
                reply = _example_reply(entry["reply_schema"])
                out += ["A valid reply to it:", "", "```json", reply, "```", ""]
    out.append(DOCS_END)
    return "\n".join(out)
