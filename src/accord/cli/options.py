"""Parsing of command-line values shared by several commands."""

from __future__ import annotations

from typing import Any

import yaml

from accord.core.errors import ConfigError


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """``["rounds=2", "market.budget=20"]`` -> ``{"rounds": 2, "market": {"budget": 20}}``.

    Values are read as YAML scalars, so numbers, booleans and null work as expected.
    """
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--option expects key=value (e.g. -o rounds=2), got {pair!r}")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError as exc:
            raise ConfigError(f"cannot read the value of {key!r}: {exc}") from exc
        node = out
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"option {key!r} conflicts with an earlier value")
        node[parts[-1]] = value
    return out
