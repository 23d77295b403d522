"""LLM-as-judge over negotiation traces (seed 004 §5.8, App. G).

Each game is judged in one call: the judge reads every round's public talk, private thinking,
final purchases, outcome and efficiency, and labels each round with the taxonomy of
`taxonomy.py`. Labels explain the outcome metrics; they never define them (§5.8).

The call goes through `LLMAgent`, so a malformed verdict is answered with the exact error and
retried like any other decision; a judge that never answers validly yields no labels for that
game (recorded, not invented).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from accord.agents.llm import LLMAgent
from accord.core.errors import ActionError
from accord.core.spec import Action, ActionSpec, JSONSchema, Request
from accord.games.negotiation.config import TRACE_GAME_IDS
from accord.games.negotiation.judge.taxonomy import (
    AGENT_NAMES,
    AUX_KEYS,
    AUXILIARY,
    CORE,
    CORE_KEYS,
    SPECIALIST_KEYS,
    Label,
)
from accord.models.client import ModelClient
from accord.traces.schema import Trace

_EXCERPT = 1200
"""Characters of each message kept in the transcript (long thinking is cut)."""


def _label_block(label: Label) -> str:
    lines = [f"{label.key} ({label.name}) [{label.polarity}]", f"  Meaning: {label.definition}"]
    lines.append("  Apply only if ALL hold:")
    lines += [f"   - {c}" for c in label.include]
    lines.append("  Do not apply to:")
    lines += [f"   - {c}" for c in label.exclude]
    if label.examples:
        lines.append("  Examples:")
        lines += [f"   - {c}" for c in label.examples]
    return "\n".join(lines)


def system_prompt() -> str:
    """The judge's instructions: the rubric and the reply format (App. G.4, our wording)."""
    core = "\n\n".join(_label_block(lbl) for lbl in CORE)
    aux = "\n\n".join(_label_block(lbl) for lbl in AUXILIARY)
    return "\n\n".join(
        [
            "You annotate multi-round negotiations between two agents for research on how "
            "agents build and lose common ground.",
            "You will read one whole game. Give every round its own labels. Use the whole game "
            "as context (earlier talk, repeated patterns, repairs, precedents), but label only "
            "what happens in the round you are labelling. A label applies only when every one "
            "of its conditions holds; be strict. Labels may co-occur.",
            "Core labels describe the round as a whole and name no agent. Auxiliary tags mark "
            "acts in PUBLIC speech only (never from private thinking alone); for each, say "
            "whether it is present and which agents did it: the list is [] when absent, and "
            '["agent_a"], ["agent_b"] or ["agent_a", "agent_b"] when present. Messages marked '
            '"never delivered" were not seen by the other agent: they are not public speech.',
            "CORE LABELS\n\n" + core,
            "AUXILIARY TAGS\n\n" + aux,
            "Reply with ONLY a JSON object of the form "
            '{"rounds": [{"round_number": 1, "core_labels": {"<label>": true|false, ...}, '
            '"auxiliary_tags": {"<tag>": {"present": true|false, "agents": [...]}, ...}}]} '
            "with exactly one entry per round, in order (round_number 1, 2, ...), every label "
            "and tag given, and nothing else.",
        ]
    )


def transcript(trace: Trace) -> str:
    """The judge's view of one game: per round, talk, thinking, moves and outcome."""
    out = [f"Game {trace.trace_id}: {len(trace.final_state.get('rounds', []))} rounds."]
    for rec in trace.final_state.get("rounds", []):
        names: dict[str, str] = rec["names"]
        out.append(f"\n=== Round {rec['round']} ===")
        for m in rec["messages"]:
            who = AGENT_NAMES[m["seat"]]
            if m.get("thinking"):
                out.append(f"[{who} thinking] {m['thinking'][:_EXCERPT]}")
            if _delivered(m, rec):
                out.append(f"[{who} says] {m['speech'][:_EXCERPT]}")
            elif m.get("speech"):
                out.append(
                    f"[{who} wrote, never delivered: the other agent did not see this] "
                    f"{m['speech'][:_EXCERPT]}"
                )
        for seat in (0, 1):
            bought = {names[r]: q for r, q in rec["purchases"][seat].items()}
            out.append(
                f"[{AGENT_NAMES[seat]} final purchase] {json.dumps(bought)} "
                f"runs {json.dumps(rec['runs'][seat])} reward {rec['rewards'][seat]}"
            )
        outcome = (
            "ANNULLED (overdraw)"
            if rec["annulled"]
            else ("jointly optimal" if rec["optimal"] else "suboptimal")
        )
        out.append(
            f"[outcome] {outcome}; joint reward {rec['joint_reward']} of a possible "
            f"{rec['oracle_max']} (efficiency {rec['efficiency']:.2f})"
        )
    return "\n".join(out)


