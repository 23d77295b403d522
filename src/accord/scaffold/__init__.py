"""`accord new game NAME`: write a working game package to start from.

The skeleton (files under ``game/`` here, each ending in ``.tmpl``) is a complete small game:
a pyproject declaring its entry points, a `Game` with one seat type and one action, a config
model, prompts as Jinja2 templates, reference agents, browser controls for people (declared
fields), a report, the conformance test, golden
traces with the script that regenerates them, and a docs page. Its package has the same role
files as Accord's own games (`ROLE_FILES`), each with the TODO notes an author needs. It passes
`accord.testing` as written; docs/writing-a-game.md walks through it.

Placeholders in the files (and ``_module_`` / ``_name_`` in their paths) are replaced by the
names derived from NAME; nothing else is rendered, so the prompt templates' own Jinja2 syntax
is copied as it is.
"""

from __future__ import annotations

import importlib.util
import keyword
import re
import subprocess
import sys
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from accord.core.errors import AccordError, ConfigError

ROLE_FILES: dict[str, str] = {
    "__init__.py": "the game's declaration",
    "engine.py": "the Game class only",
    "state.py": "the game's state",
    "requests.py": "observations and action specs",
    "actions.py": "reply parsing",
    "result.py": "the GameResult",
    "metrics.py": "the metrics",
    "report.py": "the `accord report` entry point",
    "protocols/__init__.py": "the reference agents",
    "human.py": "a person's seat",
    "judge.py": "the LLM judge",
    "templates/": "every prompt the game sends",
}
"""The files (relative to the game's package) every game has, Accord's own and the skeleton's,
by role: one folder shape (docs/writing-a-game.md)."""

SUFFIX = ".tmpl"
NAME = re.compile(r"^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$")
MAX_NAME = 40
RESERVED = frozenset({"accord", "test", "tests", "src", "docs", "scripts", "site", "setup"})
"""Names that would shadow Accord itself or a folder of the package layout."""


@dataclass(frozen=True)
class Names:
    """Everything derived from the NAME given on the command line."""

    name: str
    """The short alias (``meeting-point``), also the distribution name."""
    module: str
    """The import name (``meeting_point``)."""
    cls: str
    """The class-name stem (``MeetingPoint``)."""
    title: str
    game_id: str

    def substitutions(self) -> dict[str, str]:
        """Placeholder -> value."""
        return {
            "%%NAME%%": self.name,
            "%%DIST%%": self.name,
            "%%MODULE%%": self.module,
            "%%CLASS%%": self.cls,
            "%%TITLE%%": self.title,
            "%%GAME_ID%%": self.game_id,
        }


def check_name(name: str) -> Names:
    """The names derived from `name`, or a ConfigError saying what a valid name is."""
    if len(name) > MAX_NAME or not NAME.match(name):
        raise ConfigError(
            f"{name!r} is not a valid game name: use lower-case letters and digits, words "
            f"joined by '_' or '-', starting with a letter, at most {MAX_NAME} characters "
            "(e.g. meeting_point)"
        )
    module = name.replace("-", "_")
    if keyword.iskeyword(module) or module in sys.stdlib_module_names or module in RESERVED:
        raise ConfigError(
            f"{name!r} would shadow Python's or Accord's own module {module!r}; choose another "
            f"name (e.g. my_{module})"
        )
    found = importlib.util.find_spec(module)
    if found is not None and found.origin is not None:  # a plain folder here does not count
        raise ConfigError(
            f"a module named {module!r} is already installed here; a game package of that name "
            f"would shadow it: choose another name (e.g. my_{module})"
        )
    from accord.core.registry import game_class_or_none, game_ids

    game_ids()  # discover the installed games
    game_id = f"{name}-v1"
    for taken in (name, game_id):
        existing = game_class_or_none(taken)
        if existing is not None:
            raise ConfigError(
                f"{taken!r} is already an installed game ({existing.game_id}); choose another name"
            )
    words = re.split(r"[_-]", name)
    return Names(
        name=name,
        module=module,
        cls="".join(w.capitalize() for w in words),
        title=" ".join(words).capitalize(),
        game_id=game_id,
    )


def skeleton_files() -> dict[str, str]:
    """Relative path (with placeholders) -> text of every file of the skeleton."""
    root = resources.files("accord.scaffold").joinpath("game")
    out: dict[str, str] = {}

    def walk(folder: Traversable, prefix: str) -> None:
        for item in sorted(folder.iterdir(), key=lambda t: t.name):
            if item.is_dir():
                walk(item, f"{prefix}{item.name}/")
            elif item.name.endswith(SUFFIX):
                out[prefix + item.name.removesuffix(SUFFIX)] = item.read_text(encoding="utf-8")

    walk(root, "")
    return out


def write_skeleton(names: Names, folder: Path) -> list[Path]:
    """Write the skeleton's files for `names` into `folder` (which must not exist yet)."""
    if folder.exists():
        raise ConfigError(
            f"{folder} already exists; choose another NAME or --dir (nothing was overwritten)"
        )
    written = []
    subs = names.substitutions()
    for rel, text in skeleton_files().items():
        path = folder / rel.replace("_module_", names.module).replace("_name_", names.name)
        for key, value in subs.items():
            text = text.replace(key, value)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def write_golden(folder: Path) -> None:
    """Play the skeleton's golden cases and commit their traces (``scripts/regen_golden.py``,
    which works before the package is installed)."""
    done = subprocess.run(
        [sys.executable, str(folder / "scripts" / "regen_golden.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise AccordError(
            f"the new game's golden traces could not be written ({last}); run "
            f"`python {folder / 'scripts' / 'regen_golden.py'}` to see why"
        )


def new_game(name: str, parent: Path) -> tuple[Names, list[Path]]:
    """Check `name`, write the skeleton into ``parent/name`` and its golden traces."""
    names = check_name(name)
    folder = parent / names.name
    written = write_skeleton(names, folder)
    write_golden(folder)
    written += sorted((folder / "tests" / "golden").glob("*.json"))
    return names, written
