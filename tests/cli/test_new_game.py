"""`accord new game NAME`: the skeleton passes the conformance suite before anyone edits it.

The skeleton is written, linted with the project's own rules, tested with its own tests (not
installed), then installed (pip, offline, into a temporary folder) and played through
`accord run` as a separate process, where Accord finds it only through its entry points.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord import testing
from accord.cli.main import app
from accord.core import plugins
from accord.core.errors import ConfigError
from accord.core.registry import game_ids
from accord.scaffold import ROLE_FILES, check_name, skeleton_files

runner = CliRunner(env={"COLUMNS": "200"})
BIN = Path(sys.executable).parent


def accord(
    args: list[str], cwd: Path, site: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "accord", *args], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip


def pip_install(package: Path, work: Path) -> Path:
    """Install a copy of `package` (offline, no dependencies) into ``work/site``."""
    copy = work / "build" / package.name
    shutil.copytree(package, copy)
    site = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--target", str(site), str(copy)],
        check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    return site


@pytest.fixture(scope="module")
def skeleton(tmp_path_factory: pytest.TempPathFactory) -> Path:
    parent = tmp_path_factory.mktemp("new")
    result = runner.invoke(app, ["new", "game", "meeting_room", "--dir", str(parent)])
    assert result.exit_code == 0, result.output
    assert "game meeting_room-v1" in result.output and "pip install -e" in result.output
    return parent / "meeting_room"


@pytest.fixture(scope="module")
def site(skeleton: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The skeleton installed and importable in this process, found by its entry points."""
    target = pip_install(skeleton, tmp_path_factory.mktemp("install"))
    sys.path.insert(0, str(target))
    plugins.refresh()
    yield target
    sys.path.remove(str(target))
    for name in [m for m in sys.modules if m == "meeting_room" or m.startswith("meeting_room.")]:
        del sys.modules[name]
    plugins.refresh()


def test_the_skeleton_has_every_part(skeleton: Path) -> None:
    files = {
        p.relative_to(skeleton).as_posix()
        for p in skeleton.rglob("*")
        if p.is_file()
        and not any(
            part.startswith(".") or part == "__pycache__" for part in p.relative_to(skeleton).parts
        )
    }
    assert files == {
        "README.md",
        "pyproject.toml",
        "docs/meeting_room.md",
        "scripts/regen_golden.py",
        "src/meeting_room/__init__.py",
        "src/meeting_room/actions.py",
        "src/meeting_room/config.py",
        "src/meeting_room/controls.py",
        "src/meeting_room/engine.py",
        "src/meeting_room/golden.py",
        "src/meeting_room/human.py",
        "src/meeting_room/judge.py",
        "src/meeting_room/metrics.py",
        "src/meeting_room/prompts.py",
        "src/meeting_room/protocols/__init__.py",
        "src/meeting_room/py.typed",
        "src/meeting_room/report.py",
        "src/meeting_room/requests.py",
        "src/meeting_room/result.py",
        "src/meeting_room/rules.py",
        "src/meeting_room/state.py",
        "src/meeting_room/templates/system.j2",
        "src/meeting_room/templates/turn.j2",
        "tests/conftest.py",
        "tests/golden/meeting_room-favourite.json",
        "tests/golden/meeting_room-follow.json",
        "tests/test_conformance.py",
        "tests/test_parts.py",
    }
    package = skeleton / "src/meeting_room"
    for role in ROLE_FILES:  # the same role files as the built-in games (tests/games)
        assert (package / role).is_dir() if role.endswith("/") else (package / role).is_file()
    notes = [role for role in ROLE_FILES if not role.endswith("/")]
    assert all("TODO(author)" in (package / role).read_text() for role in notes)
    pyproject = (skeleton / "pyproject.toml").read_text()
    # One entry point: the game's declaration, which names its agents, report and human seat.
    assert 'meeting_room = "meeting_room:INFO"' in pyproject
    assert "accord.agents" not in pyproject and "accord.reports" not in pyproject
    init = (package / "__init__.py").read_text()
    assert 'agents=Lazy("meeting_room.protocols:AGENTS")' in init
    assert 'controls=Lazy("meeting_room.controls:CONTROLS")' in init
    assert "%%" not in "".join(p.read_text() for p in skeleton.rglob("*") if p.is_file())
    golden = json.loads((skeleton / "tests/golden/meeting_room-follow.json").read_text())
    assert golden["status"] == "complete" and golden["game_id"] == "meeting_room-v1"
    # The prompts are Jinja2 templates, copied as they are (not rendered by the scaffold).
    assert (
        "{% for v in values %}" in (skeleton / "src/meeting_room/templates/system.j2").read_text()
    )


