"""The `GameResult` of a sorting game: final state, metrics and per-agent rows (MAS-Bench
§3.4; metrics from `metrics.py`)."""

from __future__ import annotations

from collections.abc import Sequence

from accord.core.game import GameResult
from accord.games.sorting.config import SortingConfig
from accord.games.sorting.metrics import SeatTally, game_metrics, seat_rows
from accord.games.sorting.task import Submission, Task, strict_correct


def game_result(
    cfg: SortingConfig,
    task: Task,
    subs: Sequence[Submission],
    phase_subs: Sequence[Sequence[Submission]],
    tallies: Sequence[SeatTally],
) -> GameResult:
    """The result of a finished game: `subs` are the last phase's submissions, `phase_subs`
    every phase's."""
    metrics = game_metrics(task, subs, tallies, cfg.metrics_phase)
    metrics["condition"] = cfg.effective_condition
    # Text estimates until `trace_metrics` replaces them with model-reported tokens.
    metrics["te"], metrics["cr"] = metrics["te_est"], metrics["cr_est"]
    metrics["token_source"] = "estimate"
    if len(phase_subs) > 1:
        first = strict_correct(task, phase_subs[0])
        metrics["sr_phase1"] = sum(first) / task.n
    final_state = {
        "task": task.as_dict(),
        "submissions": [None if s is None else list(s) for s in subs],
        "phase_submissions": [[None if s is None else list(s) for s in p] for p in phase_subs],
        "correct": strict_correct(task, subs),
    }
    return GameResult(final_state, metrics, seat_rows(task, subs, tallies))
