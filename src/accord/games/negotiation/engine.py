"""The negotiation game `negotiation-v3` (seed 004 "Talk is Cheap, Communication is Hard").

Two agents share a pool of three resources. Each holds three private projects (resources per
run, reward per run). Every round they talk in alternating messages (cheap talk, up to 5 each
by default), then each submits a purchase with project runs; decisions are simultaneous. If
together they ask for more of any resource than the supply, the round is annulled and both
earn 0. Rounds repeat (4 by default) with the same or rotating projects and a stable or
shifting partner. Scores are measured against the exact joint optimum M (`oracle.py`).

State machine (DESIGN principle 1), per round:

1. TALK: one request at a time, alternating from `first_speaker`. A reply carries speech (and
   in the thinking format a private scratchpad) and may carry a decision: deciding early ends
   that seat's talk. By default (`after_early_decision: talk_on`, the companion code, App. D.1
   and Fig. 8) the partner keeps its remaining messages, each prompt carrying the "already made
   its final decision" notice, and a decision it sends then is early too; nobody reads those
   messages, so they are recorded as undelivered. `decide_now` (v2's rule) sends the partner
   straight to the decision prompt. A decision the rules refuse is asked again within the turn
   (`invalid_talk_decision: reask`); `speech` is the companion's handling (the turn is spent).
2. DECIDE: every seat that has not decided gets the decision prompt; requests are pending
   together (simultaneous moves). The no-talk baseline (App. D.7) starts here.
3. RESOLVE: `rules.resolve_round`; each seat is told the outcome at the top of its next prompt
   (App. D.4).

After the last round, each seat is asked for a reflection (App. D.5; skipped without talk).

Modelling choices the paper leaves open (speech with a forced decision, the shifting seat's
redaction, rotating-project notices and system prompts, capped runs, the partner-decided
notice, the provider JSON line) are listed with their sources in docs/negotiation.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from accord.core.errors import ActionError
from accord.core.game import Game, GameResult
from accord.core.rng import make_rng
from accord.core.spec import Action, Request
from accord.games.negotiation import actions, prompts, rules
from accord.games.negotiation.config import RATIOS, NegotiationConfig
from accord.games.negotiation.draw import draw_names, draw_scenarios
from accord.games.negotiation.events import EVENT_TYPES
from accord.games.negotiation.oracle import solve
from accord.games.negotiation.record import RoundRecord, Utterance
from accord.games.negotiation.requests import NegotiationRequests
from accord.games.negotiation.result import SEAT_NAMES, game_result

if TYPE_CHECKING:
    from accord.games.negotiation.summary import ProcessMetricPool


class NegotiationGame(NegotiationRequests, Game):
    """`negotiation-v3`: see the module docstring."""

    game_id: ClassVar[str] = "negotiation-v3"
    event_types = EVENT_TYPES
    prompts_module: ClassVar[str | None] = "accord.games.negotiation.prompts"
    replay_module: ClassVar[str | None] = "accord.games.negotiation.views"
    config_model: ClassVar[type[NegotiationConfig]] = NegotiationConfig
    config: NegotiationConfig
    summary_metrics: ClassVar[list[tuple[str, str, bool]]] = [
        ("overdraw_rate", "overdraw", True),
        ("efficiency", "efficiency", True),
        ("optimum_rate", "optimum", True),
        ("early_decision_rate", "early decision", True),
    ]

    @classmethod
    def detail_pool(cls) -> ProcessMetricPool:
        """Every process metric pooled over the group's games, with bootstrap CIs."""
        from accord.games.negotiation.summary import ProcessMetricPool

        return ProcessMetricPool()

    def __init__(self, config: NegotiationConfig) -> None:
        super().__init__(config)
        self._templates = prompts.templates(config.prompts)
        self._seed = 0
        self._phase = "done"
        self._models: list[str | None] = [None, None]

    def prompt_templates(self) -> dict[str, dict[str, str]]:
        """Name, hash and origin (default or override) of every template (App. D sections)."""
        return self._templates.record()

    def bind_models(self, models: list[str | None]) -> None:
        """Each seat's model id; used for the provider-keyed JSON reminder (App. D.1.4)."""
        self._models = [*models, None, None][:2]

    # -- contract --------------------------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return 2

    def seat_label(self, seat: int) -> str:
        return SEAT_NAMES[seat]

    @classmethod
    def seat_view(cls, seat: int, event: Mapping[str, Any]) -> dict[str, Any] | None:
        """The partner's delivered speech (never its private ``thinking``): the text the
        seat's next observation quotes."""
        if event.get("type") != "message" or event.get("seat") == seat:
            return None
        if not event.get("delivered", True):
            return None
        return {
            "from": event.get("seat"),
            "text": event.get("speech", ""),
            "round": event.get("round"),
        }

    def reset(self, seed: int) -> None:
        cfg = self.config
        self._seed = seed
        self._events = []
        self._step = 0
        self._ratio = cfg.ratio if cfg.ratio is not None else make_rng(seed, "ratio").choice(RATIOS)
        self._round_scenarios = draw_scenarios(cfg, self._ratio, seed)
        self._round_names = draw_names(cfg, seed)
        self._records: list[RoundRecord] = []
        self._specs = {}
        self._totals = [0, 0]
        self._reflections: list[str | None] = [None, None]
        self._inbox: list[list[str]] = [[], []]
        self._system: list[str] = ["", ""]
        self._needs_reset = [True, True]
        for seat in (0, 1):
            self._system[seat] = self._system_prompt(seat, 0)
        self._round = 0
        self._start_round(1)

    def pending(self) -> list[Request]:
        if self._phase == "talk":
            return [self._talk_request(self._speaker)]
        if self._phase == "decide":
            return [self._decide_request(s) for s in (0, 1) if self._decisions[s] is None]
        if self._phase == "reflect":
            return [self._reflect_request(s) for s in (0, 1) if self._reflections[s] is None]
        return []

    def _pending_seats(self) -> list[int]:
        """The seats `pending` asks, without rendering their requests (`submit`'s check)."""
        if self._phase == "talk":
            return [self._speaker]
        if self._phase == "decide":
            return [s for s in (0, 1) if self._decisions[s] is None]
        if self._phase == "reflect":
            return [s for s in (0, 1) if self._reflections[s] is None]
        return []

    def submit(self, seat: int, action: Action) -> None:
        if seat not in self._pending_seats():
            raise ActionError(f"seat {seat} has no pending request", kind="out_of_turn")
        if self._phase == "reflect":
            self._reflections[seat] = str(action.get("reflection", ""))
            self.emit("reflection", seat=seat, text=self._reflections[seat])
            if all(r is not None for r in self._reflections):
                self._finish()
            return
        decision = self._check_action(seat, action)
        fallback = self.provenance.fallback
        speech = str(action.get("speech", ""))
        thinking = str(action.get("thinking", ""))
        if self._phase == "talk":
            self._on_talk(seat, speech, thinking, decision, fallback)
            refused = action.get("refused_decision")
            if refused and self.config.invalid_talk_decision == "speech":
                # The companion's handling: the turn is spent, the raw reply was the message,
                # and the seat learns at its next prompt why its decision did not count.
                self.emit("decision_refused", round=self._round, seat=seat, error=str(refused))
                self._inbox[seat].append(prompts.decision_refused(str(refused)))
        else:
            if decision is None:
                raise ActionError("this is the decision phase: a decision is required")
            self._clear_inbox(seat)
            if speech or thinking:
                self._messages.append(
                    Utterance(
                        seat=seat,
                        turn=self._turn + 1,
                        speech=speech,
                        thinking=thinking,
                        decided=True,
                        delivered=False,
                    )
                )
                self.emit(
                    "message",
                    round=self._round,
                    seat=seat,
                    turn=self._turn + 1,
                    speech=speech,
                    thinking=thinking,
                    delivered=False,
                )
            self._record_decision(seat, decision, early=False, fallback=fallback)
        if self._phase == "decide" and all(d is not None for d in self._decisions):
            self._resolve()

    def done(self) -> bool:
        return self._phase == "done"

    def result(self) -> GameResult:
        return game_result(self.config, self._ratio, self._records, self._totals, self._reflections)

    oracle_agent: ClassVar[str | None] = "cooperative"
    reply_tokens: ClassVar[int] = 512  # thinking (600 chars) + speech (400) + JSON, with margin

    def oracle_gap(self, result: GameResult) -> float | None:
        total = result.metrics["oracle_total"]
        return (total - result.metrics["joint_reward"]) / total if total else 0.0

    def scenario(self) -> dict[str, Any]:
        distinct = {s.id: s for s in self._round_scenarios}
        return {
            "ratio": self._ratio,
            "per_round": [s.id for s in self._round_scenarios],
            "themes": [dict(n) for n in self._round_names],
            "scenarios": [s.model_dump(mode="json") for s in distinct.values()],
            "market": self.config.market.model_dump(),
        }

    # -- rounds ----------------------------------------------------------------------------
    def _start_round(self, round_no: int) -> None:
        cfg = self.config
        self._round = round_no
        self._specs = {}  # a round's specs (`NegotiationRequests._spec`)
        sc = self._round_scenarios[round_no - 1]
        self._names = self._round_names[round_no - 1]
        self._oracle_max = solve(cfg.market, sc).m
        self._turn = 0
        self._talk_count = [0, 0]
        self._opened = [False, False]
        self._undelivered: list[str | None] = [None, None]
        self._decisions: list[dict[str, Any] | None] = [None, None]
        self._early = [False, False]
        self._fallback = [False, False]
        self._messages: list[Utterance] = []
        self._speaker = cfg.first_speaker
        for seat in (0, 1):
            if self._standalone(seat) and round_no > 1:
                self._needs_reset[seat] = True
                self._inbox[seat] = []
                self._system[seat] = self._system_prompt(seat, round_no - 1)
            elif round_no > 1:
                before = self._round_names[round_no - 2]
                renamed = self._names != before
                if renamed:
                    self._inbox[seat].append(
                        prompts.new_names_notice(self._names, before, t=self._templates)
                    )
                if cfg.projects == "rotating":
                    partner = sc.agents[1 - seat] if cfg.transparency != "none" else None
                    self._inbox[seat].append(
                        prompts.new_projects_notice(
                            sc.agents[seat], self._names, partner, t=self._templates
                        )
                    )
                if renamed or (cfg.projects == "rotating" and not self._first_prompt_kept()):
                    # The rules and every requirement speak the round's names (and, unless
                    # round 1's prompt is kept, hold the round's projects).
                    shown = 0 if self._first_prompt_kept() else round_no - 1
                    self._system[seat] = self._system_prompt(seat, shown, round_no - 1)
        self.emit(
            "round_start",
            round=round_no,
            scenario_id=sc.id,
            names=dict(self._names),
            oracle_max=self._oracle_max,
            first_speaker=self._speaker,
        )
        self._phase = "talk" if cfg.cheap_talk else "decide"

    def _on_talk(
        self, seat: int, speech: str, thinking: str, decision: dict[str, Any] | None, fallback: bool
    ) -> None:
        cfg = self.config
        other = 1 - seat
        # A seat whose partner already decided talks to nobody: the partner gets no prompt
        # before the round resolves (App. D.1, companion code).
        delivered = self._decisions[other] is None
        self._clear_inbox(seat)
        self._opened[seat] = True
        self._undelivered[seat] = None
        self._turn += 1
        self._talk_count[seat] += 1
        self._messages.append(
            Utterance(
                seat=seat,
                turn=self._turn,
                speech=speech,
                thinking=thinking,
                decided=decision is not None,
                delivered=delivered,
            )
        )
        self.emit(
            "message",
            round=self._round,
            seat=seat,
            turn=self._turn,
            speech=speech,
            thinking=thinking,
            delivered=delivered,
            fallback=fallback,
        )
        self._undelivered[other] = speech
        if decision is not None:
            self._record_decision(seat, decision, early=True, fallback=fallback)
        if self._talk_over(seat):
            self._phase = "decide"
            return
        if self._decisions[other] is not None:
            self._speaker = seat
        elif self._decisions[seat] is not None:
            self._speaker = other
        else:
            limit = cfg.talk_turns
            self._speaker = other if (limit == 0 or self._talk_count[other] < limit) else seat

    def _talk_over(self, seat: int) -> bool:
        """Whether the round's cheap talk ends after `seat`'s message."""
        cfg = self.config
        decided = [d is not None for d in self._decisions]
        if all(decided):
            return True
        if decided[seat] and cfg.after_early_decision == "decide_now":
            return True
        limit = cfg.talk_turns
        if limit == 0:
            return self._turn >= cfg.max_talk_messages
        # Only a seat that has not decided still talks: it is done when its turns are used.
        return all(self._talk_count[s] >= limit for s in (0, 1) if not decided[s])

    def _record_decision(
        self, seat: int, decision: dict[str, Any], *, early: bool, fallback: bool
    ) -> None:
        self._decisions[seat] = decision
        self._early[seat] = early
        self._fallback[seat] = fallback
        self.emit(
            "decision",
            round=self._round,
            seat=seat,
            purchase=decision["purchase"],
            runs=decision["runs"],
            early=early,
            fallback=fallback,
        )
        if fallback:
            self.emit(
                "decision_auto_filled", round=self._round, seat=seat, purchase=decision["purchase"]
            )

    def _resolve(self) -> None:
        cfg = self.config
        sc = self._round_scenarios[self._round - 1]
        decs = [d for d in self._decisions if d is not None]
        outcome = rules.resolve_round(
            cfg.market,
            sc.agents,
            [rules.Decision(d["purchase"], d["runs"]) for d in decs],
        )
        joint = outcome.joint_reward
        rec = RoundRecord(
            round=self._round,
            scenario_id=sc.id,
            names=dict(self._names),
            first_speaker=cfg.first_speaker,
            purchases=[dict(p) for p in outcome.purchases],
            runs=[dict(r) for r in outcome.runs],
            rewards=list(outcome.rewards),
            annulled=outcome.annulled,
            joint_reward=joint,
            oracle_max=self._oracle_max,
            optimal=(not outcome.annulled) and self._oracle_max > 0 and joint == self._oracle_max,
            efficiency=joint / self._oracle_max if self._oracle_max else 0.0,
            early_decision=list(self._early),
            fallback=list(self._fallback),
            stated_runs=[d["runs"] is not None for d in decs],
            messages=list(self._messages),
        )
        self._records.append(rec)
        for seat in (0, 1):
            self._totals[seat] += outcome.rewards[seat]
            self._inbox[seat].append(
                prompts.round_result(
                    annulled=outcome.annulled,
                    own=outcome.purchases[seat],
                    other=outcome.purchases[1 - seat],
                    runs=outcome.runs[seat],
                    reward=outcome.rewards[seat],
                    names=self._names,
                    t=self._templates,
                )
            )
        self.emit(
            "round_result",
            round=self._round,
            annulled=outcome.annulled,
            purchases=rec.purchases,
            runs=rec.runs,
            rewards=rec.rewards,
            joint_reward=joint,
            oracle_max=self._oracle_max,
            optimal=rec.optimal,
            efficiency=rec.efficiency,
        )
        if self._round < cfg.rounds:
            self._start_round(self._round + 1)
        elif cfg.reflection and cfg.cheap_talk:
            self._phase = "reflect"
        else:
            self._finish()

    def _finish(self) -> None:
        self._phase = "done"
        self.emit("game_end", totals=list(self._totals))

    # -- validation of built actions (reference agents, people) -------------------------------
    def _check_action(self, seat: int, action: Action) -> dict[str, Any] | None:
        return actions.check_decision(
            self.config.market,
            self._projects(seat),
            action,
            strict_runs=self.config.runs == "strict",
        )
