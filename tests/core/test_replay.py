"""Replay views (`accord.core.replay`): every built-in game's view has one step per event, its
marks never go down, and what it shows is what the trace holds; `align` walks two games
round by round; a game without a view keeps the timeline; a view that cannot read a trace
says so."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from accord.core.errors import ConfigError
from accord.core.game import Game
from accord.core.registry import game_class
from accord.core.replay import align, replay_of
from accord.traces.io import read_trace

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
TRACES = sorted(GOLDEN.glob("*.json"))


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.stem)
def test_each_golden_trace_replays_step_by_step(path: Path) -> None:
    trace = read_trace(path)
    view = replay_of(game_class(trace.game_id), trace)
    assert view is not None
    steps = view["steps"]
    assert len(steps) == len(trace.events)
    marks = [s["mark"] for s in steps]
    assert marks == sorted(marks)
    assert all(0 <= s["frame"] < len(view["frames"]) for s in steps)
    assert [s["label"].split(" · ")[0] for s in steps] == [e["type"] for e in trace.events]
    # Consecutive equal frames are stored once.
    frames = view["frames"]
    assert all(frames[i] != frames[i + 1] for i in range(len(frames) - 1))


def grid_rows(frame: dict[str, Any], n: int = 0) -> list[list[str]]:
    grids = [p for p in frame["panels"] if p["kind"] == "grid"]
    return [[c["text"] for c in row["cells"]] for row in grids[n]["rows"]]


@pytest.mark.parametrize("name", ["calendar-follower-dm", "calendar-follower-varied-capped"])
def test_calendar_view_ends_on_the_final_calendars(name: str) -> None:
    trace = read_trace(GOLDEN / f"{name}.json")
    view = replay_of(game_class(trace.game_id), trace)
    assert view is not None
    last = view["frames"][view["steps"][-1]["frame"]]
    shown = grid_rows(last)
    for agent, cal in enumerate(trace.final_state["calendars"]):
        for slot, item in enumerate(cal):
            text = shown[agent][slot]
            if item is None:
                assert text == ""
            else:
                prefix = f"M{item['id']} ·" if item["kind"] == "meeting" else f"#{item['id']} ·"
                assert text.startswith(prefix), (agent, slot, text, item)


def test_negotiation_view_totals_match_the_game_end() -> None:
    trace = read_trace(GOLDEN / "negotiation-greedy-vs-split-rotating.json")
    view = replay_of(game_class(trace.game_id), trace)
    assert view is not None
    last = view["frames"][-1]
    facts = {
        i["label"]: i["value"] for p in last["panels"] if p["kind"] == "facts" for i in p["items"]
    }
    totals = trace.events[-1]["totals"]
    assert facts["totals so far"] == f"A {totals[0]} / B {totals[1]}"


def test_sorting_view_ends_on_the_submissions_and_check() -> None:
    trace = read_trace(GOLDEN / "sorting-local-sort-p2p-prefix-sum.json")
    view = replay_of(game_class(trace.game_id), trace)
    assert view is not None
    rows = grid_rows(view["frames"][-1])
    subs, correct = trace.final_state["submissions"], trace.final_state["correct"]
    assert [r[2] for r in rows] == ["[" + ", ".join(map(str, s)) + "]" for s in subs]
    assert [r[3] for r in rows] == ["correct" if c else "wrong" for c in correct]


def test_align_walks_both_games_round_by_round() -> None:
    a = [0, 1, 1, 1, 2, 2, 3]
    b = [0, 1, 2, 2, 2, 2]
    pairs = align(a, b)
    assert [p[0] for p in pairs] == sorted(p[0] for p in pairs)
    assert [p[1] for p in pairs] == sorted(p[1] for p in pairs)
    assert {p[0] for p in pairs} == set(range(len(a)))
    assert {p[1] for p in pairs} == set(range(len(b)))
    # Every pair is on one round, except where one game has no step of that round.
    for i, j in pairs:
        assert a[i] == b[j] or a[i] not in b or b[j] not in a
    assert pairs[-1] == (6, 5)  # b has no round 3: it waits on its last step
    assert align([], [0, 1]) == []


def test_a_game_without_a_view_keeps_the_timeline() -> None:
    trace = read_trace(GOLDEN / "negotiation-coop-0.5.json")
    plain = type("Plain", (), {})  # no replay_module
    assert replay_of(plain, trace) is None
    assert Game.replay_module is None


def test_a_view_that_cannot_read_the_trace_says_so() -> None:
    trace = read_trace(GOLDEN / "calendar-follower-dm.json")
    broken = trace.model_copy(update={"scenario": {}})
    with pytest.raises(ConfigError, match="replay view cannot read this trace"):
        replay_of(game_class(trace.game_id), broken)


def test_conformance_catches_a_view_off_the_vocabulary(monkeypatch: pytest.MonkeyPatch) -> None:
    from accord import testing
    from accord.core.replay import Replay

    def replay(trace: Any) -> Replay:
        out = Replay()
        for i, _ in enumerate(trace.events):
            out.add({"title": "x", "panels": [{"kind": "facts", "items": [
                {"label": "a", "value": i, "tone": "sparkly"}]}]}, 0, "e")  # fmt: skip
        return out

    module = types.ModuleType("off_vocabulary_views")
    module.replay = replay  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "off_vocabulary_views", module)
    cls = game_class("negotiation")
    monkeypatch.setattr(cls, "replay_module", "off_vocabulary_views")
    with pytest.raises(AssertionError, match="sparkly"):
        testing.check_replay(cls.game_id)
    monkeypatch.setattr(cls, "replay_module", None)
    testing.check_replay(cls.game_id)  # no view: nothing to check


def test_a_view_that_cannot_be_imported_says_so() -> None:
    trace = read_trace(GOLDEN / "negotiation-coop-0.5.json")
    missing = type("Missing", (), {"replay_module": "no_such_package.views"})
    with pytest.raises(ConfigError, match="cannot be imported"):
        replay_of(missing, trace)


def test_sorting_view_shows_each_broadcast_in_its_round() -> None:
    trace = read_trace(GOLDEN / "sorting-share-all-broadcast.json")
    view = replay_of(game_class(trace.game_id), trace)
    assert view is not None
    sent = 0
    for i, ev in enumerate(trace.events):
        for c in ev.get("commands", []):
            if c["ok"] and c["command"].startswith("broadcast_message"):
                body = c["command"].split(" ", 1)[1].strip()
                frame = view["frames"][view["steps"][i]["frame"]]
                talk = next(p for p in frame["panels"] if p["kind"] == "messages")
                assert {"from": trace.seats[ev["seat"]].name, "to": None, "text": body} in [
                    {k: m[k] for k in ("from", "to", "text")} for m in talk["items"]
                ]
                assert talk["title"] == f"Messages of round {ev['round']}"
                sent += 1
    assert sent > 0
