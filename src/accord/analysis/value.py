"""The value of communication, across games: where talk puts an outcome between the result
without communication (0) and the oracle (1).

    value = (achieved - baseline) / (oracle - baseline)

The same formula serves lower-is-better outcomes (their oracle lies below the baseline). A
value of 1 means talk closed the whole gap to the oracle, 0 that it added nothing, below 0
that it hurt. Each game declares its outcomes, their oracle and its no-communication baseline
in its `GameInfo` (``value``: `accord.core.gameinfo.TalkValue`): either a played condition
(``is_baseline``, e.g. an option that mutes every channel) matched to talk games by ``cell``, or
a reference team (``baseline_agent``) replayed here on each talk game's very task (options and
seed). The built-in games' ``outcomes`` modules cite the papers for theirs.

Estimator. Talk games without a matched baseline are left out (and counted). Each talk game is
paired with the mean baseline of its cell, so the baseline is reweighted to the talk games'
mix of cells. The 95% CI is a percentile bootstrap: talk games resampled within the group and
baseline games within each cell, independently (games are the unit, as in `stats`).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from accord.analysis.stats import BOOTSTRAP_BLOCK as _BLOCK
from accord.core import gameinfo
from accord.core.gameinfo import TalkValue
from accord.traces.schema import Trace

Value = Callable[[Trace], float | None]
Outcome = gameinfo.Outcome
players = gameinfo.players


def _talk(t: Trace) -> TalkValue | None:
    info = gameinfo.info_for_trace(t.game_id, t.game)
    return None if info is None else info.value


def _is_baseline(t: Trace) -> bool:
    spec = _talk(t)
    return spec is not None and spec.is_baseline(t)


def _is_floor(t: Trace) -> bool:
    """A game of the replayed baseline team itself (never counted as talk)."""
    spec = _talk(t)
    agent = spec.baseline_agent if spec is not None else None
    return agent is not None and all(s.agent == agent for s in t.seats)


def channel(t: Trace) -> str:
    """The communication channel type of a game."""
    spec = _talk(t)
    return "" if spec is None else spec.channel(t)


def cell(t: Trace) -> str:
    """What a talk game and its baseline must share."""
    spec = _talk(t)
    return gameinfo.same_task(t) if spec is None else spec.cell(t)


def replayed_baselines(traces: Iterable[Trace]) -> dict[str, Trace]:
    """Each game's baseline team (`TalkValue.baseline_agent`) replayed on the task of every
    trace of a game that declares one, by `cell`."""
    from accord.runner.play import play_game
    from accord.runner.specs import AgentSpec, GameSpec

    specs: dict[str, GameSpec] = {}
    for t in traces:
        key = cell(t)
        spec = _talk(t)
        if spec is not None and spec.baseline_agent and key not in specs:
            specs[key] = GameSpec(
                trace_id=f"{spec.baseline_agent}-{len(specs)}",
                game=t.game_id,
                options=dict(t.config),
                seed=t.seed,
                agents=[AgentSpec(agent=spec.baseline_agent)] * len(t.seats),
            )

    async def play_all() -> list[Trace]:
        return list(await asyncio.gather(*(play_game(s) for s in specs.values())))

    played = asyncio.run(play_all()) if specs else []
    return {k: t for k, t in zip(specs, played, strict=True) if t.status == "complete"}


def value_of_communication(
    traces: Iterable[Trace], *, by_players: bool = False, resamples: int = 2000, seed: int = 0
) -> list[dict[str, Any]]:
    """One row per (game, channel[, team], outcome): achieved, baseline, oracle, value + CIs."""
    done = [t for t in traces if t.status == "complete" and _talk(t) is not None]
    baselines: dict[str, list[Trace]] = defaultdict(list)
    for t in done:
        if _is_baseline(t):
            baselines[cell(t)].append(t)
    for key, t in replayed_baselines(done).items():
        baselines[key].append(t)
    groups: dict[tuple[str, ...], list[Trace]] = defaultdict(list)
    for t in done:
        if not (_is_baseline(t) or _is_floor(t)):
            groups[(t.game, channel(t), players(t) if by_players else "")].append(t)
    rows = []
    for (game, chan, team), talk in sorted(groups.items()):
        matched = [t for t in talk if baselines.get(cell(t))]
        spec = _talk(talk[0])
        for oc in spec.outcomes if spec is not None else ():
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
