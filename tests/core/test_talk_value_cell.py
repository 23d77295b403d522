"""The cell of a baseline played by an option (docs/writing-a-game.md's `TalkValue` example):
`same_task_except` pairs a no-talk game with the talk game of its task, which the default cell
(`same_task`, every option kept) never does."""

from __future__ import annotations

import accord
from accord.core.gameinfo import same_task, same_task_except


def test_the_documented_cell_pairs_a_baseline_with_its_talk_game() -> None:
    seats = ["cooperative", "greedy"]
    talk = accord.play("negotiation", seats, seed=2, options={"rounds": 1})
    mute = accord.play("negotiation", seats, seed=2, options={"rounds": 1, "cheap_talk": False})
    other = accord.play("negotiation", seats, seed=3, options={"rounds": 1, "cheap_talk": False})
    assert talk.config["cheap_talk"] != mute.config["cheap_talk"]
    # The default cell keeps the option that mutes talk: the two never pair.
    assert same_task(talk) != same_task(mute)
    cell = same_task_except("cheap_talk")
    assert cell(talk) == cell(mute)
    assert cell(talk) != cell(other)  # another task (seed) is another cell
