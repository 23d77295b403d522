"""What a batched call costs, and what the same call would have cost live.

Batch prices are the price map's where it has them (LiteLLM's ``input_cost_per_token_batches``
and ``output_cost_per_token_batches``), else the provider's published batch discount off the
live prices: 50% for OpenAI and Anthropic (`BATCH_DISCOUNT`). Cached-input and cache-write
prices get the same discount, since both providers apply it to every token of a batched call.
"""

from __future__ import annotations

from typing import Any

from accord.models.options import ModelOptions, Prices

BATCH_DISCOUNT = 0.5
"""OpenAI's and Anthropic's published batch discount: half the live price."""

_PER = 1_000_000
_UNPRICED = ("openai-compatible", "mock", "local")


def discounted(prices: Prices, discount: float = BATCH_DISCOUNT) -> Prices:
    """`prices` with `discount` off every token kind."""

    def cut(value: float | None) -> float | None:
        return None if value is None else value * discount

    return Prices(
        input_per_mtok=prices.input_per_mtok * discount,
        output_per_mtok=prices.output_per_mtok * discount,
        cached_input_per_mtok=cut(prices.cached_input_per_mtok),
        cache_write_per_mtok=cut(prices.cache_write_per_mtok),
    )


def seat_prices(
    spec: str, options: ModelOptions | dict[str, Any], discount: float = BATCH_DISCOUNT
) -> tuple[Prices | None, Prices | None]:
    """``(live, batch)`` prices of a model seat (each ``None`` where unknown)."""
    opts = options if isinstance(options, ModelOptions) else ModelOptions.model_validate(options)
    if opts.prices is not None:
        return opts.prices, discounted(opts.prices, discount)
    provider = spec.partition("/")[0]
    if provider in _UNPRICED:
        return None, None
    entry = _map_entry(spec)
    if entry is None:
        return None, None
    live = _prices(entry, "")
    if live is None:
        return None, None
    batch = _prices(entry, "_batches")
    return live, batch if batch is not None else discounted(live, discount)


def _map_entry(spec: str) -> dict[str, Any] | None:
    try:
        from accord.models.litellm_provider import _load_litellm

        costs = _load_litellm().model_cost
    except Exception:
        return None
    model = spec.removeprefix("litellm/")
    entry = costs.get(model) or costs.get(model.partition("/")[2])
    return entry if isinstance(entry, dict) else None


def _prices(entry: dict[str, Any], suffix: str) -> Prices | None:
    inp = entry.get(f"input_cost_per_token{suffix}")
    out = entry.get(f"output_cost_per_token{suffix}")
    if not isinstance(inp, int | float) or not isinstance(out, int | float):
        return None
    read = entry.get("cache_read_input_token_cost")
    write = entry.get("cache_creation_input_token_cost")
    scale = 1.0 if not suffix else BATCH_DISCOUNT  # cache prices have no batch entry
    return Prices(
        input_per_mtok=inp * _PER,
        output_per_mtok=out * _PER,
        cached_input_per_mtok=read * _PER * scale if isinstance(read, int | float) else None,
        cache_write_per_mtok=write * _PER * scale if isinstance(write, int | float) else None,
    )
