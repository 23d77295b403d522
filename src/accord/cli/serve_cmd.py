"""`accord serve`: a read-only web view of run directories."""

from __future__ import annotations

import errno
import socket
from pathlib import Path
from typing import Annotated

import typer

from accord.cli.main import _fail, app, console
from accord.core.errors import AccordError, ConfigError

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# Host headers a loopback-bound server answers to; any other name is refused, so a web page
# cannot reach the traces by pointing its own domain at 127.0.0.1 (DNS rebinding).
_LOOPBACK_HOST_HEADERS = ["127.0.0.1", "localhost", "[::1]"]


@app.command("serve")
def serve(
    dirs: Annotated[list[Path], typer.Argument(help="Run directories (each with traces/).")],
    host: Annotated[
        str,
        typer.Option(help="Interface to bind; the default is reachable from this machine only."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port (1-65535).")] = 8765,
) -> None:
    """Browse runs in a web browser: summaries, sortable game tables and each game's timeline.

    Read-only: nothing in DIR is written. New traces of a run in progress appear on reload.

    Example: accord serve runs/demo runs/grid --port 8765
    """
    try:
        import uvicorn

        from accord.web.app import create_app
    except ImportError as exc:
        raise _fail(
            ConfigError(f"accord serve needs the web extra ({exc}); install accord[web]")
        ) from exc
    allowed = _LOOPBACK_HOST_HEADERS if host in _LOOPBACK else None
    try:
        web_app = create_app(dirs, allowed_hosts=allowed)
    except AccordError as exc:
        raise _fail(exc) from exc
    try:
        sock = _bind(host, port)
    except AccordError as exc:
        raise _fail(exc) from exc
    shown = f"[{host}]" if ":" in host else host
    console.print(
        f"serving {len(dirs)} run director{'y' if len(dirs) == 1 else 'ies'} at "
        f"http://{shown}:{port}/ (Ctrl+C stops)"
    )
    # The socket is bound before anything is announced: a busy port is one clear error.
    with sock:
        uvicorn.run(web_app, host=host, port=port, fd=sock.fileno(), log_level="warning")


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
