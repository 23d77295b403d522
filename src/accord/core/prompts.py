"""Prompt templates: every text a game sends a model, as files a researcher can edit.

Each game ships its prompts as package data, one Jinja2 template per section
(``<game package>/templates/<name>.j2``, found through `Game.prompts_module`). A folder given
as ``prompts: DIR`` in an experiment (or ``--prompts DIR``) overrides any of them, file by
file: a file there named like a default replaces it, the rest stay. ``accord prompts GAME
--dump DIR`` writes the defaults to start from.

Templates are rendered by Jinja2's *sandboxed* environment (a template cannot reach Python
objects' internals or the file system) with ``StrictUndefined`` (a misspelt variable is an
error, never an empty string), ``trim_blocks`` and ``lstrip_blocks`` (block tags take no room
in the output) and one trailing newline dropped, so a file may end with one. The game
passes plain values (strings, numbers, booleans, lists) that are already formatted.

Checks, when the templates are loaded (before any game is played): an override folder must
exist and hold only known ``.j2`` names, none of them a link to a file outside the folder;
every file must parse; and an override must still use
each variable the game lists as required for that template (the project list, the budget...),
so a model is never sent a prompt without the facts it needs. Each check fails with one line
naming the file and, where it applies, the variable.

Rendering is bounded (`accord.core.bounded_render`): a template that loops too long or makes
too long a prompt is stopped with one line naming it, never left to hang a run.

Every game records the templates it rendered in its trace (``prompt_templates``: name, SHA-256
of the template text, and whether it was the default or an override), so a reader can tell
which wording produced a result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

from accord.core.errors import ConfigError

SUFFIX = ".j2"
MAX_TEMPLATE_BYTES = 256 * 1024


@dataclass(frozen=True)
class TemplateSpec:
    """What a game declares about one template: its name and the variables it must use."""

    name: str
    required: frozenset[str] = frozenset()
    doc: str = ""


@dataclass
class PromptSet:
    """The templates of one game, defaults with overrides applied, ready to render."""

    game: str
    specs: Mapping[str, TemplateSpec]
    sources: dict[str, str]
    origin: dict[str, str]
    """``"default"`` or ``"override"`` per template."""
    _compiled: dict[str, Any] = field(default_factory=dict, repr=False)

    def render(self, template: str, /, **values: Any) -> str:
        """The text of `template` with `values`."""
        from accord.core.bounded_render import RenderLimitError, render_bounded

        compiled = self._compiled.get(template)
        if compiled is None:
            compiled = self._compiled[template] = _environment().compile_bounded(
                self.sources[template]
            )
        try:
            # A template ending in a block tag leaves its last line's newline behind: drop one,
            # so the text ends where the last line does (a value's own newline is kept).
            return render_bounded(compiled, values).removesuffix("\n")
        except RenderLimitError as exc:
            raise ConfigError(
                f"prompt template {template}{SUFFIX} ({self.origin[template]}) of {self.game} "
                f"was stopped: {exc}; simplify the template"
            ) from exc
        except Exception as exc:  # an override using a variable the game does not pass
            raise ConfigError(
                f"prompt template {template}{SUFFIX} ({self.origin[template]}) of {self.game} "
                f"could not be rendered: {exc}"
            ) from exc

    def record(self) -> dict[str, dict[str, str]]:
        """``{name: {"sha256", "source"}}`` of every template, for the trace."""
        return {
            name: {
                "sha256": hashlib.sha256(self.sources[name].encode()).hexdigest(),
                "source": self.origin[name],
            }
            for name in sorted(self.sources)
        }


@cache
def _environment() -> Any:
    from jinja2 import StrictUndefined

    from accord.core.bounded_render import BoundedEnvironment

    return BoundedEnvironment(
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )


def default_sources(package: str, specs: Mapping[str, TemplateSpec]) -> dict[str, str]:
    """The shipped templates of a game package (``<package>.templates``)."""
    folder = resources.files(package).joinpath("templates")
    return {name: folder.joinpath(name + SUFFIX).read_text(encoding="utf-8") for name in specs}


def variables_of(source: str) -> set[str]:
    """The variables a template reads."""
    from jinja2 import meta

    return set(meta.find_undeclared_variables(_environment().parse(source)))


def load_prompts(
    game: str, package: str, specs: Mapping[str, TemplateSpec], override: str | Path | None
) -> PromptSet:
    """A game's templates with `override`'s files laid over the defaults, checked (see the
    module docstring)."""
    folder = str(override) if override else None
    return _load(game, package, tuple(specs.values()), folder, _fingerprint(folder))


def _fingerprint(folder: str | None) -> tuple[tuple[str, int, int], ...]:
    """Names, sizes and modification times of a folder's files: an edited template is read
    again, an unchanged one is not (every game of a run loads the same templates)."""
    if folder is None or not Path(folder).is_dir():
        return ()
    out = []
    for path in sorted(Path(folder).iterdir()):
        try:
            st = path.stat()
        except OSError:
            continue
        out.append((path.name, st.st_size, st.st_mtime_ns))
    return tuple(out)


@cache
def _load(
    game: str,
    package: str,
    specs: tuple[TemplateSpec, ...],
    override: str | None,
    fingerprint: tuple[tuple[str, int, int], ...],
) -> PromptSet:
    del fingerprint  # part of the cache key only
    by_name = {s.name: s for s in specs}
    sources = default_sources(package, by_name)
    origin = dict.fromkeys(sources, "default")
    if override is not None:
        folder = Path(override)
        if not folder.is_dir():
            raise ConfigError(
                f"prompts folder {folder} does not exist; write the defaults there first with "
                f"`accord prompts {game} --dump {folder}`"
            )
        inside = folder.resolve()
        for path in sorted(folder.iterdir()):
            if path.name.startswith(".") or path.is_dir():
                continue
            if path.is_symlink() and not path.resolve().is_relative_to(inside):
                raise ConfigError(
                    f"prompt template {path} is a link to a file outside the prompts folder "
                    f"{folder}; copy the file into the folder instead"
                )
            name = path.name.removesuffix(SUFFIX)
            if not path.name.endswith(SUFFIX) or name not in by_name:
                raise ConfigError(
                    f"prompts folder {folder}: {path.name} is not a template of {game}; its "
                    f"templates are {', '.join(n + SUFFIX for n in by_name)}"
                )
            if path.stat().st_size > MAX_TEMPLATE_BYTES:
                raise ConfigError(f"prompt template {path} is over {MAX_TEMPLATE_BYTES} bytes")
            try:
                sources[name] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                raise ConfigError(f"prompt template {path} is not UTF-8 text") from exc
            origin[name] = "override"
    from jinja2 import TemplateSyntaxError

    for name, source in sources.items():
        try:
            used = variables_of(source)
        except TemplateSyntaxError as exc:
            raise ConfigError(
                f"prompt template {name}{SUFFIX} ({origin[name]}) of {game}: line {exc.lineno}: "
                f"{exc.message}"
            ) from exc
        missing = sorted(by_name[name].required - used)
        if missing:
            raise ConfigError(
                f"prompt template {name}{SUFFIX} ({origin[name]}) of {game} no longer uses "
                f"{', '.join('{{ ' + m + ' }}' for m in missing)}, which the game needs there; "
                "put it back"
            )
    return PromptSet(game=game, specs=by_name, sources=sources, origin=origin)


def prompt_module(game: str) -> ModuleType:
    """The module holding `game`'s templates (`Game.prompts_module`); `game` is an id or alias."""
    import importlib

    from accord.core.registry import game_class, game_ids

    cls = game_class(game)
    if cls.prompts_module is None:
        with_templates = [g for g in game_ids() if game_class(g).prompts_module]
        raise ConfigError(
            f"{cls.game_id} has no prompt templates (its prompts are built in code); games "
            f"with templates: {', '.join(with_templates)}"
        )
    return importlib.import_module(cls.prompts_module)


def game_templates(game: str, override: str | Path | None = None) -> PromptSet:
    """`game`'s templates (an id or alias, e.g. ``"calendar"``), with `override` laid over them."""
    module = prompt_module(game)
    return load_prompts(game, module.__package__ or "", module.TEMPLATES, override)


def pick(game: str, given: PromptSet | None) -> PromptSet:
    """`given`, or `game`'s default templates (for callers that pass none)."""
    return given if given is not None else game_templates(game)


def check_override(game: str, value: str | None) -> str | None:
    """A game config's ``prompts`` validator: load and check the override now, so a bad one
    stops the run before any game starts."""
    if value is not None:
        game_templates(game, value)
    return value


def dump_defaults(package: str, specs: Mapping[str, TemplateSpec], out: Path) -> list[Path]:
    """Write a game's default templates to `out` (refusing to overwrite a file)."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, source in default_sources(package, specs).items():
        path = out / (name + SUFFIX)
        if path.exists():
            raise ConfigError(f"{path} already exists; dump into an empty folder")
        path.write_text(source, encoding="utf-8")
        written.append(path)
    return written
