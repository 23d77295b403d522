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

The wording lives in template files (``templates/*.j2``, see `accord.core.prompts`), which a
researcher can override with ``prompts: DIR``; this module computes their values.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from accord.core.prompts import PromptSet, TemplateSpec, game_templates, pick
from accord.games.sorting.commands import BackendKind, format_list
from accord.games.sorting.config import Behaviour
from accord.games.sorting.task import Task, TaskKind

TEMPLATES: dict[str, TemplateSpec] = {
    s.name: s
    for s in (
        TemplateSpec("system", frozenset({"header", "commands", "behaviour", "rerun",
                                          "rerun_addendum"}),
                     "BUILD_PROMPT (App. F.6): the three fragments and the rerun paragraph"),
        TemplateSpec("header", frozenset({"agent", "n", "k", "own_list", "objective", "checker",
                                          "rerun", "previous"}),
                     "fragment (i): identity, N and K, the agent's list, goal and checker"),
        TemplateSpec("objective", frozenset({"task", "lo", "hi"}),
                     "App. D.1: what each agent must submit, per task"),
        TemplateSpec("checker", frozenset({"task"}),
                     "App. D.1: the check_results function that defines success"),
        TemplateSpec("commands", frozenset({"backend"}),
                     "fragment (ii): the backend's commands (Table 5) and block rules"),
        TemplateSpec("behaviour", frozenset({"behaviour"}),
                     "fragment (iii): the behaviour list, short or with the CAMOC clauses"),
        TemplateSpec("rerun", frozenset({"previous"}),
                     "the verification phase's paragraph (App. F.6)"),
        TemplateSpec("first_observation", doc="the opening user turn"),
    )
}  # fmt: skip
"""Every template of the game, with the variables an override must keep."""

_TASK_NAMES: dict[TaskKind, str] = {
    "sort": "distributed sorting",
    "max": "distributed maximum",
    "prefix_sum": "distributed prefix sum",
}


def templates(override: str | Path | None = None) -> PromptSet:
    """The game's templates (the defaults, or with `override`'s files laid over them)."""
    return game_templates("sorting", override)


def _t(given: PromptSet | None) -> PromptSet:
    return pick("sorting", given)


def first_observation(t: PromptSet | None = None) -> str:
    """The opening user turn (a chat needs one; the paper's first call sees only the system)."""
    return _t(t).render("first_observation")


FIRST_OBSERVATION = "The task starts now. Write your first commands."
"""The default opening user turn (`first_observation` renders the template)."""


def _prev_text(prev: Sequence[int] | None) -> str:
    return format_list(prev) if prev is not None else "nothing (you did not submit a result)"


def header(
    task: Task, agent: int, *, rerun: bool, prev: Sequence[int] | None, t: PromptSet | None = None
) -> str:
    """Fragment (i): identity, parameters, the agent's list, objective and checker."""
    n, k = task.n, task.k
    objective = _t(t).render(
        "objective", task=task.kind, n=n, k=k, lo=agent * k, hi=(agent + 1) * k - 1
    )
    return _t(t).render(
        "header",
        agent=agent,
        task_name=_TASK_NAMES[task.kind],
        rerun=rerun,
        previous=_prev_text(prev),
        n=n,
        k=k,
        own_list=format_list(task.xs[agent]),
        objective=objective,
        checker=_t(t).render("checker", task=task.kind),
    )


def command_reference(
    backend: BackendKind, t: PromptSet | None = None, *, n: int = 2, agent: int = 0
) -> str:
    """Fragment (ii): how to act, and the commands of this backend (Table 5). `n` and `agent`
    keep the examples to agents that exist (a one-agent game has no one to message)."""
    return _t(t).render("commands", backend=backend, n=n, agent=agent)


def behaviour_list(behaviour: Behaviour, t: PromptSet | None = None) -> str:
    """Fragment (iii): the behaviour list, ``short`` or with the three CAMOC clauses."""
    return _t(t).render("behaviour", behaviour=behaviour)


def rerun_addendum(prev: Sequence[int] | None, t: PromptSet | None = None) -> str:
    """The paragraph appended after the behaviour list in the verification phase."""
    return _t(t).render("rerun", previous=_prev_text(prev))


def build_prompt(
    task: Task,
    agent: int,
    backend: BackendKind,
    behaviour: Behaviour,
    *,
    rerun: bool = False,
    prev: Sequence[int] | None = None,
    t: PromptSet | None = None,
) -> str:
    """BUILD_PROMPT(i, xs[i]; beh, rerun, prev): the whole system prompt."""
    return _t(t).render(
        "system",
        header=header(task, agent, rerun=rerun, prev=prev, t=t),
        commands=command_reference(backend, t=t, n=task.n, agent=agent),
        behaviour=behaviour_list(behaviour, t=t),
        rerun=rerun,
        rerun_addendum=rerun_addendum(prev, t=t) if rerun else "",
    )
