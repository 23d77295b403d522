"""Running the calendar judge over run directories and writing its tables (CalBench App. I).

`judge_calendar(traces, client, out)` judges every case of every trace (one call per round
and recipient, `concurrency` calls in flight) and writes into `out`:

* ``judge_cases.jsonl``: every case (trace, round, recipient, the messages it covered) with
  its verdict, or ``judged: false``;
* ``judge_beliefs``: one row per judged cell with its delta, the target's true occupancy and
  whether the delta points at it;
* ``table16``: per dataset, nonzero beliefs, raw and calibrated judge VPS, primary VPS, and
  the floor-subtracted calibrated excess of the judge and of the reflections (I.3);
* ``precision``: nonzero precision of the judge and of the traces' own reflections (I.4);
  with reflections, ``target_precision`` per game target and ``precision_comparison`` (how
  many targets each rater is more precise on, the mean gap);
* ``cell_agreement``: Table 17 against self-reflection, when the traces have reflections (I.5);
* ``semantic_leaks`` and ``leak_kappa``: per judged untyped message the judge's flag with its
  reason and the keyword audit's flag, and Cohen's kappa between them;
* ``leak_set`` and ``leak_set_kappa`` (with ``leak_set=True``): the labelled set, judged
  message by message, against its labels and the keyword audit.

Tables are written as ``.csv`` and ``.md``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape

from accord.analysis.report import write_table
from accord.core.gameinfo import JudgeResult, JudgeRun
from accord.games.calendar.judge import tables
from accord.games.calendar.judge.audit import (
    Case,
    Verdict,
    cases,
    judge_case_why,
    judged_messages,
    leak_reasons,
    leak_set_case,
    verdict_json,
)
from accord.models.client import ModelClient
from accord.traces.io import write_jsonl
from accord.traces.schema import Trace


async def _judge_all(
    client: ModelClient, todo: Sequence[Case], concurrency: int
) -> list[tuple[Verdict | None, str | None]]:
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(case: Case) -> tuple[Verdict | None, str | None]:
        async with sem:
            return await judge_case_why(client, case)

    return list(await asyncio.gather(*(one(c) for c in todo)))


def judge_calendar(
    traces: Sequence[Trace],
    client: ModelClient,
    out: Path,
    *,
    concurrency: int = 4,
    leak_set: bool = False,
) -> tuple[list[Path], dict[str, Any]]:
    """Judge every case of `traces`, write the tables into `out`; return the files and counts."""
    per_trace = {t.trace_id: cases(t) for t in traces}
    todo = [c for t in traces for c in per_trace[t.trace_id]]
    answers = asyncio.run(_judge_all(client, todo, concurrency))
    verdicts = [v for v, _ in answers]
    judged = dict(zip([id(c) for c in todo], verdicts, strict=True))
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(
        out / "judge_cases.jsonl",
        [verdict_json(c, v, why) for c, (v, why) in zip(todo, answers, strict=True)],
    )
    written = [out / "judge_cases.jsonl"]
    rows_by_trace: dict[str, list[dict[str, Any]]] = {}
    leak_rows: list[dict[str, Any]] = []
    reflections_by_trace: dict[str, list[dict[str, Any]]] = {}
    for t in traces:
        pairs = [(c, judged[id(c)]) for c in per_trace[t.trace_id]]
        rows_by_trace[t.trace_id] = tables.belief_rows(t, pairs)
        leak_rows += tables.leak_agreement(t, judged_messages(pairs), leak_reasons(pairs))
        reflections_by_trace[t.trace_id] = tables.reflection_cells(t)
    reflection_rows = [r for t in traces for r in reflections_by_trace[t.trace_id]]
    rows = [r for t in traces for r in rows_by_trace[t.trace_id]]
    written += write_table(rows, out / "judge_beliefs", title="Judge belief deltas")
    judged_by_trace = {
        t.trace_id: sum(judged[id(c)] is not None for c in per_trace[t.trace_id]) for t in traces
    }
    written += write_table(
        tables.table16(traces, rows_by_trace, reflections_by_trace, judged_by_trace),
        out / "table16",
        title="Table 16: judge VPS",
    )
    nothing = {"nonzero": None, "truth_directed": None, "precision": None}
    judge_precision = tables.precision(rows) if any(judged_by_trace.values()) else nothing
    prec = [{"rater": "judge", **judge_precision}]
    if reflection_rows:
        prec.append({"rater": "self-reflection", **tables.precision(reflection_rows)})
        written += write_table(
            tables.cell_agreement(rows, reflection_rows),
            out / "cell_agreement",
            title="Table 17: judge vs self-reflection cells",
        )
        targets = tables.target_precision(rows, reflection_rows)
        written += write_table(targets, out / "target_precision", title="Precision per target")
        written += write_table(
            tables.precision_comparison(targets),
            out / "precision_comparison",
            title="Judge vs self-reflection precision per game target (App. I.4)",
        )
    written += write_table(prec, out / "precision", title="Nonzero precision (App. I.4)")
    if leak_rows:
        written += write_table(leak_rows, out / "semantic_leaks", title="Semantic leaks")
        written += write_table(
            tables.kappa_rows(leak_rows, [("judge_leak", "keyword_leak")]),
            out / "leak_kappa",
            title="Judge vs keyword audit",
        )
    if leak_set:
        written += _leak_set(client, out, concurrency)
    counts = {
        "games": len(traces),
        "cases": len(todo),
        "unjudged": sum(v is None for v in verdicts),
        "beliefs": sum(1 for r in rows if r["delta"]),
        "reasons": Counter(why for v, why in answers if v is None and why).most_common(3),
    }
    return written, counts


def _leak_set(client: ModelClient, out: Path, concurrency: int) -> list[Path]:
    items = tables.load_leak_set()
    todo = [leak_set_case(item["message"]) for item in items]
    verdicts = [v for v, _ in asyncio.run(_judge_all(client, todo, concurrency))]
    pairs = [(item, v) for item, v in zip(items, verdicts, strict=True) if v is not None]
    flags = {item["id"]: bool(v.leaks) for item, v in pairs}
    reasons = {item["id"]: "; ".join(v.reasons.values()) for item, v in pairs}
    rows, kappas = tables.leak_set(flags, reasons)
    written = write_table(rows, out / "leak_set", title="Labelled semantic-leak set")
    written += write_table(kappas, out / "leak_set_kappa", title="Leak set: Cohen's kappa")
    return written


def command(traces: list[Trace], job: JudgeRun) -> JudgeResult:
    """``accord judge`` on calendar traces: the App. I audit into ``job.out``."""
    from accord.models import get_model

    written, counts = judge_calendar(
        traces,
        get_model(job.model, **job.options),
        job.out,
        concurrency=job.concurrency,
        leak_set=job.leak_set,
    )
    judged = counts["cases"] - counts["unjudged"]
    job.say(
        f"Judged {judged}/{counts['cases']} calendar cases "
        f"from {counts['games']} games ({counts['beliefs']} nonzero beliefs)."
    )
    for path in written:
        job.say(f"wrote {escape(str(path))}")
    return JudgeResult(judged, idle_error(job.model, counts, judge_cases_file=written[0]))


def idle_error(model: str, counts: dict[str, Any], *, judge_cases_file: Path) -> str | None:
    """The line ``accord judge`` fails with when the judge answered no case (App. I): the
    tables then hold no judge numbers, and exit 0 would pass an empty audit for a clean one."""
    if counts["cases"] - counts["unjudged"]:
        return None
    if not counts["cases"]:
        return (
            f"{escape(model)} judged nothing: the {counts['games']} calendar games hold no "
            "messages to audit (the App. I judge reads what seats told each other); give runs "
            "of seats that talk."
        )
    why = "; ".join(f"{escape(r)} ({n}x)" for r, n in counts.get("reasons", []))
    return (
        f"{escape(model)} judged 0 of {counts['cases']} calendar cases from {counts['games']} "
        f"games, so the judge columns of table16 and precision are left empty; "
        f"replies refused: {why or 'none recorded'} (every case is in "
        f"{escape(str(judge_cases_file))}; check the model name and server, or try a stronger "
        "judge model)."
    )
