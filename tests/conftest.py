"""Shared test set-up: no network, no stray global state; each command's ``--help`` is
rendered once per test session (`cli_help`), however many tests read it.

The suite runs in parallel worker processes (pytest-xdist, ``-n auto --dist loadgroup``, as
``make test`` does; docs/architecture.md "Tests in parallel" has the rules for test authors).
Two things here make that safe without each test having to think about it:

- `pytest_collection_modifyitems` keeps together what must share one worker: the tests of a
  module that share a module- or class-scoped fixture (built once, not once per worker that
  happens to get one of them), and every ``slow`` test (the real bundled model), which run one
  after another because two llama.cpp processes on two cores are slower than one after the
  other;
- `built_once` builds an expensive, read-only artefact (a run directory several test files
  read) once for the whole session, whichever worker asks first, and hands the others the
  same folder.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

BUNDLED_MODEL = "bundled-model"
"""The xdist group of every ``slow`` test: llama.cpp uses every core it is given, so these run
one after another in one worker while the other workers run the rest."""

_SHARED_FIXTURE_SCOPES = {"module", "class", "package"}


def _shares_a_module_fixture(item: pytest.Item) -> bool:
    """Whether `item` uses a fixture built once for its module (or class), or a session
    fixture defined in its own test file (which only that file's tests use)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    module = item.module.__file__ if isinstance(item, pytest.Function) else None
    for defs in info.name2fixturedefs.values():
        fixture = defs[-1]
        if fixture.scope in _SHARED_FIXTURE_SCOPES:
            return True
        if fixture.scope == "session" and module is not None:
            code = getattr(fixture.func, "__code__", None)
            if code is not None and code.co_filename == module:
                return True
    return False


def _group(item: pytest.Item) -> str | None:
    mark = item.get_closest_marker("xdist_group")
    if mark is None:
        return None
    return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))


def _groups(item: pytest.Item) -> str | None:
    """The group xdist files `item` under: its ``xdist_group`` names, joined as xdist does."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names)) if names else None


class _GroupIds:
    """``--dist loadgroup`` finds a test's group in the suffix ``@group`` of its node id, which
    xdist 3.8 writes where pytest 9.2 no longer reads it (``Item._nodeid``): without this every
    test would be scheduled on its own. Writes the suffix where pytest keeps the id, unless
    xdist already did."""

    @pytest.hookimpl(trylast=True)  # after xdist's own hook of this name
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            group = _groups(item)
            node_id = getattr(item, "_id", None)
            if group is None or node_id is None or item.nodeid.endswith(f"@{group}"):
                continue
            item._id = type(node_id).parse(f"{item.nodeid}@{group}")


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a worker (xdist has set its ``dist`` to "no")
        if getattr(config.option, "loadgroup", False):
            config.pluginmanager.register(_GroupIds(), "accord-xdist-group-ids")
    elif getattr(config.option, "dist", "no") == "loadgroup":
        # The groups are sent to workers in the order of the collection, which
        # `pytest_collection_modifyitems` below sets; xdist's own reordering (by test count)
        # would put the bundled model's few long tests last, where they would run alone.
        config.option.loadscopereorder = False


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (its own hook of this name)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give each test that must share a worker its ``xdist_group`` (an explicit
    ``pytest.mark.xdist_group`` on a test is kept as it is); in a worker, order the groups so
    the longest start first: the bundled model's, then the others by size, then single tests,
    each in collection order."""
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        if item.get_closest_marker("slow") is not None:
            item.add_marker(pytest.mark.xdist_group(BUNDLED_MODEL))
        elif _shares_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    if not hasattr(config, "workerinput"):
        return  # one process: collection order, as without xdist
    groups = [_group(item) for item in items]
    sizes = Counter(g for g in groups if g is not None)

    def rank(pair: tuple[pytest.Item, str | None]) -> tuple[int, int]:
        group = pair[1]
        if group == BUNDLED_MODEL:
            return (0, 0)
        return (1, -sizes[group]) if group is not None else (2, 0)

    items[:] = [item for item, _ in sorted(zip(items, groups, strict=True), key=rank)]


@functools.cache
def _help_text(*command: str) -> str:
    from typer.testing import CliRunner

    from accord.cli.main import app

    result = CliRunner(env={"COLUMNS": "300"}).invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="session")
def cli_help() -> Callable[..., str]:
    """``cli_help("serve")`` -> the text of ``accord serve --help`` (exit code 0 checked),
    rendered 300 columns wide the first time any test asks for it."""
    return _help_text


BuiltOnce = Callable[[str, Callable[[Path], None]], Path]


@pytest.fixture(scope="session")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> BuiltOnce:
    """``built_once(name, build)`` -> a folder `build(folder)` filled, once per test session.

    Every worker of a parallel session shares the folder (the first to ask builds it under a
    file lock; the others wait and reuse it), so what it holds is read-only: a test that
    changes files copies the folder into its own ``tmp_path`` first. A build that raises
    leaves nothing behind, and the next test that asks builds again.
    """
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base is <session base>/popen-gwN: share their parent.
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "built-once"
    root.mkdir(parents=True, exist_ok=True)

    def get(name: str, build: Callable[[Path], None]) -> Path:
        folder = root / name
        done = root / f"{name}.done"
        with FileLock(str(root / f"{name}.lock")):
            if not done.exists():
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                build(folder)
                done.touch()
        return folder

    return get


def _play_calendar_protocols(root: Path) -> None:
    from accord.runner.config import Defaults, Experiment, expand
    from accord.runner.run import run_sync

    for name, agent in (("imap", "imap"), ("dsm", "dsm-welfare")):
        exp = Experiment(
            name=name, defaults=Defaults(game="calendar", suite="canonical", agents=[agent])
        )
        run_sync(expand(exp), root / name)


@pytest.fixture(scope="session")
def calendar_protocol_runs(built_once: BuiltOnce) -> tuple[Path, Path]:
    """Two calendar runs on the canonical suite (90 tasks each), IMAP and DSM-Welfare, the
    pair `accord compare` and the web compare page are tested on; read-only (`built_once`)."""
    root = built_once("calendar-protocols", _play_calendar_protocols)
    return root / "imap", root / "dsm"
