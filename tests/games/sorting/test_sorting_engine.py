"""The sorting engine: STEPBENCH rounds, harness replies, phases (MAS-Bench App. F.3, F.5)."""

from __future__ import annotations

from typing import Any

import pytest

from accord.core.errors import ActionError, ConfigError
from accord.core.provenance import fallback, submit
from accord.core.registry import make
from accord.games.sorting.actions import MODEL_FAILED, NO_COMMAND, parse_reply
from accord.games.sorting.backends import BroadcastStore
from accord.games.sorting.commands import format_list
from accord.games.sorting.engine import ALREADY_SUBMITTED, SortingGame
from accord.games.sorting.prompts import FIRST_OBSERVATION


def game(seed: int = 1, **opts: Any) -> SortingGame:
    g = make("sorting", opts)
    assert isinstance(g, SortingGame)
    g.reset(seed)
    return g


def cmds(*commands: str) -> dict[str, Any]:
    return {"commands": list(commands)}


def answer(g: SortingGame, seat: int) -> str:
    return "submit_result " + format_list(g.task.expected[seat])


def play_round(
    g: SortingGame, actions: dict[int, dict[str, Any]], order: list[int] | None = None
) -> None:
    for seat in order or sorted(actions):
        g.submit(seat, actions[seat])


def obs(g: SortingGame, seat: int) -> str:
    return next(r for r in g.pending() if r.seat == seat).observation


def test_default_game_is_small_and_asks_everyone_at_once() -> None:
    g = game()
    reqs = g.pending()
    assert g.num_seats == 3 and [r.seat for r in reqs] == [0, 1, 2]
    r0 = reqs[0]
    assert r0.observation == FIRST_OBSERVATION and r0.reset_context and r0.round == 1
    assert r0.system and r0.system.startswith("You are Agent-0 in a multi-agent system")
    assert format_list(g.task.xs[0]) in r0.system and "broadcast_message <text>" in r0.system
    assert r0.info["xs"] == list(g.task.xs[0]) and r0.info["backend"] == "broadcast"
    assert g.seat_label(2) == "Agent-2"


def test_nothing_is_applied_until_every_active_agent_answered() -> None:
    g = game()
    g.submit(0, cmds("broadcast_message hello"))
    store = g._dispatcher.store
    assert isinstance(store, BroadcastStore)
    assert store.unread(1) == 0  # not yet: seats 1 and 2 still thinking
    assert [r.seat for r in g.pending()] == [1, 2]
    g.submit(2, cmds("wait"))
    g.submit(1, cmds("receive_messages"))
    assert [r.seat for r in g.pending()] == [0, 1, 2] and g.pending()[0].round == 2


def test_writes_of_round_r_are_seen_from_round_r_plus_1_only() -> None:
    g = game()
    # Round 1: everyone broadcasts and receives. Commands run in id order, so Agent-1's
    # receive already finds Agent-0's round-1 message, but that reply is only shown in round 2.
    r1 = {s: cmds(f"broadcast_message from {s}", "receive_messages") for s in range(3)}
    round1_obs = [obs(g, s) for s in range(3)]
    assert all("from" not in o for o in round1_obs)
    play_round(g, r1, order=[2, 0, 1])
    assert "Agent-0 broadcast: from 0" in obs(g, 1)
    assert "Agent-1 broadcast" not in obs(g, 1)
    assert "No new messages." in obs(g, 0)
    assert "Agent-0 broadcast: from 0\nAgent-1 broadcast: from 1" in obs(g, 2)
    play_round(g, {s: cmds("receive_messages") for s in range(3)})
    assert obs(g, 0).endswith("Agent-1 broadcast: from 1\nAgent-2 broadcast: from 2")


def test_submission_order_does_not_change_the_outcome() -> None:
    def run(order: list[int]) -> list[dict[str, Any]]:
        g = game(backend="p2p")
        play_round(
            g,
            {0: cmds("send_message 1 a"), 1: cmds("send_message 2 b"), 2: cmds("send_message 0 c")},
            order,
        )
        play_round(g, {s: cmds("receive_messages") for s in range(3)}, order)
        return [{k: v for k, v in e.items() if k != "t"} for e in g.drain_events()]

    assert run([0, 1, 2]) == run([2, 1, 0]) == run([1, 2, 0])


def test_harness_replies_for_failures_and_missing_commands() -> None:
    g = game()
    play_round(
        g,
        {
            0: parse_reply("I am thinking, no commands."),
            1: {"failed": True},
            2: parse_reply("```\nshuffle now\n```\n```sh\nwait\n```"),
        },
    )
    assert obs(g, 0) == NO_COMMAND
    assert obs(g, 1) == MODEL_FAILED
    first, second = obs(g, 2).split("\n\n")
    assert first.startswith("[shuffle now]\nUnknown command: shuffle now. A block must hold")
    assert second == "[wait]\nOK, waited."
    g2 = game()
    play_round(g2, {0: {"failed": True}, 1: cmds(), 2: {"text": ""}})
    assert [obs(g2, s) for s in range(3)] == [MODEL_FAILED, NO_COMMAND, NO_COMMAND]


