"""`accord trace-schema`: the JSON schema of a trace file (`accord.traces.schema`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from accord.cli.main import _fail, app
from accord.core.errors import AccordError


@app.command("trace-schema")
def trace_schema(
    game: Annotated[
        str | None,
        typer.Option(
            help="Describe this game's own events with its declared models (default: every "
            "game event is a generic game event)."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Write the schema to this file instead of printing it.")
    ] = None,
) -> None:
    """Print the JSON schema (draft 2020-12) of a trace file: every field, the typed harness
    events (model calls, validation errors, fallbacks, ...) and the game events.

    Validate traces with any JSON schema tool, or generate types for another language.

    Examples:

      accord trace-schema --out trace.schema.json

      accord trace-schema --game negotiation
    """
    from accord.core.registry import game_class, resolve
    from accord.traces.io import atomic_write_text
    from accord.traces.schema import trace_json_schema

    try:
        event_types = game_class(resolve(game)).event_types if game is not None else ()
        text = json.dumps(trace_json_schema(event_types), indent=1) + "\n"
        if out is not None:
            atomic_write_text(out, text)
            typer.echo(f"wrote the trace schema to {out}")
            return
    except AccordError as exc:
        raise _fail(exc) from exc
    typer.echo(text, nl=False)
