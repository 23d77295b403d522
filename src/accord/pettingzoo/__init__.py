"""PettingZoo AEC and Parallel environments for every registered game, with text observations
and actions (`parallel_env`: a step answers every pending request at once; see
`accord.pettingzoo.parallel`).

    from accord.pettingzoo import env

    e = env("negotiation-v3", rounds=1)
    e.reset(seed=0)
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, info = e.last()
        e.step(None if terminated or truncated else my_policy(observation, info))

- Agents are ``seat_0`` .. ``seat_{n-1}``. The AEC turn order follows the game's requests;
  requests pending together (simultaneous moves) are asked in seat order and reach the game
  only once all are answered.
- An observation is the next message of the seat's conversation: its system prompt first when
  a conversation opens, then the request's text. Spaces are `gymnasium.spaces.Text`.
- An action is reply text, parsed by the request's `ActionSpec.parse` exactly as a model's
  reply would be. An invalid reply plays the documented fallback (or, with
  ``invalid_action="retry"``, is asked again); ``infos[agent]["error"]`` says why.
- Rewards are 0 per step (plus ``invalid_penalty`` per invalid reply) and each seat's final
  score when the game ends (`scores`); ``max_steps`` truncates.

docs/pettingzoo.md documents every choice. Requires the ``rl`` extra (pettingzoo, gymnasium).
"""

from __future__ import annotations

from accord.pettingzoo.aec import AccordAECEnv, env, raw_env
from accord.pettingzoo.parallel import AccordParallelEnv, parallel_env
from accord.pettingzoo.scores import ScoreFn, register_score
from accord.pettingzoo.text import DEFAULT_CHARSET, TextObservation

__all__ = [
    "DEFAULT_CHARSET",
    "AccordAECEnv",
    "AccordParallelEnv",
    "ScoreFn",
    "TextObservation",
    "env",
    "parallel_env",
    "raw_env",
    "register_score",
]
