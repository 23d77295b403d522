"""How an experiment describes a remote seat (``agent: {remote: mcp}`` or ``{command: ...}``).

Kept free of the MCP SDK and the web server so that reading an experiment file stays cheap;
`accord.remote.hub` imports them only when a remote seat actually plays.
"""

from __future__ import annotations

import os
import shlex
import shutil
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from accord.core.ids import is_safe_id


class RemoteSeatSpec(BaseModel):
    """A seat held by an agent in another process, over MCP or plain HTTP/JSON."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    remote: Literal["mcp", "http"] | None = Field(
        None,
        description="Serve the seat and print its join URL and token for an agent you start "
        "yourself: 'mcp' prints the MCP endpoint, 'http' the HTTP/JSON one (both are served).",
    )
    command: str | None = Field(
        None,
        description="Start this command once per seat per game, with ACCORD_SEAT_URL, "
        "ACCORD_SEAT_MCP_URL and ACCORD_SEAT_TOKEN in its environment; it is ended when the "
        "game ends and its stderr is kept in the run directory.",
    )
    deadline_s: float = Field(
        60.0, gt=0, le=86_400, description="Seconds the agent has to answer each request."
    )
    join_s: float = Field(
        120.0,
        gt=0,
        le=86_400,
        description="Seconds the agent has to make its first call (time to start it by hand; "
        "an agent process that exits is noticed at once).",
    )
    max_errors: int = Field(
        3,
        ge=0,
        le=100,
        description="Bad calls (invalid reply, acting when not asked, malformed arguments) "
        "tolerated in a row; one more is a protocol violation.",
    )
    on_failure: Literal["fail", "fallback"] = Field(
        "fail",
        description="'fail': a no-show, a missed deadline or a protocol violation ends the game "
        "as failed. 'fallback': from then on the seat's requests are answered by their "
        "documented fallback, each recorded as such in the trace.",
    )
    host: str = Field("127.0.0.1", description="Address to serve on (loopback by default).")
    port: int = Field(0, ge=0, le=65_535, description="Port to serve on (0: any free port).")

    @model_validator(mode="after")
    def _one_kind(self) -> RemoteSeatSpec:
        if (self.remote is None) == (self.command is None):
            raise ValueError("a remote seat takes exactly one of 'remote: mcp|http' or 'command'")
        if self.command is not None:
            try:
                argv = shlex.split(self.command)
            except ValueError as exc:
                raise ValueError(f"command {self.command!r} cannot be split: {exc}") from exc
            if not argv:
                raise ValueError(
                    "'command' is empty: give the program to start, e.g. 'python my_agent.py'"
                )
        return self

    def missing_program(self) -> str | None:
        """For a ``command`` seat whose program cannot be found (not on ``PATH``, or a path
        that is not an executable file), one line saying so; else None."""
        if self.command is None:
            return None
        program = shlex.split(self.command)[0]
        if os.sep in program or (os.altsep and os.altsep in program):
            found = os.path.isfile(program) and os.access(program, os.X_OK)
        else:
            found = shutil.which(program) is not None
        if found:
            return None
        return (
            f"agent command {self.command!r}: program {program!r} not found; check its name, "
            "that it is installed and on PATH, or give its path"
        )

    @property
    def display(self) -> str:
        """Name in tables: ``remote-mcp``, ``remote-http`` or ``cmd-<program>``."""
        if self.command is not None:
            words = [w for w in shlex.split(self.command) if not w.startswith("-")]
            name = words[-1].rsplit("/", 1)[-1] if words else "agent"
            name = name.removesuffix(".py")
            return f"cmd-{name}" if is_safe_id(name) else "cmd-agent"
        return f"remote-{self.remote}"
