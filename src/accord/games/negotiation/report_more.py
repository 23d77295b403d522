"""More of `accord report` for negotiation: Table 12, Figures 4 to 7, the process and
§5 headline tables, and the list of what was skipped and why (seed 004 §5, App. F, G).

- ``process``: every process metric (App. E, §5.3-§5.6, Fig. 6 buckets), one row per metric,
  one column per pair and ``all``; pooled rates with bootstrap CIs, main condition.
- ``headline``: §5's summary figures per ratio: games with a jointly optimal round, the mean
  round of the first optimum (stable games; a round number, not a percentage), positive
  rounds after an overdraw.
- ``table12``: tokens per agent-round per model from the traces' usage (App. F): prompt,
  completion, thinking (provider-reported reasoning tokens), visible output = completion -
  thinking, think % = thinking / completion.
- ``figure4.png``: stable minus shifting optimum rate (percentage points) per model and ratio,
  with 95% bootstrap CIs (data in ``figure4.csv``, `report_gaps.figure4_rows`).
- ``figure5.png``: early decision rate per round, one line per model (the deciding seat's),
  one panel per partner x projects condition, 95% CI bands; each model its own marker, dash
  and small sideways offset, so lines that coincide (several at 100%) stay visible.
- ``figure6.png``: failure buckets of non-optimal rounds, by ratio (as the paper) and by round.
- ``figure7.png``: judge-label enrichment (percentage points): failed-improvement rounds vs
  other non-optimal, non-overdrawn rounds, and overdrawn vs non-overdrawn rounds. Reads the
  labels `accord judge DIR` wrote to ``DIR/judge/labels.jsonl``.
- ``skipped.txt``: one line per table or figure of the paper not written, with the reason.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from accord.analysis.figures import PAPER_WIDTH, ci_note, legend_below
from accord.analysis.value import bootstrap_ratio
from accord.games.negotiation.metrics import BUCKETS, bucket_labels
from accord.games.negotiation.report_tables import (
    Estimate,
    Game,
    _by,
    _err,
    _Numbers,
    _pyplot,
    _ratios,
    _save,
    estimate,
)
from accord.games.negotiation.summary import PROCESS_METRICS
from accord.traces.schema import Trace

CORE_LABELS = (
    "misaligned_mental_models",
    "agreement_abandonment",
    "coordination_withdrawal",
    "domain_specialization",
    "misalignment_recovery",
)


def process_table(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """Every process metric per pair and over all games."""
    groups = [(p, gs) for p, gs in sorted(_by(games, lambda g: g.pair).items())]
    groups.append(("all", list(games)))
    rows = []
    for key, label in PROCESS_METRICS:
        row: dict[str, Any] = {"metric": label, "key": key}
        for name, gs in groups:
            e = estimate(gs, key)
            if key == "first_optimum_round":
                nums.add("process", name, None, key, e)
                row[name] = _plain(e)
            else:
                row[name] = nums.add("process", name, None, key, e)
        rows.append(row)
    return rows


def _plain(e: Estimate) -> str:
    """A mean that is not a percentage (rounds), with its CI."""
    m, lo, hi, n = e
    if m is None or lo is None or hi is None:
        return "–"
    return f"{m:.2f}" if n == 1 or lo == hi else f"{m:.2f} [{lo:.2f}, {hi:.2f}]"


def headline(games: Sequence[Game], nums: _Numbers) -> list[dict[str, Any]]:
    """§5's headline figures overall and per ratio."""
    rows = []
    cells: list[tuple[str, float | None, list[Game]]] = [("all", None, list(games))]
    cells += [(f"M/C = {r:.1f}", r, [g for g in games if g.ratio == r]) for r in _ratios(games)]
    for name, ratio, gs in cells:
        first = estimate(gs, "first_optimum_round")
        nums.add("headline", name, ratio, "first_optimum_round", first)
        rows.append(
            {
                "games": name,
                "n": len(gs),
                "Games with an optimal round (%)": nums.add(
                    "headline", name, ratio, "any_optimum", estimate(gs, "any_optimum")
                ),
                "Round of the first optimum (stable)": _plain(first),
                "Positive rounds after an overdraw (%)": nums.add(
                    "headline",
                    name,
                    ratio,
                    "positive_after_overdraw",
                    estimate(gs, "positive_after_overdraw"),
                ),
            }
        )
    return rows