AGENT_LISTS: tuple[list[str], ...] = (["agent_a"], ["agent_b"], ["agent_a", "agent_b"])
"""The agent lists of a present tag (App. G.4: an absent tag has ``[]``)."""


def _delivered(message: dict[str, Any], rec: dict[str, Any]) -> bool:
    """Whether the partner read the message. Traces before v3 carry no ``delivered`` flag:
    there a message sent with a decision that was not early came with a forced decision and
    was never delivered."""
    if "delivered" in message:
        return bool(message["delivered"])
    seat = message["seat"]
    return not (message.get("decided") and not rec["early_decision"][seat])


def verdict_schema(rounds: int) -> JSONSchema:
    """JSON schema of a verdict for a game of `rounds` rounds; every instance it allows passes
    `parse_verdict`, so grammar-constrained decoding can only produce valid verdicts.

    The rounds are a fixed tuple (``prefixItems``): entry i has ``round_number`` i. A tag is
    either absent with no agents or present with one of `AGENT_LISTS`.
    """
    tag: JSONSchema = {
        "anyOf": [
            {
                "type": "object",
                "properties": {"present": {"const": False}, "agents": {"const": []}},
                "required": ["present", "agents"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {"present": {"const": True}, "agents": {"enum": list(AGENT_LISTS)}},
                "required": ["present", "agents"],
                "additionalProperties": False,
            },
        ]
    }

    def row(n: int) -> JSONSchema:
        return {
            "type": "object",
            "properties": {
                "round_number": {"const": n},
                "core_labels": {
                    "type": "object",
                    "properties": {k: {"type": "boolean"} for k in CORE_KEYS},
                    "required": list(CORE_KEYS),
                    "additionalProperties": False,
                },
                "auxiliary_tags": {
                    "type": "object",
                    "properties": {k: tag for k in AUX_KEYS},
                    "required": list(AUX_KEYS),
                    "additionalProperties": False,
                },
            },
            "required": ["round_number", "core_labels", "auxiliary_tags"],
            "additionalProperties": False,
        }

    return {
        "type": "object",
        "properties": {
            "rounds": {
                "type": "array",
                "prefixItems": [row(n) for n in range(1, rounds + 1)],
                "items": False,
                "minItems": rounds,
                "maxItems": rounds,
            }
        },
        "required": ["rounds"],
        "additionalProperties": False,
    }


@dataclass
class RoundLabels:
    """The judge's labels for one round."""

    round: int
    core: dict[str, bool]
    aux: dict[str, list[str]] = field(default_factory=dict)

    def flat(self) -> dict[str, bool]:
        """Every label and tag as one boolean, plus per-agent tags (``<tag>:agent_a``)."""
        out = dict(self.core)
        for key, agents in self.aux.items():
            out[key] = bool(agents)
            for a in AGENT_NAMES:
                out[f"{key}:{a}"] = a in agents
        return out


def parse_verdict(text: str, rounds: int) -> list[RoundLabels]:
    """Validate a verdict; `ActionError` says exactly what to fix."""
    from accord.core.json_reply import extract_json_object

    obj, _ = extract_json_object(text)
    rows = obj.get("rounds")
    if not isinstance(rows, list):
        raise ActionError('the reply needs a "rounds" list')
    numbers = [r.get("round_number") for r in rows if isinstance(r, dict)]
    if sorted(n for n in numbers if isinstance(n, int)) != list(range(1, rounds + 1)):
        raise ActionError(f"give exactly one entry for each round 1..{rounds}; got {numbers}")
    out = []
    for row in sorted(rows, key=lambda r: r["round_number"]):
        core = row.get("core_labels")
        aux = row.get("auxiliary_tags")
        if not isinstance(core, dict) or set(core) != set(CORE_KEYS):
            raise ActionError(f"round {row['round_number']}: core_labels needs exactly {CORE_KEYS}")
        if any(not isinstance(v, bool) for v in core.values()):
            raise ActionError(f"round {row['round_number']}: core labels must be true or false")
        if not isinstance(aux, dict) or set(aux) != set(AUX_KEYS):
            raise ActionError(f"round {row['round_number']}: auxiliary_tags needs {AUX_KEYS}")
        tags: dict[str, list[str]] = {}
        for key, tag in aux.items():
            present, agents = tag.get("present"), tag.get("agents")
            if not isinstance(present, bool) or not isinstance(agents, list):
                raise ActionError(f"round {row['round_number']}: {key} needs present and agents")
            if any(a not in AGENT_NAMES for a in agents):
                raise ActionError(f"{key}: agents must be among {AGENT_NAMES}")
            if present != bool(agents):
                raise ActionError(
                    f"round {row['round_number']}: {key} is present exactly when its agent "
                    "list is non-empty"
                )
            tags[key] = sorted(set(agents))
        out.append(RoundLabels(round=row["round_number"], core=dict(core), aux=tags))
    return out


@dataclass
class Judged:
    """The labels of one game, or why it has none."""

    labels: list[RoundLabels]
    reason: str | None = None


async def judge_game(client: ModelClient, trace: Trace, *, seed: int = 0) -> Judged:
    """Label every round of one negotiation trace; when no labels come back, `reason` says
    why (not a negotiation trace, no rounds, the model call failed, or every verdict was
    invalid, with the last validation error)."""
    rounds = len(trace.final_state.get("rounds", []))
    if trace.game_id not in TRACE_GAME_IDS:
        return Judged([], f"not a negotiation trace ({trace.game_id})")
    if rounds == 0:
        return Judged([], "the trace has no resolved rounds")
    holder: dict[str, Any] = {}

    def parse(text: str) -> Action:
        try:
            holder["labels"] = parse_verdict(text, rounds)
        except ActionError as exc:
            holder["error"] = str(exc)
            raise
        return {"ok": True}

    spec = ActionSpec(
        kind="judge",
        parse=parse,
        schema=verdict_schema(rounds),
        fallback=lambda: {"ok": False},
        format_hint="Reply with the JSON verdict only.",
    )
    agent = LLMAgent(client, temperature=0.0, seed=seed, session=f"judge/{trace.trace_id}")
    request = Request(seat=0, observation=transcript(trace), spec=spec, system=system_prompt())
    try:
        result = await agent.act(request)
    except Exception as exc:  # any provider failure becomes the stated reason
        return Judged([], f"the judge model could not be reached: {type(exc).__name__}: {exc}")
    if result.get("ok"):
        return Judged(holder["labels"])
    last = holder.get("error", "no parsable reply")
    return Judged([], f"no valid verdict after retries (last error: {last})")


async def judge_trace(client: ModelClient, trace: Trace, *, seed: int = 0) -> list[RoundLabels]:
    """Labels of every round of one trace; empty when `judge_game` gives a reason."""
    return (await judge_game(client, trace, seed=seed)).labels


def merge(general: list[dict[str, Any]], specialist: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """App. G.2: the general judge's rows with `SPECIALIST_KEYS` (and their per-agent
    columns) taken from the specialist judge where it labelled the same round; rows the
    specialist did not label keep the general judge's values (``specialist: false``)."""
    by_key = {(r["trace_id"], r["round"]): r for r in specialist}
    out = []
    for row in general:
        other = by_key.get((row["trace_id"], row["round"]))
        merged = dict(row, specialist=other is not None)
        if other is not None:
            for key, value in other.items():
                if key.split(":")[0] in SPECIALIST_KEYS:
                    merged[key] = value
        out.append(merged)
    return out


def verdict_rows(trace: Trace, labels: list[RoundLabels]) -> list[dict[str, Any]]:
    """One row per judged round, with the round's outcome class for prevalence tables."""
    recs = {r["round"]: r for r in trace.final_state.get("rounds", [])}
    rows = []
    for lab in labels:
        rec = recs.get(lab.round, {})
        outcome = (
            "overdrawn"
            if rec.get("annulled")
            else ("optimal" if rec.get("optimal") else "suboptimal")
        )
        rows.append(
            {"trace_id": trace.trace_id, "round": lab.round, "outcome": outcome, **lab.flat()}
        )
    return rows
