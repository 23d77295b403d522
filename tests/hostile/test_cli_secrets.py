"""Issue 25 "Secrets": credentials given on the command line are refused exactly like those in
an experiment file, no command line is recorded unscrubbed, and hex and base64 echoes of a key
are scrubbed like its other encodings."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import stat
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core.secrets import register_secret_env, scrub_command_line, scrub_secrets
from accord.runner.lock import LOCK_NAME, RunLock

PASSWORD = "Pa55w0rd-q7z9x"
QUICK = ["run", "negotiation", "--model", "openai-compatible/default", "-o", "rounds=1"]

CASES = {
    "userinfo": ["--model-base-url", f"http://alice:{PASSWORD}@127.0.0.1:9/v1"],
    "query key": ["--model-base-url", f"http://127.0.0.1:9/v1?api_key={PASSWORD}"],
    "-M base_url": ["-M", f"base_url=http://alice:{PASSWORD}@127.0.0.1:9/v1"],
    "-M header": ["-M", f"extra_params.headers.Authorization=Bearer {PASSWORD}"],
    "-M password": ["-M", f"extra_params.password={PASSWORD}"],
    "-M mapping": ["-M", f"extra_params={{headers: {{X-Api-Key: {PASSWORD}}}}}"],
    "-M token value": ["-M", f"extra_params.note=sk-{PASSWORD}"],
}


@pytest.mark.parametrize("command", ["run", "play", "fork", "judge"])
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_command_line_secrets_are_refused_and_written_nowhere(
    tmp_path: Path, cli, run_dir: Path, command: str, case: str
) -> None:
    out = tmp_path / "out"
    trace = run_dir / "traces" / "b-g000.json"
    base = {
        "run": [*QUICK, "--out", out],
        "play": ["play", "negotiation", "--against", "openai-compatible/default"],
        "fork": [
            "fork", trace, "--at", "1", "--seat", "0", "--model", "openai-compatible/default",
            "--out", out,
        ],
        "judge": ["judge", run_dir, "--model", "openai-compatible/default", "--out", out],
    }[command]  # fmt: skip
    result = cli.invoke(*base, *CASES[case])
    cli.error(result, "api_key_env")
    assert PASSWORD not in result.output
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path


def test_the_lock_file_is_private_and_holds_a_scrubbed_command_line(
    tmp_path: Path, monkeypatch
) -> None:
    argv = [
        "accord", "run", "x", "--model-base-url", f"http://u:{PASSWORD}@h/v1?token={PASSWORD}",
        "-M", f"extra_params.headers.Authorization=Bearer {PASSWORD}", "--api-key", PASSWORD,
        "-M", f"extra_params={{\"password\": \"{PASSWORD}\", \"max_tokens\": 5}}",
    ]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    lock_path = tmp_path / "run" / LOCK_NAME
    lock_path.parent.mkdir()
    lock_path.write_text("{}")
    lock_path.chmod(0o644)  # as older versions left it
    lock = RunLock.acquire(tmp_path / "run")
    try:
        assert stat.S_IMODE(os.stat(lock_path).st_mode) == 0o600
        text = lock_path.read_text()
        assert PASSWORD not in text
        record = json.loads(text)
        assert "max_tokens" in record["command"] and "[redacted]" in record["command"]
    finally:
        lock.release()
    assert PASSWORD not in lock_path.read_text()


def test_scrub_command_line_keeps_ordinary_arguments() -> None:
    argv = ["accord", "run", "negotiation", "-M", "timeout_s=30", "-M", "max_tokens=5",
            "--model-base-url", "http://127.0.0.1:8000/v1", "--out", "runs/key-study"]  # fmt: skip
    assert scrub_command_line(argv) == " ".join(argv)


@settings(max_examples=150)
@given(
    key=st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=40),
    before=st.binary(max_size=7),
    after=st.binary(max_size=7),
    urlsafe=st.booleans(),
)
def test_hex_and_base64_echoes_of_a_key_are_scrubbed(
    key: str, before: bytes, after: bytes, urlsafe: bool
) -> None:
    os.environ["ACCORD_B64_VAR"] = key
    try:
        register_secret_env("ACCORD_B64_VAR")
        raw = before + key.encode() + after
        encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
        for text in (encode(raw).decode(), raw.hex(), raw.hex().upper()):
            clean = scrub_secrets(text)
            assert "[redacted:ACCORD_B64_VAR]" in clean
            # Nothing left decodes back to the key.
            for part in clean.split("[redacted:ACCORD_B64_VAR]"):
                assert key not in _decodings(part)
    finally:
        del os.environ["ACCORD_B64_VAR"]


def _decodings(part: str) -> str:
    out = []
    for k in range(4):
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            chunk = part[k:]
            with contextlib.suppress(ValueError):
                out.append(decode(chunk + "=" * (-len(chunk) % 4)).decode("latin-1"))
    with contextlib.suppress(ValueError):
        out.append(bytes.fromhex(part).decode("latin-1"))
    return "\n".join(out)


@pytest.fixture
def encoding_echo() -> Iterator[str]:
    """A chat server whose replies carry the caller's key as hex and as base64."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            key = self.headers.get("Authorization", "").removeprefix("Bearer ").encode()
            speech = f"hex {key.hex()} b64 {base64.b64encode(b'x' + key).decode()}"
            content = json.dumps({"thinking": speech, "speech": speech, "decision": None})
            data = json.dumps(
                {
                    "choices": [{"message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 5},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_encoded_echoes_reach_no_trace_and_no_cache(
    tmp_path: Path, cli, monkeypatch, encoding_echo: str
) -> None:
    key = "k3y-VALUE-0123456789abcdef"
    monkeypatch.setenv("ACCORD_ECHO_VAR", key)
    run, cache = tmp_path / "run", tmp_path / "cache"
    result = cli.invoke(
        *QUICK, "--model-base-url", encoding_echo, "-M", "api_key_env=ACCORD_ECHO_VAR",
        "-M", "max_retries=0", "--games", "1", "--out", run, "--cache", cache,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.is_relative_to(cache) for p in written)
    b64 = base64.b64encode(b"x" + key.encode()).decode()
    for path in written:
        data = path.read_text(errors="replace")
        assert key.encode().hex() not in data, path
        assert b64[2:-2] not in data, path
    traces = "".join(p.read_text() for p in (run / "traces").glob("*.json"))
    assert "[redacted:ACCORD_ECHO_VAR]" in traces
