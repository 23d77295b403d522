"""`accord prompts`: a game's prompt templates: list them, or write the defaults to edit."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from accord.cli.main import _fail, app, console
from accord.core.errors import AccordError


@app.command("prompts")
def prompts_cmd(
    game: Annotated[str, typer.Argument(help="Game name, e.g. negotiation.")],
    dump: Annotated[
        Path | None,
        typer.Option(help="Write the default templates into this (empty or new) folder."),
    ] = None,
) -> None:
    """List a game's prompt templates (name, variables, what each must keep), or write the
    defaults to a folder to edit; run with `--prompts DIR` (or `prompts: DIR` in an experiment
    file) to use your wording. Files you leave out keep the default. The templates are json
    mode's; a tools-mode seat reads them worded for tool calls.

    Example: accord prompts negotiation --dump my-prompts
    """
    from accord.core.prompts import SUFFIX, dump_defaults, prompt_module, variables_of
    from accord.core.registry import game_class, resolve

    try:
        short = game_class(resolve(game)).game_id.rsplit("-v", 1)[0]
        module = prompt_module(game)
        specs = module.TEMPLATES
        if dump is not None:
            written = dump_defaults(module.__package__ or short, specs, dump)
            shown = escape(str(dump))
            console.print(
                f"wrote {len(written)} templates to {shown}; edit any of them (and delete the "
                f"rest to keep their defaults), then run with --prompts {shown}"
            )
            return
        defaults = module.templates()
    except AccordError as exc:
        raise _fail(exc) from exc
    table = Table(title=f"{short} prompt templates (Jinja2; `--dump DIR` writes them)")
    for col in ("template", "what it is", "variables", "must keep"):
        table.add_column(col)
    for name, spec in specs.items():
        used = sorted(variables_of(defaults.sources[name]))
        table.add_row(
            escape(name + SUFFIX),
            escape(spec.doc),
            escape(", ".join(used) or "–"),
            escape(", ".join(sorted(spec.required)) or "–"),
        )
    console.print(table)
    console.print(
        "These are json mode's prompts (the paper's reply format). A seat in tools mode "
        "(action_mode: tools) reads them with the reply instructions worded for tool calls; "
        'see the game\'s docs page, "Tools mode".'
    )
