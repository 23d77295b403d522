"""The calendar replay view (`accord.core.replay`): every agent's calendar at every step.

One row per agent, one column per slot: each agent's private entries with the cost that agent
is shown (CalBench §3 "Costs"), meetings as they are placed and moved, the current meeting and
round, and the messages of the round beside it. The oracle's optimal schedule (CalBench §4,
the exact optimum over every assignment) is an overlay to compare against.

The calendars are rebuilt from the scenario and the trace's ``batch_applied`` events with the
game's own rules (`rules.apply_batch`), so what the view shows is what the engine committed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from accord.core.replay import Frame, Replay, Tone, cell, facts, grid, messages
from accord.games.calendar import rules
from accord.games.calendar.scenario import Scenario, display_cost

if TYPE_CHECKING:
    from accord.core.spec import Request
    from accord.traces.schema import Trace

MESSAGE_TYPES = ("dm_sent", "message")


def _batch(actions: list[dict[str, Any]]) -> list[rules.Place | rules.Move]:
    out: list[rules.Place | rules.Move] = []
    for a in actions:
        if a.get("type") == "schedule":
            out.append(rules.Place(meeting_id=int(a["meeting_id"]), slot=a["slot"]))
        elif a.get("type") == "reschedule":
            out.append(rules.Move(int(a["item_id"]), a["from_slot"], a["to_slot"]))
    return out


class _State:
    """What the view knows after each event."""

    def __init__(self, trace: Trace) -> None:
        self.scenario = Scenario.model_validate(trace.scenario)
        self.calendars = list(rules.initial_calendars(self.scenario))
        self.names = [s.name for s in trace.seats] or [
            f"agent{i}" for i in range(self.scenario.num_agents)
        ]
        oracle = trace.scenario.get("oracle")
        self.oracle: dict[str, Any] = oracle if isinstance(oracle, dict) else {}
        optimal = self.oracle.get("optimal_assignment")
        self.optimal = {int(k): int(v) for k, v in (optimal or {}).items()}
        self.round = 0
        self.meeting: Any = None
        self.phase = ""
        self.cost = [0] * len(self.calendars)
        self.outcome = ""
        self.scheduled: dict[int, int] = {}
        self.talk: list[Mapping[str, Any]] = []
        self.moved: set[tuple[int, object]] = set()

    def apply(self, ev: Mapping[str, Any]) -> None:
        kind = ev.get("type")
        self.moved = set()
        if kind == "round_start":
            self.round = int(ev.get("round", self.round))
            self.meeting = self.scenario.meeting(int(ev["meeting"]["id"]))
            self.phase, self.outcome, self.talk = "CHEAP_TALK", "", []
        elif kind in ("turn_start", "decide_start", "turn_end", "decide_end"):
            self.phase = str(ev.get("phase", self.phase))
        elif kind == "batch_applied":
            seat = int(ev["agent"])
            batch = _batch(ev.get("actions", []))
            meeting = self.meeting if any(isinstance(a, rules.Place) for a in batch) else None
            applied = rules.apply_batch(self.calendars[seat], batch, meeting)
            self.calendars[seat] = applied.calendar
            self.cost[seat] += int(ev.get("cost", applied.cost))
            self.moved = {(seat, a.to_slot) for a in batch if isinstance(a, rules.Move)}
            self.moved |= {(seat, a.slot) for a in batch if isinstance(a, rules.Place)}
        elif kind in MESSAGE_TYPES and "content" in ev:
            self.talk.append(ev)
        elif kind == "resolution":
            self.phase = "RESOLUTION"
            if ev.get("success"):
                self.scheduled[int(ev["meeting_id"])] = int(ev["slot"])
                self.outcome = f"M{ev['meeting_id']} scheduled at slot {ev['slot']}"
            else:
                why = ev.get("reason") or "no common slot"
                rolled = " (batches rolled back)" if ev.get("rolled_back") else ""
                self.outcome = f"M{ev['meeting_id']} failed: {why}{rolled}"
        elif kind == "game_end":
            self.phase = "END"

    def row(self, seat: int) -> list[dict[str, Any]]:
        labels = {e.id: e for e in (x for x in self.scenario.calendars[seat] if x is not None)}
        overlay = {
            slot: f"M{mid}"
            for mid, slot in self.optimal.items()
            if seat in self.scenario.meeting(mid).participants
        }
        cells = []
        for slot, item in enumerate(self.calendars[seat]):
            over = overlay.get(slot)
            if item is None:
                cells.append(cell("", "free", "free", over))
                continue
            shown = self.scenario.shown_cost(item.cost)
            tone: Tone
            if item.kind == "meeting":
                meeting = self.scenario.meeting(item.id)
                current = self.meeting is not None and item.id == self.meeting.id
                tone = "current" if current else "meeting"
                note = f"meeting M{item.id} with {list(meeting.participants)}, cost {shown}: "
                text, note = f"M{item.id} ·{shown}", note + meeting.label.text
            else:
                errand = labels.get(item.id)
                tone = "blocked" if item.blocked else "busy"
                text = f"#{item.id} ·{shown}"
                note = ("blocked " if item.blocked else "") + f"errand #{item.id}, cost {shown}"
                if errand is not None:
                    note += f": {errand.label.text}"
            if (seat, slot) in self.moved:
                tone = "moved"
            cells.append(cell(text, tone, note, over))
        return cells

    def frame(self) -> Frame:
        m = self.meeting
        title = "Before the first round"
        if m is not None:
            title = (
                f"Round {self.round} · meeting M{m.id} for {list(m.participants)} · {self.phase}"
            )
        slots = [str(s) for s in range(self.scenario.num_slots)]
        rows = [
            (f"{self.names[a]} (moves cost {self.cost[a]})", self.row(a))
            for a in range(len(self.calendars))
        ]
        best = self.optimal.get(m.id) if m is not None else None
        info: list[Any] = [
            ("round", f"{self.round} of {self.scenario.num_meetings}"),
            ("meeting", "–" if m is None else f"M{m.id} {list(m.participants)}: {m.label.text}"),
            ("phase", self.phase or "–"),
            ("oracle slot", "–" if best is None else best),
            (
                "scheduled",
                ", ".join(f"M{k}@{v}" for k, v in sorted(self.scheduled.items())) or "none",
            ),
            ("moves cost so far", sum(self.cost)),
            ("oracle's optimal cost", self.oracle.get("optimal_cost", "–")),
        ]
        if self.outcome:
            info.append(("result", self.outcome, "bad" if "failed" in self.outcome else "good"))
        talk = [
            {
                "from": self.names[int(e["sender"])],
                "to": ", ".join(self.names[int(r)] for r in e.get("recipients", [])) or None,
                "text": str(e["content"]),
                "current": False,
                "channel": e.get("channel"),
            }
            for e in self.talk
        ]
        return {
            "title": title,
            "panels": [
                grid("Calendars as each agent sees them (slot → entry ·cost)", slots, rows),
                facts("Round", info),
                messages(f"Messages of round {self.round}", talk),
            ],
        }


def replay(trace: Trace) -> Replay:
    """The calendar replay of `trace`: one step per event."""
    state = _State(trace)
    out = Replay()
    for ev in trace.events:
        state.apply(ev)
        frame = state.frame()
        if ev.get("type") in MESSAGE_TYPES and state.talk and state.talk[-1] is ev:
            frame["panels"][2]["items"][-1]["current"] = True
        out.add(frame, state.round, _label(ev, state.names))
    return out


def _label(ev: Mapping[str, Any], names: list[str]) -> str:
    who = ev.get("agent", ev.get("sender"))
    name = names[who] if isinstance(who, int) and 0 <= who < len(names) else None
    return f"{ev.get('type', '?')}" + (f" · {name}" if name else "")


def seat_frame(request: Request) -> Frame | None:
    """What a person at `request.seat` sees above their controls: their own calendar as the
    prompt shows it (entries and costs, CalBench §3), the current meeting and the phase. Built
    from the seat's own request only (never the oracle's slots it also carries)."""
    info = request.info
    if info.get("phase") == "REFLECTION" or "calendar" not in info:
        return None
    meeting = info["meeting"]
    log = info.get("cost_display") == "log10"
    cells = []
    for item in info["calendar"]:
        if item is None:
            cells.append(cell("", "free", "free"))
            continue
        cost = display_cost(int(item["cost"])) if log else int(item["cost"])
        if item["kind"] == "meeting":
            tone: Tone = "current" if item["id"] == meeting["id"] else "meeting"
            cells.append(cell(f"M{item['id']} ·{cost}", tone, f"meeting M{item['id']}"))
        else:
            tone = "blocked" if item.get("blocked") else "busy"
            what = ("blocked " if item.get("blocked") else "") + f"errand #{item['id']}"
            cells.append(cell(f"#{item['id']} ·{cost}", tone, f"{what}, cost {cost}"))
    slots = [str(s) for s in range(int(info["num_slots"]))]
    return {
        "title": f"Round {info['round']} · meeting M{meeting['id']} · {info['phase']}",
        "panels": [
            grid("Your calendar (slot → entry ·cost)", slots, [("you", cells)]),
            facts(
                "Now",
                [
                    ("meeting", f"M{meeting['id']} for agents {list(meeting['participants'])}"),
                    ("you take part", "yes" if info.get("is_participant") else "no"),
                    ("phase", info["phase"]),
                ],
            ),
        ],
    }
