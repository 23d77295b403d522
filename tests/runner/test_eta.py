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
