"""Tables 3, 4, 9, 10 and Figures 2, 3 of seed 004 for `accord report` (`report.py`).

Rates are pooled over rounds as in the paper (overdraw, optimum and early decision: hits /
rounds; efficiency: mean of joint reward / M over rounds), computed by `metrics.game_metrics`
(fallback rounds left out, App. B). Each cell is written ``mean [low, high]`` in percent: the
95% CI is a percentile bootstrap over games (rounds of one game are not independent). A pair
is the two seats' models (or agent names) with seat order ignored, one name for self-play.
Tables 3 and 4 and Figures 2 and 5 use the talk games of the main condition (no transparency,
no intervention), pooling partner and project conditions as the paper does.

Files (tables as ``.csv`` and ``.md``):

- ``table3``: self-play vs cross-play, overdraw / efficiency / optimum per ratio M/C.
- ``table4``: strategy rates (App. E): payoff alternation over 2 rounds and over the whole
  game, win-stay, lose-shift; per pair and over all games; non-rotating games only.
- ``table9``: full transparency vs baseline per pair, mode (partner) and ratio (§5.7); only
  when some games have ``transparency`` other than ``none``.
- ``table10``: talk vs no-talk (``cheap_talk: false``) per pair, mode and ratio, cells
  ``talk / no-talk`` (§5.1); only pairs and cells that have both.
- ``value_of_cheap_talk``: `accord.analysis.value` per pair (0 = no-talk, 1 = oracle).
- ``figure2.png``: efficiency per pair and ratio, self-play solid, cross-play hatched.
- ``figure3.png``: value of cheap talk per ratio: 1 - overdraw, efficiency, optimum; filled
  dots talk, hollow dots no-talk, shaded gain; over the cells of Table 10.
- ``estimates.csv``: every number above as plain values (table, group, ratio, metric, mean,
  ci_low, ci_high, games).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accord.analysis.figures import PAPER_WIDTH, ci_note, legend_below
from accord.analysis.value import bootstrap_ratio
from accord.games.negotiation.config import RATIOS
from accord.games.negotiation.metrics import GameMetrics, game_metrics, talk_turn_limit
from accord.games.negotiation.rates import Rate
from accord.games.negotiation.record import RoundRecord
from accord.traces.schema import Trace

OUTCOMES = (("overdraw", "Overdraw"), ("efficiency", "Efficiency"), ("optimum", "Optimum"))
STRATEGIES = (
    ("payoff_alternation", "Payoff alternation (2-rd)"),
    ("full_alternation", "Payoff alternation (game)"),
    ("win_stay", "Win-stay"),
    ("lose_shift", "Lose-shift"),
)


@dataclass(frozen=True)
class Game:
    """What the report needs of one complete game."""

    trace_id: str
    seats: tuple[str, ...]
    ratio: float
    partner: str
    projects: str
    transparency: str
    intervention: str
    talk: bool
    plain: bool
    records: tuple[RoundRecord, ...]
    gm: GameMetrics
    talk_turns: int = 5
    """Talk turns per seat (0 without talk or unlimited): the companion's Fig. 5 reading."""

    @property
    def pair(self) -> str:
        """Seat order ignored; one name for self-play."""
        names = sorted(set(self.seats))
        return names[0] if len(names) == 1 else " × ".join(names)

    @property
    def self_play(self) -> bool:
        return len(set(self.seats)) == 1

    def rate(self, key: str) -> Rate:
        return self.gm.efficiency if key == "efficiency" else self.gm.rates[key]


def load(traces: Iterable[Trace]) -> list[Game]:
    """Complete negotiation games, with their metrics recomputed from the round records."""
    out = []
    for t in traces:
        if t.status != "complete" or "rounds" not in t.final_state:
            continue
        records = tuple(RoundRecord.model_validate(r) for r in t.final_state["rounds"])
        rotating = t.config.get("projects") == "rotating"
        out.append(
            Game(
                trace_id=t.trace_id,
                seats=tuple(s.identity for s in t.seats),
                ratio=float(t.final_state.get("ratio") or t.config.get("ratio") or 0.0),
                partner=str(t.config.get("partner", "stable")),
                projects=str(t.config.get("projects", "fixed")),
                transparency=str(t.config.get("transparency", "none")),
                intervention=str(t.config.get("intervention", "none")),
                talk=t.config.get("cheap_talk", True) is not False,
                plain=t.config.get("transparency", "none") == "none"
                and t.config.get("intervention", "none") == "none",
                records=records,
                gm=game_metrics(
                    records,
                    rotating=rotating,
                    shifting=t.config.get("partner") == "shifting",
                    supply=(t.config.get("market") or {}).get("supply"),
                ),
                talk_turns=talk_turn_limit(t.config),
            )
        )
    return out


Estimate = tuple[float | None, float | None, float | None, int]