def table12(traces: Sequence[Trace]) -> list[dict[str, Any]]:
    """Average tokens per agent-round by model (Table 12), from seats that called a model."""
    acc: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # rounds, in, out, think
    for t in traces:
        if t.status != "complete":
            continue
        rounds = len(t.final_state.get("rounds", []))
        for seat in t.seats:
            use = t.usage.get(seat.name)
            if seat.model is None or use is None or use.calls == 0 or rounds == 0:
                continue
            a = acc[seat.identity]
            a[0] += rounds
            a[1] += use.input_tokens
            a[2] += use.output_tokens
            a[3] += use.reasoning_tokens
    rows = []
    for model, (n, tin, tout, think) in sorted(acc.items()):
        rows.append(
            {
                "model": model,
                "agent-rounds": n,
                "Prompt": round(tin / n),
                "Completion": round(tout / n),
                "Thinking": round(think / n),
                "Visible output": round((tout - think) / n),
                "Think %": f"{100 * think / tout:.0f}%" if tout else "–",
            }
        )
    return rows


def figure4(games: Sequence[Game], path: Path) -> Path | None:
    """Stable minus shifting optimum rate per model and ratio, with 95% CIs (Fig. 4); None
    if no model played both partner conditions at some ratio."""
    from accord.games.negotiation.report_gaps import figure4_rows

    data = figure4_rows(games)
    if not data:
        return None
    ratios = sorted({r["ratio"] for r in data})
    names = sorted({r["model"] for r in data})
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(PAPER_WIDTH, 3.2))
    width = 0.8 / len(names)
    colors = plt.get_cmap("tab10")
    for i, model in enumerate(names):
        cells = {r["ratio"]: r for r in data if r["model"] == model}
        gaps, down, up = [], [], []
        for r in ratios:
            c = cells.get(r)
            gaps.append(c["gap_pp"] if c else float("nan"))
            down.append(c["gap_pp"] - c["ci_low_pp"] if c else 0.0)
            up.append(c["ci_high_pp"] - c["gap_pp"] if c else 0.0)
        xs = [j + (i - (len(names) - 1) / 2) * width for j in range(len(ratios))]
        ax.bar(
            xs,
            gaps,
            width * 0.95,
            yerr=[down, up],
            capsize=2,
            label=model,
            color=colors(i % 10),
            edgecolor="black",
        )
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(ratios)), [f"M/C = {r:.1f}" for r in ratios])
    ax.set_ylabel("optimum rate, stable − shifting (pp)")
    ax.set_title("Stable-shifting gap by model (positive: stable partner does better)", fontsize=9)
    legend_below(fig, ncol=3)
    note = ci_note(
        len(games),
        "games",
        "95% percentile-bootstrap CI of the difference (stable and shifting games "
        "resampled independently)",
    )
    return _save(plt, fig, path, note)


def optimum_gap(
    stable: Sequence[Game], shifting: Sequence[Game], *, resamples: int = 2000
) -> tuple[float, float, float] | None:
    """Stable minus shifting pooled optimum rate in points, with a 95% percentile-bootstrap
    CI (seeded): the two groups are independent games, so each is resampled on its own. None
    when a side has no eligible round."""
    a = np.array([(g.rate("optimum").hits, g.rate("optimum").total) for g in stable], float)
    b = np.array([(g.rate("optimum").hits, g.rate("optimum").total) for g in shifting], float)
    if not len(a) or not len(b) or a[:, 1].sum() == 0 or b[:, 1].sum() == 0:
        return None
    point = 100 * (a[:, 0].sum() / a[:, 1].sum() - b[:, 0].sum() / b[:, 1].sum())
    rng = np.random.default_rng(0)
    sa = a[rng.integers(0, len(a), (resamples, len(a)))].sum(axis=1)
    sb = b[rng.integers(0, len(b), (resamples, len(b)))].sum(axis=1)
    ok = (sa[:, 1] > 0) & (sb[:, 1] > 0)
    diffs = 100 * (sa[ok, 0] / sa[ok, 1] - sb[ok, 0] / sb[ok, 1])
    lo, hi = np.percentile(diffs, [2.5, 97.5]) if diffs.size else (point, point)
    return float(point), float(min(lo, point)), float(max(hi, point))


def _bucket_rounds(games: Sequence[Game]) -> list[tuple[Game, int, str]]:
    return [(g, rnd, b) for g in games for rnd, b in bucket_labels(g.records).items()]


