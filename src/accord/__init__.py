"""Accord: measure how well LLM agents coordinate when each one holds private information.

The public Python API (the ``accord`` command is a client of it; docs/python.md shows a
session):

- `run` / `run_async`: play an experiment file, an `Experiment`, or the quick form (a game,
  its agents or model, a number of games) into a run directory; returns a `RunReport`;
- `play`: one game, returned as a `Trace` without touching disk;
- `load`: a run directory's games, seats and events as records or data frames;
- `blame`: fork every decision point of a run's lost games to find where each was lost and
  what each message was worth (a `BlameReport`);
- `drift`: replay a baseline run's games now and say whether the models behind its seats
  changed (a `DriftReport`, also written to ``CANARY/drift.json``);
- `verify`: re-play every game of a run from its stored replies and check what it claims
  (a `Verification`, also written to ``RUN/verification.json``);
- `Experiment`, `read_trace`, `get_model`: an experiment file as an object, one trace file,
  a model client (``get_model("mock/schema")``).

These names load on first use, so ``import accord`` stays cheap. Beyond them: `accord.core`
(the Game contract, the registry), `accord.models`, `accord.agents`, `accord.runner` (its
``__all__``), `accord.traces` and `accord.testing` (the conformance suite every game passes).
"""

__version__ = "0.1.0"

# Neither `typing` nor `importlib` nor `__future__` at run time: importing them would take
# most of the time of `import accord` (annotations are strings instead).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from accord.analysis.blame_models import BlameReport
    from accord.analysis.blame_run import blame
    from accord.analysis.drift import DriftReport
    from accord.analysis.verify import verify
    from accord.analysis.verify_record import Verification
    from accord.api import RunPlan, RunReport, drift, load, plan, play, run, run_async
    from accord.models import get_model
    from accord.runner.config import Experiment
    from accord.traces.io import read_trace
    from accord.traces.schema import Trace

_LAZY = {
    "run": "accord.api",
    "run_async": "accord.api",
    "play": "accord.api",
    "load": "accord.api",
    "drift": "accord.api",
    "DriftReport": "accord.analysis.drift",
    "plan": "accord.api",
    "RunPlan": "accord.api",
    "RunReport": "accord.api",
    "Experiment": "accord.runner.config",
    "read_trace": "accord.traces.io",
    "Trace": "accord.traces.schema",
    "get_model": "accord.models",
    "verify": "accord.analysis.verify",
    "blame": "accord.analysis.blame_run",
    "BlameReport": "accord.analysis.blame_models",
    "Verification": "accord.analysis.verify_record",
}

__all__ = [
    "BlameReport",
    "DriftReport",
    "Experiment",
    "RunPlan",
    "RunReport",
    "Trace",
    "Verification",
    "__version__",
    "blame",
    "drift",
    "get_model",
    "load",
    "plan",
    "play",
    "read_trace",
    "run",
    "run_async",
    "verify",
]


def __getattr__(name: str) -> "Any":
    """Import a public name's module the first time the name is used."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'accord' has no attribute {name!r}")
    value = getattr(__import__(module, fromlist=[name]), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
