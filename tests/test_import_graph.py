"""The import graph of `accord`: layers point one way and no module imports itself round.

Every ``import`` in every module under ``src/accord`` counts, those inside functions included (a
lazy import is still a dependency); only ``if TYPE_CHECKING:`` blocks are left out, as they
never run. Importing ``a.b.c`` also runs the ``__init__`` of ``a.b`` (unless the importer is
inside ``a.b`` already, where it is running or done), so that counts as an import of ``a.b``.
Games reach the harness through entry points (`accord.core.plugins`), so neither the contracts
(`accord.core`) nor the analyses (`accord.analysis`) may name a game package.

What each package may import is the table in ``docs/architecture.md``, read from there (so the
page and this test cannot disagree), as is the list of `core` modules that touch files or the
environment.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
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


# -- the documented layers ---------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    """One package of the layer table: its layer number and what it may import."""

    layer: int
    allowed: frozenset[str]


def _section(text: str, name: str) -> list[list[str]]:
    """The body rows of the Markdown table between ``<!-- NAME: begin/end -->``, as cells."""
    match = re.search(rf"<!-- {name}: begin -->(.*?)<!-- {name}: end -->", text, re.S)
    assert match, f"docs/architecture.md has no {name} table"
    lines = [ln.strip() for ln in match.group(1).strip().splitlines()]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[2:] if ln]


def _names(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def parse_layers(text: str) -> dict[str, Row]:
    """Package -> its row, from the ``import-table`` of the page."""
    rows = {}
    for cells in _section(text, "import-table"):
        (package,) = _names(cells[0])
        layer = int(cells[1].split()[0])
        rows[package] = Row(layer, frozenset(_names(cells[3])))
    return rows


def parse_debts(text: str) -> set[tuple[str, str]]:
    """(importer, imported) pairs from the ``import-debts`` table of the page."""
    return {(_names(c[0])[0], _names(c[1])[0]) for c in _section(text, "import-debts")}


def package_of(module: str) -> str:
    """The table name of a module: ``accord.runner.play`` -> ``runner``; ``accord`` ->
    ``accord``; a module at the top (``accord.api``) is its own package (``api``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _allows(row: Row, module: str) -> bool:
    """True when `module` is an allowed package or module, inside one, or the package of an
    allowed module (importing ``analysis.stats`` runs ``analysis/__init__.py``)."""
    inner = module.split(".", 1)[1] if "." in module else module
    return any(
        inner == a or inner.startswith(a + ".") or a.startswith(inner + ".") for a in row.allowed
    )


def layer_breaches(graph: Graph, rows: dict[str, Row], debts: set[tuple[str, str]]) -> list[str]:
    """Each import its row does not allow (nor an import debt), as ``importer -> imported``."""
    out = []
    for src, targets in sorted(graph.items()):
        mine = package_of(src)
        for dst in sorted(targets):
            theirs = package_of(dst)
            if theirs == mine or mine not in rows or (mine, theirs) in debts:
                continue
            if not _allows(rows[mine], dst):
                out.append(f"{src} -> {dst}")
    return out


def unused_debts(graph: Graph, debts: set[tuple[str, str]]) -> list[tuple[str, str]]:
    used = {(package_of(s), package_of(d)) for s, ts in graph.items() for d in ts}
    return sorted(debts - used)


def upward_rows(rows: dict[str, Row]) -> list[str]:
    """Allowed packages of a higher layer than their importer (a dotted name allows one
    module, an exception the page explains, and is left out)."""
    return sorted(
        f"{name} (layer {row.layer}) may import {dep} (layer {rows[dep].layer})"
        for name, row in rows.items()
        for dep in row.allowed
        if "." not in dep and dep in rows and rows[dep].layer > row.layer
    )


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_every_package_has_a_row(graph: Graph, doc: str) -> None:
    rows = parse_layers(doc)
    missing = sorted({package_of(m) for m in graph} - set(rows))
    assert missing == [], f"add a row to docs/architecture.md for: {missing}"
    named = {n.split(".")[0] for row in rows.values() for n in row.allowed}
    assert named <= set(rows), f"the table allows packages without a row: {named - set(rows)}"


def test_every_import_is_allowed_by_the_table(graph: Graph, doc: str) -> None:
    breaches = layer_breaches(graph, parse_layers(doc), parse_debts(doc))
    assert breaches == [], (
        "imports that docs/architecture.md does not allow (drop the import, or change the "
        f"table and say why): {breaches}"
    )


def test_the_table_points_down(doc: str) -> None:
    assert upward_rows(parse_layers(doc)) == []


def test_every_import_debt_is_still_owed(graph: Graph, doc: str) -> None:
    stale = unused_debts(graph, parse_debts(doc))
    assert stale == [], f"no module needs these any more: delete them from the page: {stale}"


_FILE_CALLS = {
    "open", "read_text", "write_text", "read_bytes", "write_bytes", "mkdir", "iterdir", "glob",
    "rglob", "exists", "is_file", "is_dir", "unlink", "rmdir", "touch", "access", "fsync",
    "getenv", "walk", "listdir", "scandir", "remove", "makedirs",
}  # fmt: skip
_PACKAGE_DATA = {"metadata", "resources"}
"""``metadata.entry_points(...)``, ``resources.files(...)``: installed packages' data."""


def touches_the_outside(path: Path) -> bool:
    """True when a module calls a file-system or environment function (the names in
    `_FILE_CALLS`, as a function or a method), reads ``os.environ``, or reads installed
    packages' data (a call on `importlib.metadata` or `importlib.resources`)."""
    for node in _statements(ast.parse(path.read_text(encoding="utf-8")).body):
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and sub.attr == "environ":
                return True
            if isinstance(sub, ast.Call):
                f = sub.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in _FILE_CALLS:
                    return True
                owner = f.value if isinstance(f, ast.Attribute) else None
                if isinstance(owner, ast.Name) and owner.id in _PACKAGE_DATA:
                    return True
    return False


def test_the_core_modules_that_touch_files_are_the_documented_ones(doc: str) -> None:
    documented = {_names(c[0])[0] for c in _section(doc, "core-io")}
    files = module_files(SRC)
    found = {
        m.removeprefix("accord.")
        for m, path in files.items()
        if _within(m, "accord.core") and touches_the_outside(path)
    }
    assert found == documented, (
        f"not documented: {sorted(found - documented)}; "
        f"documented but pure: {sorted(documented - found)}"
    )


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


def test_the_table_checks_catch_a_breach_a_stale_debt_and_an_upward_row() -> None:
    text = """
<!-- import-table: begin -->
| Package | Layer | What | May import |
|---|---|---|---|
| `core` | 0 contracts | x | — |
| `runner` | 4 runs | x | `core`, `analysis.stats` |
| `analysis` | 5 analysis | x | `core`, `runner` |
| `ratings` | 3 oops | x | `analysis` |
<!-- import-table: end -->
<!-- import-debts: begin -->
| Importer | Imports | Why |
|---|---|---|
| `runner` | `games` | x |
| `core` | `games` | x |
<!-- import-debts: end -->
"""
    rows, debts = parse_layers(text), parse_debts(text)
    assert rows["runner"] == Row(4, frozenset({"core", "analysis.stats"}))
    g: Graph = {
        "accord.runner.results": {"accord.analysis.stats", "accord.core.errors"},
        "accord.runner.play": {"accord.analysis.value", "accord.games.sorting"},
        "accord.analysis.value": {"accord.runner.play"},
        "accord.core.errors": set(),
    }
    assert layer_breaches(g, rows, debts) == ["accord.runner.play -> accord.analysis.value"]
    assert unused_debts(g, debts) == [("core", "games")]
    assert upward_rows(rows) == ["ratings (layer 3) may import analysis (layer 5)"]


def test_the_io_scan_sees_files_and_the_environment(tmp_path: Path) -> None:
    cases = {
        "pure.py": "import math\nx = math.sqrt(2)\n",
        "reads.py": "from pathlib import Path\ndef f(p: Path) -> str:\n    return p.read_text()\n",
        "env.py": "import os\nKEY = os.environ.get('X')\n",
        "meta.py": "from importlib import metadata\neps = metadata.entry_points(group='g')\n",
        "calls_a_wrapper.py": "from accord.core import plugins\neps = plugins.entry_points('g')\n",
        "typing_only.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    open('x')\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    seen = {name for name in cases if touches_the_outside(tmp_path / name)}
    assert seen == {"reads.py", "env.py", "meta.py"}
