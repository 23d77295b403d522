"""Shared test set-up: no network, no stray global state; each command's ``--help`` is
rendered once per test session (`cli_help`), however many tests read it."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@functools.cache
def _help_text(*command: str) -> str:
    from typer.testing import CliRunner

    from accord.cli.main import app

    result = CliRunner(env={"COLUMNS": "300"}).invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="session")
def cli_help() -> Callable[..., str]:
    """``cli_help("serve")`` -> the text of ``accord serve --help`` (exit code 0 checked),
    rendered 300 columns wide the first time any test asks for it."""
    return _help_text
