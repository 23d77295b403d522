"""``python -m accord.testing.llama_server ARGS``: llama-cpp-python's OpenAI-compatible server
(``python -m llama_cpp.server ARGS``), loading its model the way the bundled model is loaded.

On a CPU advertising AMX, llama.cpp's AMX kernels crash some machines on the first request
(`accord.models.cpu_buffers`); llama-cpp-python's server has no flag to turn them off, so this
starts it with them off. The arguments are the server's own (``--model``, ``--n_ctx``, ...).

`running` starts it in a child process with the bundled model on a free 127.0.0.1 port, for
the tests that play against a real server, and stops it afterwards.
"""

from __future__ import annotations

import runpy
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

START_S = 180.0
"""How long the server may take to load the model and answer."""


def main() -> None:
    """Run llama-cpp-python's server with the command line's arguments."""
    import llama_cpp

    from accord.models.cpu_buffers import plain_cpu_buffers

    with plain_cpu_buffers(llama_cpp):
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


@contextmanager
def running(log_path: Path, *args: str, alias: str = "smollm2") -> Iterator[str]:
    """The bundled model served by llama-cpp-python's server on 127.0.0.1 (a free port), with
    the server's own `args` (``--n_ctx 4096``, ``--chat_format ...``); yields the base URL
    (``http://127.0.0.1:PORT/v1``) once ``/models`` answers, and stops the server on exit.

    The server's output goes to `log_path` (a file, not a pipe nobody reads, so a talkative
    server never blocks). Raises `RuntimeError`, with the log's tail, when the server exits or
    does not answer within `START_S`.
    """
    from accord.models.local import bundled_gguf

    gguf = bundled_gguf()
    if gguf is None:
        raise RuntimeError("the bundled model is not installed (make test installs it)")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    command = [sys.executable, "-m", "accord.testing.llama_server", "--model", str(gguf)]
    command += ["--model_alias", alias, "--host", "127.0.0.1", "--port", str(port), *args]
    base = f"http://127.0.0.1:{port}/v1"
    with log_path.open("w") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_until_up(proc, base, log_path)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_until_up(proc: subprocess.Popen[bytes], base: str, log_path: Path) -> None:
    deadline = time.monotonic() + START_S
    while True:
        if proc.poll() is not None:
            tail = log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"the llama.cpp server exited (code {proc.returncode}): {tail}")
        try:
            with urllib.request.urlopen(f"{base}/models", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the llama.cpp server did not answer within {START_S:g} s")
        time.sleep(0.5)


if __name__ == "__main__":
    main()
