"""`agent: {command: ...}`: one agent process per seat per game, supervised with all it starts.

The process gets the seat's join details in its environment (``ACCORD_SEAT_URL``: the HTTP/JSON
base, ``ACCORD_SEAT_MCP_URL``: the MCP endpoint, ``ACCORD_SEAT_TOKEN``), its stdin closed and
its stdout discarded.

**Containment.** The command starts in a session of its own (so its process group is its own),
and with a marker in its environment (``ACCORD_AGENT_RUN``, a random value per process) that
every descendant inherits. When the game ends the command is given `EXIT_GRACE_S` to see status
'ended' and exit, then its group is terminated, then every process still carrying the marker,
in the group or in the session, or descending from the command (children that started new
sessions or were orphaned included) is killed, until none is left. The descendants are found
through ``/proc``; where there is no ``/proc`` (macOS, Windows) only the process group is ended,
and a child that starts a session of its own survives. A descendant that replaces its whole
environment and leaves the session and group can escape the scan as well; a cgroup would hold
it, but needs privileges a run does not have.

**stderr.** Read through a pipe while the game runs and written to
``remote/<trace_id>.<seat>.stderr.log`` in the run directory as it arrives, with the seat's token
redacted in every encoding Accord scrubs (`accord.core.secrets.encoded_forms`) before a byte
reaches the file. The file never holds more than `MAX_LOG_BYTES`: past that, the newest MiB is
kept in memory and written at the end, after a note of how much was cut. A process writing
after the game cannot reach the file: the pipe is closed once its writers are ended.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import contextvars
import os
import secrets
import shlex
import signal
import tempfile
from collections.abc import Sequence
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
"""An agent's stderr log holds at most this many bytes, even while the game runs; past it the
newest MiB is kept (a note says how much was cut)."""

STDERR_TAIL = 600
"""Characters of an agent's stderr quoted in a failure reason."""

MARKER_ENV = "ACCORD_AGENT_RUN"
"""The environment variable that marks an agent command and everything it starts."""

_CHUNK = 64 * 1024
_KILL_ROUNDS = 20
"""Scans of ``/proc`` after the kill (a process forking as it is killed needs another)."""


class _Log:
    """An agent's stderr, scrubbed as it arrives, at most `MAX_LOG_BYTES` in the file."""

    def __init__(self, path: Path, tokens: Sequence[str]) -> None:
        self.path = path
        self.forms: list[str] = []
        self.hold = 0
        self.add_tokens(tokens)
        self.pending = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.written = 0
        self.tail = bytearray()
        self.cut = 0
        self.fh = path.open("wb")

    def add_tokens(self, tokens: Sequence[str]) -> bool:
        """Redact `tokens` too; whether any was new."""
        forms = {f for t in tokens if t for f in encoded_forms(t)} - set(self.forms)
        if not forms:
            return False
        self.forms = sorted({*self.forms, *forms}, key=len, reverse=True)
        # A token cut between two reads is whole in a later one: hold back this much.
        self.hold = max(len(f) for f in self.forms) - 1
        return True

    def _scrub(self, text: str) -> str:
        for form in self.forms:
            text = text.replace(form, "[redacted:seat-token]")
        return text

    def feed(self, data: bytes, *, final: bool = False) -> None:
        """Take the next bytes of stderr; write what can no longer be part of a token."""
        self.pending = self._scrub(self.pending + self.decoder.decode(data, final=final))
        # Any complete form is replaced already; what could be the head of one is kept back.
        keep = 0 if final else min(self.hold, len(self.pending))
        ready = self.pending[: len(self.pending) - keep]
        self.pending = self.pending[len(self.pending) - keep :]
        if ready:
            self._emit(ready.encode())

    def _emit(self, data: bytes) -> None:
        if self.written < MAX_LOG_BYTES and not self.tail:
            room = MAX_LOG_BYTES - self.written
            head, data = data[:room], data[room:]
            self.fh.write(head)
            self.fh.flush()
            self.written += len(head)
        if data:
            self.tail += data
            if len(self.tail) > MAX_LOG_BYTES:
                self.cut += len(self.tail) - MAX_LOG_BYTES
                del self.tail[: len(self.tail) - MAX_LOG_BYTES]

    def close(self, *, rescrub: bool = False) -> str:
        """Finish the file (scrubbed again when tokens were added late); the text it holds."""
        self.fh.close()
        if not self.tail:
            text = self.path.read_bytes().decode(errors="replace")
            if rescrub:
                text = self._scrub(text)
                self.path.write_text(text, encoding="utf-8")
            return text
        # Over the cap: the newest MiB, after a note (the file's first MiB is dropped).
        dropped = self.written + self.cut
        text = f"[{dropped} earlier bytes cut]\n" + self._scrub(self.tail.decode(errors="replace"))
        self.path.write_text(text, encoding="utf-8")
        return text