def figure6(games: Sequence[Game], path: Path) -> Path | None:
    """Failure buckets of non-optimal rounds by ratio and by round (Fig. 6)."""
    labelled = _bucket_rounds(games)
    if not labelled:
        return None
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(PAPER_WIDTH, 3.0), sharey=True)
    colors = plt.get_cmap("tab10")
    panels: tuple[tuple[str, list[str], Callable[[Game, int], str]], ...] = (
        ("by M/C", [f"{r:.1f}" for r in _ratios(games)], lambda g, rnd: f"{g.ratio:.1f}"),
        (
            "by round",
            sorted({str(rnd) for _, rnd, _ in labelled}, key=int),
            lambda g, rnd: str(rnd),
        ),
    )
    for ax, (title, xs, key) in zip(axes, panels, strict=True):
        counts = {x: {b: 0 for b in BUCKETS} for x in xs}
        for g, rnd, b in labelled:
            counts[key(g, rnd)][b] += 1
        bottom = [0.0] * len(xs)
        for i, b in enumerate(BUCKETS):
            vals = [100 * counts[x][b] / max(1, sum(counts[x].values())) for x in xs]
            # An empty bucket is no segment: a zero-height bar at the top of a stack would be
            # marked as a zero bar above 100%.
            drawn = [(j, v) for j, v in enumerate(vals) if v > 0]
            if drawn:
                ax.bar(
                    [j for j, _ in drawn],
                    [v for _, v in drawn],
                    bottom=[bottom[j] for j, _ in drawn],
                    color=colors(i),
                    label=b.replace("_", " "),
                )
            bottom = [u + v for u, v in zip(bottom, vals, strict=True)]
        # n under each bar's name, never over the bars.
        ax.set_xticks(range(len(xs)), [f"{x}\nn={sum(counts[x].values())}" for x in xs])
        ax.tick_params(labelsize=7)
        ax.set_title(f"Non-optimal rounds {title}", fontsize=9)
        ax.set_ylim(0, 100)
    axes[0].set_ylabel("% of non-optimal rounds")
    legend_below(fig, ncol=3)
    return _save(
        plt,
        fig,
        path,
        ci_note(f"{len(labelled)} non-optimal rounds of {len(games)}", "games", None),
    )


