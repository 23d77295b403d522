"""Verify a run: re-play every game from its stored replies and check everything it claims.

A trace holds every model call's messages and reply, so each game can be played again without
calling a model (`accord.runner.replay`, `accord.models.recorded`). `verify` does that for
every trace of a run and checks, per game:

- ``plan``: the trace is one the run's plan (``experiment.json``) lists, with the same game,
  options, seed, seats and labels (a trace copied in from another run fails here);
- ``replay``: the game re-plays from the trace alone, every prompt the game sends now equal to
  the one the trace recorded (an edited prompt stops the replay at that call);
- ``events``: the re-played events equal the recorded ones (an edited reply changes an action);
- ``metrics``: every metric, the final state and the seat rows, recomputed by the game from
  the re-played events, equal the recorded ones (an edited metric fails here);
- ``scenario``: the scenario rebuilt from the trace's options and seed (its named suite, or
  the seed and the game's generator) equals the recorded one (a swapped scenario fails here);
- ``prompts``: the template hashes recorded in the trace equal those the re-play rendered,
  and each default template's hash equals this Accord's template of that name;
- ``record``: the rest of the trace (seats, usage, transcripts, status) equals the re-play's.

and per run: every game of the plan has its trace (a removed game fails here), and
``results.jsonl`` and ``summary.json`` are what the traces give. The outcome is a
`Verification` (`accord.analysis.verify_record`), written to ``RUN/verification.json`` with a
digest over all trace files, which the leaderboard, ``accord serve`` and the static bundle
show as the run's mark.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from accord.analysis.paired import scenario_digest
from accord.analysis.verify_files import (
    first_difference,
    plan_check,
    read_plan,
    results_checks,
)
from accord.analysis.verify_record import (
    Check,
    GameVerification,
    Verification,
    file_sha256,
    trace_files,
    traces_digest,
    write_record,
)
from accord.core.errors import AccordError, ConfigError
from accord.core.registry import make_config, resolve
from accord.runner.play import accord_version, play_game
from accord.runner.replay import comparable, missing_replies, spec_from_trace
from accord.runner.specs import GameSpec
from accord.traces.io import read_trace
from accord.traces.schema import Trace

OnGame = Callable[[GameVerification], None]


def verify(
    run: Path | str,
    *,
    write: bool = True,
    out: Path | None = None,
    concurrency: int = 4,
    on_game: OnGame | None = None,
) -> Verification:
    """Re-play and check every game of the run directory `run` (see the module docstring).

    Args:
        run: a run directory (with ``traces/`` and ``experiment.json``).
        write: write the record to ``run/verification.json`` (or `out`).
        out: another file for the record.
        concurrency: games re-played at once (no model is ever called).
        on_game: told each game's verification as it finishes (progress).

    Returns:
        The `Verification`; its ``passed`` is False and `Verification.mismatches` names each
        failed check when anything differs.

    Raises:
        ConfigError: `run` is not a run directory (no ``traces/`` folder).
    """
    path = Path(run)
    if not (path / "traces").is_dir():
        raise ConfigError(
            f"{path} is not a run directory (it has no traces/ folder); give the folder "
            "`accord run --out` wrote"
        )
    plan, plan_problem = read_plan(path)
    files = trace_files(path)
    hashes = {p.name: file_sha256(p) for p in files}
    traces: dict[str, Trace] = {}
    games = asyncio.run(_verify_all(files, hashes, plan, traces, max(1, concurrency), on_game))
    run_checks = [plan_check(plan, plan_problem, games), *results_checks(path, files, traces)]
    record = Verification(
        run=path.resolve().name,
        accord_version=accord_version(),
        verified_at=datetime.now(UTC).isoformat(timespec="seconds"),
        passed=all(g.passed for g in games) and all(c.passed for c in run_checks),
        traces_digest=traces_digest(hashes),
        games=games,
        run_checks=run_checks,
    )
    if write:
        write_record(path, record, out)
    return record


async def _verify_all(
    files: Sequence[Path],
    hashes: dict[str, str],
    plan: dict[str, GameSpec] | None,
    traces: dict[str, Trace],
    concurrency: int,
    on_game: OnGame | None,
) -> list[GameVerification]:
    gate = asyncio.Semaphore(concurrency)

    async def one(file: Path) -> GameVerification:
        async with gate:
            result = await verify_game(file, plan, hashes[file.name], traces)
        if on_game is not None:
            on_game(result)
        return result

    return list(await asyncio.gather(*(one(f) for f in files)))


async def verify_game(
    file: Path,
    plan: dict[str, GameSpec] | None,
    sha256: str,
    seen: dict[str, Trace] | None = None,
) -> GameVerification:
    """The checks of one trace file against the run's `plan` (None: the run has no plan)."""
    stem = file.name.removesuffix(".json")
    try:
        original = read_trace(file)
    except ConfigError as exc:
        return GameVerification(
            trace_id=stem, sha256=sha256, checks=[Check(name="read", passed=False, detail=str(exc))]
        )
    if seen is not None:
        seen[file.name] = original
    checks = [_trace_plan_check(original, stem, plan)]
    fresh, why = await _replay(original)
    if fresh is None:
        checks.append(Check(name="replay", passed=False, detail=why))
    else:
        checks.extend(compare_replay(original, fresh))
    return GameVerification(
        trace_id=original.trace_id, game_id=original.game_id, sha256=sha256, checks=checks
    )


