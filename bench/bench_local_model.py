"""Local model: accord's provider against raw llama-cpp-python, and per-seat prefix caching.

Prints (never asserts):

1. generation speed (completion tokens per second) of raw ``Llama.create_chat_completion`` and
   of ``get_model("local/smollm2").complete`` on the same prompt, grammar, seed and settings,
   interleaved so that load from other processes hits both alike; the ratio should be >= 0.9;
2. prompt tokens actually evaluated on a seat's first and second turn when another seat speaks
   in between, with the per-seat cache and without it.

Run: ``python bench/bench_local_model.py`` (needs ``make run`` or the local extra installed).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time

from accord.models import get_model
from accord.models.local import bundled_gguf, compiled_grammar
from accord.testing.schemas import envelope_schema

ROUNDS = 5
SCHEMA = envelope_schema()
RULES = (
    "You and a partner split 3 books and 2 hats. Each of you values the items differently and "
    "only knows your own values. Reply with JSON: thinking, speech, and action (null to keep "
    "talking, or the split you propose). "
)
PROMPT = [
    {"role": "system", "content": RULES * 3},
    {"role": "user", "content": "Your partner says: I would like all the books. What now?"},
]


def raw_llama_rate(llama, grammar, max_tokens: int) -> tuple[float, int]:
    started = time.perf_counter()
    result = llama.create_chat_completion(
        messages=PROMPT, grammar=grammar, max_tokens=max_tokens, temperature=0.7, seed=11
    )
    elapsed = time.perf_counter() - started
    tokens = int(result["usage"]["completion_tokens"])
    return tokens / elapsed, tokens


async def accord_rate(model) -> tuple[float, int]:
    started = time.perf_counter()
    completion = await model.complete(PROMPT, response_schema=SCHEMA, temperature=0.7, seed=11)
    elapsed = time.perf_counter() - started
    return completion.usage.output_tokens / elapsed, completion.usage.output_tokens


async def speed() -> None:
    import llama_cpp

    model = get_model("local/smollm2")
    grammar, llama_grammar = compiled_grammar(SCHEMA)
    max_tokens = grammar.max_chars + 1  # what the provider asks for, so both do the same work
    llama = llama_cpp.Llama(
        model_path=str(bundled_gguf()),
        n_ctx=8192,
        n_threads=os.cpu_count(),
        seed=1234,
        verbose=False,
    )
    await accord_rate(model)  # load and warm both before timing
    raw_llama_rate(llama, llama_grammar, max_tokens)
    raw_rates, accord_rates, tokens = [], [], set()
    for _ in range(ROUNDS):
        rate, n = raw_llama_rate(llama, llama_grammar, max_tokens)
        raw_rates.append(rate)
        tokens.add(("raw", n))
        rate, n = await accord_rate(model)
        accord_rates.append(rate)
        tokens.add(("accord", n))
    llama.close()
    raw, ours = statistics.median(raw_rates), statistics.median(accord_rates)
    print(f"completion tokens per call: {sorted(tokens)}")
    print(f"raw llama-cpp-python : {raw:7.1f} tokens/s (median of {ROUNDS})")
    print(f"accord local provider: {ours:7.1f} tokens/s (median of {ROUNDS})")
    print(f"ratio accord / raw   : {ours / raw:7.2f}   (target >= 0.9)")


async def prefix_cache(cache_mb: int) -> tuple[int, int, int, int]:
    # A distinct n_ctx gives each variant its own model instance, so neither sees the other's.
    model = get_model("local/smollm2", session_cache_mb=cache_mb, n_ctx=4096 + cache_mb)
    seats = {s: [{"role": "system", "content": f"You are seat {s}. " + RULES * 3}] for s in "AB"}
    evaluated: dict[str, list[tuple[int, int]]] = {"A": [], "B": []}
    for seat, line in [("A", "I want the books."), ("B", "Take a hat."), ("A", "Fine, deal?")]:
        seats[seat].append({"role": "user", "content": f"Your partner says: {line}"})
        completion = await model.complete(
            seats[seat], response_schema=SCHEMA, seed=3, session=f"bench/{seat}"
        )
        seats[seat].append({"role": "assistant", "content": completion.text})
        evaluated[seat].append(
            (completion.raw["prompt_tokens_evaluated"], completion.usage.input_tokens)
        )
    (first, first_total), (second, second_total) = evaluated["A"]
    return first, first_total, second, second_total


async def main() -> None:
    if bundled_gguf() is None:
        sys.exit("The bundled model is missing: run `make run` or install the local extra.")
    await speed()
    for label, cache_mb in [("with per-seat cache", 512), ("without (cache 0 MB)", 0)]:
        first, first_total, second, second_total = await prefix_cache(cache_mb)
        print(
            f"seat A prompt tokens evaluated {label}: turn 1 {first}/{first_total}, "
            f"turn 2 {second}/{second_total} (seat B spoke in between)"
        )


if __name__ == "__main__":
    asyncio.run(main())
