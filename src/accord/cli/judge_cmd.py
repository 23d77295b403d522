"""`accord judge`: label negotiation rounds and failed sorting games with an LLM judge, and
audit calendar privacy with one (CalBench App. I)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from accord.cli.main import _fail, app, console
from accord.core.errors import AccordError, ConfigError

if TYPE_CHECKING:
    from accord.models.client import ModelClient
    from accord.traces.schema import Trace


@app.command("judge")
def judge(
    dirs: Annotated[
        list[Path],
        typer.Argument(help="Run directories with negotiation, calendar or sorting traces."),
    ],
    model: Annotated[str, typer.Option(help="Judge model, provider/model.")],
    out: Annotated[Path | None, typer.Option(help="Output folder (default: <DIR>/judge).")] = None,
    human: Annotated[
        Path | None,
        typer.Option(help="Human labels (JSONL: trace_id, round, one boolean per label)."),
    ] = None,
    concurrency: Annotated[int, typer.Option(help="Games (calendar: cases) judged at once.")] = 4,
    model_base_url: Annotated[
        str | None, typer.Option(help="Server address of the judge model (…/v1).")
    ] = None,
    model_option: Annotated[
        list[str] | None,
        typer.Option("--model-option", "-M", help="Judge model option key=value."),
    ] = None,
    leak_set: Annotated[
        bool,
        typer.Option(
            "--leak-set", help="Calendar: also judge the labelled semantic-leak set (64 calls)."
        ),
    ] = False,
) -> None:
    """Negotiation: label every round with the App. G taxonomy; write labels and prevalence.
    Calendar: the App. I privacy audit (judge VPS, Table 16, precision, Table 17, semantic
    leaks against the keyword audit) in <out>/calendar/.

    Failed sorting games get the convention-misalignment verdict of MAS-Bench §5.3
    (conventions.jsonl and the conventions table).

    Example: accord judge runs/grid --model gemini/gemini-3.1-pro --human calib.jsonl

    Example: accord judge runs/cal --model openai/gpt-5.4-mini --leak-set
    """
    from accord.analysis.report import load_traces, write_table
    from accord.cli.options import model_options
    from accord.judges.agreement import agreement, prevalence
    from accord.judges.negotiation import judge_trace, verdict_rows
    from accord.models import get_model
    from accord.traces.io import write_jsonl

    target = out or dirs[0] / "judge"
    try:
        everything = load_traces(dirs)
        loaded = [t for t in everything if t.status == "complete"]
        traces = [t for t in loaded if t.game_id == "negotiation-v1"]
        calendar = [t for t in loaded if t.game_id == "calendar-v2"]
        client = get_model(model, **model_options(model_base_url, model_option))
        judged_sorting = _judge_sorting(everything, client, target, concurrency)
        if not traces and not calendar and not judged_sorting:
            raise ConfigError(
                "No complete negotiation-v1 or calendar-v2 traces, and no failed sorting "
                "games, to judge in the given directories; give run directories of those games."
            )
        if calendar:
            _calendar(
                calendar, client, target / "calendar" if traces else target, concurrency, leak_set
            )
        if not traces:
            return
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


def _calendar(
    traces: list[Any], client: Any, target: Path, concurrency: int, leak_set: bool
) -> None:
    """The App. I audit of calendar traces."""
    from accord.judges.calendar_run import judge_calendar

    written, counts = judge_calendar(
        traces, client, target, concurrency=concurrency, leak_set=leak_set
    )
    console.print(
        f"Judged {counts['cases'] - counts['unjudged']}/{counts['cases']} calendar cases "
        f"from {counts['games']} games ({counts['beliefs']} nonzero beliefs)."
    )
    for path in written:
        console.print(f"wrote {path}")


def _judge_sorting(
    traces: list[Trace], client: ModelClient, target: Path, concurrency: int
) -> bool:
    """Judge the failed sorting games among `traces`; False when there are none."""
    from accord.judges.sorting import judge_games, needs_judge

    failed = [t for t in traces if needs_judge(t)]
    if not failed:
        return False
    judged, written = asyncio.run(judge_games(client, failed, target, concurrency))
    console.print(f"Judged {judged}/{len(failed)} failed sorting games.")
    for path in written:
        console.print(f"wrote {path}")
    return True
