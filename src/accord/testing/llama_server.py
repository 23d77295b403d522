"""``python -m accord.testing.llama_server ARGS``: llama-cpp-python's OpenAI-compatible server
(``python -m llama_cpp.server ARGS``), loading its model the way the bundled model is loaded.

On a CPU advertising AMX, llama.cpp's AMX kernels crash some machines on the first request
(`accord.models.cpu_buffers`); llama-cpp-python's server has no flag to turn them off, so this
starts it with them off. The arguments are the server's own (``--model``, ``--n_ctx``, ...).
"""

from __future__ import annotations

import runpy


def main() -> None:
    """Run llama-cpp-python's server with the command line's arguments."""
    import llama_cpp

    from accord.models.cpu_buffers import plain_cpu_buffers

    with plain_cpu_buffers(llama_cpp):
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
