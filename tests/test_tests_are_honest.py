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
LIBRARY_MODULE = "accord.testing"

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


def _local_calls(fn: ast.AST) -> set[str]:
    """What `fn` calls that can be a helper of its own file: ``helper(...)`` and
    ``self.helper(...)`` / ``cls.helper(...)`` (never ``logging.error(...)``)."""
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                out.add(f.id)
            elif (
                isinstance(f, ast.Attribute)
                and isinstance(f.value, ast.Name)
                and f.value.id in {"self", "cls"}
            ):
                out.add(f.attr)
    return out


def _library_calls(fn: ast.AST, imports: dict[str, str]) -> set[str]:
    """The library functions `fn` calls, resolved through the file's imports to
    ``module:function`` (``testing.check_api(...)`` with ``from accord import testing`` ->
    ``accord.testing:check_api``); calls on names that are not Accord's test library count
    for nothing."""
    out = set()
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in imports and ":" in imports[f.id]:
            out.add(imports[f.id])
        elif isinstance(f, ast.Attribute):
            owner = ast.unparse(f.value)
            if owner in imports and ":" not in imports[owner]:
                out.add(f"{imports[owner]}:{f.attr}")
    return out


def _imports(tree: ast.Module) -> dict[str, str]:
    """Name bound in a file -> what it is in Accord's test library: ``module`` for a module,
    ``module:function`` for a function imported by name."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(LIBRARY_MODULE):
                    out[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full.startswith(LIBRARY_MODULE) and (LIBRARY / _rel(full)).exists():
                    out[alias.asname or alias.name] = full  # a module of the library
                elif node.module.startswith(LIBRARY_MODULE):
                    out[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    return out


def _rel(module: str) -> str:
    """``accord.testing.wire`` -> ``wire.py``; ``accord.testing`` -> ``__init__.py``."""
    parts = module.split(".")[2:]
    if not parts:
        return "__init__.py"
    return (
        "/".join(parts) + ".py"
        if not (LIBRARY.joinpath(*parts)).is_dir()
        else ("/".join(parts) + "/__init__.py")
    )


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
            if (ast.unparse(owner), node.func.attr) in {("pytest", c) for c in ASSERTING_CALLS}:
                return True
        if (  # ``from pytest import raises``
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ASSERTING_CALLS
        ):
            return True
    return False


def functions(paths: Iterable[Path]) -> dict[str, list[Function]]:
    """Name -> every function of that name defined in `paths` (nested ones included)."""
    out: dict[str, list[Function]] = {}
    for path in paths:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.setdefault(node.name, []).append(node)
    return out


def _closure(found: set[str], calls: dict[str, set[str]]) -> set[str]:
    grew = True
    while grew:
        grew = False
        for name, called in calls.items():
            if name not in found and called & found:
                found.add(name)
                grew = True
    return found


def _fixture_calls(fn: Function) -> set[str]:
    """What `fn` calls on its own parameters (fixtures): ``cli.error(...)`` -> ``error``,
    ``check(...)`` -> ``check`` when ``cli`` / ``check`` are parameters."""
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in params:
                out.add(f.id)
            elif (
                isinstance(f, ast.Attribute)
                and isinstance(f.value, ast.Name)
                and f.value.id in params
            ):
                out.add(f.attr)
    return out


@functools.cache
def conftest_helpers() -> frozenset[str]:
    """Functions of the suite's conftest files that assert, reached from a test through a
    fixture: the fixture itself (``check(...)``) or a function of the object it returns
    (``cli.error(...)``)."""
    defs = functions(sorted(TESTS.rglob("conftest.py")))
    asserting = {name for name, fns in defs.items() if any(map(asserts_directly, fns))}
    calls = {name: set().union(*map(_local_calls, fns)) for name, fns in defs.items()}
    return frozenset(_closure(asserting, calls))


def _checks_through_fixtures(fn: Function) -> bool:
    return bool(_fixture_calls(fn) & conftest_helpers())


def asserting_helpers(path: Path, shared: set[str]) -> set[str]:
    """The functions of one test file that assert, directly, through another of its own
    functions, or through a library helper in `shared` (``module:function``)."""
    defs = functions([path])
    imports = _imports(_tree(path))
    direct = {
        name
        for name, fns in defs.items()
        if any(asserts_directly(fn) or _checks_through_fixtures(fn) for fn in fns)
    }
    via_library = {
        name
        for name, fns in defs.items()
        if any(_library_calls(fn, imports) & shared for fn in fns)
    }
    calls = {name: set().union(*map(_local_calls, fns)) for name, fns in defs.items()}
    return _closure(direct | via_library, calls)


def silent_tests(test_files: Iterable[Path], shared: set[str], root: Path = ROOT) -> list[str]:
    """``path::name`` (relative to `root`) of each test function that asserts nothing,
    directly or through a helper of its file or of Accord's test library (`shared`)."""
    out = []
    for path in test_files:
        helpers = asserting_helpers(path, shared)
        imports = _imports(_tree(path))
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if node.name.startswith("test") and not (
                asserts_directly(node)
                or _checks_through_fixtures(node)
                or _local_calls(node) & helpers
                or _library_calls(node, imports) & shared
            ):
                out.append(f"{path.relative_to(root).as_posix()}::{node.name}")
    return out


def shared_helpers() -> set[str]:
    """``module:function`` of each function of Accord's test library that asserts (directly
    or through another function of the library), under every module that exposes it (its
    own and, when re-exported, the package's)."""
    files = sorted(LIBRARY.rglob("*.py"))
    defs = functions(files)
    direct = {name for name, fns in defs.items() if any(map(asserts_directly, fns))}
    names = _closure(direct, {n: set().union(*map(_calls, fns)) for n, fns in defs.items()})
    out = set()
    for path in files:
        rel = path.relative_to(LIBRARY).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        module = ".".join([LIBRARY_MODULE, *parts])
        for node in _tree(path).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in names:
                out.add(f"{module}:{node.name}")
                out.add(f"{LIBRARY_MODULE}:{node.name}")  # re-exported by the package
    return out


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

def test_logs_an_error():
    import logging
    logging.error("x")

def test_calls_a_library_name_that_is_no_check():
    testing.skipped()

def test_through_a_fixture(cli):
    cli.error(None, "x")

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
        "test_sample.py::test_logs_an_error",
        "test_sample.py::test_calls_a_library_name_that_is_no_check",
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
