"""How an experiment describes a remote seat (``agent: {remote: mcp}`` or ``{command: ...}``).

Kept free of the MCP SDK and the web server so that reading an experiment file stays cheap;
`accord.remote.hub` imports them only when a remote seat actually plays.
"""

from __future__ import annotations

import os
import shlex
import shutil
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from accord.core.ids import is_safe_id
from accord.core.secrets import register_secret_env


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
    a2a: str | None = Field(
        None,
        description="Join an A2A agent already running at this base URL (its card at "
        "/.well-known/agent-card.json): Accord calls it with each decision (docs/agents.md, "
        "'A2A agents').",
    )
    protocol: Literal["accord-seat", "a2a"] | None = Field(
        None,
        description="What a 'command' agent speaks: 'accord-seat' (the default: it calls the "
        "seat server) or 'a2a' (it serves A2A on ACCORD_A2A_URL and Accord calls it).",
    )
    token_env: str | None = Field(
        None,
        description="For 'a2a: URL': the environment variable holding the bearer token Accord "
        "presents to the agent (name the variable, never the token).",
    )

    @model_serializer(mode="wrap")
    def _without_unset_a2a(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """Seats that do not use A2A serialize as before those fields existed (plan files of
        older runs still match on --resume)."""
        data: dict[str, object] = handler(self)
        for key in ("a2a", "protocol", "token_env"):
            if getattr(self, key) is None:
                data.pop(key, None)
        return data

    @property
    def is_a2a(self) -> bool:
        """True when Accord calls the agent over A2A (``a2a: URL`` or ``protocol: a2a``)."""
        return self.a2a is not None or self.protocol == "a2a"

    @model_validator(mode="after")
    def _one_kind(self) -> RemoteSeatSpec:
        kinds = [k for k in (self.remote, self.command, self.a2a) if k is not None]
        if len(kinds) != 1:
            raise ValueError(
                "a remote seat takes exactly one of 'remote: mcp|http' or 'command' (or "
                "'a2a: URL' for an A2A agent already running)"
            )
        if self.protocol is not None and self.command is None:
            raise ValueError("'protocol' applies to 'command' seats only (drop it here)")
        if self.token_env is not None and self.a2a is None:
            raise ValueError(
                "'token_env' applies to 'a2a: URL' seats only: a 'command' agent is given its "
                "token in ACCORD_A2A_TOKEN"
            )
        if self.a2a is not None:
            from accord.remote.a2a_url import url_problem

            problem = url_problem(self.a2a)
            if problem is not None:
                raise ValueError(problem)
        if self.token_env is not None:
            if not self.token_env.isidentifier():
                raise ValueError(
                    f"token_env {self.token_env[:40]!r} is not an environment variable name"
                )
            register_secret_env(self.token_env)  # whatever its name, its value is a secret
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
        """Name in tables: ``remote-mcp``, ``remote-http``, ``remote-a2a`` or ``cmd-<program>``."""
        if self.command is not None:
            words = [w for w in shlex.split(self.command) if not w.startswith("-")]
            name = words[-1].rsplit("/", 1)[-1] if words else "agent"
            name = name.removesuffix(".py")
            return f"cmd-{name}" if is_safe_id(name) else "cmd-agent"
        if self.a2a is not None:
            return "remote-a2a"
        return f"remote-{self.remote}"
