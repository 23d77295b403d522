"""Secrets: which environment values are credentials, how to redact them from anything Accord
writes, and which option values must never be written into an experiment file.

Keys live in environment variables only (DESIGN "Trace file": no secret in any file, in any
encoding). Three lines of defence:

1. `check_no_secret_literals` refuses options that hold a credential (a secret-looking option
   name, a credential-looking value, a URL with ``user:password@``): experiment files are
   shared between colleagues, so the key goes in a variable named by ``api_key_env``.
2. `register_secret_env` records every variable a run reads a key from (a custom
   ``api_key_env`` may be called anything); together with variables whose names look like
   credentials, their values are the secrets.
3. `scrub_secrets` replaces each secret value in text about to be written, in every encoding
   Accord writes: raw, JSON-escaped (once and twice: a JSON document quoted inside another),
   ASCII-escaped JSON, CSV-quoted and URL-encoded; and in the encodings a server may echo a
   key back in: hex (either case) and base64 (standard and URL-safe alphabets, at each of
   the three byte alignments a key can have inside a longer encoded text).

The command line gets the same treatment as an experiment file: model options given with
``-M`` or ``--model-base-url`` are checked by `secret_option_problem` too (and refused), and
anything that records a command line (the run lock) writes it through `scrub_command_line`.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)
_MIN_SECRET_LEN = 8
"""Values of variables found by name must be this long: shorter ones ("1", "true") would
redact ordinary text."""
_MIN_REGISTERED_LEN = 4
"""A variable named as ``api_key_env`` holds a key whatever its name; only trivially short
values are left alone."""

_registered: set[str] = set()

# Words of an option name that mark its value as a credential. `max_tokens` is not one:
# names are split into words and "tokens" is not "token".
_SECRET_WORDS = frozenset(
    {
        "key", "apikey", "secret", "password", "passwd", "pwd", "token", "auth",
        "authorization", "credential", "credentials", "cookie", "bearer", "signature",
    }
)  # fmt: skip
_ALLOWED_NAMES = frozenset({"api_key_env"})
_SECRET_VALUE = re.compile(
    r"^\s*(sk-[A-Za-z0-9_-]{8,}|sk_(live|test)_|rk_(live|test)_|xox[abprs]-|gh[pousr]_"
    r"[A-Za-z0-9]{20,}|glpat-|AIza[0-9A-Za-z_-]{20,}|AKIA[0-9A-Z]{16}|"
    r"(Bearer|Basic|Token)\s+\S{8,})",
)
_SECRET_QUERY = re.compile(r"[?&][^=&#]*(key|token|secret|password|sig|auth)[^=&#]*=", re.I)


def register_secret_env(*names: str | None) -> None:
    """Treat the values of these environment variables as secrets from now on (process-wide)."""
    _registered.update(n for n in names if n)


def registered_secret_envs() -> frozenset[str]:
    """The variables registered so far (for tests and diagnostics)."""
    return frozenset(_registered)


_values_cache: tuple[tuple[Any, ...], frozenset[str], dict[str, str]] | None = None


def secret_values(extra_names: Iterable[str] = ()) -> dict[str, str]:
    """Environment values that may be credentials, by variable name.

    Scrubbing runs on every write (each batch of a live event log too), so the result is
    kept while the environment (its raw entries, compared as they are) and the names asked
    for stay the same; any change to either computes it again.
    """
    global _values_cache
    explicit = frozenset(_registered | set(extra_names))
    raw = getattr(os.environ, "_data", None)
    snapshot = tuple(raw.items()) if isinstance(raw, dict) else None
    cached = _values_cache
    hit = snapshot is not None and cached is not None and cached[0] == snapshot
    if hit and cached is not None and cached[1] == explicit:
        return dict(cached[2])
    out = _scan_environment(explicit)
    if snapshot is not None:
        _values_cache = (snapshot, explicit, out)
    return dict(out)


def _scan_environment(explicit: frozenset[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, raw in os.environ.items():
        value = raw.strip()
        if name in explicit:
            if len(value) >= _MIN_REGISTERED_LEN:
                out[name] = value
        elif _SECRET_NAME.search(name) and len(value) >= _MIN_SECRET_LEN:
            out[name] = value
    return dict(sorted(out.items()))


@functools.lru_cache(maxsize=256)
def _encoded_forms(value: str) -> tuple[str, ...]:
    return tuple(_forms(value))


def encoded_forms(value: str) -> list[str]:
    """`value` as it may appear in what Accord writes, longest first."""
    return list(_encoded_forms(value))


_MIN_ENCODED_LEN = 8
"""Hex and base64 forms are scrubbed only for secrets at least this long: the base64 core of
a shorter one is a few characters that ordinary encoded data contains by chance."""


def _binary_forms(value: str) -> set[str]:
    """Hex and base64 forms of `value` as they appear inside a longer encoded text.

    Base64 packs 3 bytes into 4 characters, so a key inside a longer text is encoded one of
    three ways depending on its byte offset; for each, only the characters made of the key's
    own bits are kept (neighbouring bytes change the ones at the edges).
    """
    raw = value.encode()
    if len(raw) < _MIN_ENCODED_LEN:
        return set()
    forms = {raw.hex(), raw.hex().upper()}
    for k in range(3):
        start, end = -(-8 * k // 6), 8 * (k + len(raw)) // 6
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.add(encode(b"\0" * k + raw).decode()[start:end])
    return forms


def _forms(value: str) -> list[str]:
    once = json.dumps(value, ensure_ascii=False)[1:-1]
    ascii_once = json.dumps(value)[1:-1]
    forms = {
        value,
        once,
        ascii_once,
        json.dumps(once, ensure_ascii=False)[1:-1],
        json.dumps(ascii_once)[1:-1],
        value.replace('"', '""'),
        quote(value, safe=""),
        quote_plus(value, safe=""),
        *_binary_forms(value),
    }
    return sorted((f for f in forms if f), key=len, reverse=True)


def scrub_secrets(text: str, extra_names: Iterable[str] = ()) -> str:
    """`text` with every secret value, in every encoded form, replaced by ``[redacted:NAME]``.

    A safety net, not the first line of defence: keys are never put into options or traces on
    purpose, but a server's error message or an echoing model may quote one back.
    """
    secrets = secret_values(extra_names)
    # Longest secrets first, so a key that contains another is redacted whole.
    for name, value in sorted(secrets.items(), key=lambda kv: -len(kv[1])):
        for form in _encoded_forms(value):
            if form in text:
                text = text.replace(form, f"[redacted:{name}]")
    return text


def secret_option_problem(options: Mapping[str, Any], prefix: str = "") -> str | None:
    """Why `options` (nested mappings included) hold a credential, or None if they do not."""
    for key, value in options.items():
        name = f"{prefix}{key}"
        if name not in _ALLOWED_NAMES and _secret_word(str(key)):
            return (
                f"option {name!r} looks like a secret; put the key in an environment variable "
                "and give its name as 'api_key_env'"
            )
        problem = _value_problem(name, value)
        if problem is not None:
            return problem
    return None


def _value_problem(name: str, value: Any) -> str | None:
    if isinstance(value, Mapping):
        return secret_option_problem(value, f"{name}.")
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            if (problem := _value_problem(f"{name}[{i}]", item)) is not None:
                return problem
        return None
    if not isinstance(value, str):
        return None
    if _SECRET_VALUE.match(value):
        return (
            f"option {name!r} holds what looks like a credential; never write a key into an "
            "experiment file: put it in an environment variable and name it in 'api_key_env'"
        )
    if "://" in value:
        try:
            parts = urlsplit(value.strip())
        except ValueError:
            return None
        if parts.username is not None or parts.password is not None or "@" in parts.netloc:
            return (
                f"option {name!r} holds a URL with a user name or password; remove "
                "'user:password@' and give the key through 'api_key_env'"
            )
        if _SECRET_QUERY.search("?" + parts.query if parts.query else ""):
            return (
                f"option {name!r} holds a URL with a key in its query string; remove it and "
                "give the key through 'api_key_env'"
            )
    return None


def _secret_word(name: str) -> bool:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    words = {w.lower() for w in re.split(r"[\s_.\-]+", spaced) if w}
    return bool(words & _SECRET_WORDS)


_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/@\s?#]*)@")
_QUERY_SECRET = re.compile(
    r"(?P<name>[?&][^=&#\s]*(key|token|secret|password|passwd|sig|auth)[^=&#\s]*=)"
    r"(?P<value>[^&#\s]*)",
    re.I,
)
_SECRET_TOKEN = re.compile(
    r"(sk-[A-Za-z0-9_-]{8,}|sk_(live|test)_\S+|rk_(live|test)_\S+|xox[abprs]-\S+|gh[pousr]_"
    r"[A-Za-z0-9]{20,}|glpat-\S+|AIza[0-9A-Za-z_-]{20,}|AKIA[0-9A-Z]{16})"
)
_AUTH_SCHEME = re.compile(r"\b(Bearer|Basic|Token)(\s+|=)\S+", re.I)
_REDACTED = "[redacted]"
_OPTION_NAME = re.compile(r"-{0,2}[A-Za-z_][\w.-]*")
_MAPPING_ITEM = re.compile(
    r"(?P<key>[\"']?(?P<name>[A-Za-z_][\w.-]*)[\"']?\s*:\s*)"
    r"(?P<value>\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^,{}\[\]\s:]+)"
)


def scrub_command_line(argv: Sequence[str] | str) -> str:
    """A command line as text with every credential in it replaced by ``[redacted]``.

    Covered: secret environment values (`scrub_secrets`), the user name and password of a
    URL, key-like query fields (``?api_key=``), the value of any ``name=value`` or
    ``--name value`` whose name has a secret word in it (``-M extra_params.password=...``,
    ``-M extra_params.headers.Authorization=...``, ``--api-key X``), ``Bearer ...``/``Basic
    ...`` values and tokens shaped like a provider's key (``sk-...``).
    """
    args = [argv] if isinstance(argv, str) else list(argv)
    out: list[str] = []
    redact_next = False
    for arg in args:
        if redact_next:
            out.append(_REDACTED)
            redact_next = False
            continue
        name, sep, _ = arg.partition("=")
        if sep and _OPTION_NAME.fullmatch(name) and _secret_word(name.rsplit(".", 1)[-1]):
            out.append(f"{name}={_REDACTED}")
            continue
        if arg.startswith("--") and not sep and _secret_word(arg[2:]):
            out.append(arg)
            redact_next = True
            continue
        out.append(_scrub_arg(arg))
    return scrub_secrets(" ".join(out))


def _scrub_arg(arg: str) -> str:
    # ``-M 'extra_params={headers: {Authorization: ...}}'``: a flow mapping in one value.
    arg = _MAPPING_ITEM.sub(
        lambda m: f"{m['key']}{_REDACTED}" if _secret_word(m["name"]) else m[0], arg
    )
    arg = _URL_USERINFO.sub(lambda m: f"{m['scheme']}{_REDACTED}@", arg)
    arg = _QUERY_SECRET.sub(lambda m: f"{m['name']}{_REDACTED}", arg)
    arg = _AUTH_SCHEME.sub(lambda m: f"{m[1]} {_REDACTED}", arg)
    return _SECRET_TOKEN.sub(_REDACTED, arg)
