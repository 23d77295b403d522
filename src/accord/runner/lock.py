"""An exclusive lock on a run directory, so two runs never play into one directory at once.

Without it two fresh runs on one ``--out`` both play every game (twice the API cost), and a
``--resume`` deletes the temporary files of a run still writing there, which then crashes.

The lock is an advisory ``flock`` on ``DIR/.accord.lock``, held for the whole run (planning,
playing, rebuilding results). The kernel releases it when the holding process ends, however it
ends, so a lock left by ``kill -9`` is stale by construction: the next run takes it and says
so (one ``note:`` line on stderr naming the previous holder). The file records the holder
(pid, host, start time, command) for the error message a second run prints; it is readable by
its owner only (mode 0600) and the command line in it is scrubbed of credentials
(`accord.core.secrets.scrub_command_line`) first.

Writers into a run directory take the lock: `accord run`, ``accord serve --play --out DIR``
for as long as it serves, and ``accord replay --out RUN/traces`` while it writes (`run_dir_of`
finds the run a traces folder belongs to).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.core.secrets import scrub_command_line, scrub_secrets

LOCK_NAME = ".accord.lock"


class RunLockedError(ConfigError):
    """Another live process holds the run directory."""


class RunLock:
    """The lock of one run directory; `release` (or process exit) frees it."""

    def __init__(self, out: Path, fd: int, stale: dict[str, Any] | None) -> None:
        self.out = out
        self.path = out / LOCK_NAME
        self._fd: int | None = fd
        self.stale = stale
        """The record of a previous holder that died without releasing (kill -9), if any."""

    @classmethod
    def acquire(cls, out: Path, announce: Callable[[str], None] | None = None) -> RunLock:
        """Lock `out` (created if needed) or raise `RunLockedError` naming the holder.

        Taking over a stale lock is announced through `announce` (default: a ``note:`` line
        on stderr).
        """
        _make_dir(out)
        path = out / LOCK_NAME
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise ConfigError(
                f"Cannot open {path}: {exc.strerror}; check --out (the lock file must be a "
                "plain file, not a link)."
            ) from exc
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o600)  # older runs created it 0644
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read(fd)
            os.close(fd)
            busy = f"{out} is in use by another Accord run ({describe(holder)}); wait for it to "
            raise RunLockedError(
                f"{busy}finish, or choose another out directory.",
                cli=f"{busy}finish, or choose another --out directory.",
            ) from exc
        previous = _read(fd)
        stale = previous if previous and previous.get("released") is not True else None
        record = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "command": scrub_command_line(sys.argv)[:500],
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
        if stale is not None:
            (announce or _note)(
                f"{out}: taking over the lock of a run that ended without releasing it "
                f"({describe(stale)}); its finished games are kept."
            )
        return cls(out, fd, stale)

    def release(self) -> None:
        """Free the lock (idempotent); the file stays, marked released."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            record = _read(fd) or {}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps({**record, "released": True}) + "\n").encode(), 0)
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:
        self.release()


def _note(text: str) -> None:
    sys.stderr.write(f"note: {scrub_secrets(text)}\n")


def run_dir_of(folder: Path) -> Path | None:
    """The run directory `folder` is the ``traces/`` folder of, if it is one (a sibling
    ``experiment.json`` or lock file marks a run)."""
    parent = folder.resolve().parent if folder.exists() else folder.parent.resolve()
    if folder.name != "traces":
        return None
    if (parent / "experiment.json").is_file() or (parent / LOCK_NAME).exists():
        return parent
    return None


def _make_dir(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise ConfigError(
            f"out {out} is a file, not a directory; choose a directory.",
            cli=f"--out {out} is a file, not a directory; choose a directory.",
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"Cannot create the run directory {out}: {exc.strerror or exc}; choose a "
            "directory you can write to."
        ) from exc


def _read(fd: int) -> dict[str, Any] | None:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"null")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def describe(holder: dict[str, Any] | None) -> str:
    """The holder of a lock in words."""
    if not holder:
        return "holder unknown"
    where = f"pid {holder.get('pid')} on {holder.get('host')}"
    since = f", since {holder['started_at']}" if holder.get("started_at") else ""
    # A lock written by an older version holds the raw command line: scrubbed when shown.
    cmd = f": {scrub_command_line(str(holder['command']))}" if holder.get("command") else ""
    return where + since + cmd
