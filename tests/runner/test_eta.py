"""The run's ETA, on a fake clock: an estimate from the pace of complete games once a full
wave has completed, otherwise "unknown", and never a confident wrong number."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from accord.runner.monitor import RunMonitor


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _end(monitor: RunMonitor, status: str = "complete") -> None:
    trace: Any = SimpleNamespace(status=status, error=None if status == "complete" else "x")
    monitor.game_finished(trace)


def test_unknown_until_a_game_completes_then_the_pace_of_complete_games() -> None:
    clock = Clock()
    m = RunMonitor(total=10, clock=clock)
    m.game_started()
    assert m.eta_text() == "unknown"
    clock.now = 30
    _end(m)
    m.game_started()
    assert m.eta_s() == 30 * 9 and m.eta_text() == "~4:30"
    clock.now = 50  # 20 s into the next game: 20 s less to go
    assert m.eta_s() == 30 * 9 - 20


def test_a_wave_of_concurrent_games_must_complete_before_any_estimate() -> None:
    clock = Clock()
    m = RunMonitor(total=16, clock=clock)
    for _ in range(8):
        m.game_started()
    clock.now = 40
    _end(m)  # the quickest of a wave of 8 says little about the rest
    assert m.eta_s() is None
    for t in (50, 55, 58, 60, 61, 62, 64):
        clock.now = t
        _end(m)
    assert m.done == 8
    # 8 games in 64 s with 8 in flight: the 8 left take about as long again.
    assert m.eta_s() == 64.0 and m.eta_text() == "~1:04"


def test_failed_games_do_not_make_the_rest_look_fast() -> None:
    clock = Clock()
    m = RunMonitor(total=10, clock=clock)
    m.game_started()
    clock.now = 1
    _end(m, "failed")  # failed at once
    assert m.eta_text() == "unknown", "not elapsed time per failed game"
    m.game_started()
    clock.now = 61
    _end(m)
    assert m.eta_s() == 61 * 8


def test_an_estimate_already_used_up_is_unknown_not_zero() -> None:
    clock = Clock()
    m = RunMonitor(total=3, clock=clock)
    m.game_started()
    clock.now = 10
    _end(m)
    m.game_started()
    clock.now = 40  # the next game runs far longer than the pace says
    assert m.eta_s() is None and m.eta_text() == "unknown"
    clock.now = 41
    _end(m)
    _end(m)
    assert m.eta_s() == 0.0 and m.eta_text() == "0:00"


def _kind_end(monitor: RunMonitor, trace_id: str, status: str = "complete") -> None:
    trace: Any = SimpleNamespace(
        trace_id=trace_id, status=status, error=None if status == "complete" else "x"
    )
    monitor.game_finished(trace)


def test_kinds_of_different_length_are_weighed_by_their_own_games() -> None:
    # Ten reference games of a second each and two model games of two minutes, four at once:
    # once the quick ones are done, their pace says nothing about the slow ones.
    clock = Clock()
    m = RunMonitor(total=12, clock=clock)
    m.expect(["ref"] * 10 + ["model"] * 2)
    m.game_started("m0", "model")
    m.game_started("m1", "model")
    for i in range(10):
        m.game_started(f"r{i}", "ref")
        clock.now += 0.1
        _kind_end(m, f"r{i}")
    assert m.done == 10
    assert m.eta_text() == "unknown"  # no model game has ended: no confident 0:00
    clock.now = 120.0
    _kind_end(m, "m0")
    # One model game left, already 120 s in, of a kind that takes 120 s: done any moment.
    assert m.eta_text() == "unknown"
    m.game_started("m2", "model")
    m.expect(["model"])  # a third model game was planned
    clock.now = 150.0
    # 2 left: m1 (150 s in, counted as done with its 120 s) and m2 (30 s in, 90 s to go),
    # spread over the 3 games seen in flight at once at most.
    eta = m.eta_s()
    assert eta is not None and abs(eta - (2 * 120 - 120 - 30) / m.wave) < 1e-9


def test_a_kind_that_only_fails_is_timed_by_its_failures_not_unknown_forever() -> None:
    # A model kind whose server is down fails each game after 5 s; the reference kind
    # completes. The run's ETA must not stay "unknown" to the end.
    clock = Clock()
    m = RunMonitor(total=6, clock=clock)
    m.expect(["ref"] * 2 + ["model"] * 4)
    m.game_started("r0", "ref")
    clock.now = 1.0
    _kind_end(m, "r0")
    m.game_started("m0", "model")
    assert m.eta_text() == "unknown"  # no model game has ended yet
    clock.now = 6.0
    _kind_end(m, "m0", "failed")
    # Left: 1 ref game (1 s) and 3 model games (5 s each, as the failure took), one at a time.
    assert m.eta_s() == 1.0 + 3 * 5.0
    # A complete game of the kind, once there is one, times it instead.
    m.game_started("m1", "model")
    clock.now = 26.0
    _kind_end(m, "m1")
    assert m.eta_s() == 1.0 + 2 * 20.0
