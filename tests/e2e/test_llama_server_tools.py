"""Tools mode against llama-cpp-python's server with its function-calling chat format.

``python -m accord.testing.llama_server`` is started on 127.0.0.1 with the bundled SmolLM2 GGUF
and ``--chat_format chatml-function-calling``, and a short negotiation and a short calendar game
are played through the ``openai-compatible/`` provider in tools mode. The tiny model does not
always call a tool; what must hold is that every call offered the tools, that the server's
tool calls (where it made them) reached the trace, and that the game ended honestly.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
from collections.abc import Iterator
from typing import Any

import pytest

from accord.models.local import bundled_gguf
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.llama_server import running

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("sse_starlette") is None
        or bundled_gguf() is None,
        reason="the server extra is not installed (make test installs it)",
    ),
]

ALIAS = "smollm2"


@pytest.fixture(scope="module")
def tool_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("llama-tools") / "server.log"
    threads = str(max(os.cpu_count() or 1, 1))
    args = ("--chat_format", "chatml-function-calling", "--n_ctx", "8192", "--n_threads", threads)
    with running(log, *args, alias=ALIAS) as base:
        yield base


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        pytest.param(
            "negotiation",
            2,
            {"rounds": 1, "talk_turns": 1, "ratio": 0.8},
            # Known open defect: with the tools-mode prompt, the bundled model behind
            # llama-cpp-python's function-calling format does not answer a negotiation turn
            # within 300 s (measured); kept running so the day it passes is seen.
            marks=pytest.mark.xfail(reason="tools-mode negotiation times out on this server"),
        ),
        (
            "calendar",
            2,
            {
                "num_agents": 2,
                "max_turns_per_round": 1,
                "num_meetings": 1,
                "decision_retries": 0,
            },
        ),
    ],
)
def test_short_game_in_tools_mode(tool_server: str, game: str, seats: int, options: Any) -> None:
    seat = AgentSpec(
        model="openai-compatible/" + ALIAS,
        action_mode="tools",
        temperature=0.7,
        # Bounded work on a loaded machine: the fewest seats and requests each game allows,
        # short replies (a tool call is a few dozen tokens), no client retry.
        max_tokens=64,
        options={"base_url": tool_server, "max_retries": 0, "timeout_s": 300},
    )
    spec = GameSpec(
        trace_id=f"{game}-tools", game=game, options=options, seed=0, agents=[seat] * seats
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    assert trace.agents_config[0]["action_mode"] == "tools"
    calls = [e for e in trace.events if e["type"] == "model_call"]
    assert calls and all(c["tools"] and "tool_calls" in c for c in calls)
    made = [t for c in calls for t in c["tool_calls"]]
    print(f"{game}: {len(calls)} calls, {len(made)} tool calls: {[t['name'] for t in made]}")
    assert all(t["name"] for t in made)
    for name, transcript in trace.transcripts.items():
        stored = [m for m in transcript.messages if m.get("tool_calls")]
        assert len(stored) <= len(made), name
