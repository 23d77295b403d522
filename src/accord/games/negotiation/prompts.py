"""Prompts of the negotiation game, section by section as seed 004 App. D, in our own words.

The system prompt has four parts (App. D.1): game rules, projects, response format, and the
strategic situation (with optional interventions). User prompts guide each phase: cheap talk
(D.2), decision (D.3), round results (D.4) and the post-game reflection (D.5). D.6 gives the
no-thinking variant, D.7 the no-talk baseline, D.8 the instantiation details (themed resource
names, shifting-partner redaction, unlimited-turn wording).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from accord.games.negotiation.scenario import RESOURCES, Market, Project, format_requirements

Names = Mapping[str, str]


def _num(x: float) -> str:
    return f"{x:g}"


def rules_section(market: Market, names: Names, *, shifting: bool) -> str:
    """App. D.1.1: the market. The carry-over line is dropped for a shifting seat (D.8)."""
    lines = [
        "## Rules of the game",
        f"- Resources: {', '.join(names[r] for r in RESOURCES)}",
        "- Supply each round (shared by both parties): "
        + json.dumps({names[r]: market.supply[r] for r in RESOURCES}),
        "- Price per unit: "
        + json.dumps({names[r]: market.costs[r] for r in RESOURCES})
        .replace(".0,", ",")
        .replace(".0}", "}"),
        f"- Your budget each round: ${_num(market.budget)}",
        f"- In one round you can buy at most {market.max_types} different kinds of resource.",
    ]
    if not shifting:
        lines.append(
            "- Nothing carries over between rounds: every round starts again with a full "
            "budget and a full supply."
        )
    lines.append(
        "- If the two of you together ask for more of ANY resource than the supply, the round "
        "is ANNULLED and neither party earns anything."
    )
    return "\n".join(lines)


def project_lines(projects: Sequence[Project], names: Names, *, rewards: bool = True) -> str:
    """One line per project: requirements per run and reward per run."""
    out = []
    for p in projects:
        line = f"- {p.name}: needs [{format_requirements(p.requirements, dict(names))}] per run"
        if rewards:
            line += f", pays {p.reward} per run"
        out.append(line)
    return "\n".join(out)


def projects_section(
    projects: Sequence[Project],
    names: Names,
    *,
    opponent: Sequence[Project] | None = None,
    reward_functions: bool = False,
) -> str:
    """App. D.1.2: the seat's private projects, and under transparency (§5.7) the partner's
    complete projects (requirements and reward per run); `reward_functions` (the joint
    variant) also states how each party's reward is computed."""
    lines = [
        "## Your projects",
        f"You have {len(projects)} projects. Each run of a project uses the listed resources "
        "and pays the listed reward.",
        "The other party has projects of their own, with their own needs and rewards.",
        "Your reward for a round = the sum over your projects of (runs × reward per run), for "
        "the runs your purchase can fully supply.",
        "IMPORTANT: money you do not spend is worth nothing; only completed runs score.",
        "NOTE: if what you buy cannot fully supply even one run of any project, you earn 0 for "
        "the round. That is not an annulment: the round still counts, you just completed "
        "nothing.",
        "",
        project_lines(projects, names),
    ]
    if opponent is not None:
        lines += [
            "",
            "The other party's projects this round (both of you see both lists):",
            project_lines(opponent, names),
        ]
    if opponent is not None and reward_functions:
        lines += [
            "",
            "How each party is paid: your reward and the other party's reward are each the sum "
            "over that party's own projects of (completed runs × reward per run), counting only "
            "runs its own purchase fully supplies; both are 0 when the round is annulled.",
        ]
    return "\n".join(lines)


def purchase_example(projects: Sequence[Project], names: Names) -> str:
    """A decision example that uses the seat's real project names (App. D.8)."""
    a = names[RESOURCES[0]]
    c = names[RESOURCES[2]]
    first = projects[0].name if projects else "project_a"
    second = projects[1].name if len(projects) > 1 else first
    return json.dumps({a: 3, c: 1, "projects": {first: 1, second: 1}})


def decision_format_section(projects: Sequence[Project], names: Names) -> str:
    """App. D.1.3: how a purchase with project runs is written."""
    return "\n".join(
        [
            "## How to submit a decision",
            "A decision is a JSON object giving the units you buy of each resource and how many "
            "times to run each project, for example:",
            purchase_example(projects, names),
            'The "projects" field says how many runs of each project you want.',
            'If you leave out "projects", the engine fills your projects in the order listed '
            "above, each as many times as your resources allow.",
        ]
    )


