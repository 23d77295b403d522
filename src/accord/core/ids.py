"""Identifiers that become file names: one safe pattern, checked wherever a name is read or
written.

Trace ids name trace files (``traces/<id>.json``), replays and forks. A trace is a file people
edit and pass around, so an id read from one is data, not a path: ``../../x`` or ``a/b`` must
never reach the file system. A safe id starts with a letter, digit or underscore (no leading
dot, so no hidden file and no ``..``), continues with letters, digits, ``_``, ``.`` and ``-``,
and is at most `MAX_ID_LEN` characters long.
"""

from __future__ import annotations

import re

from accord.core.errors import ConfigError

MAX_ID_LEN = 200
"""Longest id: with ``.json`` and the atomic writer's temporary suffix it stays under the
255-byte file-name limit of common file systems."""

SAFE_ID = re.compile(rf"[A-Za-z0-9_][A-Za-z0-9_.-]{{0,{MAX_ID_LEN - 1}}}")


def is_safe_id(value: object) -> bool:
    """True if `value` is a string usable as a file stem."""
    return isinstance(value, str) and SAFE_ID.fullmatch(value) is not None


def check_id(value: object, *, what: str = "trace id") -> str:
    """Return `value` if it is a safe id; raise `ConfigError` naming it otherwise."""
    if is_safe_id(value):
        assert isinstance(value, str)
        return value
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    raise ConfigError(
        f"{what} {shown} is not a safe file name: use 1-{MAX_ID_LEN} letters, digits, '_', "
        "'.' or '-', starting with a letter, digit or '_' (no '/', no leading dot)."
    )


def slug(text: str, *, fallback: str = "batch") -> str:
    """`text` made safe as an id part: other characters become ``-``; leading dots go."""
    out = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).lstrip(".-").rstrip("-")
    return out[:MAX_ID_LEN] or fallback
