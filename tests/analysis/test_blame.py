"""`accord blame` finds what was planted: for each built-in game, a scripted seat that plays
well and then, at a chosen decision, switches to a policy that loses the game for good; the
blame step must be that decision. And the one message whose loss costs the game must be the
message blame values above every other."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import accord
from accord.agents import reference
from accord.agents.base import Agent, Recorder, _no_record
from accord.analysis.blame import decisions
from accord.core.registry import resolve
from accord.core.spec import Action, Request
from accord.traces.io import read_trace
from accord.traces.schema import Trace


class Spoiler(Agent):
    """`good` answers until `when(request)` first holds; from that request on `bad` answers.
    The switch is noted in `log` as (seat, requests answered before it)."""

    spec = "spoiler"

    def __init__(
        self,
        good: Agent,
        bad: Agent,
        when: Callable[[Request], bool],
        log: list[tuple[int, int]],
    ) -> None:
        super().__init__()
        self.good, self.bad, self.when, self.log = good, bad, when, log
        self.n = 0
        self.switched = False

    async def act(self, request: Request, record: Recorder = _no_record) -> Action:
        n, self.n = self.n, self.n + 1
        if not self.switched and self.when(request):
            self.switched = True
            self.log.append((request.seat, n))
        return await (self.bad if self.switched else self.good).act(request, record)


class Fixed(Agent):
    """Answers every request with the same action."""

    def __init__(self, action: Action) -> None:
        super().__init__()
        self.action = action

    async def act(self, request: Request, record: Recorder = _no_record) -> Action:
        return dict(self.action)


def _register(monkeypatch: pytest.MonkeyPatch, game: str, factory: Callable[[], Agent]) -> None:
    gid = resolve(game)
    reference._table(gid)  # discover the game's own agents first, so the patch adds to them
    table = dict(reference._REFERENCE.get(gid, {}))
    table["spoiler"] = factory
    monkeypatch.setitem(reference._REFERENCE, gid, table)


def _play(tmp_path: Path, game: str, agents: str, options: dict[str, Any], seed: int) -> Trace:
    out = tmp_path / game
    accord.run(game=game, agents=agents, games=1, seed=seed, options=options, out=out)
    (path,) = sorted((out / "traces").glob("*.json"))
    return read_trace(path)


def _index_of(trace: Trace, seat: int, nth: int) -> int:
    points, _ = asyncio.run(decisions(trace))
    return next(p.index for p in points if p.seat == seat and p.nth == nth)


def _blamed(tmp_path: Path, game: str) -> accord.BlameReport:
    report = accord.blame(tmp_path / game)
    assert len(report.games) == 1, "the planted game was lost, so it is blamed by default"
    assert (tmp_path / game / "blame" / "blame.json").is_file()
    return report


def _ref(game: str, name: str) -> Agent:
    return reference.make_reference(resolve(game), name)


def test_negotiation_blame_finds_the_turn_a_seat_turned_greedy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log: list[tuple[int, int]] = []
    _register(
        monkeypatch,
        "negotiation",
        lambda: Spoiler(
            _ref("negotiation", "cooperative"),
            _ref("negotiation", "greedy"),
            when=lambda r: r.info.get("round") == 3 and r.info.get("phase") == "talk",
            log=log,
        ),
    )
    trace = _play(tmp_path, "negotiation", "cooperative,spoiler", {"rounds": 4}, seed=1)
    assert trace.metrics["optimum_rate"] < 1.0
    planted = _index_of(trace, *log[0])
    game = _blamed(tmp_path, "negotiation").games[0]
    assert (game.blame_step, game.blame_seat, game.blame_round) == (planted, 1, 3)
    # Every fork before it on the spoiler's seat recovers the game; none after it does.
    seat_forks = [f for f in game.forks if f.kind == "seat"]
    assert all(not f.recovered for f in seat_forks if f.decision > planted)
    assert all(f.recovered for f in seat_forks if f.decision <= planted and f.seat == 1)


def test_calendar_blame_finds_the_meeting_a_seat_stopped_scheduling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log: list[tuple[int, int]] = []

    def spoil_now(r: Request) -> bool:
        info = r.info
        late = int(info.get("round", 0)) >= 2 and info.get("phase") == "DECISION"
        return late and bool(info.get("is_participant"))

    _register(
        monkeypatch,
        "calendar",
        lambda: Spoiler(
            _ref("calendar", "oracle-follower"),
            Fixed({"thinking": "", "actions": []}),
            when=spoil_now,
            log=log,
        ),
    )
    options = {"num_agents": 3, "num_meetings": 3, "max_turns_per_round": 2}
    trace = _play(tmp_path, "calendar", "oracle-follower,spoiler,oracle-follower", options, 4)
    assert trace.metrics["success_rate"] < 1.0
    planted = _index_of(trace, *log[0])  # read before blame's forks add their own switches
    points, _ = asyncio.run(decisions(trace))
    spoiled = points[planted].round
    # The meeting is lost at the spoiler's last chance to schedule it: its last decision of
    # that round (a DECISION phase may ask more than once).
    last_chance = max(p.index for p in points if p.seat == 1 and p.round == spoiled)
    game = _blamed(tmp_path, "calendar").games[0]
    assert (game.blame_step, game.blame_seat, game.blame_round) == (last_chance, 1, spoiled)
    seat_forks = [f for f in game.forks if f.kind == "seat"]
    assert all(f.recovered for f in seat_forks if f.seat == 1 and f.decision <= last_chance)
    assert not any(f.recovered for f in seat_forks if f.decision > last_chance)
    assert not any(f.recovered for f in seat_forks if f.seat != 1)


def test_sorting_blame_finds_the_wrong_submission(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log: list[tuple[int, int]] = []
    calls = {"n": 0}

    def third_request(r: Request) -> bool:
        calls["n"] += 1
        return r.seat == 1 and r.info.get("round") == 2

    _register(
        monkeypatch,
        "sorting",
        lambda: Spoiler(
            _ref("sorting", "share-all"),
            Fixed({"commands": ["submit_result [-5, -4, -3]"]}),
            when=third_request,
            log=log,
        ),
    )
    options = {"backend": "kv", "max_rounds": 12}
    trace = _play(tmp_path, "sorting", "share-all,spoiler,share-all", options, seed=2)
    assert trace.metrics["success"] < 1.0
    planted = _index_of(trace, *log[0])
    game = _blamed(tmp_path, "sorting").games[0]
    assert (game.blame_step, game.blame_seat) == (planted, 1)


class Obedient(Agent):
    """Follows the plan its partner sends (as the cooperative agent does); without one it
    buys greedily. Its own speech tells the partner nothing it needs."""

    spec = "obedient"

    def __init__(self) -> None:
        super().__init__()
        self.coop, self.greedy = _ref("negotiation", "cooperative"), _ref("negotiation", "greedy")
        self.follow = False

    async def act(self, request: Request, record: Recorder = _no_record) -> Action:
        if '"type": "plan"' in str(request.info.get("partner_said") or ""):
            self.follow = True
        return await (self.coop if self.follow else self.greedy).act(request, record)


def test_negotiation_blame_values_the_one_decisive_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seat 0 knows both sides' projects (full transparency) and sends the joint plan; seat 1
    follows a plan when it hears one and is greedy otherwise. The plan is the one message the
    game cannot do without."""
    _register(monkeypatch, "negotiation", Obedient)
    options = {"rounds": 1, "transparency": "full", "first_speaker": 0}
    trace = _play(tmp_path, "negotiation", "cooperative,spoiler", options, seed=2)
    assert trace.metrics["optimum_rate"] == 1.0
    report = accord.blame(tmp_path / "negotiation", games=[trace.trace_id])
    game = report.games[0]
    points, _ = asyncio.run(decisions(trace))
    plan = next(p.index for p in points if p.seat == 0 and p.message)
    values = {m.decision: m.value for m in game.messages}
    assert max(values, key=lambda d: values[d]) == plan and values[plan] > 0, values
    assert all(v == 0 for d, v in values.items() if d != plan), values


def test_model_seats_answer_from_the_trace_before_the_fork(tmp_path: Path) -> None:
    out = tmp_path / "mock"
    accord.run(game="negotiation", model="mock/schema", games=1, options={"rounds": 2}, out=out)
    (path,) = sorted((out / "traces").glob("*.json"))
    trace = read_trace(path)
    report = accord.blame(out, games=[trace.trace_id], max_cost=10.0)
    game = report.games[0]
    assert game.decisions > 0 and report.cost_estimate == 0.0  # the mock model is free
    assert all(f.status == "complete" for f in game.forks)
    # A fork at the last decision replaces only that seat: every earlier call came from the
    # trace, so the other seat's model was asked nothing.
    last = [f for f in game.forks if f.decision == game.decisions - 1 and f.kind == "seat"]
    assert last and last[0].calls_asked == 0
