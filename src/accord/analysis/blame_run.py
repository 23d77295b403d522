"""`accord blame RUN`: sweep a run's games with forks and summarise across games
(`accord.analysis.blame` does one game)."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from accord.analysis.blame import blame_game, decisions, declaration, estimate_cost
from accord.analysis.blame_models import BlameReport, GameBlame, GroupSummary
from accord.analysis.stats import bootstrap_mean
from accord.core.errors import ConfigError
from accord.core.gameinfo import info_or_none
from accord.runner.specs import AgentSpec, parse_agent
from accord.traces.io import atomic_write_text, readable_traces
from accord.traces.schema import Trace

OnProgress = Callable[[str, int, int], None]
"""``(trace id, forks done, forks in all)``."""


def blamed_by_default(trace: Trace) -> bool:
    """A complete game of a game that declares blame, below its recovered outcome."""
    info = info_or_none(trace.game_id)
    if trace.status != "complete" or info is None or info.blame is None:
        return False
    return not info.blame.recovered(trace)


def blame(
    run: Path | str,
    *,
    games: Sequence[str] | None = None,
    agent: str | AgentSpec | None = None,
    max_cost: float | None = None,
    write: bool = True,
    on_progress: OnProgress | None = None,
) -> BlameReport:
    """Fork every decision point of a run's games and say where each was lost.

    Args:
        run: a run directory (or a folder of traces).
        games: trace ids to blame; default: every complete game below its game's recovered
            outcome (`accord.core.blame.Blame.recovered`).
        agent: who takes the seat at seat forks (a reference agent name or a model); default:
            each game's declared counterfactual seat.
        max_cost: refuse before any fork is played when the estimated model cost is higher.
        write: write ``RUN/blame/blame.json``.
        on_progress: told each fork as it finishes.

    Raises:
        ConfigError: no such run or game, a game that declares no blame, or a cost estimate
            over `max_cost`.
    """
    path = Path(run)
    folder = path / "traces" if (path / "traces").is_dir() else path
    if not folder.is_dir():
        raise ConfigError(f"{path} is not a run directory; give the folder accord run wrote")
    skipped: list[str] = []
    traces = list(readable_traces(folder, skipped))
    if games:
        wanted = set(games)
        chosen = [t for t in traces if t.trace_id in wanted]
        missing = sorted(wanted - {t.trace_id for t in chosen})
        if missing:
            raise ConfigError(f"{path} has no game {missing[0]!r}; see its traces/ folder")
        for t in chosen:
            declaration(t)
    else:
        chosen = [t for t in traces if blamed_by_default(t)]
    seat = parse_agent(agent) if isinstance(agent, str) else agent
    report = asyncio.run(_sweep(path, chosen, seat, max_cost, on_progress))
    if write:
        out = path / "blame"
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out / "blame.json", json.dumps(report.model_dump(mode="json"), indent=1))
    return report


async def _sweep(
    path: Path,
    traces: Sequence[Trace],
    seat: AgentSpec | None,
    max_cost: float | None,
    on_progress: OnProgress | None,
) -> BlameReport:
    points = {t.trace_id: (await decisions(t))[0] for t in traces}
    cost = sum(estimate_cost(t, points[t.trace_id]) for t in traces)
    if max_cost is not None and cost > max_cost:
        raise ConfigError(
            f"blaming {len(traces)} games would cost about ${cost:.2f} in model calls after "
            f"the fork points, over the cap of ${max_cost:.2f}; raise the cap or blame fewer "
            "games",
            cli=f"blaming {len(traces)} games would cost about ${cost:.2f}, over --max-cost "
            f"{max_cost:.2f}; raise --max-cost or pick fewer --games",
        )
    blamed: list[GameBlame] = []
    for t in traces:
        total = sum(2 if p.message else 1 for p in points[t.trace_id])
        done = [0]

        def tick(tid: str = t.trace_id, total: int = total, done: list[int] = done) -> None:
            done[0] += 1
            if on_progress is not None:
                on_progress(tid, done[0], total)

        blamed.append(await blame_game(t, agent=seat, on_fork=tick))
    return BlameReport(
        run=path.resolve().name,
        counterfactual=seat.display if seat is not None else "",
        cost_estimate=cost,
        games=blamed,
        groups=summarize(blamed),
    )


def summarize(games: Sequence[GameBlame]) -> list[GroupSummary]:
    """The blame distribution by game, players and condition, with bootstrap CIs."""
    groups: dict[tuple[str, str, str], list[GameBlame]] = defaultdict(list)
    for g in games:
        groups[(g.game_id, g.players, g.condition)].append(g)
    out = []
    for (game_id, players, condition), members in sorted(groups.items()):
        fronts = [g.frontier for g in members if g.frontier is not None]
        values = [m.value for g in members for m in g.messages]
        out.append(
            GroupSummary(
                game_id=game_id,
                players=players,
                condition=condition,
                games=len(members),
                unrecoverable=sum(g.blame_step is None for g in members),
                frontier=_triple(fronts),
                message_value=_triple(values),
                decisive_share=_triple([float(v != 0) for v in values]),
            )
        )
    return out


def _triple(values: Sequence[float]) -> list[float | None]:
    if not values:
        return [None, None, None]
    est = bootstrap_mean(values)
    return [est.mean, est.lo, est.hi]
