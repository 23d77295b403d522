"""`accord report DIR` for negotiation (the report entry point): writes every table and figure
of seed 004 the traces support (`report_tables.py`, `report_more.py`, `report_gaps.py`) and
``skipped.txt`` with what it left out and why."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from accord.analysis.report import write_table
from accord.analysis.value import value_of_communication
from accord.games.negotiation import report_gaps as gaps
from accord.games.negotiation import report_more as more
from accord.games.negotiation.report_tables import (
    _matched,
    _Numbers,
    figure2,
    figure3,
    load,
    table3,
    table4,
    table9,
    table10,
)
from accord.traces.schema import Trace

ALWAYS_SKIPPED = (
    "Tables 1, 2, 6, 7 and Figures 1, 8, 9: descriptive (framework comparison, metric list, "
    "model list, resource themes, illustrations, transcript excerpts); nothing to compute",
    "Tables 5, 13 and 14: written by `accord judge DIR` (prevalence.md, agreement.md)",
    "Tables 8 and 11: the same layouts as table4 and table3, which list every pair present",
)


def build(traces: list[Trace], out: Path) -> list[Path]:
    """Write every table and figure the games in `traces` support (see the module docstring)
    and ``skipped.txt`` naming each one left out and why."""
    games = load(traces)
    main = [g for g in games if g.talk and g.plain]
    nums = _Numbers()
    written: list[Path] = []
    skipped: list[str] = []

    def table(rows: list[dict[str, Any]], stem: str, title: str, reason: str) -> None:
        if rows:
            written.extend(write_table(rows, out / stem, title=title))
        else:
            skipped.append(f"{title.split(':')[0]}: {reason}")

    def figure(path: Path | None, name: str, reason: str) -> None:
        if path is not None:
            written.append(path)
            if path.with_suffix(".svg").is_file():
                written.append(path.with_suffix(".svg"))
        else:
            skipped.append(f"{name}: {reason}")

    need_main = "needs talk games of the main condition (no transparency, no intervention)"
    table(table3(main, nums), "table3", "Table 3: self-play vs cross-play (%)", need_main)
    fixed = [g for g in main if g.projects == "fixed"]
    table(
        table4(main, nums) if fixed else [],
        "table4",
        "Table 4: game-strategy rates (%)",
        "needs non-rotating talk games of the main condition",
    )
    table(
        table9(games, nums),
        "table9",
        "Table 9: transparency vs baseline (%)",
        "needs talk games with transparency 'full' or 'joint'",
    )
    plain = [g for g in games if g.plain]
    no_talk = "needs no-talk games (cheap_talk: false) matching talk games in pair, partner, ratio"
    table(table10(plain, nums), "table10", "Table 10: talk / no-talk (%)", no_talk)
    value = value_of_communication(traces, by_players=True)
    value = [r for r in value if r["game"] == "negotiation" and r["games"]]
    table(value, "value_of_cheap_talk", "Value of cheap talk", no_talk)
    table(more.process_table(main, nums), "process", "Process metrics (%)", need_main)
    table(
        gaps.early_decision_table(main, nums),
        "early_decision",
        "Early decision: rounds (Fig. 5) and seats (%)",
        need_main,
    )
    table(
        gaps.per_model_table(main, nums),
        "per_model",
        "Per model: equal split, deference, early decision (%)",
        need_main,
    )
    table(
        gaps.anchoring_table(main, nums),
        "anchoring",
        "§5.5 stubborn anchoring by partner and M/C (%)",
        "needs non-rotating talk games of the main condition",
    )
    table(
        gaps.interventions_table(games, nums),
        "interventions",
        "Table F.1: prompt interventions vs none (%)",
        "needs talk games with intervention share_projects or theory_of_mind from a pair "
        "that also played without one (intervention: none)",
    )
    table(
        gaps.transparency_process_table(games, nums),
        "transparency_process",
        "§5.7: process under transparency vs baseline (%)",
        "needs talk games with transparency 'full' or 'joint' from a pair that also played "
        "the baseline",
    )
    fig4 = gaps.figure4_rows(main)
    if fig4:
        written.extend(write_table(fig4, out / "figure4", title="Figure 4 (data): gap by model"))
    table(more.headline(main, nums), "headline", "Headline figures of §5", need_main)
    table(
        more.table12(traces),
        "table12",
        "Table 12: tokens per agent-round",
        "needs token usage of model-played seats (scripted agents call no model)",
    )
    figure(figure2(main, out / "figure2.png") if main else None, "Figure 2", need_main)
    figure(figure3(plain, out / "figure3.png") if _matched(plain) else None, "Figure 3", no_talk)
    figure(
        more.figure4(main, out / "figure4.png"),
        "Figure 4",
        "needs main-condition games of one model under both stable and shifting partners",
    )
    early = any(g.gm.rates["early_decision"].total for g in main)
    figure(more.figure5(main, out / "figure5.png") if early else None, "Figure 5", need_main)
    figure(
        more.figure6(main, out / "figure6.png"),
        "Figure 6",
        "needs non-optimal rounds in main-condition games",
    )
    labels = more.read_judge_labels(out)
    rows = more.enrichment(games, labels) if labels else []
    table(
        rows,
        "figure7_enrichment",
        "Figure 7 (data): judge-label enrichment",
        "needs judge labels: run `accord judge DIR --model M` first",
    )
    figure(
        more.figure7(rows, out / "figure7.png") if rows else None,
        "Figure 7",
        "needs judge labels on failed-improvement, other non-optimal and overdrawn rounds",
    )
    if nums.rows:
        path = out / "estimates.csv"
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(nums.rows[0]))
            w.writeheader()
            w.writerows(nums.rows)
        written.append(path)
    note = out / "skipped.txt"
    note.write_text("\n".join([*skipped, *ALWAYS_SKIPPED]) + "\n", encoding="utf-8")
    written.append(note)
    return written
