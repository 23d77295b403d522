"""The Ray executor on a small local instance: same results as local, cluster-wide limits."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.errors import ConfigError
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.ray_executor import RayExecutor
from accord.runner.replay import comparable
from accord.runner.run import run_specs, run_sync
from accord.runner.specs import GameSpec
from accord.traces.io import iter_traces

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    # One small instance for the module: starting Ray is the slow part.
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    try:
        yield
    finally:
        ray.shutdown()


def _specs(n: int, agents: list[Any], **options: Any) -> list[GameSpec]:
    exp = Experiment(
        name="ray",
        defaults=Defaults(game="negotiation", games=n, agents=agents),
        batches=[Batch(name="b", options={"rounds": 2, **options})],
    )
    return expand(exp)


def test_scripted_results_are_identical_under_both_executors(local_ray, tmp_path: Path) -> None:
    specs = _specs(3, ["cooperative", "greedy"], talk_turns=2)
    seen: list[str] = []
    run_sync(specs, tmp_path / "local")
    remote = run_sync(
        specs, tmp_path / "ray", executor="ray", on_done=lambda s, t: seen.append(s.trace_id)
    )
    assert remote.executor == "ray" and remote.played == 3 and not remote.failed
    assert sorted(seen) == sorted(s.trace_id for s in specs), "progress sees every game"
    for name in ("results.jsonl", "summary.json"):
        assert (tmp_path / "ray" / name).read_text() == (tmp_path / "local" / name).read_text()
    ours = [comparable(t) for t in iter_traces(tmp_path / "ray" / "traces")]
    theirs = [comparable(t) for t in iter_traces(tmp_path / "local" / "traces")]
    assert ours == theirs
    again = run_sync(specs, tmp_path / "ray", executor="ray", resume=True)
    assert again.skipped == 3 and again.played == 0


def test_model_limit_holds_across_workers(local_ray, tmp_path: Path) -> None:
    limit = 2

    # Defined here so Ray ships them to the workers by value.
    @ray.remote(num_cpus=0)
    class InFlight:
        def __init__(self) -> None:
            self.now = 0
            self.peak = 0
            self.calls = 0

        def enter(self) -> None:
            self.now += 1
            self.calls += 1
            self.peak = max(self.peak, self.now)

        def exit(self) -> None:
            self.now -= 1

        def stats(self) -> tuple[int, int]:
            return self.peak, self.calls

    def probed_play(spec_data: dict[str, Any], cache_dir: str | None, prefix: str) -> str:
        # Counts the calls inside the mock in every worker, independently of the limiter.
        import ray as worker_ray

        from accord.models.mock import MockModel
        from accord.runner.ray_executor import play_in_worker

        counter = worker_ray.get_actor("accord-test-in-flight")
        original = MockModel._complete_once

        async def counted(self: MockModel, call: Any) -> Any:
            await counter.enter.remote()
            try:
                return await original(self, call)
            finally:
                await counter.exit.remote()

        MockModel._complete_once = counted  # type: ignore[method-assign]
        try:
            return play_in_worker(spec_data, cache_dir, prefix)
        finally:
            MockModel._complete_once = original  # type: ignore[method-assign]

    class ProbedRay(RayExecutor):
        async def start(self, specs: Any) -> None:
            await super().start(specs)
            self._remote = ray.remote(num_cpus=self.cpus_per_game, max_retries=0)(probed_play)

    counter = InFlight.options(name="accord-test-in-flight").remote()
    mock = {"model": "mock/schema", "options": {"latency_s": 0.05, "max_concurrency": limit}}
    # Both seats are models, so decisions ask two at once; four games share the two CPUs, so
    # without a shared limit up to 4 workers x 2 calls would be in flight.
    specs = _specs(4, [mock, mock], talk_turns=1)
    executor = ProbedRay(cpus_per_game=0.5)
    report = asyncio.run(run_specs(specs, tmp_path, executor=executor, concurrency=4))
    assert report.played == 4 and not report.failed
    peak, calls = ray.get(counter.stats.remote())
    assert calls > 8 and 1 <= peak <= limit
    ray.kill(counter)
    traces = list(iter_traces(tmp_path / "traces"))
    assert sum(t.usage["total"].calls for t in traces) == calls


def test_a_dead_task_becomes_a_failed_game(local_ray, tmp_path: Path) -> None:
    class Crashing(RayExecutor):
        async def start(self, specs: Any) -> None:
            await super().start(specs)

            def crash(spec_data: dict[str, Any], cache_dir: str | None, prefix: str) -> str:
                if spec_data["trace_id"].endswith("g001"):
                    import os

                    os._exit(1)  # the worker process dies mid-task
                from accord.runner.ray_executor import play_in_worker

                return play_in_worker(spec_data, cache_dir, prefix)

            self._remote = ray.remote(num_cpus=self.cpus_per_game, max_retries=0)(crash)

    specs = _specs(3, ["cooperative", "greedy"])
    report = asyncio.run(run_specs(specs, tmp_path, executor=Crashing()))
    assert report.played == 3 and len(report.failed) == 1
    assert "b-p00-g001" in report.failed[0] and "Ray task failed" in report.failed[0]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["complete"], summary["failed"]) == (2, 1)


def test_cli_runs_on_ray_with_a_shared_cache(local_ray, tmp_path: Path) -> None:
    cli = CliRunner(env={"COLUMNS": "200"})
    args = ["run", "negotiation", "--agents", "mock/schema,cooperative", "--games", "3"]
    args += ["-o", "rounds=1", "--executor", "ray", "--cache", str(tmp_path / "cache")]
    first = cli.invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    assert "(ray executor)" in first.output and "Model cache: 0 hits" in first.output
    again = cli.invoke(app, [*args, "--out", str(tmp_path / "b")])
    assert again.exit_code == 0, again.output
    assert " 0 misses" in again.output, "the workers answered every call from the cache"
    assert (tmp_path / "a" / "results.jsonl").read_text() == (
        tmp_path / "b" / "results.jsonl"
    ).read_text()
    with pytest.raises(ConfigError, match="local executor"):
        run_sync(_specs(1, ["human", "greedy"]), tmp_path / "c", executor="ray")


async def test_a_cluster_slot_pool_adapts_to_the_outcomes_workers_report() -> None:
    from accord.models.limits import Outcome
    from accord.runner.ray_executor import Slots

    # The actor's class, called directly: what every worker's slot release tells it.
    slots = Slots(64, adaptive=True)
    for i in range(8):
        await slots.acquire(f"t:{i}")
        await slots.release(f"t:{i}", Outcome().as_dict())
    grown = (await slots.stats())["window"]
    assert grown > 4.0
    await slots.acquire("t:x")
    await slots.release("t:x", Outcome(ok=False, rate_limited=True).as_dict())
    stats = await slots.stats()
    assert stats["window"] == pytest.approx(grown / 2) and stats["rate_limited"] == 1
    fixed = Slots(3)
    await fixed.acquire("u:0")
    await fixed.release("u:0", Outcome(ok=False, rate_limited=True).as_dict())
    assert (await fixed.stats())["window"] == 3.0


def test_workers_write_a_stored_runs_traces_themselves(local_ray, tmp_path: Path) -> None:
    from accord.store import RunStore
    from accord.traces.reader import parse_trace, validate_trace

    specs = _specs(3, ["cooperative", "greedy"], talk_turns=2)
    location = (tmp_path / "store").as_uri()
    heads: list[Any] = []
    report = run_sync(
        specs,
        tmp_path / "work",
        executor="ray",
        store=location,
        on_done=lambda s, t: heads.append(t),
    )
    assert report.played == 3 and not report.failed
    assert len(heads) == 3 and all(t.events == [] and t.transcripts == {} for t in heads), (
        "the driver gets headers; the traces stay where the workers wrote them"
    )
    run_sync(specs, tmp_path / "local")
    local = {t.trace_id: comparable(t) for t in iter_traces(tmp_path / "local" / "traces")}
    store = RunStore(location)
    for spec in specs:
        name = f"traces/{spec.trace_id}.json"
        stored = validate_trace(parse_trace(store.read(name) or b"", name), name)
        assert comparable(stored) == local[spec.trace_id]
    summary = json.loads(store.read("summary.json") or b"{}")
    assert (summary["complete"], summary["failed"]) == (3, 0)
