"""Running games: experiment files, plans, playing, run directories and their results.

Public (listed in ``__all__``, loaded on first use so importing a submodule stays cheap):

- `Experiment`, `load_experiment`, `expand`: experiment files and their games;
- `GameSpec`, `AgentSpec`, `parse_agent`: one game of a run, one seat;
- `RunPlan`, `plan_run`: what a run plays and where (the quick form included);
- `play_game`: play one spec, return its trace;
- `run_specs` (async), `run_sync`, `RunReport`: play many games into a run directory;
- `write_outputs`, `summarize`, `seat_rows`, `RUN_FILES_VERSION`: ``results.jsonl`` and
  ``summary.json`` from traces;
- `RunScan`, `scan_run`: what a run directory already holds, each trace read once;
- `RunMonitor`: live counts of a run (calls, retries, errors, tokens, cost, ETA).

Everything else in this package (executors, live files, locks, forks, cost estimates, plan
files, server checks, ...) is internal: the CLI and the public functions use it, and it may
change without notice. Prefer `accord.run` / `accord.play` / `accord.load` (the top-level
API) to these.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accord.runner.config import Experiment, expand, load_experiment
    from accord.runner.monitor import RunMonitor
    from accord.runner.planning import RunPlan, plan_run
    from accord.runner.play import play_game
    from accord.runner.results import RUN_FILES_VERSION, seat_rows, summarize, write_outputs
    from accord.runner.run import run_specs, run_sync
    from accord.runner.run_report import RunReport
    from accord.runner.scan import RunScan, scan_run
    from accord.runner.specs import AgentSpec, GameSpec, parse_agent

_LAZY = {
    "Experiment": "config",
    "expand": "config",
    "load_experiment": "config",
    "RunMonitor": "monitor",
    "RunPlan": "planning",
    "plan_run": "planning",
    "play_game": "play",
    "RUN_FILES_VERSION": "results",
    "seat_rows": "results",
    "summarize": "results",
    "write_outputs": "results",
    "RunReport": "run_report",
    "run_specs": "run",
    "run_sync": "run",
    "RunScan": "scan",
    "scan_run": "scan",
    "AgentSpec": "specs",
    "GameSpec": "specs",
    "parse_agent": "specs",
}

__all__ = [
    "RUN_FILES_VERSION",
    "AgentSpec",
    "Experiment",
    "GameSpec",
    "RunMonitor",
    "RunPlan",
    "RunReport",
    "RunScan",
    "expand",
    "load_experiment",
    "parse_agent",
    "plan_run",
    "play_game",
    "run_specs",
    "run_sync",
    "scan_run",
    "seat_rows",
    "summarize",
    "write_outputs",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module the first time the name is used."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'accord.runner' has no attribute {name!r}")
    return getattr(import_module(f"accord.runner.{module}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
