"""A real S3-compatible server for the store tests: moto's server mode on 127.0.0.1, one per
test session (per worker when the suite runs in parallel), a fresh bucket per test."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

SECRET = "S3cr3t-Value-For-Store-Tests-9f2c"
"""The secret key the tests give the S3 client: it must reach no object of a run."""


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def s3_env(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment of a process that uses the test server (also set in this one)."""
    env = {
        "AWS_ACCESS_KEY_ID": "AKIDSTORETESTS0001",
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": s3_endpoint,
        "AWS_ALLOW_HTTP": "true",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


@pytest.fixture
def bucket(s3_env: dict[str, str]) -> str:
    """A new empty bucket on the test server, as ``s3://NAME``."""
    name = f"t-{uuid.uuid4().hex[:20]}"
    request = urllib.request.Request(f"{s3_env['AWS_ENDPOINT_URL']}/{name}", method="PUT")
    with urllib.request.urlopen(request, timeout=10) as reply:
        assert reply.status == 200
    return f"s3://{name}"


def _accord(
    *args: str, env: dict[str, str], cwd: Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run the ``accord`` command in a child process with `env` added."""
    full = {**os.environ, **env, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "accord", *args],
        env=full,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _start_accord(*args: str, env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    """Start the ``accord`` command in a child process (output to files in `cwd`)."""
    full = {**os.environ, **env, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "COLUMNS": "200"}
    tag = uuid.uuid4().hex[:8]
    with (cwd / f"out-{tag}.txt").open("w") as out, (cwd / f"err-{tag}.txt").open("w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "accord", *args], env=full, cwd=cwd, stdout=out, stderr=err
        )


@pytest.fixture
def accord() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``accord("report", LOCATION, env=..., cwd=...)``: the command in a child process."""
    return _accord


@pytest.fixture
def start_accord() -> Callable[..., subprocess.Popen[bytes]]:
    """Start the command in a child process; its output goes to files in `cwd`."""
    return _start_accord


@pytest.fixture
def normalized() -> Callable[[object], object]:
    """A trace without what differs between two plays of the same game (times)."""
    return _normalized


VOLATILE = frozenset({"t", "started_at", "ended_at", "latency_s", "accord_version"})


def _normalized(value: object) -> object:
    """A trace without what differs between two plays of the same game (times)."""
    if isinstance(value, dict):
        return {k: _normalized(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value
