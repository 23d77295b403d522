"""`AccordParallelEnv`: any registered game as a PettingZoo Parallel environment.

Every game here has simultaneous moves somewhere (negotiation's and CalBench's decisions,
MAS-Bench's rounds): the Parallel API hands a step's actions in together, which is how such a
game is played. A step answers the game's whole pending batch at once:

- ``step(actions)`` takes one reply text per live agent. Agents with a pending request act
  (``infos[agent]["acting"]`` is True, and their observation is the request); the others'
  actions are ignored, as a no-op of a turn-based phase (a talk turn asks one seat).
- A reply that does not parse follows the environment's ``invalid_action`` rule, as in the
  AEC environment: the documented fallback, or (``"retry"``) the same agent asked again at the
  next step with the error as its observation.
- Rewards: 0 per step, plus ``invalid_penalty`` per invalid reply, plus each seat's final
  score when the game ends; then every agent is terminated and ``agents`` is empty.
  ``max_steps`` counts Parallel steps and truncates every agent.

It runs on the AEC environment's mechanics (`AccordAECEnv`), so both APIs play the same game
with the same parsing, fallbacks and scores: a game played through either is the same game.
"""

from __future__ import annotations

import functools
from typing import Any

from gymnasium.spaces import Text
from pettingzoo import ParallelEnv

from accord.core.errors import ConfigError
from accord.core.game import GameResult
from accord.core.spec import Request
from accord.pettingzoo.aec import AccordAECEnv
from accord.pettingzoo.text import TextObservation


class AccordParallelEnv(ParallelEnv):  # type: ignore[misc]  # pettingzoo ships no types
    """One Accord game as a Parallel environment (agents ``seat_0`` .. ``seat_{n-1}``).

    Keywords are those of `AccordAECEnv` (``max_steps`` counts Parallel steps here) plus
    the game's own options.
    """

    def __init__(
        self,
        game_id: str,
        render_mode: str | None = None,
        *,
        max_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        if max_steps is not None and max_steps < 1:
            raise ConfigError(f"max_steps must be at least 1 (or None), got {max_steps}")
        self._aec = AccordAECEnv(game_id, render_mode, **kwargs)
        self.game_id = self._aec.game_id
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.possible_agents: list[str] = list(self._aec.possible_agents)
        self.agents: list[str] = []
        self.metadata = {**self._aec.metadata, "is_parallelizable": True}
        self._steps = 0

    @property
    def game(self) -> Any:
        """The game being played (read it; acting on it directly desynchronises the env)."""
        return self._aec.game

    @property
    def episode_seed(self) -> int | None:
        """The game seed of the current episode."""
        return self._aec.episode_seed

    @functools.cache  # noqa: B019 - PettingZoo asks for the same space object every time
    def observation_space(self, agent: str) -> Text:
        return self._aec.observation_space(agent)

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> Text:
        return self._aec.action_space(agent)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, TextObservation], dict[str, dict[str, Any]]]:
        """Start a game (``seed`` as in `AccordAECEnv.reset`); returns observations and infos
        of every agent."""
        self._aec.reset(seed=seed, options=options)
        self.agents = list(self._aec.agents)
        self._steps = 0
        return self._observations(), self._infos()

    def step(
        self, actions: dict[str, str]
    ) -> tuple[
        dict[str, TextObservation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Answer every pending request with its agent's reply text, at once."""
        aec = self._aec
        live = list(self.agents)
        rewards = dict.fromkeys(live, 0.0)
        acting = [a for a in live if aec.pending_request(a) is not None]
        missing = [a for a in acting if not isinstance(actions.get(a), str)]
        if missing:
            raise TypeError(f"reply text (a str) is needed for the acting agents {missing}")
        for agent in acting:
            if aec.pending_request(agent) is None or aec.terminations.get(agent):
                continue
            aec.agent_selection = agent  # the batch waits for every seat, in any order
            aec.step(actions[agent])
            for a, r in aec.rewards.items():
                if a in rewards:
                    rewards[a] += r
        self._steps += 1
        finished = aec.result() is not None
        truncated = not finished and self.max_steps is not None and self._steps >= self.max_steps
        terminations = dict.fromkeys(live, finished)
        truncations = dict.fromkeys(live, truncated)
        observations, infos = self._observations(live), self._infos(live)
        if finished or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return self._aec.render()

    def close(self) -> None:
        self._aec.close()

    # -- extras, as on the AEC environment -------------------------------------------------
    def pending_request(self, agent: str) -> Request | None:
        """The game's `Request` behind `agent`'s observation, if it must act this step."""
        return self._aec.pending_request(agent)

    def result(self) -> GameResult | None:
        """The finished game's result; ``None`` until it ends."""
        return self._aec.result()

    def _observations(self, agents: list[str] | None = None) -> dict[str, TextObservation]:
        return {a: self._aec.observe(a) for a in (self.agents if agents is None else agents)}

    def _infos(self, agents: list[str] | None = None) -> dict[str, dict[str, Any]]:
        return {
            a: {**self._aec.infos[a], "acting": self._aec.pending_request(a) is not None}
            for a in (self.agents if agents is None else agents)
        }


def parallel_env(game_id: str, render_mode: str | None = None, **options: Any) -> AccordParallelEnv:
    """A game as a PettingZoo Parallel environment (`AccordParallelEnv`)."""
    return AccordParallelEnv(game_id, render_mode, **options)
