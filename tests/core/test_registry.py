from __future__ import annotations

import pytest

from accord.core.errors import ConfigError, UnknownGameError
from accord.core.registry import make, make_config, resolve
from accord.core.rng import derive_seed, make_rng


def test_alias_resolves_to_versioned_id() -> None:
    assert resolve("negotiation") == "negotiation-v3"


def test_unknown_game_suggests_close_match() -> None:
    with pytest.raises(UnknownGameError, match="Did you mean 'negotiation'"):
        resolve("negociation")


def test_unknown_option_is_named() -> None:
    with pytest.raises(ConfigError, match="roundz: unknown key"):
        make_config("negotiation", {"roundz": 3})


def test_bad_value_names_key_and_allowed_values() -> None:
    with pytest.raises(ConfigError) as exc:
        make("negotiation", {"partner": "sometimes"})
    assert "partner" in str(exc.value) and "stable" in str(exc.value)


def test_seeds_are_stable_and_independent() -> None:
    assert derive_seed(1, "a") == derive_seed(1, "a")
    assert derive_seed(1, "a") != derive_seed(1, "b")
    assert make_rng(5, "x").random() == make_rng(5, "x").random()
