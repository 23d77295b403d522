"""`make_executor`: an executor by name (``local`` or ``ray``).

Apart from `accord.runner.executors` so that neither executor module imports the other at any
point (Ray's imports only when asked for).
"""

from __future__ import annotations

from pathlib import Path

from accord.core.errors import ConfigError
from accord.runner.executors import EXECUTORS, Executor, LocalExecutor


def make_executor(
    name: str | Executor,
    *,
    address: str | None = None,
    cache_dir: Path | None = None,
    num_cpus: int | None = None,
    cpus_per_game: float = 1.0,
) -> Executor:
    """An executor by name (an `Executor` is returned as it is)."""
    if isinstance(name, Executor):
        return name
    if name == "local":
        if address is not None:
            raise ConfigError("--address needs --executor ray")
        return LocalExecutor(cache_dir)
    if name == "ray":
        from accord.runner.ray_executor import RayExecutor

        return RayExecutor(
            address=address, cache_dir=cache_dir, num_cpus=num_cpus, cpus_per_game=cpus_per_game
        )
    raise ConfigError(f"Unknown executor {name!r}; use one of {', '.join(EXECUTORS)}")
