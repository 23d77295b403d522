"""Checks on a run's models before any game starts, every problem named in one line.

A misspelt model (``local/smollm3``), a missing ``[local]`` extra or missing bundled model
file, and missing API keys would otherwise fail each game in turn (exit 1 and a table of
failures); a grid of several hosted providers would name one missing key per attempt. Here
every distinct model is checked once, without loading it or calling it, and what is wrong is
gathered: all missing keys together, then any other problem.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from accord.core.errors import AccordError, ConfigError, MissingAPIKeyError
from accord.core.registry import format_validation_error
from accord.models.options import ModelOptions
from accord.models.registry import get_model, providers

__all__ = ["check_models"]


def check_models(models: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
    """Refuse, in one line, a set of ``(provider/model, options)`` seats that cannot run.

    Each distinct pair is built once (hosted and server clients are cheap to build and check
    their key and address then); ``local/`` models are checked for llama.cpp and their model
    file without loading them.

    Raises:
        ConfigError: every missing API key at once (``set OPENAI_API_KEY (openai/x) and
            ANTHROPIC_API_KEY (anthropic/y)``), else the other problems joined with ``;``.
    """
    keys: dict[str, list[str]] = {}
    problems: list[str] = []
    seen: set[tuple[str, str]] = set()
    for spec, options in models:
        ident = (spec, repr(sorted(options.items())))
        if ident in seen:
            continue
        seen.add(ident)
        try:
            _check_one(spec, options)
        except MissingAPIKeyError as exc:
            keys.setdefault(exc.env_var, []).append(spec)
        except AccordError as exc:
            line = str(exc).strip()
            if line not in problems:
                problems.append(line)
    if keys:
        named = [f"{var} (for {', '.join(sorted(set(specs)))})" for var, specs in keys.items()]
        listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        exports = " ".join(f"{var}=..." for var in keys)
        raise ConfigError(
            f"missing API key{'s' if len(keys) > 1 else ''}: set {listed} "
            f"(for example `export {exports}`) and run again"
        )
    if problems:
        raise ConfigError("; ".join(problems))


def _check_one(spec: str, options: Mapping[str, Any]) -> None:
    provider = spec.partition("/")[0]
    if provider == "local" and _is_accords_local():
        from accord.models.local import INSTALL_HINT, resolve_model_path

        try:
            opts = ModelOptions.model_validate(dict(options))
        except ValidationError as exc:
            raise ConfigError(format_validation_error(exc, where=f"options of {spec}")) from exc
        # The model's name first: a misspelt one is the more useful thing to hear about.
        resolve_model_path(spec.partition("/")[2], opts)
        if not has_llama_cpp():
            raise ConfigError(f"{spec} needs llama-cpp-python (the [local] extra): {INSTALL_HINT}")
        return
    get_model(spec, **dict(options))


def has_llama_cpp() -> bool:
    """Whether llama-cpp-python (the ``[local]`` extra) is installed, found without importing
    it (importing loads its native library)."""
    return importlib.util.find_spec("llama_cpp") is not None


def _is_accords_local() -> bool:
    """True when ``local/`` is Accord's own provider (a plugin may not replace it, but a
    missing registration must not make the check import llama.cpp)."""
    builder = providers().get("local")
    return builder is None or builder.__module__ == "accord.models.providers"
