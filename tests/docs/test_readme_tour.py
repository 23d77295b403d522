"""The README's tour, run as written and in the order given, in one fresh directory: each
command may use what an earlier one wrote (the transcript of the run before it, say), so a
tour that only works out of order fails here. The first command must finish in seconds: it
is what a newcomer runs first (timed in bench/bench_newcomer.py, never here).

Commands that need what a test machine lacks are skipped with their reason, as in
test_doc_commands.py; a paper-sized grid is planned (--dry-run), not played.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SKIP = [
    (r"^make ", "builds the environment"),
    (r"local/smollm2", "the bundled model takes minutes of CPU (tests/e2e plays it)"),
    (r"openai/|anthropic/|gpt-|openrouter/", "a hosted model needs an API key"),
]
PLAN_ONLY = ["paper-grid.yaml"]


def tour() -> list[str]:
    """The commands of the README's "A short tour" section, in order."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## A short tour", 1)[1].split("\n## ", 1)[0]
    found = []
    for block in re.findall(r"```(?:bash|sh)\n(.*?)```", section, re.S):
        for line in block.splitlines():
            line = line.split(" #")[0].strip()
            if line and not line.startswith("#"):
                found.append(line)
    return found


def test_the_tour_starts_with_a_command_that_needs_no_model() -> None:
    first = tour()[0]
    assert "--agents" in first and "/" not in first.split("--agents")[1].split()[0], first


def test_the_readme_tour_runs_in_order(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments")
    ran = []
    for command in tour():
        if any(re.search(pattern, command) for pattern, _ in SKIP):
            continue
        words = shlex.split(command)
        assert words[0] in ("accord", ".venv/bin/accord"), command
        args = words[1:]
        if args[0] == "run" and any(p in command for p in PLAN_ONLY):
            args = [*[a for a in args if a != "--resume"], "--dry-run"]
        result = subprocess.run(
            [sys.executable, "-m", "accord", *args], cwd=tmp_path, capture_output=True,
            text=True, env={**os.environ, "COLUMNS": "200"}, timeout=600,
        )  # fmt: skip
        assert result.returncode == 0, f"{command}\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
        assert "Traceback" not in result.stderr
        ran.append(command)
    assert len(ran) >= 5, ran
    assert (tmp_path / "runs/ref/report").is_dir()
