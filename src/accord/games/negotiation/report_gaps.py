"""The remaining tables of `accord report` for negotiation (seed 004 §5.2, §5.4, §5.5, §5.7,
App. F.1, Fig. 4, Fig. 5), each pooled over rounds with a percentile-bootstrap 95% CI over
games, as in `report.py`.

- ``early_decision``: Fig. 5's round-level rate in both readings, Accord's (rounds in which
  either seat decided during talk) and the companion engine's (``early_submit``: rounds whose
  talk ended before the turn limit; the paper does not say which it plots), beside the
  seat-round rate and each seat's own rate, per pair. From `negotiation-v3` on the partner
  of an early decider keeps its turns (App. D.1), so two identical policies have the same
  seat A and seat B rates.
- ``per_model``: per model, over the games it played (a self-play game counts once): equal
  split and perfunctory fairness (§5.4, companion rules; the v2 any-resource rule beside),
  first-proposal deference as the responder (§5.5) and its own early decisions.
- ``anchoring``: §5.5's stubborn-anchoring splits: overall, stable / shifting partner, each
  M/C, and per pair and partner; the companion's rule with v2's beside it.
- ``interventions``: App. F.1: outcomes and process rates per prompt intervention (none,
  share projects, theory of mind) for every pair that played one.
- ``transparency_process``: §5.7: process rates under transparency against the baseline, per
  pair that played both.
- ``figure4`` data: stable minus shifting optimum rate per model and M/C with a bootstrap CI
  of the difference (stable and shifting games resampled independently).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from accord.analysis.value import bootstrap_ratio
from accord.games.negotiation.metrics import early_decision_rate, talk_ended_early_rate
from accord.games.negotiation.rates import Rate
from accord.games.negotiation.report_tables import Estimate, Game, _by, _Numbers, _ratios, estimate
from accord.games.negotiation.strategies import deference_events

PROCESS: tuple[tuple[str, str], ...] = (
    ("early_decision_round", "Early decision (rounds)"),
    ("proposal", "Proposal"),
    ("deference", "Deference"),
    ("equal_split", "Equal split"),
    ("perfunctory_fairness", "Perfunctory fairness"),
    ("stubborn_anchoring", "Stubborn anchoring"),
    ("coherence", "Stated-vs-actual coherence"),
    ("win_stay", "Win-stay"),
    ("lose_shift", "Lose-shift"),
)
"""Process rates compared across conditions (§5.7, App. F.1)."""

ACCORD_FIG5 = "Fig. 5 rounds, Accord: a seat decided during talk"
COMPANION_FIG5 = "Fig. 5 rounds, companion early_submit: talk ended before the turn limit"
"""The two readings of Fig. 5's round rate; the paper does not say which it plots."""

OUTCOME_KEYS = (("overdraw", "Overdraw"), ("efficiency", "Efficiency"), ("optimum", "Optimum"))


def _pooled(rates: Sequence[Rate]) -> Estimate:
    """`estimate` for per-game rates that are not stored on the games."""
    m, lo, hi = bootstrap_ratio([r.hits for r in rates], [r.total for r in rates])
    return m, lo, hi, sum(r.total > 0 for r in rates)


def models(games: Sequence[Game]) -> list[str]:
    """Every model (or agent) seated in `games`, alphabetically."""
    return sorted({s for g in games for s in g.seats})


def ended(games: Sequence[Game]) -> list[Rate]:
    """Per game, the companion's Fig. 5 rate (`metrics.talk_ended_early_rate`)."""
    return [talk_ended_early_rate(g.records, g.talk_turns) for g in games]


