"""Cost estimates before a run, from measured token counts of earlier runs and known prices.

For every model seat of every game still to play, the estimate takes the mean input and output
tokens per game that the same model used in the same game id in earlier runs (their traces),
and prices them with the seat's configured ``options.prices``, else LiteLLM's price map for
hosted models; the mock and the bundled local model are free. A seat whose model has no
history, or no known price and no measured cost, is counted and named rather than guessed.

Token use depends on game options (rounds, talk turns) too; the estimate averages over
whatever the given runs played, so estimate from runs like the one planned.

This is Accord's one cost estimator: measuring traces (`measure_groups`), pricing tokens
(`configured_prices`, `tokens_usd`) and stating durations (`duration_text`) live here, and the
reproduction kits' estimate per row group (`accord.reproduce.estimate`) calls them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from accord.core.errors import ConfigError
from accord.core.registry import resolve
from accord.models.base import Usage
from accord.models.batch_prices import BATCH_DISCOUNT, seat_prices
from accord.models.options import ModelOptions, Prices
from accord.runner.batch_cost import BatchTally
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import complete_traces
from accord.traces.schema import SeatUsage, Trace

FREE_PROVIDERS: tuple[str, ...] = ("mock", "local")
"""Providers whose calls cost nothing: the mock and the bundled local model."""
_FREE = FREE_PROVIDERS
_PER = 1_000_000


@dataclass
class TokenHistory:
    """Token use of one model in one game id, summed over seat-games."""

    games: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    seconds: float = 0.0
    """Wall time of the games, summed (each game counted once per seat of this model)."""
    timed: int = 0
    """Games whose start and end times were recorded."""

    def mean(self) -> tuple[float, float, float]:
        """Mean input tokens, output tokens and cost per seat-game."""
        n = max(self.games, 1)
        return self.input_tokens / n, self.output_tokens / n, self.cost_usd / n

    def add(self, usage: SeatUsage, seconds: float | None) -> None:
        """Count one seat-game that used `usage` in a game of `seconds` (None: not timed)."""
        self.games += 1
        Usage.of(usage).add_to(self)
        self.cost_usd += usage.cost_usd
        self.cost_known = self.cost_known and usage.cost_known
        if seconds is not None:
            self.seconds += seconds
            self.timed += 1


@dataclass
class GroupHistory:
    """The measured games of one group (a game id, a reproduction's row group)."""

    games: int = 0
    seconds: float = 0.0
    """Wall time of the games, summed (each game once)."""
    timed: int = 0
    """Games whose start and end times were recorded."""
    models: dict[str, TokenHistory] = field(default_factory=dict)
    """Token use per model, over the seat-games it played."""


def measure_groups(
    dirs: Iterable[Path], group_of: Callable[[Trace], str], *, strict: bool = True
) -> dict[str, GroupHistory]:
    """Games, time and token use per group (``group_of(trace)``) from the complete traces in
    run directories.

    Args:
        strict: a directory that is neither a run directory nor a traces folder is an error
            (`ConfigError`); otherwise a directory without ``traces/`` is skipped.
    """
    groups: dict[str, GroupHistory] = {}
    for d in dirs:
        traces = d / "traces"
        if not traces.is_dir():
            if not strict:
                continue
            traces = d
            if not traces.is_dir():
                raise ConfigError(f"{d} is not a run directory (no traces/ inside)")
        for trace in complete_traces(traces):
            add_group(groups, group_of(trace), trace)
    return groups


def add_group(groups: dict[str, GroupHistory], key: str, trace: Trace) -> None:
    """Count one complete trace into ``groups[key]`` (`measure_groups`, one trace at a time)."""
    group = groups.setdefault(key, GroupHistory())
    group.games += 1
    seconds = duration_s(trace.started_at, trace.ended_at)
    if seconds is not None:
        group.seconds += seconds
        group.timed += 1
    for seat in trace.seats:
        usage = trace.usage.get(seat.name)
        if seat.model is None or usage is None:
            continue
        group.models.setdefault(seat.model, TokenHistory()).add(usage, seconds)


def measure(dirs: Iterable[Path]) -> dict[tuple[str, str], TokenHistory]:
    """Token history per ``(game_id, model)`` from the complete traces in run directories."""
    groups = measure_groups(dirs, lambda trace: trace.game_id)
    return {(g, m): h for g, group in groups.items() for m, h in group.models.items()}


def add_history(history: dict[tuple[str, str], TokenHistory], trace: Trace) -> None:
    """Count one complete trace's model seats into `history` (`measure`, one trace at a time)."""
    seconds = duration_s(trace.started_at, trace.ended_at)
    for seat in trace.seats:
        usage = trace.usage.get(seat.name)
        if seat.model is None or usage is None:
            continue
        history.setdefault((trace.game_id, seat.model), TokenHistory()).add(usage, seconds)


def duration_s(start: str, end: str) -> float | None:
    """Seconds from ISO time `start` to `end`; None when either is missing or bad."""
    try:
        seconds = (
            dt.datetime.fromisoformat(end) - dt.datetime.fromisoformat(start)
        ).total_seconds()
    except (TypeError, ValueError):
        return None
    return seconds if seconds >= 0 else None


def tokens_usd(prices: Prices, input_tokens: float, output_tokens: float) -> float:
    """What `input_tokens` and `output_tokens` cost at `prices` (USD per million tokens)."""
    return (input_tokens * prices.input_per_mtok + output_tokens * prices.output_per_mtok) / _PER


def configured_prices(agent: AgentSpec) -> Prices | None:
    """A seat's prices: its options, else LiteLLM's map for hosted models, else None."""
    assert agent.model is not None
    try:
        prices = ModelOptions.model_validate(agent.options).prices
    except ValidationError:
        prices = None
    if prices is not None:
        return prices
    provider = agent.model.split("/", 1)[0]
    if provider in _FREE:
        return Prices(input_per_mtok=0.0, output_per_mtok=0.0)
    if provider in ("openai-compatible",):
        return None
    return _price_map(agent.model.removeprefix("litellm/"))


def _price_map(model: str) -> Prices | None:
    from accord.models.litellm_provider import load_litellm

    try:
        info = load_litellm().get_model_info(model=model)
        inp, out = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    except Exception:
        return None  # LiteLLM does not know the model: its price is unknown, not an error
    if not isinstance(inp, int | float) or not isinstance(out, int | float):
        return None
    read = info.get("cache_read_input_token_cost")
    write = info.get("cache_creation_input_token_cost")
    return Prices(
        input_per_mtok=inp * _PER,
        output_per_mtok=out * _PER,
        cached_input_per_mtok=read * _PER if isinstance(read, int | float) else None,
        cache_write_per_mtok=write * _PER if isinstance(write, int | float) else None,
    )


@dataclass
class CostEstimate:
    """What a set of games should cost."""

    games: int = 0
    model_seats: int = 0
    estimated_seats: int = 0
    usd: float = 0.0
    no_history: set[str] = field(default_factory=set)
    no_price: set[str] = field(default_factory=set)
    game_seconds: float = 0.0
    """Summed expected wall time of the games that could be timed."""
    timed_games: int = 0
    live_usd: float = 0.0
    """What the same plan costs with every seat live (equals `usd` without batch seats)."""
    batch_seats: int = 0
    """Model seats that play through provider batches (priced at batch prices in `usd`)."""
    batch: BatchTally | None = None
    """Batched calls of earlier batch runs: their turnaround and steps per game."""

    def describe(self, concurrency: int = 1) -> str:
        """One paragraph for the terminal: the cost ("unknown" for what cannot be priced, with
        why) and the time at `concurrency` games at once."""
        if self.model_seats == 0:
            return f"Cost estimate: $0 ({self.games} games, no model seats)."
        missing = self.model_seats - self.estimated_seats
        if missing == 0 and self.batch_seats:
            text = (
                f"Cost estimate: ${self.usd:.4f} for {self.games} games in batch mode "
                f"(${self.live_usd:.4f} live)."
            )
        elif missing == 0:
            text = f"Cost estimate: ${self.usd:.4f} for {self.games} games."
        elif self.estimated_seats == 0:
            text = f"Cost estimate: unknown ({self.model_seats} model seats, none estimated)."
        else:
            text = (
                f"Cost estimate: unknown; ${self.usd:.4f} for the {self.estimated_seats} of "
                f"{self.model_seats} model seats that could be estimated."
            )
        if self.no_history:
            text += (
                " No token history for " + ", ".join(sorted(self.no_history)) + ": pass "
                "--estimate-from DIR with an earlier run of them."
            )
        if self.no_price:
            text += (
                " No known price for " + ", ".join(sorted(self.no_price)) + ": set "
                "options.prices (USD per million tokens) to count them."
            )
        return text + " " + self.describe_time(concurrency)

    def describe_time(self, concurrency: int) -> str:
        """The expected wall time, or why it is unknown."""
        if self.batch_seats:
            return self._batch_time(concurrency)
        if self.timed_games == 0:
            return (
                "Time estimate: unknown (no earlier games of these models to time; pass "
                "--estimate-from DIR)."
            )
        per_game = self.game_seconds / self.timed_games
        waves = -(-self.games // max(1, concurrency))  # games run `concurrency` at a time
        total = per_game * waves
        note = (
            ""
            if self.timed_games == self.games
            else f" (from the {self.timed_games} games that could be timed)"
        )
        return (
            f"Time estimate: about {duration_text(total)} at --concurrency {concurrency}, "
            f"{per_game:.1f} s a game{note}; rate limits can make it longer."
        )

    def _batch_time(self, concurrency: int) -> str:
        """Batch mode: games step together, each step one batch, so a wave of games takes
        its steps times the batches' turnaround (both measured in earlier batch runs)."""
        tally = self.batch
        turnaround = tally.turnaround_s if tally is not None else None
        if tally is None or turnaround is None or not tally.games:
            return (
                "Time estimate (batch mode): unknown (no batch turnaround measured: pass "
                "--estimate-from DIR with an earlier batch run; providers answer within 24 h, "
                "usually minutes)."
            )
        steps = tally.steps / tally.games
        waves = -(-self.games // max(1, concurrency))
        total = steps * turnaround * waves
        return (
            f"Time estimate (batch mode): about {duration_text(total)} at --concurrency "
            f"{concurrency}: {steps:.0f} steps a game, each a batch of {turnaround:.0f} s "
            f"measured turnaround; the provider's queue can make it longer."
        )


def estimate(
    specs: Sequence[GameSpec],
    history: dict[tuple[str, str], TokenHistory],
    batch: BatchTally | None = None,
) -> CostEstimate:
    """The cost of playing `specs`, from `history` (see `measure`); batch seats at batch
    prices, with `batch` (earlier batch runs' calls) for the time."""
    est = CostEstimate(games=len(specs), batch=batch)
    prices: dict[tuple[str, str], Prices | None] = {}
    for spec in specs:
        game_id = resolve(spec.game)
        first_model = next((i for i, a in enumerate(spec.agents) if a.model), None)
        for i, agent in enumerate(spec.agents):
            if agent.model is None:
                continue
            est.model_seats += 1
            h = history.get((game_id, agent.model))
            if h is not None and h.timed and i == first_model:
                est.game_seconds += h.seconds / h.timed  # a game is timed once, by its first model
                est.timed_games += 1
            if agent.model.split("/", 1)[0] in _FREE and "prices" not in agent.options:
                est.estimated_seats += 1  # the mock and the bundled model cost nothing
                continue
            if h is None or h.games == 0:
                est.no_history.add(f"{agent.model} in {game_id}")
                continue
            ident = (agent.model, repr(sorted(agent.options.items())))
            if ident not in prices:
                prices[ident] = configured_prices(agent)
            p = prices[ident]
            tokens_in, tokens_out, measured = h.mean()
            if agent.batch:
                est.batch_seats += 1
            if p is not None:
                live = tokens_usd(p, tokens_in, tokens_out)
                est.usd += _batch_usd(agent, tokens_in, tokens_out, live) if agent.batch else live
                est.live_usd += live
            elif h.cost_known:
                est.usd += measured
                est.live_usd += measured
            else:
                est.no_price.add(agent.model)
                continue
            est.estimated_seats += 1
    return est


def _batch_usd(agent: AgentSpec, tokens_in: float, tokens_out: float, live: float) -> float:
    """A batch seat's tokens at batch prices (`accord.models.batch_prices`)."""
    assert agent.model is not None
    try:
        _, prices = seat_prices(agent.model, agent.options)
    except ValidationError:
        prices = None
    return tokens_usd(prices, tokens_in, tokens_out) if prices else live * BATCH_DISCOUNT


def duration_text(seconds: float) -> str:
    """``42 s``, ``17 min`` or ``2.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def unpriced_models(specs: Sequence[GameSpec]) -> list[str]:
    """Models of `specs` whose calls --max-cost cannot count (no configured or known price)."""
    out: set[str] = set()
    seen: set[tuple[str, str]] = set()
    for spec in specs:
        for agent in spec.agents:
            ident = (agent.model or "", repr(sorted(agent.options.items())))
            if agent.model is None or ident in seen:
                continue
            seen.add(ident)
            if configured_prices(agent) is None:
                out.add(agent.model)
    return sorted(out)
