"""`AccordAECEnv`: any registered game as a PettingZoo AEC environment with text spaces.

See `accord.pettingzoo` (and docs/pettingzoo.md) for the behaviour users rely on; comments
here explain the mechanics.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Iterable
from typing import Any, Literal

import gymnasium
from gymnasium.spaces import Text
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from accord.core import provenance
from accord.core.errors import AccordError, ActionError, ConfigError
from accord.core.game import Game, GameResult
from accord.core.provenance import AGENT
from accord.core.registry import info_or_none, make
from accord.core.rng import derive_seed
from accord.core.spec import Action, Request
from accord.pettingzoo.scores import ScoreFn, final_scores, resolve_score
from accord.pettingzoo.text import TextFitter, TextObservation, make_charset, retry_text

InvalidAction = Literal["fallback", "retry"]

MAX_OBSERVATION_LENGTH = 1 << 20
"""Default cap of an observation, in characters (far above any game's prompts)."""
MAX_ACTION_LENGTH = 16_384
"""Default cap of an action: room for any reply a game's schema allows, and short enough that
random samples (what `api_test` sends) stay cheap to parse."""
MAX_RETRIES = 3
"""Re-asks after an invalid reply in ``retry`` mode, as `LLMAgent` re-prompts a model."""


class AccordAECEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """One Accord game as an AEC environment (agents ``seat_0`` .. ``seat_{n-1}``).

    Args:
        game_id: a registered game id or alias (``accord.core.game_ids()``).
        render_mode: ``None`` or ``"ansi"`` (`render` returns the selected agent's text).
        max_steps: truncate every agent after this many agent steps (``None``: never; every
            game ends by its own rules).
        invalid_action: ``"fallback"`` (default) plays the request's documented fallback
            action for a reply that does not parse; ``"retry"`` asks the same agent again
            with the error, up to `max_retries` times, then falls back.
        max_retries: re-asks per request in ``retry`` mode.
        invalid_penalty: reward added for each reply that does not parse (default 0).
        reward: final score per seat: ``None`` (the game's default, `scores`), a seat-row
            column name (``"-excess_cost"`` negates it), or a function of the `GameResult`.
        charset: characters of both text spaces (default `text.DEFAULT_CHARSET`).
        max_observation_length / max_action_length: ``max_length`` of the spaces.
        **options: the game's options (its config model validates them).
    """

    def __init__(
        self,
        game_id: str,
        render_mode: str | None = None,
        *,
        max_steps: int | None = None,
        invalid_action: InvalidAction = "fallback",
        max_retries: int = MAX_RETRIES,
        invalid_penalty: float = 0.0,
        reward: str | ScoreFn | None = None,
        charset: Iterable[str] | None = None,
        max_observation_length: int = MAX_OBSERVATION_LENGTH,
        max_action_length: int = MAX_ACTION_LENGTH,
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ConfigError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if invalid_action not in ("fallback", "retry"):
            raise ConfigError(
                f"invalid_action must be 'fallback' or 'retry', got {invalid_action!r}"
            )
        if max_steps is not None and max_steps < 1:
            raise ConfigError(f"max_steps must be at least 1 (or None), got {max_steps}")
        if max_retries < 0:
            raise ConfigError(f"max_retries must be 0 or more, got {max_retries}")
        if min(max_observation_length, max_action_length) < 1:
            raise ConfigError("max_observation_length and max_action_length must be positive")
        self.game: Game = make(game_id, options)
        """The game being played (read it; acting on it directly desynchronises the env)."""
        self.game_id = self.game.game_id
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.invalid_action: InvalidAction = invalid_action
        self.max_retries = max_retries
        self.invalid_penalty = float(invalid_penalty)
        self._score = resolve_score(self.game_id, reward)
        chars, stand_in = make_charset(charset)
        self._fitter = TextFitter(chars, stand_in, max_observation_length)
        kind = info_or_none(self.game_id)
        game_type = kind.kind if kind is not None else None
        if game_type is not None and not (
            game_type.seats[0] <= self.game.num_seats <= game_type.seats[1]
        ):
            raise ConfigError(
                f"{self.game_id} declares {game_type.seats[0]}-{game_type.seats[1]} seats but "
                f"its options give {self.game.num_seats}; fix the options or the declaration"
            )
        self.metadata = {
            "name": "accord_" + self.game_id.replace("-", "_"),
            "render_modes": ["ansi"],
            # Talk phases let one seat act at a time, so not every live agent acts each cycle
            # (the Parallel environment, `accord.pettingzoo.parallel`, answers whole batches).
            "is_parallelizable": False,
            "game_type": dataclasses.asdict(game_type) if game_type is not None else None,
        }
        self.possible_agents: list[str] = [f"seat_{i}" for i in range(self.game.num_seats)]
        self.observation_spaces = {
            a: Text(max_observation_length, min_length=0, charset=chars)
            for a in self.possible_agents
        }
        self.action_spaces = {
            a: Text(max_action_length, min_length=0, charset=chars) for a in self.possible_agents
        }
        self._base_seed: int | None = None
        self._episode = 0
        self.episode_seed: int | None = None
        """The game seed of the current episode (replay it with ``reset(seed=episode_seed)``)."""
        self._result: GameResult | None = None

    # -- spaces ----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> Text:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Text:
        return self.action_spaces[agent]

    # -- episode ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game. ``seed`` is the game seed (the same game as ``accord run --seed``);
        without one, the episode seed derives from the last seed given (fresh entropy if none
        was ever given). ``options`` is accepted for the API and ignored: game options are
        fixed when the environment is built."""
        del options
        if seed is not None:
            self._base_seed, self._episode = int(seed), 0
            self.episode_seed = self._base_seed
        elif self._base_seed is None:
            self._base_seed, self._episode = secrets.randbits(63), 0
            self.episode_seed = self._base_seed
        else:
            self._episode += 1
            self.episode_seed = derive_seed(self._base_seed, "pettingzoo-episode", self._episode)
        self.game.reset(self.episode_seed)
        if self.game.num_seats != len(self.possible_agents):
            raise AccordError(
                f"{self.game_id} changed its seat count to {self.game.num_seats} at reset; "
                "build one environment per seat count"
            )
        self.agents = list(self.possible_agents)
        self.agent_selection = self.agents[0]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._obs = {a: TextObservation("") for a in self.agents}
        self._shown_system: dict[str, str | None] = {}
        self._request_info: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._feedback: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._batch: list[Request] = []
        self._answers: dict[int, Action] = {}
        self._decided: dict[int, provenance.Provenance] = {}
        self._attempts: dict[int, int] = {}
        self._steps = 0
        self._result = None
        self._next_batch()
        self._accumulate_rewards()

    def step(self, action: str | None) -> None:
        """Answer the selected agent's request with reply text (``None`` once it is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not isinstance(action, str):
            raise TypeError(f"{agent}'s action must be reply text (a str), got {type(action)}")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._steps += 1
        request = self.pending_request(agent)
        if request is None:
            raise AccordError(f"{agent} is selected but has no pending request (a bug)")
        parsed = self._parse(request, action)
        if parsed is not None:
            self._answers[request.seat] = parsed
            waiting = [r for r in self._batch if r.seat not in self._answers]
            if waiting:
                self.agent_selection = self._agent(waiting[0].seat)
            else:
                self._submit_batch()
        if self._result is None and self.max_steps is not None and self._steps >= self.max_steps:
            # The game is unfinished, so it has no result and no final scores to pay out.
            self.truncations = dict.fromkeys(self.agents, True)
            self._deads_step_first()
        self._accumulate_rewards()

    def observe(self, agent: str) -> TextObservation:
        """The latest text `agent` was sent ("" before its first request)."""
        return self._obs[agent]

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called with render_mode=None; nothing to render")
            return None
        return str(self._obs[self.agent_selection])

    def close(self) -> None:
        """Nothing to release: a game holds no processes, files or connections."""

    # -- extras for scripted policies and analysis -----------------------------------------
    def pending_request(self, agent: str) -> Request | None:
        """The game's `Request` behind `agent`'s current observation, if it must act.

        For scripted policies (reference agents read ``Request.info``) and demonstrations.
        ``info`` may hold hints a learning policy must not see (calendar's ``oracle_slots``).
        """
        for request in self._batch:
            if self._agent(request.seat) == agent and request.seat not in self._answers:
                return request
        return None

    def result(self) -> GameResult | None:
        """The finished game's result (metrics, seat rows); ``None`` until it ends."""
        return self._result

    # -- mechanics -------------------------------------------------------------------------
    def _agent(self, seat: int) -> str:
        return self.possible_agents[seat]

    def _next_batch(self) -> None:
        """Issue the game's pending requests, or pay out the final scores once it is over.

        Simultaneous requests are asked one agent at a time in seat order, but the game sees
        none of the answers until all are in (`_submit_batch`), so no agent of a batch can
        react to another's move.
        """
        if self.game.done():
            self._finish()
            return
        batch = sorted(self.game.pending(), key=lambda r: r.seat)
        if not batch:
            raise AccordError(f"{self.game_id} is not done but has no pending request")
        if len({r.seat for r in batch}) != len(batch):
            raise AccordError(f"{self.game_id} asked one seat twice at once")
        self._batch, self._answers, self._attempts = batch, {}, {}
        self._decided = {}
        for request in batch:
            self._issue(request)
        self.agent_selection = self._agent(batch[0].seat)

    def _issue(self, request: Request, retry: str | None = None) -> None:
        """Send `request` (or, with `retry`, the re-prompt for it) to its agent."""
        agent = self._agent(request.seat)
        system = request.system
        # A request opens a new conversation when it is the seat's first, when the game resets
        # the seat's context (a shifting partner) or replaces its system prompt; the system
        # prompt then leads the text. A re-prompt continues the conversation it belongs to.
        # A request without a system prompt keeps the current one, as `LLMAgent` does.
        new = retry is None and (
            agent not in self._shown_system
            or request.reset_context
            or (system is not None and system != self._shown_system[agent])
        )
        body = request.observation if retry is None else retry
        text = f"{system}\n\n{body}" if new and system is not None else body
        if system is not None or agent not in self._shown_system:
            self._shown_system[agent] = system
        self._obs[agent], cut = self._fitter.fit(text)
        spec = request.spec
        info: dict[str, Any] = {
            "seat": request.seat,
            "kind": spec.kind,
            "round": request.round,
            "turn": request.turn,
            "attempt": self._attempts.get(request.seat, 0) + 1,
            "system": system,
            "new_conversation": new,
            "ephemeral": request.ephemeral,
            "format_hint": spec.format_hint,
            "schema": spec.schema,
        }
        if cut:
            info["observation_cut"] = True
        self._request_info[agent] = info
        self._update_info(agent)

    def _update_info(self, agent: str) -> None:
        self.infos[agent] = {**self._request_info[agent], **self._feedback[agent]}

    def _parse(self, request: Request, text: str) -> Action | None:
        """The action for `text`; ``None`` when the agent is asked again (``retry`` mode)."""
        agent = self._agent(request.seat)
        try:
            action, warnings = provenance.parse_reply(request.spec, text)
        except ActionError as exc:
            self.rewards[agent] += self.invalid_penalty
            self._feedback[agent] = {"error": str(exc), "error_kind": exc.kind}
            attempts = self._attempts.get(request.seat, 0)
            # Without a fallback there is nothing to play instead, so the agent is asked again.
            if request.spec.fallback is None or (
                self.invalid_action == "retry" and attempts < self.max_retries
            ):
                self._attempts[request.seat] = attempts + 1
                self._issue(request, retry_text(str(exc), request.spec.format_hint))
                return None
            return self._fallback(request, agent, str(exc))
        self._decided[request.seat] = provenance.Provenance(
            source="retry" if self._attempts.get(request.seat) else "agent",
            warnings=tuple(warnings),
        )
        self._feedback[agent] = {"fallback": False, "warnings": list(warnings)}
        self._request_info[agent] = {"seat": request.seat}
        self._update_info(agent)
        return action

    def _fallback(self, request: Request, agent: str, reason: str) -> Action:
        # Games leave decisions that came from a fallback out of their metrics.
        action = provenance.use_fallback(request.spec, reason, _no_event)
        self._decided[request.seat] = provenance.fallback(reason)
        self._feedback[agent] = {**self._feedback[agent], "fallback": True}
        self._request_info[agent] = {"seat": request.seat}
        self._update_info(agent)
        return action

    def _submit_batch(self) -> None:
        """Hand every answer of the batch to the game, in seat order, then move on.

        A parsed reply the game still rejects (a rule only the game state can check) is
        replaced by the fallback: earlier answers of the batch are already with the game, so
        asking again could let the agent see their effect.
        """
        for request in self._batch:
            action = self._answers[request.seat]
            try:
                provenance.submit(
                    self.game, request.seat, action, self._decided.get(request.seat, AGENT)
                )
            except ActionError as exc:
                if request.spec.fallback is None:
                    raise
                agent = self._agent(request.seat)
                self.rewards[agent] += self.invalid_penalty
                self._feedback[agent] = {"error": str(exc), "error_kind": exc.kind}
                action = self._fallback(request, agent, str(exc))
                provenance.submit(self.game, request.seat, action, self._decided[request.seat])
        self._next_batch()

    def _finish(self) -> None:
        """Pay each seat its final score and end the episode for everyone."""
        result = self.game.result()
        self._result = result
        self._batch = []
        scores = final_scores(self._score, result, len(self.possible_agents))
        for seat, score in enumerate(scores):
            agent = self._agent(seat)
            self.rewards[agent] += score
            self._request_info[agent] = {
                "seat": seat,
                "score": score,
                "seat_row": result.seat_rows[seat],
            }
            self._update_info(agent)
        self.terminations = dict.fromkeys(self.agents, True)
        self._deads_step_first()


def env(game_id: str, render_mode: str | None = None, **options: Any) -> Any:
    """A game as a PettingZoo AEC environment, wrapped to enforce the API's call order.

    Keywords are those of `AccordAECEnv` (adapter options) plus the game's own options.
    """
    return OrderEnforcingWrapper(AccordAECEnv(game_id, render_mode, **options))


raw_env = AccordAECEnv
"""The unwrapped environment class (PettingZoo's naming)."""


def _no_event(type_: str, **fields: Any) -> None:
    """The environment keeps no trace: its ``infos`` report fallbacks instead."""
    del type_, fields
