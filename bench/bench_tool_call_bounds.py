"""Peak memory and time of a game whose model answers with hostile tool calls (printed, never
asserted; issue 37 case 2).

A one-round negotiation (``rounds: 1, talk_turns: 1``) with seat 0 an OpenAI-compatible model in
tools mode, answered by a fake server on 127.0.0.1 that this script hosts, and seat 1 the
``greedy`` reference agent (``--game calendar``: a calendar game of one turn per round and two
meetings, seats 1 and 2 ``imap``, where a turn's calls are one batch). Cases, each the server's
answer to every call:

* ``normal``: one call of the first tool offered, arguments ``{}`` (the baseline);
* ``1000 calls``: 1,000 such calls in one reply;
* ``30 MB arguments``: one call whose arguments are 30 MB of JSON;
* ``200k deep``: one call whose arguments nest 200,000 brackets.

Each game is played in a fresh child process; its peak resident set size comes from the kernel
(``wait4``) and its time from the parent, with a limit (``--limit``, seconds) after which the
child is killed and the case reported as not finished. ``--src DIR`` plays the children on
another checkout's ``src`` (e.g. the code before the bounds), so before and after are measured
in one run on one machine; ratios are against the ``normal`` case of the same code.

Run:  python bench/bench_tool_call_bounds.py [--src OTHER/src] [--limit 300] [--game calendar]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from accord.testing.wire import Answer, openai_body, wire_server

CHILD = """
import asyncio, json, sys
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

seat = AgentSpec(
    model="openai-compatible/fake",
    action_mode="tools",
    options={"base_url": sys.argv[1], "max_retries": 0, "timeout_s": 600},
)
if sys.argv[2] == "calendar":
    game, options, others = "calendar", {"max_turns_per_round": 1, "num_meetings": 2}, ["imap"] * 2
else:
    game, options, others = "negotiation", {"rounds": 1, "talk_turns": 1}, ["greedy"]
spec = GameSpec(
    trace_id="bench", game=game, options=options, seed=1,
    agents=[seat, *(AgentSpec(agent=a) for a in others)],
)
trace = asyncio.run(play_game(spec))
limits = [e.get("error", "")[:90] for e in trace.events if e["type"] == "validation_error"]
import resource
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{peak:.1f}")
print(json.dumps({"status": trace.status, "error": (trace.error or "")[:120],
                  "first_error": limits[0] if limits else ""}))
"""

CASES: dict[str, Any] = {
    "normal": lambda: "{}",
    "1000 calls": lambda: "{}",
    "30 MB arguments": lambda: json.dumps({"message": "x" * (30 * 1024 * 1024)}),
    "200k deep": lambda: '{"message": ' + "[" * 200_000 + "]" * 200_000 + "}",
}


def _answer(case: str, arguments: str) -> Any:
    count = 1000 if case == "1000 calls" else 1

    def answer(body: dict[str, Any]) -> Answer:
        name = body["tools"][0]["function"]["name"]
        reply = openai_body("")
        message = reply["choices"][0]["message"]
        message["content"] = None
        message["tool_calls"] = [
            {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
            for i in range(count)
        ]
        return 200, {}, reply

    return answer


def run_case(
    case: str, src: str | None, limit: float, game: str = "negotiation"
) -> tuple[float | None, float, str]:
    """(peak RSS in MB, seconds, the child's report) of one case; a child still playing after
    `limit` seconds is killed, its peak so far read from ``/proc``."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONDONTWRITEBYTECODE": "1"}
    if src:
        env["PYTHONPATH"] = src
    with wire_server([], answer=_answer(case, CASES[case]())) as server:
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.Popen(
                [sys.executable, "-c", CHILD, f"{server.url}/v1", game],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=tmp,
            )
            try:
                out, err = proc.communicate(timeout=limit)
            except subprocess.TimeoutExpired:
                peak = _high_water(proc.pid)
                proc.kill()
                proc.communicate()
                return peak, time.perf_counter() - t0, f"not finished in {limit:g} s (killed)"
    seconds = time.perf_counter() - t0
    lines = out.strip().splitlines()
    if proc.returncode != 0 or len(lines) < 2:
        return None, seconds, f"exit {proc.returncode}: {err.strip()[-300:]}"
    return float(lines[0]), seconds, lines[1]


def _high_water(pid: int) -> float | None:
    """A running process's peak RSS (MB) from ``/proc/<pid>/status``."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", default=None, help="Another checkout's src directory.")
    parser.add_argument("--limit", type=float, default=300.0, help="Seconds per case.")
    parser.add_argument("--cases", default=",".join(CASES), help="Comma-separated cases.")
    parser.add_argument(
        "--game", default="negotiation", choices=["negotiation", "calendar"], help="The game."
    )
    args = parser.parse_args()
    print(f"code: {args.src or Path(__file__).resolve().parents[1] / 'src'}; game: {args.game}")
    print(f"{'case':<18} {'peak MB':>9} {'seconds':>9} {'x time':>7}  outcome")
    base: float | None = None
    for case in args.cases.split(","):
        peak, seconds, report = run_case(case, args.src, args.limit, args.game)
        base = base or seconds
        shown = f"{peak:9.1f}" if peak is not None else f"{'?':>9}"
        print(f"{case:<18} {shown} {seconds:9.1f} {seconds / base:7.1f}  {report[:200]}")


if __name__ == "__main__":
    main()
