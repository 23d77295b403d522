"""`accord agent check` and `accord agent schema`: remote agents (``docs/agents.md``)."""

from __future__ import annotations

import asyncio
import json
import shlex
import shutil
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer
from rich.markup import escape
from rich.table import Table

from accord.cli.main import _fail, app, console
from accord.core.errors import AccordError, ConfigError

agent_app = typer.Typer(
    help="Remote agents that hold a seat over MCP, HTTP/JSON or A2A.\n\n"
    "Example: accord agent check --command 'python my_agent.py'",
    no_args_is_help=True,
)
app.add_typer(agent_app, name="agent")


def _check_alias(name: str, known: list[str]) -> str:
    """A game named as every command accepts it (alias or versioned id) -> its check alias."""
    from accord.core.registry import info_or_none, resolve

    try:
        info = info_or_none(resolve(name))
    except AccordError:
        info = None
    if info is None or info.alias not in known:
        raise ConfigError(f"unknown check game {name!r}; choose from {', '.join(known)}")
    return info.alias


def _served_at(url: str) -> tuple[str, str, int]:
    """``http://HOST:PORT/mcp`` (or ``/v1``) -> transport, host, port."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise ConfigError(
            f"{url!r} is not an address to serve on: give e.g. http://127.0.0.1:8765/mcp "
            "(or .../v1 for HTTP/JSON)"
        )
    try:
        port = parts.port or 0
    except ValueError as exc:
        raise ConfigError(f"{url!r} has a bad port: give a number from 0 to 65535") from exc
    via = "http" if parts.path.rstrip("/").endswith("/v1") else "mcp"
    return via, parts.hostname, port


_SHOWN = {
    "pass": "[green]pass[/green]",
    "FAIL": "[red]FAIL[/red]",
    "not exercised": "[yellow]not exercised[/yellow]",
}


@agent_app.command("check")
def check_cmd(
    url: Annotated[
        str | None,
        typer.Argument(
            help="Serve on this address (http://127.0.0.1:PORT/mcp, or .../v1 for HTTP/JSON) "
            "and print each game's join details for an agent you start yourself."
        ),
    ] = None,
    command: Annotated[
        str | None,
        typer.Option(
            "--command", help="Start this agent once per game instead (URL and token in its env)."
        ),
    ] = None,
    game: Annotated[
        list[str] | None, typer.Option("--game", help="Only this game (repeatable).")
    ] = None,
    deadline: Annotated[float, typer.Option(help="Seconds per request.")] = 30.0,
    join: Annotated[float, typer.Option(help="Seconds to make the first call.")] = 60.0,
    max_errors: Annotated[int, typer.Option(help="Bad calls tolerated in a row.")] = 3,
    seed: Annotated[int, typer.Option(help="Seed of the check games.")] = 1,
    protocol: Annotated[
        str,
        typer.Option(
            help="'accord-seat' (the agent calls the seat server) or 'a2a' (Accord calls the "
            "agent over A2A: URL is then the running agent's address)."
        ),
    ] = "accord-seat",
    token_env: Annotated[
        str | None,
        typer.Option(help="With --protocol a2a and a URL: the variable holding its token."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Keep the check games' traces (OUT/traces) and a started agent's stderr "
            "(OUT/remote) here."
        ),
    ] = None,
) -> None:
    """Play a small game of each built-in game against an agent (seat 0; reference agents hold
    the other seats) and report point by point (pass, FAIL, or not exercised: a point the games
    never put to the test is never a pass): joins, uses its token, reads its observation, acts
    only when asked, respects deadlines, valid actions, malformed arguments, body bounds,
    idempotent retry, identity, handles an error reply, stays to the end, game complete. Exits 1
    when a point fails.

    Examples:

      accord agent check --command "python examples/remote-agent/agent.py"

      accord agent check http://127.0.0.1:8765/mcp --game negotiation

      accord agent check --protocol a2a --command "python examples/a2a-agent/agent.py"

      accord agent check --command "python my_agent.py" --out runs/check
    """
    from pydantic import ValidationError

    from accord.remote.spec import RemoteSeatSpec
    from accord.testing.agent_check import check_agent, check_games

    try:
        if (url is None) == (command is None):
            raise ConfigError("give the URL to serve on, or --command to start the agent")
        if protocol not in ("accord-seat", "a2a"):
            raise ConfigError(f"--protocol {protocol!r}: choose 'accord-seat' or 'a2a'")
        if token_env is not None and (protocol != "a2a" or url is None):
            raise ConfigError("--token-env goes with --protocol a2a and the agent's URL")
        known = [g for g, _, _ in check_games()]
        game = [_check_alias(g, known) for g in game] if game else None
        fields: dict[str, object] = {"deadline_s": deadline, "join_s": join}
        fields["max_errors"] = max_errors
        if command is not None:
            try:
                program = shlex.split(command)[:1]
            except ValueError as exc:
                raise ConfigError(f"--command {command!r} cannot be split: {exc}") from exc
            if program and shutil.which(program[0]) is None:
                raise ConfigError(
                    f"cannot find the program {program[0]!r} of --command; give its path"
                )
            fields["command"] = command
            if protocol == "a2a":
                fields["protocol"] = "a2a"
        elif protocol == "a2a":
            fields["a2a"], fields["token_env"] = url, token_env
        else:
            assert url is not None
            fields["remote"], fields["host"], fields["port"] = _served_at(url)
        try:
            remote = RemoteSeatSpec.model_validate(fields)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"{where}: {first['msg']}".removeprefix(": ")) from exc
        if out is not None:
            from accord.core.outdir import check_output_dir

            check_output_dir(out, "--out")
        chosen = tuple(game) if game else None
        if remote.is_a2a:
            if out is not None:
                raise ConfigError(
                    "--out keeps the games of the seat protocols; for --protocol a2a drop it "
                    "(the A2A check keeps no traces yet)"
                )
            from accord.testing.a2a_check import check_a2a_agent

            results = asyncio.run(check_a2a_agent(remote, games=chosen, seed=seed))
        else:
            results = asyncio.run(check_agent(remote, games=chosen, seed=seed, out=out))
    except AccordError as exc:
        raise _fail(exc) from exc
    for result in results:
        table = Table(title=escape(f"{result.game}"), show_lines=False)
        table.add_column("point")
        table.add_column("verdict")
        table.add_column("detail")
        for point, (verdict, why) in result.points.items():
            shown = _SHOWN.get(verdict, escape(verdict))
            table.add_row(point, shown, escape(why))
        console.print(table)
    passed = sum(r.passed for r in results)
    console.print(
        f"{passed} of {len(results)} games failed no point (points not exercised are listed "
        "as such, never counted as passes)"
    )
    if out is not None:
        console.print(f"Traces and agent logs: {escape(str(out))}")
    if passed < len(results):
        raise typer.Exit(1)


@agent_app.command("schema")
def schema_cmd(
    game: Annotated[
        str | None,
        typer.Argument(
            help="A game (e.g. negotiation): print the schema of its structured observation "
            "('facts') and its reply schema per request kind instead."
        ),
    ] = None,
) -> None:
    """Print the JSON schemas of the seat protocol's messages (accord-seat/1), or, for a
    GAME, of each request kind's structured observation ('facts') and reply.

    Examples:

      accord agent schema > accord-seat-1.json

      accord agent schema negotiation
    """
    from accord.remote.protocol import message_schemas

    if game is None:
        typer.echo(json.dumps(message_schemas(), indent=2))
        return
    from accord.core.registry import resolve
    from accord.remote.observations import observation_schemas

    try:
        game_id = resolve(game)
    except AccordError as exc:
        raise _fail(exc) from exc
    typer.echo(json.dumps(observation_schemas(game_id), indent=2))