def early_decision_table(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """Fig. 5's round-level rate in both readings and the per-seat rates, per pair and over
    all games."""
    key0 = "early_decision_round"
    groups = [*sorted(_by(games, lambda g: g.pair).items()), ("all", list(games))]
    rows = []
    for name, gs in groups:
        row: dict[str, Any] = {"pair": name, "games": len(gs)}
        row[ACCORD_FIG5] = nums.add(
            "early_decision", name, None, "early_decision_round", estimate(gs, key0)
        )
        row[COMPANION_FIG5] = nums.add(
            "early_decision", name, None, "talk_ended_early", _pooled(ended(gs))
        )
        for key, label in (
            ("early_decision", "Seat-rounds"),
            ("early_decision_seat0", "Seat A"),
            ("early_decision_seat1", "Seat B"),
        ):
            row[label] = nums.add("early_decision", name, None, key, estimate(gs, key))
        rows.append(row)
    return rows


def per_model_table(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """Per-model equal split, perfunctory fairness, deference (as responder), early decision."""
    rows = []
    for model in models(games):
        gs = [g for g in games if model in g.seats]
        row: dict[str, Any] = {"model": model, "games": len(gs)}
        for key, label in (
            ("equal_split", "Equal split"),
            ("perfunctory_fairness", "Perfunctory fairness"),
            ("equal_split_any", "Equal split (v2 rule)"),
        ):
            row[label] = nums.add("per_model", model, None, key, estimate(gs, key))
        defer, early = [], []
        for g in gs:
            seats = {k for k, s in enumerate(g.seats) if s == model}
            events = [d for _, seat, d in deference_events(g.records) if seat in seats]
            defer.append(Rate(sum(events), len(events)))
            early.append(sum((early_decision_rate(g.records, k) for k in seats), Rate()))
        row["Deference (responder)"] = nums.add(
            "per_model", model, None, "deference", _pooled(defer)
        )
        row["Early decision (own seats)"] = nums.add(
            "per_model", model, None, "early_decision", _pooled(early)
        )
        rows.append(row)
    return rows


def anchoring_table(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """§5.5 stubborn anchoring: overall, by partner, by M/C, and per pair and partner."""
    fixed = [g for g in games if g.projects == "fixed"]
    cells: list[tuple[str, list[Game]]] = [("all", fixed)]
    cells += [
        (f"{p} partner", [g for g in fixed if g.partner == p]) for p in ("stable", "shifting")
    ]
    cells += [(f"M/C = {r:.1f}", [g for g in fixed if g.ratio == r]) for r in _ratios(fixed)]
    for (pair, partner), gs in sorted(_by(fixed, lambda g: (g.pair, g.partner)).items()):
        cells.append((f"{pair}, {partner}", gs))
    rows = []
    for name, gs in cells:
        if not gs:
            continue
        rows.append(
            {
                "group": name,
                "games": len(gs),
                "Stubborn anchoring (companion rule, fallback rounds left out)": nums.add(
                    "anchoring",
                    name,
                    None,
                    "stubborn_anchoring",
                    estimate(gs, "stubborn_anchoring"),
                ),
                "eligible rounds": sum(g.rate("stubborn_anchoring").total for g in gs),
                "Stubborn anchoring (v2 rule)": nums.add(
                    "anchoring",
                    name,
                    None,
                    "stubborn_anchoring_v2",
                    estimate(gs, "stubborn_anchoring_v2"),
                ),
            }
        )
    return rows


def _condition_rows(
    games: Sequence[Game],
    nums: _Numbers,
    table: str,
    condition: Callable[[Game], str],
    baseline: str,
    keys: Sequence[tuple[str, str]],
) -> list[dict[str, Any]]:
    """One row per pair and condition, for pairs that played `baseline` and another."""
    rows = []
    for pair, gs in sorted(_by(games, lambda g: g.pair).items()):
        conds = {condition(g) for g in gs}
        if baseline not in conds or len(conds) < 2:
            continue
        for cond in [baseline, *sorted(conds - {baseline})]:
            cell = [g for g in gs if condition(g) == cond]
            row: dict[str, Any] = {"pair": pair, "condition": cond, "games": len(cell)}
            for key, label in keys:
                row[label] = nums.add(table, f"{pair}/{cond}", None, key, estimate(cell, key))
            rows.append(row)
    return rows


def interventions_table(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """App. F.1: each prompt intervention against none, per pair (talk games, no
    transparency)."""
    talk = [g for g in games if g.talk and g.transparency == "none"]
    keys = (*OUTCOME_KEYS, *PROCESS)
    return _condition_rows(talk, nums, "interventions", lambda g: g.intervention, "none", keys)


def transparency_process_table(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """§5.7: process rates under transparency against the baseline, per pair (talk games, no
    intervention)."""
    talk = [g for g in games if g.talk and g.intervention == "none"]
    return _condition_rows(
        talk, nums, "transparency_process", lambda g: g.transparency, "none", PROCESS
    )


def gap_estimate(
    stable: Sequence[Game], shifting: Sequence[Game], key: str = "optimum", *, seed: int = 0
) -> tuple[float, float, float] | None:
    """Pooled rate of `key` in `stable` minus `shifting` with a 95% percentile-bootstrap CI
    (each side's games resampled independently); None when a side has no eligible round."""
    a = [g.rate(key) for g in stable if g.rate(key).total]
    b = [g.rate(key) for g in shifting if g.rate(key).total]
    if not a or not b:
        return None
    na, da = np.array([r.hits for r in a]), np.array([r.total for r in a], dtype=float)
    nb, db = np.array([r.hits for r in b]), np.array([r.total for r in b], dtype=float)
    est = float(na.sum() / da.sum() - nb.sum() / db.sum())
    rng = np.random.default_rng(seed)
    ia = rng.integers(0, len(a), size=(2000, len(a)))
    ib = rng.integers(0, len(b), size=(2000, len(b)))
    diffs = na[ia].sum(1) / da[ia].sum(1) - nb[ib].sum(1) / db[ib].sum(1)
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    return est, float(lo), float(hi)


def figure4_rows(games: Sequence[Game]) -> list[dict[str, Any]]:
    """Fig. 4's data: per model and M/C, the stable minus shifting optimum rate (pp) with its
    CI; only models that played both partner conditions at that ratio."""
    rows = []
    for model in models(games):
        gs = [g for g in games if model in g.seats]
        for r in _ratios(gs):
            cell = [g for g in gs if g.ratio == r]
            gap = gap_estimate(
                [g for g in cell if g.partner == "stable"],
                [g for g in cell if g.partner == "shifting"],
            )
            if gap is None:
                continue
            rows.append(
                {
                    "model": model,
                    "ratio": r,
                    "gap_pp": round(100 * gap[0], 2),
                    "ci_low_pp": round(100 * gap[1], 2),
                    "ci_high_pp": round(100 * gap[2], 2),
                    "stable_games": sum(g.partner == "stable" for g in cell),
                    "shifting_games": sum(g.partner == "shifting" for g in cell),
                }
            )
    return rows