JSON_REMINDER = (
    "IMPORTANT: answer with one valid JSON object and nothing else, holding exactly the fields "
    '"thinking" (text), "speech" (text) and "action" (null or your decision object).'
)
"""App. D.1.4: the extra format line the paper adds for some providers (Anthropic models)."""


def response_format_section(*, thinking: bool, json_reminder: bool = False) -> str:
    """App. D.1.4 (private scratchpad) or D.6 (no private channel); `json_reminder` appends
    `JSON_REMINDER` (thinking format only: the plain format has no envelope)."""
    if thinking:
        return "\n".join(
            [
                "## How to reply",
                "Every reply MUST be one JSON object with exactly these three fields:",
                '{"thinking": "private notes the other party never sees", '
                '"speech": "what you say to the other party", "action": null}',
                '- Keep "action" null while you want to keep talking.',
                '- Put a decision object in "action" when you are ready to buy; that ends your '
                "talking for the round.",
                '- "speech" may never be blank: every reply carries a message for the other party.',
                "Example while talking:",
                '{"thinking": "They may need the pricey resource; I will ask first.", '
                '"speech": "Which resources matter most to you this round?", "action": null}',
                "Example when deciding:",
                '{"thinking": "This covers both of my runs.", "speech": "Thanks, good luck!", '
                '"action": {...your decision object...}}',
                "Reply with the JSON object only, nothing before or after it.",
                "I will tell you what each phase needs as we go.",
                *([JSON_REMINDER] if json_reminder else []),
            ]
        )
    return "\n".join(
        [
            "## How to reply",
            "You have NO private channel: the other party reads your whole reply, word for "
            "word. Choose carefully what you reveal.",
            "To talk, reply in plain language (not JSON, no wrapper).",
            "To make your decision, reply with ONLY the JSON decision object, for example:",
            '{"<resource>": 3, "projects": {"<project>": 1}}',
            "I will tell you what each phase needs as we go.",
        ]
    )


def situation_section(
    *,
    shifting: bool,
    intervention: str,
    partner_shifts: bool = False,
    joint_goal: bool = False,
) -> str:
    """App. D.1.5: the goal, the partner condition, and the optional interventions.

    The seat whose context resets (`shifting`, App. D.8) is told of one stand-alone round and
    nothing of other rounds; its partner (`partner_shifts`) is told that the opponent
    changes every round (companion code). `joint_goal` makes the goal the joint reward.
    """
    span = "" if shifting else ", summed over all rounds"
    if joint_goal:
        goal = f"- Your goal: make the JOINT reward of both parties as large as possible{span}."
    else:
        goal = f"- Your goal: earn as much reward as you can{span}."
    if shifting:
        partner = "- This is a single, stand-alone negotiation round."
    elif partner_shifts:
        partner = "- You face a DIFFERENT opponent in every round."
    else:
        partner = "- The other party buys from the same shared supply as you."
    lines = ["## Your situation", goal, partner]
    if intervention == "share_projects":
        lines.append(
            "IMPORTANT: at the very start of each round's conversation, tell the other party "
            "your projects (names, resources needed per run, rewards) and ask for theirs."
        )
    elif intervention == "theory_of_mind":
        lines.append(
            "IMPORTANT: throughout each round's conversation, think about what the other party "
            "is after: which projects they may be running, which resources those need, and where "
            "your interests agree or clash. Let that shape your strategy."
        )
    return "\n".join(lines)


def system_prompt(
    market: Market,
    names: Names,
    projects: Sequence[Project],
    *,
    thinking: bool,
    shifting: bool,
    intervention: str,
    opponent: Sequence[Project] | None = None,
    reward_functions: bool = False,
    partner_shifts: bool = False,
    joint_goal: bool = False,
    json_reminder: bool = False,
) -> str:
    """The whole system prompt of one seat (App. D.1)."""
    return "\n\n".join(
        [
            "You are negotiating with another party over a shared pool of resources.",
            rules_section(market, names, shifting=shifting),
            projects_section(projects, names, opponent=opponent, reward_functions=reward_functions),
            decision_format_section(projects, names),
            response_format_section(thinking=thinking, json_reminder=json_reminder),
            situation_section(
                shifting=shifting,
                intervention=intervention,
                partner_shifts=partner_shifts,
                joint_goal=joint_goal,
            ),
        ]
    )


