"""`accord play` as a person sees it: the real CLI in a pseudo-terminal, answered line by line.

Each test plays a whole game as the human seat (negotiation against `greedy`, calendar against
`imap` assistants) and checks that the screen shows the game's bracketed text (a project's
requirements, a calendar's free slots) that rich would otherwise read as markup and drop.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def play_in_pty(args: list[str], answer: Callable[[str], str], cwd: Path) -> tuple[int, str]:
    """Run ``accord ARGS`` on a pty; at each ``> `` prompt type ``answer(new screen text)``.

    Returns the exit code and the whole screen (ANSI codes removed). A guard kills a game that
    is still asking after 300 prompts or 10 minutes (a stuck game, not a timing check)."""
    master, slave = os.openpty()
    env = {**os.environ, "COLUMNS": "100", "LINES": "50", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "accord", *args],
        stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, close_fds=True,
    )  # fmt: skip
    os.close(slave)
    raw = ""
    seen = 0
    prompts = 0
    give_up = time.monotonic() + 600
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                raw += data.decode(errors="replace")
                screen = _ANSI.sub("", raw)
                if screen.rstrip().endswith(">") and len(screen) > seen:
                    prompts += 1
                    assert prompts <= 300, screen[-2000:]
                    os.write(master, (answer(screen[seen:]) + "\n").encode())
                    seen = len(screen)
            elif proc.poll() is not None:
                break
            assert time.monotonic() < give_up, _ANSI.sub("", raw)[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
        code = proc.wait()
        os.close(master)
    return code, _ANSI.sub("", raw)


def negotiation_answer(new: str) -> str:
    if "short reflection" in new:
        return "A fair round [I think]."
    if "Decide now" in new:
        return "buy nothing"
    return "hello [friend], what do you need?"


def test_a_person_plays_a_whole_negotiation_and_sees_the_requirements(tmp_path: Path) -> None:
    out = tmp_path / "play"
    code, screen = play_in_pty(
        ["play", "negotiation", "--against", "greedy", "-o", "rounds=2", "-o", "talk_turns=1",
         "--out", str(out)],
        negotiation_answer,
        tmp_path,
    )  # fmt: skip
    assert code == 0, screen[-3000:]
    flat = " ".join(screen.split())
    assert re.search(r"project_a: needs \[\w+×\d+(, \w+×\d+)*\] per run", flat), flat[:3000]
    (trace_path,) = (out / "traces").glob("*.json")
    trace = json.loads(trace_path.read_text())
    assert trace["status"] == "complete"
    assert trace["seats"][0]["agent"] == "human"
    # What the person typed reached the game as they typed it, brackets included.
    said = [e for e in trace["events"] if e.get("seat") == 0 and "hello [friend]" in json.dumps(e)]
    assert said
    # Each answer's response time is in the trace, and summed into the seat's latency.
    answers = [e for e in trace["events"] if e["type"] == "human_action"]
    assert answers and all(e["seat"] == 0 and e["response_s"] >= 0 for e in answers)
    assert trace["usage"]["A"]["decisions"] == len(answers)


def test_a_person_plays_a_whole_calendar_game_and_sees_free_slots(tmp_path: Path) -> None:
    out = tmp_path / "play"
    code, screen = play_in_pty(
        ["play", "calendar", "--against", "imap", "--out", str(out)],
        lambda new: "pass",
        tmp_path,
    )
    assert code == 0, screen[-3000:]
    flat = " ".join(screen.split())
    assert "Slot 0: [FREE]" in flat or "Slot 1: [FREE]" in flat, flat[:3000]
    assert re.search(r"participants \[\d+(, \d+)*\]", flat)
    (trace_path,) = (out / "traces").glob("*.json")
    assert json.loads(trace_path.read_text())["status"] == "complete"


def test_a_person_reads_the_syntax_first_and_may_type_json_or_buy_with_a_message(
    tmp_path: Path,
) -> None:
    """The syntax box comes before the briefing; a typed JSON reply's thinking stays private;
    a bare 'buy' during talk is asked again rather than sent as blank speech."""
    out = tmp_path / "play"
    secret = "SECRET-PLAN-7"
    typed: list[str] = []

    def answer(new: str) -> str:
        if "Decide now" in new:
            line = "buy nothing"
        elif not typed:
            line = json.dumps({"thinking": secret, "speech": "json hello", "action": None})
        elif "say something with your decision" in new:
            line = "buy nothing | deciding now"
        else:
            line = "buy"
        typed.append(line)
        return line

    code, screen = play_in_pty(
        ["play", "negotiation", "--against", "cooperative", "-o", "rounds=1", "-o",
         "talk_turns=2", "-o", "reflection=false", "--out", str(out)],
        answer,
        tmp_path,
    )  # fmt: skip
    assert code == 0, screen[-3000:]
    assert "How to answer" in screen and "Your briefing" in screen, screen[:1500]
    assert screen.index("How to answer") < screen.index("Your briefing")
    (trace_path,) = (out / "traces").glob("*.json")
    trace = json.loads(trace_path.read_text())
    assert trace["status"] == "complete"
    said = [e["speech"] for e in trace["events"] if e["type"] == "message" and e["seat"] == 0]
    assert said[0] == "json hello" and "deciding now" in said, said
    assert all(s.strip() for s in said)
    mine = [e for e in trace["events"] if e["type"] == "message" and e["seat"] == 0]
    assert mine[0]["thinking"] == secret
    assert "buy" in typed and "buy nothing | deciding now" in typed
