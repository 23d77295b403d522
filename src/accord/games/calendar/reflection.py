"""The F.3 reflection phase of the calendar game (CalBench App. F.3): after a round, every seat
is asked how the round changed its belief about each other seat's slots.

The answers are measurements only (reflection-calibrated VPS, `vps.py`): the requests are
`ephemeral` (an LLM seat never keeps the exchange in its history), nobody else sees them and
they change nothing in the game. The question is the ``reflection`` template
(`prompts.reflection_prompt`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from accord.core.errors import ActionError
from accord.core.prompts import PromptSet
from accord.core.provenance import format_warnings
from accord.core.spec import Action, ActionSpec, JSONSchema, Request
from accord.games.calendar import prompts, vps
from accord.games.calendar.actions import extract_object
from accord.games.calendar.tools_mode import tools_wording

if TYPE_CHECKING:
    from accord.games.calendar.state import World


class ReflectionRound:
    """The measurement prompts after one round: one request per seat, all pending together
    (`pending`), each `ephemeral` (an LLM seat never keeps the exchange in its history), each
    answer recorded in ``World.reflections`` and as a ``reflection`` event. Reference agents
    answer without ``deltas`` and so abstain."""

    def __init__(
        self,
        world: World,
        round_no: int,
        order: Sequence[int],
        systems: Sequence[str],
        guard: Callable[[int, str], str],
        emit: Callable[..., None],
        templates: PromptSet | None = None,
        tools_systems: Sequence[str] | None = None,
    ) -> None:
        self.world, self.round, self.emit = world, round_no, emit
        sc = self.scenario = world.scenario
        meeting = sc.meetings[round_no - 1]
        self.pending: dict[int, Request] = {}
        for seat in range(sc.num_agents):
            targets = self._targets(seat)
            text = guard(
                seat, prompts.reflection_prompt(round_no, targets, sc.num_slots, templates)
            )
            info = {
                "phase": "REFLECTION",
                "round": round_no,
                "turn": 0,
                "meeting": {"id": meeting.id, "participants": list(meeting.participants)},
                "speaker_order": list(order),
                "is_participant": seat in meeting.participants,
                "num_agents": sc.num_agents,
                "num_slots": sc.num_slots,
                "targets": targets,
            }
            self.pending[seat] = Request(
                seat=seat,
                observation=text,
                spec=reflection_spec(targets, sc.num_slots),
                system=systems[seat],
                tools_system=tools_systems[seat] if tools_systems else None,
                tools_observation=tools_wording(text),
                ephemeral=True,
                info=info,
                round=round_no,
            )
            emit("reflection_start", round=round_no, agent=seat, prompt=text)

    def _targets(self, seat: int) -> list[int]:
        return [a for a in range(self.scenario.num_agents) if a != seat]

    def accept(self, seat: int, action: Action, *, fallback: bool = False) -> bool:
        """Record `seat`'s answer (raises `ActionError` if invalid); True once all answered."""
        targets = self._targets(seat)
        entry = reflection_entry(
            action, self.round, seat, targets, self.scenario.num_slots, fallback=fallback
        )
        del self.pending[seat]
        self.world.reflections.append(entry)
        self.emit("reflection", **entry)
        return not self.pending


def reflection_schema(targets: Sequence[int], num_slots: int) -> JSONSchema:
    """JSON schema of a reflection reply (for constrained decoding)."""
    vector: JSONSchema = {
        "type": "array",
        "items": {"type": "integer", "minimum": -vps.REFLECTION_MAX, "maximum": vps.REFLECTION_MAX},
        "minItems": num_slots,
        "maxItems": num_slots,
    }
    keys = [str(t) for t in targets]
    deltas: JSONSchema = {
        "type": "object",
        "properties": {k: vector for k in keys},
        "required": keys,
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"thinking": {"type": "string", "maxLength": 400}, "deltas": deltas},
        "required": ["thinking", "deltas"],
        "additionalProperties": False,
    }


def check_deltas(raw: object, targets: Sequence[int], num_slots: int) -> dict[str, list[int]]:
    """Validated deltas (keys are target ids as strings); `ActionError` says what is wrong."""
    if not isinstance(raw, dict):
        raise ActionError('"deltas" must be an object mapping each agent id to a list of integers')
    want = {str(t) for t in targets}
    extra = sorted(set(map(str, raw)) - want)
    missing = sorted(want - set(map(str, raw)), key=int)
    if extra or missing:
        raise ActionError(
            f'"deltas" must have exactly the keys {sorted(want, key=int)}; missing {missing}, '
            f"unexpected {extra}"
        )
    out: dict[str, list[int]] = {}
    for key, values in raw.items():
        ok = isinstance(values, list) and len(values) == num_slots
        if not ok or not all(
            isinstance(v, int) and not isinstance(v, bool) and abs(v) <= vps.REFLECTION_MAX
            for v in values
        ):
            raise ActionError(
                f'"deltas"["{key}"] must be a list of exactly {num_slots} integers from '
                f"-{vps.REFLECTION_MAX} to {vps.REFLECTION_MAX}"
            )
        out[str(key)] = list(values)
    return out


def reflection_spec(targets: Sequence[int], num_slots: int) -> ActionSpec:
    """Parser, schema and fallback of a reflection request. The fallback, and any built action
    without ``deltas`` (a reference agent), is an abstention: no reflection is recorded."""

    def parse(text: str) -> Action:
        obj, warnings = extract_object(text)
        if "deltas" not in obj:
            raise ActionError(
                'the reply has no "deltas" object; reply with {"thinking": "...", "deltas": {...}}'
            )
        deltas = check_deltas(obj["deltas"], targets, num_slots)
        format_warnings(warnings)
        return {"thinking": str(obj.get("thinking", "")), "deltas": deltas}

    return ActionSpec(
        kind="reflect",
        parse=parse,
        schema=reflection_schema(targets, num_slots),
        fallback=lambda: {"thinking": "", "deltas": {}},
        format_hint='Reply with one JSON object: {"thinking": "...", "deltas": {...}}.',
    )


def reflection_entry(
    action: Action,
    round_no: int,
    seat: int,
    targets: Sequence[int],
    num_slots: int,
    *,
    fallback: bool = False,
) -> dict[str, Any]:
    """What the game records for one answered reflection request (raises `ActionError`)."""
    raw = action.get("deltas") or {}
    deltas = check_deltas(raw, targets, num_slots) if raw else {}
    return {
        "round": round_no,
        "observer": seat,
        "deltas": deltas,
        "abstained": not deltas,
        "fallback": fallback,
    }