def test_a_decision_submitted_as_a_fallback_counts_as_a_failed_call() -> None:
    g = game()
    submit(g, 0, {"text": ""}, fallback("no valid reply"))
    play_round(g, {1: cmds(), 2: {"text": ""}})
    assert [obs(g, s) for s in range(3)] == [MODEL_FAILED, NO_COMMAND, NO_COMMAND]
    assert g.provenance.source == "agent"  # told for the length of the submit only


def test_a_command_written_as_the_fence_tag_gets_a_reply_saying_how_to_fix_it() -> None:
    g = game()
    play_round(g, {0: parse_reply("```wait\n```"), 1: cmds("wait"), 2: cmds("wait")})
    # App. F.3 semantics kept: the tag is dropped, the block is empty, nothing runs ...
    turn = next(e for e in g.drain_events() if e["type"] == "turn")
    assert turn["commands"][0]["command"] == "" and not turn["commands"][0]["ok"]
    # ... and the reply says what happened and shows the right form.
    reply = obs(g, 0)
    assert reply.startswith("[(empty block)]\nUnknown command: (empty block).")
    assert "'wait' was written on the opening ``` line" in reply
    assert reply.endswith("```\nwait\n```")
    assert g.result().metrics["failed_commands"] == 1


def test_bad_submissions_raise() -> None:
    g = game()
    g.submit(0, cmds("wait"))
    for seat, action in [(0, cmds("wait")), (3, cmds("wait")), (-1, cmds("wait"))]:
        with pytest.raises(ActionError, match="no pending request"):
            g.submit(seat, action)
    bad_actions: list[dict[str, Any]] = [{"commands": "wait"}, {"commands": [1]}, {"text": 3}, {}]
    for bad in bad_actions:
        with pytest.raises(ActionError):
            g.submit(1, bad)


def test_submitted_agents_leave_and_later_blocks_do_not_run() -> None:
    g = game()
    play_round(
        g,
        {
            0: cmds(answer(g, 0), "broadcast_message too late"),
            1: cmds("receive_messages"),
            2: cmds("wait"),
        },
    )
    assert [r.seat for r in g.pending()] == [1, 2]
    turn = next(e for e in g.drain_events() if e["type"] == "turn" and e["seat"] == 0)
    assert turn["commands"][1] == {
        "command": "broadcast_message too late", "ok": False, "reply": ALREADY_SUBMITTED
    }  # fmt: skip
    announced = obs(g, 1)
    assert f"Agent-0 submitted its result: {format_list(g.task.expected[0])}" in announced
    assert "too late" not in announced
    with pytest.raises(ActionError):
        g.submit(0, cmds("wait"))


def test_p2p_refuses_messages_to_an_agent_that_submitted_this_round() -> None:
    g = game(backend="p2p")
    play_round(g, {0: cmds(answer(g, 0)), 1: cmds("send_message 0 hi"), 2: cmds("wait")})
    assert "Not delivered: Agent-0 has already submitted and is offline." in obs(g, 1)


def test_phase_ends_at_the_round_budget() -> None:
    g = game(max_rounds=2)
    for _ in range(2):
        play_round(g, {s: cmds("wait") for s in range(3)})
    assert g.done() and g.pending() == []
    res = g.result()
    assert res.metrics["rounds"] == 2 and res.metrics["sr"] == 0.0
    assert res.metrics["submitted_rate"] == 0.0 and res.final_state["submissions"] == [None] * 3


def test_game_ends_when_all_submit_and_scores() -> None:
    g = game(mode="random")
    wrong = list(g.task.expected[2])
    wrong[0] += 1
    play_round(g, {0: cmds(answer(g, 0)), 1: cmds(answer(g, 1)), 2: cmds("wait")})
    play_round(g, {2: cmds("submit_result " + format_list(wrong))})
    assert g.done()
    res = g.result()
    m = res.metrics
    assert m["sr"] == pytest.approx(2 / 3) and m["success"] == 0.0 and m["global_check"] == 0.0
    assert m["rounds"] == 2 and m["rounds_per_phase"] == [2] and m["condition"] == "base"
    assert res.final_state["correct"] == [True, True, False]
    assert [r["rounds"] for r in res.seat_rows] == [1, 1, 2]
    assert g.oracle_gap(res) == pytest.approx(1 / 3)


