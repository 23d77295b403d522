"""Where a run lives: a plain path, or a location in an object store (`s3://`, `gs://`,
`az://`, `file://`), and how a location is opened.

A location names a bucket (or a folder, for ``file://``) and a prefix inside it; the run's
files are the objects under that prefix. Credentials come from the environment each cloud's
own tools read (``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` / ``AWS_SESSION_TOKEN``,
``AWS_ENDPOINT_URL`` and ``AWS_ALLOW_HTTP`` for an S3-compatible server;
``GOOGLE_APPLICATION_CREDENTIALS``; ``AZURE_STORAGE_ACCOUNT_NAME`` with a key, a SAS token or a
service principal), never from the location itself: a location with ``user:password@`` in it
is refused, so no key is ever written into a plan, a lease record or a command line kept in
the run.

The storage library is obstore (the Python face of the Rust ``object_store`` crate): one
self-contained wheel speaks S3, GCS, Azure and the local file system alike, and it offers the
one operation this layer is built on, *create only if absent* (``If-None-Match: *`` on S3,
generation preconditions on GCS, ``If-None-Match`` on Azure, a no-replace link locally), on
every backend; fsspec's S3 driver would pull in aiobotocore, whose pins fight the boto3 that
LiteLLM brings, and offers no create-if-absent on every backend.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from accord.core.errors import ConfigError

if TYPE_CHECKING:
    from obstore.store import ClientConfig

SCHEMES = ("s3", "gs", "az", "file")
"""The location schemes a run may live at."""

_AWS_CREDENTIALS = (
    "AWS_ACCESS_KEY_ID",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_SKIP_SIGNATURE",
)
"""Environment variables any one of which gives an S3 client its credentials (or says none
are needed); without them the client would wait on a cloud metadata service."""


def is_location(value: object) -> bool:
    """True if `value` is text naming an object-store location (``s3://...`` and the rest),
    as opposed to a plain path."""
    if not isinstance(value, str):
        return False
    scheme, sep, _ = value.partition("://")
    return bool(sep) and scheme.lower() in SCHEMES


def check_location(value: str) -> str:
    """`value` as a normalised location (no trailing slash), or a `ConfigError` saying what
    is wrong with it: an unknown scheme, a missing bucket, credentials written into it,
    ``..`` in its path, a query string."""
    parts = urlsplit(value.strip())
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise ConfigError(
            f"{value!r} is not a run location: use a path, or s3://BUCKET/PREFIX, "
            "gs://BUCKET/PREFIX, az://CONTAINER/PREFIX or file:///ABSOLUTE/PATH."
        )
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ConfigError(
            f"{scheme}:// location has credentials in it; remove them and set them in the "
            "environment instead (e.g. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)."
        )
    if parts.query or parts.fragment:
        raise ConfigError(f"{value!r}: a run location takes no '?' or '#' part; remove it.")
    path = unquote(parts.path)
    segments = [s for s in path.split("/") if s]
    if any(s in (".", "..") for s in segments):
        raise ConfigError(f"{value!r}: '.' and '..' are not allowed in a run location.")
    if scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise ConfigError(f"{value!r}: write a local folder as file:///ABSOLUTE/PATH.")
        if not segments:
            raise ConfigError(f"{value!r}: name a folder, e.g. file:///data/runs/demo.")
        return "file:///" + "/".join(segments)
    if not parts.netloc:
        raise ConfigError(f"{value!r}: name a bucket, e.g. {scheme}://my-bucket/runs/demo.")
    return f"{scheme}://{parts.netloc}" + ("/" + "/".join(segments) if segments else "")


def split_location(location: str) -> tuple[str, str, str]:
    """``(scheme, bucket or folder, prefix)`` of a normalised location."""
    parts = urlsplit(location)
    if parts.scheme == "file":
        return "file", unquote(parts.path), ""
    return parts.scheme, parts.netloc, unquote(parts.path).strip("/")


def open_backend(location: str) -> tuple[Any, str]:
    """The obstore store for `location` and the prefix of the run inside it.

    Raises:
        ConfigError: no credentials in the environment for the location's cloud.
    """
    try:
        from obstore.store import AzureStore, GCSStore, LocalStore, S3Store
    except ImportError as exc:
        raise ConfigError(
            f"{location} needs obstore, a dependency of Accord: reinstall Accord."
        ) from exc

    scheme, bucket, prefix = split_location(location)
    client: ClientConfig = {"connect_timeout": "10s", "timeout": "120s"}
    # Given client options replace those the environment would set: keep this one.
    allow = {"s3": "AWS_ALLOW_HTTP", "gs": "GOOGLE_ALLOW_HTTP", "az": "AZURE_ALLOW_HTTP"}
    if os.environ.get(allow.get(scheme, ""), "").strip().lower() in ("1", "true", "yes"):
        client["allow_http"] = True
    if scheme == "file":
        root = Path(bucket)
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"Cannot create {root}: {exc.strerror or exc}; choose a folder you can write to."
            ) from exc
        return LocalStore(root), ""
    if scheme == "s3":
        if not any(os.environ.get(name) for name in _AWS_CREDENTIALS):
            raise ConfigError(
                f"No credentials for {location}: set AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY (and AWS_ENDPOINT_URL for an S3-compatible server) in "
                "the environment."
            )
        return S3Store(bucket, client_options=client), prefix  # reads AWS_* itself
    if scheme == "gs":
        return GCSStore(bucket, client_options=client), prefix
    return AzureStore(bucket, client_options=client), prefix
