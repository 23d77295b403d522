"""Prompts of the negotiation game, section by section as seed 004 App. D, in our own words.

The wording lives in template files (``templates/*.j2``, one per section; see
`accord.core.prompts`), which a researcher can override with ``prompts: DIR``; this module
computes the values each template needs and renders it.

The system prompt has four parts (App. D.1): game rules, projects, response format, and the
strategic situation (with optional interventions); ``system.j2`` joins them with the opening
line. User prompts guide each phase: cheap talk (D.2), decision (D.3), round results (D.4) and
the post-game reflection (D.5). D.6 gives the no-thinking variant, D.7 the no-talk baseline,
D.8 the instantiation details (themed resource names, shifting-partner redaction,
unlimited-turn wording).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from accord.core.prompts import PromptSet, TemplateSpec, game_templates, pick
from accord.games.negotiation.scenario import RESOURCES, Market, Project, format_requirements

Names = Mapping[str, str]

TEMPLATES: dict[str, TemplateSpec] = {
    s.name: s
    for s in (
        TemplateSpec("system", frozenset({"rules", "projects", "decision_format",
                                          "response_format", "situation"}),
                     "the whole system prompt: the opening line and the five sections"),
        TemplateSpec("intro", doc="the opening line of the system prompt"),
        TemplateSpec("rules", frozenset({"resources", "supply", "prices", "budget", "max_types",
                                         "shifting"}),
                     "App. D.1.1: the market"),
        TemplateSpec("project_line", frozenset({"name", "requirements"}),
                     "one project: its needs per run and reward"),
        TemplateSpec("projects", frozenset({"project_lines", "opponent_lines",
                                            "reward_functions"}),
                     "App. D.1.2: the seat's projects (and the partner's under transparency)"),
        TemplateSpec("decision_format", frozenset({"example"}),
                     "App. D.1.3: how a decision is written"),
        TemplateSpec("response_format", frozenset({"thinking", "json_reminder"}),
                     "App. D.1.4 / D.6: the reply format"),
        TemplateSpec("situation", frozenset({"shifting", "partner_shifts", "joint_goal",
                                             "intervention"}),
                     "App. D.1.5: goal, partner, interventions"),
        TemplateSpec("talk_opening", frozenset({"partner_said", "thinking", "intervention"}),
                     "App. D.2.1: a round's first cheap-talk prompt"),
        TemplateSpec("talk_followup", frozenset({"partner_said", "thinking"}),
                     "App. D.2.2: a later cheap-talk prompt"),
        TemplateSpec("new_projects", frozenset({"project_lines", "partner_lines"}),
                     "App. D.2.3: rotating projects for the round"),
        TemplateSpec("partner_decided", doc="the partner decided during cheap talk"),
        TemplateSpec("new_names", frozenset({"names"}), "resources renamed for the round"),
        TemplateSpec("decision", frozenset({"max_types", "budget", "thinking"}),
                     "App. D.3: the decision"),
        TemplateSpec("round_result", frozenset({"you", "them", "reward", "runs", "annulled"}),
                     "App. D.4: the round's outcome"),
        TemplateSpec("reflection", frozenset({"own", "other", "joint_max"}),
                     "App. D.5: the post-game reflection"),
    )
}  # fmt: skip
"""Every template of the game, with the variables an override must keep: the facts a model
needs (its projects, the budget) and the switches of each condition (thinking, interventions,
transparency), so an override can reword a condition but not silently drop it."""


def templates(override: str | Path | None = None) -> PromptSet:
    """The game's templates (the defaults, or with `override`'s files laid over them)."""
    return game_templates("negotiation", override)


def _t(given: PromptSet | None) -> PromptSet:
    return pick("negotiation", given)


def _num(x: float) -> str:
    return f"{x:g}"


def rules_section(
    market: Market, names: Names, *, shifting: bool, t: PromptSet | None = None
) -> str:
    """App. D.1.1: the market. The carry-over line is dropped for a shifting seat (D.8)."""
    prices = json.dumps({names[r]: market.costs[r] for r in RESOURCES})
    return _t(t).render(
        "rules",
        resources=", ".join(names[r] for r in RESOURCES),
        supply=json.dumps({names[r]: market.supply[r] for r in RESOURCES}),
        prices=prices.replace(".0,", ",").replace(".0}", "}"),
        budget=_num(market.budget),
        max_types=market.max_types,
        shifting=shifting,
    )


def project_lines(
    projects: Sequence[Project], names: Names, *, rewards: bool = True, t: PromptSet | None = None
) -> str:
    """One line per project: requirements per run and reward per run."""
    return "\n".join(
        _t(t).render(
            "project_line",
            name=p.name,
            requirements=format_requirements(p.requirements, dict(names)),
            reward=p.reward if rewards else None,
        )
        for p in projects
    )


def projects_section(
    projects: Sequence[Project],
    names: Names,
    *,
    opponent: Sequence[Project] | None = None,
    opponent_round: int | None = None,
    reward_functions: bool = False,
    t: PromptSet | None = None,
) -> str:
    """App. D.1.2: the seat's private projects, and under transparency (§5.7) the partner's
    complete projects (requirements and reward per run); `reward_functions` (the joint
    variant) also states how each party's reward is computed. `opponent_round` labels a
    partner list from an earlier round (a kept round-1 prompt) with that round."""
    return _t(t).render(
        "projects",
        count=len(projects),
        project_lines=project_lines(projects, names, t=t),
        opponent_lines=project_lines(opponent, names, t=t) if opponent is not None else None,
        opponent_round=opponent_round,
        reward_functions=reward_functions,
    )


def purchase_example(projects: Sequence[Project], names: Names) -> str:
    """A decision example that uses the seat's real project names (App. D.8)."""
    a = names[RESOURCES[0]]
    c = names[RESOURCES[2]]
    first = projects[0].name if projects else "project_a"
    second = projects[1].name if len(projects) > 1 else first
    return json.dumps({a: 3, c: 1, "projects": {first: 1, second: 1}})


