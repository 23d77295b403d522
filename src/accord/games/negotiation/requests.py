"""Requests of the negotiation game: system prompts, observations, `info` and action specs
(seed 004 App. D.1-D.5 message sequence).

An LLM seat reads the observation text and answers through `ActionSpec.parse`; a reference
agent or a person reads `info`, which holds only what the seat may know.
"""

from __future__ import annotations

from typing import Any

from accord.core.spec import ActionSpec, Request
from accord.games.negotiation import actions, prompts
from accord.games.negotiation.state import NegotiationState
from accord.games.negotiation.tools import tools_system, tools_wording


class NegotiationRequests(NegotiationState):
    """The request builders of `NegotiationGame` (engine.py), over its state."""

    def _json_reminder(self, seat: int) -> bool:
        cfg = self.config
        if cfg.json_reminder != "auto":
            return cfg.json_reminder == "always"
        model = self._models[seat]
        return model is not None and model.split("/", 1)[0] in cfg.json_reminder_providers

    def _system_prompt(self, seat: int, round_index: int, names_index: int | None = None) -> str:
        """The seat's system prompt with the projects of round `round_index` (0-based) under
        the resource names of round `names_index` (default: the same round)."""
        cfg = self.config
        sc = self._round_scenarios[round_index]
        names = self._round_names[round_index if names_index is None else names_index]
        opponent = sc.agents[1 - seat] if cfg.transparency != "none" else None
        # A round-1 prompt kept all game (rotating projects, `first`) labels its partner list
        # as round 1's, not "this round"; the standalone seat's prompt is rebuilt every round.
        kept = self._first_prompt_kept() and not self._standalone(seat)
        return prompts.system_prompt(
            cfg.market,
            names,
            sc.agents[seat],
            thinking=cfg.thinking,
            shifting=self._standalone(seat),
            intervention=cfg.intervention,
            opponent=opponent,
            opponent_round=1 if kept else None,
            reward_functions=cfg.transparency == "joint",
            partner_shifts=self._standalone(1 - seat),
            joint_goal=cfg.goal_is_joint,
            json_reminder=self._json_reminder(seat),
            t=self._templates,
        )

    def _info(self, seat: int, phase: str) -> dict[str, Any]:
        cfg = self.config
        sc = self._round_scenarios[self._round - 1]
        seen = [] if self._standalone(seat) else self._records
        return {
            "phase": phase,
            "round": self._round,
            "rounds": cfg.rounds,
            "turn": self._turn + 1,
            "talk_turns": cfg.talk_turns,
            "my_messages": self._talk_count[seat],
            "market": cfg.market,
            "names": dict(self._names),
            "projects": sc.agents[seat],
            "partner_projects": sc.agents[1 - seat] if cfg.transparency != "none" else None,
            "partner_said": self._undelivered[seat],
            "partner_decided": self._partner_decided(seat),
            "standalone": self._standalone(seat),
            "history": [
                {
                    "round": r.round,
                    "mine": r.purchases[seat],
                    "theirs": r.purchases[1 - seat],
                    "reward": r.rewards[seat],
                    "annulled": r.annulled,
                }
                for r in seen
            ],
        }

    def _spec(self, seat: int, *, must_decide: bool) -> ActionSpec:
        # Every argument is fixed for a round (names, projects) or the game: a seat asked
        # several times in a round gets the same spec, built once (its schema is the costly
        # part of a request).
        key = (self._round, seat, must_decide)
        cached = self._specs.get(key)
        if cached is None:
            cached = self._specs[key] = self._build_spec(seat, must_decide=must_decide)
        return cached

    def _build_spec(self, seat: int, *, must_decide: bool) -> ActionSpec:
        return actions.turn_spec(
            dict(self._names),
            self._projects(seat),
            self.config.market,
            thinking=self.config.thinking,
            must_decide=must_decide,
            strict_runs=self.config.runs == "strict",
            refused_as_speech=self.config.invalid_talk_decision == "speech",
        )

    def _observation(self, seat: int, body: str) -> str:
        return "\n\n".join([*self._inbox[seat], body])

    def _request(self, seat: int, body: str, spec: ActionSpec, phase: str) -> Request:
        observation = self._observation(seat, body)
        system = self._system[seat]
        return Request(
            seat=seat,
            observation=observation,
            spec=spec,
            system=system,
            tools_system=tools_system(system, thinking=self.config.thinking),
            tools_observation=tools_wording(observation),
            reset_context=self._needs_reset[seat],
            info=self._info(seat, phase),
            round=self._round,
            turn=self._turn + 1,
        )

    def _talk_request(self, seat: int) -> Request:
        cfg = self.config
        said = self._undelivered[seat]
        if not self._opened[seat]:
            body = prompts.talk_opening(
                self._round,
                cfg.rounds,
                turns=cfg.talk_turns,
                thinking=cfg.thinking,
                partner_said=said,
                intervention=cfg.intervention,
                standalone=self._standalone(seat),
                t=self._templates,
            )
        else:
            body = prompts.talk_followup(said, thinking=cfg.thinking, t=self._templates)
        if self._partner_decided(seat):
            body = "\n\n".join([body, prompts.partner_decided(t=self._templates)])
        return self._request(seat, body, self._spec(seat, must_decide=False), "talk")

    def _decide_request(self, seat: int) -> Request:
        cfg = self.config
        parts = []
        said = self._undelivered[seat]
        if said:  # a bare decision (no words) is not quoted as an empty message
            parts.append(f'The other party said: "{said}"')
        if self._partner_decided(seat):
            parts.append(prompts.partner_decided(t=self._templates))
        parts.append(prompts.decision_prompt(cfg.market, thinking=cfg.thinking, t=self._templates))
        return self._request(seat, "\n\n".join(parts), self._spec(seat, must_decide=True), "decide")

    def _reflect_request(self, seat: int) -> Request:
        spec = actions.reflection_spec()
        if self._standalone(seat):  # it only knows the last round (App. D.8)
            last = self._records[-1]
            own, other, best = last.rewards[seat], last.rewards[1 - seat], last.oracle_max
        else:
            own, other = self._totals[seat], self._totals[1 - seat]
            best = sum(r.oracle_max for r in self._records)
        body = prompts.reflection_prompt(
            rounds=self.config.rounds,
            own=own,
            other=other,
            joint_max=best,
            standalone=self._standalone(seat),
            t=self._templates,
        )
        return self._request(seat, body, spec, "reflect")
