"""Registry of reference (non-LLM) agents per game, addressed by name in agent specs.

A game package registers its reference agents at import:
``register_reference("negotiation-v2", "greedy", GreedyAgent)``. Specs then say
``{agent: greedy}`` (YAML) or ``--agents greedy,local/smollm2`` (CLI).
"""

from __future__ import annotations

from collections.abc import Callable

from accord.agents.base import Agent
from accord.core.errors import ConfigError

AgentFactory = Callable[[], Agent]

_REFERENCE: dict[str, dict[str, AgentFactory]] = {}


def register_reference(game_id: str, name: str, factory: AgentFactory) -> None:
    """Make `name` usable as an agent spec in `game_id`."""
    _REFERENCE.setdefault(game_id, {})[name] = factory


def reference_names(game_id: str) -> list[str]:
    """Reference agents available for a game."""
    return sorted(_REFERENCE.get(game_id, {}))


def make_reference(game_id: str, name: str) -> Agent:
    """Build a reference agent, or explain which names exist."""
    table = _REFERENCE.get(game_id, {})
    if name not in table:
        known = ", ".join(sorted(table)) or "(none)"
        raise ConfigError(
            f"Unknown agent {name!r} for {game_id}. Reference agents: {known}; 'human' seats a "
            "person; anything with a '/' is a model, e.g. 'local/smollm2' or 'openai/gpt-5-mini'."
        )
    agent = table[name]()
    agent.spec = name
    return agent
