"""`accord play GAME` with no `--against` works for every registered game: each game declares the
reference agent a person meets (`GameInfo.opponent`), and a whole game played from scripted
input ends `complete` with exit 0; a game the person leaves early is `failed` with exit 1."""

from __future__ import annotations

import dataclasses
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

import accord.agents.reference as reference
from accord.agents.reference import default_opponent, reference_names
from accord.core.errors import ConfigError
from accord.core.gameinfo import all_infos

# What a person types, line after line, to play each game to its end (lines the game refuses
# are asked again, so a short cycle that holds one acceptable line for every request is enough).
SCRIPTS: dict[str, tuple[list[str], list[str]]] = {
    "negotiation": (
        ["-o", "rounds=2", "-o", "talk_turns=1"],
        ["hello, what do you need?", "buy nothing"],
    ),
    "calendar": ([], ["pass"]),
    "sorting": ([], ["receive_messages"]),
}


def _play(
    alias: str, lines: list[str], options: list[str], out: Path
) -> subprocess.CompletedProcess[str]:
    feed = "\n".join(itertools.islice(itertools.cycle(lines), 600)) + "\n" if lines else ""
    return subprocess.run(
        [sys.executable, "-m", "accord", "play", alias, *options, "--out", str(out)],
        input=feed, capture_output=True, text=True, timeout=600, cwd=out.parent,
    )  # fmt: skip


def test_every_registered_game_declares_a_default_opponent_it_has() -> None:
    infos = list(all_infos())
    assert infos
    for info in infos:
        name = default_opponent(info.game_id)
        assert name in reference_names(info.game_id), (info.game_id, name)
        assert info.alias in SCRIPTS, f"add how a person plays {info.alias} to SCRIPTS"


@pytest.mark.parametrize("alias", sorted(SCRIPTS))
def test_play_with_the_default_opponent_finishes_a_game(alias: str, tmp_path: Path) -> None:
    options, lines = SCRIPTS[alias]
    out = tmp_path / "play"
    done = _play(alias, lines, options, out)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (trace_path,) = (out / "traces").glob("*.json")
    trace = json.loads(trace_path.read_text())
    assert trace["status"] == "complete", trace.get("error")
    agents = [s["agent"] for s in trace["seats"]]
    assert agents[0] == "human"
    info = next(i for i in all_infos() if i.alias == alias)
    assert set(agents[1:]) == {default_opponent(info.game_id)}


def test_a_person_who_leaves_at_once_gets_a_failed_game_and_exit_1(tmp_path: Path) -> None:
    out = tmp_path / "play"
    done = _play("negotiation", [], ["-o", "rounds=1"], out)
    assert done.returncode == 1, done.stdout[-2000:]
    assert "The game failed" in done.stdout
    (trace_path,) = (out / "traces").glob("*.json")
    assert json.loads(trace_path.read_text())["status"] == "failed"


def test_a_declared_opponent_the_game_lacks_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    info = next(i for i in all_infos() if i.alias == "negotiation")
    broken = dataclasses.replace(info, opponent="no-such-agent")
    monkeypatch.setattr(reference, "info_or_none", lambda gid: broken)
    with pytest.raises(ConfigError, match=r"no-such-agent.*--against"):
        default_opponent(info.game_id)
