"""`accord judge`: label negotiation rounds with an LLM judge (seed 004 §5.8, App. G)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from accord.cli.main import _fail, app, console
from accord.core.errors import AccordError, ConfigError


@app.command("judge")
def judge(
    dirs: Annotated[list[Path], typer.Argument(help="Run directories with negotiation traces.")],
    model: Annotated[str, typer.Option(help="Judge model, provider/model.")],
    specialist_model: Annotated[
        str | None,
        typer.Option(
            help="Second judge whose labels replace the first's for coordination withdrawal, "
            "misalignment recovery and project disclosure (App. G.2); their agreement is "
            "written as inter_judge.csv. --model-base-url and -M apply to both judges."
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default: <DIR>/judge).")] = None,
    human: Annotated[
        Path | None,
        typer.Option(help="Human labels (JSONL: trace_id, round, one boolean per label)."),
    ] = None,
    concurrency: Annotated[int, typer.Option(help="Games judged at once.")] = 4,
    model_base_url: Annotated[
        str | None, typer.Option(help="Server address of the judge model (…/v1).")
    ] = None,
    model_option: Annotated[
        list[str] | None,
        typer.Option("--model-option", "-M", help="Judge model option key=value."),
    ] = None,
) -> None:
    """Label every negotiation round with the App. G taxonomy; write labels and prevalence.

    Games that get no labels are listed with the reason (also in unjudged.jsonl).

    Example: accord judge runs/grid --model gemini/gemini-3.1-pro
    --specialist-model anthropic/claude-opus-4-6 --human calib.jsonl
    """
    from accord.analysis.report import load_traces, write_table
    from accord.cli.options import model_options
    from accord.games.negotiation.config import TRACE_GAME_IDS
    from accord.judges.agreement import agreement, inter_judge, prevalence
    from accord.judges.negotiation import judge_game, merge, verdict_rows
    from accord.models import get_model
    from accord.traces.io import write_jsonl

    target = out or dirs[0] / "judge"
    try:
        traces = [
            t for t in load_traces(dirs) if t.game_id in TRACE_GAME_IDS and t.status == "complete"
        ]
        if not traces:
            raise ConfigError("No complete negotiation traces to judge in the given directories.")
        human_rows = _read_human(human) if human is not None else None
        sem = asyncio.Semaphore(max(1, concurrency))

        def run_judge(spec: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            client = get_model(spec, **model_options(model_base_url, model_option))

            async def one(t: Any) -> tuple[list[dict[str, Any]], str | None]:
                async with sem:
                    res = await judge_game(client, t)
                return verdict_rows(t, res.labels), res.reason

            async def all_games() -> list[tuple[list[dict[str, Any]], str | None]]:
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
        rows, unjudged = run_judge(model)
        written: list[Path] = []
        if specialist_model is not None:
            special, missing = run_judge(specialist_model)
            unjudged += missing
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
    except AccordError as exc:
        raise _fail(exc) from exc
    judged = len({r["trace_id"] for r in rows})
    console.print(f"Judged {judged}/{len(traces)} games ({len(rows)} rounds).")
    for miss in unjudged:
        console.print(
            f"[yellow]not judged[/] {escape(miss['trace_id'])} by {escape(miss['judge'])}: "
            f"{escape(miss['reason'])}"
        )
    for path in [target / "labels.jsonl", target / "unjudged.jsonl", *written]:
        console.print(f"wrote {escape(str(path))}")


def _read_human(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        return [json.loads(x) for x in lines if x.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"Cannot read human labels {path}: {exc}") from exc
