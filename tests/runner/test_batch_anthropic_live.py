"""Anthropic in batch mode against the fake's live Messages endpoint: the three games, played
live and in batch mode, give the same traces (timing and batch records aside), in JSON mode
(the schema asked for by the prompt alone, as live calls ask), and each batch request is the
body the live call sent (in one spelling: `_canonical`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.runner.test_batch_mode import CLAUDE, play, specs_for, traces

from accord.runner.batch_plan import with_batch
from accord.runner.specs import GameSpec
from accord.testing.batch_server import batch_server


@pytest.fixture(autouse=True)
def anthropic_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake-key")


def _mode(specs: list[GameSpec], mode: str) -> list[GameSpec]:
    def seat(spec: GameSpec) -> GameSpec:
        agents = [a.model_copy(update={"action_mode": mode}) for a in spec.agents]
        return spec.model_copy(update={"agents": agents})

    return [seat(s) for s in specs]


def _canonical(body: dict[str, Any]) -> str:
    """A Messages API body in one spelling: a text turn as a list of one text block, and a
    tool without LiteLLM's explicit ``type: custom`` (Anthropic's default)."""
    turns = [
        {
            "role": t["role"],
            "content": (
                [{"type": "text", "text": t["content"]}]
                if isinstance(t["content"], str)
                else t["content"]
            ),
        }
        for t in body.get("messages", [])
    ]
    tools = [{k: v for k, v in t.items() if k != "type"} for t in body.get("tools") or []]
    return json.dumps({**body, "messages": turns, "tools": tools}, sort_keys=True)


@pytest.mark.parametrize("mode", ["json"])
@pytest.mark.parametrize("game", ["negotiation", "calendar", "sorting"])
def test_anthropic_batch_traces_equal_live(game: str, mode: str, tmp_path: Path) -> None:
    with batch_server() as server:
        specs = _mode(specs_for(game, server.url, model=CLAUDE, games=1), mode)
        live = play(specs, tmp_path / "live")
        calls_live = server.live_calls
        assert calls_live > 0 and server.creates == 0
        live_bodies = list(server.live_bodies)
        batch = play(with_batch(specs), tmp_path / "batch")
        assert server.live_calls == calls_live  # nothing went out live in batch mode
        batched = [r["body"] for b in server.batches.values() for r in b["_requests"]]
    assert live.failed == [] and batch.failed == []
    # The same questions: a batch asks the model exactly what the live call asked.
    asked = sorted(_canonical(b) for b in live_bodies)
    assert asked == sorted(_canonical(b) for b in batched)
    got, want = traces(tmp_path / "batch"), traces(tmp_path / "live")
    assert set(got) == set(want) and got
    for tid in want:
        assert got[tid]["status"] == "complete"
        assert got[tid] == want[tid], tid
    assert server.paid_twice() == [] and sum(server.paid.values()) == calls_live
