"""The calendar game `calendar-v2` (CalBench §3 "Communication protocols", "Round structure",
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
   on all its participants' calendars. A failed round keeps its batches or undoes them as
   `failed_round` says (`rules.keeps_failed_round`). Then the game moves on, after the F.3
   reflection prompt if the `reflection` option asks for it (`reflection.ReflectionRound`).

Requests of VOLUNTARY and DECISION are pending together (simultaneous moves); CHEAP_TALK is
sequential. Every event of App. A.6 Table 5 is emitted, plus messages, resolutions and
consistency violations. See `docs/calendar.md` for every modelling choice.

This module holds one cohesive thing, the round state machine of Algorithm 1, and so runs a
little over 450 lines; requests are published by `requests.CalendarRequests`, the result is
built by `result.py` and the F.3 phase lives in `reflection.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from accord.core.errors import ActionError
from accord.core.game import GameResult
from accord.core.spec import Action, Request
from accord.games.calendar import actions, prompts, rules
from accord.games.calendar.actions import ParseContext, Phase
from accord.games.calendar.config import CHANNEL_TYPES, CalendarConfig, suite_task_options
from accord.games.calendar.events import EVENT_TYPES
from accord.games.calendar.export import scenario_json
from accord.games.calendar.metrics import SUMMARY_METRICS, oracle_gap
from accord.games.calendar.oracle import greedy_schedule, optimal_schedule
from accord.games.calendar.record import BatchPhase, RoundRecord
from accord.games.calendar.reflection import ReflectionRound
from accord.games.calendar.requests import CalendarRequests
from accord.games.calendar.result import game_result
from accord.games.calendar.rules import Batch
from accord.games.calendar.state import World
from accord.games.calendar.talk import CheapTalk, speaker_order

SWEEP_LIMIT = 200
"""Sweeps per round when `max_turns_per_round` is None (a guard, far above any real talk)."""


class CalendarGame(CalendarRequests):
    """`calendar-v2`: see the module docstring."""

    game_id: ClassVar[str] = "calendar-v2"
    event_types = EVENT_TYPES
    prompts_module: ClassVar[str | None] = "accord.games.calendar.prompts"
    replay_module: ClassVar[str | None] = "accord.games.calendar.views"
    config_model: ClassVar[type[CalendarConfig]] = CalendarConfig
    config: CalendarConfig
    summary_metrics: ClassVar[list[tuple[str, str, bool]]] = SUMMARY_METRICS
    oracle_agent: ClassVar[str | None] = "oracle-follower"
    # The bundled model's calendar replies: median 48 tokens, 95th percentile 74 (schema caps:
    # thinking 400 characters, a message 400); larger models write longer messages.
    expected_reply_tokens: ClassVar[int] = 160

    def __init__(self, config: CalendarConfig) -> None:
        super().__init__(config)
        self._templates = prompts.templates(config.prompts)
        self._seats = config.seats()
        self._phase = "done"

    def prompt_templates(self) -> dict[str, dict[str, str]]:
        """Name, hash and origin (default or override) of every template the game sends (App.
        A.2, A.3; the F.3 ``reflection`` question only when the `reflection` option is on)."""
        record = self._templates.record()
        if not self.config.reflection:
            record.pop("reflection", None)
        return record

    # -- contract --------------------------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return self._seats

    def seat_label(self, seat: int) -> str:
        return f"agent{seat}"

    @classmethod
    def seat_view(cls, seat: int, event: Mapping[str, Any]) -> dict[str, Any] | None:
        """A DM or group-chat message whose recipients include `seat` (App. A.4 "Message
        routing"): the text its inbox receives. Dropped messages (``message_dropped``) and
        messages between other agents are not shown."""
        if event.get("type") not in ("dm_sent", "message") or event.get("sender") == seat:
            return None
        recipients = event.get("recipients")
        if not isinstance(recipients, list) or seat not in recipients:
            return None
        return {
            "from": event.get("sender"),
            "text": event.get("content", ""),
            "channel": event.get("channel"),
            "round": event.get("round"),
        }

    def reset(self, seed: int) -> None:
        cfg = self.config
        self._events, self._step, self._seed = [], 0, seed
        sc = self._scenario = cfg.scenario_for(seed)
        n = self._seats = sc.num_agents
        self._world = World(sc)
        self._guard = prompts.PrivacyGuard(sc)
        self._types = CHANNEL_TYPES[cfg.channels]
        variant = prompts.load_variant(cfg.prompt_variant, cfg.prompt_variant_dir)
        self._variant_seats = (
            sorted({s for s in cfg.variant_seats if 0 <= s < n}) if variant else []
        )
        optimum = optimal_schedule(sc)
        self._oracle_slots = dict(optimum.slots) if optimum else {}
        self._requests: dict[int, Request] = {}
        self._ctx: dict[int, ParseContext] = {}
        self._system, self._tools_system = (  # json mode (App. A.2), then tools mode
            [
                self._guard.check(a, text)
                for a, text in enumerate(
                    prompts.system_prompts(
                        sc,
                        decision_retries=cfg.decision_retries,
                        message_types=self._types,
                        variant=variant,
                        variant_seats=self._variant_seats,
                        t=self._templates,
                        tools_mode=tools_mode,
                    )
                )
            ]
            for tools_mode in (False, True)
        )
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
            variant=None if variant is None else variant.describe(),
            nosy_agents=self._variant_seats,
        )
        for a in range(n):
            self.emit(
                "agent_registered",
                agent=a,
                system_prompt=self._system[a],
                calendar=self._world.render(a),
                is_nosy=a in self._variant_seats,
            )
        self._start_round(1)

    def pending(self) -> list[Request]:
        return [self._requests[s] for s in sorted(self._requests)]

    def submit(self, seat: int, action: Action) -> None:
        request = self._requests.get(seat)
        if request is None:
            raise ActionError(f"seat {seat} has no pending request", kind="out_of_turn")
        if self._phase == "REFLECTION":
            if self._reflection.accept(seat, action, fallback=self.provenance.fallback):
                self._start_round(self._round + 1)
            return
        ctx = self._ctx[seat]
        calls = actions.check_action(action, ctx)
        thinking = str(action.get("thinking", ""))
        fallback = self.provenance.fallback
        del self._requests[seat]
        talk = ctx.phase == "CHEAP_TALK"
        self._log(
            "turn_end" if talk else "decide_end",
            phase=ctx.phase,
            turn=self._turn,
            agent=seat,
            actions=calls,
            thinking=thinking,
            fallback=fallback,
        )
        if talk:
            self._route(seat, calls)
            self._next_speaker()
            return
        if ctx.phase == "DECISION" and fallback:
            self._auto_filled.append(seat)
            self._log("decision_auto_filled", agent=seat, actions=[])
            self._staged[seat] = None
        else:
            self._check_batch(seat, ctx.phase, calls)
        if not self._requests:
            self._start_decision() if ctx.phase == "VOLUNTARY" else self._resolve()

    def _log(self, type_: str, **fields: Any) -> None:
        """Emit an event of the current round."""
        self.emit(type_, round=self._round, **fields)

    def done(self) -> bool:
        return self._phase == "done"

    def result(self) -> GameResult:
        return game_result(self._scenario, self._world)

    def oracle_gap(self, result: GameResult) -> float | None:
        return oracle_gap(result.metrics)

    @classmethod
    def suite_options(cls, suite: str, options: Mapping[str, Any]) -> list[dict[str, Any]]:
        return suite_task_options(suite, options)

    def scenario(self) -> dict[str, Any]:
        return scenario_json(self._scenario)  # with its oracle, for traces and `accord scenario`

    # -- rounds ----------------------------------------------------------------------------
    def _start_round(self, round_no: int) -> None:
        if round_no > self._scenario.num_meetings:
            self._phase = "done"
            total = sum(m.cost for m in self._world.moves)
            self.emit("game_end", scheduled=len(self._world.final_schedule()), total_cost=total)
            return
        self._round = round_no
        meeting = self._meeting = self._scenario.meetings[round_no - 1]
        order = speaker_order(meeting.participants, round_no, self.config.speaker_order, self._seed)
        self._talk = CheapTalk(
            round_no=round_no, meeting_id=meeting.id, participants=meeting.participants, order=order
        )
        self._staged: dict[int, tuple[Batch, list[dict[str, Any]]] | None] = {}
        self._attempts: dict[int, int] = {}
        self._auto_filled: list[int] = []
        self._rejected = 0
        self._round_cost = [0] * self._seats
        for box in self._world.inbox:
            box.clear()
        self.emit(
            "round_start",
            round=round_no,
            meeting={"id": meeting.id, "participants": list(meeting.participants)},
            speaker_order=order,
        )
        self._phase = "CHEAP_TALK"
        self._talk.start_sweep(0)
        self._issue_talk()

    def _issue_talk(self) -> None:
        talk, seat = self._talk, self._talk.speaker
        talk.mark_spoken()
        inbox = self._world.drain(seat)
        budget = self.config.max_turns_per_round
        if seat in talk.participants and talk.turn == 0:
            body = prompts.round_start(
                round_no=self._round,
                meeting_text=self._world.meeting_text(seat, self._meeting),
                calendar_text=self._world.render(seat),
                penalty=self._world.shown_penalty[seat],
                turn=talk.turn,
                max_turns=budget,
                inbox=inbox,
                t=self._templates,
            )
        else:
            context = ""
            if seat not in talk.participants and seat not in talk.introduced:
                talk.introduced.add(seat)
                w = self._world
                context = prompts.outsider_context(
                    w.meeting_text(seat, self._meeting), w.render(seat), t=self._templates
                )
            body = prompts.turn_message(
                round_no=self._round,
                inbox=inbox,
                turn=talk.turn,
                max_turns=budget,
                context=context,
                t=self._templates,
            )
        self._issue(seat, "CHEAP_TALK", body, inbox, "turn_start")

    def _next_speaker(self) -> None:
        talk = self._talk
        if talk.advance():
            self._issue_talk()
            return
        limit = self.config.max_turns_per_round or SWEEP_LIMIT
        if talk.activity and talk.turn + 1 < limit:
            talk.start_sweep(talk.turn + 1)
            self._issue_talk()
        else:
            self._start_voluntary()

    def _route(self, seat: int, calls: list[dict[str, Any]]) -> None:
        """Deliver `seat`'s messages, honouring the optional dm_cap (App. A.4)."""
        cap = self.config.dm_cap
        for call in calls:
            recipients = self._talk.recipients(seat, call, self._seats)
            delivered = cap is None or self._world.sent[seat] < cap
            record = self._talk.message(seat, call, recipients, delivered=delivered)
            if not delivered:
                self._world.messages.append(record)
                self._log(
                    "message_dropped",
                    agent=seat,
                    channel=record.channel,
                    reason=f"dm_cap of {cap} messages reached",
                )
                self._world.notices[seat].append(
                    f"Your message limit ({cap}) is used up; further messages are not delivered."
                )
                continue
            self._world.deliver(record)
            self._talk.delivered(record)
            fields = record.model_dump(exclude={"delivered", "round", "turn"})
            self._log(
                "dm_sent" if record.channel == "dm" else "message",
                turn=record.turn,
                chars=len(record.content),
                **fields,
            )

    # -- VOLUNTARY and DECISION ------------------------------------------------------------
    def _start_voluntary(self) -> None:
        self._phase = "VOLUNTARY"
        if not self._talk.activated:
            self._start_decision()
            return
        for seat in sorted(self._talk.activated):
            inbox = self._world.drain(seat)
            body = prompts.voluntary_message(
                round_no=self._round,
                meeting_text=self._world.meeting_text(seat, self._meeting),
                calendar_text=self._world.render(seat),
                inbox=inbox,
                t=self._templates,
            )
            self._issue(seat, "VOLUNTARY", body, inbox, "decide_start")

    def _start_decision(self) -> None:
        self._phase = "DECISION"
        for seat in self._meeting.participants:
            inbox = self._world.drain(seat)
            body = prompts.decision_message(
                round_no=self._round,
                meeting_id=self._meeting.id,
                meeting_text=self._world.meeting_text(seat, self._meeting),
                calendar_text=self._world.render(seat),
                inbox=inbox,
                t=self._templates,
            )
            self._issue(seat, "DECISION", body, inbox, "decide_start")

    def _check_batch(self, seat: int, phase: Phase, calls: list[dict[str, Any]]) -> None:
        """Validate a batch (App. A.5); apply (VOLUNTARY) or stage (DECISION) it, or retry."""
        batch = actions.to_batch(calls)
        decision = phase == "DECISION"
        calendar = self._world.calendars[seat]
        problem = rules.validate_batch(
            calendar, batch, meeting_id=self._meeting.id, require_schedule=decision
        )
        attempt = self._attempts.get(seat, 0)
        if problem is None:
            if decision:
                self._staged[seat] = (batch, calls)
                self._log("batch_staged", agent=seat, actions=calls)
            elif batch:
                applied = rules.apply_batch(calendar, batch, None)
                self._commit(seat, "VOLUNTARY", batch, applied, calls)
            return
        self._rejected += 1
        self._log(
            "batch_rejected",
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
                t=self._templates,
            )
            self._issue(seat, phase, body, [], "decide_start", conflict=problem)
            return
        self._log("batch_discarded", phase=phase, agent=seat, attempts=attempt + 1)
        if decision:
            self._staged[seat] = None

    def _commit(
        self,
        seat: int,
        phase: BatchPhase,
        batch: Batch,
        applied: rules.Applied,
        calls: list[dict[str, Any]],
    ) -> None:
        for rec in self._world.commit(self._round, phase, seat, batch, applied):
            self._round_cost[seat] += rec.cost
        self._log(
            "batch_applied",
            phase=phase,
            agent=seat,
            actions=calls,
            cost=applied.cost,
            calendar=self._world.render(seat),
        )

    def _resolve(self) -> None:
        """RESOLUTION: commit the staged batches together; on failure keep them or roll them
        back as `failed_round` says (`rules.keeps_failed_round`)."""
        meeting = self._meeting
        w = self._world
        earlier = w.earlier_meetings()
        staged = {a: (None if s is None else s[0]) for a, s in self._staged.items()}
        res = rules.resolve_round(w.calendars, staged, meeting, earlier)
        broken = res.broken
        kept = res.success or rules.keeps_failed_round(res, meeting, self.config.failed_round)
        if kept:
            for seat, applied in res.applied.items():
                entry = self._staged[seat]
                assert entry is not None
                self._commit(seat, "DECISION", entry[0], applied, entry[1])
        if res.success:
            first = res.chosen[0]
            assert first is not None  # success means every participant chose this slot
            w.scheduled[meeting.id] = first
        elif not kept:
            # The commit is undone; report what is inconsistent in the state that remains.
            broken = rules.inconsistent_meetings(w.calendars, earlier) or broken
        for mid, slots in broken.items():
            self._log(
                "consistency_violation", meeting_id=mid, slots={str(a): s for a, s in slots.items()}
            )
        slot = res.chosen[0] if res.success else None
        self._log(
            "resolution",
            meeting_id=meeting.id,
            success=res.success,
            slot=slot,
            chosen=list(res.chosen),
            reason=res.reason,
            rolled_back=not kept,
        )
        for seat in meeting.participants:
            notice = prompts.outcome_notice(
                self._round, meeting.id, slot, res.reason, t=self._templates
            )
            w.notices[seat].append(notice)
        w.rounds.append(
            RoundRecord(
                round=self._round,
                meeting_id=meeting.id,
                participants=list(meeting.participants),
                speaker_order=self._talk.order,
                sweeps=self._talk.turn + 1,
                activated=sorted(self._talk.activated),
                success=res.success,
                slot=slot,
                chosen=list(res.chosen),
                reason=res.reason,
                auto_filled=sorted(self._auto_filled),
                rejected_batches=self._rejected,
                inconsistent=sorted(broken),
                cost=self._round_cost,
            )
        )
        if self.config.reflection:
            self._phase = "REFLECTION"
            args = (self._round, self._talk.order, self._system, self._guard.check, self.emit)
            self._reflection = ReflectionRound(w, *args, self._templates, self._tools_system)
            self._requests = self._reflection.pending
        else:
            self._start_round(self._round + 1)
