"""One folder shape: every built-in game has the role files of `accord.scaffold.ROLE_FILES`
(the skeleton's are checked in tests/cli/test_new_game.py), its engine module holds the Game
class only, and no module of a game is over about 450 lines unless its docstring says it holds
one cohesive thing."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import accord.games
from accord.core.game import Game
from accord.scaffold import ROLE_FILES

GAMES = Path(accord.games.__file__).parent
BUILT_IN = ("calendar", "negotiation", "sorting")
MAX_LINES = 450


def role_files(package: Path) -> set[str]:
    """The role files `package` has."""
    return {
        role
        for role in ROLE_FILES
        if ((package / role).is_dir() if role.endswith("/") else (package / role).is_file())
        # A role may grow into a package of the same name (``judge/`` for ``judge.py``).
        or (role.endswith(".py") and (package / role.removesuffix(".py") / "__init__.py").is_file())
    }


@pytest.mark.parametrize("game", BUILT_IN)
def test_every_built_in_game_has_the_role_files(game: str) -> None:
    missing = set(ROLE_FILES) - role_files(GAMES / game)
    assert not missing, f"{game} lacks {sorted(missing)}"
    assert list((GAMES / game / "templates").glob("*.j2"))
    protocols = importlib.import_module(f"accord.games.{game}.protocols")
    agents = getattr(protocols, "AGENTS", None) or protocols.REFERENCE_AGENTS
    assert agents and all(callable(f) for f in agents.values())
    assert callable(importlib.import_module(f"accord.games.{game}.report").build)


@pytest.mark.parametrize("game", BUILT_IN)
def test_the_engine_module_holds_the_game_class_only(game: str) -> None:
    tree = ast.parse((GAMES / game / "engine.py").read_text(encoding="utf-8"))
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    assert len(classes) == 1 and functions == [], (classes, functions)
    engine = importlib.import_module(f"accord.games.{game}.engine")
    assert issubclass(getattr(engine, classes[0]), Game)


def test_game_modules_stay_small_or_say_why_not() -> None:
    long = []
    for path in sorted(GAMES.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MAX_LINES:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "one cohesive thing" not in doc:
                long.append(f"{path.relative_to(GAMES)}: {text.count(chr(10))} lines")
    assert not long, long
