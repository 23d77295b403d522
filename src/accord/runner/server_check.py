"""Before the first game: a game whose prompts cannot fit the context of the server that would
answer them stops the run with the fix (`accord.models.server`).

`check_server_context` asks each server once for its context size and refuses a run whose
longest prompt plus the reply cap cannot fit: the game is played once with the offline mock
model in the served seats, and the longest conversation it sends (the first prompt plus every
turn's growth) is measured on the server."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence

from accord.core.errors import ConfigError
from accord.core.registry import game_class
from accord.models.server import context_fix, is_server_model, measure_prompt, reported_context
from accord.runner.reply_budget import reply_cap
from accord.runner.specs import AgentSpec, GameSpec

_CHARS_PER_TOKEN_LOW = 2.0
"""Fewer characters per token than any chat template and tokenizer we know of: a prompt this
pessimistic estimate says fits is not measured on the server."""


def _base_url(agent: AgentSpec) -> str | None:
    url = agent.options.get("base_url")
    if isinstance(url, str) and url:
        return url
    if agent.model is not None and agent.model.startswith("hosted_vllm/"):
        return os.environ.get("HOSTED_VLLM_API_BASE") or None
    return None


def _served_name(model: str) -> str:
    # The name the server knows: what follows the provider (and litellm's inner provider).
    rest = model.split("/", 1)[1]
    if model.startswith("litellm/") and "/" in rest:
        rest = rest.split("/", 1)[1]
    return rest


def _longest_prompt(spec: GameSpec, seats: set[int]) -> list[dict[str, str]] | None:
    """The longest conversation the game sends one of `seats`: the game played once with the
    offline mock model in those seats (replies of a valid shape and plausible length), so a
    conversation that grows past the context is caught before the first game, not in it."""
    from concurrent.futures import ThreadPoolExecutor

    from accord.agents.transcript import expand
    from accord.runner.play import play_game

    stand_in = [
        AgentSpec(model="mock/schema", label=a.display) if i in seats else a
        for i, a in enumerate(spec.agents)
    ]
    game = spec.model_copy(update={"agents": stand_in})
    # The caller may be inside an event loop (run_specs): play on a loop of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        trace = pool.submit(asyncio.run, play_game(game)).result()
    names = {info.seat: info.name for info in trace.seats}
    best: list[dict[str, str]] | None = None
    best_size = -1
    for event in trace.events:
        if event.get("type") != "model_call" or event.get("seat") not in seats:
            continue
        transcript = trace.transcripts.get(names[event["seat"]])
        if transcript is None:
            continue
        sent = [transcript.messages[i] for i in expand(event.get("sent", []))]
        messages = [{"role": str(m["role"]), "content": str(m["content"])} for m in sent]
        size = sum(len(m["content"]) for m in messages)
        if size > best_size:
            best, best_size = messages, size
    return best


def check_server_context(specs: Sequence[GameSpec]) -> None:
    """Refuse, before any game, a run whose prompts plus reply cap cannot fit the context of
    the server that would answer them (its first prompt included).

    Each server (model and base URL) is asked once, with the longest conversation among the
    distinct game setups that seat it. A server that neither says its context size nor
    refuses that conversation passes.

    Raises:
        ConfigError: one line with the prompt size, the context size and the fix.
    """
    longest: dict[tuple[str, str], tuple[int, list[dict[str, str]], GameSpec, AgentSpec]] = {}
    seen: set[tuple[str, str, str]] = set()
    for spec in specs:
        served = {
            i: a
            for i, a in enumerate(spec.agents)
            if a.model is not None and is_server_model(a.model, a.options) and _base_url(a)
        }
        if not served:
            continue
        setup = (spec.game, spec.model_dump_json(include={"options", "agents"}), "")
        if setup in seen:
            continue
        seen.add(setup)
        prompt = _longest_prompt(spec, set(served))
        if prompt is None:
            continue
        size = sum(len(m["content"]) for m in prompt)
        for agent in served.values():
            key = (str(agent.model), str(_base_url(agent)))
            if key not in longest or size > longest[key][0]:
                longest[key] = (size, prompt, spec, agent)
    for (model, base_url), (size, prompt, spec, agent) in longest.items():
        # A busy CPU server takes a while to read a long prompt: as long as one call may.
        wait = agent.options.get("timeout_s", 120.0)
        wait = float(wait) if isinstance(wait, int | float) else 120.0
        _check_one(model, base_url, size, prompt, spec, agent, wait)


def _check_one(
    model: str,
    base_url: str,
    size: int,
    prompt: list[dict[str, str]],
    spec: GameSpec,
    agent: AgentSpec,
    timeout_s: float,
) -> None:
    cap = reply_cap(agent) or game_class(spec.game).reply_tokens
    headers = _auth(agent)
    name = _served_name(model)
    n_ctx = reported_context(base_url, name, headers=headers)
    if n_ctx is not None and size / _CHARS_PER_TOKEN_LOW + cap <= n_ctx:
        return  # fits even by a pessimistic estimate: no need to send it
    tokens, said = measure_prompt(base_url, name, prompt, headers=headers, timeout_s=timeout_s)
    if said is None and n_ctx is None and tokens is not None:
        # The server did not say its size (llama-cpp-python). It refuses only a prompt that
        # does not fit (and silently shortens replies), so ask again with room for a reply
        # taken by filler: only the filler is new to its prompt cache.
        filler = [*prompt, {"role": "user", "content": " ok" * cap}]
        _, said = measure_prompt(base_url, name, filler, headers=headers, timeout_s=timeout_s)
        if said is None:
            return  # the longest prompt and a full reply fit
    if said is not None:
        n_ctx = said
    if n_ctx is None or (tokens is None and said is None):
        return
    if tokens is None or said is not None or tokens + cap > n_ctx:
        size_text = f"is {tokens} tokens" if tokens is not None else "does not fit"
        raise ConfigError(
            f"{model} at {base_url}: the prompts of {spec.trace_id} grow to one that {size_text} "
            f"(measured on the server with a stand-in's replies) and each reply may take {cap} "
            "more: " + context_fix(n_ctx, (tokens or n_ctx) + cap) + "."
        )


def _auth(agent: AgentSpec) -> dict[str, str]:
    env = agent.options.get("api_key_env")
    key = os.environ.get(env, "") if isinstance(env, str) and env else ""
    return {"Authorization": f"Bearer {key}"} if key else {}
