"""`accord transcript`: print what a seat's model was sent and returned, call by call; for a
remote seat (`accord.agents.remote`), each request it was sent, the calls its agent made and
the replies it gave, from the trace's ``remote_*`` records."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.panel import Panel

from accord.agents.transcript import expand
from accord.cli.main import _fail, app, console
from accord.cli.options import trace_location
from accord.core.errors import AccordError, ConfigError
from accord.traces.events import Event, ModelCall, ModelErrorEvent
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
    trace_path: Annotated[
        Path, typer.Argument(help="A trace file (RUN/traces/<id>.json).", parser=trace_location)
    ],
    seat: Annotated[
        str | None, typer.Option(help="Seat name (e.g. A) or index; default: every seat.")
    ] = None,
    call: Annotated[
        int | None,
        typer.Option(
            help="Only this call (1-based, as in the events' 'call'); for a remote seat, "
            "only this request (its request_id)."
        ),
    ] = None,
    full: Annotated[
        bool,
        typer.Option(help="Repeat every message of each call (default: only the new ones)."),
    ] = False,
) -> None:
    """Print a seat's conversation with its model: each call, what it was sent, what came back.

    By default each call shows only the messages the seat's model had not been sent before
    (the system prompt once, then each new observation), then the reply, the tokens and any
    retries; --full repeats the whole conversation of every call. A remote seat (an agent in
    another process) shows each request it was sent, every call its agent made, its replies
    (a rejected one with why) and how long it took.

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


def remote_events(trace: Trace, seat_name: str) -> list[Event]:
    """The seat's ``remote_*`` records in step order (empty for a seat not held remotely)."""
    seat = next((s.seat for s in trace.seats if s.name == seat_name), None)
    return sorted(
        (
            e
            for e in trace.events
            if e.get("seat") == seat and str(e.get("type", "")).startswith("remote_")
        ),
        key=lambda e: int(e.get("t", 0)),
    )


def _print_remote_seat(
    trace: Trace, name: str, records: list[Event], only: int | None, full: bool
) -> None:
    """A remote seat, request by request: the messages it was sent (the system prompt only
    when it changed, unless `full`), each call its agent made, the replies (a rejected one with
    why) and the outcome. `only` picks one request by its id. The seat's transcript holds
    the messages in that same order: what was sent for a request, then its replies."""
    messages = trace.transcripts[name].messages
    info = next((s for s in trace.seats if s.name == name), None)
    asked = [e for e in records if e["type"] == "remote_request"]
    console.rule(
        f"seat {escape(name)} · {escape(info.agent if info else '?')} · remote · "
        f"{len(asked)} requests"
    )
    if only is not None and not any(int(e.get("request_id", 0)) == only for e in asked):
        raise ConfigError(f"seat {name} has no request {only}; it was sent {len(asked)}")
    at = 0  # the next message of the transcript
    system: int | None = None  # the system prompt in force
    show = only is None
    for event in records:
        kind = event["type"]
        if kind == "remote_join":
            if only is None:
                console.print(f"[dim]offered over {escape(str(event.get('via')))}[/dim]")
            continue
        if kind == "remote_request":
            show = only is None or int(event.get("request_id", 0)) == only
            sent: list[int] = []
            while at < len(messages) and messages[at].get("role") != "user":
                if messages[at].get("role") == "system":
                    system = at
                sent.append(at)
                at += 1
            if at < len(messages):
                sent.append(at)
                at += 1
            if not show:
                continue
            console.print(
                f"\n[bold]request {event.get('request_id')} · "
                f"{escape(str(event.get('kind', '')))}[/bold]"
            )
            if (full or only is not None) and system is not None and system not in sent:
                _print_message(system, messages[system])  # the system prompt still in force
            for i in sent:
                _print_message(i, messages[i])
        elif kind == "remote_call":
            if show:
                status = (
                    "ok"
                    if event.get("ok")
                    else f"[red]refused:[/red] {escape(str(event.get('error', '')))}"
                )
                console.print(
                    f"  [dim]call {escape(str(event.get('tool')))} via "
                    f"{escape(str(event.get('via')))} at {event.get('at_s')} s:[/dim] {status}"
                )
            # An act call that named a request carried a reply: the transcript's next one.
            replied = event.get("tool") == "act" and "request_id" in event
            if replied and at < len(messages) and messages[at].get("role") == "assistant":
                if show:
                    _print_message(at, messages[at])
                at += 1
        elif show and kind == "remote_action":
            usage = event.get("self_reported_usage")
            note = f" · the agent reports {escape(str(usage))}" if usage else ""
            console.print(f"  [dim]answered in {event.get('response_s')} s{note}[/dim]")
        elif show and kind == "remote_failed":
            console.print(f"  [red]failed:[/red] {escape(str(event.get('error')))}")
        elif show and kind == "remote_unauthenticated":
            console.print(f"  [yellow]{escape(str(event.get('note')))}[/yellow]")


def _print_seat(trace: Trace, name: str, only: int | None, full: bool) -> None:
    records = remote_events(trace, name)
    if records:
        _print_remote_seat(trace, name, records, only, full)
        return
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
