"""Parsing of command-line values shared by several commands."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import typer

from accord.core.errors import ConfigError
from accord.core.inputs import load_yaml


def parse_options(pairs: list[str] | None, *, flag: str = "--option") -> dict[str, Any]:
    """``["rounds=2", "market.budget=20"]`` -> ``{"rounds": 2, "market": {"budget": 20}}``.

    Values are read as YAML scalars, so numbers, booleans and null work as expected.
    """
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            example = "-M timeout_s=30" if flag == "-M" else "-o rounds=2"
            raise ConfigError(f"{flag} expects key=value (e.g. {example}), got {pair!r}")
        value = load_yaml(raw, source=f"the value of option {key!r}") if raw.strip() else ""
        node = out
        parts = key.split(".")
        if not all(p.strip() for p in parts):
            raise ConfigError(f"option name {key!r} has an empty part; write e.g. market.budget=20")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"option {key!r} conflicts with an earlier value")
        node[parts[-1]] = value
    return out


def out_path(value: str | None, *, flag: str = "--out") -> Path | None:
    """A directory option given as text: ``None`` when left out; an empty one is refused,
    since ``Path("")`` is the current directory and a run would spill its files there."""
    if value is None:
        return None
    if not value.strip():
        raise ConfigError(f"{flag} is empty: name a directory, e.g. {flag} runs/mine")
    return Path(value)


def deprecated_model_option(options: list[str] | None, old: list[str] | None) -> list[str] | None:
    """``-M`` values plus those given with a command's older ``-o`` for model options, with a
    note: everywhere else ``-o`` sets a game option (`accord run`, `play`, `scenario`)."""
    if not old:
        return options
    from accord.cli.main import err_console

    err_console.print(
        "note: -o/--option for model options is deprecated here; write -M/--model-option "
        "(-o sets a game option in accord run)",
        markup=False,
        highlight=False,
    )
    return [*(options or []), *old]


def model_seats(specs: Iterable[Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(model, options)`` of every model seat of `specs` (`GameSpec`s), for
    `accord.models.preflight.check_models`."""
    return [(a.model, dict(a.options)) for s in specs for a in s.agents if a.model is not None]


def model_options(base_url: str | None, pairs: list[str] | None) -> dict[str, Any]:
    """Model client options from ``--model-base-url`` and ``-M key=value`` (checked here).

    Raises:
        ConfigError: an unknown option or a bad value, naming it (``ModelOptions`` lists them).
    """
    from pydantic import ValidationError

    from accord.core.registry import format_validation_error
    from accord.core.secrets import secret_option_problem
    from accord.models.options import ModelOptions

    options = parse_options(pairs, flag="-M")
    if base_url is not None:
        if "base_url" in options and options["base_url"] != base_url:
            raise ConfigError("give the server address once: --model-base-url or -M base_url")
        options["base_url"] = base_url
    # Refused exactly as in an experiment file: a command line ends up in shell histories,
    # process lists and the run's files.
    problem = secret_option_problem(options)
    if problem is not None:
        raise ConfigError(f"-M / --model-base-url: {problem}")
    try:
        ModelOptions.model_validate(options)
    except ValidationError as exc:
        raise ConfigError(
            format_validation_error(exc, where="model options (-M / --model-base-url)")
        ) from exc
    return options


def with_model_options(agents: list[Any], options: dict[str, Any]) -> list[Any]:
    """`AgentSpec` list with `options` laid over every model seat's own options."""
    from accord.runner.specs import parse_agent

    if not options:
        return agents
    # `model_copy` skips validation: each seat is checked again (secrets included).
    return [
        parse_agent(a.model_copy(update={"options": {**a.options, **options}})) if a.model else a
        for a in agents
    ]


def dollars(value: float | None) -> float | None:
    """A typer callback: an amount of US dollars must be a finite number, zero or more."""
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise typer.BadParameter(f"give a number of dollars, zero or more (not {value})")
    return value


def run_location(value: str) -> Path:
    """A run named on the command line: a directory, or a store location (``s3://...``,
    ``gs://``, ``az://``, ``file://``) read into a local copy whose new files (a report, a
    fork) go back to the store when the command ends (`accord.store.local_view`)."""
    from accord.store import is_location, local_view

    if not is_location(value):
        return Path(value)
    try:
        view = local_view(value)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc)) from exc
    return view


def trace_location(value: str) -> Path:
    """A trace named on the command line: a file, or ``LOCATION/traces/<id>.json`` in a
    store (only that trace and the run's plan are copied)."""
    from accord.store import is_location, local_view

    if not is_location(value):
        return Path(value)
    run, sep, name = value.rpartition("/traces/")
    try:
        if not sep or "/" in name or not name.endswith(".json"):
            raise ConfigError(f"{value!r}: name a trace in a store as LOCATION/traces/<id>.json.")
        view = local_view(run, trace=name)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc)) from exc
    return view / "traces" / name
