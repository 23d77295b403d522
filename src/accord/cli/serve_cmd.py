"""`accord serve`: a read-only web view of run directories."""

from __future__ import annotations

import contextlib
import errno
import socket
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from accord.cli.main import _fail, app, console
from accord.cli.options import run_location
from accord.core.errors import AccordError, ConfigError
from accord.runner.lock import RunLock

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# Host headers a loopback-bound server answers to; any other name is refused, so a web page
# cannot reach the traces by pointing its own domain at 127.0.0.1 (DNS rebinding).
_LOOPBACK_HOST_HEADERS = ["127.0.0.1", "localhost", "[::1]"]


@app.command("serve")
def serve(
    dirs: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Run directories (each with traces/); optional with --play.",
            parser=run_location,
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(help="Interface to bind; the default is reachable from this machine only."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port (1-65535).")] = 8765,
    play: Annotated[
        bool,
        typer.Option(
            "--play",
            help="Let people take seats in the browser: prints a lobby link to set up tables.",
        ),
    ] = False,
    out: Annotated[
        Path, typer.Option(help="With --play: the run directory the people's games go to.")
    ] = Path("runs/play"),
    seat_timeout: Annotated[
        float,
        typer.Option(
            min=1,
            help="With --play: seconds a person may be away before their seat's decisions "
            "use the request's fallback (recorded as human_timeout).",
        ),
    ] = 120.0,
) -> None:
    """Browse runs in a web browser: summaries, sortable game tables and each game's timeline.

    Runs still playing show live: their progress, and each game's events as they happen.
    Read-only: nothing in DIR is written. With --play, people play games in the browser (a
    lobby creates tables with one link per seat); their traces go to --out, which this server
    holds (like a run) until it stops.

    Example: accord serve runs/demo runs/grid --port 8765

    Example: accord serve --play --out runs/humans
    """
    dirs = list(dirs or [])
    if not dirs and not play:
        raise _fail(
            ConfigError("give at least one run directory, e.g. accord serve runs/demo (or --play)")
        )
    try:
        import uvicorn

        from accord.web.app import create_app
        from accord.web.play import PlayHub
    except ImportError as exc:
        raise _fail(
            ConfigError(f"accord serve needs the web extra ({exc}); install accord[web]")
        ) from exc
    allowed = _LOOPBACK_HOST_HEADERS if host in _LOOPBACK else None
    try:
        # People's games are written into --out for as long as this serves: hold its run lock,
        # so an `accord run --out` (or a second play server) there is refused, and vice versa.
        lock = RunLock.acquire(out) if play else None
        hub = PlayHub(out, seat_timeout_s=seat_timeout) if play else None
        web_app = create_app(dirs, allowed_hosts=allowed, play=hub)
    except AccordError as exc:
        raise _fail(exc) from exc
    except OSError as exc:
        raise _fail(ConfigError(f"cannot use --out {out}: {exc.strerror or exc}")) from exc
    try:
        sock = _bind(host, port)
    except AccordError as exc:
        raise _fail(exc) from exc
    shown = f"[{host}]" if ":" in host else host
    served = len(dirs) + (1 if hub is not None and out not in dirs else 0)
    console.print(
        f"serving {served} run director{'y' if served == 1 else 'ies'} at "
        f"http://{shown}:{port}/ (Ctrl+C stops)",
        highlight=False,
    )
    if hub is not None:
        console.print(
            f"lobby (keep it to yourself: it hands out seats): "
            f"http://{shown}:{port}/#/play/{hub.lobby_key}",
            highlight=False,
            soft_wrap=True,
        )
        if host not in _LOOPBACK:
            console.print(
                f"[yellow]--host {escape(host)}: anyone who can reach this machine and holds "
                "a seat link can play that seat.[/yellow]"
            )
    from accord.store.mirror import keep_fresh

    fresh = keep_fresh()  # runs in stores: their new traces come every few seconds
    # The socket is bound before anything is announced: a busy port is one clear error.
    with sock, lock or contextlib.nullcontext():
        try:
            uvicorn.run(
                web_app,
                host=host,
                port=port,
                fd=sock.fileno(),
                log_level="warning",
                timeout_graceful_shutdown=3,
            )
        finally:
            if fresh is not None:
                fresh.set()


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port`, or a `ConfigError` saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"port {port} on {host} is already in use (another accord serve?); stop that "
                f"server or pick another port with --port {port + 1}"
            ) from exc
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.set_inheritable(True)
    return sock
