"""Issue 12 item 3: no key in any file Accord writes, in any encoding.

A local chat server echoes the Authorization header back (in replies and in an error body),
the key sits in a variable whose name gives no hint (`api_key_env: ACCORD_E2E_VAR`), and it
contains a quote and a backslash, so its JSON-escaped form differs from the raw one. After a
run, a replay, an export, a query and a report, every file under the test folder is scanned for
every encoded form, and the Parquet and DuckDB files are read back value by value too.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.core.secrets import encoded_forms, scrub_secrets, secret_option_problem
from accord.runner.specs import AgentSpec

KEY = 'sk-q"uo\\te-7f3e9a1b2c4d'
VAR = "ACCORD_E2E_VAR"  # no KEY/TOKEN/SECRET in the name: found only because a run reads it


@pytest.fixture
def echo_server() -> Iterator[str]:
    """A chat-completions server that repeats the caller's Authorization header."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            auth = self.headers.get("Authorization", "")
            if "/err/" in self.path:
                status, payload = 400, {"error": {"message": f"bad credentials {auth}"}}
            else:
                speech = f"your header was {auth}"
                content = json.dumps({"thinking": auth, "speech": speech, "decision": None})
                payload = {
                    "choices": [{"message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 5},
                }
            data = json.dumps(payload).encode()
            self.send_response(status if "/err/" in self.path else 200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


def _experiment(base: str) -> str:
    seat = (
        "{{model: openai-compatible/echo, "
        "options: {{base_url: '{url}', api_key_env: {var}, max_retries: 0}}}}"
    )
    return f"""
name: leak
defaults:
  game: negotiation
  options: {{rounds: 1, talk_turns: 1}}
batches:
  - name: echo
    agents: [{seat.format(url=base + "/v1", var=VAR)}, cooperative]
  - name: error
    agents: [{seat.format(url=base + "/err/v1", var=VAR)}, cooperative]
"""


def _values(path: Path) -> str:
    """Every value of a Parquet or DuckDB file, as text."""
    con = duckdb.connect()
    try:
        if path.suffix == ".parquet":
            rows = con.execute(f"SELECT * FROM read_parquet('{path}')").fetchall()
        else:
            con.execute(f"ATTACH '{path}' AS db (READ_ONLY)")
            tables = con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'db'"
            ).fetchall()
            rows = [r for (t,) in tables for r in con.execute(f'SELECT * FROM db."{t}"').fetchall()]
    finally:
        con.close()
    return json.dumps(rows, default=str, ensure_ascii=False)


def test_an_echoed_key_in_a_custom_variable_reaches_no_file(
    tmp_path: Path, monkeypatch, cli, echo_server
) -> None:
    monkeypatch.setenv(VAR, KEY)
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "qcache"))
    exp = tmp_path / "exp.yaml"
    exp.write_text(_experiment(echo_server))
    run, cache = tmp_path / "run", tmp_path / "cache"
    # The erroring server fails its game for good (HTTP 400): tolerated, so the run exits 0.
    ran = cli.invoke("run", exp, "--out", run, "--cache", cache, "--max-failures", "1")
    assert ran.exit_code == 0, ran.output
    assert "1 games failed" in ran.output
    outputs = [ran.output]
    for args in (
        ["replay", run / "traces" / "echo-p00-g000.json", "--cache", cache],
        ["export", run, "--parquet"],
        ["report", run],
        ["query", run, "SELECT * FROM events", "--format", "json"],
        ["query", run, "SELECT * FROM messages", "--format", "csv"],
        ["query", run, "SELECT * FROM games"],
    ):
        result = cli.invoke(*args)
        assert result.exit_code == 0, (args, result.output)
        outputs.append(result.output)

    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != exp]
    names = {p.name for p in written}
    assert {"results.jsonl", "summary.json", "experiment.json", "events.parquet"} <= names
    assert any(p.suffix == ".duckdb" for p in written), "the query cache is scanned"
    assert any(p.is_relative_to(cache) for p in written), "the model cache is scanned"
    assert any(p.is_relative_to(run / "report") for p in written), "the report is scanned"
    forms = [f.encode() for f in encoded_forms(KEY)] + [KEY[-10:].encode()]
    for path in written:
        data = path.read_bytes()
        if path.suffix in (".parquet", ".duckdb"):
            data += _values(path).encode()
        for form in forms:
            assert form not in data, f"{form!r} in {path.relative_to(tmp_path)}"
    for text in outputs:
        assert KEY[-10:] not in text
    # The echo did happen: the key was there to leak, and was redacted.
    traces = b"".join(p.read_bytes() for p in (run / "traces").glob("*.json"))
    assert f"[redacted:{VAR}]".encode() in traces


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    # Keys are printable; the text around them is ordinary prose (no escapes of its own).
    secret=st.text(
        st.characters(min_codepoint=32, max_codepoint=126) | st.sampled_from("éü€"),
        min_size=8,
        max_size=24,
    ).filter(lambda s: s == s.strip()),
    before=st.text(
        st.characters(min_codepoint=32, max_codepoint=126, exclude_characters="\\"), max_size=10
    ),
    after=st.text(
        st.characters(min_codepoint=32, max_codepoint=126, exclude_characters="\\"), max_size=10
    ),
)
def test_every_encoding_of_a_secret_is_scrubbed(monkeypatch, secret, before, after) -> None:
    marker = "[redacted:ACCORD_PROP_VAR]"
    if secret in marker or any(secret in f for f in encoded_forms(marker)):
        return
    doc = {"reply": before + secret + after, "nested": [secret]}
    texts = [
        json.dumps(doc),
        json.dumps(doc, ensure_ascii=False),
        json.dumps(json.dumps(doc)),  # a JSON document quoted inside another
        json.dumps(json.dumps(doc, ensure_ascii=False), ensure_ascii=False),
    ]
    with monkeypatch.context() as m:
        m.setenv("ACCORD_PROP_VAR", secret)
        from accord.core.secrets import register_secret_env

        register_secret_env("ACCORD_PROP_VAR")
        for text in texts:
            clean = scrub_secrets(text)
            decoded = json.loads(clean)
            decoded = json.loads(decoded) if isinstance(decoded, str) else decoded
            assert secret not in json.dumps(decoded, ensure_ascii=False).replace(marker, "")


