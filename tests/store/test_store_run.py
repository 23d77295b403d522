"""A run kept in an S3-compatible store (moto's server on 127.0.0.1): written, refused when it
would mix runs, killed with ``kill -9`` and resumed, with damaged and hostile objects in the
bucket, and no secret in any object in any encoding."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from accord.core.secrets import encoded_forms
from accord.store import Lease, LeaseHeldError, RunStore
from accord.store.lease import is_live, read_record

Run = Callable[..., subprocess.CompletedProcess[str]]
Start = Callable[..., subprocess.Popen[bytes]]
QUICK = ["run", "negotiation", "--agents", "cooperative,greedy", "--games", "3"]
SLOW = ["run", "negotiation", "--model", "mock/schema", "-M", "latency_s=0.05", "--games", "4"]


def wait_for(check: Callable[[], bool], what: str, timeout: float = 180) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def trace_names(store: RunStore) -> list[str]:
    return [e.name for e in store.list("traces")]


def test_a_run_lives_in_the_store_and_refuses_to_mix(
    bucket: str, s3_env: dict[str, str], tmp_path: Path, accord: Run
) -> None:
    loc = f"{bucket}/runs/demo"
    ran = accord(*QUICK, "--out", loc, env=s3_env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert f"Traces: {loc}/traces" in ran.stdout
    store = RunStore(loc)
    names = trace_names(store)
    assert names == [f"traces/negotiation-p00-g00{i}.json" for i in range(3)]
    assert {"experiment.json", "results.jsonl", "summary.json"} <= {e.name for e in store.list()}
    rows = (store.read("results.jsonl") or b"").decode().splitlines()
    assert len(rows) == 6  # a row per seat per game
    assert list(tmp_path.iterdir()) == [], "nothing is written in the working directory"

    again = accord(*QUICK, "--out", loc, env=s3_env, cwd=tmp_path)
    assert again.returncode == 2
    assert f"error: {loc} already holds 3 traces. Use --resume" in again.stderr
    other = accord(*QUICK[:-1], "4", "--out", loc, "--resume", env=s3_env, cwd=tmp_path)
    assert other.returncode == 2
    assert "different experiment" in other.stderr
    assert trace_names(store) == names  # nothing lost, nothing overwritten


def test_bad_store_input_is_one_line_and_exit_2(
    bucket: str, s3_env: dict[str, str], tmp_path: Path, accord: Run
) -> None:
    missing = accord(*QUICK, "--out", "s3://no-such-bucket-here/run", env=s3_env, cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip().count("\n") == 0, missing.stderr  # one line
    assert "error: Cannot reach s3://no-such-bucket-here/run: NoSuchBucket" in missing.stderr
    no_keys = {**s3_env, "AWS_ACCESS_KEY_ID": ""}
    creds = accord(*QUICK, "--out", f"{bucket}/r", env=no_keys, cwd=tmp_path)
    assert creds.returncode == 2 and "No credentials for s3://" in creds.stderr
    shard = accord(*QUICK, "--out", str(tmp_path / "local"), "--shard", "auto", env=s3_env,
                   cwd=tmp_path)  # fmt: skip
    assert shard.returncode == 2 and "--shard needs --out to be a store location" in shard.stderr
    shard2 = accord(*QUICK, "--shard", "auto", env=s3_env, cwd=tmp_path)
    assert shard2.returncode == 2 and "--shard needs --out" in shard2.stderr
    report = accord("report", f"{bucket}/nothing-here", env=s3_env, cwd=tmp_path)
    assert report.returncode == 2 and "holds no run" in report.stderr
    assert RunStore(f"{bucket}/r").list() == []


def test_kill_9_then_resume_plays_every_game_once(
    bucket: str, s3_env: dict[str, str], tmp_path: Path, accord: Run, start_accord: Start
) -> None:
    loc = f"{bucket}/runs/killed"
    env = {**s3_env, "ACCORD_LEASE_SECONDS": "5"}
    args = [*SLOW, "--concurrency", "1", "--out", loc]
    store = RunStore(loc)
    proc = start_accord(*args, env=env, cwd=tmp_path)
    try:
        wait_for(lambda: len(trace_names(store)) >= 1, "the first trace")
    finally:
        proc.kill()  # SIGKILL: no cleanup, no release
        proc.wait(timeout=30)
    kept = trace_names(store)
    assert 1 <= len(kept) < 4, "killed mid-run"
    # Its lease is still held for a while, then lost, since nothing renews it.
    _, record = read_record(store, "run")
    assert is_live(record) and record is not None and record["pid"] == proc.pid
    try:
        Lease.acquire(store, "run", renew=False).release()
        held = False
    except LeaseHeldError:
        held = True
    wait_for(lambda: not is_live(read_record(store, "run")[1]), "the lease to expire", 30)

    resumed = accord(*args, "--resume", env=env, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "taking over the lease of a run that ended without releasing it" in resumed.stderr
    assert held, "a killed run's lease holds until it expires"
    names = trace_names(store)
    assert names == [f"traces/negotiation-p00-g00{i}.json" for i in range(4)]
    assert set(kept) <= set(names)
    for name in names:
        trace = json.loads(store.read(name) or b"{}")
        assert trace["status"] == "complete", name
    assert store.list("attempts") == []  # no finished game was played twice
    summary = json.loads(store.read("summary.json") or b"{}")
    assert summary["games"] == 4


def test_damaged_and_hostile_objects_in_the_bucket(
    bucket: str, s3_env: dict[str, str], tmp_path: Path, accord: Run
) -> None:
    loc = f"{bucket}/runs/hostile"
    assert accord(*QUICK, "--out", loc, env=s3_env, cwd=tmp_path).returncode == 0
    store = RunStore(loc)
    damaged = "traces/negotiation-p00-g001.json"
    original = store.read(damaged) or b""
    store.delete(damaged)
    store.create(damaged, b'{"schema_version": 1, "trace_id": "negotiation-p00-g00')
    # A key no run writes, that would leave the copy's folder if it became a path.
    import obstore
    from obstore.store import S3Store

    raw = S3Store(bucket.removeprefix("s3://"))
    obstore.put(raw, "runs/hostile/traces/.. evil.json", b"{}")
    evil = json.loads(original)
    evil["trace_id"] = "../../escaped"
    store.create("traces/negotiation-p00-g009.json", json.dumps(evil).encode())

    report = accord("report", loc, env=s3_env, cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "skipped:" in report.stderr and "negotiation-p00-g001" in report.stderr
    assert "not a safe name" in report.stderr
    assert "escaped" in report.stderr  # the traversal id is refused, named
    assert not (tmp_path.parent / "escaped.json").exists()
    assert any(e.name.startswith("report/") for e in store.list()), "the report went back"

    resumed = accord(*QUICK, "--out", loc, "--resume", env=s3_env, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    fixed = json.loads(store.read(damaged) or b"{}")
    assert fixed["status"] == "complete"  # played again; the damaged bytes kept aside
    assert [e.name for e in store.list("attempts")] == ["attempts/negotiation-p00-g001/0.json"]


KEY = "sk-test-custom-8e3b5d0a1c94"
EXPERIMENT = f"""
name: secrets
defaults:
  game: negotiation
  games: 2
  options: {{rounds: 2, talk_turns: 1}}
