"""Prompts of the sorting game: BUILD_PROMPT of MAS-Bench App. F.6 and App. D, in our words.

The system prompt is three fragments (App. F.6):

1. a common header: the agent's identity, N and K, its list verbatim, the objective and a
   reference ``check_results`` function that defines success (App. D.1);
2. the backend's command reference (Table 5) with the command-block rules (App. D.2, D.4);
3. the behaviour list (App. D.2). The ``camoc`` variant inserts three clauses (role and focus,
   communication priority, deliberate action cycle) between the "do not submit early" rule and
   the submission lock, and drops "what you expect others to do" from the message guidance.

In the verification phase (``rerun``) two lines about the first run follow the identity line
and one paragraph follows the behaviour list; the previous submission is injected by value
(App. F.6, "Phase-2 rerun addendum"). Fragments 1 and 2 do not depend on the behaviour list.
"""

from __future__ import annotations

from collections.abc import Sequence

from accord.games.sorting.commands import BackendKind, format_list
from accord.games.sorting.config import Behaviour
from accord.games.sorting.task import Task, TaskKind

FIRST_OBSERVATION = "The task starts now. Write your first commands."
"""The opening user turn (a chat needs one; the paper's first call sees only the system)."""

_TASK_NAMES: dict[TaskKind, str] = {
    "sort": "distributed sorting",
    "max": "distributed maximum",
    "prefix_sum": "distributed prefix sum",
}


def _prev_text(prev: Sequence[int] | None) -> str:
    return format_list(prev) if prev is not None else "nothing (you did not submit a result)"


def _objective(task: Task, agent: int) -> str:
    n, k = task.n, task.k
    lo, hi = agent * k, (agent + 1) * k - 1
    if task.kind == "sort":
        return (
            f"Together the {n} agents hold {n * k} distinct integers. Sort all of them in "
            f"ascending order and cut the result into {n} consecutive pieces of {k}: Agent-0 "
            f"owns the {k} smallest, Agent-1 the next {k}, and so on. You must submit your "
            f"piece: the integers at positions {lo} to {hi} (counting from 0) of the sorted "
            f"list, in ascending order, exactly {k} of them."
        )
    if task.kind == "max":
        return (
            f"Together the {n} agents hold {n * k} distinct integers. Every agent must submit "
            "the largest integer held by any agent, as a list with one element, e.g. [917]."
        )
    return (
        f"Put the agents' lists one after another in id order (Agent-0's first) to form one "
        f"array of {n * k} integers. Every agent must submit the running totals (inclusive "
        f"prefix sums) of that array at its own positions: you own positions {lo} to {hi} "
        f"(counting from 0), so you submit {k} integers, the sum of all elements up to and "
        "including each of your positions."
    )


_CHECKERS: dict[TaskKind, str] = {
    "sort": """def check_results(xs, ys, k):
    # xs[j]: Agent-j's starting list; ys[j]: Agent-j's submission
    if any(len(y) != k for y in ys):
        return False
    everything = sorted(v for x in xs for v in x)
    return [v for y in ys for v in y] == everything""",
    "max": """def check_results(xs, ys, k):
    # xs[j]: Agent-j's starting list; ys[j]: Agent-j's submission
    top = max(v for x in xs for v in x)
    return all(y == [top] for y in ys)""",
    "prefix_sum": """def check_results(xs, ys, k):
    # xs[j]: Agent-j's starting list; ys[j]: Agent-j's submission
    totals, running = [], 0
    for v in (v for x in xs for v in x):
        running += v
        totals.append(running)
    return all(ys[j] == totals[j * k:(j + 1) * k] for j in range(len(xs)))""",
}


def header(task: Task, agent: int, *, rerun: bool, prev: Sequence[int] | None) -> str:
    """Fragment (i): identity, parameters, the agent's list, objective and checker."""
    lines = [
        f"You are Agent-{agent} in a multi-agent system solving a {_TASK_NAMES[task.kind]} task."
    ]
    if rerun:
        lines += [
            "This is the second run of the task. Check whether the result you submitted in "
            "the first run is correct; if it is not, submit the correct result.",
            f"Your submission in the first run was: {_prev_text(prev)}",
        ]
    lines += [
        "",
        f"There are N = {task.n} agents (Agent-0 to Agent-{task.n - 1}) and each holds "
        f"K = {task.k} integers. Only you can see your own list.",
        f"Your list: {format_list(task.xs[agent])}",
        "",
        "Goal: " + _objective(task, agent),
        "",
        "The result is judged by this function (success means it returns True):",
        "```python",
        _CHECKERS[task.kind],
        "```",
    ]
    return "\n".join(lines)


