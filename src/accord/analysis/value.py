"""The value of communication, across games: where talk puts an outcome between the result
without communication (0) and the oracle (1).

    value = (achieved - baseline) / (oracle - baseline)

The same formula serves lower-is-better outcomes (their oracle lies below the baseline). A
value of 1 means talk closed the whole gap to the oracle, 0 that it added nothing, below 0
that it hurt. Per game, the outcomes, the oracle and the no-communication baseline are:

- negotiation (seed 004 §5.1, Fig. 3, Table 10): joint efficiency, optimum rate and
  1 - overdraw rate, oracle 1 (the joint optimum M every round). Baseline: games with
  ``cheap_talk: false`` (App. D.7), matched to talk games by pairing (seat order ignored) and
  compatibility ratio M/C, under the same transparency and intervention (partner and project
  conditions are pooled). Channel: ``cheap_talk``.
- calendar (CalBench §4.2): success (scheduled-meeting ratio), oracle 1 (every task is built
  around a feasible witness schedule), and coordination-adjusted excess, oracle 0. CalBench
  has no no-talk condition; ours is a run with ``dm_cap: 0`` (no message is ever delivered,
  on any channel), matched by team and by every other option (channels and turn limits
  aside). Channel: the ``channels`` option (dm, participant_groupchat, all_groupchat, all).
- sorting (MAS-Bench §3.4): SR and instance success, oracle 1 (the ``share-all`` reference
  team reaches SR = 1 on every task). Baseline: the ``local-sort`` reference team (no
  communication, each agent submits its own list sorted) on the very same task (options and
  seed), replayed here; it is deterministic, so each game gets its exact floor. Channel: the
  ``backend`` option (broadcast, p2p, kv).

Estimator. Talk games without a matched baseline are left out (and counted). Each talk game is
paired with the mean baseline of its cell, so the baseline is reweighted to the talk games'
mix of cells. The 95% CI is a percentile bootstrap: talk games resampled within the group and
baseline games within each cell, independently (games are the unit, as in `stats`).
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from accord.analysis.stats import BOOTSTRAP_BLOCK as _BLOCK
from accord.traces.schema import Trace

Value = Callable[[Trace], float | None]


@dataclass(frozen=True)
class Outcome:
    """One outcome whose gain from communication is measured."""

    key: str
    label: str
    oracle: float
    value: Value


def _metric(key: str, *, flip: bool = False) -> Value:
    def get(t: Trace) -> float | None:
        v = t.metrics.get(key)
        if not isinstance(v, int | float) or isinstance(v, bool):
            return None
        return 1.0 - float(v) if flip else float(v)

    return get


OUTCOMES: dict[str, tuple[Outcome, ...]] = {
    "negotiation": (
        Outcome("efficiency", "efficiency", 1.0, _metric("efficiency")),
        Outcome("optimum", "optimum rate", 1.0, _metric("optimum_rate")),
        Outcome("no_overdraw", "1 - overdraw", 1.0, _metric("overdraw_rate", flip=True)),
    ),
    "calendar": (
        Outcome("success", "success", 1.0, _metric("success_rate")),
        Outcome("adjusted_excess", "adjusted excess", 0.0, _metric("adjusted_excess")),
    ),
    "sorting": (
        Outcome("sr", "SR", 1.0, _metric("sr")),
        Outcome("success", "success", 1.0, _metric("success")),
    ),
}
"""The outcomes rated per game (short game name)."""


def players(t: Trace) -> str:
    """The team, seat order ignored: ``"a × b"``."""
    return " × ".join(sorted(s.model or s.agent for s in t.seats))


def _ratio(t: Trace) -> Any:
    return t.final_state.get("ratio", t.config.get("ratio"))


def _is_baseline(t: Trace) -> bool:
    if t.game == "negotiation":
        return t.config.get("cheap_talk") is False
    if t.game == "calendar":
        return t.config.get("dm_cap") == 0
    return False


def channel(t: Trace) -> str:
    """The communication channel type of a game."""
    if t.game == "negotiation":
        return "cheap_talk"
    if t.game == "calendar":
        return str(t.config.get("channels", "dm"))
    if t.game == "sorting":
        return str(t.config.get("backend", ""))
    return ""


def cell(t: Trace) -> str:
    """What a talk game and its baseline must share."""
    if t.game == "negotiation":
        # The paper's conditions other than talk (transparency, interventions) must match too.
        same = [t.config.get(k, "none") for k in ("transparency", "intervention")]
        return json.dumps([players(t), _ratio(t), *same])
    if t.game == "calendar":
        skip = {"channels", "dm_cap", "max_turns_per_round"}
        opts = {k: v for k, v in t.config.items() if k not in skip}
        return json.dumps([players(t), opts], sort_keys=True, default=str)
    return json.dumps([t.game_id, t.seed, t.config], sort_keys=True, default=str)


def local_sort_baselines(traces: Iterable[Trace]) -> dict[str, Trace]:
    """The ``local-sort`` team replayed on the task of every sorting trace, by `cell`."""
    from accord.runner.play import play_game
    from accord.runner.specs import AgentSpec, GameSpec

    specs: dict[str, GameSpec] = {}
    for t in traces:
        key = cell(t)
        if t.game == "sorting" and key not in specs:
            specs[key] = GameSpec(
                trace_id=f"local-sort-{len(specs)}",
                game=t.game_id,
                options=dict(t.config),
                seed=t.seed,
                agents=[AgentSpec(agent="local-sort")] * len(t.seats),
            )

    async def play_all() -> list[Trace]:
        return list(await asyncio.gather(*(play_game(s) for s in specs.values())))

    played = asyncio.run(play_all()) if specs else []
    return {k: t for k, t in zip(specs, played, strict=True) if t.status == "complete"}


def value_of_communication(
    traces: Iterable[Trace], *, by_players: bool = False, resamples: int = 2000, seed: int = 0
) -> list[dict[str, Any]]:
    """One row per (game, channel[, team], outcome): achieved, baseline, oracle, value + CIs."""
    done = [t for t in traces if t.status == "complete" and t.game in OUTCOMES]
    baselines: dict[str, list[Trace]] = defaultdict(list)
    for t in done:
        if _is_baseline(t):
            baselines[cell(t)].append(t)
    for key, t in local_sort_baselines(done).items():
        baselines[key].append(t)
    groups: dict[tuple[str, ...], list[Trace]] = defaultdict(list)
    for t in done:
        is_floor = t.game == "sorting" and all(s.agent == "local-sort" for s in t.seats)
        if not (_is_baseline(t) or is_floor):
            groups[(t.game, channel(t), players(t) if by_players else "")].append(t)
    rows = []
    for (game, chan, team), talk in sorted(groups.items()):
        matched = [t for t in talk if baselines.get(cell(t))]
        for oc in OUTCOMES[game]:
            row: dict[str, Any] = {"game": game, "channel": chan}
            if by_players:
                row["players"] = team
            row |= {"outcome": oc.label, "games": 0, "unmatched": len(talk) - len(matched)}
            est = _estimate(oc, matched, baselines, resamples=resamples, seed=seed)
            rows.append(row | {k: est[k] for k in _ORDER})
    return rows


def _estimate(
    oc: Outcome,
    talk: Sequence[Trace],
    baselines: dict[str, list[Trace]],
    *,
    resamples: int,
    seed: int,
) -> dict[str, Any]:
    pairs = []  # (achieved, cell key) of each talk game with a value
    base: dict[str, np.ndarray[Any, np.dtype[np.float64]]] = {}
    for t in talk:
        v = oc.value(t)
        key = cell(t)
        if key not in base:
            vals = [b for x in baselines[key] if (b := oc.value(x)) is not None]
            base[key] = np.asarray(vals, dtype=float)
        if v is not None and base[key].size:
            pairs.append((v, key))
    out: dict[str, Any] = {"games": len(pairs), "baseline_games": 0, "oracle": oc.oracle}
    if not pairs:
        return out | dict.fromkeys(_FIELDS)
    keys = sorted({k for _, k in pairs})
    out["baseline_games"] = sum(base[k].size for k in keys)
    a = np.asarray([v for v, _ in pairs])
    idx = np.asarray([keys.index(k) for _, k in pairs])
    cell_means = np.asarray([base[k].mean() for k in keys])
    achieved, floor = float(a.mean()), float(cell_means[idx].mean())
    rng = np.random.default_rng(seed)
    # Bootstrap means of each cell's baseline (column r = resample r), then talk games.
    cell_boot = np.stack(
        [base[k][rng.integers(0, base[k].size, (resamples, base[k].size))].mean(axis=1)
         for k in keys]
    )  # fmt: skip
    draws = np.empty((resamples, 3))
    for start in range(0, resamples, 256):  # chunks bound the index matrix for large runs
        rs = np.arange(start, min(start + 256, resamples))
        pick = rng.integers(0, a.size, (rs.size, a.size))
        draws[rs, 0] = a[pick].mean(axis=1)
        draws[rs, 1] = cell_boot[idx[pick], rs[:, None]].mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        draws[:, 2] = (draws[:, 0] - draws[:, 1]) / (oc.oracle - draws[:, 1])
    gap = oc.oracle - floor
    value = (achieved - floor) / gap if abs(gap) > 1e-12 else None
    out |= {"achieved": achieved, "baseline": floor, "value": value}
    for j, name in enumerate(("achieved", "baseline", "value")):
        col = draws[:, j][np.isfinite(draws[:, j])]
        if out[name] is None or not col.size:
            out[f"{name}_ci_low"] = out[f"{name}_ci_high"] = None
            continue
        lo, hi = np.quantile(col, [0.025, 0.975])
        out[f"{name}_ci_low"], out[f"{name}_ci_high"] = float(lo), float(hi)
    return out


_ORDER = ("games", "baseline_games", "oracle", "value", "value_ci_low", "value_ci_high",
          "achieved", "achieved_ci_low", "achieved_ci_high", "baseline", "baseline_ci_low",
          "baseline_ci_high")  # fmt: skip
_FIELDS = (
    "achieved", "achieved_ci_low", "achieved_ci_high", "baseline", "baseline_ci_low",
    "baseline_ci_high", "value", "value_ci_low", "value_ci_high",
)  # fmt: skip


def bootstrap_ratio(
    nums: Sequence[float] | NDArray[np.float64],
    dens: Sequence[float] | NDArray[np.float64],
    *,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float | None, float | None, float | None]:
    """Pooled ``sum(nums) / sum(dens)`` over games with a percentile-bootstrap 95% CI,
    resampling games (the rates of seed 004 are pooled over rounds; rounds within a game are
    not independent). Returns (estimate, low, high); all None when nothing was eligible."""
    n_arr, d_arr = np.asarray(nums, dtype=float), np.asarray(dens, dtype=float)
    keep = d_arr > 0
    n_arr, d_arr = n_arr[keep], d_arr[keep]
    if not d_arr.size:
        return None, None, None
    est = float(n_arr.sum() / d_arr.sum())
    if d_arr.size == 1:
        return est, est, est
    rng = np.random.default_rng(seed)
    # Row blocks of about 1M indices: the same random stream (so the same CI) as one
    # (resamples x n) draw, without 24 bytes of memory per game per resample (a 20,000-game
    # group drew 320 MB of indices at once).
    n = int(d_arr.size)
    block = max(1, _BLOCK // n)
    parts = []
    for start in range(0, resamples, block):
        idx = rng.integers(0, n, size=(min(block, resamples - start), n))
        parts.append(n_arr[idx].sum(axis=1) / d_arr[idx].sum(axis=1))
    lo, hi = np.quantile(np.concatenate(parts), [0.025, 0.975])
    return est, float(lo), float(hi)