batches:
  - name: custom
    agents:
      - model: anthropic/claude-test
        options:
          api_key_env: ACCORD_TEST_KEY
          # A reply quoting a key, as a provider's error text or an echoing model might.
          extra_params: {{mock_response: 'the key is {KEY}'}}
      - cooperative
"""


def test_no_object_in_the_bucket_holds_a_secret(
    bucket: str, s3_env: dict[str, str], tmp_path: Path, accord: Run
) -> None:
    loc = f"{bucket}/runs/secrets"
    exp = tmp_path / "exp.yaml"
    exp.write_text(EXPERIMENT)
    env = {**s3_env, "ACCORD_TEST_KEY": KEY}
    ran = accord("run", str(exp), "--out", loc, "--report", env=env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    store = RunStore(loc)
    objects = {e.name: store.read(e.name) or b"" for e in store.list()}
    assert any(n.startswith("leases/") for n in objects) and any(
        n.startswith("report/") for n in objects
    )
    for secret in (KEY, s3_env["AWS_SECRET_ACCESS_KEY"], s3_env["AWS_ACCESS_KEY_ID"]):
        forms = {secret, *encoded_forms(secret)}
        assert secret.encode().hex() in forms  # raw, hex and base64 alike
        for name, data in objects.items():
            for form in forms:
                assert form.encode() not in data, f"a form of a secret in {name}"
    assert any(b"[redacted:ACCORD_TEST_KEY]" in d for d in objects.values())