def decision_format_section(
    projects: Sequence[Project], names: Names, t: PromptSet | None = None
) -> str:
    """App. D.1.3: how a purchase with project runs is written."""
    return _t(t).render("decision_format", example=purchase_example(projects, names))


def response_format_section(
    *, thinking: bool, json_reminder: bool = False, t: PromptSet | None = None
) -> str:
    """App. D.1.4 (private scratchpad) or D.6 (no private channel); `json_reminder` adds the
    extra format line the paper gives some providers (thinking format only: the plain format
    has no envelope)."""
    return _t(t).render("response_format", thinking=thinking, json_reminder=json_reminder)


def situation_section(
    *,
    shifting: bool,
    intervention: str,
    partner_shifts: bool = False,
    joint_goal: bool = False,
    t: PromptSet | None = None,
) -> str:
    """App. D.1.5: the goal, the partner condition, and the optional interventions.

    The seat whose context resets (`shifting`, App. D.8) is told of one stand-alone round and
    nothing of other rounds; its partner (`partner_shifts`) is told that the opponent
    changes every round (companion code). `joint_goal` makes the goal the joint reward.
    """
    return _t(t).render(
        "situation",
        shifting=shifting,
        intervention=intervention,
        partner_shifts=partner_shifts,
        joint_goal=joint_goal,
    )


def system_prompt(
    market: Market,
    names: Names,
    projects: Sequence[Project],
    *,
    thinking: bool,
    shifting: bool,
    intervention: str,
    opponent: Sequence[Project] | None = None,
    opponent_round: int | None = None,
    reward_functions: bool = False,
    partner_shifts: bool = False,
    joint_goal: bool = False,
    json_reminder: bool = False,
    t: PromptSet | None = None,
) -> str:
    """The whole system prompt of one seat (App. D.1)."""
    return _t(t).render(
        "system",
        intro=_t(t).render("intro"),
        rules=rules_section(market, names, shifting=shifting, t=t),
        projects=projects_section(
            projects,
            names,
            opponent=opponent,
            opponent_round=opponent_round,
            reward_functions=reward_functions,
            t=t,
        ),
        decision_format=decision_format_section(projects, names, t=t),
        response_format=response_format_section(
            thinking=thinking, json_reminder=json_reminder, t=t
        ),
        situation=situation_section(
            shifting=shifting,
            intervention=intervention,
            partner_shifts=partner_shifts,
            joint_goal=joint_goal,
            t=t,
        ),
    )


