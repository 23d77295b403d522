"""What a run writes for the live view: progress, and each game's events while it plays."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from accord.agents.base import Agent, Recorder, _no_record
from accord.agents.reference import make_reference
from accord.core.spec import Action, Request
from accord.runner.live import LIVE_DIR, RUN_FILE, LiveGame
from accord.runner.run import run_specs, run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace


def _specs(n: int, game: str = "negotiation") -> list[GameSpec]:
    return [
        GameSpec(
            trace_id=f"g{i}",
            game=game,
            options={"rounds": 2} if game == "negotiation" else {},
            seed=i,
            agents=[AgentSpec(agent="greedy"), AgentSpec(model="mock/schema")],
        )
        for i in range(n)
    ]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_finished_run_leaves_progress_and_no_game_logs(tmp_path: Path) -> None:
    report = run_sync(_specs(3), tmp_path / "run", concurrency=2)
    assert report.played == 3
    live = tmp_path / "run" / LIVE_DIR
    assert sorted(p.name for p in live.iterdir()) == [RUN_FILE]  # every log was replaced
    progress = json.loads((live / RUN_FILE).read_text(encoding="utf-8"))
    assert progress["finished"] is True and progress["interrupted"] is None
    assert (progress["planned"], progress["done"], progress["failed"]) == (3, 3, 0)
    assert progress["in_flight"] == 0
    assert progress["calls"] > 0 and progress["input_tokens"] > 0


class Gate(Agent):
    """A reference agent that waits for a gate before its second decision."""

    def __init__(self, gate: asyncio.Event) -> None:
        super().__init__()
        self.inner = make_reference("negotiation-v3", "greedy")
        self.gate = gate
        self.decisions = 0

    async def act(self, request: Request, record: Recorder = _no_record) -> Action:
        self.decisions += 1
        if self.decisions == 2:
            await self.gate.wait()
        return await self.inner.act(request, record)


def test_a_game_in_flight_has_a_log_with_its_events_so_far(tmp_path: Path) -> None:
    """Mid-game the log holds the header, seat names and the events recorded so far; at the
    end the trace holds the same events in the same order and the log is gone."""
    from accord.runner.live import LiveGame
    from accord.runner.play import play_game

    spec = _specs(1)[0]
    out = tmp_path / "live"
    out.mkdir()

    async def scenario() -> tuple[list[dict[str, Any]], Any]:
        gate = asyncio.Event()
        log = LiveGame(
            out / "g0.jsonl",
            {
                "live_format": 1,
                "trace_id": "g0",
                "seats": [
                    {"seat": 0, "agent": "greedy", "model": None},
                    {"seat": 1, "agent": "gate", "model": None},
                ],
            },
        )
        seats = [make_reference("negotiation-v3", "greedy"), Gate(gate)]
        task = asyncio.ensure_future(play_game(spec, seats, sink=log))
        for _ in range(200):
            await asyncio.sleep(0.01)
            if len(_lines(out / "g0.jsonl")) > 3:
                break
        mid = _lines(out / "g0.jsonl")
        assert not task.done()
        gate.set()
        trace = await task
        log.close()
        return mid, trace

    mid, trace = asyncio.run(scenario())
    assert mid[0]["trace_id"] == "g0"
    assert mid[1]["live_header"] is True and [s["name"] for s in mid[1]["seats"]] == ["A", "B"]
    events = mid[2:]
    assert [e["type"] for e in events][:2] == ["round_start", "message"]
    assert events == trace.events[: len(events)]  # a prefix of the trace, exactly
    assert len(events) < len(trace.events)
    assert not (out / "g0.jsonl").exists()


def test_run_specs_streams_every_event_of_every_game(tmp_path: Path, monkeypatch) -> None:
    """What reaches the logs is, line for line, each trace's events."""
    seen: dict[str, list[dict[str, Any]]] = {}
    original = LiveGame.events

    def spy(self: LiveGame, batch: list[dict[str, Any]]) -> None:
        seen.setdefault(self.path.stem, []).extend(batch)
        original(self, batch)

    monkeypatch.setattr(LiveGame, "events", spy)
    calendar = GameSpec(
        trace_id="cal",
        game="calendar",
        seed=2,
        agents=[AgentSpec(model="mock/schema"), AgentSpec(agent="imap"), AgentSpec(agent="imap")],
    )
    asyncio.run(run_specs([*_specs(3), calendar], tmp_path / "run", concurrency=4))
    assert sorted(seen) == ["cal", "g0", "g1", "g2"]
    for tid, events in seen.items():
        trace = read_trace(tmp_path / "run" / "traces" / f"{tid}.json")
        assert events == trace.events


def test_live_files_can_be_turned_off_and_stale_logs_are_cleared(tmp_path: Path) -> None:
    run_sync(_specs(1), tmp_path / "off", live=False)
    assert not (tmp_path / "off" / LIVE_DIR).exists()
    stale = tmp_path / "on" / LIVE_DIR
    stale.mkdir(parents=True)
    (stale / "killed-game.jsonl").write_text('{"live_format": 1}\n', encoding="utf-8")
    run_sync(_specs(1), tmp_path / "on")
    assert not (stale / "killed-game.jsonl").exists()


def test_secrets_never_reach_a_live_log(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-secret-0123456789abcdef")
    log = LiveGame(tmp_path / "g.jsonl", {"live_format": 1, "seats": []})
    log.events([{"type": "model_error", "error": "bad key sk-live-secret-0123456789abcdef"}])
    log.close(remove=False)
    text = (tmp_path / "g.jsonl").read_text(encoding="utf-8")
    assert "sk-live-secret" not in text and "model_error" in text


def test_a_log_that_cannot_be_written_never_stops_the_game(tmp_path: Path) -> None:
    folder = tmp_path / "missing-dir"
    log = LiveGame(folder / "g.jsonl", {"live_format": 1, "seats": []})  # the write fails
    log.begin("negotiation-v3", ["A", "B"])
    folder.mkdir()  # writable now, but the log has stopped for good
    log.events([{"type": "x", "t": 1}])  # no exception
    log.close(remove=False)  # nor here, where it would write what is pending
    assert list(folder.iterdir()) == []
