"""Registry of versioned game ids (DESIGN principle 4).

Games register themselves in their package `__init__`; `make("negotiation-v2", cfg)` builds one.
Importing `accord.games` registers every built-in game.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from accord.core.errors import ConfigError, UnknownGameError
from accord.core.game import Game

_GAMES: dict[str, type[Game]] = {}
_ALIASES: dict[str, str] = {}


def register(cls: type[Game], *aliases: str) -> type[Game]:
    """Register a game class under its `game_id` (and short aliases such as ``negotiation``)."""
    _GAMES[cls.game_id] = cls
    for alias in aliases:
        _ALIASES[alias] = cls.game_id
    return cls


def _ensure_builtins() -> None:
    import accord.games  # noqa: F401  (registers the built-in games)


def game_ids() -> list[str]:
    """Every registered game id, sorted."""
    _ensure_builtins()
    return sorted(_GAMES)


def resolve(game: str) -> str:
    """Full game id for an id or alias; a guiding error for an unknown one."""
    _ensure_builtins()
    if game in _GAMES:
        return game
    if game in _ALIASES:
        return _ALIASES[game]
    known = sorted([*_GAMES, *_ALIASES])
    close = difflib.get_close_matches(game, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
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
        raise ConfigError(format_validation_error(exc, where=f"{cls.game_id} options")) from exc


def make(game: str, options: Mapping[str, Any] | BaseModel | None = None) -> Game:
    """Build a game from its id and options (a dict or the game's config model)."""
    cls = game_class(game)
    cfg = options if isinstance(options, BaseModel) else make_config(game, options)
    return cls(cfg)


def format_validation_error(exc: ValidationError, *, where: str) -> str:
    """A pydantic error as short lines naming each bad key and what is allowed."""
    lines = [f"Invalid {where}:"]
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key (check the spelling; see the docs for the allowed keys)"
        lines.append(f"  - {loc}: {msg}")
    return "\n".join(lines)