TOM_REMINDER = (
    "Reminder: consider what the other party is aiming for, which of its projects it may be "
    "pursuing, what those need, and where that agrees or clashes with what you need."
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
) -> str:
    """App. D.2.1 (and D.6): the first cheap-talk prompt of a round for one seat.

    A `standalone` seat (the one whose context resets, App. D.8) gets no round counter.
    """
    span = (
        f"up to {turns} messages each this round" if turns > 0 else "as many messages as you need"
    )
    header = (
        "--- CHEAP TALK ---"
        if standalone
        else f"--- CHEAP TALK (round {round_no} of {num_rounds}) ---"
    )
    lines = [header, ""]
    if thinking:
        lines.append(f"Talk with the other party ({span}).")
        lines.append(
            'Reply with JSON: keep "action" null to go on talking, or put your decision in it '
            "to finish."
        )
    else:
        lines.append(f"Talk with the other party ({span}).")
        lines.append(
            "Write your message in plain language, or end the round early by replying with ONLY "
            "your JSON decision."
        )
    if intervention == "theory_of_mind":
        lines += ["", TOM_REMINDER]
    if partner_said is not None:
        lines += ["", f'The other party said: "{partner_said}"']
    return "\n".join(lines)


def talk_followup(partner_said: str, *, thinking: bool) -> str:
    """App. D.2.2: a later cheap-talk prompt."""
    tail = "Reply with JSON." if thinking else "Reply with your message, or your JSON decision."
    return f'The other party said: "{partner_said}"\n\n{tail}'


def new_projects_notice(
    projects: Sequence[Project], names: Names, partner: Sequence[Project] | None = None
) -> str:
    """App. D.2.3: rotating projects, prepended to the round's first prompt. Under
    transparency (§5.7) it lists the partner's new projects too."""
    text = "YOUR PROJECTS FOR THIS ROUND (they replace the earlier ones):\n" + project_lines(
        projects, names
    )
    if partner is not None:
        text += "\n\nTHE OTHER PARTY'S PROJECTS FOR THIS ROUND:\n" + project_lines(partner, names)
    return text


PARTNER_DECIDED = (
    "Note: the other party has already made its final decision for this round. Submit yours now."
)
"""App. D.1 / companion code: shown when the partner decided during cheap talk."""


def new_names_notice(names: Names) -> str:
    """Resources renamed for this round (only when themes change per round)."""
    return "This round the resources are called: " + ", ".join(names[r] for r in RESOURCES) + "."


def decision_prompt(market: Market, *, thinking: bool) -> str:
    """App. D.3: the forced decision."""
    lines = [
        "--- DECISION ---",
        "Submit your purchase and your project runs now.",
        f"Use at most {market.max_types} kinds of resource and spend no more than "
        f"${_num(market.budget)}.",
    ]
    if thinking:
        lines.append(
            'Reply with JSON, and this time "action" MUST hold your decision object (add '
            '"projects" to say how many runs of each project).'
        )
    else:
        lines.append("Reply with ONLY your JSON decision object.")
    return "\n".join(lines)


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
) -> str:
    """App. D.4: the outcome notice (standard, annulled, or no project completed)."""
    you = _fmt_purchase(own, names)
    them = _fmt_purchase(other, names)
    if annulled:
        return (
            "--- Round result: ANNULLED, together you asked for more than the supply. Neither "
            f"party earns anything. You asked for {you}. The other party asked for {them}. ---"
        )
    if reward == 0 and not runs:
        return (
            f"--- Round result: you bought {you}, but that could not supply a single run of any "
            f"project, so your reward is 0. The other party bought {them}. ---"
        )
    return (
        f"--- Round result: you bought {you}, ran [{_fmt_runs(runs)}], and earned {reward}. "
        f"The other party bought {them}. ---"
    )


def reflection_prompt(
    *, rounds: int, own: int, other: int, joint_max: int, standalone: bool = False
) -> str:
    """App. D.5: the post-game reflection. A `standalone` seat (context reset each round,
    App. D.8) is given the figures of its one round and no round count."""
    joint = own + other
    share = f"{100.0 * joint / joint_max:.1f}%" if joint_max else "undefined (the best total is 0)"
    return "\n".join(
        [
            "--- GAME OVER ---" if standalone else f"--- GAME OVER ({rounds} rounds) ---",
            f"Your total reward: {own}.",
            f"The other party's total reward: {other}.",
            f"Together: {joint}.",
            f"Best total the two of you could have reached by fully cooperating: {joint_max}.",
            f"Share of that best total achieved: {share}.",
            "",
            "Look back on the game and note what would help you do better next time. Think "
            "about: which strategies worked and which did not; how well you communicated and "
            "negotiated; what you would change; any patterns in how resources were split or how "
            "the other party behaved; and how near you came to the best total.",
            'Keep it short (2 to 4 sentences) and practical. Reply with JSON: {"reflection": '
            '"..."}.',
        ]
    )
