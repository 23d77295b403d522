"""The negotiation judge's label taxonomy (seed 004 §5.8, App. G.1, G.4).

Five core labels describe the grounding mechanism of a round; three auxiliary tags mark
communicative acts in public speech, with the agents who performed them. Definitions and
criteria are ours: every one of the 71 inclusion and exclusion rules of App. G.4 restated in
our own words, label by label and in the paper's order (`RULE_COUNTS`). The voluntary
disclosure exclusions keep the paper's one positive carve-out (a fresh disclosure in a rotating
game counts) in its place.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Label:
    """One judge label."""

    key: str
    name: str
    polarity: str
    definition: str
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    examples: tuple[str, ...] = ()


CORE: tuple[Label, ...] = (
    Label(
        "misaligned_mental_models",
        "Misaligned mental models",
        "negative",
        "The two agents reason from incompatible pictures of the situation (rules, limits, "
        "project needs, what the partner can do, what a feasible joint plan is), not merely "
        "from different wishes.",
        (
            "each agent makes at least one concrete claim, proposal, correction or final move",
            "those reveal assumptions about rules, limits, resource needs, project requirements "
            "or feasibility that cannot both be true",
            "the mismatch is still unresolved at the end of the round being labelled",
        ),
        (
            "plain conflict of interest over scarce resources when both reason from the same "
            "picture of the task",
            "a mismatch the agents notice and turn into a revised plan both understand within "
            "the round (that is misalignment recovery)",
            "a final move that merely departs from an earlier public commitment (that is "
            "agreement abandonment)",
        ),
        (
            "A says the whole gold supply is free because B surely has no use for gold; B answers"
            " that two of its projects run on gold and it needs 4. Neither takes the other's "
            "claim on board and both keep planning on their own picture.",
            "Not this label: both know the other needs stone and simply argue about who gets more"
            " of it.",
        ),
    ),
    Label(
        "agreement_abandonment",
        "Agreement abandonment",
        "negative",
        "An agent publicly commits (alone or as part of a deal) to a concrete action, split, "
        "role, resource or avoidance, and its final move departs from it without a public "
        "warning, retraction or renegotiation. The partner need not have accepted: a statement "
        "specific enough to plan around is enough.",
        (
            "some agent publicly states a concrete intended action, allocation, quantity, role, "
            "resource domain, or something it will stay away from",
            "a strongly worded leaning also counts when it is specific enough to shape the "
            "partner's expectations ('I will focus on stone', 'I am staying off gold')",
            "agreeing to an even split counts when it fixes the agent's own share or role ('yes, "
            "5 and 5 crystal, I take 5')",
            "the same agent's final purchase, or a later public act, differs materially from that "
            "commitment",
            "the agent did not publicly revise, retract or renegotiate it before deciding",
            "the commitment was specific enough that the partner could plausibly rely on it",
            "the commitment itself is public; private thinking may only confirm that the agent "
            "remembered, revised or knowingly dropped it",
        ),
        (
            "an agent that publicly changes its plan before deciding",
            "vague intentions, hedged possibilities or exploratory ideas ('maybe I take wood') "
            "unless they name a concrete resource or domain firmly enough to plan around",
            "commitments that exist only in private thinking",
            "a statement of what would or would not work for the agent ('4 wood leaves me "
            "without a project') with no commitment about its own move",
            "a misunderstanding of what was committed (misaligned mental models, or misalignment "
            "recovery if it was repaired)",
        ),
        (
            'B writes "I take 3 wood and leave all the stone to you"; A plans around it; B then '
            "submits 3 wood and 7 stone without saying anything.",
            'Not this label: B says "change of plan, I now need stone too" before deciding.',
        ),
    ),
    Label(
        "coordination_withdrawal",
        "Coordination withdrawal",
        "negative",
        "Instead of pursuing a feasible, more valuable plan, an agent retreats to a "
        "conservative or non-viable allocation because coordinating feels risky (conflict, "
        "overdraw, an unpredictable partner, past failure), on its own or pushed by a "
        "partner's ultimatum or narrow menu.",
        (
            "the agent ends with a clearly conservative outcome: under-claiming, avoiding a "
            "valuable resource, buying little or nothing, taking leftovers, or a purchase that "
            "runs nothing",
            "the retreat is driven by fear of conflict, of overdraw, of an unpredictable partner, "
            "by earlier failure, or by a partner's ultimatum or menu that pushes it off its "
            "valuable plan",
            "a more valuable feasible plan was visibly available (from the talk, the round or "
            "the outcome figures)",
            "the final move is a retreat from that plan, even if the agent clarified or tried "
            "to repair earlier in the round",
        ),
        (
            "a reduction that is part of an explicit, mutually agreed feasible split both agents "
            "carry out",
            "an agent with no better option under its actual constraints",
            "active bargaining, disclosure or a negotiated fallback: a lower plan both explicitly "
            "adapted to is not a retreat",
            "overdraws caused by over-claiming, abandoned commitments or a split not carried out, "
            "unless some agent really retreats into a low-value or non-viable purchase",
            "clarifying after a failure and not retreating (that is misalignment recovery)",
        ),
        (
            "Worried that A may grab the same resource again, B drops its best project and buys 2"
            " wood it barely uses, although asking A one question could have settled a better "
            "split.",
            "Not this label: both agree to scale down so the round cannot be annulled, and both "
            "do.",
        ),
    ),
    Label(
        "domain_specialization",
        "Domain specialization",
        "positive",
        "The agents set up a shared division of resources, projects, roles or scopes and both "
        "final moves respect it: a mutually understood partition, not a number or an accident "
        "of non-overlap.",
        (
            "the agents converge on non-overlapping roles, resources, projects or scopes",
            "the division is shared: both accept or confirm it publicly this round, or both "
            "explicitly carry on one set up and followed in earlier rounds",
            "both acknowledge it, accept it or visibly act on it, and the public talk shows it "
            "is joint rather than one-sided",
            "both final moves stay inside it and so reduce contention over the supply",
        ),
        (
            "a one-sided request ('could you stick to X?') the partner never accepts, unless it "
            "continues an established pattern",
            "a one-off numeric split that sets up no shared non-overlapping domains",
            "purchases that happen not to overlap",
            "ordinary haggling over quantities of the same resource",
            "a domain one agent claims but the partner neither acknowledges nor follows",
            "final moves that still overlap in a way that breaks the supposed division",
            "repair or clarification that avoids a clash without lasting roles or domains (that "
            "is misalignment recovery)",
        ),
        (
            'A proposes "you keep crystal, I keep titanium"; B agrees; A buys only titanium and B'
            " only crystal.",
            "Not this label: their purchases happen not to overlap but nobody proposed or "
            "accepted a division.",
        ),
    ),
    Label(
        "misalignment_recovery",
        "Misalignment recovery",
        "positive",
        "After uncertainty, inconsistency, a looming clash or failure is noticed, an agent "
        "clarifies, discloses or corrects, and the exchange yields a better-aligned plan. It "
        "covers explicit coordination, useful disclosure and accommodation when they serve "
        "that repair.",
        (
            "some agent detects a misunderstanding, uncertainty, potential clash or earlier "
            "coordination failure",
            "some agent asks a clarifying question, shares useful private information, corrects "
            "a wrong assumption or proposes a revised plan",
            "shared understanding visibly improves, or a revised plan both understand comes out",
        ),
        (
            "routine first-pass coordination with no sign of trouble or pressure to repair",
            "noticing a problem and then withdrawing instead of repairing it (that is "
            "coordination withdrawal)",
            "demanding an optimal outcome: a genuine repair counts even when the round stays "
            "suboptimal",
        ),
        (
            "After an annulled round A asks which projects B runs, B lists their needs, and they "
            "settle on a split that fits the supply.",
            "Not this label: A notices the clash and then simply buys less without any exchange.",
        ),
    ),
)

AUXILIARY: tuple[Label, ...] = (
    Label(
        "voluntary_project_disclosure",
        "Voluntary project disclosure",
        "auxiliary",
        "An agent volunteers concrete private project structure in public speech, without "
        "being asked for that exact information: per-run requirements, rewards, costs, or an "
        "explicit, non-obvious constraint on which projects can be completed.",
        (
            "it is in public speech, not only in private thinking",
            "it gives concrete project structure ('project_a needs 3 stone and 2 wood', "
            "'project_b pays 8', 'project_c costs 12', 'I complete nothing without 2 stone')",
            "the information would plausibly help the partner judge feasibility or avoid a clash",
            "it is volunteered, not just an answer to a direct question for that information",
        ),
        (
            "statements of intent or planned purchases ('I will buy 5 stone') without per-run "
            "needs, rewards, costs or a feasibility constraint",
            "vague affinities or preferences ('all my projects need crystal', 'project_b suits "
            "me', 'I am focusing on gold')",
            "planned purchases or run counts on their own ('9 wood for three runs of project_b') "
            "without the needs, rewards, costs or constraint themselves",
            "saying that a quantity lets the agent run a project ('2 gold should let me run "
            "project_a') without stating the per-run need, reward, cost or a cannot-complete "
            "limit",
            "saying only that a project needs or uses a kind of resource ('project_a needs "
            "crystal') without quantities, rewards or costs",
            "private thinking, however detailed",
            "information already public, visible in the prompts, or disclosed earlier in the "
            "game for the same projects",
            "(exception to the previous rule) in rotating games a disclosure of the new round's "
            "projects is new information and does count",
            "repeating earlier disclosed structure without adding new needs, rewards, costs or "
            "constraints",
            "answering a direct question that asked for that same information",
        ),
        (
            'Unprompted, A writes "my project_b needs 2 gold and 3 stone a run and pays 9".',
            'Not this tag: "I\'ll buy 6 stone" (a purchase, not project structure).',
        ),
    ),
    Label(
        "fairness_appeal",
        "Fairness appeal",
        "auxiliary",
        "An agent uses fairness language as a reason in the coordination (fairness, equality, "
        "balance, fair share, an equal split, compromise, even-handed treatment), whether or "
        "not the plan is optimal or the appeal sincere.",
        (
            "the agent explicitly speaks of fairness, equality, balance, a fair share, an equal "
            "split, compromise or even-handed treatment",
            "it uses that language to justify, propose, judge or settle a plan",
            "the appeal is about the coordination problem, not politeness",
        ),
        (
            "stock agreement such as 'sounds fair' that anchors or justifies no concrete choice",
            "judging whether the appeal is sincere or the plan optimal: only its presence counts",
            "an equal split made without any fairness wording",
            "deciding here whether the fairness is perfunctory: that is worked out later from "
            "the purchases and the efficiency",
        ),
        (
            'B argues "let us each take 5 wood, that is the fair way" to back the split it '
            "proposes.",
            "Not this tag: both buy 5 wood without any word about fairness.",
        ),
    ),
    Label(
        "threatening_language",
        "Threatening language",
        "auxiliary",
        "An agent frames a choice as a threat, ultimatum or coercive pressure rather than a "
        "neutral account of constraints or risks.",
        (
            "it states or implies a negative consequence if the partner does not comply",
            "the wording is coercive, punitive, ultimatum-like or meant as pressure",
            "the pressure aims at shaping the partner's move",
        ),
        (
            "neutral explanations of the rules, such as the annulment warning, unless used to "
            "coerce",
            "firm preferences stated without coercion",
            "ordinary disagreement or refusal without a threatened consequence",
        ),
        (
            'A writes "if you touch the gold again I will buy all of it and we both get nothing".',
            'Not this tag: "remember that asking for more than the supply annuls the round".',
        ),
    ),
)

RULE_COUNTS: dict[str, tuple[int, int]] = {
    "misaligned_mental_models": (3, 3),
    "agreement_abandonment": (7, 5),
    "coordination_withdrawal": (4, 5),
    "domain_specialization": (4, 7),
    "misalignment_recovery": (3, 3),
    "voluntary_project_disclosure": (4, 10),
    "fairness_appeal": (3, 4),
    "threatening_language": (3, 3),
}
"""Inclusion and exclusion rules per label in App. G.4's production rubric (71 in all); ours
restate each of them, one for one and in the same order."""

SPECIALIST_KEYS = (
    "coordination_withdrawal",
    "misalignment_recovery",
    "voluntary_project_disclosure",
)
"""Labels the paper's production data took from its second ("specialist") judge (App. G.2)."""

CORE_KEYS = tuple(label.key for label in CORE)
AUX_KEYS = tuple(label.key for label in AUXILIARY)
AGENT_NAMES = ("agent_a", "agent_b")
