"""The version headers of a provider's reply: what the HTTP response says about the API or model
version that answered (OpenAI's ``openai-version``, Anthropic's ``anthropic-version``, a
gateway's ``x-model-version``), recorded with each model call beside the served model id and
fingerprint, so a change of what is served under one name can be seen (`accord.runner.served`).

A header counts as a version when its name, lower-cased and without LiteLLM's
``llm_provider-`` prefix, ends in ``version`` (``openai-version``, ``x-model-version``,
``api-version``). Request ids (``x-request-id``, ``request-id``) and everything else are not
versions: they change with every call and would flag every run as changed. The values are the
provider's text (untrusted): a few headers, each name and value cut short.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_HEADERS = 8
"""Version headers kept per reply."""
MAX_CHARS = 100
"""Characters kept of a header's name and of its value."""
_PREFIX = "llm_provider-"


def is_version_header(name: str) -> bool:
    """Whether a response header named `name` states a version (module docstring)."""
    key = name.lower().removeprefix(_PREFIX)
    return key.endswith("version") and "request-id" not in key


def version_headers(headers: Mapping[str, Any] | None) -> dict[str, str]:
    """The version headers among `headers`, by lower-case name (empty when there are none)."""
    if headers is None:
        return {}
    out: dict[str, str] = {}
    try:
        items = list(headers.items())
    except (AttributeError, TypeError):
        return {}
    for name, value in items:
        if not isinstance(name, str) or not is_version_header(name):
            continue
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            continue
        text = str(value).strip()
        if text:
            out[name.lower().removeprefix(_PREFIX)[:MAX_CHARS]] = text[:MAX_CHARS]
        if len(out) >= MAX_HEADERS:
            break
    return dict(sorted(out.items()))
