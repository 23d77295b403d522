"""Issue 25 "Files and processes": report folders named from data, run locks every writer
honours, prompt templates that hang or balloon, symlinks that leave their folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.mark.parametrize("bad", ["../../x", "ABSOLUTE", "a/b", ".."])
def test_report_never_makes_a_folder_from_a_hostile_game_id(
    run_dir: Path, tmp_path: Path, cli, bad: str
) -> None:
    absolute = tmp_path / "abs-x"
    bad = str(absolute) if bad == "ABSOLUTE" else bad
    path = run_dir / "traces" / "b-g000.json"
    data = json.loads(path.read_text())
    data["game_id"] = bad
    path.write_text(json.dumps(data))
    before = {p for p in tmp_path.rglob("*") if p.is_dir()}
    result = cli.invoke("report", run_dir, "--out", tmp_path / "deep" / "er" / "report")
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and "game id" in result.output
    made = {p for p in tmp_path.rglob("*") if p.is_dir()} - before
    assert all(p.is_relative_to(tmp_path / "deep") for p in made), made
    assert not absolute.exists()


# -- run locks ------------------------------------------------------------------------------


def test_a_replay_into_a_running_runs_traces_is_refused(run_dir: Path, cli) -> None:
    from accord.runner.lock import RunLock

    before = sorted(p.name for p in (run_dir / "traces").iterdir())
    trace = run_dir / "traces" / "b-g000.json"
    with RunLock.acquire(run_dir):
        result = cli.invoke("replay", trace, "--out", run_dir / "traces")
        cli.error(result, "in use by another Accord run")
    assert sorted(p.name for p in (run_dir / "traces").iterdir()) == before
    # Once the run has ended the replay may go there (the user asked for it).
    assert cli.invoke("replay", trace, "--out", run_dir / "traces").exit_code == 0


def test_taking_over_a_stale_lock_is_announced(tmp_path: Path, capsys) -> None:
    from accord.runner.lock import LOCK_NAME, RunLock

    run = tmp_path / "run"
    run.mkdir()
    stale = {"pid": 999999, "host": "gone", "started_at": "2026-01-01T00:00:00+00:00"}
    (run / LOCK_NAME).write_text(json.dumps(stale))  # left by a kill -9: never released
    with RunLock.acquire(run) as lock:
        assert lock.stale is not None
    err = capsys.readouterr().err
    assert "taking over the lock" in err and "pid 999999" in err
    with RunLock.acquire(run):  # released properly last time: nothing to say
        pass
    assert "taking over" not in capsys.readouterr().err


def test_serve_play_holds_the_run_lock_of_its_out(tmp_path: Path, cli) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "humans"
    proc = subprocess.Popen(
        [sys.executable, "-m", "accord", "serve", "--play", "--out", str(out), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:  # waits for the server to announce itself (it has bound)
            lines.append(line)
            if "lobby" in line or len(lines) > 20:
                break
        assert any("lobby" in line for line in lines), lines
        result = cli.invoke(
            "run", "negotiation", "--agents", "cooperative,greedy", "-o", "rounds=1", "--out", out
        )
        cli.error(result, "in use by another Accord run")
        assert not (out / "traces").exists() or not any((out / "traces").glob("*.json"))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


# -- prompt templates -----------------------------------------------------------------------

LOOP = "{% for i in range(100000) %}{% for j in range(N) %}BODY{% endfor %}{% endfor %}"
BOMBS = {
    "nested loops": LOOP.replace("N", "100000").replace("BODY", ""),
    "loops that print": LOOP.replace("N", "1000").replace("BODY", "x"),
    "string times": "{{ 'x' * 100000000 }}",
    "list times": "{{ ([1] * 100000000)|length }}",
    "center": "{{ 'x'|center(100000000) }}",
    "indent": "{{ ('a\\n' * 1000)|indent(100000) }}",
    "wordwrap": "{{ 'a b'|wordwrap(100000000) }}",
    "replace": "{{ ('x' * 1000)|replace('x', 'y' * 100000) }}",
    "percent width": "{{ '%100000000s' % 'x' }}",
    "format filter": "{{ '%100000000s'|format('x') }}",
    "str.format width": "{{ '{:>100000000}'.format('x') }}",
    "power": "{{ 2 ** 100000000 }}",
    "exponential macro": (
        "{% macro f(n) %}{% if n %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}{% endmacro %}{{ f(40) }}"
    ),
}


@pytest.mark.parametrize("source", BOMBS.values(), ids=list(BOMBS))
def test_a_template_that_would_hang_or_balloon_is_stopped(source: str) -> None:
    from accord.core.errors import ConfigError
    from accord.core.prompts import PromptSet, TemplateSpec

    prompts = PromptSet(
        game="g", specs={"t": TemplateSpec("t")}, sources={"t": source}, origin={"t": "override"}
    )
    with pytest.raises(ConfigError, match=r"t\.j2 \(override\) of g was stopped"):
        prompts.render("t")


def test_ordinary_templates_render_as_before() -> None:
    from accord.core.prompts import PromptSet, TemplateSpec

    source = (
        "{% for x in items %}{{ loop.index }}. {{ x }}\n{% endfor %}"
        "{{ 'a\\nb'|indent(2) }} {{ 'hello world'|wordwrap(5) }} {{ 'a-b'|replace('-', '+') }} "
        "{{ '%s=%d'|format('n', 3) }} {{ '{}!'.format('hi') }} {{ 'ab' * 2 }} {{ 2 ** 3 }} "
        "{{ '%05d' % 7 }}"
    )
    prompts = PromptSet(
        game="g", specs={"t": TemplateSpec("t")}, sources={"t": source}, origin={"t": "default"}
    )
    assert prompts.render("t", items=["x", "y"]) == (
        "1. x\n2. y\na\n  b hello\nworld a+b n=3 hi! abab 8 00007"
    )


def test_a_template_linked_from_outside_its_folder_is_refused(tmp_path: Path, cli) -> None:
    dump = tmp_path / "defaults"
    assert cli.invoke("prompts", "negotiation", "--dump", dump).exit_code == 0
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "intro.j2").symlink_to(dump / "intro.j2")
    result = cli.invoke(
        "run", "negotiation", "--model", "mock/schema", "-o", "rounds=1", "--prompts", folder,
        "--out", tmp_path / "out", "--dry-run",
    )  # fmt: skip
    cli.error(result, "is a link to a file outside the prompts folder")
    # A link inside the folder is fine.
    (folder / "intro.j2").unlink()
    (folder / ".copy").write_text((dump / "intro.j2").read_text())  # hidden: not a template
    (folder / "intro.j2").symlink_to(folder / ".copy")
    result = cli.invoke(
        "run", "negotiation", "--model", "mock/schema", "-o", "rounds=1", "--prompts", folder,
        "--out", tmp_path / "out", "--dry-run",
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def test_a_trace_linked_from_outside_traces_is_skipped_and_listed(
    run_dir: Path, tmp_path: Path, cli
) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    data = json.loads((run_dir / "traces" / "b-g000.json").read_text())
    data["trace_id"] = "linked"
    elsewhere.write_text(json.dumps(data))
    (run_dir / "traces" / "linked.json").symlink_to(elsewhere)
    for args in (["report", run_dir], ["query", run_dir, "SELECT count(*) AS n FROM games"]):
        result = cli.invoke(*args)
        assert result.exit_code == 0, result.output
        assert "linked.json is a link to a file outside its folder" in " ".join(
            result.output.split()
        )
    from accord.runner.results import write_outputs

    summary = write_outputs(run_dir)
    assert summary["games"] == 2 and [u["file"] for u in summary["unreadable"]] == ["linked.json"]
