"""`accord view bundle`: the web view of run directories written out as a static site.

The site is the page of `accord serve` (the same ``index.html``, scripts and styles) with every
answer of its JSON API saved to a file beforehand, so it opens from the file system
(``file://``) and from any static host, with no server and nothing fetched from the network.

How the answers are stored. ``fetch()`` cannot read files from a ``file://`` page, but a
``<script>`` element can load one; so each answer is a small script, ``data/<key>.js``, that
hands its payload to ``static/bundle.js``, which stands in for the API (`api()` of ``app.js``
asks it instead of the server). ``<key>`` is the 64-bit FNV-1a hash (hex) of the request path
with its percent-escapes decoded and its query fields sorted, computed alike here and in
``bundle.js``: no run, trace or figure name ever becomes a file name, and two paths with the
same key are refused. Payloads larger than `COMPRESS_ABOVE` bytes (traces, large games
tables) are gzip-compressed and base64-encoded; the page inflates them with the browser's
``DecompressionStream``. Figures are copied as ``data/<key>.png``.

What is asked. The answers come from the app itself (`accord.web.app.create_app`, called in
process, nothing listens), so the site shows exactly what the server would: every ``GET``
route of the API under ``/api/runs`` or ``/api/games`` is asked for each run, each trace and
each registered game id (``{run_id}``, ``{trace_id}``, ``{game_id}``), whichever feature
added it, except live streams. Comparisons (``/api/compare``) are asked for
each pair of runs and each pair of batches inside a run, both ways round, up to
`MAX_COMPARISONS`; a comparison left out says so on the page. Side-by-side pages
(``/api/side``: two games of one game id in one run stepped together, as a game page offers)
are saved for each ordered pair of a run's games of one game id, pairs of the same scenario
first, up to `MAX_SIDES` (each holds both games' replays); one left out says so when opened.

Bounds. Each game's trace is its own file, loaded only when its page opens; a run's games
table is one (compressed) file, paged in the browser. At most ``max_games`` games per run get
their own pages (the table still lists every game; a game left out says so when opened).

A snapshot, not a live view: games still playing, the progress of a run that has not ended
and local directory paths (a run shows as its folder's name) are left out. Every payload is
scrubbed of secrets (`accord.core.secrets.scrub_secrets`) before it is written.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import gzip
import json
import re
import shutil
from collections.abc import Callable, Coroutine, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from fastapi import FastAPI
from fastapi.routing import APIRoute

from accord.core.errors import ConfigError
from accord.core.secrets import scrub_secrets
from accord.web.app import STATIC_DIR, create_app
from accord.web.bundle_pairs import comparisons, sides_of
from accord.web.runs import resolve_runs

__all__ = ["BundleResult", "bundle_key", "write_bundle"]

MARKER = "accord-bundle.json"
"""The file that marks a folder as a bundle (so rebuilding into it may replace it)."""
COMPRESS_ABOVE = 4096
"""Payloads larger than this many bytes are stored gzip-compressed."""
MAX_COMPARISONS = 200
"""At most this many comparisons are computed into a bundle."""
MAX_SIDES = 100
"""At most this many side-by-side pages (two games stepped together) go into a bundle."""
DEFAULT_MAX_GAMES = 2000
"""Games per run that get their own pages unless ``--max-games`` says otherwise."""

_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'none'"
)
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3


@dataclass
class BundleResult:
    """What a bundle holds: counts and sizes, and what was left out (and why)."""

    out: Path
    runs: int = 0
    games: int = 0
    pages: int = 0
    comparisons: int = 0
    sides: int = 0
    figures: int = 0
    bytes_written: int = 0
    left_out: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Trace files passed over as not readable, one line each with the reason (listed by
    the command as every command lists them)."""


