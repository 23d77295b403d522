"""Nothing outside ``accord.games`` names a built-in game (issue 22, DESIGN principle 6).

Every consumer reaches a game through its declaration (`accord.core.gameinfo`), so a game from
another package gets every feature Accord's own games get. This test reads the code of every
module under ``src/accord`` outside ``games/`` and fails on:

- a string constant that *is* a built-in game id or alias (``"calendar"``, ``"sorting-v3"``) or
  starts like one (``"negotiation-..."``, e.g. a prefix test or a name built from it);
- an import of a built-in game's package (``accord.games.calendar...``).

Docstrings, comments and prose inside a longer string (a command's help text, whose examples
must name a real game, or an error message) may mention games by name: they are documentation,
not branches.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "accord"
GAMES = ("calendar", "negotiation", "sorting")
NAME = re.compile(rf"^({'|'.join(GAMES)})(-v[0-9]+)?(-.*)?$")
IMPORT = re.compile(rf"^accord\.games\.({'|'.join(GAMES)})(\.|$)")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string nodes that are docstrings (module, class, function, attribute)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt in body:
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)
            ):
                found.add(id(stmt.value))
    return found


def names_in(source: str) -> list[tuple[int, str]]:
    """(line, what) of every game name the code of `source` uses."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if NAME.match(node.value.strip()):
                out.append((node.lineno, repr(node.value)))
        elif isinstance(node, ast.ImportFrom) and node.module and IMPORT.match(node.module):
            out.append((node.lineno, f"import {node.module}"))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, f"import {a.name}") for a in node.names if IMPORT.match(a.name)]
    return out


def test_no_module_outside_games_names_a_built_in_game() -> None:
    found = [
        f"{path.relative_to(SRC.parent)}:{line}: {what}"
        for path in sorted(SRC.rglob("*.py"))
        if "games" not in path.relative_to(SRC).parts[:1]
        for line, what in names_in(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "\n".join(found)


def test_the_check_finds_branches_and_imports_but_not_prose() -> None:
    code = '''
"""The calendar game is mentioned here, in a docstring."""
from accord.games.sorting.report import team
import accord.games.calendar
def f(t):
    """Mentions negotiation-v3."""
    help = "Example: accord run negotiation --games 3"
    if t.game == "negotiation":
        return t.game_id.startswith("sorting")
    return {"calendar-v2": 1, "name": f"calendar-{t}"}
'''
    assert sorted(line for line, _ in names_in(code)) == [3, 4, 8, 9, 10, 10]
