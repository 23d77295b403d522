"""The negotiation judge's label taxonomy (seed 004 §5.8, App. G.1, G.4).

Five core labels describe the grounding mechanism of a round; three auxiliary tags mark
communicative acts in public speech, with the agents who performed them. Definitions and
criteria are ours, written from the paper's rubric.
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
            "those reveal assumptions about rules, limits, needs or feasibility that cannot "
            "both be true",
            "the mismatch is still unresolved at the end of the round",
        ),
        (
            "plain conflict of interest over scarce resources with a shared picture",
            "a mismatch noticed and repaired within the round (that is misalignment recovery)",
            "a final move that merely breaks an earlier agreement (agreement abandonment)",
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
        "An agent publicly commits to a concrete action, split, role or avoidance, and its "
        "final move departs from it without a public warning or renegotiation.",
        (
            "the commitment is public and specific enough for the partner to plan around",
            "the same agent's final submission differs materially from it",
            "the agent did not revise or retract it before submitting",
        ),
        (
            "vague or hedged intentions",
            "a commitment that exists only in private thinking",
            "a public revision made before the decision",
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
        "conservative or non-viable allocation out of fear of conflict, overdraw, an "
        "unpredictable partner, past failure, or a partner's ultimatum.",
        (
            "the agent ends with a clearly conservative outcome (under-claiming, leftovers, "
            "little or nothing)",
            "the retreat is motivated by risk or pressure rather than by its constraints",
            "a more valuable feasible plan was visibly available",
        ),
        (
            "a reduction both agents explicitly agreed on and carried out",
            "cases with no better option under the agent's real constraints",
            "active bargaining or clarification that ends in a negotiated fallback",
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
        "The agents set up a shared partition of resources, projects or roles and both final "
        "moves respect it.",
        (
            "the agents converge on non-overlapping domains",
            "both publicly accept the partition, or both continue one set up earlier",
            "both final moves stay inside it",
        ),
        (
            "a one-sided request the partner never accepts",
            "allocations that happen not to overlap without any agreement",
            "ordinary haggling over quantities of the same resource",
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
        "After uncertainty, inconsistency or failure is noticed, an agent clarifies, discloses "
        "or corrects, and the exchange yields a better-aligned plan.",
        (
            "a misunderstanding, uncertainty or earlier failure is detected",
            "an agent asks, discloses, corrects or proposes a revised plan",
            "shared understanding visibly improves",
        ),
        (
            "routine first-pass coordination with no sign of trouble",
            "noticing a problem and then withdrawing instead of repairing it",
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
        "An agent volunteers concrete private project structure in public speech: per-run "
        "requirements, rewards, costs, or an explicit completion constraint.",
        (
            "in public speech",
            "concrete numbers or constraints",
            "not just answering a direct question for that same information",
        ),
        (
            "intended purchases alone",
            "vague preferences such as 'I use stone'",
            "repeating what was already disclosed under the same projects",
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
        "An agent uses fairness, equality, balance or compromise language to justify, propose "
        "or settle a plan.",
        ("explicit fairness wording", "tied to a concrete coordination choice"),
        (
            "politeness such as 'sounds fair' with no bearing on the plan",
            "an equal split made without fairness language",
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
        "An agent pressures the partner with a threat, ultimatum or promised negative consequence.",
        ("a stated or implied penalty for not complying", "aimed at shaping the partner's move"),
        ("neutral reminders of the annulment rule", "firm preferences without a threat"),
        (
            'A writes "if you touch the gold again I will buy all of it and we both get nothing".',
            'Not this tag: "remember that asking for more than the supply annuls the round".',
        ),
    ),
)

SPECIALIST_KEYS = (
    "coordination_withdrawal",
    "misalignment_recovery",
    "voluntary_project_disclosure",
)
"""Labels the paper's production data took from its second ("specialist") judge (App. G.2)."""

CORE_KEYS = tuple(label.key for label in CORE)
AUX_KEYS = tuple(label.key for label in AUXILIARY)
AGENT_NAMES = ("agent_a", "agent_b")
