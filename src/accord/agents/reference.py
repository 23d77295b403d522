"""Registry of reference (non-LLM) agents per game, addressed by name in agent specs.

A game declares its own in its `GameInfo` (``agents``: a mapping ``{agent name: factory}``,
`accord.core.gameinfo`). The older way still works, and lets a package add agents to another
package's game: an entry point of the ``accord.agents`` group whose name is a game id (or alias)
and which names such a mapping (`accord.core.plugins`); a name already taken for that game is
skipped and reported. ``register_reference(game_id, "greedy", GreedyAgent)`` adds one from
code. Specs then say ``{agent: greedy}`` (YAML) or ``--agents greedy,local/smollm2`` (CLI).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from accord.agents.base import Agent
from accord.core import plugins
from accord.core.errors import AccordError, ConfigError, UnknownGameError
from accord.core.gameinfo import Lazy, resolve_ref
from accord.core.registry import info_or_none, resolve, source_of

AgentFactory = Callable[[], Agent]

_REFERENCE: dict[str, dict[str, AgentFactory]] = {}
_DISCOVERED: dict[str, dict[str, AgentFactory]] = {}
_SOURCE: dict[tuple[str, str], str] = {}
_looked: set[str] = set()
_LOCK = threading.RLock()


def register_reference(game_id: str, name: str, factory: AgentFactory) -> None:
    """Make `name` usable as an agent spec in `game_id`."""
    _REFERENCE.setdefault(game_id, {})[name] = factory


def _forget() -> None:
    _DISCOVERED.clear()
    _SOURCE.clear()
    _looked.clear()


plugins.on_refresh(_forget)


def _discover(game_id: str) -> None:
    """Load the ``accord.agents`` entry points of one game, once."""
    if game_id in _looked:
        return
    with _LOCK:
        if game_id not in _looked:
            _load_agents(game_id)
            _looked.add(game_id)


def _load_agents(game_id: str) -> None:
    info = info_or_none(game_id)
    if info is not None and info.agents is not None:
        package = source_of(game_id)
        where = info.agents.target if isinstance(info.agents, Lazy) else "GameInfo.agents"
        try:
            table = resolve_ref(info.agents)
        except AccordError as exc:
            plugins.report(
                package, plugins.GAMES, info.alias, where, str(exc), "fix GameInfo.agents"
            )
        else:
            _add(plugins.Plugin(package, plugins.GAMES, info.alias, where, table), game_id)
    for ep in plugins.entry_points(plugins.AGENTS):
        try:
            target = resolve(ep.name)
        except UnknownGameError:
            plugins.report(
                plugins.package_of(ep),
                ep.group,
                ep.name,
                ep.value,
                f"{ep.name!r} is not an installed game",
                "name the entry point after the game id its agents play (e.g. 'my-game-v1')",
            )
            continue
        plugin = plugins.load(ep) if target == game_id else None
        if plugin is not None:
            _add(plugin, game_id)


def _add(plugin: plugins.Plugin, game_id: str) -> None:
    table = plugin.obj
    if not isinstance(table, Mapping) or not all(
        isinstance(k, str) and callable(v) for k, v in table.items()
    ):
        plugins.reject(
            plugin,
            "it is not a mapping of agent names to factories",
            "point it at a dict such as {'greedy': GreedyAgent} (each value called with no "
            "arguments must return an accord.agents.Agent)",
        )
        return
    mine = _DISCOVERED.setdefault(game_id, {})
    for name, factory in table.items():
        if name in mine:
            owner = _SOURCE[(game_id, name)]
            plugins.reject(
                plugin,
                f"agent {name!r} of {game_id} is already provided by package {owner!r}",
                "give the agent another name (e.g. prefixed with your package name)",
            )
            continue
        mine[name] = factory
        _SOURCE[(game_id, name)] = plugin.package


def _table(game_id: str) -> dict[str, AgentFactory]:
    _discover(game_id)
    return {**_DISCOVERED.get(game_id, {}), **_REFERENCE.get(game_id, {})}


def reference_names(game_id: str) -> list[str]:
    """Reference agents available for a game."""
    return sorted(_table(game_id))


def default_opponent(game_id: str) -> str:
    """The reference agent a person meets by default (`GameInfo.opponent`, else the game's
    first reference agent), or a `ConfigError` saying to name one."""
    table = _table(game_id)
    info = info_or_none(game_id)
    declared = info.opponent if info is not None else ""
    if declared:
        if declared not in table:
            raise ConfigError(
                f"{game_id} declares {declared!r} as its default opponent, but it has no such "
                f"reference agent ({', '.join(sorted(table)) or 'none'}); name one with --against"
            )
        return declared
    if not table:
        raise ConfigError(
            f"{game_id} has no reference agents to play against; name an opponent with "
            "--against (a model such as 'local/smollm2', or 'human')"
        )
    return next(iter(table))


def make_reference(game_id: str, name: str) -> Agent:
    """Build a reference agent, or explain which names exist."""
    table = _table(game_id)
    if name not in table:
        known = ", ".join(sorted(table)) or "(none)"
        raise ConfigError(
            f"Unknown agent {name!r} for {game_id}. Reference agents: {known}; 'human' seats a "
            "person; anything with a '/' is a model, e.g. 'local/smollm2' or 'openai/gpt-5-mini'."
        )
    agent = table[name]()
    agent.spec = name
    return agent
