"""`accord judge`: each game's LLM judges (declared in its `accord.core.gameinfo.GameInfo`), for
example the negotiation round labels (seed 004 §5.8, App. G), the calendar privacy audit
(CalBench App. I) and the failed sorting games' verdicts (MAS-Bench §5.3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from accord.cli.main import _fail, app, console, print_skipped
from accord.cli.options import run_location
from accord.core.errors import AccordError, ConfigError


@app.command("judge")
def judge(
    dirs: Annotated[
        list[Path],
        typer.Argument(
            help="Run directories with traces of games that declare a judge.",
            parser=run_location,
        ),
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
    """Run the LLM judges each game declares over the traces of DIRS.

    Negotiation: label every round with the App. G taxonomy; write labels and prevalence.
    Calendar: the App. I privacy audit (judge VPS, Table 16, precision, Table 17, semantic
    leaks against the keyword audit) in <out>/calendar/ when another judge writes in <out>.
    Failed sorting games get the convention-misalignment verdict of MAS-Bench §5.3
    (conventions.jsonl and the table).

    Negotiation games that get no labels are listed with the reason (also in unjudged.jsonl);
    when a judge labels no game at all the command exits 1 (the files are still written).

    Example: accord judge runs/grid --model gemini/gemini-3.1-pro
    --specialist-model anthropic/claude-opus-4-6 --human calib.jsonl

    Example: accord judge runs/cal --model openai/gpt-5.4-mini --leak-set
    """
    from accord.analysis.report import load_traces
    from accord.cli.options import model_options
    from accord.core.gameinfo import JudgeRun, all_infos, resolve_ref

    target = out or dirs[0] / "judge"
    errors: list[str] = []
    try:
        options = model_options(model_base_url, model_option)
        loaded = load_traces(dirs)
        print_skipped(loaded.skipped)
        everything = list(loaded)
        judges = [j for info in all_infos() for j in info.judges]
        work = [(j, j.select(everything)) for j in judges]
        work = [(j, traces) for j, traces in work if traces]
        if not work:
            what = ", ".join(j.what for j in judges if j.what) or "games that declare a judge"
            raise ConfigError(
                f"Nothing to judge in the given directories ({what}); give run directories "
                "of those games."
            )
        human_rows = _read_human(human) if human is not None else None
        for j, traces in work:
            # A judge with a subfolder moves there when another judge writes at the top.
            shared = any(o.subfolder is None for o, _ in work if o is not j)
            folder = target / j.subfolder if j.subfolder and shared else target
            job = JudgeRun(
                model=model,
                options=options,
                out=folder,
                concurrency=concurrency,
                specialist_model=specialist_model,
                human_labels=human_rows,
                leak_set=leak_set,
                say=console.print,
            )
            result = resolve_ref(j.run)(traces, job)
            if result.error:
                errors.append(result.error)
    except AccordError as exc:
        raise _fail(exc) from exc
    for error in errors:
        console.print(f"[red]Error:[/] {error}")
    if errors:
        raise typer.Exit(1)


def _read_human(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        return [json.loads(x) for x in lines if x.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"Cannot read human labels {path}: {exc}") from exc