def bundle_key(path: str) -> str:
    """The data file key of an API request path (64-bit FNV-1a of its canonical form, hex).

    Canonical: the path's percent-escapes decoded, then its query fields (decoded) sorted and
    joined as ``k=v`` with ``&``. ``static/bundle.js`` computes the same.
    """
    base, _, query = path.partition("?")
    canon = unquote(base)
    if query:
        pairs = sorted(
            (unquote(k.replace("+", " ")), unquote(v.replace("+", " ")))
            for k, _, v in (part.partition("=") for part in query.split("&") if part)
        )
        canon += "?" + "&".join(f"{k}={v}" for k, v in pairs)
    h = _FNV_OFFSET
    for byte in canon.encode("utf-8"):
        h = ((h ^ byte) * _FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def _check_out(out: Path) -> None:
    """Refuse an output folder that holds anything but an earlier bundle."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder for the site, e.g. --out site/")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise ConfigError(
            f"--out {out} is not empty and holds no earlier bundle; give an empty or new "
            "folder, e.g. --out site/"
        )


async def _get(app: FastAPI, path: str) -> tuple[int, bytes]:
    """One GET of `app` in process (no socket): its status and body."""
    base, _, query = path.partition("?")
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": unquote(base),
        "raw_path": base.encode("ascii"),
        "query_string": query.encode("ascii"),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), (b"accept", b"application/json")],
        "client": ("127.0.0.1", 0),
        "server": ("127.0.0.1", 80),
    }
    status = 500
    body = bytearray()
    sent = False

    async def receive() -> MutableMapping[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)  # never disconnects while the app answers
        sent = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body.extend(message.get("body", b""))

    await app(scope, receive, send)
    return status, bytes(body)


class _Writer:
    """Writes the data files of a bundle, scrubbed, keyed and (when large) compressed."""

    def __init__(self, data: Path, result: BundleResult) -> None:
        self.data = data
        self.result = result
        self.keys: dict[str, str] = {}

    def _claim(self, path: str) -> str:
        key = bundle_key(path)
        other = self.keys.setdefault(key, path)
        if other != path:
            raise ConfigError(
                f"two pages of the bundle share the key {key} ({other!r}, {path!r}); rename "
                "one of the runs or traces and bundle again"
            )
        return key

    def _write(self, name: str, content: bytes) -> None:
        (self.data / name).write_bytes(content)
        self.result.bytes_written += len(content)

    def answer(self, path: str, status: int, body: bytes) -> None:
        """Store one API answer: its JSON, or its error text when it failed."""
        key = self._claim(path)
        raw_text = body.decode("utf-8", errors="replace")
        text = scrub_secrets(raw_text)
        if status != 200:
            try:
                detail = json.loads(text).get("detail", text)
            except (ValueError, AttributeError):
                detail = text
            text = json.dumps({"__error": f"{status}: {detail}"})
        if text != raw_text:
            json.loads(text)  # a redaction must leave valid JSON; a failure here is a bug
        raw = text.encode("utf-8")
        if len(raw) > COMPRESS_ABOVE:
            packed = base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode()
            script = f'ACCORD_BUNDLE.putGz("{key}", "{packed}");\n'
        else:
            # JSON is a JavaScript expression; escaping "<" keeps "</script>" inert as well.
            literal = text.replace("<", "\\u003c")
            script = f'ACCORD_BUNDLE.put("{key}", {literal});\n'
        self._write(f"{key}.js", script.encode("utf-8"))

    def figure(self, path: str, source: Path) -> None:
        """Copy one figure (PNG) for the page's image at `path`."""
        key = self._claim(path)
        self._write(f"{key}.png", source.read_bytes())
        self.result.figures += 1


def _routes(app: FastAPI) -> list[str]:
    """The API's GET route paths worth saving: under /api/runs or /api/games, no streams."""
    paths: list[str] = []
    for route in app.routes:
        if not isinstance(route, APIRoute) or "GET" not in (route.methods or set()):
            continue
        p = route.path
        if not (p.startswith("/api/runs") or p.startswith("/api/games")):
            continue
        if p.endswith(("/stream", "/live")) or "{name" in p:
            continue  # streams need a server; figures are copied as files
        paths.append(p)
    return paths


def _fill(template: str, **values: str) -> str | None:
    """`template` with its ``{param}`` parts filled (escaped), or None if one is unknown."""
    out = template
    for param in re.findall(r"{([^}:]+)}", template):
        if param not in values:
            return None
        out = out.replace("{" + param + "}", quote(values[param], safe=""))
    return out


def _snapshot(path: str, body: bytes, run_names: dict[str, str]) -> bytes:
    """Runs and games answers made a snapshot: no playing games, no progress, no local paths."""
    if path == "/api/runs":
        entries = json.loads(body)
        for e in entries:
            e["dir"] = run_names.get(e["run"], e["run"])
            progress = e.get("progress") or {}
            if progress.get("state") not in ("finished", "interrupted"):
                e["progress"] = None  # a run still playing (or killed) shows its traces only
            e["games"] -= e.get("playing", 0)
            e["playing"] = 0
        return json.dumps(entries).encode()
    if re.fullmatch(r"/api/runs/[^/]+/games", path):
        rows = [r for r in json.loads(body) if r.get("status") != "playing"]
        return json.dumps(rows).encode()
    return body


def _index_html() -> str:
    """The served ``index.html`` made relative, with the bundle's loader and a CSP."""
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    html = html.replace('"/static/', '"static/')
    html = re.sub(
        r"<noscript>.*?</noscript>", "<noscript>This page needs JavaScript.</noscript>", html
    )
    meta = f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
    html = html.replace('<meta charset="utf-8">', f'<meta charset="utf-8">\n  {meta}', 1)
    loader = '<script src="static/bundle.js" defer></script>\n  '
    first = html.index("<script ")
    return html[:first] + loader + html[first:]


def write_bundle(
    dirs: list[Path],
    out: Path,
    *,
    max_games: int = DEFAULT_MAX_GAMES,
    max_comparisons: int = MAX_COMPARISONS,
    max_sides: int = MAX_SIDES,
    progress: Callable[[str], None] | None = None,
) -> BundleResult:
    """Write the static site of the run directories `dirs` into `out`; see the module doc.

    `out` must be new, empty or an earlier bundle (which is replaced). Raises `ConfigError`
    for a missing run directory or an unusable `out`, before anything is written.
    """
    if min(max_games, max_comparisons, max_sides) < 0:
        raise ConfigError("--max-games, --max-comparisons and --max-sides must be 0 or more")
    for d in dirs:
        if not d.is_dir():
            raise ConfigError(
                f"{d} is not a directory. Give run directories written by `accord run` "
                "(each holds traces/), e.g. accord view bundle runs/demo --out site/"
            )
    runs = resolve_runs(dirs)
    _check_out(out)
    app = create_app(list(dirs))
    result = BundleResult(out=out)
    for old in ("data", "static", "index.html"):
        target = out / old
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    (out / "data").mkdir(parents=True)
    # Marked first, so a bundle that fails half-way can be rebuilt into the same folder.
    (out / MARKER).write_text(json.dumps({"format": 1, "complete": False}) + "\n", "utf-8")
    shutil.copytree(STATIC_DIR, out / "static")
    (out / "index.html").write_text(_index_html(), encoding="utf-8")
    writer = _Writer(out / "data", result)
    names = {run_id: run_id for run_id in runs}  # a run's id is its folder's name
    limits = (max_games, max_comparisons, max_sides)
    _run(_fill_site(app, writer, runs, names, limits, progress))
    marker = {
        "format": 1,
        "complete": True,
        "runs": list(runs),
        "games": result.games,
        "pages": result.pages,
    }
    (out / MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
    return result


def _run(work: Coroutine[Any, Any, None]) -> None:
    """Run `work` to the end, also when called from a running event loop (a notebook)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(work)
        return
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, work).result()


async def _fill_site(
    app: FastAPI,
    writer: _Writer,
    runs: dict[str, Any],
    names: dict[str, str],
    limits: tuple[int, int, int],
    progress: Callable[[str], None] | None,
) -> None:
    max_games, max_comparisons, max_sides = limits
    result = writer.result
    sides: list[tuple[bool, str]] = []
    routes = _routes(app)

    async def save(path: str) -> tuple[int, bytes]:
        status, body = await _get(app, path)
        if status == 200:
            body = _snapshot(path.partition("?")[0], body, names)
        writer.answer(path, status, body)
        return status, body

    game_ids = [g["game_id"] for g in json.loads((await _get(app, "/api/games"))[1])]
    for template in routes:
        params = set(re.findall(r"{([^}:]+)}", template))
        if not params:
            await save(template)
        elif params == {"game_id"}:
            for game_id in game_ids:
                await save(_fill(template, game_id=game_id) or "")
        elif not params <= {"run_id", "trace_id"}:
            result.left_out.append(f"{template} (its parameters are not known to the bundle)")
    run_list = json.loads((await _get(app, "/api/runs"))[1])
    result.runs = len(run_list)
    for run_id in runs:
        if progress is not None:
            progress(f"run {run_id}")
        _, body = await save(_fill("/api/runs/{run_id}/games", run_id=run_id) or "")
        rows = json.loads(body)
        result.games += len(rows)
        result.skipped += [
            f"run {run_id}: {r['trace_id']}.json: {r.get('error', '')}"
            for r in rows
            if r.get("status") == "unreadable"
        ]
        for template in routes:
            if "{trace_id}" in template or template == "/api/runs/{run_id}/games":
                continue
            if (path := _fill(template, run_id=run_id)) is not None:
                await save(path)
        await _save_figures(app, writer, run_id, runs[run_id].path)
        kept = [r["trace_id"] for r in rows][:max_games]
        if len(rows) > len(kept):
            result.left_out.append(
                f"run {run_id}: pages for {len(rows) - len(kept)} of {len(rows)} games left "
                f"out (--max-games {max_games})"
            )
        for trace_id in kept:
            for template in routes:
                if "{trace_id}" in template:
                    path = _fill(template, run_id=run_id, trace_id=trace_id)
                    if path is not None:
                        await save(path)
            result.pages += 1
        sides += sides_of(run_id, [r for r in rows if r["trace_id"] in set(kept)])
    sides.sort(key=lambda s: not s[0])  # the same scenario first (a stable sort)
    for _, path in sides[:max_sides]:
        await save(path)
    result.sides = min(len(sides), max_sides)
    if len(sides) > max_sides:
        result.left_out.append(
            f"{len(sides) - max_sides} of {len(sides)} side-by-side pages (--max-sides {max_sides})"
        )
    pairs = comparisons(run_list)
    for path in pairs[:max_comparisons]:
        await save(path)
    result.comparisons = min(len(pairs), max_comparisons)
    if len(pairs) > max_comparisons:
        result.left_out.append(
            f"{len(pairs) - max_comparisons} of {len(pairs)} comparisons (--max-comparisons "
            f"{max_comparisons})"
        )


async def _save_figures(app: FastAPI, writer: _Writer, run_id: str, run_path: Path) -> None:
    """Copy the run's report figures and reproduction figures under the page's image paths."""
    from accord.web.reproduction import reproduction_figures
    from accord.web.views import report_figures

    base = f"/api/runs/{quote(run_id, safe='')}"
    for name in report_figures(run_path):
        writer.figure(f"{base}/figures/{name}", run_path / "report" / name)
    for name in reproduction_figures(run_path):
        writer.figure(
            f"{base}/reproduction/{quote(name, safe='')}", run_path / "reproduction" / name
        )
