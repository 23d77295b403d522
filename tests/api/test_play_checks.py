"""`accord.play` makes the checks `accord.run` makes and raises the same typed errors, before
any model is called; arguments of the wrong type are one clear `ConfigError`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import accord
from accord.core.errors import ConfigError


@pytest.mark.parametrize(
    ("game", "agents", "kwargs", "says"),
    [
        ("sorting", "share-all,share-all", {}, "has 3 seats but 2 agents"),
        ("negotiation", "cooperative,greedy,greedy", {}, "has 2 seats but 3 agents"),
        ("negotiation", "cooperative,greedy", {"seed": "x"}, "seed must be a whole number"),
        ("negotiation", 5, {}, "agents must be one text"),
        ("negotiation", "cooperative,nobody", {}, "Unknown agent 'nobody'"),
        ("negotiation", "cooperative,greedy", {"options": {"roundz": 1}}, "roundz: unknown key"),
        ("chess", "a,b", {}, "Unknown game"),
    ],
)
def test_play_refuses_what_run_refuses(
    game: str, agents: Any, kwargs: dict[str, Any], says: str, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=says):
        accord.play(game, agents, **kwargs)
    if game != "chess" and not isinstance(agents, int) and "seed" not in kwargs:
        with pytest.raises(ConfigError, match=says):
            accord.run(game, agents=agents, out=tmp_path / "run", **kwargs)
    assert not (tmp_path / "run").exists()


def test_a_model_seat_without_its_key_is_refused_before_play(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        accord.play("negotiation", "openai/gpt-5-mini,cooperative")


def test_play_still_plays_and_names_the_trace_by_seed() -> None:
    trace = accord.play("negotiation", ["cooperative", "greedy"], seed=3, options={"rounds": 1})
    assert trace.status == "complete"
    assert trace.trace_id.endswith("-s3")
    assert [s.agent for s in trace.seats] == ["cooperative", "greedy"]
