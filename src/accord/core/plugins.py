"""Games, reference agents, model providers and reports from installed packages.

Accord finds them through package entry points, the way test runners find their plugins. A
package declares them in its ``pyproject.toml``::

    [project.entry-points."accord.games"]
    meeting-point = "meeting_point:INFO"                # alias = the game's GameInfo

    [project.entry-points."accord.models"]
    echo2 = "my_provider:build"                         # prefix = (model, spec, opts) -> client

A game's declaration (`accord.core.gameinfo.GameInfo`) carries its reference agents, report and
everything else. The older form still loads: a bare `Game` subclass in ``accord.games``, with
``accord.agents`` (game id = {agent name: factory}, also for adding agents to another package's
game) and ``accord.reports`` (game id = (traces, folder) -> paths) beside it.

Accord's own three games and the built-in providers are declared the same way in Accord's
``pyproject.toml``. Each registry (`accord.core.registry`,
`accord.agents.reference`, `accord.models.registry`, `accord.analysis.report`) loads its group
on first use. An entry point that cannot be loaded or that breaks its group's contract is left
out and recorded as a `PluginProblem` naming the package and the fix (`problems()`; ``accord
games`` prints them); the other plugins load as usual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from accord.core.errors import AccordError

GAMES = "accord.games"
AGENTS = "accord.agents"
MODELS = "accord.models"
REPORTS = "accord.reports"
GROUPS = (GAMES, AGENTS, MODELS, REPORTS)

OWN_PACKAGE = "accord"
"""Accord's own distribution: its entry points load first, so a plugin never shadows them."""


@dataclass(frozen=True)
class PluginProblem:
    """An entry point that was left out, and what its author should do about it."""

    package: str
    """The distribution that declares the entry point."""
    group: str
    name: str
    value: str
    """The ``module:attribute`` the entry point names."""
    error: str
    fix: str

    def line(self) -> str:
        """One line for a person: package, entry point, what is wrong, the fix."""
        return (
            f"package {self.package!r}: entry point {self.name!r} in group {self.group!r} "
            f"({self.value}) was skipped: {self.error}. Fix: {self.fix}"
        )


@dataclass(frozen=True)
class Plugin:
    """A loaded entry point."""

    package: str
    group: str
    name: str
    value: str
    obj: Any


_PROBLEMS: dict[tuple[str, str, str], PluginProblem] = {}
_RESET_HOOKS: list[Callable[[], None]] = []


def package_of(ep: metadata.EntryPoint) -> str:
    """The name of the distribution that declares `ep` (``"?"`` when unknown)."""
    dist = getattr(ep, "dist", None)
    return str(dist.name) if dist is not None else "?"


def entry_points(group: str) -> list[metadata.EntryPoint]:
    """The entry points of `group`: Accord's own first, then by package and name.

    Raises:
        AccordError: Accord's own entry points are missing (an install whose metadata predates
            them, or a source tree on ``PYTHONPATH`` that was never installed).
    """
    found = list(metadata.entry_points(group=group))
    if group in (GAMES, MODELS) and not any(package_of(ep) == OWN_PACKAGE for ep in found):
        raise AccordError(
            f"Accord's own {group!r} entry points are not installed, so its built-in games and "
            "providers cannot be found; reinstall Accord (`pip install -e .` in its folder, or "
            "`make .venv/.dev`)"
        )
    return sorted(found, key=lambda ep: (package_of(ep) != OWN_PACKAGE, package_of(ep), ep.name))


def load(ep: metadata.EntryPoint) -> Plugin | None:
    """Import one entry point, or record why it could not be imported and return None."""
    module = ep.value.partition(":")[0]
    try:
        obj = ep.load()
    except Exception as exc:  # a plugin's own bug must not stop the other plugins
        report(
            package_of(ep),
            ep.group,
            ep.name,
            ep.value,
            f"importing it raised {type(exc).__name__}: {exc}",
            f"make `import {module}` work in this environment (install the "
            "package's dependencies, or correct the module path in its pyproject.toml)",
        )
        return None
    except (SystemExit, KeyboardInterrupt) as exc:
        # A module that exits (or raises KeyboardInterrupt) as it is imported would otherwise
        # end every accord command, silently, with its exit code.
        what = f"sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else "KeyboardInterrupt"
        report(
            package_of(ep),
            ep.group,
            ep.name,
            ep.value,
            f"importing it raised {what}",
            f"a module must not exit when imported: remove the sys.exit / interrupt from "
            f"`{module}` (or uninstall {package_of(ep)!r})",
        )
        return None
    return Plugin(package_of(ep), ep.group, ep.name, ep.value, obj)


def report(package: str, group: str, name: str, value: str, error: str, fix: str) -> None:
    """Record a problem with one entry point (kept until `refresh`)."""
    _PROBLEMS[(group, package, name)] = PluginProblem(package, group, name, value, error, fix)


def reject(plugin: Plugin, error: str, fix: str) -> None:
    """Record that a loaded entry point breaks its group's contract."""
    report(plugin.package, plugin.group, plugin.name, plugin.value, error, fix)


def problems(group: str | None = None) -> list[PluginProblem]:
    """Problems found so far (in `group`, or in every group), in a stable order."""
    return [p for key, p in sorted(_PROBLEMS.items()) if group is None or p.group == group]


def on_refresh(hook: Callable[[], None]) -> None:
    """Call `hook` on `refresh` (each registry forgets what it discovered)."""
    _RESET_HOOKS.append(hook)


def refresh() -> None:
    """Forget every discovered plugin and problem; the next use discovers them again (after a
    package was installed in a running process, e.g. in a notebook or a test)."""
    _PROBLEMS.clear()
    for hook in _RESET_HOOKS:
        hook()
