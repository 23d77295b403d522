"""How much of each model call's input repeats the same seat's previous call: the share a prompt
cache can serve (printed, never asserted).

Plays one 4-round negotiation (two ``mock/schema`` seats) and one 5-agent calendar game (five
``mock/schema`` assistants) and, from their traces' transcripts, prints per game and seat the
input tokens and the repeated-prefix share (`accord.analysis.prefix`, the same numbers
``accord cost`` shows), and how many calls did not extend the previous call's input
byte for byte (a prefix a cache would miss). With a provider's prices, the saving is about
``share * (1 - cached price / input price)`` of the input cost.

Run:  python bench/bench_prefix_cache.py [--seed 0]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from accord.agents.transcript import expand
from accord.analysis.prefix import common_prefix_chars, seat_cache
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace
from accord.traces.schema import Trace

GAMES = {
    "negotiation, 4 rounds": ("negotiation", {"rounds": 4}, 2),
    "calendar, 5 agents": ("calendar", {"num_agents": 5}, 5),
}


def unstable_calls(trace: Trace, seat: int, name: str) -> int:
    """Calls whose input does not start with the previous call's whole input."""
    messages = trace.transcripts[name].messages
    calls = sorted(
        (e for e in trace.events if e.get("type") == "model_call" and e.get("seat") == seat),
        key=lambda e: int(e.get("call", 0)),
    )
    previous: list[dict[str, object]] = []
    broken = 0
    for event in calls:
        sent = [messages[i] for i in expand(event.get("sent") or [])]
        whole = sum(len(str(m.get("content", ""))) for m in previous)
        broken += bool(previous) and common_prefix_chars(previous, sent) < whole
        previous = sent
    return broken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for label, (game, options, seats) in GAMES.items():
            spec = GameSpec(
                trace_id="g",
                game=game,
                options=options,
                seed=args.seed,
                agents=[AgentSpec(model="mock/schema")] * seats,
            )
            out = Path(tmp) / game
            run_sync([spec], out)
            trace = read_trace(out / "traces" / "g.json")
            rows = seat_cache(trace)
            tokens = sum(r.input_tokens for r in rows)
            repeated = sum(r.repeated_tokens for r in rows)
            calls = sum(r.calls for r in rows)
            share = 100 * repeated / tokens
            print(f"{label}: {trace.status}, {calls} calls, {tokens:,} input tokens, "
                  f"repeated prefix {share:.1f}%")  # fmt: skip
            for seat, row in zip([s for s in trace.seats if s.model], rows, strict=True):
                seat_share = row.repeated_share or 0.0
                print(f"  seat {row.seat:<8} {row.calls:4d} calls {row.input_tokens:8,} tokens  "
                      f"repeated {100 * seat_share:5.1f}%  calls not extending the previous "
                      f"{unstable_calls(trace, seat.seat, seat.name)}")  # fmt: skip


if __name__ == "__main__":
    main()
