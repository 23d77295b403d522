from __future__ import annotations

from pathlib import Path

import pytest

from accord.core.errors import ConfigError
from accord.runner.config import expand, load_experiment


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "exp.yaml"
    p.write_text(text)
    return p


def test_grid_with_swap_and_repeats(tmp_path: Path) -> None:
    exp = load_experiment(
        write(
            tmp_path,
            """
name: sweep
defaults:
  game: negotiation
  games: 2
  swap_first_speaker: true
  agents: [greedy, cooperative]
grid:
  options.ratio: [0.5, 1.0]
  options.partner: [stable, shifting]
""",
        )
    )
    specs = expand(exp)
    assert len(specs) == 2 * 2 * 2 * 2
    assert len({s.trace_id for s in specs}) == len(specs)
    first = [s for s in specs if s.labels["batch"] == "ratio=0.5,partner=stable"]
    # A swapped pair shares its seed (same scenario) and differs in first speaker.
    assert first[0].seed == first[1].seed and first[0].options["first_speaker"] == 0
    assert first[1].options["first_speaker"] == 1
    assert first[0].labels["pairing"] == "greedy vs cooperative"


def test_crossplay_pairs_share_seeds(tmp_path: Path) -> None:
    exp = load_experiment(
        write(
            tmp_path,
            """
defaults: {game: negotiation, games: 1}
batches:
  - name: cross
    crossplay: [greedy, cooperative, equal-split]
""",
        )
    )
    specs = expand(exp)
    assert len(specs) == 6  # 3 self-play + 3 cross-play
    assert len({s.seed for s in specs}) == 1


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("defaults: {game: negotiation, agentz: [greedy]}", "defaults.agentz: unknown key"),
        ("defaults: {game: negotiation, agents: [greedy], options: {ratio: 0.7}}", "ratio"),
        ("defaults: {game: chess, agents: [greedy]}", "Unknown game 'chess'"),
        ("defaults: {game: negotiation, agents: [greedy, greedy, greedy]}", "has 2 seats"),
        ("defaults: {game: negotiation}\ngrid: {rounds: [1]}", "grid key 'rounds'"),
        ("defaults: {game: negotiation, agents: [{model: gpt}]}", "provider/model"),
        ("[1, 2]", "must hold a mapping"),
        ("defaults: {game: negotiation, agents: [{model: a/b, options: {api_key: x}}]}", "secret"),
    ],
)
def test_bad_config_names_the_key(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=None) as exc:
        expand(load_experiment(write(tmp_path, text)))
    assert needle in str(exc.value)


def test_suite_plays_every_task_once(tmp_path: Path) -> None:
    exp = load_experiment(
        write(
            tmp_path,
            """
defaults: {game: calendar, games: 2, agents: [imap]}
batches:
  - {name: canon, suite: canonical}
""",
        )
    )
    specs = expand(exp)
    assert len(specs) == 90 * 2
    assert sorted({s.options["task"] for s in specs}) == list(range(90))
    assert all(s.options["suite"] == "canonical" for s in specs)
    assert specs[0].labels["pairing"] == "imap ×5" and specs[0].labels["task"] == 0
    assert len(specs[0].agents) == 5


def test_suite_with_mixed_sizes_fills_each_task_with_its_seat_count(tmp_path: Path) -> None:
    exp = load_experiment(
        write(tmp_path, "defaults: {game: calendar, agents: [imap], suite: calbench-uniform}")
    )
    specs = expand(exp)
    assert len(specs) == 108
    assert {len(s.agents) for s in specs} == {2, 5}


def test_suite_for_a_game_without_suites_is_explained(tmp_path: Path) -> None:
    exp = load_experiment(
        write(tmp_path, "defaults: {game: negotiation, agents: [greedy], suite: canonical}")
    )
    with pytest.raises(ConfigError, match="has no task suites"):
        expand(exp)


def test_long_grid_names_stay_distinct_when_cut() -> None:
    from accord.runner.config import _slug

    a = _slug("x" * 130 + "-ratio-0.5")
    b = _slug("x" * 130 + "-ratio-0.8")
    assert len(a) <= 120 and len(b) <= 120 and a != b
    assert _slug("short-name") == "short-name"