def talk_opening(
    round_no: int,
    num_rounds: int,
    *,
    turns: int,
    thinking: bool,
    partner_said: str | None,
    intervention: str,
    standalone: bool = False,
    t: PromptSet | None = None,
) -> str:
    """App. D.2.1 (and D.6): the first cheap-talk prompt of a round for one seat.

    A `standalone` seat (the one whose context resets, App. D.8) gets no round counter.
    """
    return _t(t).render(
        "talk_opening",
        round_no=round_no,
        num_rounds=num_rounds,
        turns=turns,
        thinking=thinking,
        partner_said=partner_said,
        intervention=intervention,
        standalone=standalone,
    )


def talk_followup(partner_said: str | None, *, thinking: bool, t: PromptSet | None = None) -> str:
    """App. D.2.2: a later cheap-talk prompt. No quote when the partner sent no words (a bare
    decision) or nothing since this seat's last message (it decided)."""
    return _t(t).render("talk_followup", partner_said=partner_said, thinking=thinking)


def new_projects_notice(
    projects: Sequence[Project],
    names: Names,
    partner: Sequence[Project] | None = None,
    t: PromptSet | None = None,
) -> str:
    """App. D.2.3: rotating projects, prepended to the round's first prompt. Under
    transparency (§5.7) it lists the partner's new projects too."""
    return _t(t).render(
        "new_projects",
        project_lines=project_lines(projects, names, t=t),
        partner_lines=project_lines(partner, names, t=t) if partner is not None else None,
    )


def partner_decided(t: PromptSet | None = None) -> str:
    """App. D.1 / companion code: shown when the partner decided during cheap talk."""
    return _t(t).render("partner_decided")


DECISION_REFUSED = (
    "Your last reply carried a decision that was not accepted: {error}. It was passed on to "
    "the other party as your message, and you have not decided yet. Send a corrected decision "
    "when you are ready."
)
"""The `invalid_talk_decision: speech` notice. Kept in code, not a template file: every
template's hash is in every trace, and the default game must not change."""


def decision_refused(error: str) -> str:
    """Companion code: a refused talk-phase decision uses up the turn and the seat is told
    to submit again (`invalid_talk_decision: speech`)."""
    return DECISION_REFUSED.format(error=error.rstrip("."))


def new_names_notice(names: Names, before: Names | None = None, t: PromptSet | None = None) -> str:
    """Resources renamed for this round (only when themes change per round), with the
    old-to-new mapping when the earlier names are given."""
    mapping = ", ".join(f"{before[r]} is now {names[r]}" for r in RESOURCES) if before else None
    return _t(t).render("new_names", names=", ".join(names[r] for r in RESOURCES), mapping=mapping)


def decision_prompt(market: Market, *, thinking: bool, t: PromptSet | None = None) -> str:
    """App. D.3: the forced decision."""
    return _t(t).render(
        "decision", max_types=market.max_types, budget=_num(market.budget), thinking=thinking
    )


def _fmt_purchase(purchase: Mapping[str, int], names: Names) -> str:
    return json.dumps({names[r]: q for r, q in purchase.items()}) if purchase else "nothing"


def _fmt_runs(runs: Mapping[str, int]) -> str:
    return ", ".join(f"{n}×{k}" for n, k in runs.items()) or "none"


def round_result(
    *,
    annulled: bool,
    own: Mapping[str, int],
    other: Mapping[str, int],
    runs: Mapping[str, int],
    reward: int,
    names: Names,
    t: PromptSet | None = None,
) -> str:
    """App. D.4: the outcome notice (standard, annulled, or no project completed)."""
    return _t(t).render(
        "round_result",
        annulled=annulled,
        nothing_completed=reward == 0 and not runs,
        you=_fmt_purchase(own, names),
        them=_fmt_purchase(other, names),
        runs=_fmt_runs(runs),
        reward=reward,
    )


def reflection_prompt(
    *,
    rounds: int,
    own: int,
    other: int,
    joint_max: int,
    standalone: bool = False,
    t: PromptSet | None = None,
) -> str:
    """App. D.5: the post-game reflection. A `standalone` seat (context reset each round,
    App. D.8) is given the figures of its one round and no round count."""
    joint = own + other
    share = f"{100.0 * joint / joint_max:.1f}%" if joint_max else "undefined (the best total is 0)"
    return _t(t).render(
        "reflection",
        standalone=standalone,
        rounds=rounds,
        own=own,
        other=other,
        joint=joint,
        joint_max=joint_max,
        share=share,
    )
