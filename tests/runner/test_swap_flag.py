"""``--swap-first-speaker`` (``plan(..., swap_first_speaker=True)``) applies to experiment files
too: every game is played twice with the first speaker swapped."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from accord.core.errors import ConfigError
from accord.runner.config import load_experiment
from accord.runner.planning import plan_run as plan

EXPERIMENT = """
name: pair
defaults:
  game: negotiation
  games: 3
  agents: [greedy, cooperative]
batches:
  - name: one
  - name: two
    swap_first_speaker: false
"""


def test_swap_flag_applies_to_an_experiment_file(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(EXPERIMENT)
    plain = plan(path, out=tmp_path / "a").specs
    swapped = plan(path, swap_first_speaker=True, out=tmp_path / "b").specs
    assert len(plain) == 6 and len(swapped) == 12
    assert Counter(s.options.get("first_speaker", 0) for s in plain) == {0: 6}
    assert Counter(s.options["first_speaker"] for s in swapped) == {0: 6, 1: 6}
    # Each seed is played once from each side, in both batches (the flag wins over the file).
    for batch in ("one", "two"):
        got = [s for s in swapped if s.labels["batch"] == batch]
        by_seed = Counter((s.seed, s.options["first_speaker"]) for s in got)
        assert len(got) == 6 and set(by_seed.values()) == {1}


def test_swap_flag_applies_to_an_experiment_object(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(EXPERIMENT)
    exp = load_experiment(path)
    swapped = plan(exp, swap_first_speaker=True, out=tmp_path / "b").specs
    assert Counter(s.options["first_speaker"] for s in swapped) == {0: 6, 1: 6}
    assert exp.batches is not None and exp.batches[1].swap_first_speaker is False  # not mutated


def test_swap_flag_on_a_game_without_first_speaker_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text("name: s\ndefaults: {game: sorting, games: 1, agents: [mock/schema]}\n")
    with pytest.raises(ConfigError, match="no first speaker"):
        plan(path, swap_first_speaker=True, out=tmp_path / "c")
