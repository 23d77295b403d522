"""Contracts: the Game state machine, requests and actions, errors, seeded RNG, and the small
helpers every layer shares. Pure, except the few modules docs/architecture.md lists as reading
files or the environment (inputs, outdir, prompts, plugins, secrets)."""

from accord.core.errors import (
    AccordError,
    ActionError,
    ConfigError,
    MissingAPIKeyError,
    ModelError,
    ProviderNotFoundError,
    TransientModelError,
    UnknownGameError,
)
from accord.core.game import Game, GameResult
from accord.core.registry import game_ids, make, register, resolve
from accord.core.rng import derive_seed, make_rng
from accord.core.spec import Action, ActionSpec, Request

__all__ = [
    "AccordError",
    "Action",
    "ActionError",
    "ActionSpec",
    "ConfigError",
    "Game",
    "GameResult",
    "MissingAPIKeyError",
    "ModelError",
    "ProviderNotFoundError",
    "Request",
    "TransientModelError",
    "UnknownGameError",
    "derive_seed",
    "game_ids",
    "make",
    "make_rng",
    "register",
    "resolve",
]
