"""`accord new game NAME`: a working game package to start a new game from."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from accord.cli.main import _fail, app, console
from accord.cli.options import out_path
from accord.core.errors import AccordError

new_app = typer.Typer(
    help="Start something new from a working skeleton.\n\nExample: accord new game meeting_point",
    no_args_is_help=True,
)
app.add_typer(new_app, name="new")


@new_app.command("game")
def new_game_cmd(
    name: Annotated[str, typer.Argument(help="Game name: lower-case words joined by '_' or '-'.")],
    directory: Annotated[
        str,
        typer.Option(
            "--out", "--dir", help="Where to create the NAME folder (--dir: the older spelling)."
        ),
    ] = ".",
) -> None:
    """Write a game package (NAME/) that passes Accord's conformance suite as it is: pyproject
    with its entry points, the game, a config, prompt templates, reference agents, a report,
    tests, golden traces and a docs page. See docs/writing-a-game.md.

    Examples:

      accord new game meeting_point

      accord new game meeting_point --out plugins
    """
    from accord.core.outdir import check_output_dir, write_error
    from accord.scaffold import new_game

    try:
        where = out_path(directory) or Path(".")
        check_output_dir(where, "--out")
        try:
            names, written = new_game(name, where)
        except OSError as exc:
            raise write_error(where, "--out", exc) from exc
    except AccordError as exc:
        raise _fail(exc) from exc
    folder = where / names.name
    shown = escape(str(folder))
    console.print(f"created {shown}/ ({len(written)} files): game [bold]{names.game_id}[/bold]")
    console.print("next:")
    console.print(f"  pip install -e {shown}        # Accord finds the game by its entry points")
    console.print(f"  accord run {names.name} --agents follow,follow --games 3")
    console.print(f"  pytest {shown}/tests          # conformance suite and golden traces")
    console.print(f"  then edit {shown}/src/{names.module}/ and {shown}/docs/{names.name}.md")
