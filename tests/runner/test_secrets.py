"""API keys never appear in any file a run, a replay or a fork writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner.specs import AgentSpec

OPENAI_KEY = "sk-test-openai-4f1c9a7e2b6d"
CUSTOM_KEY = "sk-test-custom-8e3b5d0a1c94"
REPLY = '{"thinking": "", "speech": "hello there", "decision": null}'

EXPERIMENT = f"""
name: secrets
defaults:
  game: negotiation
  games: 2
  options: {{rounds: 2, talk_turns: 1}}
batches:
  - name: hosted
    agents:
      # LiteLLM's own offline mock; the key travels from the environment to the call.
      - {{model: openai/gpt-4o-mini, options: {{extra_params: {{mock_response: '{REPLY}'}}}}}}
      - {{model: mock/schema}}
  - name: custom
    agents:
      - model: anthropic/claude-test
        options:
          api_key_env: ACCORD_TEST_KEY
          # A reply quoting a key, as a provider's error text or an echoing model might.
          extra_params: {{mock_response: 'the key is {CUSTOM_KEY}'}}
      - cooperative
"""


def test_no_file_written_holds_a_key(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ACCORD_TEST_KEY", CUSTOM_KEY)
    exp = tmp_path / "exp.yaml"
    exp.write_text(EXPERIMENT)
    out, cache = tmp_path / "run", tmp_path / "cache"
    cli = CliRunner(env={"COLUMNS": "200"})
    ran = cli.invoke(app, ["run", str(exp), "--out", str(out), "--cache", str(cache)])
    assert ran.exit_code == 0, ran.output
    hosted = out / "traces" / "hosted-p00-g000.json"
    replayed = cli.invoke(app, ["replay", str(hosted), "--cache", str(cache)])
    assert replayed.exit_code == 0, replayed.output
    # The new seat's model answers through LiteLLM's mock too (quoted: the value is YAML).
    fork = ["fork", str(hosted), "--at", "2", "--seat", "1", "--cache", str(cache)]
    mock = ["--model", "openai/gpt-4o-mini", "-o", f"extra_params.mock_response='{REPLY}'"]
    forked = cli.invoke(app, [*fork, *mock])
    assert forked.exit_code == 0, forked.output

    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != exp]
    kinds = {p.parent.name if p.suffix == ".json" else p.name for p in written}
    assert {"traces", "replays", "forks", "results.jsonl"} <= kinds
    assert {"experiment.json", "summary.json"} <= {p.name for p in written}
    assert sum(p.is_relative_to(cache) for p in written) > 4, "cache entries are scanned"
    for path in written:
        data = path.read_bytes()
        for key in (OPENAI_KEY, CUSTOM_KEY):
            assert key.encode() not in data, f"{key} in {path.relative_to(tmp_path)}"
            assert key[-12:].encode() not in data, f"part of {key} in {path}"
    # The quoted key was there to find: it was redacted, not absent.
    assert any(b"[redacted:ACCORD_TEST_KEY]" in p.read_bytes() for p in written)


def test_secret_looking_options_are_refused_even_nested() -> None:
    with pytest.raises(ValueError, match="api_key_env"):
        AgentSpec(model="openai/x", options={"extra_params": {"api_key": "sk-1"}})
    with pytest.raises(ValueError, match="api_key_env"):
        AgentSpec(model="openai/x", options={"api_key": "sk-1"})
    assert AgentSpec(model="openai/x", options={"api_key_env": "MY_KEY"}).options