def test_two_phase_resets_environment_and_injects_previous_submission() -> None:
    g = game(backend="kv", condition="camoc", max_rounds=3)
    first = {
        0: cmds("write_file note\nphase one", answer(g, 0)),
        1: cmds("submit_result [1]"),
        2: cmds("wait"),
    }
    play_round(g, first)
    play_round(g, {2: cmds("wait")})
    play_round(g, {2: cmds("wait")})  # budget exhausted: Agent-2 never submitted
    reqs = g.pending()
    assert [r.seat for r in reqs] == [0, 1, 2] and all(r.reset_context for r in reqs)
    assert all(r.observation == FIRST_OBSERVATION and r.round == 1 for r in reqs)
    sys0, sys1, sys2 = (r.system or "" for r in reqs)
    assert "This is the second run of the task" in sys0
    assert f"Your submission in the first run was: {format_list(g.task.expected[0])}" in sys0
    assert "Your submission in the first run was: [1]" in sys1
    assert "nothing (you did not submit a result)" in sys2
    assert "Role and focus" in sys0
    assert reqs[1].info["prev"] == [1] and reqs[2].info["prev"] is None
    play_round(g, {0: cmds("read_file note", "list_files"), 1: cmds("wait"), 2: cmds("wait")})
    assert "no file named 'note'" in obs(g, 0) and "No files." in obs(g, 0)
    assert not reqs[0].info["replies"]
    play_round(g, {s: cmds(answer(g, s)) for s in range(3)})
    assert g.done()
    m = g.result().metrics
    assert m["sr"] == 1.0 and m["sr_phase1"] == pytest.approx(1 / 3)
    assert m["rounds_per_phase"] == [3, 2] and m["condition"] == "camoc"
    # R of the final (scored) phase by default; both phases and their sum beside it.
    assert m["rounds"] == 2 and m["metrics_phase"] == "final"
    assert (m["rounds_phase1"], m["rounds_phase2"], m["rounds_combined"]) == (3, 2, 5)


def test_conditions_follow_the_f5_table() -> None:
    for cond, beh, two in [
        ("base", "short", False),
        ("abl-message", "short", True),
        ("abl-submit", "camoc", False),
        ("camoc", "camoc", True),
    ]:
        cfg = make("sorting", {"condition": cond}).config
        assert (cfg.effective_behaviour, cfg.effective_two_phase) == (beh, two)  # type: ignore[attr-defined]
    cfg = make("sorting", {"behaviour": "camoc", "two_phase": True}).config
    assert cfg.effective_condition == "camoc"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="conflicting"):
        make("sorting", {"condition": "base", "two_phase": True})
    with pytest.raises(ConfigError, match="unknown key"):
        make("sorting", {"agents": 3})


def test_behaviour_changes_only_the_behaviour_list() -> None:
    short = game(condition="base").pending()[0].system or ""
    camoc = game(condition="abl-submit").pending()[0].system or ""
    head_s, _, beh_s = short.partition("## How to behave")
    head_c, _, beh_c = camoc.partition("## How to behave")
    assert head_s == head_c
    assert "what you expect the other agents to do" in beh_s
    assert "what you expect the other agents to do" not in beh_c
    for clause in ("Role and focus", "Communication priority", "Deliberate action cycle"):
        assert clause in beh_c and clause not in beh_s
    assert beh_c.index("Do not submit too early") < beh_c.index("Role and focus")
    assert beh_c.index("Deliberate action cycle") < beh_c.index("Submitting is final")


def test_events_and_token_estimates() -> None:
    g = game(n=1, k=2)
    g.submit(0, cmds(answer(g, 0)))
    assert g.done()
    types = [e["type"] for e in g.drain_events()]
    assert types == ["phase_start", "submission", "turn", "round_end", "phase_end", "game_end"]
    m = g.result().metrics
    assert m["tokens_est"] > 0 and m["comm_tokens_est"] == 0 and m["cr_est"] == 0.0
    assert m["te_est"] == pytest.approx(2 / m["tokens_est"] * 1e5)


def test_communication_tokens_count_message_and_file_traffic_only() -> None:
    g = game(backend="kv")
    play_round(g, {0: cmds("write_file a\nxyz"), 1: cmds("wait"), 2: cmds("list_agents")})
    rows = g._tallies
    assert rows[0].comm_tokens_est > 0 and rows[0].comm_commands == 1
    assert rows[1].comm_tokens_est == 0 and rows[2].comm_tokens_est == 0
    assert rows[2].failed_commands == 1  # list_agents is not a K-V command


def test_extension_tasks_are_selectable() -> None:
    g = game(task="max", n=2, k=2)
    assert "distributed maximum" in (g.pending()[0].system or "")
    play_round(g, {s: cmds(answer(g, s)) for s in range(2)})
    assert g.result().metrics["success"] == 1.0
    p = game(task="prefix_sum", n=2, k=2)
    assert "prefix sums" in (p.pending()[1].system or "")


@pytest.mark.parametrize("task", ["sort", "max", "prefix_sum"])
def test_the_prompt_checker_agrees_with_the_game_checker(task: str) -> None:
    g = game(task=task, n=3, k=2)
    system = g.pending()[0].system or ""
    code = system.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, Any] = {}
    exec(code, scope)  # the reference function shown to the agents
    xs = [list(s) for s in g.task.xs]
    right = [list(s) for s in g.task.expected]
    wrong = [right[0], right[1], [v + 1 for v in right[2]]]
    assert scope["check_results"](xs, right, 2) is True
    assert scope["check_results"](xs, wrong, 2) is False
