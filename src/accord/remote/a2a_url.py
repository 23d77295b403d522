"""Addresses of A2A agents (``agent: {a2a: URL}``), checked without the A2A SDK, and the
check that the SDK is installed.

Kept apart from `accord.remote.a2a_client` so that reading an experiment file does not import
the SDK. An agent card may name the address to call; Accord only ever calls the address the
experiment gave (`same_origin`), so a card cannot redirect the seat's token elsewhere.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from accord.core.errors import ConfigError

MAX_URL_CHARS = 2048
"""Longest agent URL accepted."""


def url_problem(url: str) -> str | None:
    """One line on what is wrong with `url` as an A2A agent's base URL, or None."""
    if len(url) > MAX_URL_CHARS:
        return f"a2a URL is {len(url)} characters; at most {MAX_URL_CHARS}"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError as exc:
        return f"a2a URL {url[:80]!r} cannot be read ({exc}); give e.g. http://127.0.0.1:9999"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"a2a URL {url[:80]!r} must start with http:// or https:// and name a host"
    if parts.username or parts.password:
        return "a2a URL must not hold credentials: put the token in the variable 'token_env' names"
    if parts.query or parts.fragment:
        return f"a2a URL {url[:80]!r} must not have a query or fragment"
    return None


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of `url`, the port filled in from the scheme."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, (parts.hostname or "").lower(), port


def same_origin(a: str, b: str) -> bool:
    """True when `a` and `b` name the same scheme, host and port."""
    try:
        return origin(a) == origin(b)
    except ValueError:
        return False


def free_port(host: str) -> int:
    """A port free on `host` now, for an agent Accord starts (it binds it a moment later)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def check_a2a_extra() -> None:
    """`ConfigError` saying what to install when the A2A SDK is missing."""
    try:
        import a2a.client  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            f"A2A seats need the 'a2a' extra ({exc.name or 'a2a-sdk'} is missing): "
            "pip install 'accord[a2a]'"
        ) from exc
