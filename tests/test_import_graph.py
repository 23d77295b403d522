"""The import graph of `accord`: layers point one way and no module imports itself round.

Every ``import`` in every module under ``src/accord`` counts, those inside functions included (a
lazy import is still a dependency); only ``if TYPE_CHECKING:`` blocks are left out, as they
never run. Importing ``a.b.c`` also runs the ``__init__`` of ``a.b`` (unless the importer is
inside ``a.b`` already, where it is running or done), so that counts as an import of ``a.b``.
Games reach the harness through entry points (`accord.core.plugins`), so neither the contracts
(`accord.core`) nor the analyses (`accord.analysis`) may name a game package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
Graph = dict[str, set[str]]

FORBIDDEN = [
    ("accord.core", "accord.games"),
    ("accord.analysis", "accord.games"),
]
"""(importer prefix, imported prefix) pairs that must never appear."""


def module_files(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the packages under `root`."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement, nested ones included, skipping ``if TYPE_CHECKING:`` bodies."""
    for node in body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _statements(node.orelse)
            continue
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                yield from _statements([child])
            elif isinstance(child, ast.excepthandler | ast.match_case):
                yield from _statements(child.body)


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that module `name` imports (``from pkg import sub`` -> pkg.sub)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _statements(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, base] if base else package)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return {p for m in found for p in _with_packages(m, name)} & known - {name}


def _with_packages(module: str, importer: str) -> set[str]:
    """`module` and the packages whose ``__init__`` importing it runs for `importer`."""
    parts = module.split(".")
    out = {module}
    for i in range(1, len(parts)):
        package = ".".join(parts[:i])
        if not _within(importer, package):
            out.add(package)
    return out


def import_graph(root: Path) -> Graph:
    """Module -> the project modules it imports."""
    files = module_files(root)
    known = set(files)
    return {name: imports_of(name, path, known) for name, path in files.items()}


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def forbidden_edges(graph: Graph) -> list[tuple[str, str]]:
    """Imports that cross a layer the wrong way (see `FORBIDDEN`)."""
    return sorted(
        (src, dst)
        for src, targets in graph.items()
        for dst in targets
        for low_layer, high_layer in FORBIDDEN
        if _within(src, low_layer) and _within(dst, high_layer)
    )


@pytest.fixture(scope="module")
def graph() -> Graph:
    return import_graph(SRC)


def test_the_graph_covers_the_package(graph: Graph) -> None:
    assert len(graph) > 150
    assert "accord.games.calendar.engine" in graph["accord.games.calendar"] or any(
        _within(m, "accord.games.calendar") for m in graph["accord.games.calendar"]
    )
    assert sum(map(len, graph.values())) > 500


def test_core_and_analysis_never_import_a_game(graph: Graph) -> None:
    assert forbidden_edges(graph) == []


def test_no_import_cycles(graph: Graph) -> None:
    assert cycles(graph) == []


# -- the checker itself ------------------------------------------------------------------------
def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_finds_a_lazy_cycle_and_a_layer_breach(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "accord/__init__.py": "",
            "accord/games/__init__.py": "from . import calendar\n",
            "accord/games/calendar.py": "from accord.core import registry\n",
            "accord/analysis/__init__.py": "",
            "accord/analysis/report.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from accord.games import calendar\n"
            ),
            "accord/plugins.py": "from accord.core.errors import E\n",
            "accord/core/errors.py": "",
            "accord/core/__init__.py": "from accord.core.registry import f\n",
            "accord/core/registry.py": "import accord.plugins\ndef f():\n    import accord.games\n",
        },
    )
    g = import_graph(tmp_path)
    assert g["accord.games"] == {"accord.games.calendar"}
    assert g["accord.analysis.report"] == set()  # type-checking imports never run
    # Importing accord.core.errors runs accord/core/__init__.py first.
    assert g["accord.plugins"] == {"accord.core", "accord.core.errors"}
    assert g["accord.core.registry"] == {"accord.plugins", "accord.games"}  # not accord.core
    assert forbidden_edges(g) == [("accord.core.registry", "accord.games")]
    assert cycles(g) == [
        [
            "accord.core",
            "accord.core.registry",
            "accord.games",
            "accord.games.calendar",
            "accord.plugins",
        ]
    ]
