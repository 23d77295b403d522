"""Before the first game: served models get a reply budget, and a first prompt that cannot fit
the server's context stops the run with the fix (`accord.models.server`).

`with_reply_budget` fills a served seat's ``max_tokens`` with the game's default when neither
the seat nor its options set one, so the trace's ``agents_config`` states the cap each call
used and a replay uses it again. `check_server_context` asks each server once for its context
size and refuses a run whose longest first prompt plus that cap cannot fit.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from accord.core.errors import ConfigError
from accord.core.registry import game_class, make
from accord.models.server import (
    context_fix,
    is_server_model,
    measure_prompt,
    reported_context,
)
from accord.runner.specs import AgentSpec, GameSpec

_CHARS_PER_TOKEN_LOW = 2.0
"""Fewer characters per token than any chat template and tokenizer we know of: a prompt this
pessimistic estimate says fits is not measured on the server."""


def reply_cap(agent: AgentSpec) -> int | None:
    """The ``max_tokens`` a seat asks for: its own, else its model options'."""
    if agent.max_tokens is not None:
        return agent.max_tokens
    value = agent.options.get("max_tokens")
    return int(value) if isinstance(value, int) else None


def with_reply_budget(spec: GameSpec) -> GameSpec:
    """`spec` with the game's ``reply_tokens`` as ``max_tokens`` of each served seat that sets
    no cap (Game.reply_tokens); other seats are unchanged."""
    agents = [budgeted(a, spec.game) for a in spec.agents]
    if all(new is old for new, old in zip(agents, spec.agents, strict=True)):
        return spec
    return spec.model_copy(update={"agents": agents})


def budgeted(agent: AgentSpec, game: str) -> AgentSpec:
    """`agent` with `game`'s ``reply_tokens`` as its ``max_tokens`` if it is a served model
    that sets no cap; otherwise `agent` itself."""
    if agent.model is None or reply_cap(agent) is not None:
        return agent
    if not is_server_model(agent.model, agent.options):
        return agent
    return agent.model_copy(update={"max_tokens": game_class(game).reply_tokens})


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


def _first_prompt(spec: GameSpec, seats: set[int]) -> list[dict[str, str]] | None:
    """The longest first prompt the game sends one of `seats` (system prompt and first
    observation, as `accord.agents.llm.LLMAgent` sends them)."""
    game = make(spec.game, spec.options)
    game.bind_models([a.model for a in spec.agents])
    game.reset(spec.seed)
    prompts = [
        [
            {"role": "system", "content": r.system or ""},
            {"role": "user", "content": r.observation},
        ]
        for r in game.pending()
        if r.seat in seats
    ]
    return max(prompts, key=lambda p: sum(len(m["content"]) for m in p), default=None)


def check_server_context(specs: Sequence[GameSpec], *, probe_timeout_s: float = 60.0) -> None:
    """Refuse, before any game, a run whose first prompt plus reply cap cannot fit the context
    of the server that would answer it.

    Each server (model and base URL) is asked once, with the longest first prompt among the
    distinct game setups that seat it. Servers that do not say their context size pass.

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
        prompt = _first_prompt(spec, set(served))
        if prompt is None:
            continue
        size = sum(len(m["content"]) for m in prompt)
        for agent in served.values():
            key = (str(agent.model), str(_base_url(agent)))
            if key not in longest or size > longest[key][0]:
                longest[key] = (size, prompt, spec, agent)
    for (model, base_url), (size, prompt, spec, agent) in longest.items():
        _check_one(model, base_url, size, prompt, spec, agent, probe_timeout_s)


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
    if said is not None:  # refused with max_tokens 1: the prompt alone does not fit
        n_ctx = said
    if n_ctx is None or (tokens is None and said is None):
        return
    if tokens is None or said is not None or tokens + cap > n_ctx:
        size_text = f"is {tokens} tokens" if tokens is not None else "does not fit"
        raise ConfigError(
            f"{model} at {base_url}: the first prompt of {spec.trace_id} {size_text} and each "
            f"reply may take {cap} more: " + context_fix(n_ctx, (tokens or n_ctx) + cap) + "."
        )


def _auth(agent: AgentSpec) -> dict[str, str]:
    env = agent.options.get("api_key_env")
    key = os.environ.get(env, "") if isinstance(env, str) and env else ""
    return {"Authorization": f"Bearer {key}"} if key else {}
