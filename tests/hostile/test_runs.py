"""Issue 12 items 4, 7 and 8: concurrent runs, unreadable files and oversized replies.

- One run directory, one live run: a second run (fresh or --resume) is refused with the
  holder named; a lock left by a killed process is taken over.
- A bad file in traces/ never hides the run: results are rebuilt without it and the summary
  lists it with its reason.
- A huge model reply is stored capped and marked, in events and final state alike.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from accord.core.errors import ConfigError
from accord.runner.lock import LOCK_NAME, RunLock, RunLockedError
from accord.runner.run import run_sync, write_run_trace
from accord.traces.io import read_trace
from accord.traces.limits import MAX_STORED_CHARS, cap_text


def test_a_second_run_on_a_locked_directory_is_refused_naming_the_holder(
    tmp_path: Path, make_specs
) -> None:
    out = tmp_path / "run"
    with RunLock.acquire(out):
        for resume in (False, True):
            with pytest.raises(RunLockedError, match=rf"pid {os.getpid()}"):
                run_sync(make_specs(), out, resume=resume)
        # Nothing was played or deleted by the refused runs.
        assert not (out / "traces").exists()
    report = run_sync(make_specs(), out)
    assert report.played == 2


def test_the_cli_says_who_holds_the_directory(tmp_path: Path, cli) -> None:
    out = tmp_path / "run"
    with RunLock.acquire(out):
        result = cli.invoke("run", "negotiation", "--agents", "cooperative,greedy", "--out", out)
    cli.error(result, "in use by another Accord run", f"pid {os.getpid()}")


def test_resume_never_deletes_a_live_runs_temporary_files(tmp_path: Path, make_specs) -> None:
    out = tmp_path / "run"
    run_sync(make_specs(), out)
    tmp = out / "traces" / ".b-g009.json.abc.tmp"
    with RunLock.acquire(out):
        tmp.write_text("half a trace")
        with pytest.raises(RunLockedError):
            run_sync(make_specs(), out, resume=True)
        assert tmp.exists()


def test_a_lock_left_by_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from accord.runner.lock import RunLock\n"
        "lock = RunLock.acquire(Path(sys.argv[1]))\n"
        "print(os.getpid(), flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(out)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == -signal.SIGKILL
    dead_pid = int(proc.stdout.split()[0])
    assert json.loads((out / LOCK_NAME).read_text())["pid"] == dead_pid
    lock = RunLock.acquire(out)
    assert lock.stale is not None and lock.stale["pid"] == dead_pid
    lock.release()
    again = RunLock.acquire(out)
    assert again.stale is None  # released cleanly last time
    again.release()


def test_out_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    afile = tmp_path / "f"
    afile.write_text("")
    with pytest.raises(ConfigError, match="is a file"):
        RunLock.acquire(afile)


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe garbage", b"{", b"[]", b'{"schema_version": 1, "events": {}}', b"[" * 5000],
    ids=["binary", "truncated", "a list", "events as a dict", "deep"],
)
def test_one_unreadable_trace_does_not_hide_the_run(tmp_path: Path, make_specs, content) -> None:
    out = tmp_path / "run"
    run_sync(make_specs(3), out)
    (out / "traces" / "zz-bad.json").write_bytes(content)
    (out / "results.jsonl").unlink()
    report = run_sync(make_specs(3), out, resume=True)
    rows = (out / "results.jsonl").read_text().splitlines()
    assert len(rows) == 3 * 2  # every seat of every readable game
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 3 and report.summary["games"] == 3
    (bad,) = summary["unreadable"]
    assert bad["file"] == "zz-bad.json" and "zz-bad.json" in bad["error"]


def test_an_unreadable_file_and_a_directory_named_json(tmp_path: Path, make_specs) -> None:
    out = tmp_path / "run"
    run_sync(make_specs(2), out)
    locked = out / "traces" / "b-g000.json"
    locked.chmod(0)
    (out / "traces" / "folder.json").mkdir()
    try:
        if os.access(locked, os.R_OK):  # running as root: permissions do not apply
            locked.chmod(0o644)
            locked.write_bytes(b"\x00\x01")
        from accord.runner.results import write_outputs

        summary = write_outputs(out)
    finally:
        locked.chmod(0o644)
    assert summary["games"] == 1
    assert {u["file"] for u in summary["unreadable"]} == {"b-g000.json", "folder.json"}


def test_a_huge_reply_is_stored_capped_and_marked(run_dir: Path, tmp_path: Path) -> None:
    trace = read_trace(run_dir / "traces" / "b-g000.json")
    huge = "y" * 5_000_000
    events = [*trace.events, {"type": "message", "t": 99, "seat": 0, "speech": huge}]
    state = {**trace.final_state, "last_reply": huge, "nested": [{"text": huge}]}
    big = trace.model_copy(update={"events": events, "final_state": state})
    path = write_run_trace(tmp_path / "out", big)
    assert path.stat().st_size < 200_000
    stored = read_trace(path)
    mark = cap_text(huge)
    assert stored.events[-1]["speech"] == mark and stored.final_state["last_reply"] == mark
    assert stored.final_state["nested"][0]["text"] == mark
    assert mark.startswith("y" * MAX_STORED_CHARS) and "truncated by Accord: 5000000" in mark
    # Ordinary traces are stored unchanged.
    assert read_trace(write_run_trace(tmp_path / "same", trace)).events == trace.events
