"""Judge outputs as tables: label prevalence by outcome (seed 004 Table 5 / Table 13) and
agreement with human annotations as Cohen's kappa (Table 14)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.games.negotiation.judge.taxonomy import AUX_KEYS, CORE_KEYS

OUTCOMES = ("optimal", "suboptimal", "overdrawn")


def prevalence(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per label: rounds labelled and percentage overall and within each outcome class."""
    table = []
    for key in (*CORE_KEYS, *AUX_KEYS):
        # No labelled round: the count is unknown, not zero (a 0 would read as "never seen").
        count = sum(bool(r.get(key)) for r in rows) if rows else None
        row: dict[str, Any] = {"label": key, "rounds": count}
        row["all_pct"] = _pct([r for r in rows], key)
        for outcome in OUTCOMES:
            row[f"{outcome}_pct"] = _pct([r for r in rows if r["outcome"] == outcome], key)
        table.append(row)
    return table


def _pct(rows: Sequence[dict[str, Any]], key: str) -> float | None:
    if not rows:
        return None
    return 100.0 * sum(bool(r.get(key)) for r in rows) / len(rows)


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa of two binary raters; ``None`` when undefined (chance agreement is 1)."""
    if len(a) != len(b):
        raise ValueError("both raters must label the same items")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    if expected == 1.0:
        return None
    return (observed - expected) / (1 - expected)


def agreement(
    judge: Sequence[dict[str, Any]], human: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Per label: human and judge prevalence and kappa over the rounds both labelled.

    Rows are matched on ``(trace_id, round)``; per-agent tags (``<tag>:agent_a``) are included
    when the human file has them.
    """
    by_key = {(r["trace_id"], r["round"]): r for r in judge}
    pairs = [
        (h, by_key[(h["trace_id"], h["round"])])
        for h in human
        if (h["trace_id"], h["round"]) in by_key
    ]
    keys = [k for k in human[0] if k not in {"trace_id", "round", "outcome"}] if human else []
    table = []
    for key in keys:
        hv = [bool(h.get(key)) for h, _ in pairs]
        jv = [bool(j.get(key)) for _, j in pairs]
        n = len(pairs)
        table.append(
            {
                "label": key,
                "rounds": n,
                "human_pct": 100.0 * sum(hv) / n if n else None,
                "judge_pct": 100.0 * sum(jv) / n if n else None,
                "kappa": cohen_kappa(hv, jv),
            }
        )
    return table


def inter_judge(
    first: Sequence[dict[str, Any]], second: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Per label: both judges' prevalence and Cohen's kappa over the rounds both labelled
    (App. G.2 compares judges label by label)."""
    table = agreement(first, second)
    return [
        {
            "label": r["label"],
            "rounds": r["rounds"],
            "general_pct": r["judge_pct"],
            "specialist_pct": r["human_pct"],
            "kappa": r["kappa"],
        }
        for r in table
    ]
