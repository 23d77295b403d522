"""The MAS-Bench App. G analyses and the per-phase Table 1, for `accord report`.

Every function takes the per-game rows of `report.game_row` (complete games only) and returns
table rows; `report.build` writes them. Tokens are a game's T_total over both phases (what the
run cost), from model-reported usage where models played, else the text estimates.

- ``phases`` (§3.4, Table 1): R, TE and CR % of phase 1, phase 2 and both together, per model,
  condition and backend. Table 1's headline columns use the game's ``metrics_phase``
  (default: the final, scored phase).
- ``table6`` (App. G.1, Table 6): mean tokens per run per backend, Base and the ablations
  pooled against CAMOC, the change in %, and Welch's test of the two.
- ``table7`` (App. G.1, Table 7): tokens per correct instance (all tokens of the runs over the
  number of successful ones) on the K-V store, per model, Base against CAMOC.
- ``table8`` (App. G.2, Table 8): tokens per run at N = 1 per backend, the K-V overhead over
  the other two backends pooled, and Welch's test of that difference.
- ``table11`` (App. G.4, Table 11, for every model and backend): SR % under each condition and
  Welch's test of Base against CAMOC; ``regression`` marks a significant drop (p < 0.05).
- ``welch``: every condition against Base in every model x backend cell, for SR and for tokens
  (the §5.4 / G.4 sweep); ``welch_backends``: SR between each pair of backends per model.
- ``failures`` (§5.3): per model and backend, how many wrong agents fall in each rule-based
  failure mode (`failures.py`) and the share of failed games showing each.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from accord.analysis.stats import bootstrap_mean
from accord.analysis.welch import stars, welch
from accord.games.sorting.commands import BACKENDS
from accord.games.sorting.failures import FAILURE_MODES

Row = dict[str, Any]

CONDITION_ORDER = ("base", "camoc", "abl-submit", "abl-message")
PHASES = ("phase1", "phase2", "combined")


def _group(rows: Sequence[Row], *keys: str) -> dict[tuple[Any, ...], list[Row]]:
    out: dict[tuple[Any, ...], list[Row]] = defaultdict(list)
    for r in rows:
        out[tuple(r[k] for k in keys)].append(r)
    return out


def _vals(rows: Sequence[Row], key: str) -> list[float]:
    return [float(r[key]) for r in rows if r.get(key) is not None]


def _ordered(values: Sequence[Any], order: Sequence[Any]) -> list[Any]:
    present = set(values)
    return [v for v in order if v in present] + sorted(present - set(order), key=str)


def _fmt_p(p: float | None) -> str:
    if p is None or math.isnan(p):
        return "–"
    return f"{p:.3g}{stars(p)}"


def _pct_change(new: float, old: float) -> str:
    return f"{100 * (new - old) / old:+.1f}" if old else "–"


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def phases_table(rows: Sequence[Row]) -> list[Row]:
    """R, TE and CR % per phase and combined, per model, condition and backend."""
    out: list[Row] = []
    by = _group(rows, "model", "condition", "backend")
    for model, cond, backend in sorted(
        by,
        key=lambda k: (k[0], _rank(k[1], CONDITION_ORDER), _rank(k[2], BACKENDS)),
    ):
        group = by[(model, cond, backend)]
        row: Row = {"model": model, "condition": cond, "backend": backend, "games": len(group)}
        for ph in PHASES:
            row[f"R {ph}"] = bootstrap_mean(_vals(group, f"rounds_{ph}")).fmt(digits=1)
        for ph in PHASES:
            row[f"TE {ph}"] = bootstrap_mean(_vals(group, f"te_{ph}")).fmt(digits=2)
        for ph in PHASES:
            row[f"CR % {ph}"] = bootstrap_mean(_vals(group, f"cr_{ph}")).fmt(percent=True)
        out.append(row)
    return out


def _rank(value: Any, order: Sequence[Any]) -> int:
    return list(order).index(value) if value in order else len(order)


def table6(rows: Sequence[Row]) -> list[Row]:
    """App. G.1 Table 6: tokens per run per backend, Base/ablations against CAMOC."""
    out: list[Row] = []
    by = _group(rows, "backend")
    for (backend,) in sorted(by, key=lambda k: _rank(k[0], BACKENDS)):
        group = by[(backend,)]
        rest = _vals([r for r in group if r["condition"] != "camoc"], "total_tokens")
        camoc = _vals([r for r in group if r["condition"] == "camoc"], "total_tokens")
        if not rest or not camoc:
            continue
        test = welch(camoc, rest)
        out.append(
            {
                "backend": backend,
                "Base/Abl. tokens/run": f"{_mean(rest):,.0f}",
                "CAMOC tokens/run": f"{_mean(camoc):,.0f}",
                "change %": _pct_change(_mean(camoc), _mean(rest)),
                "Welch p": _fmt_p(test.p if test else None),
                "games (Base/Abl., CAMOC)": f"{len(rest)}, {len(camoc)}",
            }
        )
    return out


def table7(rows: Sequence[Row]) -> list[Row]:
    """App. G.1 Table 7: tokens per correct instance on the K-V store, Base against CAMOC."""
    out: list[Row] = []
    kv = [r for r in rows if r["backend"] == "kv"]
    for model in sorted({r["model"] for r in kv}):
        cells: dict[str, float | None] = {}
        wins: dict[str, int] = {}
        for cond in ("base", "camoc"):
            group = [r for r in kv if r["model"] == model and r["condition"] == cond]
            wins[cond] = sum(1 for r in group if r.get("success") == 1.0)
            tokens = math.fsum(_vals(group, "total_tokens"))
            cells[cond] = tokens / wins[cond] if group and wins[cond] else None
        if all(v is None for v in cells.values()):
            continue
        base, camoc = cells["base"], cells["camoc"]
        out.append(
            {
                "model": model,
                "Base tokens/correct": f"{base:,.0f}" if base is not None else "–",
                "CAMOC tokens/correct": f"{camoc:,.0f}" if camoc is not None else "–",
                "change %": _pct_change(camoc, base) if base and camoc else "–",
                "correct (Base, CAMOC)": f"{wins['base']}, {wins['camoc']}",
            }
        )
    return out


def table8(rows: Sequence[Row]) -> list[Row]:
    """App. G.2 Table 8: tokens per run at N = 1 per backend; the K-V overhead and its test."""
    solo = [r for r in rows if r["n"] == 1]
    if not solo:
        return []
    others = _vals([r for r in solo if r["backend"] != "kv"], "total_tokens")
    kv = _vals([r for r in solo if r["backend"] == "kv"], "total_tokens")
    out: list[Row] = []
    for backend in _ordered([r["backend"] for r in solo], BACKENDS):
        vals = _vals([r for r in solo if r["backend"] == backend], "total_tokens")
        row: Row = {
            "backend": backend,
            "tokens/run": bootstrap_mean(vals).fmt(digits=0),
            "SR %": bootstrap_mean(_vals([r for r in solo if r["backend"] == backend], "sr")).fmt(
                percent=True
            ),
            "games": len(vals),
        }
        if backend == "kv" and others and kv:
            test = welch(kv, others)
            row["overhead vs broadcast+p2p %"] = _pct_change(_mean(kv), _mean(others))
            row["Welch p"] = _fmt_p(test.p if test else None)
        out.append(row)
    return out


def table11(rows: Sequence[Row]) -> list[Row]:
    """App. G.4 Table 11 for every model x backend: SR % per condition, Base vs CAMOC test."""
    out: list[Row] = []
    by = _group(rows, "model", "backend")
    for model, backend in sorted(by, key=lambda k: (k[0], _rank(k[1], BACKENDS))):
        group = by[(model, backend)]
        row: Row = {"model": model, "backend": backend}
        sr: dict[str, list[float]] = {}
        for cond in _ordered([r["condition"] for r in group], CONDITION_ORDER):
            sr[cond] = _vals([r for r in group if r["condition"] == cond], "sr")
            row[f"SR % {cond}"] = bootstrap_mean(sr[cond]).fmt(percent=True)
        test = welch(sr.get("camoc", []), sr.get("base", []))
        row["Welch p (CAMOC vs Base)"] = _fmt_p(test.p if test else None)
        row["regression"] = "yes" if test and test.diff < 0 and test.p < 0.05 else ""
        out.append(row)
    return out


def welch_table(rows: Sequence[Row]) -> list[Row]:
    """Each condition against Base per model x backend: SR and tokens, with Welch's test."""
    out: list[Row] = []
    by = _group(rows, "model", "backend")
    for model, backend in sorted(by, key=lambda k: (k[0], _rank(k[1], BACKENDS))):
        group = by[(model, backend)]
        base = [r for r in group if r["condition"] == "base"]
        for cond in _ordered([r["condition"] for r in group], CONDITION_ORDER):
            if cond == "base" or not base:
                continue
            other = [r for r in group if r["condition"] == cond]
            sr = welch(_vals(other, "sr"), _vals(base, "sr"))
            tok = welch(_vals(other, "total_tokens"), _vals(base, "total_tokens"))
            out.append(
                {
                    "model": model,
                    "backend": backend,
                    "condition": cond,
                    "ΔSR pp": f"{100 * sr.diff:+.1f}" if sr else "–",
                    "SR p": _fmt_p(sr.p if sr else None),
                    "Δtokens %": _pct_change(
                        _mean(_vals(other, "total_tokens")), _mean(_vals(base, "total_tokens"))
                    ),
                    "tokens p": _fmt_p(tok.p if tok else None),
                    "games (cond, base)": f"{len(other)}, {len(base)}",
                }
            )
    return out


