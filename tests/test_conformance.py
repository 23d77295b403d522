"""Every registered game passes the conformance suite shipped in `accord.testing`."""

from __future__ import annotations

import pytest

from accord import testing
from accord.core.registry import game_ids


@pytest.mark.parametrize("game_id", game_ids())
def test_api(game_id: str) -> None:
    testing.check_api(game_id)


@pytest.mark.parametrize("game_id", game_ids())
def test_determinism(game_id: str) -> None:
    testing.check_determinism(game_id)


@pytest.mark.parametrize("game_id", game_ids())
def test_oracle(game_id: str) -> None:
    testing.check_oracle(game_id)


@pytest.mark.parametrize("game_id", game_ids())
def test_trace_roundtrip(game_id: str) -> None:
    testing.check_trace_roundtrip(game_id)


@pytest.mark.parametrize("game_id", game_ids())
def test_replay(game_id: str) -> None:
    testing.check_replay(game_id)


@pytest.mark.parametrize("game_id", game_ids())
def test_requests_unchanged(game_id: str) -> None:
    testing.check_requests_unchanged(game_id)


@pytest.mark.parametrize("game_id", game_ids())
def test_rejects_outside_spec(game_id: str) -> None:
    testing.check_rejects_outside_spec(game_id)


@pytest.mark.parametrize("game_id", game_ids())
def test_bombardment(game_id: str) -> None:
    seen = testing.check_bombardment(game_id)
    assert seen.games == 20
    assert seen.events["model_call"] > 0  # the random model did play every game


def test_registry_lists_negotiation() -> None:
    assert "negotiation-v3" in game_ids()
