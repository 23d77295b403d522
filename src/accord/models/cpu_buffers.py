"""Load llama.cpp models without its AMX weight buffers on CPUs that advertise AMX.

llama.cpp repacks weights into "extra" buffer types for the CPU's widest matrix instructions.
On some machines that advertise AMX (``amx_tile`` in ``/proc/cpuinfo``; seen on virtual
machines) its AMX matrix multiply crashes the process with a segmentation fault on the first
decode, taking the bundled model and any llama-cpp-python server down with it. Loading with
``use_extra_bufts = False`` uses the ordinary CPU kernels instead: a little slower on a large
model, no difference worth measuring on the bundled 135M one, and no crash.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_LOCK = threading.Lock()


def cpu_has_amx(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether the CPU advertises AMX tiles (Linux; False where the file is absent)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return " amx_tile" in text


@contextlib.contextmanager
def plain_cpu_buffers(llama_cpp: Any, *, enabled: bool | None = None) -> Iterator[None]:
    """While the block runs, `llama_cpp.Llama` loads models without extra buffer types
    (by default only on a CPU advertising AMX)."""
    if not (cpu_has_amx() if enabled is None else enabled):
        yield
        return
    with _LOCK:
        bindings = llama_cpp.llama_cpp
        original = bindings.llama_model_default_params

        def params() -> Any:
            value = original()
            if hasattr(value, "use_extra_bufts"):
                value.use_extra_bufts = False
            return value

        bindings.llama_model_default_params = params
        llama_cpp.llama_model_default_params = params
        try:
            yield
        finally:
            bindings.llama_model_default_params = original
            llama_cpp.llama_model_default_params = original
