"""What a reproduction should cost and how long it should take, before it is played.

Token use and game time differ between row groups (a team of 20 sorting agents is not a team of
one), so they are measured per row group (the pairing label of a game: ``imap ×5``,
``openai/gpt-5.4-mini ×5``, ``a vs b``) from earlier games: ``--estimate-from`` run directories,
the reproduction's own directory when resuming, or a *pilot* of a few games of each row group
played into ``DIR/pilot`` (a normal run directory). Each model's tokens are then priced with its
configured prices, else LiteLLM's price map (`accord.runner.cost.configured_prices`); the mock
and the bundled local model are free; without a price the pilot's measured cost is used when
the provider reported one, and otherwise the cost is "unknown", never guessed. Every number
says where it came from.

Measuring, pricing and durations are the run estimator's (`accord.runner.cost`); this module
only groups by row group and writes the plan's lines.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from accord.runner.cost import (
    FREE_PROVIDERS,
    GroupHistory,
    configured_prices,
    duration_text,
    measure_groups,
    tokens_usd,
)
from accord.runner.scan import merge_history
from accord.runner.specs import AgentSpec, GameSpec

__all__ = [
    "FREE_PROVIDERS",
    "History",
    "ModelEstimate",
    "PlanEstimate",
    "estimate",
    "group_of",
    "measure",
    "needs_payment",
    "pilot_specs",
]


def group_of(spec: GameSpec) -> str:
    """The row group of a game: its pairing label."""
    return str(spec.labels.get("pairing", "?"))


def pilot_specs(specs: Sequence[GameSpec], per_group: int) -> list[GameSpec]:
    """The first `per_group` games of each row group, in plan order."""
    taken: dict[str, int] = defaultdict(int)
    out = []
    for spec in specs:
        group = group_of(spec)
        if taken[group] < per_group:
            taken[group] += 1
            out.append(spec)
    return out


def needs_payment(specs: Iterable[GameSpec]) -> list[str]:
    """Models of `specs` that are not free (their calls may cost money)."""
    return sorted(
        {
            a.model
            for s in specs
            for a in s.agents
            if a.model and a.model.split("/", 1)[0] not in FREE_PROVIDERS
        }
    )


@dataclass
class History:
    """Measured games per row group."""

    groups: dict[str, GroupHistory] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Games measured."""
        return sum(g.games for g in self.groups.values())


def measure(
    dirs: Iterable[Path], label: str, *, scanned: Mapping[str, GroupHistory] | None = None
) -> History:
    """Token use and time per row group from the complete traces in run directories, plus
    `scanned`: the row groups of a directory already read (a resumed reproduction's own,
    `accord.runner.scan.RunScan.pairings`), so its traces are not read again."""
    groups = measure_groups(dirs, lambda trace: str(trace.run.get("pairing", "?")), strict=False)
    for key, more in (scanned or {}).items():
        mine = groups.setdefault(key, GroupHistory())
        mine.games += more.games
        mine.seconds += more.seconds
        mine.timed += more.timed
        for model, h in more.models.items():
            merge_history(mine.models, {model: h})
    hist = History(groups=groups)
    if hist.games:
        hist.sources.append(label)
    return hist


@dataclass
class ModelEstimate:
    """One model's share of the plan."""

    model: str
    games: int
    seat_games: int = 0
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    usd: float | None = 0.0
    note: str = ""


@dataclass
class PlanEstimate:
    """The whole plan."""

    models: list[ModelEstimate]
    seconds: float | None
    """Summed time of the games that keep a core busy (reference agents, mock, local model);
    None when nothing could be timed."""
    waiting_seconds: float
    """Summed time of the games that wait on hosted models (they overlap with concurrency)."""
    timed_games: int
    games: int
    source: str

    def lines(self, concurrency: int) -> list[str]:
        """The estimate for the terminal and the write-up, each number with its source."""
        out = []
        for m in self.models:
            tokens = (
                f"~{m.input_tokens / 1e6:.2f}M input + {m.output_tokens / 1e6:.2f}M output tokens"
                if m.seat_games
                else "tokens unknown"
            )
            cost = "cost unknown" if m.usd is None else f"${m.usd:,.2f}"
            out.append(f"{m.model}: {m.games} games, {tokens}, {cost} ({m.note})")
        if self.seconds is None:
            out.append(f"Time: unknown ({self.source}).")
        else:
            # Hosted-model games mostly wait, so they overlap; the others share the CPU.
            total = self.seconds + self.waiting_seconds / max(1, concurrency)
            out.append(
                f"Time: about {duration_text(total)} at --concurrency {concurrency} "
                f"({self.source}; rate limits can make it longer)."
            )
        return out


def estimate(specs: Sequence[GameSpec], history: History) -> PlanEstimate:
    """Tokens, cost and time of `specs` from `history` (see the module docstring)."""
    per_model: dict[str, ModelEstimate] = {}
    agents: dict[str, AgentSpec] = {}
    serial = waiting = 0.0
    timed = 0
    for spec in specs:
        seen = history.groups.get(group_of(spec))
        if seen is not None and seen.timed:
            if needs_payment([spec]):
                waiting += seen.seconds / seen.timed
            else:
                serial += seen.seconds / seen.timed
            timed += 1
        for model in {a.model for a in spec.agents if a.model}:
            est = per_model.setdefault(model, ModelEstimate(model=model, games=0))
            est.games += 1
        for agent in spec.agents:
            if agent.model is None:
                continue
            agents.setdefault(agent.model, agent)
            est = per_model[agent.model]
            h = seen.models.get(agent.model) if seen is not None else None
            if h is None or not h.games:
                continue
            est.seat_games += 1
            est.input_tokens += h.input_tokens / h.games
            est.output_tokens += h.output_tokens / h.games
    for model, est in per_model.items():
        _price(est, agents[model], history)
    if not timed:
        source = "no earlier games of these row groups to time"
    elif timed == len(specs):
        source = "from " + ", ".join(history.sources)
    else:
        source = (
            f"from {', '.join(history.sources)}, which timed the row groups of {timed} of the "
            f"{len(specs)} games"
        )
    # Games of a group never timed are counted at the mean of the timed ones.
    scale = len(specs) / timed if timed else 0.0
    return PlanEstimate(
        sorted(per_model.values(), key=lambda m: m.model),
        serial * scale if timed else None,
        waiting * scale,
        timed,
        len(specs),
        source,
    )


def _price(est: ModelEstimate, agent: AgentSpec, history: History) -> None:
    if est.seat_games == 0:
        est.usd = None
        est.note = "no pilot or earlier games of it: tokens and cost unknown"
        return
    provider = (agent.model or "").split("/", 1)[0]
    where = "tokens from " + ", ".join(history.sources)
    if provider in FREE_PROVIDERS and "prices" not in agent.options:
        est.usd = 0.0
        est.note = f"free provider; {where}"
        return
    prices = configured_prices(agent)
    if prices is not None:
        est.usd = tokens_usd(prices, est.input_tokens, est.output_tokens)
        est.note = f"priced per token from the model's known prices; {where}"
        return
    measured = [
        h for g in history.groups.values() if (h := g.models.get(est.model)) and h.cost_known
    ]
    if measured:
        per_seat_game = sum(h.cost_usd for h in measured) / max(1, sum(h.games for h in measured))
        est.usd = per_seat_game * est.seat_games
        est.note = f"no known price: the cost the provider reported in the pilot; {where}"
        return
    est.usd = None
    est.note = f"no known price and none reported: cost unknown; {where}"
