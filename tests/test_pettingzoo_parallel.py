"""The PettingZoo Parallel environment: API conformance for every game, the same game as the
runner and the AEC environment, whole batches per step, and the declared game type."""

from __future__ import annotations

import asyncio
import dataclasses
import warnings
from typing import Any

import pytest
from pettingzoo.test import parallel_api_test
from tests.test_pettingzoo import CASES, RENDER, SMALL

from accord.agents.base import Agent
from accord.agents.reference import make_reference
from accord.core.errors import ConfigError
from accord.core.game import GameResult
from accord.core.gameinfo import all_infos
from accord.core.registry import game_ids
from accord.pettingzoo import AccordParallelEnv, parallel_env
from accord.pettingzoo.scores import resolve_score
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec


@pytest.mark.parametrize("game_id", game_ids())
def test_parallel_api_test_passes(game_id: str) -> None:
    e = parallel_env(game_id, **SMALL.get(game_id, {}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(e, num_cycles=200)
    assert [str(w.message) for w in caught] == []
    assert e.metadata["is_parallelizable"] is True


async def _drive(e: AccordParallelEnv, agents: list[Agent], game_id: str) -> dict[str, float]:
    """Reference agents as text through the Parallel API; the rewards each agent got."""
    paid = dict.fromkeys(e.possible_agents, 0.0)
    render = RENDER[game_id]
    while e.agents:
        actions = {}
        for agent in e.agents:
            request = e.pending_request(agent)
            # An agent not asked this step sends anything: it is ignored.
            actions[agent] = (
                "ignored"
                if request is None
                else render(request, await agents[request.seat].act(request))
            )
        _, rewards, _, _, infos = e.step(actions)
        assert all("error" not in info for info in infos.values()), infos
        for agent, reward in rewards.items():
            paid[agent] += reward
    return paid


@pytest.mark.parametrize(("game_id", "names", "options"), CASES)
def test_reference_agents_through_the_parallel_api_match_the_runner(
    game_id: str, names: list[str], options: dict[str, Any]
) -> None:
    seed = 3
    spec = GameSpec(
        trace_id="pz", game=game_id, seed=seed, options=options,
        agents=[AgentSpec(agent=n) for n in names],
    )  # fmt: skip
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    e = parallel_env(game_id, **options)
    e.reset(seed=seed)
    paid = asyncio.run(_drive(e, [make_reference(game_id, n) for n in names], game_id))
    result = e.result()
    assert result is not None
    assert result.final_state == trace.final_state
    assert result.metrics == {k: trace.metrics[k] for k in result.metrics}
    expected = resolve_score(game_id, None)(
        GameResult(trace.final_state, trace.metrics, trace.seat_rows)
    )
    assert paid == {f"seat_{i}": pytest.approx(s) for i, s in enumerate(expected)}


def test_a_step_answers_the_whole_batch_and_only_the_asked_agents_act() -> None:
    e = parallel_env("negotiation-v3", rounds=1, talk_turns=1, reflection=False)
    _, infos = e.reset(seed=0)
    acting = [a for a, info in infos.items() if info["acting"]]
    assert acting == ["seat_0"], "a talk turn asks one seat"
    _, _, _, _, infos = e.step({"seat_0": "not json", "seat_1": "whatever: not asked"})
    # seat_0's invalid reply fell back; seat_1's text was ignored, and it is asked next.
    assert [a for a, info in infos.items() if info["acting"]] == ["seat_1"]
    while not all(info["acting"] for info in infos.values()):
        asked = [a for a, info in infos.items() if info["acting"]]
        _, _, _, _, infos = e.step(dict.fromkeys(asked, "not json"))
    # The decision phase: both seats at once, and the game sees both answers together.
    assert len(e.game.pending()) == 2
    _, _, terminations, _, _ = e.step(dict.fromkeys(e.agents, "not json"))
    assert all(terminations.values()) and e.agents == []
    assert e.result() is not None


def test_an_acting_agent_without_text_is_refused() -> None:
    e = parallel_env("sorting-v3", n=2, k=2)
    e.reset(seed=0)
    with pytest.raises(TypeError, match="seat_1"):
        e.step({"seat_0": "x"})


def test_max_steps_counts_parallel_steps_and_truncates() -> None:
    e = parallel_env("negotiation-v3", rounds=3, max_steps=2)
    e.reset(seed=0)
    e.step(dict.fromkeys(e.agents, "x"))
    assert e.agents
    _, _, terminations, truncations, _ = e.step(dict.fromkeys(e.agents, "x"))
    assert all(truncations.values()) and not any(terminations.values())
    assert e.agents == [] and e.result() is None


def test_every_game_declares_its_type_and_the_adapters_show_it() -> None:
    for info in all_infos():
        assert info.kind is not None, f"{info.game_id} declares no GameType"
        e = parallel_env(info.game_id, **SMALL.get(info.game_id, {}))
        assert e.metadata["game_type"] == dataclasses.asdict(info.kind)
        low, high = info.kind.seats
        assert low <= e.game.num_seats <= high


def test_a_seat_count_outside_the_declared_range_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import accord.pettingzoo.aec as aec

    info = next(i for i in all_infos() if i.alias == "sorting")
    assert info.kind is not None
    narrow = dataclasses.replace(info, kind=dataclasses.replace(info.kind, seats=(5, 5)))
    monkeypatch.setattr(aec, "info_or_none", lambda gid: narrow)
    with pytest.raises(ConfigError, match="declares 5-5 seats but its options give 2"):
        parallel_env("sorting-v3", n=2)
