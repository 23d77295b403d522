"""Before the first game: a game whose prompts cannot fit the context of the server that would
answer them stops the run with the fix (`accord.models.server`).

`check_server_context` asks each server once for its context size. The game is played once
with the offline mock model in the served seats and its longest conversation (the first prompt
plus every turn's growth) is measured on the server as a real model would grow it: each
earlier reply as long as the game's usual reply (`accord.core.game.Game.expected_reply_tokens`,
measured on real models; the stand-in's own reply when that is longer) and room for the reply
being asked for at its full cap. A run that cannot fit even so is refused with the fix; one
that fits only while replies stay near their usual length, not if every one ran to the cap, is
played after a warning (`accord.core.errors.AccordWarning`): a game that outgrows the context
fails with the server's reason, never passes for a result.
"""

from __future__ import annotations

import asyncio
import os
import warnings
from collections.abc import Sequence

from accord.core.errors import AccordWarning, ConfigError
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
    for (model, base_url), (_, prompt, spec, agent) in longest.items():
        # A busy CPU server takes a while to read a long prompt: as long as one call may.
        wait = agent.options.get("timeout_s", 120.0)
        wait = float(wait) if isinstance(wait, int | float) else 120.0
        _check_one(model, base_url, prompt, spec, agent, wait)


_FILL = " ok"
"""One token in every tokenizer we know of: a reply of `n` tokens is ``_FILL * n``."""


def grown(prompt: list[dict[str, str]], earlier: int, cap: int) -> list[dict[str, str]]:
    """`prompt` as a real model would grow it: each earlier reply at least `earlier` tokens
    long (the stand-in's own reply where it is longer), plus room for the reply to it at the
    cap."""
    filler = _FILL * earlier

    def reply(content: str) -> str:
        return content if len(content) >= len(filler) else filler

    longer = [
        {**m, "content": reply(m["content"])} if m["role"] == "assistant" else m for m in prompt
    ]
    return [*longer, {"role": "user", "content": _FILL * cap}]


def worst_case(prompt: list[dict[str, str]], cap: int) -> list[dict[str, str]]:
    """`prompt` at its largest: every earlier reply as long as the reply cap allows, plus room
    for the reply to it."""
    longest = _FILL * cap
    full = [{**m, "content": longest} if m["role"] == "assistant" else m for m in prompt]
    return [*full, {"role": "user", "content": longest}]


def _check_one(
    model: str,
    base_url: str,
    prompt: list[dict[str, str]],
    spec: GameSpec,
    agent: AgentSpec,
    timeout_s: float,
) -> None:
    """Refuse the run when the longest conversation, grown as a real model would grow it (and
    the reply to it at the cap), cannot fit the server's context; warn when it fits only while
    the replies stay near the game's usual length."""
    cap = reply_cap(agent) or game_class(spec.game).reply_tokens
    earlier = min(cap, game_class(spec.game).expected_reply_tokens)
    headers = _auth(agent)
    name = _served_name(model)
    replies = sum(1 for m in prompt if m["role"] == "assistant")
    n_ctx = reported_context(base_url, name, headers=headers)
    worst = worst_case(prompt, cap)
    if n_ctx is not None and sum(len(m["content"]) for m in worst) / _CHARS_PER_TOKEN_LOW <= n_ctx:
        return  # fits even at its worst by a pessimistic estimate: no need to send it
    # llama-cpp-python says no size and refuses only what does not fit; llama.cpp and vLLM
    # refuse it too, naming their size: so the conversation itself is sent, with max_tokens 1.
    usual = grown(prompt, earlier, cap)
    tokens, said = measure_prompt(base_url, name, usual, headers=headers, timeout_s=timeout_s)
    if said is not None:
        n_ctx = said
    if said is None and tokens is not None and n_ctx is None:
        # A server that does not say its size: whether the worst case fits, only it can tell.
        _, n_ctx = measure_prompt(base_url, name, worst, headers=headers, timeout_s=timeout_s)
        if n_ctx is None:
            return  # the worst case fits too
    if n_ctx is None or (tokens is None and said is None):
        return  # the server neither refused it nor said its size
    if said is None and tokens is not None and tokens <= n_ctx:
        _warn_if_cap_overflows(model, base_url, spec, tokens, n_ctx, replies, earlier, cap)
        return
    needed = tokens if tokens is not None and tokens > n_ctx else None
    grows = "does not fit" if needed is None else f"takes {needed} tokens"
    raise ConfigError(
        f"{model} at {base_url}: the longest prompt of {spec.trace_id} holds {replies} earlier "
        f"replies; with each of them about {earlier} tokens long (the game's usual reply) and "
        f"room for the reply to it at max_tokens ({cap}), it {grows} (measured on the "
        f"server): {context_fix(n_ctx, needed)}{_smaller_cap(n_ctx, needed, cap, earlier)}."
    )


def _warn_if_cap_overflows(
    model: str,
    base_url: str,
    spec: GameSpec,
    tokens: int,
    n_ctx: int,
    replies: int,
    earlier: int,
    cap: int,
) -> None:
    """Warn when the conversation that fits would not if every earlier reply ran to the cap:
    each reply that runs longer than usual adds at most ``cap - earlier`` tokens (one
    filler token each, as measured)."""
    worst = tokens + replies * (cap - earlier)
    if worst <= n_ctx:
        return
    warnings.warn(
        f"{model} at {base_url}: with replies of the usual length the longest prompt of "
        f"{spec.trace_id} takes {tokens} of the server's {n_ctx} tokens, but if its {replies} "
        f"earlier replies all ran to max_tokens ({cap}) it would take about {worst}; a game "
        "that outgrows the context fails with the server's reason.",
        AccordWarning,
        stacklevel=2,
    )


def _smaller_cap(n_ctx: int, needed: int | None, cap: int, earlier: int) -> str:
    """``; -M max_tokens=N fits``: the largest reply cap whose conversation fits `n_ctx`
    (earlier replies no longer than the cap, the reply asked for at the cap)."""
    if needed is None:
        return ""
    fits = n_ctx - (needed - cap)
    if fits < earlier:
        return ""  # the earlier replies shrink too: no single figure to offer
    return f"; -M max_tokens={fits} fits" if 32 <= fits < cap else ""


def _auth(agent: AgentSpec) -> dict[str, str]:
    env = agent.options.get("api_key_env")
    key = os.environ.get(env, "") if isinstance(env, str) and env else ""
    return {"Authorization": f"Bearer {key}"} if key else {}
