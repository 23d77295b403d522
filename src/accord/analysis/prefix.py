"""Prompt-cache economics of a game, from its trace: how much of each call's input repeated
the same seat's previous call, what the provider reported as cached, and what the calls cost
with and without caching.

A seat's conversation grows turn by turn, so most of a call's input is the previous call's
input again. The repeated share is computed from the stored transcripts (each ``model_call``
names the messages it was sent), so it needs nothing from the provider: the longest common
prefix of two consecutive calls' message lists, message by message and, in the first message
that differs, character by character, over the characters of the call's input. Tokens are
estimated from it in proportion (``repeated_share * input_tokens``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accord.agents.transcript import expand
from accord.core.errors import ConfigError
from accord.models.base import Usage
from accord.models.options import Prices
from accord.models.pricing import cost_usd, uncached_cost_usd
from accord.runner.cost import configured_prices
from accord.runner.specs import AgentSpec
from accord.traces.events import ModelCall
from accord.traces.schema import Trace


@dataclass
class SeatCache:
    """One seat's model calls in one game."""

    trace_id: str
    seat: str
    model: str
    calls: int = 0
    input_chars: int = 0
    repeated_chars: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = 0.0
    """What the calls cost as charged (cache reads and writes priced), None if unknown."""
    uncached_usd: float | None = 0.0
    """What they would have cost with no cache at all, None if the price is unknown."""

    @property
    def repeated_share(self) -> float | None:
        """Share of input characters that repeated the previous call's prefix."""
        return self.repeated_chars / self.input_chars if self.input_chars else None

    @property
    def repeated_tokens(self) -> int:
        """Input tokens estimated to repeat a prefix (the share applied to the tokens)."""
        share = self.repeated_share
        return round(share * self.input_tokens) if share is not None else 0

    def add(self, other: SeatCache) -> None:
        """Add `other`'s counts (to total a model over games)."""
        self.calls += other.calls
        self.input_chars += other.input_chars
        self.repeated_chars += other.repeated_chars
        Usage.of(other).add_to(self)  # input, output and cache-write tokens
        self.cached_tokens += other.cached_tokens
        self.cost_usd = _plus(self.cost_usd, other.cost_usd)
        self.uncached_usd = _plus(self.uncached_usd, other.uncached_usd)


def _plus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def common_prefix_chars(before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]) -> int:
    """Characters of `after` that repeat `before` from the start: whole messages while they
    are equal (role and content), then the common start of the first pair that differs."""
    total = 0
    for old, new in zip(before, after, strict=False):
        if old.get("role") != new.get("role"):
            break
        a, b = str(old.get("content", "")), str(new.get("content", ""))
        if a == b:
            total += len(b)
            continue
        n = 0
        for x, y in zip(a, b, strict=False):
            if x != y:
                break
            n += 1
        return total + n
    return total


def _input_chars(messages: Sequence[dict[str, Any]]) -> int:
    return sum(len(str(m.get("content", ""))) for m in messages)


def seat_cache(trace: Trace) -> list[SeatCache]:
    """One `SeatCache` per seat that called a model in `trace`."""
    out: list[SeatCache] = []
    for seat in trace.seats:
        if seat.model is None or seat.name not in trace.transcripts:
            continue
        messages = trace.transcripts[seat.name].messages
        row = SeatCache(trace_id=trace.trace_id, seat=seat.name, model=seat.model)
        calls = sorted(
            (e for e in trace.events if isinstance(e, ModelCall) and e.seat == seat.seat),
            key=lambda e: e.call or 0,
        )
        previous: list[dict[str, Any]] = []
        usage = Usage()
        for event in calls:
            sent = [messages[i] for i in expand(event.get("sent") or []) if i < len(messages)]
            row.calls += 1
            row.input_chars += _input_chars(sent)
            row.repeated_chars += common_prefix_chars(previous, sent)
            previous = sent
            usage = usage + Usage(
                input_tokens=int(event.get("input_tokens") or 0),
                output_tokens=int(event.get("output_tokens") or 0),
                cached_input_tokens=int(event.get("cached_input_tokens") or 0),
                cache_write_tokens=int(event.get("cache_write_tokens") or 0),
            )
        row.input_tokens, row.output_tokens = usage.input_tokens, usage.output_tokens
        row.cached_tokens, row.cache_write_tokens = (
            usage.cached_input_tokens,
            usage.cache_write_tokens,
        )
        try:
            prices = _prices(trace, seat.seat, seat.model)
        except ValueError as exc:
            raise ConfigError(
                f"Trace {trace.trace_id}: seat {seat.name}'s model {seat.model!r} is not "
                "provider/model (e.g. openai/gpt-5.4-mini); fix the seat or re-run the game"
            ) from exc
        row.cost_usd = cost_usd(usage, prices)
        row.uncached_usd = uncached_cost_usd(usage, prices)
        if row.cost_usd is None:
            # No price table, but the provider may have priced each call (LiteLLM's map).
            charged = [e.cost_usd for e in calls]
            if charged and all(isinstance(c, int | float) for c in charged):
                row.cost_usd = float(sum(c for c in charged if c is not None))
        out.append(row)
    return out


def _prices(trace: Trace, seat: int, model: str) -> Prices | None:
    config = trace.agents_config[seat] if seat < len(trace.agents_config) else {}
    options = config.get("options") if isinstance(config, dict) else None
    try:
        agent = AgentSpec(model=model, options=options if isinstance(options, dict) else {})
    except ValueError:
        agent = AgentSpec(model=model)
    return configured_prices(agent)
