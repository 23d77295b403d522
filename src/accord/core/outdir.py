"""Folders a command writes into (``--out``, ``--dir``): checked before any work, so a file,
a read-only place or a path under ``/proc`` gives one line naming the flag, not a traceback
after the work is done."""

from __future__ import annotations

import os
from pathlib import Path

from accord.core.errors import ConfigError


def check_output_dir(path: Path, flag: str) -> Path:
    """Raise `ConfigError` unless `path` is, or can be made, a folder to write into.

    Nothing is created: the nearest existing folder on the way must be a folder this process
    can write in (a file anywhere on the way is named).
    """
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        where = "is a file" if probe == path else f"is inside {probe}, which is a file"
        raise ConfigError(f"{flag} {path} {where}, not a directory; choose a directory.")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ConfigError(
            f"{flag} {path}: cannot write in {probe}; choose a directory you can write."
        )
    return path


def write_error(path: Path, flag: str, exc: OSError) -> ConfigError:
    """The one line for a folder that could not be written after all (``/proc``, a full disk,
    a file that appeared meanwhile)."""
    what = exc.strerror or type(exc).__name__
    where = f" ({exc.filename})" if exc.filename else ""
    return ConfigError(
        f"{flag} {path}: cannot write there: {what}{where}; choose a directory you can write."
    )
