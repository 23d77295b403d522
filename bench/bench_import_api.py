"""What ``import accord`` costs, and what the first use of the Python API then loads.

Prints numbers, asserts nothing. Each measurement is a fresh interpreter with ``-X importtime``
(the time of the ``accord`` line: itself plus whatever it imports):

1. ``import accord``: should import no other module (the API names load on first use);
2. ``import accord; accord.run``: the run machinery, loaded by the first attribute access.

Baseline, in the same run: ``import json`` (a small standard-library package), so the ratio
says how ``import accord`` compares with importing something a script takes for free.

Usage: python bench/bench_import_api.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys


def import_us(code: str, module: str) -> tuple[int, int]:
    """Cumulative import time of `module` (µs) and how many modules ``code`` loaded."""
    probe = f"{code}; import sys; print(len(sys.modules))"
    command = [sys.executable, "-X", "importtime", "-c", probe]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    total = 0
    for line in out.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == module:
            total = int(parts[1])
    return total, int(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    cases = [
        ("import json", "import json", "json"),
        ("import accord", "import accord", "accord"),
        ("accord.run (first use)", "import accord; accord.run", "accord.api"),
    ]
    results = {}
    for label, code, module in cases:
        runs = [import_us(code, module) for _ in range(args.repeats)]
        results[label] = (statistics.median(t for t, _ in runs), runs[0][1])
    bare = import_us("pass", "")[1]  # what the interpreter loads by itself
    base = results["import json"][0] or 1
    for label, (us, modules) in results.items():
        print(
            f"{label:24s} {us / 1000:8.2f} ms  {us / base:7.2f}x json  "
            f"{modules - bare:4d} modules beyond a bare interpreter"
        )


if __name__ == "__main__":
    main()