def welch_backends(rows: Sequence[Row]) -> list[Row]:
    """SR between every pair of backends, per model (App. G.4: backends differ strongly)."""
    out: list[Row] = []
    for model in sorted({r["model"] for r in rows}):
        mine = [r for r in rows if r["model"] == model]
        backends = _ordered([r["backend"] for r in mine], BACKENDS)
        for a, b in combinations(backends, 2):
            sa = _vals([r for r in mine if r["backend"] == a], "sr")
            sb = _vals([r for r in mine if r["backend"] == b], "sr")
            test = welch(sa, sb)
            out.append(
                {
                    "model": model,
                    "backends": f"{a} vs {b}",
                    "ΔSR pp": f"{100 * test.diff:+.1f}" if test else "–",
                    "p": _fmt_p(test.p if test else None),
                }
            )
    return out


def failures_table(rows: Sequence[Row]) -> list[Row]:
    """Failure modes (§5.3) per model and backend: wrong agents per mode, games showing it."""
    out: list[Row] = []
    by = _group(rows, "model", "backend")
    for model, backend in sorted(by, key=lambda k: (k[0], _rank(k[1], BACKENDS))):
        group = by[(model, backend)]
        failed = [r for r in group if r.get("success") != 1.0]
        row: Row = {"model": model, "backend": backend, "games": len(group)}
        row["failed games"] = len(failed)
        for mode in FAILURE_MODES:
            agents = sum(int(r.get(f"fail_{mode}", 0)) for r in group)
            games = sum(1 for r in failed if int(r.get(f"fail_{mode}", 0)) > 0)
            share = f" ({100 * games / len(failed):.0f}% of failed)" if failed else ""
            row[mode] = f"{agents}{share}"
        out.append(row)
    return out