def test_the_skeleton_is_clean_under_our_lint_and_type_rules(skeleton: Path) -> None:
    # Its pyproject carries our ruff rules and strict mypy, so an author keeps them.
    for args in (["check", "--no-cache", "."], ["format", "--check", "--no-cache", "."]):
        done = subprocess.run(
            [str(BIN / "ruff"), *args], cwd=skeleton, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
    typed = subprocess.run(
        [str(BIN / "mypy"), "--no-incremental", "src", "scripts", "tests"],
        cwd=skeleton, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert typed.returncode == 0, typed.stdout + typed.stderr


def test_the_skeletons_own_tests_pass_before_it_is_installed(skeleton: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=skeleton, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "10 passed" in done.stdout


def test_installed_it_passes_the_rest_of_the_conformance_suite(skeleton: Path, site: Path) -> None:
    assert "meeting_room-v1" in game_ids()
    testing.check_api("meeting_room-v1")  # the installed game, found through its entry point
    # The checks the skeleton's own tests run (above, on the same game) are not run twice.
    own = re.findall(
        r"testing\.(check_\w+)\(", (skeleton / "tests/test_conformance.py").read_text()
    )
    assert "check_determinism" in own
    rest = [n for n in testing.__all__ if n.startswith("check_") and n not in {*own, "check_game"}]
    assert "check_bombardment" in rest
    for name in rest:
        getattr(testing, name)("meeting_room-v1")
    assert plugins.problems() == []


def test_installed_it_runs_and_reports_through_the_command(site: Path, tmp_path: Path) -> None:
    run = accord(
        ["run", "meeting_room", "--agents", "follow,follow", "--games", "3", "--out", "r"],
        tmp_path, site,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "follow vs follow" in run.stdout and "agreed" in run.stdout
    assert len(list((tmp_path / "r" / "traces").glob("*.json"))) == 3
    mock = accord(["run", "meeting_room", "--model", "mock/schema", "--out", "m"], tmp_path, site)
    assert mock.returncode == 0, mock.stdout + mock.stderr
    report = accord(["report", "r"], tmp_path, site)
    assert report.returncode == 0, report.stdout + report.stderr
    table = (tmp_path / "r/report/meeting_room-v1/summary.md").read_text()
    assert "| follow vs follow | 3 |" in table


def test_a_bad_name_is_refused_in_one_line_on_stderr(tmp_path: Path) -> None:
    # One real process, for what a terminal shows; the other names run in this one (below).
    result = accord(["new", "game", "../evil"], tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "is not a valid game name" in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2  # one line, however the terminal wraps
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "name", ["/abs/path", "a/b", "Bad", "1st", "x" * 41, "", "x-", "a--b", "a_", ".hidden"]
)
def test_every_bad_name_is_refused_in_one_line(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["new", "game", name])
    assert result.exit_code == 2, result.output
    errors = [ln for ln in result.output.splitlines() if ln.startswith("error: ")]
    assert len(errors) == 1 and "is not a valid game name" in errors[0], result.output
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("calendar", "would shadow Python's or Accord's own module 'calendar'"),
        ("class", "would shadow"),
        ("accord", "would shadow"),
        ("negotiation", "'negotiation' is already an installed game (negotiation-v3)"),
        ("numpy", "a module named 'numpy' is already installed here"),
    ],
)
def test_a_name_that_would_shadow_or_clash_is_refused(name: str, why: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(why)):
        check_name(name)


def test_names_derive_the_module_class_and_game_id() -> None:
    names = check_name("meeting-point")
    assert (names.name, names.module, names.cls, names.game_id, names.title) == (
        "meeting-point",
        "meeting_point",
        "MeetingPoint",
        "meeting-point-v1",
        "Meeting point",
    )


def test_an_existing_folder_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    result = accord(["new", "game", "mine"], tmp_path)
    assert result.returncode == 2
    assert "already exists" in result.stderr and "nothing was overwritten" in result.stderr
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_the_scaffold_ships_its_files_as_package_data() -> None:
    names = set(skeleton_files())
    assert "src/_module_/engine.py" in names and "docs/_name_.md" in names
    assert all(not n.endswith(".tmpl") for n in names)
