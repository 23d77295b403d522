"""The PettingZoo adapter: API conformance, equivalence with the runner, seeding, invalid text."""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from pettingzoo.test import api_test

from accord.agents.base import Agent
from accord.agents.reference import make_reference
from accord.core.errors import ConfigError, UnknownGameError
from accord.core.game import GameResult
from accord.core.registry import game_ids
from accord.core.spec import Action, Request
from accord.pettingzoo import AccordAECEnv, TextObservation, env
from accord.pettingzoo.scores import resolve_score
from accord.pettingzoo.text import REPLACEMENT, TextFitter, make_charset
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

SMALL: dict[str, dict[str, Any]] = {
    "negotiation-v3": {"rounds": 1, "talk_turns": 1},
    "calendar-v2": {"num_meetings": 2, "max_turns_per_round": 2},
    "sorting-v3": {"n": 2, "k": 2, "max_rounds": 3},
}
"""Options that keep a random-text game to a handful of steps (other games: defaults)."""

API_TEST_ADVICE = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or",
    "Action space for each agent probably should be gymnasium.spaces.box or",
)
"""What `api_test` says about any text space: advice for array environments, not failures."""


def small_env(game_id: str, **kwargs: Any) -> Any:
    return env(game_id, **{**SMALL.get(game_id, {}), **kwargs})


def play_random(e: Any, seed: int) -> list[tuple[str, str, float, dict[str, Any]]]:
    """One episode of random text (seeded); every (agent, observation, reward, info) seen."""
    e.reset(seed=seed)
    for i, agent in enumerate(e.possible_agents):
        e.action_space(agent).seed(seed + i)
    seen = []
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        seen.append((agent, str(obs), reward, info))
        e.step(None if terminated or truncated else e.action_space(agent).sample())
    return seen


@pytest.mark.parametrize("game_id", game_ids())
def test_pettingzoo_api_test_passes(game_id: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(small_env(game_id), num_cycles=30, verbose_progress=False)
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(API_TEST_ADVICE)]
    assert not unexpected


@pytest.mark.parametrize("game_id", game_ids())
def test_random_text_plays_to_the_end_through_fallbacks(game_id: str) -> None:
    e = small_env(game_id)
    seen = play_random(e, seed=0)
    raw: AccordAECEnv = e.unwrapped
    result = raw.result()
    assert result is not None, "a game of random text must still end"
    finals = {agent: reward for agent, _, reward, info in seen if "score" in info}
    expected = resolve_score(raw.game_id, None)(result)
    assert finals == {f"seat_{i}": pytest.approx(s) for i, s in enumerate(expected)}
    for _, obs, _, info in seen:
        assert raw.observation_space("seat_0").contains(obs)
        if "error" in info:
            assert info["fallback"] is True and info["error"]


def _negotiation_text(request: Request, action: Action) -> str:
    """A negotiation action as the thinking-format JSON envelope a model would write."""
    if request.spec.kind == "reflect":
        return json.dumps({"reflection": action["reflection"]})
    decision = action.get("decision")
    obj: dict[str, Any] | None = None
    if decision is not None:
        names = request.info["names"]
        obj = {names[r]: q for r, q in decision["purchase"].items()}
        if decision.get("runs") is not None:
            obj["projects"] = decision["runs"]
    return json.dumps({"thinking": action["thinking"], "speech": action["speech"], "action": obj})


def _calendar_text(request: Request, action: Action) -> str:
    return json.dumps({"thinking": action["thinking"], "actions": action["actions"]})


def _sorting_text(request: Request, action: Action) -> str:
    """Each command in its own fenced block, as the sorting prompt asks a model to write."""
    return "\n".join(f"```\n{command}\n```" for command in action["commands"])


RENDER: dict[str, Callable[[Request, Action], str]] = {
    "negotiation-v3": _negotiation_text,
    "calendar-v2": _calendar_text,
    "sorting-v3": _sorting_text,
}