def estimate(games: Sequence[Game], key: str) -> Estimate:
    """Pooled rate of `key` over `games` with its bootstrap CI, and the number of games."""
    rates = [g.rate(key) for g in games]
    m, lo, hi = bootstrap_ratio([r.hits for r in rates], [r.total for r in rates])
    return m, lo, hi, sum(r.total > 0 for r in rates)


def fmt(e: Estimate) -> str:
    """``"68.2 [61.0, 74.9]"`` in percent; ``–`` when nothing was eligible."""
    m, lo, hi, n = e
    if m is None or lo is None or hi is None:
        return "–"
    if n == 1 or lo == hi:
        return f"{100 * m:.1f}"
    return f"{100 * m:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


class _Numbers:
    """Collects every estimate for ``estimates.csv``."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(self, table: str, group: str, ratio: float | None, metric: str, e: Estimate) -> str:
        self.rows.append(
            {
                "table": table,
                "group": group,
                "ratio": ratio,
                "metric": metric,
                "mean": e[0],
                "ci_low": e[1],
                "ci_high": e[2],
                "games": e[3],
            }
        )
        return fmt(e)


def _ratios(games: Sequence[Game]) -> list[float]:
    present = {g.ratio for g in games}
    return [r for r in RATIOS if r in present] + sorted(present - set(RATIOS))


def _by(games: Iterable[Game], key: Callable[[Game], Any]) -> dict[Any, list[Game]]:
    out: dict[Any, list[Game]] = defaultdict(list)
    for g in games:
        out[key(g)].append(g)
    return out


def _pair_order(games: Sequence[Game]) -> list[str]:
    """Self-play pairs first, then cross-play, each alphabetical (Table 3 layout)."""
    kinds = {g.pair: g.self_play for g in games}
    return sorted(kinds, key=lambda p: (not kinds[p], p))


def table3(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """Self-play vs cross-play (Table 3)."""
    rows = []
    ratios = _ratios(games)
    by_pair = _by(games, lambda g: g.pair)
    for pair in _pair_order(games):
        gs = by_pair[pair]
        row: dict[str, Any] = {
            "pair": pair,
            "play": "self" if gs[0].self_play else "cross",
            "games": len(gs),
        }
        for key, label in OUTCOMES:
            for r in ratios:
                cell = [g for g in gs if g.ratio == r]
                row[f"{label} {r:.1f}"] = nums.add("table3", pair, r, key, estimate(cell, key))
        rows.append(row)
    return rows


def table4(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """Strategy rates (Table 4); the rates are empty for rotating games by definition."""
    groups = [(p, gs) for p, gs in _by(games, lambda g: g.pair).items()]
    rows = []
    for name, gs in [*sorted(groups), ("all", list(games))]:
        row: dict[str, Any] = {"pair": name, "games": len(gs)}
        for key, label in STRATEGIES:
            row[label] = nums.add("table4", name, None, key, estimate(gs, key))
        rows.append(row)
    return rows


def table9(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """Full transparency vs baseline per pair and mode (Table 9)."""
    talk = [g for g in games if g.talk]
    pairs = sorted({g.pair for g in talk if g.transparency != "none"})
    ratios = _ratios(talk)
    rows = []
    for pair in pairs:
        for cond in ["none", *sorted({g.transparency for g in talk} - {"none"})]:
            for mode in ("stable", "shifting"):
                gs = [g for g in talk if (g.pair, g.transparency, g.partner) == (pair, cond, mode)]
                if not gs:
                    continue
                label = "Baseline" if cond == "none" else f"Transparent ({cond})"
                row: dict[str, Any] = {
                    "pair": pair,
                    "condition": label,
                    "mode": mode,
                    "games": len(gs),
                }
                for key, name in OUTCOMES:
                    for r in ratios:
                        e = estimate([g for g in gs if g.ratio == r], key)
                        row[f"{name} {r:.1f}"] = nums.add(
                            f"table9:{label}", f"{pair}/{mode}", r, key, e
                        )
                rows.append(row)
    return rows


def _matched(games: Sequence[Game]) -> list[tuple[Game, ...]]:
    """(pair, mode, ratio) cells that hold both talk and no-talk games: Table 10, Fig. 3."""
    cells = _by(games, lambda g: (g.pair, g.partner, g.ratio))
    return [tuple(gs) for gs in cells.values() if {g.talk for g in gs} == {True, False}]


def table10(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """Talk vs no-talk per pair, mode and ratio (Table 10): cells ``talk / no-talk``."""
    keep = [g for cell in _matched(games) for g in cell]
    ratios = _ratios(keep)
    rows = []
    for (pair, mode), gs in sorted(_by(keep, lambda g: (g.pair, g.partner)).items()):
        row: dict[str, Any] = {
            "pair": pair,
            "mode": mode,
            "games (talk/no-talk)": f"{sum(g.talk for g in gs)}/{sum(not g.talk for g in gs)}",
        }
        for key, name in OUTCOMES:
            for r in ratios:
                cell = [g for g in gs if g.ratio == r]
                parts = []
                for talk, tag in ((True, "talk"), (False, "no-talk")):
                    e = estimate([g for g in cell if g.talk == talk], key)
                    parts.append(nums.add(f"table10:{tag}", f"{pair}/{mode}", r, key, e))
                row[f"{name} {r:.1f}"] = " / ".join(parts) if cell else "–"
        rows.append(row)
    return rows


# -- figures -------------------------------------------------------------------------------


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only; never open a window
    import matplotlib.pyplot as plt

    return plt


def _err(e: Estimate) -> tuple[float, float, float]:
    m, lo, hi, _ = e
    if m is None:
        return float("nan"), 0.0, 0.0
    lo, hi = (m if lo is None else lo), (m if hi is None else hi)
    return 100 * m, 100 * (m - lo), 100 * (hi - m)


def figure2(games: Sequence[Game], path: Path) -> Path:
    """Efficiency by pair and ratio: self-play solid, cross-play hatched (Fig. 2)."""
    plt = _pyplot()
    pairs, ratios = _pair_order(games), _ratios(games)
    by_pair = _by(games, lambda g: g.pair)
    width = 0.8 / max(1, len(pairs))
    fig, ax = plt.subplots(figsize=(PAPER_WIDTH, 3.2))
    colors = plt.get_cmap("tab10")
    for i, pair in enumerate(pairs):
        gs = by_pair[pair]
        vals = [_err(estimate([g for g in gs if g.ratio == r], "efficiency")) for r in ratios]
        xs = [j + (i - (len(pairs) - 1) / 2) * width for j in range(len(ratios))]
        ax.bar(
            xs,
            [v[0] for v in vals],
            width * 0.95,
            yerr=[[v[1] for v in vals], [v[2] for v in vals]],
            capsize=2,
            label=f"{pair} (n = {len(gs)})",
            color=colors(i % 10),
            hatch=None if gs[0].self_play else "//",
            edgecolor="black",
            linewidth=0.6,
        )
    ax.set_xticks(range(len(ratios)), [f"M/C = {r:.1f}" for r in ratios])
    ax.set_ylabel("joint efficiency (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Joint efficiency: self-play (solid) vs cross-play (hatched), 95% CI", fontsize=9)
    legend_below(fig, ncol=3)
    return _save(plt, fig, path, ci_note(len(games)))


def figure3(games: Sequence[Game], path: Path) -> Path:
    """Value of cheap talk per ratio over the matched cells of Table 10 (Fig. 3)."""
    plt = _pyplot()
    keep = [g for cell in _matched(games) for g in cell]
    ratios = _ratios(keep)
    fig, axes = plt.subplots(1, 3, figsize=(PAPER_WIDTH, 2.8), sharey=True)
    panels = (("overdraw", "1 − overdraw"), ("efficiency", "efficiency"), ("optimum", "optimum"))
    for ax, (key, label) in zip(axes, panels, strict=True):
        series = {}
        for talk in (True, False):
            vals = [
                _err(estimate([g for g in keep if g.ratio == r and g.talk == talk], key))
                for r in ratios
            ]
            if key == "overdraw":  # oriented so that higher is better, as in the paper
                vals = [(100 - m, up, down) for m, down, up in vals]
            series[talk] = vals
            ax.errorbar(  # talk and no talk a little apart: equal rates stay visible
                [r + (-0.012 if talk else 0.012) for r in ratios],
                [v[0] for v in vals],
                yerr=[[v[1] for v in vals], [v[2] for v in vals]],
                fmt="o-" if talk else "o--",
                color="tab:blue",
                markerfacecolor="tab:blue" if talk else "white",
                capsize=2,
                label=f"{'cheap talk' if talk else 'no talk'} (n = "
                f"{sum(1 for g in keep if g.talk == talk)})",
            )
        ax.fill_between(
            ratios,
            [v[0] for v in series[False]],
            [v[0] for v in series[True]],
            color="tab:blue",
            alpha=0.15,
        )
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("M/C")
        ax.set_xticks(ratios)
        ax.set_ylim(0, 105)
    axes[0].set_ylabel("% of rounds (95% CI)")
    legend_below(fig, ncol=2)
    fig.suptitle("Value of cheap talk (filled: talk, hollow: no talk)", fontsize=9)
    note = ci_note(f"{len(keep)} (matched talk and no-talk)", "games")
    note += "; talk and no talk drawn 0.012 apart either side of each M/C"
    return _save(plt, fig, path, note + "; shaded: the gain from talk (no CI)")


def _save(plt: Any, fig: Any, path: Path, note: str) -> Path:
    """Write the figure as PNG (returned) and SVG beside it, with its n / CI footnote."""
    from accord.analysis.figures import save_figure

    fig.tight_layout()
    save_figure(fig, path, note=note)
    plt.close(fig)
    return path
