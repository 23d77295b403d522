"""`accord export --inspect RUN`: Inspect AI logs from the traces of an Accord run.

One log (``.eval``) per game id in the run, one sample per trace: the seats' conversations as
the sample's messages (each tagged with its seat), one model event per model call (under the
seat's name as its model role), the game's summary metrics as the score (a failed game is
unscored, as Accord keeps it out of every mean), the seats' token usage per role, and the whole
trace in the sample's store (``accord_trace``). Inspect's viewer (``inspect view --log-dir
OUT``) and its log readers then open Accord runs like any eval.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accord.core.errors import ConfigError
from accord.inspectai.convert import (
    SCORER,
    headline_keys,
    model_events,
    role_usage,
    score_value,
    scrubbed,
    transcript_messages,
)
from accord.inspectai.task import TRACE_KEY
from accord.traces.reader import readable_traces, run_traces_folder
from accord.traces.schema import Trace

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample, EvalScore
    from inspect_ai.model import ModelUsage


def traces_folder(directory: Path) -> Path:
    """The folder holding a run's traces: ``RUN/traces`` or, given that folder, itself (as
    every command finds it: `accord.traces.reader.run_traces_folder`)."""
    return run_traces_folder(directory)


def _sample(trace: Trace, keys: list[str]) -> EvalSample:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score

    if trace.status == "complete":
        score = Score(
            value=score_value(keys, trace.metrics),
            explanation=f"Accord metrics of {trace.trace_id}",
            metadata={"metrics": trace.metrics},
        )
    else:
        score = Score(value=math.nan, explanation=f"game failed: {trace.error}")
    seats = ", ".join(s.name for s in trace.seats)
    usage = role_usage(trace)
    by_model: dict[str, ModelUsage] = {}
    for seat in trace.seats:
        if seat.model is not None and seat.name in usage:
            prior = by_model.get(seat.identity)
            by_model[seat.identity] = (
                usage[seat.name] if prior is None else prior + usage[seat.name]
            )
    return EvalSample(
        id=trace.trace_id,
        epoch=1,
        input=f"Play {trace.game_id} on seed {trace.seed}; seats: {seats}.",
        target="",
        messages=transcript_messages(trace),
        output=ModelOutput.from_content(model="accord", content=f"{trace.status}"),
        scores={SCORER: score},
        metadata={
            "seed": trace.seed,
            "seats": [s.model_dump() for s in trace.seats],
            "status": trace.status,
        },
        store={TRACE_KEY: trace.model_dump(mode="json")},
        events=list(model_events(trace)),
        model_usage=by_model,
        role_usage=usage,
        started_at=trace.started_at or None,
        completed_at=trace.ended_at or None,
        error=None,
    )


def _results(traces: Sequence[Trace], keys: list[str]) -> list[EvalScore]:
    """Mean and standard error of each metric over the complete games (Inspect's `mean` and
    `stderr`: sample standard deviation over the square root of n)."""
    from inspect_ai.log import EvalMetric, EvalScore

    scores: list[EvalScore] = []
    for key in keys:
        values = [
            v
            for t in traces
            if t.status == "complete" and not math.isnan(v := score_value([key], t.metrics)[key])
        ]
        metrics: dict[str, EvalMetric] = {}
        if values:
            mean = sum(values) / len(values)
            var = sum((v - mean) ** 2 for v in values) / (len(values) - 1) if len(values) > 1 else 0
            metrics = {
                "mean": EvalMetric(name="mean", value=mean),
                "stderr": EvalMetric(name="stderr", value=math.sqrt(var / len(values))),
            }
        scores.append(
            EvalScore(
                name=key,
                scorer=SCORER,
                scored_samples=len(values),
                unscored_samples=len(traces) - len(values),
                metrics=metrics,
            )
        )
    return scores


def build_log(game_id: str, traces: Sequence[Trace]) -> EvalLog:
    """The Inspect log of one game id's traces (read in file-name order)."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalResults, EvalSpec, EvalStats

    keys = headline_keys(game_id, list(traces))
    models = sorted({s.identity for t in traces for s in t.seats})
    digest = hashlib.sha256("\n".join(t.trace_id for t in traces).encode()).hexdigest()[:22]
    starts = sorted(t.started_at for t in traces if t.started_at)
    ends = sorted(t.ended_at for t in traces if t.ended_at)
    complete = sum(t.status == "complete" for t in traces)
    totals: dict[str, ModelUsage] = {}
    for t in traces:
        for role, usage in role_usage(t).items():
            totals[role] = usage if role not in totals else totals[role] + usage
    return EvalLog(
        status="success",
        eval=EvalSpec(
            created=starts[0] if starts else dt.datetime.now(dt.UTC).isoformat(),
            task=f"accord_{game_id.replace('-', '_')}",
            task_id=digest,
            run_id=digest,
            eval_id=digest,
            dataset=EvalDataset(
                name=game_id,
                samples=len(traces),
                sample_ids=[t.trace_id for t in traces],
            ),
            model=", ".join(models) or "none",
            config=EvalConfig(),
            metadata={"accord_game": game_id, "exported_from": "accord traces"},
        ),
        results=EvalResults(
            total_samples=len(traces),
            completed_samples=complete,
            scores=_results(traces, keys),
        ),
        stats=EvalStats(
            started_at=starts[0] if starts else "",
            completed_at=ends[-1] if ends else "",
            role_usage=totals,
        ),
        samples=[_sample(t, keys) for t in traces],
    )


def export_inspect(directory: Path, out: Path, *, skipped: list[str] | None = None) -> list[Path]:
    """Write one Inspect log per game id of the run in `directory` into `out`; return their
    paths. Files that are not readable traces are passed over and listed in `skipped`.

    Raises:
        ConfigError: no readable trace in `directory`.
    """
    from inspect_ai.log import write_eval_log

    passed: list[str] = skipped if skipped is not None else []
    by_game: dict[str, list[Trace]] = {}
    for trace in readable_traces(traces_folder(directory), passed):
        by_game.setdefault(trace.game_id, []).append(scrubbed(trace))
    if not by_game:
        raise ConfigError(
            f"no readable trace in {directory}; give a run directory written by `accord run`."
        )
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for game_id, traces in sorted(by_game.items()):
        log = build_log(game_id, traces)
        # Inspect's own file naming (time_task_id), so `inspect view` lists the logs.
        created = dt.datetime.fromisoformat(log.eval.created).astimezone(dt.UTC)
        stamp = created.strftime("%Y-%m-%dT%H-%M-%S-00-00")
        path = out / f"{stamp}_{log.eval.task.replace('_', '-')}_{log.eval.task_id}.eval"
        write_eval_log(log, str(path), format="eval")
        written.append(path)
    return written


def describe(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """What each written log holds (for printing): its path, task and sample count."""
    from inspect_ai.log import read_eval_log

    out = []
    for path in paths:
        log = read_eval_log(str(path), header_only=True)
        out.append({"path": str(path), "task": log.eval.task, "samples": log.eval.dataset.samples})
    return out
