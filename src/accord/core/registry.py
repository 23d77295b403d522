"""Registry of versioned game ids (DESIGN principle 4).

Games are found through the ``accord.games`` entry point group (`accord.core.plugins`): each entry
point names a game's `GameInfo` declaration (`accord.core.gameinfo`), or, the older way, a bare
`Game` subclass, and its name is the game's short alias. Accord's own games are declared there
like anyone else's, so this module never imports a game. `register` adds a game from code (a
notebook, a test). `make(game_id, cfg)` builds one.

A class that breaks the contract (not a `Game`, abstract methods left, no versioned
``game_id``, a config model without defaults) or whose id or alias is taken is left out and
recorded in `accord.core.plugins.problems`; the other games load as usual.
"""

from __future__ import annotations

import difflib
import inspect
import re
import threading
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from accord.core import plugins
from accord.core.declaration import GameInfo
from accord.core.errors import ConfigError, UnknownGameError
from accord.core.game import Game
from accord.core.validation_text import format_validation_error as format_validation_error

GAME_ID = re.compile(r"^[a-z][a-z0-9_.-]*-v[0-9]+$")
"""A game id: lower-case name, a dash, ``v`` and a version number (``meeting-point-v1``)."""

_GAMES: dict[str, type[Game]] = {}
_INFOS: dict[str, GameInfo] = {}
_ALIASES: dict[str, str] = {}
_SOURCE: dict[str, str] = {}
"""Which package provided each game id and alias (for clash messages)."""
_discovered = False
_LOCK = threading.RLock()
"""Discovery runs once even when several threads (a web server's) ask at the same time."""


_FROM_CODE: dict[str, tuple[GameInfo, tuple[str, ...]]] = {}
"""Games registered by `register` (kept across `accord.core.plugins.refresh`)."""

GameT = type[Game] | GameInfo


def register(game: GameT, *aliases: str) -> GameT:
    """Register a game (its `GameInfo`, or a bare class) under its `game_id` and aliases.

    A `GameInfo`'s own alias is registered too.
    """
    info = game if isinstance(game, GameInfo) else GameInfo.of(game, aliases[0] if aliases else "")
    names = tuple(dict.fromkeys(a for a in (*aliases, info.alias) if a and a != info.game_id))
    _FROM_CODE[info.game_id] = (info, names)
    _put(info, names)
    return game


def _put(info: GameInfo, aliases: tuple[str, ...]) -> None:
    _GAMES[info.game_id] = info.game
    _INFOS[info.game_id] = info
    for alias in aliases:
        _ALIASES[alias] = info.game_id


def _forget() -> None:
    global _discovered
    _GAMES.clear()
    _INFOS.clear()
    _ALIASES.clear()
    _SOURCE.clear()
    for info, aliases in _FROM_CODE.values():
        _put(info, aliases)
    _discovered = False


plugins.on_refresh(_forget)


def _discover() -> None:
    """Load the ``accord.games`` entry points once (`accord.core.plugins.refresh` starts over)."""
    global _discovered
    if _discovered:
        return
    with _LOCK:
        if _discovered:
            return
        found = plugins.entry_points(plugins.GAMES)
        _discovered = True  # set before loading: a game module may ask the registry itself
        for ep in found:
            plugin = plugins.load(ep)
            if plugin is not None:
                _add(plugin)


def _add(plugin: plugins.Plugin) -> None:
    declared = plugin.obj
    cls = declared.game if isinstance(declared, GameInfo) else declared
    broken = contract_problem(cls)
    if broken is not None:
        plugins.reject(plugin, *broken)
        return
    info = declared if isinstance(declared, GameInfo) else GameInfo.of(cls, plugin.name)
    names = list(dict.fromkeys([cls.game_id, plugin.name, info.alias]))
    for name in names:
        taken = name in _GAMES or name in _ALIASES
        if taken and game_class_or_none(name) is not cls:
            owner = _SOURCE.get(name, "code that called accord.core.registry.register")
            plugins.reject(
                plugin,
                f"the name {name!r} is already taken by a game from package {owner!r}",
                "give the game another game_id (e.g. prefixed with your package name, "
                f"'{plugin.package.replace('_', '-')}-{name}') and name the entry point after it",
            )
            return
    _put(info, tuple(names[1:]))
    for name in names:
        _SOURCE[name] = plugin.package