CASES = [
    ("negotiation-v3", ["cooperative", "cooperative"], {}),
    ("negotiation-v3", ["cooperative", "greedy"], {"rounds": 2, "partner": "shifting"}),
    ("calendar-v2", ["oracle-follower"] * 3, {}),
    ("sorting-v3", ["share-all"] * 3, {"backend": "kv", "condition": "camoc"}),
]


async def _drive(
    e: Any, agents: list[Agent], render: Callable[[Request, Action], str]
) -> dict[str, float]:
    """Play reference agents through the env as text; each agent's reward at termination."""
    paid: dict[str, float] = {}
    for name in e.agent_iter():
        _, reward, terminated, truncated, info = e.last()
        assert "error" not in info, info.get("error")
        if terminated or truncated:
            paid[name] = reward
            e.step(None)
            continue
        request = e.unwrapped.pending_request(name)
        e.step(render(request, await agents[request.seat].act(request)))
    return paid


@pytest.mark.parametrize(("game_id", "names", "options"), CASES)
def test_reference_agents_as_text_match_the_runner(
    game_id: str, names: list[str], options: dict[str, Any]
) -> None:
    seed = 3
    spec = GameSpec(
        trace_id="pz",
        game=game_id,
        seed=seed,
        options=options,
        agents=[AgentSpec(agent=n) for n in names],
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    e = env(game_id, **options)
    e.reset(seed=seed)
    raw: AccordAECEnv = e.unwrapped
    firsts = {a: (str(raw.observe(a)), raw.pending_request(a)) for a in e.possible_agents}
    paid = asyncio.run(_drive(e, [make_reference(game_id, n) for n in names], RENDER[game_id]))
    result = raw.result()
    assert result is not None
    assert result.final_state == trace.final_state
    # The runner adds usage-dependent metrics (`Game.trace_metrics`) on top of the result's.
    assert result.metrics == {k: trace.metrics[k] for k in result.metrics}
    expected = resolve_score(game_id, None)(
        GameResult(trace.final_state, trace.metrics, trace.seat_rows)
    )
    assert paid == {f"seat_{i}": pytest.approx(s) for i, s in enumerate(expected)}
    for obs, request in firsts.values():
        if request is not None and request.system:
            assert obs == f"{request.system}\n\n{request.observation}"


@pytest.mark.parametrize(
    ("game_id", "name", "best"),
    [("calendar-v2", "oracle-follower", 1.0), ("sorting-v3", "share-all", 1.0)],
)
def test_oracle_teams_earn_the_top_score(game_id: str, name: str, best: float) -> None:
    e = env(game_id)
    e.reset(seed=5)
    agents = [make_reference(game_id, name) for _ in e.possible_agents]
    paid = asyncio.run(_drive(e, agents, RENDER[game_id]))
    assert paid == dict.fromkeys(e.possible_agents, pytest.approx(best))


def test_cooperative_negotiators_split_the_joint_optimum() -> None:
    e = env("negotiation-v3", rounds=2)
    e.reset(seed=1)
    agents = [make_reference("negotiation-v3", "cooperative") for _ in range(2)]
    paid = asyncio.run(_drive(e, agents, RENDER["negotiation-v3"]))
    result = e.unwrapped.result()
    assert sum(paid.values()) == result.metrics["oracle_total"] > 0


# -- seeding -------------------------------------------------------------------------------------
@pytest.mark.parametrize("game_id", game_ids())
def test_same_seed_same_episode(game_id: str) -> None:
    assert play_random(small_env(game_id), 11) == play_random(small_env(game_id), 11)


def test_unseeded_resets_follow_the_last_seed() -> None:
    def firsts(e: Any) -> list[str]:
        out = [str(e.observe(e.agent_selection))]
        e.reset()
        out.append(str(e.observe(e.agent_selection)))
        return out

    a, b = small_env("calendar-v2"), small_env("calendar-v2")
    a.reset(seed=4)
    b.reset(seed=4)
    first_a, first_b = firsts(a), firsts(b)
    assert first_a == first_b
    assert first_a[0] != first_a[1], "the next episode should be another game"
    assert a.unwrapped.episode_seed == b.unwrapped.episode_seed != 4


# -- turn order and invalid replies -----------------------------------------------------------
def test_simultaneous_requests_reach_the_game_together() -> None:
    e = env("negotiation-v3", rounds=1, cheap_talk=False)
    e.reset(seed=0)
    raw: AccordAECEnv = e.unwrapped
    assert e.agent_selection == "seat_0"
    before = str(e.observe("seat_1"))
    e.step("not a decision")
    assert e.agent_selection == "seat_1"
    assert len(raw.game.pending()) == 2, "the game must not see seat_0's answer yet"
    assert str(e.observe("seat_1")) == before
    e.step("not a decision either")
    result = raw.result()
    assert result is not None
    # Fallback decisions are marked, so the game leaves the round out of its metrics.
    assert result.metrics["fallback_rounds"] == 1
    assert [row["fallback_rounds"] for row in result.seat_rows] == [1, 1]


def test_invalid_reply_plays_the_fallback_with_penalty() -> None:
    e = env("calendar-v2", invalid_penalty=-0.5)
    e.reset(seed=0)
    first = e.agent_selection
    e.step("no json here")
    assert e.agent_selection != first
    info = e.infos[first]
    assert info["fallback"] is True and "JSON" in info["error"]
    assert e.rewards[first] == -0.5


def test_retry_mode_asks_again_then_falls_back() -> None:
    e = env("negotiation-v3", invalid_action="retry", max_retries=2, invalid_penalty=-1.0)
    e.reset(seed=0)
    for attempt in (2, 3):
        e.step("garbage")
        obs, reward, _, _, info = e.last()
        assert e.agent_selection == "seat_0"
        assert str(obs).startswith("Your last reply could not be used:")
        assert info["attempt"] == attempt and info["error"]
        assert reward == -1.0
    e.step("garbage")
    assert e.agent_selection == "seat_1"
    assert e.infos["seat_0"]["fallback"] is True


def test_max_steps_truncates_without_scores() -> None:
    e = env("sorting-v3", max_steps=2)
    e.reset(seed=0)
    e.step("hello")
    e.step("hello")
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert e.unwrapped.result() is None
    for _ in e.agent_iter():
        _, reward, _, truncated, _ = e.last()
        assert truncated and reward == 0.0
        e.step(None)
    assert e.agents == []


def test_reward_option_picks_the_final_score() -> None:
    e = env("sorting-v3", n=2, max_rounds=1, reward=lambda r: [7.0, -2.0])
    e.reset(seed=0)
    e.step("x")
    e.step("x")
    assert e.rewards == {"seat_0": 7.0, "seat_1": -2.0}
    e = env("sorting-v3", n=2, max_rounds=1, reward="-rounds")
    e.reset(seed=0)
    e.step("x")
    e.step("x")
    assert e.rewards == {"seat_0": -1.0, "seat_1": -1.0}


# -- text ------------------------------------------------------------------------------------------
def test_foreign_characters_are_replaced_in_observations() -> None:
    e = env("negotiation-v3", rounds=1)
    e.reset(seed=0)
    e.step(json.dumps({"thinking": "", "speech": "hi \U0001f600 there", "action": None}))
    obs = e.observe("seat_1")
    assert isinstance(obs, TextObservation)
    assert f"hi {REPLACEMENT} there" in obs
    assert e.observation_space("seat_1").contains(obs)


def test_long_text_keeps_head_and_tail() -> None:
    chars, stand_in = make_charset(None)
    fitted, cut = TextFitter(chars, stand_in, 100).fit("H" * 500 + "T" * 500)
    assert cut and len(fitted) == 100
    assert fitted.startswith("H") and fitted.endswith("T") and "characters cut" in fitted


def test_render_ansi_shows_the_selected_agents_text() -> None:
    e = env("sorting-v3", render_mode="ansi")
    e.reset(seed=0)
    assert e.render() == str(e.observe(e.agent_selection))


def test_bad_options_are_explained() -> None:
    with pytest.raises(UnknownGameError):
        env("chess-v1")
    with pytest.raises(ConfigError, match="invalid_action"):
        env("sorting-v3", invalid_action="ignore")
    with pytest.raises(ConfigError, match="no_such_option"):
        env("sorting-v3", no_such_option=1)
