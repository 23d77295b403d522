"""Every command shown in README.md and docs/*.md, run as written (the fast ones).

The fenced ``bash`` blocks are read from the files, so a command that stops working, or a flag
that is renamed, fails here. Commands that need what a test machine lacks (an API key, a model
server, minutes of the bundled model, a Ray cluster, a server that runs until stopped) are
skipped with their reason, and the list of skipped commands is checked too, so nothing is
skipped silently. Each example stands alone: a ``run`` into a directory an earlier example
filled starts from an empty directory, unless it says ``--resume``.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

SKIP = [
    (r"^make ", "builds the environment (CI runs make test itself)"),
    (r"local/smollm2", "the bundled model takes minutes of CPU (tests/e2e plays it)"),
    (r"openai/|anthropic/|gpt-|openrouter/", "a hosted model needs an API key"),
    (r"openai-compatible", "needs a model server (tests/e2e/test_llama_server.py runs one)"),
    (r"--executor ray", "starts Ray (tests/runner/test_ray_executor.py covers it)"),
    (
        r"--batch\b",
        "needs a provider's batch API (tests/runner/test_batch_mode.py plays a fake one)",
    ),
    (r"accord serve .*--host", "serves other machines (tests bind 127.0.0.1 only)"),
    (r"\bTRACE\b", "a placeholder, not a file"),
    (r"s3://my-bucket", "needs a bucket (tests/store runs these against an S3 test server)"),
    (r"^(llama-server|vllm|python -m (llama_cpp|sglang))", "starts a model server (tests/e2e)"),
    (
        r"^pip |^pytest |^accord (run|report|prompts) .*meeting_room",
        "needs the new game installed (tests/cli/test_new_game.py installs and plays it)",
    ),
]
PLAN_ONLY = ["paper-grid.yaml"]  # thousands of games: planned (--dry-run), not played
SHORTER = {"cooldown_s=1": "cooldown_s=0.01"}
"""Waits a command makes for real, cut short: the flag is kept and works the same, but a test
does not sleep a second per model call (the cooldown itself is tested on a fake clock)."""

EXPERIMENT = """name: docs
defaults:
  game: negotiation
  games: 4
  options: {rounds: 3, talk_turns: 1}
  agents: [mock/schema, greedy]
batches:
  - name: main
"""


def commands() -> list[tuple[str, str]]:
    """(file name, command) of every command line in a bash block."""
    found = []
    for doc in DOCS:
        for block in re.findall(r"```(?:bash|sh)\n(.*?)```", doc.read_text(), re.S):
            for line in block.splitlines():
                line = line.split(" #")[0].strip()
                if line and not line.startswith("#"):
                    found.append((doc.name, line))
    return found


def skip_reason(command: str) -> str | None:
    return next((why for pattern, why in SKIP if re.search(pattern, command)), None)


def accord(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "accord", *args], cwd=cwd, capture_output=True, text=True,
        env={**__import__("os").environ, "COLUMNS": "200"}, timeout=600,
    )  # fmt: skip


def serve_until_it_answers(args: list[str], cwd: Path) -> None:
    """`accord serve ...` as written, on a free port: it must announce itself, answer its page,
    and stop cleanly on Ctrl+C."""
    import os
    import signal
    import socket
    import time
    import urllib.request

    if "--port" in args:
        at = args.index("--port")
        args = args[:at] + args[at + 2 :]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "accord", *args, "--port", str(port)],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "accord serve did not answer"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as page:
                    assert page.status == 200 and b"app.js" in page.read()
                break
            except OSError:
                time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert f"http://127.0.0.1:{port}/" in out, out + err
    if "--play" in args:
        assert f"http://127.0.0.1:{port}/#/play/" in out, out
    assert proc.returncode == 0, out + err
    assert "Traceback" not in err, err


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding exp.yaml and the run directories the docs refer to."""
    cwd = tmp_path_factory.mktemp("docs")
    (cwd / "exp.yaml").write_text(EXPERIMENT)
    shutil.copytree(ROOT / "experiments", cwd / "experiments")
    made = accord(["run", "exp.yaml", "--out", "runs/x"], cwd)
    assert made.returncode == 0, made.stdout + made.stderr
    for name in ("grid", "pilot", "demo", "talk"):
        shutil.copytree(cwd / "runs/x", cwd / "runs" / name)
    # Another agent in seat 0 on the same seeds: a run `accord compare` can pair with grid
    # (a copy of grid would be the same games, which compare refuses).
    (cwd / "extra.yaml").write_text(EXPERIMENT.replace("mock/schema", "cooperative"))
    extra = accord(["run", "extra.yaml", "--out", "runs/extra"], cwd)
    assert extra.returncode == 0, extra.stdout + extra.stderr
    quick = ["run", "negotiation", "--agents", "cooperative,greedy", "--games", "4"]
    notalk = accord(
        [*quick, "-o", "rounds=3", "-o", "cheap_talk=false", "--out", "runs/notalk"], cwd
    )
    assert notalk.returncode == 0, notalk.stdout + notalk.stderr
    return cwd


def test_the_docs_show_commands_and_skip_only_what_needs_outside_things() -> None:
    found = commands()
    assert len(found) >= 30
    skipped = [c for _, c in found if skip_reason(c)]
    # Most examples run; the skipped ones each name why (see SKIP).
    assert len(skipped) < len(found) / 2, skipped


@pytest.mark.parametrize(("doc", "command"), [c for c in commands() if not skip_reason(c[1])],
                         ids=lambda v: v if len(v) < 12 else None)  # fmt: skip
def test_a_documented_command_works(workdir: Path, doc: str, command: str) -> None:
    words = shlex.split(command)
    if words[0] == "inspect":  # Inspect's own command line, with Accord's task and models
        inspect = Path(sys.executable).parent / "inspect"
        done = subprocess.run(
            [str(inspect), *words[1:], "--log-dir", str(workdir / "inspect-logs")],
            cwd=workdir, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
        return
    assert words[0] in ("accord", ".venv/bin/accord"), (doc, command)
    args = [SHORTER.get(w, w) for w in words[1:]]
    if args[0] == "serve":
        serve_until_it_answers(args, workdir)
        return
    if args[0] == "reproduce" and "--smoke" not in args:
        args = [*args, "--dry-run"]  # a paper's full grid takes minutes: planned, not played
    elif args[0] == "run" and any(p in command for p in PLAN_ONLY):
        args = [*[a for a in args if a != "--resume"], "--dry-run"]
    elif args[0] == "run" and "--out" in args and "--resume" not in args:
        shutil.rmtree(workdir / args[args.index("--out") + 1], ignore_errors=True)
    result = accord(args, workdir)
    assert result.returncode == 0, (
        f"{doc}: {command}\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
    )
    assert "Traceback" not in result.stderr
