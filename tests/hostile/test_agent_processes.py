"""Issue 37 case 5: an agent command is contained.

Its children (in its process group, in a session of their own, and one that keeps writing the
seat token to stderr) end with the game; its stderr log never grows past `MAX_LOG_BYTES` while
the game runs and never holds the token in any encoding, even split across writes.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
import textwrap
from pathlib import Path

import pytest

from accord.core.secrets import encoded_forms
from accord.remote import process
from accord.remote.process import MAX_LOG_BYTES, RUN_DIR, AgentProcess

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

LATE = textwrap.dedent(
    """
    import sys, time
    token = sys.argv[1]
    for _ in range(600):
        sys.stderr.write("late " + token + "\\n")
        sys.stderr.flush()
        time.sleep(0.1)
    """
)

AGENT = textwrap.dedent(
    """
    import json, os, subprocess, sys, time
    forms, pids, flag, late = sys.argv[1:5]
    forms = json.load(open(forms))
    token = os.environ["ACCORD_SEAT_TOKEN"]
    sleep = [sys.executable, "-c", "import time; time.sleep(120)"]
    same = subprocess.Popen(sleep)
    alone = subprocess.Popen(sleep, start_new_session=True)
    writer = subprocess.Popen([sys.executable, late, token], start_new_session=True)
    # A grandchild whose parent exits at once: orphaned, in a session of its own.
    orphan = subprocess.Popen([sys.executable, "-c", (
        "import os, subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], "
        "start_new_session=True); print(p.pid, flush=True)")],
        stdout=subprocess.PIPE, text=True)
    grandchild = int(orphan.stdout.readline())
    with open(pids + ".tmp", "w") as fh:
        json.dump([same.pid, alone.pid, writer.pid, grandchild], fh)
    os.replace(pids + ".tmp", pids)
    for form in forms:  # each form split across two writes
        half = len(form) // 2
        sys.stderr.write("x" + form[:half]); sys.stderr.flush(); time.sleep(0.005)
        sys.stderr.write(form[half:] + "\\n"); sys.stderr.flush()
    line = "y" * 65535 + "\\n"
    for _ in range(64):  # 4 MiB
        sys.stderr.write(line)
    sys.stderr.flush()
    open(flag, "w").write("flooded")
    time.sleep(120)
    """
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[:1] != [b"Z"]


async def _until(check: object, seconds: float) -> bool:
    for _ in range(int(seconds / 0.05)):
        if check():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.05)
    return False


async def test_the_whole_agent_ends_with_the_game_and_its_log_stays_bounded_and_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "EXIT_GRACE_S", 0.5)
    token = secrets.token_urlsafe(24)
    forms = encoded_forms(token)
    (tmp_path / "forms.json").write_text(json.dumps(forms))
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "late.py").write_text(LATE)
    pids_file, flag = tmp_path / "pids.json", tmp_path / "flooded"
    command = " ".join(
        str(p) for p in (sys.executable, tmp_path / "agent.py", tmp_path / "forms.json", pids_file)
    )
    command += f" {flag} {tmp_path / 'late.py'}"
    run = tmp_path / "run"
    reset = RUN_DIR.set(run)
    try:
        agent = await AgentProcess.start(command, env={"ACCORD_SEAT_TOKEN": token}, name="g1.0")
    finally:
        RUN_DIR.reset(reset)
    log = run / "remote" / "g1.0.stderr.log"
    try:
        assert await _until(flag.exists, 60), "the agent did not start"
        await asyncio.sleep(0.3)  # its writer child writes the token a few more times
        # While the game runs: capped and already scrubbed.
        assert log.stat().st_size <= MAX_LOG_BYTES
        during = log.read_text(encoding="utf-8")
        children = json.loads(pids_file.read_text())
        assert all(_alive(pid) for pid in children)
    finally:
        tail = await agent.stop([token])
    for pid in [agent.proc.pid, *children]:
        assert await _until(lambda pid=pid: not _alive(pid), 10), f"process {pid} survived"
    after = log.read_text(encoding="utf-8")
    assert len(after) <= MAX_LOG_BYTES + 100 and "earlier bytes cut" in after
    for text in (during, after, tail):
        for form in forms:
            assert form not in text, "the seat token reached the log"
    assert "[redacted:seat-token]" in during
    # Nothing is written after the end: the writer child is gone with the pipe.
    await asyncio.sleep(0.3)
    assert log.read_text(encoding="utf-8") == after
    assert await agent.stop([token]) == tail  # stopping twice is harmless


async def test_an_agent_that_exits_at_once_leaves_an_empty_clean_log(tmp_path: Path) -> None:
    reset = RUN_DIR.set(tmp_path)
    try:
        agent = await AgentProcess.start(
            f"{sys.executable} -c \"import sys; sys.stderr.write('bye')\"",
            env={"ACCORD_SEAT_TOKEN": "t" * 32},
            name="g2.0",
        )
    finally:
        RUN_DIR.reset(reset)
    assert await agent.stop([]) == "bye"
    assert os.path.exists(tmp_path / "remote" / "g2.0.stderr.log")
