"""Tests honest about content and time.

Every test asserts something: a test function whose body has no ``assert``, no
``pytest.raises`` (or ``warns``, ``fail``), no ``raise AssertionError`` and calls no helper
that does is a test that cannot fail, and is refused here.

Helpers count when they are defined in the same test file, in a ``conftest.py``, or in
`accord.testing` (the conformance suite raises `AssertionError`), and assert themselves or
call such a helper in turn. ``jsonschema.validate`` counts as an assertion (it raises on a
mismatch). A test that really has nothing to assert belongs in `ALLOWED`, with its reason.

No test waits by sleeping: a ``time.sleep`` or ``asyncio.sleep`` of half a second or more
outside a polling loop (a ``while`` or ``for`` that checks for something real, such as a server
starting) is refused; wait for the event itself, or use a fake clock.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
LIBRARY = ROOT / "src" / "accord" / "testing"

ASSERTING_CALLS = {"raises", "warns", "fail", "deprecated_call"}
"""``pytest.raises(...)`` and friends: a check by themselves."""
ASSERTING_QUALIFIED = {("jsonschema", "validate")}
"""Library calls that raise on a mismatch, as (module, function)."""
ALLOWED: dict[str, str] = {}
"""``path::test name`` -> why it needs no assertion (none so far)."""

Function = ast.FunctionDef | ast.AsyncFunctionDef


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _calls(fn: ast.AST) -> set[str]:
    """The bare names of everything `fn` calls (``a.b.check(...)`` -> ``check``)."""
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            out.add(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return out


def asserts_directly(fn: ast.AST) -> bool:
    """An ``assert``, a ``raise AssertionError``, or a call that checks by itself."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Raise) and "AssertionError" in ast.unparse(node.exc or node):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and (owner.id, node.func.attr) in ASSERTING_QUALIFIED:
                return True
    return bool(_calls(fn) & ASSERTING_CALLS)


def functions(paths: Iterable[Path]) -> dict[str, list[Function]]:
    """Name -> every function of that name defined in `paths` (nested ones included)."""
    out: dict[str, list[Function]] = {}
    for path in paths:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.setdefault(node.name, []).append(node)
    return out


def asserting_helpers(defs: dict[str, list[Function]], known: set[str]) -> set[str]:
    """The names in `defs` that assert, directly or through a helper (`known` or found)."""
    found = set(known) | {name for name, fns in defs.items() if any(map(asserts_directly, fns))}
    calls = {name: set().union(*map(_calls, fns)) for name, fns in defs.items()}
    grew = True
    while grew:
        grew = False
        for name, called in calls.items():
            if name not in found and called & found:
                found.add(name)
                grew = True
    return found


def silent_tests(test_files: Iterable[Path], shared: set[str], root: Path = ROOT) -> list[str]:
    """``path::name`` (relative to `root`) of each test function that asserts nothing,
    directly or through a helper of its file or of `shared`."""
    out = []
    for path in test_files:
        helpers = asserting_helpers(functions([path]), shared)
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if node.name.startswith("test") and not (
                asserts_directly(node) or _calls(node) & helpers
            ):
                out.append(f"{path.relative_to(root).as_posix()}::{node.name}")
    return out


def shared_helpers() -> set[str]:
    files = [*sorted(LIBRARY.rglob("*.py")), *sorted(TESTS.rglob("conftest.py"))]
    return asserting_helpers(functions(files), set())


def test_every_test_asserts_something() -> None:
    found = silent_tests(sorted(TESTS.rglob("test_*.py")), shared_helpers())
    silent = [t for t in found if t not in ALLOWED]
    assert silent == [], (
        "these tests cannot fail: give each the assertion its name promises "
        f"(or, with a reason, an entry in ALLOWED): {silent}"
    )
    assert set(ALLOWED) <= set(found), "ALLOWED names a test that asserts now: remove it"


def test_the_scanner_tells_silent_tests_from_checking_ones(tmp_path: Path) -> None:
    source = """
import pytest, jsonschema
from accord import testing

def _check(x):
    assert x

def _indirect(x):
    _check(x)

def test_plain():
    assert 1 + 1 == 2

def test_raises():
    with pytest.raises(ValueError):
        int("x")

def test_through_a_helper():
    _indirect(3)

def test_through_the_library():
    testing.check_api("negotiation")

def test_schema():
    jsonschema.validate(1, {"type": "integer"})

def test_silent():
    x = 1 + 1

async def test_silent_async():
    print("hello")

class TestGroup:
    def test_in_a_class(self):
        self.value = 2
"""
    path = tmp_path / "test_sample.py"
    path.write_text(source, encoding="utf-8")
    found = silent_tests([path], shared_helpers(), root=tmp_path)
    assert found == [
        "test_sample.py::test_silent",
        "test_sample.py::test_silent_async",
        "test_sample.py::test_in_a_class",
    ]


SLEEPS = {("time", "sleep"), ("asyncio", "sleep")}
LONG_S = 0.5


def fixed_sleeps(path: Path, root: Path = ROOT) -> list[str]:
    """``path:line`` of each sleep of `LONG_S` or more (a literal) outside any loop."""
    found = []

    def visit(node: ast.AST, in_loop: bool) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if (
                isinstance(owner, ast.Name)
                and (owner.id, node.func.attr) in SLEEPS
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, int | float)
                and node.args[0].value >= LONG_S
                and not in_loop
            ):
                found.append(f"{path.relative_to(root).as_posix()}:{node.lineno}")
        looping = in_loop or isinstance(node, ast.While | ast.For | ast.AsyncFor)
        for child in ast.iter_child_nodes(node):
            visit(child, looping)

    visit(_tree(path), False)
    return found


def test_no_test_waits_by_sleeping() -> None:
    found = [hit for path in sorted(TESTS.rglob("*.py")) for hit in fixed_sleeps(path)]
    assert found == [], f"wait for the event, or use a fake clock, instead of sleeping: {found}"


def test_the_sleep_scan_tells_a_wait_from_a_poll(tmp_path: Path) -> None:
    path = tmp_path / "test_waits.py"
    path.write_text(
        "import asyncio, time\n"
        "def test_waits():\n"
        "    time.sleep(0.8)\n"  # line 3: a fixed wait
        "    time.sleep(0.01)\n"
        "    while not ready():\n"
        "        time.sleep(0.5)\n"  # polling: allowed
        "async def test_async_wait():\n"
        "    await asyncio.sleep(1)\n",  # line 8
        encoding="utf-8",
    )
    assert fixed_sleeps(path, root=tmp_path) == ["test_waits.py:3", "test_waits.py:8"]
