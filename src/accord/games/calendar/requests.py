"""Requests of the calendar game: the action spec and the structured `info` of each request
(CalBench App. A.3 message sequence; App. A.5 reply format), and `CalendarRequests._issue`, which
publishes one.

An LLM seat reads the observation text and answers through `ActionSpec.parse`; a reference
agent reads `info`. `info` holds only what the seat may know (its own calendar, its inbox, the
meeting, the phase), with one documented exception: ``oracle_slots``, the oracle's slot for each
meeting of this seat, so that the scripted oracle follower can serve as a test driver. It never
reaches a prompt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from accord.core.game import Game
from accord.core.spec import ActionSpec, Request
from accord.core.tools import tools_from_schema
from accord.games.calendar import actions, rules
from accord.games.calendar.actions import ParseContext, Phase
from accord.games.calendar.record import MessageRecord
from accord.games.calendar.rules import Calendar
from accord.games.calendar.scenario import Meeting, Scenario
from accord.games.calendar.tools_mode import tools_wording

if TYPE_CHECKING:
    from accord.games.calendar.config import CalendarConfig
    from accord.games.calendar.prompts import PrivacyGuard
    from accord.games.calendar.state import World
    from accord.games.calendar.talk import CheapTalk

SPEC_KINDS = {"CHEAP_TALK": "talk", "VOLUNTARY": "voluntary", "DECISION": "decide"}
"""`ActionSpec.kind` per phase."""


def parse_context(
    seat: int, phase: Phase, scenario: Scenario, meeting: Meeting, message_types: Sequence[str]
) -> ParseContext:
    """What a request of `seat` in `phase` accepts."""
    return ParseContext(
        seat=seat,
        phase=phase,
        num_agents=scenario.num_agents,
        num_slots=scenario.num_slots,
        meeting_id=meeting.id,
        is_participant=seat in meeting.participants,
        message_types=tuple(message_types),
    )


def action_spec(ctx: ParseContext, calendar: Calendar) -> ActionSpec:
    """Parser, schema and fallback for one request; the schema names the seat's movable ids."""
    movable = [item.id for item in calendar if item is not None and not item.blocked]
    schema = actions.envelope_schema(ctx, movable)
    kind = SPEC_KINDS[ctx.phase]
    return ActionSpec(
        kind=kind,
        parse=lambda text: actions.parse_reply(text, ctx),
        schema=schema,
        fallback=actions.pass_turn,
        format_hint=actions.FORMAT_HINT,
        tools=tools_from_schema(kind, schema, TOOL_DESCRIPTIONS),
    )


TOOL_DESCRIPTIONS = {
    "dm": "Send a private message to one agent (cheap talk only).",
    "participant_groupchat": "Send a message to every participant of the current meeting "
    "(cheap talk only).",
    "all_groupchat": "Send a message to every agent (cheap talk only).",
    "schedule": "Write the current meeting into one slot of your calendar (decision phase "
    "only; exactly one per decision).",
    "reschedule": "Move one of your calendar entries (an errand or an earlier meeting) from "
    "from_slot to to_slot, with a short justification of why your user's entry has to move "
    "(CalBench §3); to_slot must be free or emptied by another reschedule of the same batch.",
}
"""What each calendar action does, as its tool's description in tools mode (the wording of the
system prompt's tool list, CalBench App. A.2); json mode is unchanged."""


def seat_info(
    ctx: ParseContext,
    *,
    scenario: Scenario,
    meeting: Meeting,
    round_no: int,
    turn: int,
    max_turns: int | None,
    speaker_order: Sequence[int],
    calendar: Calendar,
    inbox: Sequence[MessageRecord],
    attempt: int,
    conflict: str,
    oracle_slots: Mapping[int, int],
) -> dict[str, Any]:
    """Structured facts for reference agents (see the module docstring)."""
    return {
        "phase": ctx.phase,
        "round": round_no,
        "turn": turn,
        "max_turns": max_turns,
        "meeting": {"id": meeting.id, "participants": list(meeting.participants)},
        "speaker_order": list(speaker_order),
        "is_participant": ctx.is_participant,
        "calendar": [rules.render_fields(i) for i in calendar],
        "inbox": [m.model_dump() for m in inbox],
        "num_agents": ctx.num_agents,
        "num_slots": ctx.num_slots,
        "cost_display": scenario.cost_display,
        "message_types": list(ctx.message_types),
        "attempt": attempt,
        "conflict": conflict,
        "oracle_slots": {
            m.id: oracle_slots[m.id]
            for m in scenario.meetings
            if ctx.seat in m.participants and m.id in oracle_slots
        },
    }


