"""The mutable world of one calendar game: live calendars, inboxes, what happened so far
(CalBench §3, App. A.1 "Private label hydration", App. A.6 `final_state`).

`World` owns the state the engine's phases change and the per-seat views of it (renders with
the seat's own labels only); the engine owns the flow and the events.
"""

from __future__ import annotations

from typing import Any

from accord.games.calendar import prompts, rules
from accord.games.calendar.labels import VisibleLabels, visible_labels
from accord.games.calendar.record import (
    BatchPhase,
    MessageRecord,
    MoveRecord,
    RoundRecord,
    move_records,
    summarize_state,
)
from accord.games.calendar.rules import Batch, Calendar
from accord.games.calendar.scenario import Meeting, Scenario


class World:
    """Calendars and records of one game."""

    def __init__(self, scenario: Scenario) -> None:
        n = scenario.num_agents
        self.scenario = scenario
        self.calendars: list[Calendar] = list(rules.initial_calendars(scenario))
        self.labels: list[VisibleLabels] = [visible_labels(scenario, a) for a in range(n)]
        self.inbox: list[list[MessageRecord]] = [[] for _ in range(n)]
        self.notices: list[list[str]] = [[] for _ in range(n)]
        """Short harness notes put before a seat's next observation (outcomes, cap notices)."""
        self.sent = [0] * n
        self.shown_penalty = [0] * n
        """Cost each agent has paid so far, in the units it is shown (App. A.3 round start)."""
        self.scheduled: dict[int, int] = {}
        """Meetings whose round succeeded -> slot."""
        self.messages: list[MessageRecord] = []
        self.moves: list[MoveRecord] = []
        self.rounds: list[RoundRecord] = []
        self.reflections: list[dict[str, Any]] = []
        """Answers to the F.3 measurement prompt (`privacy.ReflectionRound`), when enabled."""

    def render(self, seat: int) -> str:
        """`seat`'s calendar as shown to it (its own labels only)."""
        return prompts.render_calendar(self.calendars[seat], self.scenario, self.labels[seat])

    def meeting_text(self, seat: int, meeting: Meeting) -> str:
        """`meeting` as shown to `seat` (the private context only for participants)."""
        return prompts.describe_meeting(meeting, self.labels[seat])

    def drain(self, seat: int) -> list[MessageRecord]:
        """Empty `seat`'s inbox and return what was in it."""
        inbox, self.inbox[seat] = self.inbox[seat], []
        return inbox

    def deliver(self, record: MessageRecord) -> None:
        """Record a delivered message and put it in its recipients' inboxes."""
        self.messages.append(record)
        self.sent[record.sender] += 1
        for r in record.recipients:
            self.inbox[r].append(record)

    def commit(
        self, round_no: int, phase: BatchPhase, seat: int, batch: Batch, applied: rules.Applied
    ) -> list[MoveRecord]:
        """Make `applied` the seat's calendar and charge every move (§3 "Costs")."""
        before, self.calendars[seat] = self.calendars[seat], applied.calendar
        records = move_records(round_no, phase, seat, before, batch)
        for rec in records:
            self.moves.append(rec)
            if rec.cost > 0:
                self.shown_penalty[seat] += self.scenario.shown_cost(rec.cost)
        return records

    def earlier_meetings(self) -> list[Meeting]:
        """Meetings scheduled in earlier rounds."""
        return [self.scenario.meeting(m) for m in self.scheduled]

    def final_schedule(self) -> dict[int, int]:
        """Meetings that succeeded and are still at one common slot now."""
        out: dict[int, int] = {}
        for meeting in self.earlier_meetings():
            slot = rules.consistent_slot(self.calendars, meeting)
            if slot is not None:
                out[meeting.id] = slot
        return out

    def final_state(self) -> dict[str, Any]:
        """`final_state` of the trace."""
        state = summarize_state(
            self.scenario.task_id,
            self.final_schedule(),
            self.rounds,
            self.messages,
            self.moves,
            self.calendars,
        )
        return state | {"reflections": self.reflections}
