"""Cost of a call from its token counts and per-million-token prices."""

from __future__ import annotations

from accord.models.base import Usage
from accord.models.options import Prices

_PER = 1_000_000


def cost_usd(usage: Usage, prices: Prices | None) -> float | None:
    """US dollars charged for `usage`; ``None`` when the prices are unknown.

    Cached input tokens are charged at the cached price when one is given. Reasoning tokens are
    already part of ``output_tokens`` (providers bill them as output), so they add nothing here.
    """
    if prices is None:
        return None
    cached = min(usage.cached_input_tokens, usage.input_tokens)
    cached_price = prices.input_per_mtok
    if prices.cached_input_per_mtok is not None:
        cached_price = prices.cached_input_per_mtok
    fresh = usage.input_tokens - cached
    return (
        fresh * prices.input_per_mtok
        + cached * cached_price
        + usage.output_tokens * prices.output_per_mtok
    ) / _PER
