"""Replay views in the web view: a game's per-step view and two games side by side.

``/api/runs/RUN/games/TRACE/replay`` is the game's replay view (`accord.core.replay`), built
from the trace by the view its game declares; ``null`` for a game that declares none (the page
keeps its generic timeline). ``/api/side`` steps two games of one game id side by side, round
by round (`accord.core.replay.align`), with the differences of their metrics.

As everywhere in the view, a trace is reached only through its run's listing.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from fastapi import FastAPI, HTTPException, Request, Response

from accord.analysis.blame_models import frontier_mark
from accord.analysis.paired import scenario_digest
from accord.core.errors import ConfigError, UnknownGameError
from accord.core.registry import game_class
from accord.core.replay import align, replay_of
from accord.traces.io import read_trace
from accord.traces.schema import Trace


class _Run(Protocol):
    @property
    def run_id(self) -> str: ...
    @property
    def folder(self) -> Path: ...


def replay_payload(trace: Trace) -> dict[str, Any]:
    """``{"replay": frames and steps or None, "note": why there is none}`` for one trace."""
    try:
        cls = game_class(trace.game_id)
    except UnknownGameError:
        return {"replay": None, "note": f"{trace.game_id} is not installed here"}
    try:
        return {"replay": replay_of(cls, trace), "note": None}
    except ConfigError as exc:
        return {"replay": None, "note": str(exc)}


def json_response(request: Request, data: Any) -> Response:
    """`data` as JSON, gzipped when the browser accepts it: a replay repeats most of each frame
    in the next, so it shrinks several times over (a 160-event calendar game: 432 KB of JSON)."""
    body = json.dumps(data, allow_nan=False, separators=(",", ":")).encode()
    headers = {"Vary": "Accept-Encoding"}
    if len(body) > 1024 and "gzip" in request.headers.get("accept-encoding", ""):
        body = gzip.compress(body, compresslevel=6)
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type="application/json", headers=headers)


def metric_differences(a: Trace, b: Trace) -> list[dict[str, Any]]:
    """Each numeric metric both games report: its value in A, in B and B minus A."""
    rows = []
    for key in sorted(set(a.metrics) & set(b.metrics)):
        va, vb = a.metrics[key], b.metrics[key]
        numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (va, vb))
        if not numbers or not (math.isfinite(va) and math.isfinite(vb)):
            continue
        rows.append({"metric": key, "a": va, "b": vb, "diff": vb - va})
    return rows


def side_summary(run_id: str, trace_id: str, trace: Trace) -> dict[str, Any]:
    """What the side-by-side page names each game by."""
    return {
        "run": run_id,
        "trace_id": trace_id,
        "game_id": trace.game_id,
        "seed": trace.seed,
        "status": trace.status,
        "players": " vs ".join(s.identity for s in trace.seats),
        "events": [e.get("type") for e in trace.events],
    }


def add_replay_routes(
    app: FastAPI,
    get_run: Callable[[str], _Run],
    trace_paths: Callable[[Path], dict[str, Path]],
    finite: Callable[[Any], Any],
) -> None:
    """Add the replay and side-by-side routes to `app`."""

    def load(run_id: str, trace_id: str) -> Trace:
        run = get_run(run_id)
        path = trace_paths(run.folder).get(trace_id)
        if path is None:
            raise HTTPException(404, f"no finished trace {trace_id!r} in run {run_id!r}")
        try:
            return read_trace(path)
        except ConfigError as exc:
            raise HTTPException(422, str(exc)) from exc

    @app.get("/api/runs/{run_id}/games/{trace_id}/replay")
    def game_replay(run_id: str, trace_id: str, request: Request) -> Response:
        payload = replay_payload(load(run_id, trace_id))
        run = get_run(run_id).folder
        # The run's blame report, when `accord blame` wrote one: the scrubber marks the step
        # after which no fork saves the game.
        payload["frontier"] = frontier_mark(run.parent if run.name == "traces" else run, trace_id)
        return json_response(request, finite(payload))

    @app.get("/api/side")
    def side_by_side(
        a_run: str, a_trace: str, b_run: str, b_trace: str, request: Request
    ) -> Response:
        a, b = load(a_run, a_trace), load(b_run, b_trace)
        if a.game_id != b.game_id:
            raise HTTPException(
                422,
                f"{a_trace} is a {a.game_id} game and {b_trace} a {b.game_id} game: pick two "
                "games of the same game id to step them side by side",
            )
        ra, rb = replay_payload(a), replay_payload(b)
        pairs: list[tuple[int, int]] = []
        if ra["replay"] is not None and rb["replay"] is not None:
            marks_a = [s["mark"] for s in ra["replay"]["steps"]]
            marks_b = [s["mark"] for s in rb["replay"]["steps"]]
            pairs = align(marks_a, marks_b)
        out = {
            "a": side_summary(a_run, a_trace, a) | ra,
            "b": side_summary(b_run, b_trace, b) | rb,
            "same_scenario": scenario_digest(a) == scenario_digest(b),
            "pairs": pairs,
            "metrics": metric_differences(a, b),
        }
        return json_response(request, finite(out))