class AgentProcess:
    """One running agent command and everything it starts."""

    def __init__(
        self, proc: asyncio.subprocess.Process, log: _Log, keep: bool, marker: str
    ) -> None:
        self.proc = proc
        self.log = log
        self.keep = keep
        self.marker = marker
        self.reader = asyncio.ensure_future(self._read())
        self._tail: str | None = None

    @classmethod
    async def start(
        cls, command: str, *, env: dict[str, str], name: str, redact: Sequence[str] = ()
    ) -> AgentProcess:
        """Start `command` with `env` added to this process's environment; `redact` (and the
        seat token in `env`) never reach its log."""
        run_dir = RUN_DIR.get()
        if run_dir is not None:
            folder = run_dir / "remote"
            folder.mkdir(parents=True, exist_ok=True)
            path, keep = folder / f"{name}.stderr.log", True
        else:
            fd, raw = tempfile.mkstemp(prefix="accord-agent-", suffix=".log")
            os.close(fd)
            path, keep = Path(raw), False
        marker = secrets.token_hex(12)
        tokens = [*redact, env.get("ACCORD_SEAT_TOKEN", "")]
        try:
            proc = await asyncio.create_subprocess_exec(
                *shlex.split(command),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
                env={**os.environ, **env, MARKER_ENV: marker},
                start_new_session=True,
            )
        except OSError as exc:
            if not keep:
                path.unlink(missing_ok=True)
            raise ConfigError(
                f"cannot start agent command {command!r}: {exc.strerror or exc}; check the "
                "program name and that it is installed"
            ) from exc
        return cls(proc, _Log(path, tokens), keep, marker)

    async def _read(self) -> None:
        stream = self.proc.stderr
        if stream is None:
            return
        while True:
            data = await stream.read(_CHUNK)
            if not data:
                return
            self.log.feed(data)

    @property
    def exited(self) -> int | None:
        """The exit code once the process has ended."""
        return self.proc.returncode

    async def stop(self, tokens: list[str]) -> str:
        """End the process (politely first) and everything it started, close its log; the
        tail of its stderr. Calling it again returns the same tail."""
        if self._tail is not None:
            return self._tail
        try:
            await asyncio.wait_for(self.proc.wait(), EXIT_GRACE_S)
        except TimeoutError:
            _signal_group(self.proc.pid, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), EXIT_GRACE_S)
        await asyncio.to_thread(end_descendants, self.proc.pid, self.marker)
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()  # where there is no /proc to scan
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), EXIT_GRACE_S)
        # Every writer of the pipe is gone: what is left in it arrives, then end of file.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.reader), 1.0)
        if not self.reader.done():
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
        transport = getattr(self.proc, "_transport", None)
        if transport is not None:
            transport.close()  # closes the pipe: a late writer gets EPIPE, not the file
        late = self.log.add_tokens(tokens)
        self.log.feed(b"", final=True)
        text = self.log.close(rescrub=late)
        if not self.keep:
            self.log.path.unlink(missing_ok=True)
        self._tail = text[-STDERR_TAIL:]
        return self._tail


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _proc_entries() -> list[tuple[int, int, int, int]]:
    """(pid, parent pid, process group, session) of every process ``/proc`` lists."""
    out: list[tuple[int, int, int, int]] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: the fields follow the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        try:
            out.append((int(name), int(fields[1]), int(fields[2]), int(fields[3])))
        except (IndexError, ValueError):
            continue
    return out


def _carries(pid: int, marker: str) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return f"{MARKER_ENV}={marker}".encode() in fh.read().split(b"\0")
    except OSError:
        return False


def agent_processes(root: int, marker: str) -> set[int]:
    """Processes that belong to the agent started as `root`: in its process group or session,
    carrying its marker, or descending from one of those (a child that left the session and
    cleared its environment); empty where there is no ``/proc``."""
    entries = _proc_entries()
    me = os.getpid()
    children: dict[int, list[int]] = {}
    found: set[int] = set()
    for pid, ppid, pgrp, session in entries:
        children.setdefault(ppid, []).append(pid)
        if pid != me and (pgrp == root or session == root or _carries(pid, marker)):
            found.add(pid)
    stack = list(found)
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found and child != me:
                found.add(child)
                stack.append(child)
    return found


def end_descendants(root: int, marker: str) -> int:
    """Kill (SIGKILL) every process of the agent started as `root` until none is left; how
    many were killed."""
    _signal_group(root, signal.SIGKILL)
    killed = 0
    for _ in range(_KILL_ROUNDS):
        alive = agent_processes(root, marker)
        alive.discard(os.getpid())
        alive = {p for p in alive if not _zombie(p)}
        if not alive:
            break
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
    return killed


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return True
    state = stat[stat.rfind(b")") + 2 :].split()[:1]
    return state == [b"Z"]


def redact(text: str, tokens: list[str]) -> str:
    """`text` with every token, in every encoded form, replaced by ``[redacted:seat-token]``."""
    for token in tokens:
        for form in encoded_forms(token):
            text = text.replace(form, "[redacted:seat-token]")
    return text
