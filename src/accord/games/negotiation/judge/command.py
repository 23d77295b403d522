"""``accord judge`` on negotiation traces: label every round with the App. G taxonomy (seed 004
§5.8), optionally with a specialist judge (App. G.2) and against human labels; write the labels,
the games left unjudged with the reason, and the prevalence and agreement tables."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.markup import escape

from accord.core.gameinfo import JudgeResult, JudgeRun
from accord.traces.schema import Trace


def run(traces: list[Trace], job: JudgeRun) -> JudgeResult:
    """Judge `traces` (complete negotiation games) into ``job.out``."""
    from accord.analysis.report import write_table
    from accord.games.negotiation.judge.agreement import agreement, inter_judge, prevalence
    from accord.games.negotiation.judge.verdicts import judge_game, merge, verdict_rows
    from accord.models import get_model
    from accord.traces.io import write_jsonl

    target = job.out

    def run_judge(spec: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        client = get_model(spec, **job.options)

        async def all_games() -> list[tuple[list[dict[str, Any]], str | None]]:
            # One semaphore per event loop: each judge runs in its own asyncio.run, and a
            # semaphore bound to the first loop fails in the second once games queue.
            sem = asyncio.Semaphore(max(1, job.concurrency))

            async def one(t: Any) -> tuple[list[dict[str, Any]], str | None]:
                async with sem:
                    res = await judge_game(client, t)
                return verdict_rows(t, res.labels), res.reason

            return await asyncio.gather(*(one(t) for t in traces))

        done = asyncio.run(all_games())
        rows = [r for g, _ in done for r in g]
        missing = [
            {"trace_id": t.trace_id, "judge": spec, "reason": reason or "no rounds labelled"}
            for t, (g, reason) in zip(traces, done, strict=True)
            if not g
        ]
        return rows, missing

    target.mkdir(parents=True, exist_ok=True)
    rows, unjudged = run_judge(job.model)
    written: list[Path] = []
    idle = [job.model] if not rows else []  # judges that labelled no game at all
    human_rows = job.human_labels
    if job.specialist_model is not None:
        special, missing = run_judge(job.specialist_model)
        unjudged += missing
        idle += [job.specialist_model] if not special else []
        write_jsonl(target / "labels_general.jsonl", rows)
        write_jsonl(target / "labels_specialist.jsonl", special)
        written += [target / "labels_general.jsonl", target / "labels_specialist.jsonl"]
        written += write_table(
            inter_judge(rows, special),
            target / "inter_judge",
            title="General vs specialist judge (Cohen's kappa)",
        )
        if human_rows is not None:
            for name, part in (("general", rows), ("specialist", special)):
                written += write_table(
                    agreement(part, human_rows),
                    target / f"agreement_{name}",
                    title=f"{name.capitalize()} judge vs human (Cohen's kappa)",
                )
        rows = merge(rows, special)
    write_jsonl(target / "labels.jsonl", rows)
    write_jsonl(target / "unjudged.jsonl", unjudged)
    written += write_table(prevalence(rows), target / "prevalence", title="Judge labels")
    if human_rows is not None:
        written += write_table(
            agreement(rows, human_rows),
            target / "agreement",
            title="Judge vs human (Cohen's kappa)",
        )
    judged = len({r["trace_id"] for r in rows})
    job.say(f"Judged {judged}/{len(traces)} games ({len(rows)} rounds).")
    for miss in unjudged:
        job.say(
            f"[yellow]not judged[/] {escape(miss['trace_id'])} by {escape(miss['judge'])}: "
            f"{escape(miss['reason'])}"
        )
    for path in [target / "labels.jsonl", target / "unjudged.jsonl", *written]:
        job.say(f"wrote {escape(str(path))}")
    error = None
    if idle:
        error = (
            f"{escape(', '.join(idle))} judged 0 of {len(traces)} negotiation "
            "games; the reasons are above and in unjudged.jsonl (check the model name and "
            "server, or try a stronger judge model)."
        )
    return JudgeResult(judged, error)
