"""Bad input around stores, for the commands the other tests leave out: an endpoint nothing
answers at, missing credentials for a reader and for `accord ctl`, two drivers given different
experiment files on one store, and `--shard` with a plain folder. Each is one line on stderr,
exit code 2, and leaves what the store holds as it was."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

from accord.store import RunStore

Run = Callable[..., subprocess.CompletedProcess[str]]
QUICK = ["run", "negotiation", "--agents", "cooperative,greedy", "--games", "2"]


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    text = result.stderr.strip()
    assert text.count("\n") == 0, text
    return text


def test_an_endpoint_nothing_answers_at(
    bucket: str, s3_env: dict[str, str], tmp_path: Path, accord: Run
) -> None:
    loc = f"{bucket}/runs/kept"
    assert accord(*QUICK, "--out", loc, env=s3_env, cwd=tmp_path).returncode == 0
    before = {e.name: e.size for e in RunStore(loc).list()}
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    gone = {**s3_env, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}
    for args in ([*QUICK, "--out", loc, "--resume"], ["report", loc], ["ctl", loc, "pause"]):
        text = one_line(accord(*args, env=gone, cwd=tmp_path))
        assert "endpoint is reachable" in text and loc in text, text
    assert {e.name: e.size for e in RunStore(loc).list()} == before


def test_missing_credentials_for_readers_and_ctl(
    bucket: str, s3_env: dict[str, str], tmp_path: Path, accord: Run
) -> None:
    loc = f"{bucket}/runs/kept"
    assert accord(*QUICK, "--out", loc, env=s3_env, cwd=tmp_path).returncode == 0
    before = {e.name: e.size for e in RunStore(loc).list()}
    no_keys = {**s3_env, "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""}
    for args in (["report", loc], ["query", loc, "SELECT 1"], ["ctl", loc, "pause"]):
        text = one_line(accord(*args, env=no_keys, cwd=tmp_path))
        assert "No credentials for s3://" in text and "AWS_ACCESS_KEY_ID" in text, text
    assert {e.name: e.size for e in RunStore(loc).list()} == before


def test_two_drivers_with_different_experiment_files(
    bucket: str, s3_env: dict[str, str], tmp_path: Path, accord: Run
) -> None:
    loc = f"{bucket}/runs/shared"
    for name, games in (("a.yaml", 2), ("b.yaml", 3)):
        (tmp_path / name).write_text(
            "name: shared\ndefaults:\n  game: negotiation\n  agents: [cooperative, greedy]\n"
            f"  games: {games}\nbatches:\n  - name: b\n"
        )
    first = accord("run", "a.yaml", "--out", loc, "--shard", "auto", env=s3_env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    before = {e.name: e.size for e in RunStore(loc).list("traces")}
    other = accord("run", "b.yaml", "--out", loc, "--shard", "auto", env=s3_env, cwd=tmp_path)
    text = one_line(other)
    assert "different experiment" in text and "--out" in text, text
    assert {e.name: e.size for e in RunStore(loc).list("traces")} == before
    assert len(before) == 2


def test_shard_with_a_folder_keeps_the_folder_as_it_was(tmp_path: Path, accord: Run) -> None:
    out = tmp_path / "run"
    assert accord(*QUICK, "--out", str(out), env={}, cwd=tmp_path).returncode == 0
    before = sorted(p.name for p in (out / "traces").iterdir())
    text = one_line(
        accord(*QUICK, "--out", str(out), "--shard", "auto", "--resume", env={}, cwd=tmp_path)
    )
    assert "--shard needs --out to be a store location" in text
    assert sorted(p.name for p in (out / "traces").iterdir()) == before
