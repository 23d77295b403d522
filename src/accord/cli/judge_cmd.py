"""`accord judge`: label negotiation rounds (seed 004 §5.8, App. G) and failed sorting games
(MAS-Bench §5.3) with an LLM judge, and audit calendar privacy with one (CalBench App. I)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from accord.cli.main import _fail, app, console, print_skipped
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
    leak_set: Annotated[
        bool,
        typer.Option(
            "--leak-set", help="Calendar: also judge the labelled semantic-leak set (64 calls)."
        ),
    ] = False,
) -> None:
    """Negotiation: label every round with the App. G taxonomy; write labels and prevalence.
    Calendar: the App. I privacy audit (judge VPS, Table 16, precision, Table 17, semantic
    leaks against the keyword audit) in <out>/calendar/. Failed sorting games get the
    convention-misalignment verdict of MAS-Bench §5.3 (conventions.jsonl and the table).

    Negotiation games that get no labels are listed with the reason (also in unjudged.jsonl);
    when a judge labels no game at all the command exits 1 (the files are still written).

    Example: accord judge runs/grid --model gemini/gemini-3.1-pro
    --specialist-model anthropic/claude-opus-4-6 --human calib.jsonl

    Example: accord judge runs/cal --model openai/gpt-5.4-mini --leak-set
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
        everything = load_traces(dirs)
        print_skipped(everything.skipped)
        loaded = [t for t in everything if t.status == "complete"]
        traces = [t for t in loaded if t.game_id in TRACE_GAME_IDS]
        calendar = [t for t in loaded if t.game_id == "calendar-v2"]
        judged_sorting = _judge_sorting(
            everything,
            get_model(model, **model_options(model_base_url, model_option)),
            target,
            concurrency,
        )
        if not traces and not calendar and not judged_sorting:
            raise ConfigError(
                "No complete negotiation or calendar-v2 traces, and no failed sorting games, to "
                "judge in the given directories; give run directories of those games."
            )
        if calendar:
            _calendar(
                calendar,
                get_model(model, **model_options(model_base_url, model_option)),
                target / "calendar" if traces else target,
                concurrency,
                leak_set,
            )
        if not traces:
            return
        human_rows = _read_human(human) if human is not None else None

        def run_judge(spec: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            client = get_model(spec, **model_options(model_base_url, model_option))

            async def all_games() -> list[tuple[list[dict[str, Any]], str | None]]:
                # One semaphore per event loop: each judge runs in its own asyncio.run, and a
                # semaphore bound to the first loop fails in the second once games queue.
                sem = asyncio.Semaphore(max(1, concurrency))

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
        rows, unjudged = run_judge(model)
        written: list[Path] = []
        idle = [model] if not rows else []  # judges that labelled no game at all
        if specialist_model is not None:
            special, missing = run_judge(specialist_model)
            unjudged += missing
            idle += [specialist_model] if not special else []
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
    if idle:
        console.print(
            f"[red]Error:[/] {escape(', '.join(idle))} judged 0 of {len(traces)} negotiation "
            "games; the reasons are above and in unjudged.jsonl (check the model name and "
            "server, or try a stronger judge model)."
        )
        raise typer.Exit(1)


def _read_human(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        return [json.loads(x) for x in lines if x.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"Cannot read human labels {path}: {exc}") from exc


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
