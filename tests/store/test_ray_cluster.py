"""Ray workers write their games' traces into the store, on a three-node cluster started here,
one node of which is killed mid-run: its games come back failed and are played again on
resume, none lost and none duplicated."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.ray_executor import RayExecutor
from accord.runner.replay import comparable
from accord.runner.run import run_specs, run_sync
from accord.runner.specs import GameSpec
from accord.store import RunStore
from accord.traces.io import iter_traces
from accord.traces.reader import parse_trace, validate_trace
from accord.traces.schema import Trace

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

pytestmark = pytest.mark.slow  # three Ray nodes on a small machine: tens of seconds


@pytest.fixture
def cluster(s3_env: dict[str, str]) -> Iterator[Any]:
    """A head and two worker nodes of one CPU each, started after the S3 environment is set
    (the nodes' workers inherit it: the store's credentials reach them as on a real
    cluster, through the environment)."""
    head = {"num_cpus": 1, "include_dashboard": False}
    made = cluster_utils.Cluster(initialize_head=True, head_node_args=head)
    try:
        nodes = [made.add_node(num_cpus=1) for _ in range(2)]
        made.wait_for_nodes()
        ray.init(address=made.address, logging_level=logging.WARNING)
        made.worker_nodes_list = nodes
        yield made
    finally:
        ray.shutdown()
        made.shutdown()


def _specs(n: int) -> list[GameSpec]:
    slow = {"model": "mock/schema", "options": {"latency_s": 0.15}}
    exp = Experiment(
        name="cluster",
        defaults=Defaults(game="negotiation", games=n, agents=[slow, "cooperative"]),
        batches=[Batch(name="b", options={"rounds": 2, "talk_turns": 1})],
    )
    return expand(exp)


def _stored(store: RunStore, folder: str) -> dict[str, bytes]:
    return {e.name: store.read(e.name) or b"" for e in store.list(folder)}


def _trace(name: str, data: bytes) -> Trace:
    return validate_trace(parse_trace(data, name), name)


class Watched(RayExecutor):
    """The Ray executor, its store task wrapped to leave a mark (a file named for the node
    and the game) when a game starts, so the test knows when a node is playing one."""

    def __init__(self, marks: Path) -> None:
        super().__init__()
        self.marks = str(marks)

    async def start(self, specs: Any) -> None:
        await super().start(specs)
        marks = self.marks

        def marked(spec_data: dict[str, Any], *args: Any) -> str:
            import ray as worker_ray

            from accord.runner.ray_executor import play_into_store

            node = worker_ray.get_runtime_context().get_node_id()
            Path(marks, f"{node}-{spec_data['trace_id']}").touch()
            return play_into_store(spec_data, *args)

        self._remote_store = ray.remote(num_cpus=self.cpus_per_game, max_retries=0)(marked)


def test_workers_write_traces_and_a_killed_node_loses_no_game(
    cluster: Any, bucket: str, tmp_path: Path
) -> None:
    location = f"{bucket}/runs/cluster"
    specs = _specs(9)
    planned = {s.trace_id for s in specs}
    seen: list[Trace] = []
    marks = tmp_path / "marks"
    marks.mkdir()
    doomed = cluster.worker_nodes_list[0]

    def kill_when_playing() -> None:
        # The node is killed as soon as a game starts on it (a mock call takes 0.15 s; a
        # game, several): its games in flight are lost with it.
        end = time.monotonic() + 120
        while time.monotonic() < end and not list(marks.glob(f"{doomed.node_id}-*")):
            time.sleep(0.05)
        cluster.remove_node(doomed, allow_graceful=False)

    killer = threading.Thread(target=kill_when_playing)
    killer.start()
    try:
        first = asyncio.run(
            run_specs(
                specs,
                tmp_path / "w1",
                executor=Watched(marks),
                store=location,
                on_done=lambda spec, trace: seen.append(trace),
                concurrency=3,
            )
        )
    finally:
        killer.join()
    on_doomed = {p.name.split("-", 1)[1] for p in marks.glob(f"{doomed.node_id}-*")}
    assert on_doomed, "a game was playing on the node when it was killed"
    store = RunStore(location)
    traces = _stored(store, "traces")
    assert {n.removeprefix("traces/").removesuffix(".json") for n in traces} == planned
    assert first.played == 9 and first.failed, "the killed node's games come back failed"
    assert all("Ray task failed" in line for line in first.failed), first.failed
    assert {line.split(":", 1)[0] for line in first.failed} <= on_doomed
    # The workers wrote the complete games; the driver got their headers only.
    heads = [t for t in seen if t.status == "complete"]
    assert heads and all(t.events == [] and t.transcripts == {} for t in heads)
    failed = {_trace(n, d).trace_id for n, d in traces.items() if _trace(n, d).status != "complete"}
    assert failed and len(failed) == len(first.failed)

    again = asyncio.run(
        run_specs(specs, tmp_path / "w2", executor=RayExecutor(), store=location, resume=True)
    )
    assert again.played == len(failed) and not again.failed
    traces = _stored(store, "traces")
    assert len(traces) == 9, "one trace per planned game: none lost, none duplicated"
    played = {n: _trace(n, d) for n, d in traces.items()}
    assert all(t.status == "complete" for t in played.values())
    kept = _stored(store, "attempts")
    assert sorted(n.split("/")[1] for n in kept) == sorted(failed), "each failure kept once"
    summary = json.loads(store.read("summary.json") or b"{}")
    assert (summary["complete"], summary["failed"]) == (9, 0)

    # The same games in one local process give the same traces (times aside).
    run_sync(specs, tmp_path / "local")
    local = {t.trace_id: comparable(t) for t in iter_traces(tmp_path / "local" / "traces")}
    assert {t.trace_id: comparable(t) for t in played.values()} == local
