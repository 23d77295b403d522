"""Cost of a call from its token counts and per-million-token prices."""

from __future__ import annotations

from accord.models.base import Usage
from accord.models.options import Prices

_PER = 1_000_000


def cost_usd(usage: Usage, prices: Prices | None) -> float | None:
    """US dollars charged for `usage`; ``None`` when the prices are unknown.

    Input tokens read from the provider's cache are charged at the cached price and tokens
    written to it at the cache-write price, when those are given (both are part of
    ``input_tokens``). Reasoning tokens are already part of ``output_tokens`` (providers bill
    them as output), so they add nothing here.
    """
    if prices is None:
        return None
    cached = min(usage.cached_input_tokens, usage.input_tokens)
    written = min(usage.cache_write_tokens, usage.input_tokens - cached)
    read_price = prices.input_per_mtok
    if prices.cached_input_per_mtok is not None:
        read_price = prices.cached_input_per_mtok
    write_price = prices.input_per_mtok
    if prices.cache_write_per_mtok is not None:
        write_price = prices.cache_write_per_mtok
    fresh = usage.input_tokens - cached - written
    return (
        fresh * prices.input_per_mtok
        + cached * read_price
        + written * write_price
        + usage.output_tokens * prices.output_per_mtok
    ) / _PER


def uncached_cost_usd(usage: Usage, prices: Prices | None) -> float | None:
    """What `usage` would cost with no prompt cache: every input token at the input price."""
    if prices is None:
        return None
    return (
        usage.input_tokens * prices.input_per_mtok + usage.output_tokens * prices.output_per_mtok
    ) / _PER
