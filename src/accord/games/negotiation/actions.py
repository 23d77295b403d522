"""Reply formats of the negotiation game: JSON schemas, parsers and fallbacks.

Seed 004 App. D.1.3-D.1.4 (the ``{"thinking","speech","action"}`` envelope) and App. D.6 (the
no-thinking variant: plain text is speech, a bare JSON object is a decision). A parser turns
model text into an action dict with abstract resource ids, or raises `ActionError` with a
message that tells the model what to fix. Rules come from `rules.py`.

Parsed actions have the shape ``{"speech": str, "thinking": str, "decision": None | {"purchase":
{...}, "runs": {...} | None}}``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from accord.core.errors import ActionError
from accord.core.json_reply import extract_json_object
from accord.core.provenance import format_warning, format_warnings
from accord.core.spec import Action, ActionSpec, JSONSchema
from accord.games.negotiation import rules
from accord.games.negotiation.scenario import RESOURCES, Market, Project
from accord.games.negotiation.tools import turn_tools

THINKING_MAX = 600
"""Length cap on the private scratchpad (keeps constrained small models from rambling)."""
SPEECH_MAX = 400
"""Length cap on a cheap-talk message."""
REFLECTION_MAX = 600


def purchase_schema(
    names: Mapping[str, str], projects: Sequence[Project], market: Market
) -> JSONSchema:
    """JSON schema of a decision object under the given themed names.

    One branch per allowed combination of resource types, so a grammar-constrained model
    cannot name more types than the market allows; quantities are capped by what the budget
    could buy of each resource. ``projects`` is left out of the declared properties (but not
    forbidden): App. D.1.3 lets the engine assign runs when it is omitted, and tiny constrained
    models otherwise fill it with runs their purchase cannot supply. Models that are not
    grammar-constrained read the prompt and may send ``projects``; the parser accepts it.
    """
    del projects  # runs are optional; the parser checks them against the seat's projects
    branches: list[JSONSchema] = []
    for combo in itertools.combinations(RESOURCES, min(market.max_types, len(RESOURCES))):
        branches.append(
            {
                "type": "object",
                "properties": {
                    names[r]: {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": int(market.budget // market.costs[r]),
                    }
                    for r in combo
                },
                "required": [names[r] for r in combo],
            }
        )
    return {"anyOf": branches}


def envelope_schema(decision: JSONSchema, *, must_decide: bool) -> JSONSchema:
    """Schema of the thinking-format reply; `action` may be null unless `must_decide`."""
    action: JSONSchema = decision if must_decide else {"anyOf": [{"type": "null"}, decision]}
    return {
        "type": "object",
        "properties": {
            "thinking": {"type": "string", "maxLength": THINKING_MAX},
            "speech": {"type": "string", "minLength": 1, "maxLength": SPEECH_MAX},
            "action": action,
        },
        "required": ["thinking", "speech", "action"],
        "additionalProperties": False,
    }


REFLECTION_SCHEMA: JSONSchema = {
    "type": "object",
    "properties": {"reflection": {"type": "string", "maxLength": REFLECTION_MAX}},
    "required": ["reflection"],
    "additionalProperties": False,
}


def parse_decision(
    obj: Any,
    names: Mapping[str, str],
    projects: Sequence[Project],
    market: Market,
    *,
    strict_runs: bool = False,
) -> dict[str, Any]:
    """A decision object with themed names -> ``{"purchase", "runs"}`` with resource ids.

    Runs must name the seat's projects; with `strict_runs` the purchase must also cover
    them (otherwise the engine caps them, `rules.resolve_runs`).
    """
    if not isinstance(obj, dict):
        raise ActionError(
            f'the decision must be a JSON object such as {{"{names["r1"]}": 3, "projects": '
            f'{{"{projects[0].name}": 1}}}}, got {json.dumps(obj)[:80]}'
        )
    by_name = {v: k for k, v in names.items()}
    purchase: dict[str, int] = {}
    runs: dict[str, int] | None = None
    for key, value in obj.items():
        if key == "projects":
            if value is None:
                continue
            if not isinstance(value, dict):
                raise ActionError('"projects" must be an object mapping project names to runs')
            runs = dict(value)
            continue
        res = by_name.get(key) or by_name.get(str(key).strip().lower())
        if res is None:
            valid = ", ".join(names[r] for r in RESOURCES)
            raise ActionError(f'unknown resource "{key}"; the resources are {valid}')
        purchase[res] = value
    rules.check_purchase(market, purchase)
    purchase = rules.normalize_purchase(purchase)
    return {"purchase": purchase, "runs": _checked_runs(projects, purchase, runs, strict_runs)}


def _checked_runs(
    projects: Sequence[Project],
    purchase: Mapping[str, int],
    runs: Mapping[str, Any] | None,
    strict: bool,
) -> dict[str, int] | None:
    if runs is None:
        return None
    if strict:
        rules.check_runs(projects, purchase, runs)
    else:
        rules.check_run_names(projects, runs)
    return {n: int(k) for n, k in runs.items() if int(k) > 0}


def parse_envelope(
    text: str,
    *,
    names: Mapping[str, str],
    projects: Sequence[Project],
    market: Market,
    must_decide: bool,
    strict_runs: bool = False,
    refused_as_speech: bool = False,
) -> Action:
    """Parse a thinking-format reply (App. D.1.4). With `refused_as_speech` (talk only), a
    well-formed reply whose decision the rules refuse becomes `refused_turn`."""
    obj, warnings = extract_json_object(text)
    missing = [k for k in ("thinking", "speech", "action") if k not in obj]
    if missing:
        raise ActionError(
            f"the reply is missing the field(s) {missing}; it needs exactly "
            '"thinking", "speech" and "action"'
        )
    extra = sorted(set(obj) - {"thinking", "speech", "action"})
    if extra:
        warnings.append(f"ignored extra field(s) {extra}")
    thinking, speech = obj["thinking"], obj["speech"]
    if not isinstance(thinking, str) or not isinstance(speech, str):
        raise ActionError('"thinking" and "speech" must be strings')
    if not speech.strip():
        raise ActionError('"speech" is blank; every reply needs a message for the other party')
    decision = None
    if obj["action"] is not None:
        try:
            decision = parse_decision(
                obj["action"], names, projects, market, strict_runs=strict_runs
            )
        except ActionError as exc:
            if must_decide or not refused_as_speech:
                raise
            # The public part only: the private scratchpad never reaches the partner.
            public = f"{speech.strip()}\n{json.dumps(obj['action'], ensure_ascii=False)}"
            return refused_turn(public, str(exc), thinking=thinking)
    elif must_decide:
        raise ActionError(
            'this is the decision phase: "action" must be your decision object, not null'
        )
    format_warnings(warnings)
    return {"thinking": thinking, "speech": speech.strip(), "decision": decision}


def parse_plain(
    text: str,
    *,
    names: Mapping[str, str],
    projects: Sequence[Project],
    market: Market,
    must_decide: bool,
    strict_runs: bool = False,
    refused_as_speech: bool = False,
) -> Action:
    """Parse a no-thinking reply (App. D.6): a bare JSON object decides, anything else talks.
    With `refused_as_speech` (talk only), a decision the rules refuse becomes `refused_turn`."""
    stripped = text.strip()
    if stripped.startswith("{") or must_decide:
        try:
            obj, warnings = extract_json_object(stripped)
        except ActionError:
            if must_decide:
                raise
        else:
            try:
                decision = parse_decision(obj, names, projects, market, strict_runs=strict_runs)
            except ActionError as exc:
                if must_decide or not refused_as_speech:
                    raise
                return refused_turn(text, str(exc))
            format_warnings(warnings)
            return {"thinking": "", "speech": "", "decision": decision}
    if not stripped:
        raise ActionError("the message was empty; say something to the other party")
    return {"thinking": "", "speech": stripped[: SPEECH_MAX * 4], "decision": None}


def parse_reflection(text: str) -> Action:
    """A reflection reply: JSON ``{"reflection": ...}`` or, tolerated, plain text."""
    try:
        obj, warnings = extract_json_object(text)
        value = obj.get("reflection")
        if isinstance(value, str):
            format_warnings(warnings)
            return {"reflection": value.strip()}
    except ActionError:
        pass
    if not text.strip():
        raise ActionError('the reflection was empty; reply with {"reflection": "..."}')
    format_warning("reflection was not JSON; text kept")
    return {"reflection": text.strip()}


def refused_turn(text: str, error: str, *, thinking: str = "") -> Action:
    """A talk reply whose decision the rules refused, under ``invalid_talk_decision:
    speech`` (the companion code): the turn is used up, the reply's public text (`text`: the
    whole plain reply, or an envelope's speech and refused decision, never its thinking) is
    the seat's message and ``refused_decision`` holds the error it is told at its next
    prompt."""
    raw = text.strip()[: SPEECH_MAX * 4] or "(no message)"
    return {"thinking": thinking, "speech": raw, "decision": None, "refused_decision": error}


def zero_decision() -> Action:
    """The documented fallback decision: buy nothing (seed 004 App. B, decision_auto_filled)."""
    return {"thinking": "", "speech": "", "decision": {"purchase": {}, "runs": {}}}


def silent_turn() -> Action:
    """The fallback for a failed cheap-talk turn: an empty message, no decision."""
    return {"thinking": "", "speech": "(no message)", "decision": None}


def turn_spec(
    names: Mapping[str, str],
    projects: Sequence[Project],
    market: Market,
    *,
    thinking: bool,
    must_decide: bool,
    strict_runs: bool = False,
    refused_as_speech: bool = False,
) -> ActionSpec:
    """What a valid talk or decision reply is for one seat (D.1.4 envelope or D.6 plain);
    in tools mode the talk and decide tools of `accord.games.negotiation.tools`.
    `refused_as_speech`: the ``invalid_talk_decision: speech`` option (`refused_turn`)."""
    decision_schema = purchase_schema(names, projects, market)
    schema: JSONSchema | None
    if thinking:
        schema = envelope_schema(decision_schema, must_decide=must_decide)

        def parse(text: str) -> Action:
            return parse_envelope(
                text,
                names=names,
                projects=projects,
                market=market,
                must_decide=must_decide,
                strict_runs=strict_runs,
                refused_as_speech=refused_as_speech,
            )

        hint = 'Reply with one JSON object: {"thinking": "...", "speech": "...", "action": ...}.'
    else:
        schema = decision_schema if must_decide else None

        def parse(text: str) -> Action:
            return parse_plain(
                text,
                names=names,
                projects=projects,
                market=market,
                must_decide=must_decide,
                strict_runs=strict_runs,
                refused_as_speech=refused_as_speech,
            )

        hint = "Reply with plain text to talk, or ONLY a JSON decision object to decide."
    return ActionSpec(
        kind="decide" if must_decide else "talk",
        parse=parse,
        schema=schema,
        fallback=zero_decision if must_decide else silent_turn,
        format_hint=hint,
        tools=turn_tools(
            decision_schema, thinking=thinking, must_decide=must_decide, speech_max=SPEECH_MAX
        ),
    )


def reflection_spec() -> ActionSpec:
    """The post-game reflection (D.5); an empty reflection is the fallback."""
    return ActionSpec(
        kind="reflect",
        parse=parse_reflection,
        schema=REFLECTION_SCHEMA,
        fallback=lambda: {"reflection": ""},
        format_hint='Reply with {"reflection": "..."}.',
    )


def check_decision(
    market: Market, projects: Sequence[Project], action: Action, *, strict_runs: bool = False
) -> dict[str, Any] | None:
    """Validate the decision of an already-built action (reference agents, people).

    Returns ``{"purchase", "runs"}`` in canonical form, or ``None`` for a talk-only action.
    """
    decision = action.get("decision")
    if decision is None:
        return None
    if not isinstance(decision, dict) or "purchase" not in decision:
        raise ActionError('a decision must be {"purchase": {...}, "runs": {...} | null}')
    purchase = dict(decision["purchase"])
    rules.check_purchase(market, purchase)
    purchase = rules.normalize_purchase(purchase)
    return {
        "purchase": purchase,
        "runs": _checked_runs(projects, purchase, decision.get("runs"), strict_runs),
    }
