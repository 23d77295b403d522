"""The `accord` command line (typer). Every command has --help with an example."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys

import typer
from rich.console import Console

from accord.core.errors import AccordError

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

app = typer.Typer(
    name="accord",
    help="Measure how well LLM agents coordinate when each one holds private information.\n\n"
    "Example: accord run negotiation --model local/smollm2 --games 3",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _hide_flag_types() -> None:
    """Show on/off flags as ``--json``, not ``--json <bool>``: typer's help prints a type for
    every option, and for a flag it only adds noise."""
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "_accord", False):
        return

    def display_type_rich(self: TyperOption, ctx: object) -> str | None:
        return None if getattr(self, "is_flag", False) else shown(self, ctx)

    display_type_rich._accord = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_hide_flag_types()

# Piped output (CI logs, files) gets a wide table instead of rich's 80-column default.
console = Console(width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True)


def main() -> None:
    """Entry point: run the app and turn Accord errors into one clear line and exit code 2."""
    try:
        app()
    except AccordError as exc:
        _fail(exc)
        sys.exit(2)


def _fail(exc: AccordError) -> typer.Exit:
    """Print one error line (its text escaped, so ``accord[web]`` keeps its brackets, and
    scrubbed of secrets) and exit 2."""
    from rich.markup import escape

    from accord.core.secrets import scrub_secrets

    text = getattr(exc, "cli", None) or str(exc)  # the flags' words, not the API's arguments
    err_console.print(f"[bold red]error:[/bold red] {escape(scrub_secrets(text))}")
    return typer.Exit(2)


def print_skipped(skipped: list[str]) -> None:
    """List the trace files a command passed over (`accord.traces.io.readable_traces`), one
    line each on stderr, so a table or CSV on stdout stays clean."""
    from rich.markup import escape

    from accord.core.secrets import scrub_secrets
    from accord.traces.io import skipped_note

    for line in skipped_note(skipped):
        err_console.print(f"[yellow]{escape(scrub_secrets(line))}[/yellow]", soft_wrap=True)


@app.command("games")
def games_cmd() -> None:
    """List the registered games and their reference agents, and any plugin that was skipped
    (with its package and the fix).

    Example: accord games
    """
    from accord.agents.reference import reference_names
    from accord.core.registry import game_class, game_ids

    for gid in game_ids():
        cls = game_class(gid)
        package = importlib.import_module(cls.__module__.rsplit(".", 1)[0])
        # A plugin game may have no docstring at all: then it is listed without one.
        doc = next(iter((package.__doc__ or cls.__doc__ or "").strip().splitlines()), "")
        refs = ", ".join(reference_names(gid)) or "-"
        console.print(f"[bold]{gid}[/bold]  {doc}\n    reference agents: {refs}")
    from rich.markup import escape

    from accord.core.plugins import problems
    from accord.models.registry import known_providers

    known_providers()  # discover the providers too, so their problems are listed
    for problem in problems():  # plugins left out, each with its package and fix
        err_console.print(f"[yellow]skipped:[/yellow] {escape(problem.line())}")


def _register_commands() -> None:
    """Import every ``accord.cli.*_cmd`` module; each registers its commands on `app`."""
    import accord.cli

    for info in pkgutil.iter_modules(accord.cli.__path__):
        if info.name.endswith("_cmd"):
            importlib.import_module(f"accord.cli.{info.name}")


_register_commands()
