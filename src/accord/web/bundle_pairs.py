"""The pairs a static bundle computes ahead (`accord.web.bundle`): comparisons of two runs or
batches, and side-by-side pages of two games of a run, in the order a cap keeps them."""

from __future__ import annotations

import itertools
from typing import Any
from urllib.parse import urlencode

__all__ = ["comparisons", "sides_of"]


def comparisons(runs: list[dict[str, Any]]) -> list[str]:
    """Comparison paths for every pair of sides the page offers (a whole run, or one batch of
    it), both ways round: pairs that share a game first, so a cap drops the refusals."""
    sides: list[tuple[str, str | None, set[str]]] = []
    for r in runs:
        groups = r.get("summary") or []
        sides.append((r["run"], None, set(r.get("game_ids") or [])))
        for batch in sorted({g["batch"] for g in groups if g.get("batch")}):
            games = {g["game_id"] for g in groups if g.get("batch") == batch}
            sides.append((r["run"], batch, games))
    shared: list[str] = []
    other: list[str] = []
    for (ra, ba, ga), (rb, bb, gb) in itertools.permutations(sides, 2):
        query = {"a": ra, "b": rb}
        if ba is not None:
            query["a_batch"] = ba
        if bb is not None:
            query["b_batch"] = bb
        (shared if ga & gb else other).append("/api/compare?" + urlencode(query))
    return shared + other


def sides_of(run_id: str, rows: list[dict[str, Any]]) -> list[tuple[bool, str]]:
    """(same scenario?, ``/api/side`` path) for each ordered pair of the run's finished games
    of one game id: the pairs a game page offers to step side by side."""
    done = [r for r in rows if r.get("status") not in ("unreadable", "playing")]
    out = []
    for a, b in itertools.permutations(done, 2):
        if a.get("game_id") != b.get("game_id"):
            continue
        query = {"a_run": run_id, "a_trace": a["trace_id"], "b_run": run_id}
        path = "/api/side?" + urlencode({**query, "b_trace": b["trace_id"]})
        out.append((bool(a.get("scenario")) and a.get("scenario") == b.get("scenario"), path))
    return out
