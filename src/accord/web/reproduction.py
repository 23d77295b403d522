"""A reproduction directory's write-up in the web view (`accord reproduce` output).

`accord reproduce` leaves ``reproduction.md`` (our numbers beside the paper's) and the figures
``reproduction/*.png`` in the run directory. The run page shows both: the Markdown is served as
text (the page turns it into elements itself, never into HTML) and the figures as PNG. As for
traces, only names found by listing the folder are served, links are not followed, and nothing
outside the run directory can be named by a URL.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from fastapi import FastAPI, HTTPException
from fastapi.responses import FileResponse

__all__ = ["add_reproduction_routes", "reproduction_figures", "reproduction_text"]

MAX_MARKDOWN_BYTES = 2_000_000
"""A write-up larger than this is not shown (ours are a few kilobytes)."""


class _Run(Protocol):
    @property
    def path(self) -> Path: ...


def _inside(path: Path, root: Path) -> bool:
    return not path.is_symlink() and path.resolve().is_relative_to(root.resolve())


def reproduction_text(run_path: Path) -> str | None:
    """``reproduction.md`` of the run, or None when it has none (or it is not readable)."""
    path = run_path / "reproduction.md"
    if not path.is_file() or not _inside(path, run_path):
        return None
    try:
        if path.stat().st_size > MAX_MARKDOWN_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def reproduction_figures(run_path: Path) -> list[str]:
    """The PNG names of ``reproduction/`` (files directly in it, links left out), sorted."""
    root = run_path / "reproduction"
    if not root.is_dir() or not _inside(root, run_path):
        return []
    with os.scandir(root) as entries:
        return sorted(
            e.name for e in entries if e.name.endswith(".png") and e.is_file(follow_symlinks=False)
        )


def add_reproduction_routes(app: FastAPI, get_run: Callable[[str], Any]) -> None:
    """``GET /api/runs/{run}/reproduction`` (``{"markdown", "figures"}``, markdown None when the
    run is no reproduction) and ``GET /api/runs/{run}/reproduction/{name}`` (one figure)."""

    @app.get("/api/runs/{run_id}/reproduction")
    def run_reproduction(run_id: str) -> dict[str, Any]:
        run: _Run = get_run(run_id)
        return {
            "markdown": reproduction_text(run.path),
            "figures": reproduction_figures(run.path),
        }

    @app.get("/api/runs/{run_id}/reproduction/{name}")
    def run_reproduction_figure(run_id: str, name: str) -> FileResponse:
        run: _Run = get_run(run_id)
        if name not in reproduction_figures(run.path):
            raise HTTPException(404, f"no figure {name!r} in the reproduction of {run_id!r}")
        return FileResponse(run.path / "reproduction" / name, media_type="image/png")
