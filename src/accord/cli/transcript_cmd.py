"""`accord transcript`: print what a seat's model was sent and returned, call by call."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.panel import Panel

from accord.agents.transcript import expand
from accord.cli.main import _fail, app, console
from accord.core.errors import AccordError, ConfigError
from accord.traces.events import ModelCall, ModelErrorEvent
from accord.traces.io import read_trace
from accord.traces.schema import Trace

_STYLE = {"system": "magenta", "user": "cyan", "assistant": "green"}


def seat_calls(trace: Trace, seat_name: str) -> list[ModelCall | ModelErrorEvent]:
    """The seat's ``model_call`` / ``model_error`` events in call order."""
    seat = next((s.seat for s in trace.seats if s.name == seat_name), None)
    return sorted(
        (e for e in trace.events if isinstance(e, ModelCall | ModelErrorEvent) and e.seat == seat),
        key=lambda e: e.call or 0,
    )


def _pick_seat(trace: Trace, seat: str | None) -> list[str]:
    names = list(trace.transcripts)
    if not names:
        raise ConfigError(
            f"{trace.trace_id} holds no transcripts: its seats were not played by models, or "
            "it was written before Accord stored them (schema version 1)."
        )
    if seat is None:
        return names
    by_index = {str(s.seat): s.name for s in trace.seats}
    name = by_index.get(seat, seat)
    if name not in trace.transcripts:
        raise ConfigError(
            f"no transcript for seat {seat!r} in {trace.trace_id}; seats with one: "
            f"{', '.join(names)}"
        )
    return [name]


@app.command("transcript")
def transcript(
    trace_path: Annotated[Path, typer.Argument(help="A trace file (RUN/traces/<id>.json).")],
    seat: Annotated[
        str | None, typer.Option(help="Seat name (e.g. A) or index; default: every seat.")
    ] = None,
    call: Annotated[
        int | None, typer.Option(help="Only this call (1-based, as in the events' 'call').")
    ] = None,
    full: Annotated[
        bool,
        typer.Option(help="Repeat every message of each call (default: only the new ones)."),
    ] = False,
) -> None:
    """Print a seat's conversation with its model: each call, what it was sent, what came back.

    By default each call shows only the messages the seat's model had not been sent before
    (the system prompt once, then each new observation), then the reply, the tokens and any
    retries; --full repeats the whole conversation of every call.

    Examples:

      accord transcript runs/demo/traces/negotiation-self-play-M-C-0.5-p00-g000.json --seat A

      accord transcript runs/demo/traces/negotiation-self-play-M-C-0.5-p00-g000.json --call 3 --full
    """
    try:
        trace = read_trace(trace_path)
        names = _pick_seat(trace, seat)
        for name in names:
            _print_seat(trace, name, call, full)
    except AccordError as exc:
        raise _fail(exc) from exc


def _print_seat(trace: Trace, name: str, only: int | None, full: bool) -> None:
    messages = trace.transcripts[name].messages
    calls = seat_calls(trace, name)
    info = next((s for s in trace.seats if s.name == name), None)
    who = f"{info.agent}" if info else "?"
    console.rule(f"seat {escape(name)} · {escape(who)} · {len(calls)} calls")
    if only is not None and not any(int(e.get("call", 0)) == only for e in calls):
        raise ConfigError(f"seat {name} has no call {only}; it made {len(calls)} calls")
    shown: set[int] = set()
    for event in calls:
        number = int(event.get("call", 0))
        indices = expand(event.get("sent", []))
        if only is not None and number != only:
            shown.update(indices)
            continue
        head = f"call {number} · {escape(str(event.get('kind', '')))}"
        if event.get("type") == "model_error":
            head += " · [red]failed[/red]"
        console.print(f"\n[bold]{head}[/bold]")
        for i in indices:
            if i in shown and not full and only is None:
                continue
            _print_message(i, messages[i])
        shown.update(indices)
        for retry in event.get("retries", []):
            console.print(
                f"  [yellow]retry after attempt {retry.get('attempt')}:[/yellow] "
                f"{escape(str(retry.get('error')))} (waited {retry.get('wait_s')} s)"
            )
        if event.get("type") == "model_error":
            console.print(f"  [red]error:[/red] {escape(str(event.get('error')))}")
            continue
        reply = int(event["reply"])
        _print_message(reply, messages[reply])
        shown.add(reply)
        console.print(
            f"  [dim]{event.get('input_tokens', 0)} in / {event.get('output_tokens', 0)} out "
            f"tokens · {event.get('attempts', 1)} attempt(s) · {event.get('latency_s', 0)} s"
            "[/dim]"
        )


def _print_message(index: int, message: dict[str, Any]) -> None:
    role = str(message.get("role", "?"))
    title = f"#{index} {role}"
    if message.get("truncated"):
        title += f" (cut from {message['truncated']} characters)"
    if message.get("note"):
        title += f" · {message['note']}"
    body = escape(str(message.get("content", "")))
    if message.get("reasoning"):
        body = f"[dim]reasoning: {escape(str(message['reasoning']))}[/dim]\n\n" + body
    console.print(
        Panel(body, title=escape(title), title_align="left", border_style=_STYLE.get(role, "white"))
    )
