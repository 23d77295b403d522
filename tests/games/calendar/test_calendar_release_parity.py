"""The DSM reference presets against the CalBench release's own clients, task by task (issue 24).

``data/release_dsm_outcomes.jsonl`` holds, for every task of both published files, what the
release's ``paper_dsm`` client (with Table 9's DSM-Welfare values) and its ``private_dsm``
client did with every seat theirs: the messages sent, the meetings scheduled and each seat's
final calendar (``.`` free, ``e<id>`` an errand, ``m<id>`` a meeting, slot by slot). It was
recorded by running the release (MIT licence) on the two files; it is data, like the files.
`dsm-welfare` and `dsm-private` must reproduce every row, not only the means.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from accord.games.calendar import load_suite
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

DATA = Path(__file__).parent / "data" / "release_dsm_outcomes.jsonl"
SPEC = {"paper_dsm": "dsm-welfare", "private_dsm": "dsm-private"}


def release_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]


def calendar_text(row: list[dict[str, Any] | None]) -> str:
    return " ".join("." if x is None else f"{x['kind'][0]}{x['id']}" for x in row)


@pytest.mark.parametrize("file", ["uniform", "varied"])
@pytest.mark.parametrize("client", sorted(SPEC))
def test_every_published_task_matches_the_release(file: str, client: str) -> None:
    expected = {
        r["task_id"]: r for r in release_rows() if (r["file"], r["client"]) == (file, client)
    }
    tasks = load_suite(f"calbench-{file}")
    assert len(expected) == len(tasks) == 108
    differ = []
    for i, task in enumerate(tasks):
        spec = GameSpec(
            trace_id=f"{client}-{i}",
            game="calendar-v2",
            seed=i,
            options={"suite": f"calbench-{file}", "task": i},
            agents=[AgentSpec(agent=SPEC[client])] * task.num_agents,
        )
        trace = asyncio.run(play_game(spec))
        want = expected[task.task_id]
        got = {
            "messages": trace.metrics["messages"],
            "scheduled": trace.metrics["meetings_scheduled"],
            "calendars": [calendar_text(c) for c in trace.final_state["calendars"]],
        }
        if got != {k: want[k] for k in got}:
            differ.append(task.task_id)
    assert differ == []
