"""The calendar game `calendar-v1` (CalBench §3 "Communication protocols", "Round structure",
App. A.3-A.5, Algorithm 1).

N agents each hold a private calendar; M meetings arrive one per round. A round runs four
phases, as Algorithm 1:

1. CHEAP_TALK: sweeps t = 0, 1, ... Each sweep, the participants speak in speaker order (the
   round-start message at t = 0, a turn message with their drained inbox after), then the
   non-participants queued in that sweep. A dm or all-agent group chat message activates and
   queues a non-participant (one that already spoke this sweep is queued for the next);
   participant group chat reaches participants only. Talk ends after a sweep in which nobody
   sent a message, or after `max_turns_per_round` sweeps.
2. VOLUNTARY: every activated non-participant may submit reschedules (no schedule); a valid
   batch is applied at once.
3. DECISION: every participant submits a batch against a snapshot of its calendar; rejected
   batches are retried up to `decision_retries` times, valid ones are staged.
4. RESOLUTION: staged batches are committed together; the meeting succeeds if every
   participant wrote it to the same slot and every earlier meeting is still at one common slot
   on all its participants' calendars. Otherwise the DECISION commit is undone (so a failed
   meeting costs nothing, §4.2) and the game moves on.

Requests of VOLUNTARY and DECISION are pending together (simultaneous moves); CHEAP_TALK is
sequential. Every event of App. A.6 Table 5 is emitted, plus messages, resolutions and
consistency violations. See `docs/calendar.md` for every modelling choice.
"""

from __future__ import annotations

from typing import Any, ClassVar

from accord.core.errors import ActionError
from accord.core.game import Game, GameResult
from accord.core.rng import make_rng
from accord.core.spec import Action, ActionSpec, Request
from accord.games.calendar import actions, prompts, rules
from accord.games.calendar.actions import ParseContext, Phase
from accord.games.calendar.config import CHANNEL_TYPES, CalendarConfig
from accord.games.calendar.labels import VisibleLabels, visible_labels
from accord.games.calendar.metrics import game_metrics
from accord.games.calendar.oracle import greedy_schedule, optimal_schedule
from accord.games.calendar.record import MessageRecord, MoveRecord, RoundRecord
from accord.games.calendar.rules import Batch, Calendar
from accord.games.calendar.scenario import Meeting, Scenario

SWEEP_LIMIT = 200
"""Sweeps per round when `max_turns_per_round` is None (a guard, far above any real talk)."""


