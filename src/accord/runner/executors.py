"""Where games run: in this process (``local``) or as Ray tasks (``ray``).

An executor only plays games and hands back their traces; the driver (`run_specs`) decides
which games to launch, writes each trace as it arrives, and rebuilds the results, so outputs,
resume and the progress bar are the same whichever executor played.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path

from accord.models.cache import CacheStats, ModelCache
from accord.runner.live import current_sink
from accord.runner.play import play_game
from accord.runner.specs import GameSpec
from accord.traces.schema import Trace

EXECUTORS = ("local", "ray")
TraceWriter = Callable[..., tuple[Path, Trace]]
"""`accord.runner.run.write_checked_trace`: ``(folder, trace, spec=spec) -> (path, trace)``."""


class Executor(ABC):
    """Plays games. `start` before the first game, `close` after the last.

    Attributes:
        name: ``"local"`` or ``"ray"``.
        cache_stats: model-cache hits and misses of the games played so far.
    """

    name: str = "?"

    def __init__(self, cache_dir: Path | None = None) -> None:
        self.cache_dir = cache_dir
        self.cache_stats = CacheStats()

    async def start(self, specs: Sequence[GameSpec]) -> None:  # noqa: B027  (optional hook)
        """Prepare for `specs` (connect, create shared limiters)."""

    live_events: bool = False
    """True when `play` reports events as they happen (games in this process)."""

    @abstractmethod
    async def play(self, spec: GameSpec) -> Trace:
        """Play one game; never raises for a game that fails (its trace says so).

        An executor with `live_events` tells `accord.runner.live.current_sink()` the game's
        events as they happen.
        """

    writes_store: bool = False
    """True when `play_stored` has the game's trace written into a run's store where the
    game is played (a Ray worker), so the driver does not carry it."""

    async def play_stored(
        self, spec: GameSpec, location: str, replay: bool, write: TraceWriter
    ) -> tuple[Trace, bool]:
        """Play one game and have its trace written with `write` (the driver's writer) and
        sent to the store at `location` (with `replay`, over a failed trace there, kept under
        ``attempts/``). Returns the trace (its header at least) and whether it was written; a
        game that failed before writing comes back unwritten, for the driver to write. Only
        for executors with `writes_store`."""
        raise NotImplementedError(f"the {self.name} executor does not write into stores")

    async def close(self) -> None:  # noqa: B027  (optional hook)
        """Release what `start` acquired."""


class LocalExecutor(Executor):
    """Games as coroutines on this process's event loop."""

    name = "local"
    live_events = True

    def __init__(self, cache_dir: Path | None = None) -> None:
        super().__init__(cache_dir)
        self._cache = ModelCache(cache_dir) if cache_dir is not None else None
        if self._cache is not None:
            self.cache_stats = self._cache.stats

    async def play(self, spec: GameSpec) -> Trace:
        return await play_game(spec, cache=self._cache, sink=current_sink())
