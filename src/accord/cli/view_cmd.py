"""`accord view bundle`: the web view of runs as a static site to publish."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from accord.cli.main import _fail, app, console, print_skipped
from accord.cli.options import out_path, run_location
from accord.core.errors import AccordError, ConfigError

view_app = typer.Typer(
    help="The web view without a server: write it out as a static site.\n\n"
    "Example: accord view bundle runs/demo --out site/",
    no_args_is_help=True,
)
app.add_typer(view_app, name="view")


@view_app.command("bundle")
def bundle(
    dirs: Annotated[
        list[Path], typer.Argument(help="Run directories (each with traces/).", parser=run_location)
    ],
    out: Annotated[
        str, typer.Option(help="Folder for the site: new, empty, or an earlier bundle.")
    ],
    max_games: Annotated[
        int,
        typer.Option(min=0, help="Games per run that get their own page (all stay listed)."),
    ] = 2000,
    max_comparisons: Annotated[
        int,
        typer.Option(min=0, help="Comparisons of two runs or batches computed into the site."),
    ] = 200,
    max_sides: Annotated[
        int,
        typer.Option(min=0, help="Side-by-side pages (two games of a run stepped together)."),
    ] = 100,
) -> None:
    """Write the runs' web view (run pages, games, replays, side-by-side replays,
    transcripts, figures, leaderboard, comparisons) as a self-contained static site: no
    server, nothing loaded from the network. Open SITE/index.html from disk, or copy SITE/
    to any static host.

    Example: accord view bundle runs/demo runs/grid --out site/

    Example: accord view bundle runs/big --out site/ --max-games 500 --max-sides 20
    """
    try:
        from accord.web.bundle import write_bundle
    except ImportError as exc:
        raise _fail(
            ConfigError(f"accord view bundle needs the web extra ({exc}); install accord[web]")
        ) from exc
    try:
        site = out_path(out) or Path(out)
        result = write_bundle(
            dirs,
            site,
            max_games=max_games,
            max_comparisons=max_comparisons,
            max_sides=max_sides,
            progress=lambda line: console.print(f"bundling {escape(line)}", highlight=False),
        )
    except AccordError as exc:
        raise _fail(exc) from exc
    except OSError as exc:
        raise _fail(ConfigError(f"cannot write --out {out}: {exc.strerror or exc}")) from exc
    console.print(
        f"wrote {escape(str(result.out))}/index.html: {result.runs} runs, {result.games} games "
        f"({result.pages} pages), {result.comparisons} comparisons, {result.sides} side-by-side "
        f"pages, {result.figures} figures, "
        f"{result.bytes_written / 1e6:.1f} MB of data",
        highlight=False,
        soft_wrap=True,
    )
    print_skipped(result.skipped)
    for note in result.left_out:
        console.print(f"[yellow]left out: {escape(note)}[/yellow]", highlight=False)