REFUSED = [
    {"extra_params": {"api_token": "abc12345"}},
    {"extra_params": {"password": "hunter2hunter2"}},
    {"extra_params": {"headers": {"Authorization": "Bearer abcdefgh12"}}},
    {"extra_params": {"headers": {"X-Api-Key": "v"}}},
    {"base_url": "https://user:pass@example.com/v1"},
    {"base_url": "https://tok@example.com/v1"},
    {"base_url": "https://example.com/v1?api_key=abc"},
    {"extra_params": {"note": "sk-abcdefghijklmnop"}},
    {"extra_params": {"list": ["x", "ghp_abcdefghijklmnopqrstuvwx"]}},
    {"api_key": "sk-1"},
    {"secret": "x"},
]


@pytest.mark.parametrize("options", REFUSED)
def test_secret_literals_are_refused_with_a_pointer_to_api_key_env(options) -> None:
    with pytest.raises(ValueError, match="api_key_env"):
        AgentSpec(model="openai/x", options=options)
    assert secret_option_problem(options) is not None


@pytest.mark.parametrize(
    "options",
    [
        {"api_key_env": "MY_VAR"},
        {"extra_params": {"max_tokens": 5, "max_completion_tokens": 9, "reasoning_effort": "low"}},
        {"base_url": "http://127.0.0.1:8000/v1"},
    ],
)
def test_ordinary_options_are_accepted(options) -> None:
    assert AgentSpec(model="openai/x", options=options).options == options