async def _replay(original: Trace) -> tuple[Trace | None, str]:
    """The game played again from `original` alone, or None and why it cannot be."""
    try:
        spec = spec_from_trace(original)
    except AccordError as exc:
        return None, f"cannot be re-played: {exc}"
    missing = missing_replies(original)
    if missing is not None:
        return None, f"cannot be re-played from its stored replies: {missing}"
    has_models = any(a.model for a in spec.agents)
    try:
        fresh = await play_game(spec, recorded=original if has_models else None)
    except AccordError as exc:  # the game cannot even be built from the trace's options
        return None, f"cannot be re-played: {exc}"
    if fresh.status == "failed" and original.status != "failed":
        return None, f"the re-play stopped: {fresh.error}"
    # Compared as a trace file holds it (secrets redacted, long replies capped).
    return Trace.model_validate_json(fresh.model_dump_json()), ""


def compare_replay(original: Trace, fresh: Trace) -> list[Check]:
    """The checks of a trace against its re-play (`fresh`): replay, events, metrics,
    scenario, prompts and the rest of the record."""
    a, b = comparable(original), comparable(fresh)
    checks = [Check(name="replay", passed=True, detail="re-played from the stored replies")]
    events = first_difference(a["events"], b["events"], "events")
    checks.append(
        Check(
            name="events",
            passed=events is None,
            detail=events or f"{len(a['events'])} events identical",
        )
    )
    metric_diff = next(
        (
            d
            for d in (
                first_difference(a["metrics"], b["metrics"], "metrics"),
                first_difference(a["final_state"], b["final_state"], "final_state"),
                first_difference(a["seat_rows"], b["seat_rows"], "seat_rows"),
            )
            if d is not None
        ),
        None,
    )
    checks.append(
        Check(
            name="metrics",
            passed=metric_diff is None,
            detail=metric_diff
            or f"{len(a['metrics'])} metrics recomputed from the events, all equal",
        )
    )
    scenario = first_difference(a["scenario"], b["scenario"], "scenario")
    checks.append(
        Check(
            name="scenario",
            passed=scenario is None,
            detail=scenario
            or f"rebuilt from the options and seed {original.seed}: digest "
            f"{scenario_digest(original)}",
        )
    )
    checks.append(_prompt_check(original, fresh))
    shown = {"events", "metrics", "final_state", "seat_rows", "scenario", "prompt_templates"}
    rest = first_difference(
        {k: v for k, v in a.items() if k not in shown},
        {k: v for k, v in b.items() if k not in shown},
        "",
    )
    checks.append(
        Check(
            name="record",
            passed=rest is None,
            detail=rest or "seats, usage, transcripts and status equal the re-play's",
        )
    )
    return checks


def _prompt_check(original: Trace, fresh: Trace) -> Check:
    """Recorded template hashes against the re-play's and this Accord's shipped templates."""
    diff = first_difference(original.prompt_templates, fresh.prompt_templates, "prompt_templates")
    if diff is not None:
        return Check(name="prompts", passed=False, detail=diff)
    shipped = shipped_hashes(original.game_id)
    for name, entry in sorted(original.prompt_templates.items()):
        if entry.get("source") != "default":
            continue
        if shipped.get(name) != entry.get("sha256"):
            return Check(
                name="prompts",
                passed=False,
                detail=f"template {name}: recorded hash {str(entry.get('sha256'))[:12]} is not "
                f"the hash of Accord {accord_version()}'s {name} template",
            )
    n = len(original.prompt_templates)
    return Check(
        name="prompts",
        passed=True,
        detail=f"{n} template hashes equal the rendered templates" if n else "no templates",
    )


def shipped_hashes(game_id: str) -> dict[str, str]:
    """SHA-256 of each default prompt template of a game, as this Accord ships it."""
    from accord.core.prompts import game_templates

    try:
        record = game_templates(game_id).record()
    except ConfigError:  # a game whose prompts are built in code
        return {}
    return {name: entry["sha256"] for name, entry in record.items()}


# -- the run's plan ------------------------------------------------------------------------


def _trace_plan_check(trace: Trace, stem: str, plan: dict[str, GameSpec] | None) -> Check:
    if plan is None:
        return Check(name="plan", passed=False, detail="the run has no readable plan")
    if trace.trace_id != stem:
        return Check(
            name="plan", passed=False, detail=f"the file {stem}.json holds trace {trace.trace_id}"
        )
    planned = plan.get(trace.trace_id)
    if planned is None:
        return Check(
            name="plan",
            passed=False,
            detail="not a game of this run's plan (a trace from another run?)",
        )
    problem = plan_difference(planned, trace)
    if problem is not None:
        return Check(
            name="plan",
            passed=False,
            detail=f"{problem} differs from the run's plan (a trace from another run?)",
        )
    return Check(name="plan", passed=True, detail="game, options, seed, seats, labels as planned")


def plan_difference(planned: GameSpec, trace: Trace) -> str | None:
    """Which of game, seed, options, seats or labels of `trace` differ from `planned`."""
    try:
        if resolve(planned.game) != trace.game_id:
            return "the game"
    except ConfigError:
        return "the game"
    if planned.seed != trace.seed:
        return "the seed"
    try:
        # The trace records the validated config as the game dumps it (a suite's task with
        # its generation parameters, say), so the plan's options are dumped the same way.
        planned_config = make_config(trace.game_id, planned.options).model_dump(mode="json")
        if planned_config != trace.config:
            return "the options"
    except ConfigError:
        return "the options"
    seats = [a.model_dump(mode="json", exclude_none=True) for a in planned.agents]
    played = [dict(a) for a in trace.agents_config]
    for want, got in zip(seats, played, strict=False):
        # A served model's reply budget is stated in the trace when the plan left it open.
        if "max_tokens" not in want:
            got.pop("max_tokens", None)
    if len(seats) != len(played) or any(
        want != {k: v for k, v in got.items() if v is not None}
        for want, got in zip(seats, played, strict=False)
    ):
        return "the seats"
    if dict(planned.labels) != dict(trace.run):
        return "the labels"
    return None
