"""`agent: {command: ...}`: one agent process per seat per game.

The process gets the seat's join details in its environment (``ACCORD_SEAT_URL``: the HTTP/JSON
base, ``ACCORD_SEAT_MCP_URL``: the MCP endpoint, ``ACCORD_SEAT_TOKEN``), its stdin closed and
its stdout discarded. Its stderr is kept in the run directory as
``remote/<trace_id>.<seat>.stderr.log`` (its last MiB, with the seat's token redacted in every
encoding Accord scrubs, should the agent print it). When the game ends the process is given a moment
to see status 'ended' and exit, then terminated, then killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import shlex
import tempfile
from pathlib import Path

from accord.core.errors import ConfigError
from accord.core.secrets import encoded_forms

RUN_DIR: contextvars.ContextVar[Path | None] = contextvars.ContextVar(
    "accord_remote_run_dir", default=None
)
"""The run directory of the games being played (set by `accord.runner.run.run_specs`)."""

EXIT_GRACE_S = 3.0
"""Seconds an agent process has to exit by itself once its game is over."""

MAX_LOG_BYTES = 1024 * 1024
"""An agent's stderr log keeps at most its last MiB (a note says how much was cut)."""

STDERR_TAIL = 600
"""Characters of an agent's stderr quoted in a failure reason."""


class AgentProcess:
    """One running agent command."""

    def __init__(self, proc: asyncio.subprocess.Process, log: Path, keep: bool) -> None:
        self.proc = proc
        self.log = log
        self.keep = keep

    @classmethod
    async def start(cls, command: str, *, env: dict[str, str], name: str) -> AgentProcess:
        """Start `command` with `env` added to this process's environment."""
        run_dir = RUN_DIR.get()
        if run_dir is not None:
            folder = run_dir / "remote"
            folder.mkdir(parents=True, exist_ok=True)
            log, keep = folder / f"{name}.stderr.log", True
        else:
            fd, raw = tempfile.mkstemp(prefix="accord-agent-", suffix=".log")
            os.close(fd)
            log, keep = Path(raw), False
        with log.open("wb") as err:
            try:
                proc = await asyncio.create_subprocess_exec(
                    *shlex.split(command),
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=err,
                    env={**os.environ, **env},
                )
            except OSError as exc:
                raise ConfigError(
                    f"cannot start agent command {command!r}: {exc.strerror or exc}; check the "
                    "program name and that it is installed"
                ) from exc
        return cls(proc, log, keep)

    @property
    def exited(self) -> int | None:
        """The exit code once the process has ended."""
        return self.proc.returncode

    async def stop(self, tokens: list[str]) -> str:
        """End the process (politely first) and scrub its log; the tail of its stderr."""
        try:
            await asyncio.wait_for(self.proc.wait(), EXIT_GRACE_S)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), EXIT_GRACE_S)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
                await self.proc.wait()
        text = _read_capped(self.log)
        clean = redact(text, tokens)
        if self.keep:
            self.log.write_text(clean)
        else:
            self.log.unlink(missing_ok=True)
        return clean[-STDERR_TAIL:]


def redact(text: str, tokens: list[str]) -> str:
    """`text` with every token, in every encoded form, replaced by ``[redacted:seat-token]``."""
    for token in tokens:
        for form in encoded_forms(token):
            text = text.replace(form, "[redacted:seat-token]")
    return text


def _read_capped(path: Path) -> str:
    """The log's text, cut to its last `MAX_LOG_BYTES` (with a note) when longer."""
    if not path.exists():
        return ""
    size = path.stat().st_size
    with path.open("rb") as fh:
        if size > MAX_LOG_BYTES:
            fh.seek(size - MAX_LOG_BYTES)
        data = fh.read(MAX_LOG_BYTES)
    text = data.decode(errors="replace")
    if size > MAX_LOG_BYTES:
        text = f"[{size - MAX_LOG_BYTES} earlier bytes cut]\n" + text
    return text
