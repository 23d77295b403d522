"""A pytest plugin that counts the real sleeping of each test (for `bench/suite_time.py`).

Loaded with ``-p sleep_probe`` (this folder on ``PYTHONPATH``), it wraps `time.sleep` and
`asyncio.sleep` before any test module is imported: every call still sleeps, and the seconds
it took (until it returned or was cancelled) are added to the test running at the time
(set-up and tear-down included). Two sums: every sleep, in any thread or task (they may
overlap), and `time.sleep` on the main thread alone, which is wall time the run spends doing
nothing.
A fake clock never reaches these functions, so what is counted is real waiting. Sleeps in
subprocesses and waits on sockets, events or timeouts are not counted: the wall time of the
slowest tests shows those.

At the end it writes ``{"tests": {nodeid: {"sleep_s", "blocking_s", "wall_s"}}, "sleep_calls"}``
as JSON to the file named by ``SLEEP_PROBE_OUT``.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Generator
from typing import Any

import pytest

_current = ["(collection)"]
_lock = threading.Lock()
_sleep_s: dict[str, float] = {}
_blocking_s: dict[str, float] = {}
_wall_s: dict[str, float] = {}
_calls = [0]
_real_sleep = time.sleep
_real_async_sleep = asyncio.sleep


def _count(start: float, blocking: bool) -> None:
    took = time.perf_counter() - start
    with _lock:
        test = _current[0]
        _sleep_s[test] = _sleep_s.get(test, 0.0) + took
        if blocking:
            _blocking_s[test] = _blocking_s.get(test, 0.0) + took
        _calls[0] += 1


def _sleep(seconds: float) -> None:
    if not seconds or seconds <= 0:
        _real_sleep(seconds)
        return
    start = time.perf_counter()
    try:
        _real_sleep(seconds)
    finally:
        _count(start, threading.current_thread() is threading.main_thread())


async def _async_sleep(delay: float, result: Any = None) -> Any:
    if not delay or delay <= 0:
        return await _real_async_sleep(delay, result)
    start = time.perf_counter()
    try:
        return await _real_async_sleep(delay, result)
    finally:
        _count(start, False)


def pytest_configure(config: pytest.Config) -> None:
    del config
    time.sleep = _sleep
    asyncio.sleep = _async_sleep  # type: ignore[assignment]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    _current[0] = item.nodeid
    start = time.perf_counter()
    yield
    _wall_s[item.nodeid] = time.perf_counter() - start
    _current[0] = "(between tests)"


def pytest_unconfigure(config: pytest.Config) -> None:
    del config
    time.sleep = _real_sleep
    asyncio.sleep = _real_async_sleep
    out = os.environ.get("SLEEP_PROBE_OUT")
    if not out:
        return
    names = sorted(set(_sleep_s) | set(_wall_s))
    tests = {
        n: {
            "sleep_s": _sleep_s.get(n, 0.0),
            "blocking_s": _blocking_s.get(n, 0.0),
            "wall_s": _wall_s.get(n, 0.0),
        }
        for n in names
    }
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"tests": tests, "sleep_calls": _calls[0]}, fh)