def build_request(
    ctx: ParseContext,
    *,
    observation: str,
    system: str,
    calendar: Calendar,
    info: dict[str, Any],
    round_no: int,
    turn: int,
    tools_system: str | None = None,
) -> Request:
    """The `Request` for one seat (with its tools-mode wording, `prompts.tools_wording`)."""
    return Request(
        seat=ctx.seat,
        observation=observation,
        spec=action_spec(ctx, calendar),
        system=system,
        info=info,
        round=round_no,
        turn=turn,
        tools_system=tools_system,
        tools_observation=tools_wording(observation),
    )


class CalendarRequests(Game):
    """The request publishing of `CalendarGame` (engine.py), over the state its phases keep."""

    config: CalendarConfig
    _scenario: Scenario
    _world: World
    _guard: PrivacyGuard
    """Checks every scaffold text against the labels the seat must not see (App. A.1)."""
    _types: tuple[str, ...]
    """The message types of the game's channel condition."""
    _oracle_slots: dict[int, int]
    _system: list[str]
    _tools_system: list[str]
    """Each seat's system prompt in tools mode (`prompts.tools_sections`)."""
    _round: int
    _meeting: Meeting
    _talk: CheapTalk
    _requests: dict[int, Request]
    """The pending requests by seat."""
    _ctx: dict[int, ParseContext]
    """What each pending request accepts."""
    _attempts: dict[int, int]
    """Rejected batches per seat this round."""

    @property
    def _turn(self) -> int:
        return self._talk.turn

    def _issue(
        self,
        seat: int,
        phase: Phase,
        body: str,
        inbox: list[MessageRecord],
        event: str,
        conflict: str = "",
    ) -> None:
        """Publish `seat`'s next request and record that it was sent (turn_start/decide_start).

        Only the scaffold text passes the privacy guard; message bodies are the agents' own."""
        notices, self._world.notices[seat] = self._world.notices[seat], []
        scaffold = "\n\n".join([*notices, body])
        for m in inbox:
            scaffold = scaffold.replace(m.content, "")
        self._guard.check(seat, scaffold)
        observation = "\n\n".join([*notices, body])
        ctx = parse_context(seat, phase, self._scenario, self._meeting, self._types)
        self._ctx[seat] = ctx
        attempt = self._attempts.get(seat, 0) + 1
        info = seat_info(
            ctx,
            scenario=self._scenario,
            meeting=self._meeting,
            round_no=self._round,
            turn=self._turn,
            max_turns=self.config.max_turns_per_round,
            speaker_order=self._talk.order,
            calendar=self._world.calendars[seat],
            inbox=inbox,
            attempt=attempt,
            conflict=conflict,
            oracle_slots=self._oracle_slots,
        )
        self._requests[seat] = build_request(
            ctx,
            observation=observation,
            system=self._system[seat],
            tools_system=self._tools_system[seat],
            calendar=self._world.calendars[seat],
            info=info,
            round_no=self._round,
            turn=self._turn,
        )
        fields: dict[str, Any] = {
            "round": self._round,
            "phase": phase,
            "agent": seat,
            "prompt": observation,
        }
        if event == "turn_start":
            fields |= {"turn": self._turn, "inbox": [m.model_dump() for m in inbox]}
        else:
            fields |= {"calendar": self._world.render(seat), "attempt": attempt}
        self.emit(event, **fields)
