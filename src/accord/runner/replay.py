"""Replay: rebuild a game from its trace alone and compare two traces.

A trace holds everything its game was built from (DESIGN principle 7): id, game, validated
config, seed, per-seat agent specs and run labels (a fork's switch included). Played again
with the model cache the run filled, every model call is answered as it was the first time and
the new trace equals the old one except for what legitimately changes between identical runs:
timestamps, the package version and measured latency.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from accord.core.errors import ConfigError
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.events import ModelCall, ModelErrorEvent
from accord.traces.schema import Trace

VOLATILE = ("started_at", "ended_at", "accord_version")
"""Top-level trace fields that differ between identical runs."""

_TIMING = ("latency_s",)


def spec_from_trace(trace: Trace) -> GameSpec:
    """The `GameSpec` a trace was played from (a hand-edited trace is checked field by field)."""
    from accord.runner.fork import ForkPoint

    try:
        agents = [AgentSpec.model_validate(a) for a in trace.agents_config]
    except ValidationError as exc:
        raise ConfigError(
            f"{trace.trace_id}: the trace's agent specs are invalid: {_short_error(exc)}"
        ) from exc
    if any(a.is_human for a in agents):
        raise ConfigError(f"{trace.trace_id} has a seat played by a person; it cannot be replayed")
    fork = trace.run.get("fork")
    if fork:
        try:
            point = ForkPoint.model_validate(fork)
        except ValidationError as exc:
            raise ConfigError(
                f"{trace.trace_id}: run.fork is not a valid fork point ({_short_error(exc)}); "
                "remove it or restore it from the original trace"
            ) from exc
        if point.seat >= len(agents):
            raise ConfigError(
                f"{trace.trace_id}: run.fork.seat is {point.seat} but the game has "
                f"{len(agents)} seats; fix or remove run.fork"
            )
    try:
        return GameSpec(
            trace_id=trace.trace_id,
            game=trace.game_id,
            options=dict(trace.config),
            seed=trace.seed,
            agents=agents,
            labels=dict(trace.run),
        )
    except ValidationError as exc:
        raise ConfigError(
            f"{trace.trace_id}: cannot replay this trace: {_short_error(exc)}"
        ) from exc


def _short_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    msg = str(err["msg"]).removeprefix("Value error, ")
    return f"{loc}: {msg}" if loc else msg


def comparable(trace: Trace) -> dict[str, Any]:
    """A trace as JSON without timestamps, version and latency (which differ on replay)."""
    data = trace.model_dump(mode="json")
    for key in VOLATILE:
        data.pop(key, None)
    data["events"] = [{k: v for k, v in e.items() if k not in _TIMING} for e in data["events"]]
    data["usage"] = {
        seat: {k: v for k, v in u.items() if k not in _TIMING} for seat, u in data["usage"].items()
    }
    return data


def differences(a: Trace, b: Trace, *, limit: int = 5) -> list[str]:
    """Where two traces differ (modulo `comparable`), as up to `limit` readable lines."""
    out: list[str] = []
    _diff(comparable(a), comparable(b), "", out, limit)
    return out


def _diff(a: Any, b: Any, path: str, out: list[str], limit: int) -> None:
    if len(out) >= limit or a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            _diff(a.get(key), b.get(key), f"{path}.{key}" if path else str(key), out, limit)
        return
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _diff(x, y, f"{path}[{i}]", out, limit)
        if len(a) != len(b) and len(out) < limit:
            out.append(f"{path}: {len(a)} items vs {len(b)}")
        return
    out.append(f"{path}: {_short(a)} vs {_short(b)}")


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def missing_replies(trace: Trace) -> str | None:
    """Why the trace cannot answer its model seats' calls by itself (a damaged or pre-transcript
    trace), or None when it can (or has no model seat)."""
    if not any(a.get("model") for a in trace.agents_config):
        return None
    calls = [e for e in trace.events if isinstance(e, ModelCall | ModelErrorEvent)]
    if not calls:
        return "it records no model call to answer from"
    names = {s.seat: s.name for s in trace.seats}
    for i, event in enumerate(trace.events):
        if not isinstance(event, ModelCall | ModelErrorEvent):
            continue
        seat = event.seat
        name = names.get(seat) if isinstance(seat, int) else None
        if name is None or name not in trace.transcripts:
            return f"event {i} is a model call of a seat with no stored transcript"
        if "sent" not in event:
            return f"event {i} is a model call without the messages it was sent"
    return None


def default_out(trace_path: Path, kind: str) -> Path:
    """Where replays or forks of a trace go: ``RUN/<kind>/`` beside ``RUN/traces/``.

    Never into ``traces/`` itself: the run's results are rebuilt from that directory.
    """
    parent = trace_path.resolve().parent
    inside_run = parent.name in ("traces", "replays", "forks")
    return (parent.parent if inside_run else parent) / kind
