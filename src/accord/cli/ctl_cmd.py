"""`accord ctl`: pause, resume, retune or stop a running run."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from accord.cli.main import _fail, app, console
from accord.core.errors import AccordError, ConfigError


@app.command("ctl")
def ctl(
    run: Annotated[
        str, typer.Argument(help="The running run: its --out (a directory or store location).")
    ],
    action: Annotated[str, typer.Argument(help="pause, resume, concurrency or stop.")],
    value: Annotated[
        int | None, typer.Argument(help="With concurrency: games in flight at once.")
    ] = None,
    drain: Annotated[
        bool, typer.Option(help="With stop: let the games in flight finish (the rest: --resume).")
    ] = False,
) -> None:
    """Change a running run within seconds, whichever driver plays it: pause (no game starts
    until resume), resume, concurrency N, stop (cancel games in flight) or stop --drain (let
    them finish). Each change is kept, with its time, in the run's control log.

    Examples:

      accord ctl runs/demo pause

      accord ctl s3://my-bucket/runs/big concurrency 32

      accord ctl runs/demo stop --drain
    """
    from accord.runner.control import send

    try:
        if action != "concurrency" and value is not None:
            raise ConfigError(f"{action} takes no number; only concurrency N does")
        record = send(run, action, value, drain=drain)
    except AccordError as exc:
        raise _fail(exc) from exc
    what = f"{record.action} {record.value}" if record.value is not None else record.action
    what += " --drain" if record.drain else ""
    console.print(
        f"Asked {escape(run)}: {escape(what)} (control record {record.seq}, {record.at}); "
        "drivers apply it within seconds."
    )