def info_or_none(name: str) -> GameInfo | None:
    """The declaration registered under an id or alias, None if there is none."""
    _discover()
    return _INFOS.get(_ALIASES.get(name, name))


def source_of(name: str) -> str:
    """The package that provided a game id or alias (``"code"`` when `register` added it)."""
    return _SOURCE.get(_ALIASES.get(name, name), "code")


def game_class_or_none(name: str) -> type[Game] | None:
    """The class registered under an id or alias, None if there is none (no discovery)."""
    return _GAMES.get(_ALIASES.get(name, name))


def contract_problem(cls: object) -> tuple[str, str] | None:
    """What is wrong with `cls` as a game class, and the fix; None when it can be registered.

    Static checks only: the behaviour is the conformance suite's job (`accord.testing`).
    """
    if not (inspect.isclass(cls) and issubclass(cls, Game)):
        return (
            f"{cls!r} is not a subclass of accord.core.Game",
            "point the entry point at your game's GameInfo ('module:INFO') or Game subclass",
        )
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        return (
            f"{cls.__name__} leaves abstract methods unimplemented: {missing}",
            "implement every method of the Game contract (see docs/writing-a-game.md)",
        )
    game_id = getattr(cls, "game_id", None)
    if not isinstance(game_id, str) or not GAME_ID.match(game_id):
        return (
            f"{cls.__name__}.game_id is {game_id!r}, not a versioned id",
            "set game_id to a lower-case name ending in a version, e.g. 'my-game-v1'",
        )
    model = getattr(cls, "config_model", None)
    if not (inspect.isclass(model) and issubclass(model, BaseModel)):
        return (
            f"{cls.__name__}.config_model is {model!r}, not a pydantic model class",
            "set config_model to a pydantic BaseModel subclass holding the game's options",
        )
    try:
        model.model_validate({})
    except ValidationError as exc:
        fields = ", ".join(".".join(map(str, e["loc"])) for e in exc.errors())
        return (
            f"{cls.__name__}.config_model cannot be built without options (needs {fields})",
            "give every option a default, so `accord run GAME` works with no options",
        )
    return None


def game_ids() -> list[str]:
    """Every registered game id, sorted."""
    _discover()
    return sorted(_GAMES)


def resolve(game: str) -> str:
    """Full game id for an id or alias; a guiding error for an unknown one."""
    _discover()
    if game in _GAMES:
        return game
    if game in _ALIASES:
        return _ALIASES[game]
    known = sorted([*_GAMES, *_ALIASES])
    close = difflib.get_close_matches(game, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    skipped = plugins.problems(plugins.GAMES)
    named = [p for p in skipped if p.name == game]
    if named:
        hint += f" It was skipped: {named[0].line()}"
    elif skipped:
        hint += f" ({len(skipped)} game plugin(s) were skipped; `accord games` says why.)"
    raise UnknownGameError(f"Unknown game {game!r}.{hint} Known games: {', '.join(known)}.")


def game_class(game: str) -> type[Game]:
    """The class registered for a game id or alias."""
    return _GAMES[resolve(game)]


def make_config(game: str, options: Mapping[str, Any] | None = None) -> BaseModel:
    """Validate `options` against the game's config model, naming any bad key."""
    cls = game_class(game)
    try:
        return cls.config_model.model_validate(dict(options or {}))
    except ValidationError as exc:
        raise ConfigError(
            format_validation_error(
                exc,
                where=f"{cls.game_id} options",
                data=dict(options or {}),
                model=cls.config_model,
            )
        ) from exc


def make(game: str, options: Mapping[str, Any] | BaseModel | None = None) -> Game:
    """Build a game from its id and options (a dict or the game's config model)."""
    cls = game_class(game)
    cfg = options if isinstance(options, BaseModel) else make_config(game, options)
    return cls(cfg)
