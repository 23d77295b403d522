"""Seeded randomness. Every random choice in Accord flows from one integer seed.

Never use the module-level `random` functions or `numpy.random` globals: derive an owned
generator with `make_rng(seed, *labels)` so independent parts of a game draw from independent
streams, and adding a draw in one part never shifts another.
"""

from __future__ import annotations

import hashlib
import random


def derive_seed(seed: int, *labels: str | int) -> int:
    """A 63-bit seed derived from `seed` and labels, stable across Python versions and runs."""
    h = hashlib.blake2b(digest_size=8)
    h.update(str(int(seed)).encode())
    for label in labels:
        h.update(b"\x1f")
        h.update(str(label).encode())
    return int.from_bytes(h.digest(), "big") >> 1


def make_rng(seed: int, *labels: str | int) -> random.Random:
    """An owned `random.Random` for the stream named by `labels` under `seed`."""
    return random.Random(derive_seed(seed, *labels))
