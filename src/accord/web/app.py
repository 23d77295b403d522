"""The read-only web view behind `accord serve`: a JSON API over run directories and the page.

Every request re-lists the trace folders, so a run still in progress shows its new games on the
next reload. Parsed rows are cached per file and reused while the file's size and modification
time are unchanged, so reopening a large run does not re-validate every trace.

Nothing here writes traces, summaries or static files: they are only read. The one write is
a change asked from the run page's control buttons, appended to the run's control log and
refused without the run's control token (`accord.web.ctl_routes`). A trace is reached
only through the listing of its run's trace folder (the URL's trace id must be a file stem found
there), so no URL can name a file outside the directories given on the command line.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.responses import FileResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from starlette.middleware.trustedhost import TrustedHostMiddleware

from accord.agents.reference import reference_names
from accord.core.errors import ConfigError
from accord.core.registry import game_class, game_ids
from accord.traces.io import read_trace
from accord.web.ctl_routes import add_ctl_routes
from accord.web.live import (
    game_stream,
    live_game,
    live_logs,
    live_row,
    run_progress,
    run_stream,
)
from accord.web.play import PlayHub
from accord.web.play_routes import add_play_routes
from accord.web.replay_routes import add_replay_routes
from accord.web.reproduction import add_reproduction_routes
from accord.web.runs import (
    RowCache,
    RunDir,
    finite,
    resolve_runs,
    run_entry,
    trace_paths,
)
from accord.web.views import MAX_LEADERBOARD_GAMES, compare, report_figures, side_rows
from accord.web.watch import MAX_STREAMS_PER_CLIENT, Listing, RunWatch, StreamCap

STATIC_DIR = Path(__file__).with_name("static")

# Trace text is model output; the page renders it as text only, and this policy makes sure
# that even a mistake there cannot load or run anything from elsewhere.
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def create_app(
    dirs: Sequence[Path],
    *,
    allowed_hosts: Sequence[str] | None = None,
    play: PlayHub | None = None,
    max_streams: int = MAX_STREAMS_PER_CLIENT,
) -> FastAPI:
    """The web app serving `dirs` read-only (and, with `play`, tables for people).

    `allowed_hosts` limits the Host header the app answers to; `accord serve` sets it when
    bound to the loopback interface, so a web page elsewhere cannot reach the traces by
    pointing its own domain name at 127.0.0.1 (DNS rebinding). With `play`, its output
    directory is served as a run too, and games still playing are cancelled at shutdown.
    Live streams share one watcher per run and all of them (play seats' too) are capped at
    `max_streams` per client address (`accord.web.watch`).
    """
    if play is not None and all(d.resolve() != play.out.resolve() for d in dirs):
        dirs = [*dirs, play.out]
    runs = resolve_runs(dirs)
    cache = RowCache()
    if play is not None:
        play.run_id = next(
            r.run_id for r in runs.values() if r.path.resolve() == play.out.resolve()
        )

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        if play is not None:
            await play.close()

    # The interactive API docs load scripts from a CDN; the view must work offline.
    # No /openapi.json either: the view is for people, and its API is not a public contract.
    app = FastAPI(
        title="Accord", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan
    )
    cap = StreamCap(max_streams)  # every live stream, play seats' included
    if play is not None:
        add_play_routes(app, play, cap)
    if allowed_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))

    @app.middleware("http")
    async def security_headers(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        response.headers.update(_SECURITY_HEADERS)
        return response

    def get_run(run_id: str) -> RunDir:
        run = runs.get(run_id)
        if run is None:
            raise HTTPException(404, f"no run {run_id!r}; known runs: {', '.join(runs)}")
        return run

    add_reproduction_routes(app, get_run)
    add_replay_routes(app, get_run, trace_paths, finite)
    add_ctl_routes(app, get_run)  # the run page's buttons: need the run's control token

    def rows_of(run: RunDir) -> list[dict[str, Any]]:
        paths = trace_paths(run.folder)
        rows = [cache.row(tid, path) for tid, path in paths.items()]
        logs = {tid: p for tid, p in live_logs(run.path).items() if tid not in paths}
        if logs:
            state = (run_progress(run.path) or {}).get("state", "stopped")
            rows += [live_row(tid, path, state) for tid, path in logs.items()]
        return rows

    def snapshot_of(run: RunDir) -> dict[str, Any]:
        snap: dict[str, Any] = finite(run_entry(run, rows_of(run)))
        snap["in_flight"] = snap.pop("playing")
        snap.pop("summary")
        return snap

    def listing_of(run: RunDir) -> Listing:
        return Listing(trace_paths(run.folder), live_logs(run.path))

    watches = {
        run.run_id: RunWatch(
            functools.partial(listing_of, run), functools.partial(snapshot_of, run)
        )
        for run in runs.values()
    }

    def capped(request: Request, body: AsyncGenerator[str, None]) -> StreamingResponse:
        return cap.stream(request, body)

    @app.get("/api/runs")
    def list_runs() -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = finite(
            [run_entry(run, rows_of(run)) for run in runs.values()]
        )
        return entries

    @app.get("/api/runs/{run_id}/games")
    def list_games(run_id: str) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = finite(rows_of(get_run(run_id)))
        return rows

    @app.get("/api/runs/{run_id}/games/{trace_id}")
    def get_trace(run_id: str, trace_id: str) -> dict[str, Any]:
        run = get_run(run_id)
        # Only names found in the listing are opened: a crafted id cannot leave the folder.
        path = trace_paths(run.folder).get(trace_id)
        if path is None:
            log = live_logs(run.path).get(trace_id)
            if log is not None:
                state = (run_progress(run.path) or {}).get("state", "stopped")
                live: dict[str, Any] = finite(live_game(trace_id, log, state))
                return live
            raise HTTPException(404, f"no trace {trace_id!r} in run {run_id!r}")
        try:
            trace = read_trace(path)
        except ConfigError as exc:
            raise HTTPException(422, str(exc)) from exc
        data: dict[str, Any] = finite(trace.model_dump(mode="json"))
        return data

    @app.get("/api/runs/{run_id}/games/{trace_id}/stream")
    async def stream_game(
        run_id: str, trace_id: str, request: Request, since: int = 0
    ) -> StreamingResponse:
        run = get_run(run_id)
        watch = watches[run.run_id]
        if await watch.files(trace_id) == (None, None):
            # The shared listing may predate the game: look once more, off the loop.
            fresh = await asyncio.to_thread(listing_of, run)
            if trace_id not in fresh.traces and trace_id not in fresh.logs:
                raise HTTPException(404, f"no game {trace_id!r} in run {run_id!r}")

        async def files() -> tuple[Path | None, Path | None]:
            return await watch.files(trace_id)

        body = game_stream(files, max(since, 0), request.is_disconnected, finite)
        return capped(request, body)

    @app.get("/api/runs/{run_id}/live")
    async def stream_run(run_id: str, request: Request) -> StreamingResponse:
        watch = watches[get_run(run_id).run_id]
        return capped(request, run_stream(watch.snapshot.get, request.is_disconnected))

    @app.get("/api/compare")
    def compare_runs(
        a: str, b: str, a_batch: str | None = None, b_batch: str | None = None
    ) -> dict[str, Any]:
        rows_a = side_rows(rows_of(get_run(a)), a_batch)
        rows_b = side_rows(rows_of(get_run(b)), b_batch)
        try:
            compared = compare(rows_a, rows_b)
        except ConfigError as exc:  # different games, or too few games on a side
            raise HTTPException(422, str(exc)) from exc
        result: dict[str, Any] = finite(
            {
                "a": {"run": a, "batch": a_batch, "games": len(rows_a)},
                "b": {"run": b, "batch": b_batch, "games": len(rows_b)},
                **compared,
            }
        )
        return result

    @app.get("/api/runs/{run_id}/leaderboard")
    def run_leaderboard(run_id: str) -> dict[str, Any]:
        from accord.ratings.leaderboard import leaderboards

        run = get_run(run_id)
        paths = trace_paths(run.folder)
        if len(paths) > MAX_LEADERBOARD_GAMES:
            return {"rows": [], "note": "too many games to rate here: use accord leaderboard"}
        traces = []
        for path in paths.values():
            try:
                traces.append(read_trace(path))
            except ConfigError:
                continue  # listed as unreadable in the games table
        rows = [r for board in leaderboards(traces) for r in board.rows()]
        result: dict[str, Any] = finite({"rows": rows, "note": None})
        return result

    @app.get("/api/runs/{run_id}/figures")
    def run_figures(run_id: str) -> list[str]:
        return report_figures(get_run(run_id).path)

    @app.get("/api/runs/{run_id}/figures/{name:path}")
    def run_figure(run_id: str, name: str) -> FileResponse:
        run = get_run(run_id)
        # Only names found in the listing are served: a crafted path cannot leave the folder.
        if name not in report_figures(run.path):
            raise HTTPException(404, f"no figure {name!r} in the report of run {run_id!r}")
        return FileResponse(run.path / "report" / name, media_type="image/png")

    @app.get("/api/games")
    def list_registered_games() -> list[dict[str, Any]]:
        # The summary's labels and units, so every table of the page names a metric alike.
        return [
            {
                "game_id": gid,
                "reference_agents": reference_names(gid),
                "metrics": [
                    {"key": k, "label": label, "percent": pct}
                    for k, label, pct in game_class(gid).summary_metrics
                ],
            }
            for gid in game_ids()
        ]

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