_COMMANDS: dict[BackendKind, list[str]] = {
    "broadcast": [
        "receive_messages - show the messages sent to you that you have not read yet (each "
        "message is shown once, oldest first).",
        "broadcast_message <text> - send <text> to every other agent.",
        "list_agents - list the registered agents.",
        "wait - do nothing this turn.",
        "submit_result <list> - submit your final answer, e.g. submit_result [3, 8, 15]. The "
        "other agents are told automatically what you submitted.",
    ],
    "p2p": [
        "receive_messages - show the messages sent to you that you have not read yet (each "
        "message is shown once, oldest first).",
        "send_message <to> <text> - send <text> to the agent whose id is <to> (a number, e.g. "
        "send_message 2 hello). An agent that has submitted is offline and gets no messages.",
        "wait - do nothing this turn.",
        "submit_result <list> - submit your final answer, e.g. submit_result [3, 8, 15].",
    ],
    "kv": [
        "list_files [prefix] - list the stored keys (optionally only those starting with "
        "prefix), oldest first, with their length and the round they were last written.",
        "read_file <key> - show the full value stored under <key>.",
        "write_file <key> - store the lines that follow the command line (inside the same "
        "block) as the value of <key>, replacing any previous value.",
        "delete_file <key> - remove <key>.",
        "wait - do nothing this turn.",
        "submit_result <list> - submit your final answer, e.g. submit_result [3, 8, 15]. A "
        "file Agent-<your id>_submission.txt recording it is written automatically.",
    ],
}

_EXAMPLES: dict[BackendKind, str] = {
    "broadcast": "broadcast_message Agent-0 here. My list: [12, 40, 7]",
    "p2p": "send_message 1 Agent-0 here. My list: [12, 40, 7]",
    "kv": "write_file list_agent_0\n[12, 40, 7]",
}

_MEDIUM: dict[BackendKind, str] = {
    "broadcast": "Agents communicate only by broadcast messages that every other agent receives.",
    "p2p": "Agents communicate only by direct messages from one agent to another.",
    "kv": "Agents communicate only through a shared key-value store (files) that all can read "
    "and write; the last write to a key wins.",
}


def command_reference(backend: BackendKind) -> str:
    """Fragment (ii): how to act, and the commands of this backend (Table 5)."""
    return "\n".join(
        [
            "## How to act",
            _MEDIUM[backend],
            "You act only by writing commands; do not use any built-in tool-calling feature. "
            "Put each command in its own fenced code block (three backticks): exactly one "
            "command per block and nothing else inside it. You may write your reasoning in "
            "plain text outside the blocks. Every block in your reply is run, in order, and "
            "the results come back to you as the next message.",
            "",
            "Commands:",
            *[f"- {c}" for c in _COMMANDS[backend]],
            "",
            "Example of one command:",
            "```",
            _EXAMPLES[backend],
            "```",
        ]
    )


_CAMOC_CLAUSES = [
    "Role and focus: concentrate only on the actions and data your own role needs. Share "
    "your own results when they are relevant and ask clearly for the information you need "
    "from others, but do not guess at or manage what other agents need. Think only about what "
    "you must get from others and what you must submit, not about what they should submit.",
    "Communication priority and efficiency: send as few messages as you can in each round; "
    "it is fine to collect what you need over several rounds. Answering other agents' "
    "requests always comes first: in every round, fully deal with incoming requests before "
    "you start any new request or message of your own.",
    "Deliberate action cycle: at the start of every round, first read all received messages "
    "and available information and work out the current state, including shared data and "
    "open requests. Only then plan and act.",
]


def behaviour_list(behaviour: Behaviour) -> str:
    """Fragment (iii): the behaviour list, ``short`` or with the three CAMOC clauses."""
    share = [
        "your agent id",
        "your local list",
        "the part of the global order you intend to own",
    ]
    if behaviour == "short":
        share.append("what you expect the other agents to do")
    items = [
        "Coordinate with the other agents before you submit: being right locally is not "
        "enough, all submissions must fit together.",
        "Share structured information: " + "; ".join(share) + ".",
        "Do not submit too early: first exchange enough information to agree on one "
        "consistent global answer, and submit only when you are confident your part fits it.",
    ]
    if behaviour == "camoc":
        items += _CAMOC_CLAUSES
    items.append(
        "Submitting is final: after submit_result, stop issuing commands and do not try to "
        "change your answer."
    )
    return "\n".join(["## How to behave", *[f"- {item}" for item in items]])


def rerun_addendum(prev: Sequence[int] | None) -> str:
    """The paragraph appended after the behaviour list in the verification phase."""
    shown = _prev_text(prev)
    return (
        f"Your submission in the first run was {shown}. Use the commands above to check "
        "whether it is correct. If it is not, communicate with the other agents and submit "
        "the correct result; if you believe it is correct, submit the same result again. "
        "Before you submit, you must communicate with the other agents to get enough "
        "information to check your result."
    )


def build_prompt(
    task: Task,
    agent: int,
    backend: BackendKind,
    behaviour: Behaviour,
    *,
    rerun: bool = False,
    prev: Sequence[int] | None = None,
) -> str:
    """BUILD_PROMPT(i, xs[i]; beh, rerun, prev): the whole system prompt."""
    parts = [
        header(task, agent, rerun=rerun, prev=prev),
        command_reference(backend),
        behaviour_list(behaviour),
    ]
    if rerun:
        parts.append(rerun_addendum(prev))
    return "\n\n".join(parts)
