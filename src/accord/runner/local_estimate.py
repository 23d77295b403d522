"""A rough time estimate before a run of the bundled model, from its speed measured here.

The bundled model runs on this machine's CPU, one call at a time, so a run's time is its
work divided by the model's speed. Both are measured before the first game:

* **Work**: one game of each distinct setup is played at once with the offline mock model in
  the bundled model's seats, counting each seat's calls, the prompt tokens it adds (the local
  model keeps each conversation's evaluated prompt, so a turn evaluates only what is new) and
  the replies' tokens, capped by the seat's ``max_tokens``.
* **Speed**: after a call that loads the model, two timed calls: a prompt of about 200
  tokens with a one-token reply (prompt tokens per second), then a 32-token reply in the same
  conversation (reply tokens per second).

It is rough (a real model's replies differ in length from the mock's, a busy machine is
slower) and printed as such; the ETA beside the progress bar refines it as games end.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accord.models.base import Message
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.events import ModelCall
from accord.traces.schema import Trace

_PROBE_TEXT = " ".join(["Alice offers two units of wood for three units of stone."] * 16)


@dataclass(frozen=True)
class Speed:
    """Measured tokens per second of a model on this machine."""

    prompt_tps: float
    reply_tps: float


@dataclass(frozen=True)
class Work:
    """Tokens the bundled model would evaluate and generate over a run."""

    games: int
    calls: int
    prompt_tokens: int
    reply_tokens: int

    def seconds(self, speed: Speed) -> float:
        """Time for this work at `speed`."""
        return self.prompt_tokens / speed.prompt_tps + self.reply_tokens / speed.reply_tps


def is_local(agent: AgentSpec) -> bool:
    """A seat played by the bundled (in-process) model."""
    return agent.model is not None and agent.model.startswith("local/")


def first_local(specs: Sequence[GameSpec]) -> AgentSpec | None:
    """The first seat of `specs` played by the bundled model."""
    return next((a for s in specs for a in s.agents if is_local(a)), None)


def local_work(specs: Sequence[GameSpec]) -> Work | None:
    """The bundled model's work over `specs` (one mock game per distinct setup), or None when
    no seat uses it."""
    local = [s for s in specs if any(is_local(a) for a in s.agents)]
    if not local:
        return None
    per_setup: dict[str, tuple[int, int, int]] = {}
    calls = prompt = reply = 0
    for spec in local:
        key = spec.model_dump_json(include={"game", "options", "agents"})
        if key not in per_setup:
            per_setup[key] = _simulate(spec)
        c, p, r = per_setup[key]
        calls, prompt, reply = calls + c, prompt + p, reply + r
    return Work(games=len(local), calls=calls, prompt_tokens=prompt, reply_tokens=reply)


def _simulate(spec: GameSpec) -> tuple[int, int, int]:
    from accord.runner.play import play_game

    caps = {i: a.max_tokens or 256 for i, a in enumerate(spec.agents) if is_local(a)}
    mock = [
        AgentSpec(model="mock/schema", label=a.display) if is_local(a) else a for a in spec.agents
    ]
    trace = asyncio.run(play_game(spec.model_copy(update={"agents": mock})))
    return _count(trace, caps)


def _count(trace: Trace, caps: dict[int, int]) -> tuple[int, int, int]:
    calls = prompt = reply = 0
    last_input: dict[int, int] = {}
    for event in trace.events:
        if not isinstance(event, ModelCall) or event.seat not in caps:
            continue
        seat = event.seat
        calls += 1
        size = event.input_tokens
        # Only the part of the prompt the seat's conversation has not evaluated yet.
        grown = size - last_input.get(seat, 0)
        prompt += grown if grown > 0 else size  # a reset conversation starts over
        last_input[seat] = size
        reply += min(int(event.get("output_tokens", 0)), caps[seat])
    return calls, prompt, reply


def measure_speed(model: str = "local/smollm2", **options: Any) -> Speed:
    """The bundled model's prompt and reply speed on this machine (two short calls)."""
    from accord.models import get_model

    client = get_model(model, **options)
    messages: list[Message] = [{"role": "user", "content": _PROBE_TEXT}]

    async def calls() -> tuple[float, int, float, int]:
        # Untimed: the first call loads the model.
        await client.complete([{"role": "user", "content": "Hi"}], max_tokens=1, session="w")
        start = time.perf_counter()
        first = await client.complete(messages, max_tokens=1, session="accord-speed")
        mid = time.perf_counter()
        second = await client.complete(
            messages, max_tokens=32, temperature=0.0, session="accord-speed"
        )
        end = time.perf_counter()
        return (
            mid - start,
            first.usage.input_tokens,
            end - mid,
            max(second.usage.output_tokens, 1),
        )

    prompt_s, prompt_tokens, reply_s, reply_tokens = asyncio.run(calls())
    return Speed(
        prompt_tps=max(prompt_tokens, 1) / max(prompt_s, 1e-3),
        reply_tps=reply_tokens / max(reply_s, 1e-3),
    )


def estimate_text(work: Work, speed: Speed) -> str:
    """One line for the terminal: the measured speed and the rough time it gives."""
    minutes = work.seconds(speed) / 60
    rough = f"about {minutes:.0f} minutes" if minutes >= 1.5 else "about a minute or less"
    return (
        f"The bundled model runs here at about {speed.prompt_tps:.0f} prompt and "
        f"{speed.reply_tps:.0f} reply tokens/s; its {work.games} games ({work.calls} calls) "
        f"should take {rough}, one call at a time (a rough estimate: the ETA refines it)."
    )