def read_judge_labels(report_dir: Path) -> list[dict[str, Any]]:
    """Rows of ``<run>/judge/labels.jsonl`` for a report written to ``<run>/report/<game>``."""
    path = report_dir.parent.parent / "judge" / "labels.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def enrichment(games: Sequence[Game], labels: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per core label: prevalence (%) in each focal set and its comparison set, and the
    difference in percentage points (Fig. 7). Rounds without judge labels are left out."""
    by_key = {(row["trace_id"], row["round"]): row for row in labels}
    info: list[tuple[dict[str, Any], bool, bool, str | None]] = []
    for g in games:
        buckets = bucket_labels(g.records)
        for r in g.records:
            row = by_key.get((g.trace_id, r.round))
            if row is not None and not any(r.fallback):
                optimal = r.optimal and not r.annulled
                info.append((row, r.annulled, optimal, buckets.get(r.round)))
    Pick = Callable[[bool, bool, str | None], bool]
    contrasts: tuple[tuple[str, Pick, Pick], ...] = (
        (
            "failed improvement vs other non-optimal",
            lambda a, o, b: b == "failed_improvement",
            lambda a, o, b: not a and not o and b != "failed_improvement",
        ),
        ("overdrawn vs not overdrawn", lambda a, o, b: a, lambda a, o, b: not a),
    )
    out = []
    for name, focal, rest in contrasts:
        f = [row for row, a, o, b in info if focal(a, o, b)]
        c = [row for row, a, o, b in info if rest(a, o, b)]
        for label in CORE_LABELS:
            pf = 100 * sum(bool(x.get(label)) for x in f) / len(f) if f else None
            pc = 100 * sum(bool(x.get(label)) for x in c) / len(c) if c else None
            out.append(
                {
                    "contrast": name,
                    "label": label,
                    "focal rounds": len(f),
                    "comparison rounds": len(c),
                    "focal %": pf,
                    "comparison %": pc,
                    "difference (pp)": None if pf is None or pc is None else pf - pc,
                }
            )
    return out


def figure7(rows: Sequence[dict[str, Any]], path: Path) -> Path | None:
    """Judge-label enrichment bars (Fig. 7); None when no contrast has both sets."""
    usable = [r for r in rows if r["difference (pp)"] is not None]
    if not usable:
        return None
    plt = _pyplot()
    contrasts = list(dict.fromkeys(r["contrast"] for r in usable))
    fig, axes = plt.subplots(1, len(contrasts), figsize=(PAPER_WIDTH, 3.0), squeeze=False)
    for ax, name in zip(axes[0], contrasts, strict=True):
        part = [r for r in usable if r["contrast"] == name]
        ys = [r["label"].replace("_", " ") for r in part]
        vals = [r["difference (pp)"] for r in part]
        ax.barh(ys, vals, color=["tab:red" if v > 0 else "tab:blue" for v in vals])
        ax.axvline(0, color="black", linewidth=0.8)
        n = part[0]
        ax.set_title(
            f"{name}\n({n['focal rounds']} vs {n['comparison rounds']} rounds)", fontsize=9
        )
        ax.set_xlabel("prevalence difference (pp)")
    fig.suptitle("Judge-label enrichment in failure regions")
    note = "n: rounds per contrast in each panel's title; bars are prevalence differences (no CI)"
    return _save(plt, fig, path, note)


def figure5(games: Sequence[Game], path: Path) -> Path:
    """Early decision rate across rounds by model, partner and projects (Fig. 5)."""
    plt = _pyplot()
    partners = [p for p in ("stable", "shifting") if any(g.partner == p for g in games)]
    projects_ = [j for j in ("fixed", "rotating") if any(g.projects == j for g in games)]
    fig, axes = plt.subplots(
        len(partners),
        len(projects_),
        figsize=(PAPER_WIDTH, 2.4 * len(partners) + 0.6),
        squeeze=False,
        sharey=True,
    )
    models = sorted({s for g in games for s in g.seats})
    colors = plt.get_cmap("tab10")
    # Rates often coincide (several models at 100%): each model gets its own marker and dash
    # and a small sideways offset, so a line on top of another stays visible.
    dodge = min(0.08, 0.3 / max(1, len(models)))
    offsets = [(i - (len(models) - 1) / 2) * dodge for i in range(len(models))]
    cells = [(i, j, p, q) for i, p in enumerate(partners) for j, q in enumerate(projects_)]
    for row, col, partner, projects in cells:
        ax = axes[row][col]
        gs = [g for g in games if (g.partner, g.projects) == (partner, projects)]
        if not gs:
            ax.set_axis_off()  # that condition was not played
            continue
        rounds = sorted({r.round for g in gs for r in g.records})
        for i, model in enumerate(models):
            vals = []
            for rnd in rounds:
                hits, dens = [], []
                for g in gs:
                    seats = [k for k, s in enumerate(g.seats) if s == model]
                    rec = [r for r in g.records if r.round == rnd and not any(r.fallback)]
                    if seats and rec:
                        hits.append(sum(rec[0].early_decision[k] for k in seats))
                        dens.append(len(seats))
                m, lo, hi = bootstrap_ratio(hits, dens)
                vals.append((m, lo, hi, len(dens)))
            pts = [(rnd, _err(v)) for rnd, v in zip(rounds, vals, strict=True) if v[0] is not None]
            if not pts:
                continue
            xs, ys = [p + offsets[i] for p, _ in pts], [e for _, e in pts]
            n = sum(1 for g in gs if model in g.seats)
            ax.plot(
                xs,
                [y[0] for y in ys],
                marker=MARKERS[i % len(MARKERS)],
                ls=DASHES[i % len(DASHES)],
                mfc="white" if i % 2 else colors(i % 10),
                color=colors(i % 10),
                label=f"{model} (n = {n})",
            )
            ax.fill_between(
                xs,
                [y[0] - y[1] for y in ys],
                [y[0] + y[2] for y in ys],
                color=colors(i % 10),
                alpha=0.15,
            )
        ax.set_title(f"{partner} partner, {projects} projects", fontsize=9)
        ax.set_xlabel("round")
        ax.set_xticks(rounds)
        ax.set_ylim(-2, 102)
    for row in axes:
        row[0].set_ylabel("early decision rate (%)")
    legend_below(fig, ncol=3)
    fig.suptitle("Decisions before the talk-turn limit, per round (95% CI bands)", fontsize=9)
    note = ci_note(len(games), marks="bands")
    if len(models) > 1:
        note += (
            f"; each model's line is shifted by up to ±{max(map(abs, offsets)):.2f} rounds "
            "and has its own marker and dash, so coinciding lines stay visible"
        )
    return _save(plt, fig, path, note)


MARKERS = "osD^vPX*"
"""Figure 5's marker per model (in order), with `DASHES`: lines that coincide stay apart."""
DASHES = ("-", "--", "-.", ":")
