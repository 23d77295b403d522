"""`accord judge`: label negotiation rounds with an LLM judge."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from accord.cli.main import _fail, app, console
from accord.core.errors import AccordError, ConfigError


@app.command("judge")
def judge(
    dirs: Annotated[list[Path], typer.Argument(help="Run directories with negotiation traces.")],
    model: Annotated[str, typer.Option(help="Judge model, provider/model.")],
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

    Example: accord judge runs/grid --model gemini/gemini-3.1-pro --human calib.jsonl
    """
    from accord.analysis.report import load_traces, write_table
    from accord.cli.options import model_options
    from accord.games.negotiation.config import TRACE_GAME_IDS
    from accord.judges.agreement import agreement, prevalence
    from accord.judges.negotiation import judge_trace, verdict_rows
    from accord.models import get_model
    from accord.traces.io import write_jsonl

    target = out or dirs[0] / "judge"
    try:
        traces = [
            t for t in load_traces(dirs) if t.game_id in TRACE_GAME_IDS and t.status == "complete"
        ]
        if not traces:
            raise ConfigError("No complete negotiation traces to judge in the given directories.")
        client = get_model(model, **model_options(model_base_url, model_option))
        sem = asyncio.Semaphore(max(1, concurrency))

        async def one(t: Any) -> list[dict[str, Any]]:
            async with sem:
                return verdict_rows(t, await judge_trace(client, t))

        async def all_games() -> list[list[dict[str, Any]]]:
            return await asyncio.gather(*(one(t) for t in traces))

        per_game = asyncio.run(all_games())
        rows = [r for g in per_game for r in g]
        target.mkdir(parents=True, exist_ok=True)
        write_jsonl(target / "labels.jsonl", rows)
        written = write_table(prevalence(rows), target / "prevalence", title="Judge labels")
        if human is not None:
            try:
                lines = human.read_text(encoding="utf-8").splitlines()
                human_rows = [json.loads(x) for x in lines if x.strip()]
            except (OSError, json.JSONDecodeError) as exc:
                raise ConfigError(f"Cannot read human labels {human}: {exc}") from exc
            written += write_table(
                agreement(rows, human_rows),
                target / "agreement",
                title="Judge vs human (Cohen's kappa)",
            )
    except AccordError as exc:
        raise _fail(exc) from exc
    unjudged = sum(1 for g in per_game if not g)
    console.print(f"Judged {len(traces) - unjudged}/{len(traces)} games ({len(rows)} rounds).")
    for path in [target / "labels.jsonl", *written]:
        console.print(f"wrote {path}")
