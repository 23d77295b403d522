"""The sorting game `sorting-v3` (MAS-Bench, "When 20 Agents Fail to Sort").

N agents each hold K of N*K distinct integers (`task.py`) and must together submit the
globally sorted order, agent ``i`` the ``i``-th slice of K, talking only through one backend:
broadcasting, P2P messages or a shared key-value store (`backends.py`, `commands.py`).

State machine (RUNBENCH and STEPBENCH, App. F.3 and F.5, Algorithms 2 and 3):

- A round asks every still-active agent (no submission yet this phase) at once: all their
  requests are pending together and the runner answers them concurrently. Nothing is applied
  until every one has answered; then the replies are applied one agent at a time in id order,
  each reply's command blocks in textual order. So nothing written in round r can be seen by
  any model call before round r+1 (App. E.1).
- Each agent's next observation is the replies to its commands, or the harness reply for a
  failed model call or for a reply without any command block (App. F.3).
- ``submit_result`` records the agent's result and makes it inactive for the rest of the
  phase. Blocks after it in the same reply are not run: a submission is final (App. D.2).
- A phase ends when every agent has submitted or after ``max_rounds`` rounds (R_max).
- With ``two_phase`` a second phase follows: a fresh environment, fresh conversations, and a
  system prompt carrying the agent's own first-phase submission (the rerun addendum). The
  final submissions are those of the last phase.

An action is ``{"text": reply}`` (commands are parsed from it) or ``{"commands": [...]}``
(reference agents); ``{"failed": true}`` (the fallback) stands for a failed model call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from accord.core.errors import ActionError
from accord.core.game import Game, GameResult
from accord.core.spec import Action, Request
from accord.games.sorting import prompts
from accord.games.sorting.actions import (
    MODEL_FAILED,
    no_command_reply,
    parse_blocks,
    render_blocks,
    validate_action,
)
from accord.games.sorting.commands import Dispatcher, Outcome, render_replies, render_reply
from accord.games.sorting.config import SortingConfig
from accord.games.sorting.events import EVENT_TYPES
from accord.games.sorting.metrics import SeatTally, estimate_tokens, game_metrics
from accord.games.sorting.requests import SortingRequests
from accord.games.sorting.result import game_result
from accord.games.sorting.task import Task, init_task, strict_correct

if TYPE_CHECKING:
    from accord.traces.schema import Trace

ALREADY_SUBMITTED = "Not run: you had already submitted your result."


class SortingGame(SortingRequests, Game):
    """`sorting-v3`: see the module docstring."""

    game_id: ClassVar[str] = "sorting-v3"
    event_types = EVENT_TYPES
    prompts_module: ClassVar[str | None] = "accord.games.sorting.prompts"
    replay_module: ClassVar[str | None] = "accord.games.sorting.views"
    config_model: ClassVar[type[SortingConfig]] = SortingConfig
    config: SortingConfig
    summary_metrics: ClassVar[list[tuple[str, str, bool]]] = [
        ("sr", "SR", True),
        ("success", "success", True),
        ("global_check", "CHECK", True),
        ("rounds", "R", False),
        ("te", "TE", False),
        ("cr", "CR", True),
    ]
    oracle_agent: ClassVar[str | None] = "share-all"

    def prompt_templates(self) -> dict[str, dict[str, str]]:
        """Name, hash and origin (default or override) of every template (App. F.6)."""
        return self._templates.record()

    def __init__(self, config: SortingConfig) -> None:
        super().__init__(config)
        self._templates = prompts.templates(config.prompts)
        self._dispatcher = Dispatcher(
            config.backend, whole_blocks=config.multi_command_block == "whole"
        )
        self._task: Task | None = None
        self._seed = 0
        self._done = True
        self._phase = 0

    # -- contract --------------------------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return self.config.n

    def seat_label(self, seat: int) -> str:
        return f"Agent-{seat}"

    def reset(self, seed: int) -> None:
        cfg = self.config
        self._events = []
        self._step = 0
        self._seed = seed
        self._task = init_task(cfg.task, cfg.n, cfg.k, cfg.mode, seed)
        self._tallies = [SeatTally() for _ in range(cfg.n)]
        self._phase_subs: list[list[list[int] | None]] = []
        self._phase = 0
        self._done = False
        self._start_phase()

    def pending(self) -> list[Request]:
        if self._done:
            return []
        return [self._request(i) for i in self._active() if i not in self._answers]

    def submit(self, seat: int, action: Action) -> None:
        if (
            self._done
            or not 0 <= seat < self.config.n
            or self._subs[seat] is not None
            or seat in self._answers
        ):
            raise ActionError(f"Agent-{seat} has no pending request", kind="out_of_turn")
        answer = validate_action(action)
        if self.provenance.fallback:  # kept for the round: a fallback is a failed call
            answer = {**answer, "failed": True}
        self._answers[seat] = answer
        # STEPBENCH: apply only once every active agent has answered this round.
        if len(self._answers) == len(self._active()):
            self._apply_round()

    def done(self) -> bool:
        return self._done

    def result(self) -> GameResult:
        return game_result(self.config, self.task, self._subs, self._phase_subs, self._tallies)

    def oracle_gap(self, result: GameResult) -> float | None:
        """Every agent correct is the optimum: the gap is 1 - SR."""
        return 1.0 - float(result.metrics["sr"])

    def trace_metrics(self, trace: Trace) -> dict[str, Any]:
        """TE, CR, tokens and cost from model-reported usage (MAS-Bench §3.4, App. C).

        Seats without model calls fall back to the text estimates (``token_source``).
        """
        from accord.games.sorting.usage import trace_metrics

        return trace_metrics(trace)

    def scenario(self) -> dict[str, Any]:
        """The instance and how it is played: everything needed to judge or replay it.

        The task's fields (``task``, ``n``, ``k``, ``mode``, ``xs``, ``expected``,
        ``global_input``, ``submit_len``, ``inversions``, ``rho``), the ``seed`` and the
        playing settings (``backend``, ``condition``, ``behaviour``, ``two_phase``,
        ``max_rounds``).
        """
        cfg = self.config
        return {
            **self.task.as_dict(),
            "seed": self._seed,
            "backend": cfg.backend,
            "condition": cfg.effective_condition,
            "behaviour": cfg.effective_behaviour,
            "two_phase": cfg.effective_two_phase,
            "max_rounds": cfg.max_rounds,
        }

    # -- phases and rounds -----------------------------------------------------------------

    def _start_phase(self) -> None:
        cfg = self.config
        task = self.task
        n = cfg.n
        self._phase += 1
        rerun = self._phase > 1
        prev: list[list[int] | None] = self._phase_subs[-1] if rerun else [None] * n
        self._prev = prev
        self._dispatcher.reset(n)
        self._subs: list[list[int] | None] = [None] * n
        self._answers: dict[int, Action] = {}
        self._round = 1
        self._dispatcher.store.clock = 1
        self._inbox = [prompts.first_observation(self._templates)] * n
        # Estimated tokens of message/file replies in each inbox (communication, App. C).
        self._inbox_comm = [0] * n
        self._last: list[list[Outcome]] = [[] for _ in range(n)]
        self._fresh = [True] * n
        self._system = [
            prompts.build_prompt(
                task,
                i,
                cfg.backend,
                cfg.effective_behaviour,
                rerun=rerun,
                prev=prev[i],
                t=self._templates,
            )
            for i in range(n)
        ]
        # Token estimate of the conversation each agent's next call re-sends.
        self._context = [estimate_tokens(s) for s in self._system]
        for t in self._tallies:
            t.rounds.append(0)
            t.phase_tokens_est.append(0)
            t.phase_comm_est.append(0)
            t.submitted_round.append(None)
        self.emit("phase_start", phase=self._phase, rerun=rerun, prev=list(prev))

    def _apply_round(self) -> None:
        answers, self._answers = self._answers, {}
        for seat in sorted(answers):
            self._apply(seat, answers[seat])
        self.emit("round_end", phase=self._phase, round=self._round, active=self._active())
        self._round += 1
        self._dispatcher.store.clock = self._round
        if not self._active() or self._round > self.config.max_rounds:
            self._end_phase()

    def _apply(self, seat: int, action: Action) -> None:
        tally = self._tallies[seat]
        failed = bool(action.get("failed"))
        commands: list[str] = action.get("commands") or []
        tags: list[str] = action.get("tags") or []
        if action.get("commands") is None and action.get("text") is not None:
            blocks = parse_blocks(action["text"])
            commands, tags = [b for _, b in blocks], [t for t, _ in blocks]
        text = action.get("text")
        if text is None:
            text = "" if failed else render_blocks(commands)
        tally.rounds[-1] += 1
        seen = estimate_tokens(self._inbox[seat])
        seen_comm = self._inbox_comm[seat]
        wrote = estimate_tokens(text)
        sent = self._context[seat] + seen
        tally.input_tokens_est += sent
        tally.output_tokens_est += wrote
        self._context[seat] += seen + wrote
        outcomes: list[Outcome] = []
        if failed:
            tally.model_failures += 1
            reply = MODEL_FAILED
        elif not commands:
            tally.no_command_replies += 1
            reply = no_command_reply(text)
        else:
            for i, command in enumerate(commands):
                outcomes.append(self._run(seat, command, tags[i] if i < len(tags) else ""))
            reply = render_replies(outcomes)
        # Communication is counted once, where the model handles it: a message/file command
        # in the reply that writes it, its reply in the observation of the next call.
        wrote_comm = min(wrote, sum(estimate_tokens(o.command) for o in outcomes if o.comm))
        tally.comm_tokens_est += seen_comm + wrote_comm
        tally.phase_tokens_est[-1] += sent + wrote
        tally.phase_comm_est[-1] += seen_comm + wrote_comm
        self._inbox[seat] = reply
        self._inbox_comm[seat] = sum(estimate_tokens(render_reply(o)) for o in outcomes if o.comm)
        self._last[seat] = outcomes
        self._fresh[seat] = False
        self.emit(
            "turn",
            phase=self._phase,
            round=self._round,
            seat=seat,
            text=text,
            failed=failed,
            no_command=not failed and not commands,
            commands=[o.as_event() for o in outcomes],
            tokens_est={
                "input": sent,
                "output": wrote,
                "input_comm": seen_comm,
                "output_comm": wrote_comm,
            },
        )

    def _run(self, seat: int, command: str, tag: str = "") -> Outcome:
        if self._subs[seat] is not None:
            return Outcome(command, "", False, ALREADY_SUBMITTED)
        tally = self._tallies[seat]
        submitted = [s is not None for s in self._subs]
        out = self._dispatcher.run(seat, command, submitted, tag)
        tally.commands += 1
        if out.comm:
            tally.comm_commands += 1
        if not out.ok:
            tally.failed_commands += 1
        if out.submitted is not None:
            self._subs[seat] = list(out.submitted)
            tally.submitted_round[-1] = self._round
            expected = list(self.task.expected[seat])
            self.emit(
                "submission",
                phase=self._phase,
                round=self._round,
                seat=seat,
                values=list(out.submitted),
                correct=list(out.submitted) == expected,
            )
        return out

    def _end_phase(self) -> None:
        subs = [None if s is None else list(s) for s in self._subs]
        self._phase_subs.append(subs)
        self.emit(
            "phase_end",
            phase=self._phase,
            rounds=self._round - 1,
            submissions=subs,
            correct=strict_correct(self.task, subs),
        )
        if self._phase == 1 and self.config.effective_two_phase:
            self._start_phase()
            return
        self._done = True
        self._dispatcher.close()
        metrics = game_metrics(self.task, self._subs, self._tallies)
        self.emit("game_end", sr=metrics["sr"], success=metrics["success"])
