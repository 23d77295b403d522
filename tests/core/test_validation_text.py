"""Validation errors in the words of the person's own file (issue: "errors from experiment
files show pydantic internals")."""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.core.errors import ConfigError
from accord.core.registry import make_config
from accord.runner.config import load_experiment

BAD = """\
name: x
defaults:
  game: negotiation
  agents: [cooperative, {agent: greedy, latencyy: 1}]
batches:
  - name: a
  - name: b
    agents: [5, greedy]
"""


def _error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_experiment(path)
    return str(caught.value)


def test_experiment_errors_name_yaml_places_and_what_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD)
    text = _error(path)
    lines = text.splitlines()[1:]
    assert lines == [
        "  - defaults.agents[1].latencyy: unknown key (check the spelling; allowed here: "
        "model, agent, label, temperature, max_tokens, action_mode, options, remote, batch)",
        "  - batches[1].agents[0]: must be a mapping or a string (got 5)",
    ]
    for internal in ("function-after", "_one_kind", ".str", "AgentSpec", "Input should be"):
        assert internal not in text


def test_a_missing_key_and_a_bad_value_are_said_plainly(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("defaults:\n  game: negotiation\n  games: lots\nbatches:\n  - games: 2\n")
    text = _error(path)
    assert "defaults.games: " in text and "(got 'lots')" in text
    assert "batches[0].name: required, but missing" in text


def test_game_options_list_the_allowed_options() -> None:
    with pytest.raises(ConfigError) as caught:
        make_config("negotiation", {"roundz": 3})
    text = str(caught.value)
    assert "roundz: unknown key" in text and "allowed here:" in text and "rounds" in text
