"""No module imports a private name (``_x``) of another package of Accord: what crosses a
package boundary is public, named without the underscore (issue: "eight imports of private
names cross packages")."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "accord"


def _package(module: str) -> str:
    """``accord.agents.base`` -> ``agents``; ``accord.api`` -> ``api``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def private_crossings(root: Path = SRC) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).with_suffix("")
        module = ".".join(p for p in rel.parts if p != "__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.module):
                continue
            if not node.module.startswith("accord.") or node.level:
                continue
            if _package(node.module) == _package(module):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{module}:{node.lineno} imports {node.module}.{alias.name}")
    return found


def test_no_module_imports_a_private_name_of_another_package() -> None:
    assert private_crossings() == []


def test_the_scan_catches_a_crossing(tmp_path: Path) -> None:
    pkg = tmp_path / "accord"
    (pkg / "runner").mkdir(parents=True)
    (pkg / "runner" / "x.py").write_text(
        "from accord.agents.base import _no_record\nfrom accord.runner.y import _ok\n"
    )
    assert private_crossings(pkg) == ["accord.runner.x:1 imports accord.agents.base._no_record"]