class CalendarGame(Game):
    """`calendar-v1`: see the module docstring."""

    game_id: ClassVar[str] = "calendar-v1"
    config_model: ClassVar[type[CalendarConfig]] = CalendarConfig
    config: CalendarConfig
    summary_metrics: ClassVar[list[tuple[str, str, bool]]] = [
        ("success_rate", "success", True),
        ("excess_cost", "excess", False),
        ("adjusted_excess", "adj. excess", False),
        ("messages_per_meeting", "msgs/mtg", False),
        ("fairness", "fairness", False),
    ]
    oracle_agent: ClassVar[str | None] = "oracle-follower"

    def __init__(self, config: CalendarConfig) -> None:
        super().__init__(config)
        self._seats = config.seats()
        self._phase = "done"

    # -- contract --------------------------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return self._seats

    def seat_label(self, seat: int) -> str:
        return f"agent{seat}"

    def reset(self, seed: int) -> None:
        cfg = self.config
        self._events, self._step, self._seed = [], 0, seed
        sc = self._scenario = cfg.scenario_for(seed)
        n = self._seats = sc.num_agents
        self._cal: list[Calendar] = list(rules.initial_calendars(sc))
        self._labels: list[VisibleLabels] = [visible_labels(sc, a) for a in range(n)]
        self._guard = prompts.PrivacyGuard(sc)
        self._types = CHANNEL_TYPES[cfg.channels]
        variant = prompts.load_variant(cfg.prompt_variant, cfg.prompt_variant_dir)
        self._variant_seats = (
            sorted({s for s in cfg.variant_seats if 0 <= s < n}) if variant else []
        )
        optimum = optimal_schedule(sc)
        self._oracle_slots = dict(optimum.slots) if optimum else {}
        self._inbox: list[list[MessageRecord]] = [[] for _ in range(n)]
        self._notices: list[list[str]] = [[] for _ in range(n)]
        self._sent = [0] * n
        self._shown_penalty = [0] * n
        self._scheduled: dict[int, int] = {}
        self._messages: list[MessageRecord] = []
        self._moves: list[MoveRecord] = []
        self._rounds: list[RoundRecord] = []
        self._requests: dict[int, Request] = {}
        self._ctx: dict[int, ParseContext] = {}
        self._system = [
            self._guard.check(
                a,
                prompts.system_prompt(
                    seat=a,
                    num_agents=n,
                    num_slots=sc.num_slots,
                    decision_retries=cfg.decision_retries,
                    message_types=self._types,
                    cost_display=sc.cost_display,
                    variant=variant if a in self._variant_seats else None,
                ),
            )
            for a in range(n)
        ]
        self.emit(
            "game_start",
            seed=seed,
            task_id=sc.task_id,
            num_agents=n,
            num_slots=sc.num_slots,
            num_meetings=sc.num_meetings,
            cost_setting=sc.cost_setting,
            channels=cfg.channels,
            optimal_cost=optimum.total_cost if optimum else None,
            greedy_cost=greedy_schedule(sc).schedule.total_cost,
            variant=None
            if variant is None
            else {"name": variant.name, "source": variant.source, "sha256": variant.sha256},
            nosy_agents=self._variant_seats,
        )
        for a in range(n):
            self.emit(
                "agent_registered",
                agent=a,
                system_prompt=self._system[a],
                calendar=self._render(a),
                is_nosy=a in self._variant_seats,
            )
        self._start_round(1)

    def pending(self) -> list[Request]:
        return [self._requests[s] for s in sorted(self._requests)]

    def submit(self, seat: int, action: Action) -> None:
        request = self._requests.get(seat)
        if request is None:
            raise ActionError(f"seat {seat} has no pending request", kind="out_of_turn")
        ctx = self._ctx[seat]
        calls = actions.check_action(action, ctx)
        thinking = str(action.get("thinking", ""))
        fallback = bool(action.get("_fallback"))
        del self._requests[seat]
        if ctx.phase == "CHEAP_TALK":
            self.emit(
                "turn_end",
                round=self._round,
                turn=self._turn,
                agent=seat,
                actions=calls,
                thinking=thinking,
                fallback=fallback,
            )
            self._route(seat, calls)
            self._next_speaker()
            return
        self.emit(
            "decide_end",
            round=self._round,
            phase=ctx.phase,
            agent=seat,
            actions=calls,
            thinking=thinking,
            fallback=fallback,
        )
        if ctx.phase == "DECISION" and fallback:
            self._auto_filled.append(seat)
            self.emit("decision_auto_filled", round=self._round, agent=seat, actions=[])
            self._staged[seat] = None
        else:
            self._check_batch(seat, ctx.phase, calls)
        if not self._requests:
            self._start_decision() if ctx.phase == "VOLUNTARY" else self._resolve()

    def done(self) -> bool:
        return self._phase == "done"

    def result(self) -> GameResult:
        sc = self._scenario
        final = self._final_schedule()
        gm = game_metrics(sc, final, self._moves, self._messages)
        final_state: dict[str, Any] = {
            "task_id": sc.task_id,
            "schedule": [{"meeting_id": m, "slot": s} for m, s in sorted(final.items())],
            "rounds": [r.model_dump() for r in self._rounds],
            "messages": [m.model_dump() for m in self._messages],
            "moves": [m.model_dump() for m in self._moves],
            "calendars": [[rules.render_fields(i) for i in cal] for cal in self._cal],
            "total_cost": sum(m.cost for m in self._moves),
            "rounds_succeeded": sum(r.success for r in self._rounds),
            "rounds_failed": sum(not r.success for r in self._rounds),
            "messages_sent": sum(m.delivered for m in self._messages),
            "consistency_violations": sum(len(r.inconsistent) for r in self._rounds),
        }
        return GameResult(final_state=final_state, metrics=gm.metrics, seat_rows=gm.seat_rows)

    def oracle_gap(self, result: GameResult) -> float | None:
        m = result.metrics
        missed = (m["num_meetings"] - m["meetings_scheduled"]) / max(1, m["num_meetings"])
        excess = max(0, m["total_cost"] - m["oracle_cost_scheduled"])
        return float(missed + excess / max(1, m["oracle_cost"]))

    def scenario(self) -> dict[str, Any]:
        return self._scenario.model_dump(mode="json")

    # -- rounds ----------------------------------------------------------------------------
    def _start_round(self, round_no: int) -> None:
        cfg = self.config
        self._round = round_no
        meeting = self._meeting = self._scenario.meetings[round_no - 1]
        order = list(meeting.participants)
        if cfg.speaker_order == "rotate":
            k = (round_no - 1) % len(order)
            order = order[k:] + order[:k]
        elif cfg.speaker_order == "random":
            make_rng(self._seed, "calendar", "speakers", round_no).shuffle(order)
        self._order = order
        self._activated: set[int] = set()
        self._introduced: set[int] = set()
        self._carry: list[int] = []
        self._staged: dict[int, tuple[Batch, list[dict[str, Any]]] | None] = {}
        self._attempts: dict[int, int] = {}
        self._auto_filled: list[int] = []
        self._rejected = 0
        self._round_cost = [0] * self._seats
        for box in self._inbox:
            box.clear()
        self.emit(
            "round_start",
            round=round_no,
            meeting={
                "id": meeting.id,
                "participants": list(meeting.participants),
                "cost": meeting.cost,
            },
            speaker_order=order,
        )
        self._phase = "CHEAP_TALK"
        self._start_sweep(0)

    def _start_sweep(self, turn: int) -> None:
        self._turn = turn
        self._sweep = [*self._order, *self._carry]
        self._carry, self._pos, self._activity, self._spoken = [], 0, False, set[int]()
        self._issue_talk()

    def _issue_talk(self) -> None:
        cfg, seat = self.config, self._sweep[self._pos]
        self._spoken.add(seat)
        inbox = self._drain(seat)
        budget = cfg.max_turns_per_round
        if seat in self._meeting.participants and self._turn == 0:
            body = prompts.round_start(
                round_no=self._round,
                meeting_text=self._meeting_text(seat),
                calendar_text=self._render(seat),
                penalty=self._shown_penalty[seat],
                turn=self._turn,
                max_turns=budget,
            )
        else:
            context = ""
            if seat not in self._meeting.participants and seat not in self._introduced:
                self._introduced.add(seat)
                context = prompts.outsider_context(self._meeting_text(seat), self._render(seat))
            body = prompts.turn_message(
                round_no=self._round,
                inbox=inbox,
                turn=self._turn,
                max_turns=budget,
                context=context,
            )
        self._issue(seat, "CHEAP_TALK", body, inbox, "turn_start")

    def _next_speaker(self) -> None:
        self._pos += 1
        if self._pos < len(self._sweep):
            self._issue_talk()
            return
        limit = self.config.max_turns_per_round or SWEEP_LIMIT
        if self._activity and self._turn + 1 < limit:
            self._start_sweep(self._turn + 1)
        else:
            self._start_voluntary()

    def _route(self, seat: int, calls: list[dict[str, Any]]) -> None:
        """Deliver messages (App. A.4 "Message routing") and queue activated outsiders."""
        meeting, cap = self._meeting, self.config.dm_cap
        for call in calls:
            channel = call["type"]
            if channel == "dm":
                recipients = [call["to"]]
            elif channel == "participant_groupchat":
                recipients = [a for a in meeting.participants if a != seat]
            else:
                recipients = [a for a in range(self._seats) if a != seat]
            delivered = cap is None or self._sent[seat] < cap
            record = MessageRecord(
                round=self._round,
                turn=self._turn,
                sender=seat,
                channel=channel,
                to=call.get("to"),
                recipients=recipients if delivered else [],
                meeting_id=meeting.id,
                content=call["content"],
                delivered=delivered,
            )
            self._messages.append(record)
            if not delivered:
                self.emit(
                    "message_dropped",
                    round=self._round,
                    agent=seat,
                    channel=channel,
                    reason=f"dm_cap of {cap} messages reached",
                )
                self._notices[seat].append(
                    f"Your message limit ({cap}) is used up; further messages are not delivered."
                )
                continue
            self._sent[seat] += 1
            self._activity = True
            fields = record.model_dump(exclude={"delivered", "round", "turn"})
            self.emit(
                "dm_sent" if channel == "dm" else "message",
                round=self._round,
                turn=self._turn,
                chars=len(record.content),
                **fields,
            )
            for r in recipients:
                self._inbox[r].append(record)
                if r not in meeting.participants and channel != "participant_groupchat":
                    self._activate(r)

    def _activate(self, seat: int) -> None:
        self._activated.add(seat)
        if seat in self._spoken:
            if seat not in self._carry:
                self._carry.append(seat)
        elif seat not in self._sweep[self._pos + 1 :]:
            self._sweep.append(seat)

    # -- VOLUNTARY and DECISION ------------------------------------------------------------
    def _start_voluntary(self) -> None:
        self._phase = "VOLUNTARY"
        if not self._activated:
            self._start_decision()
            return
        for seat in sorted(self._activated):
            inbox = self._drain(seat)
            body = prompts.voluntary_message(
                round_no=self._round,
                meeting_text=self._meeting_text(seat),
                calendar_text=self._render(seat),
                inbox=inbox,
            )
            self._issue(seat, "VOLUNTARY", body, inbox, "decide_start")

    def _start_decision(self) -> None:
        self._phase = "DECISION"
        for seat in self._meeting.participants:
            inbox = self._drain(seat)
            body = prompts.decision_message(
                round_no=self._round,
                meeting_id=self._meeting.id,
                meeting_text=self._meeting_text(seat),
                calendar_text=self._render(seat),
                inbox=inbox,
            )
            self._issue(seat, "DECISION", body, inbox, "decide_start")

    def _check_batch(self, seat: int, phase: Phase, calls: list[dict[str, Any]]) -> None:
        """Validate a batch (App. A.5); apply (VOLUNTARY) or stage (DECISION) it, or retry."""
        batch = actions.to_batch(calls)
        decision = phase == "DECISION"
        problem = rules.validate_batch(
            self._cal[seat], batch, meeting_id=self._meeting.id, require_schedule=decision
        )
        attempt = self._attempts.get(seat, 0)
        if problem is None:
            if decision:
                self._staged[seat] = (batch, calls)
                self.emit("batch_staged", round=self._round, agent=seat, actions=calls)
            elif batch:
                self._apply(seat, batch, "VOLUNTARY", calls)
            return
        self._rejected += 1
        self.emit(
            "batch_rejected",
            round=self._round,
            phase=phase,
            agent=seat,
            attempt=attempt + 1,
            conflict=problem,
            actions=calls,
        )
        if attempt < self.config.decision_retries:
            self._attempts[seat] = attempt + 1
            body = prompts.retry_message(
                round_no=self._round,
                attempt=attempt + 2,
                max_attempts=self.config.decision_retries + 1,
                conflict=problem,
            )
            self._issue(seat, phase, body, [], "decide_start", conflict=problem)
            return
        self.emit(
            "batch_discarded", round=self._round, phase=phase, agent=seat, attempts=attempt + 1
        )
        if decision:
            self._staged[seat] = None

    def _apply(self, seat: int, batch: Batch, phase: Phase, calls: list[dict[str, Any]]) -> None:
        meeting = self._meeting if phase == "DECISION" else None
        before = self._cal[seat]
        applied = rules.apply_batch(before, batch, meeting)
        self._cal[seat] = applied.calendar
        for move in (a for a in batch if isinstance(a, rules.Move)):
            # validate_batch has checked both slots, so they are ints and an item is there.
            assert isinstance(move.from_slot, int) and isinstance(move.to_slot, int)
            item = before[move.from_slot]
            assert item is not None
            self._moves.append(
                MoveRecord(
                    round=self._round,
                    phase=phase,
                    agent=seat,
                    kind=item.kind,
                    item_id=item.id,
                    from_slot=move.from_slot,
                    to_slot=move.to_slot,
                    cost=item.cost,
                    justification=move.justification,
                )
            )
            self._round_cost[seat] += item.cost
            self._shown_penalty[seat] += self._scenario.shown_cost(item.cost) if item.cost else 0
        self.emit(
            "batch_applied",
            round=self._round,
            phase=phase,
            agent=seat,
            actions=calls,
            cost=applied.cost,
            calendar=self._render(seat),
        )

    def _resolve(self) -> None:
        """RESOLUTION: commit the staged batches together, then check slot agreement and the
        consistency of every earlier meeting; undo the commit if the round failed."""
        meeting, parts = self._meeting, self._meeting.participants
        trial = list(self._cal)
        chosen: list[int | None] = []
        for seat in parts:
            staged = self._staged.get(seat)
            if staged is None:
                chosen.append(None)
                continue
            applied = rules.apply_batch(trial[seat], staged[0], meeting)
            trial[seat] = applied.calendar
            chosen.append(applied.slot)
        earlier = [self._scenario.meeting(m) for m in self._scheduled]
        broken = rules.inconsistent_meetings(trial, earlier)
        missing = [a for a, s in zip(parts, chosen, strict=True) if s is None]
        if missing:
            reason = f"agent(s) {missing} submitted no valid batch"
        elif len(set(chosen)) > 1:
            reason = "the participants scheduled it in different slots"
        elif broken:
            reason = f"earlier meeting(s) {[f'M{m}' for m in broken]} lost their common slot"
        else:
            reason = ""
        if not reason:
            for seat in parts:
                staged = self._staged[seat]
                assert staged is not None
                self._apply(seat, staged[0], "DECISION", staged[1])
            self._scheduled[meeting.id] = chosen[0]  # type: ignore[assignment]
        else:
            broken = rules.inconsistent_meetings(self._cal, earlier) or broken
        for mid, slots in broken.items():
            self.emit(
                "consistency_violation",
                round=self._round,
                meeting_id=mid,
                slots={str(a): s for a, s in slots.items()},
            )
        slot = None if reason else chosen[0]
        self.emit(
            "resolution",
            round=self._round,
            meeting_id=meeting.id,
            success=not reason,
            slot=slot,
            chosen=chosen,
            reason=reason,
            rolled_back=bool(reason),
        )
        for seat in parts:
            self._notices[seat].append(
                prompts.outcome_notice(self._round, meeting.id, slot, reason)
            )
        self._rounds.append(
            RoundRecord(
                round=self._round,
                meeting_id=meeting.id,
                participants=list(parts),
                speaker_order=self._order,
                sweeps=self._turn + 1,
                activated=sorted(self._activated),
                success=not reason,
                slot=slot,
                chosen=chosen,
                reason=reason,
                auto_filled=sorted(self._auto_filled),
                rejected_batches=self._rejected,
                inconsistent=sorted(broken),
                cost=self._round_cost,
            )
        )
        if self._round < self._scenario.num_meetings:
            self._start_round(self._round + 1)
        else:
            self._phase = "done"
            final = self._final_schedule()
            self.emit("game_end", scheduled=len(final), total_cost=sum(m.cost for m in self._moves))

    def _final_schedule(self) -> dict[int, int]:
        """Meetings that succeeded and are still at one common slot at the end."""
        out: dict[int, int] = {}
        for mid in self._scheduled:
            slot = rules.consistent_slot(self._cal, self._scenario.meeting(mid))
            if slot is not None:
                out[mid] = slot
        return out

    # -- requests --------------------------------------------------------------------------
    def _render(self, seat: int) -> str:
        return prompts.render_calendar(self._cal[seat], self._scenario, self._labels[seat])

    def _meeting_text(self, seat: int) -> str:
        return prompts.describe_meeting(self._meeting, self._labels[seat])

    def _drain(self, seat: int) -> list[MessageRecord]:
        inbox, self._inbox[seat] = self._inbox[seat], []
        return inbox

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
        notices, self._notices[seat] = self._notices[seat], []
        scaffold = "\n\n".join([*notices, body])
        for m in inbox:
            scaffold = scaffold.replace(m.content, "")
        self._guard.check(seat, scaffold)
        observation = "\n\n".join([*notices, body])
        ctx = ParseContext(
            seat=seat,
            phase=phase,
            num_agents=self._seats,
            num_slots=self._scenario.num_slots,
            meeting_id=self._meeting.id,
            is_participant=seat in self._meeting.participants,
            message_types=self._types,
        )
        ids = [i.id for i in self._cal[seat] if i is not None and not i.blocked]
        spec = ActionSpec(
            kind={"CHEAP_TALK": "talk", "VOLUNTARY": "voluntary", "DECISION": "decide"}[phase],
            parse=lambda text: actions.parse_reply(text, ctx),
            schema=actions.envelope_schema(ctx, ids),
            fallback=actions.pass_turn,
            format_hint=actions.FORMAT_HINT,
        )
        self._ctx[seat] = ctx
        self._requests[seat] = Request(
            seat=seat,
            observation=observation,
            spec=spec,
            system=self._system[seat],
            info=self._info(seat, phase, inbox, conflict),
            round=self._round,
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
            fields |= {"calendar": self._render(seat), "attempt": self._attempts.get(seat, 0) + 1}
        self.emit(event, **fields)

    def _info(
        self, seat: int, phase: Phase, inbox: list[MessageRecord], conflict: str
    ) -> dict[str, Any]:
        """Structured facts for reference agents: only what this seat may know.

        ``oracle_slots`` is the one exception, documented: the oracle's slot for each meeting
        of this seat, so the scripted oracle follower can be a test driver. It never reaches a
        prompt."""
        meeting: Meeting = self._meeting
        sc: Scenario = self._scenario
        return {
            "phase": phase,
            "round": self._round,
            "turn": self._turn,
            "max_turns": self.config.max_turns_per_round,
            "meeting": {"id": meeting.id, "participants": list(meeting.participants)},
            "speaker_order": list(self._order),
            "is_participant": seat in meeting.participants,
            "calendar": [rules.render_fields(i) for i in self._cal[seat]],
            "inbox": [m.model_dump() for m in inbox],
            "num_agents": self._seats,
            "num_slots": sc.num_slots,
            "message_types": list(self._types),
            "attempt": self._attempts.get(seat, 0) + 1,
            "conflict": conflict,
            "oracle_slots": {
                m.id: self._oracle_slots[m.id]
                for m in sc.meetings
                if seat in m.participants and m.id in self._oracle_slots
            },
        }
