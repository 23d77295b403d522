"""The `accord` command line (typer). Every command has --help with an example."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from typing import Any

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


@app.callback()
def _each_command(ctx: typer.Context) -> None:
    # A command given a run in a store reads a local copy of it; what it writes there (a
    # report, a fork) goes back to the store as soon as the command ends.
    from accord.store.mirror import flush_views

    ctx.call_on_close(flush_views)


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


def _one_line_usage_errors() -> None:
    """Print a bad option or argument (``--cpus 0``, an unknown flag) as one ``error:`` line
    naming the command's --help, not typer's boxed panel: every refusal reads the same way and
    a log or a script sees one line (exit code 2 is click's, unchanged)."""
    from typer import rich_utils

    if getattr(rich_utils.rich_format_error, "_accord", False):
        return

    def rich_format_error(self: Any) -> None:  # typer's own (vendored) ClickException
        if type(self).__name__ == "NoArgsIsHelpError":  # the help was printed already
            return
        from rich.markup import escape

        from accord.core.secrets import scrub_secrets

        message = " ".join(self.format_message().split())
        ctx = getattr(self, "ctx", None)
        hint = f" (see {ctx.command_path} --help)" if ctx is not None else ""
        err_console.print(f"[bold red]error:[/bold red] {escape(scrub_secrets(message))}{hint}")

    rich_format_error._accord = True  # type: ignore[attr-defined]
    rich_utils.rich_format_error = rich_format_error


# Piped output (CI logs, files) gets a wide table instead of rich's 80-column default.
console = Console(width=None if sys.stdout.isatty() else 160)
# Errors are one line whatever the width: a pipe or a log would otherwise wrap at 80 columns.
err_console = Console(stderr=True, soft_wrap=True)
_one_line_usage_errors()


def _one_line_warnings() -> None:
    """Print Accord's own warnings (`accord.core.errors.AccordWarning`) as one ``warning:``
    line on stderr, escaped and scrubbed like errors; other warnings keep Python's form."""
    import warnings

    from accord.core.errors import AccordWarning

    shown = warnings.showwarning
    if getattr(shown, "_accord", False):
        return

    def showwarning(message: Warning | str, category: type[Warning], *args: Any, **kw: Any) -> None:
        if not issubclass(category, AccordWarning):
            shown(message, category, *args, **kw)
            return
        from rich.markup import escape

        from accord.core.secrets import scrub_secrets

        text = " ".join(str(message).split())
        err_console.print(f"[yellow]warning:[/yellow] {escape(scrub_secrets(text))}")

    showwarning._accord = True  # type: ignore[attr-defined]
    warnings.showwarning = showwarning


def main() -> None:
    """Entry point: run the app and turn Accord errors into one clear line and exit code 2."""
    _one_line_warnings()
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
    """List the registered games, their reference agents and what else each declares
    (`GameInfo`), and any plugin that was skipped (with its package and the fix).

    Example: accord games
    """
    from rich.markup import escape

    from accord.agents.reference import reference_names
    from accord.core.gameinfo import info_for
    from accord.core.registry import game_class, game_ids

    for gid in game_ids():
        cls = game_class(gid)
        package = importlib.import_module(cls.__module__.rsplit(".", 1)[0])
        # A plugin game may have no docstring at all: then it is listed without one.
        doc = next(iter((package.__doc__ or cls.__doc__ or "").strip().splitlines()), "")
        refs = ", ".join(reference_names(gid)) or "-"
        console.print(f"[bold]{gid}[/bold]  {escape(doc)}\n    reference agents: {refs}")
        info = info_for(gid)
        if info.kind is not None:
            console.print(f"    kind: {escape(info.kind.describe())}")
        parts = {
            "report": info.report, "leaderboard": info.board, "value of talk": info.value,
            "query messages": info.messages, "PettingZoo score": info.score,
            "judge": info.judges, "terminal play": info.human.adapter,
            "browser controls": info.human.controls, "suites": info.suites,
        }  # fmt: skip
        declared = ", ".join(name for name, part in parts.items() if part) or "-"
        console.print(f"    declares: {declared}")

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
