"""Inspect AI interop: Accord games as Inspect tasks, and Inspect logs from Accord traces.

Needs the ``inspect`` extra (``pip install 'accord[inspect]'``). The pieces:

- `accord_task` (``accord.inspectai.task``): an Inspect task playing an Accord game, one
  sample per game and one Inspect model role per seat, Accord's metrics as its score;
  also registered for Inspect's command line as ``accord/accord_game``;
- `export_inspect` (``accord.inspectai.export``): ``accord export --inspect RUN`` writes an
  Inspect log per game id from a finished run's traces;
- `InspectModel` (``accord.inspectai.model``): a seat's model client answered by an Inspect
  model.

See docs/inspect.md.
"""

from __future__ import annotations

from accord.core.errors import ConfigError

INSTALL_HINT = "install the inspect extra: pip install 'accord[inspect]'"


def require_inspect() -> None:
    """Raise a one-line `ConfigError` saying how to install Inspect AI when it is missing."""
    try:
        import inspect_ai  # noqa: F401
    except ImportError as exc:
        raise ConfigError(f"Inspect AI is not installed; {INSTALL_HINT}") from exc


require_inspect()

from accord.inspectai.export import export_inspect  # noqa: E402
from accord.inspectai.model import InspectModel  # noqa: E402
from accord.inspectai.task import accord_task  # noqa: E402

__all__ = ["INSTALL_HINT", "InspectModel", "accord_task", "export_inspect", "require_inspect"]
