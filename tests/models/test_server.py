"""Served models: the default reply cap, the context check before the first game, and the
fixes printed for context-length errors, uncapped timeouts and a vLLM model without a URL."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.errors import ModelError
from accord.models.client import RetriesExhaustedError
from accord.models.mock import MockModel
from accord.models.openai_compatible import OpenAICompatibleModel
from accord.models.options import ModelOptions
from accord.models.server import context_error, is_server_model
from accord.testing.served import prompt_tokens, served_model
from accord.traces.io import iter_traces

runner = CliRunner(env={"COLUMNS": "200"})
SHORT = ["-o", "rounds=1", "-o", "talk_turns=1", "-M", "max_retries=0"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (
            "This model's maximum context length is 2048 tokens. However, you requested 2120 "
            "tokens (2120 in the messages, None in the completion).",
            (2048, 2120),
        ),
        (
            "This model's maximum context length is 4096 tokens. However, you requested 5000 "
            "tokens in total.",
            (4096, 5000),
        ),
        ("the request exceeds the available context size (2048 tokens)", (2048, None)),
        ("Requested tokens (3000) exceed context window of 2048", (2048, None)),
        ("rate limited", None),
    ],
)
def test_context_errors_are_recognised(text: str, found: tuple[int, int | None] | None) -> None:
    assert context_error(text) == found


def test_which_models_are_served() -> None:
    assert is_server_model("openai-compatible/q") and is_server_model("hosted_vllm/q")
    assert is_server_model("litellm/hosted_vllm/q")
    assert is_server_model("openai/q", {"base_url": "http://127.0.0.1:1/v1"})
    assert not is_server_model("openai/gpt-5-mini") and not is_server_model("local/smollm2")


def _run(tmp_path: Path, model: str, url: str | None, *extra: str) -> object:
    args = ["run", "negotiation", "--model", model, "--out", str(tmp_path / "run"), *SHORT]
    if url is not None:
        args += ["--model-base-url", url]
    return runner.invoke(app, [*args, *extra])


def test_hosted_vllm_without_a_base_url_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("HOSTED_VLLM_API_BASE", raising=False)
    result = _run(tmp_path, "hosted_vllm/q", None)
    assert result.exit_code == 2, result.output
    assert "hosted_vllm/q needs base_url" in result.output and "--model-base-url" in result.output
    assert not (tmp_path / "run").exists()


def test_served_models_get_the_games_reply_cap_stated_in_the_trace(tmp_path: Path) -> None:
    with served_model() as server:
        result = _run(tmp_path, "openai-compatible/fake", server.url)
    assert result.exit_code == 0, result.output
    # The first requests measure the game's longest prompt (max_tokens 1): no /props here.
    assert server.chats[0]["max_tokens"] == 1
    games = [c for c in server.chats if c["max_tokens"] != 1]
    assert games and all(c["max_tokens"] == 512 for c in games)
    (trace,) = iter_traces(tmp_path / "run" / "traces")
    assert {a["max_tokens"] for a in trace.agents_config} == {512}


def test_an_explicit_cap_wins(tmp_path: Path) -> None:
    with served_model() as server:
        result = _run(tmp_path, "openai-compatible/fake", server.url, "--max-tokens", "77")
    assert result.exit_code == 0, result.output
    assert {c["max_tokens"] for c in server.chats} == {1, 77}


@pytest.mark.parametrize(
    ("report_context", "prompt_only"), [(True, False), (False, False), (False, True)]
)
def test_a_game_that_cannot_fit_stops_the_run_before_any_game(
    tmp_path: Path, report_context: bool, prompt_only: bool
) -> None:
    # 600 tokens: less than a negotiation game's first prompt.
    with served_model(n_ctx=600, report_context=report_context, prompt_only=prompt_only) as server:
        result = _run(tmp_path, "openai-compatible/fake", server.url)
    assert result.exit_code == 2, result.output
    line = " ".join(result.output.split())
    assert "the server's context is 600 tokens" in line
    assert "start the server with a larger context" in line and "--n_ctx" in line
    assert "max_tokens" in line
    assert not (tmp_path / "run").exists(), "nothing written"
    # Only measuring requests (max_tokens 1) reached the server: no game started.
    assert all(c["max_tokens"] == 1 for c in server.chats) and len(server.chats) <= 2


def test_a_game_outgrowing_a_silent_server_is_caught_at_its_worst(tmp_path: Path) -> None:
    # Like llama-cpp-python: no size reported, replies shortened in silence.
    with served_model(n_ctx=100_000, report_context=False, prompt_only=True) as roomy:
        fine = _run(tmp_path / "roomy", "openai-compatible/fake", roomy.url)
    assert fine.exit_code == 0, fine.output
    # The one measure before the games is the longest conversation at its worst: every earlier
    # reply, and room for the reply to it, as long as max_tokens allows (runner/server_check).
    worst = roomy.chats[0]["messages"]
    assert "ok ok" in worst[-1]["content"]
    assert all("ok ok" in m["content"] for m in worst if m["role"] == "assistant")
    needed = prompt_tokens(worst)
    with served_model(n_ctx=needed - 1, report_context=False, prompt_only=True) as server:
        result = _run(tmp_path, "openai-compatible/fake", server.url)
    line = " ".join(result.output.split())
    assert result.exit_code == 2, line
    assert f"the server's context is {needed - 1} tokens" in line
    assert len(server.chats) == 1, "refused after the one measure, before any game"


def test_a_server_reporting_room_enough_is_not_sent_anything_before_the_games(
    tmp_path: Path,
) -> None:
    with served_model(n_ctx=100_000) as server:
        result = _run(tmp_path, "openai-compatible/fake", server.url)
    assert result.exit_code == 0, result.output
    assert server.chats and all(c["max_tokens"] == 512 for c in server.chats)


def test_a_context_error_during_a_game_names_the_fix() -> None:
    async def go() -> None:
        with served_model(n_ctx=50) as server:
            model = OpenAICompatibleModel(
                "openai-compatible/fake", ModelOptions(base_url=server.url, max_retries=0)
            )
            try:
                await model.complete([{"role": "user", "content": "x" * 400}], max_tokens=16)
            finally:
                await model.aclose()

    with pytest.raises(ModelError) as info:
        asyncio.run(go())
    text = str(info.value)
    assert "context is 50 tokens" in text and "start the server with a larger context" in text


def test_an_uncapped_call_that_times_out_says_to_set_max_tokens() -> None:
    opts = {"fault_rate": 1.0, "faults": ("timeout",), "max_retries": 1, "backoff_base_s": 0}
    model = MockModel(model="schema", options=ModelOptions(**opts))
    with pytest.raises(RetriesExhaustedError, match="set max_tokens"):
        asyncio.run(model.complete([{"role": "user", "content": "hi"}]))
    with pytest.raises(RetriesExhaustedError, match="raise max_retries"):
        asyncio.run(model.complete([{"role": "user", "content": "hi"}], max_tokens=10))


def test_the_default_cap_is_stated_in_run_help() -> None:
    from accord.core.registry import game_class

    result = runner.invoke(app, ["run", "--help"])
    text = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 0
    negotiation = game_class("negotiation").reply_tokens
    calendar, sorting = game_class("calendar").reply_tokens, game_class("sorting").reply_tokens
    assert f"{negotiation} tokens for negotiation" in text
    assert calendar == sorting and f"{calendar} for calendar and sorting" in text
