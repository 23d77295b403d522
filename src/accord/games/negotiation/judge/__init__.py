"""LLM-as-judge pipelines (seed 004 §5.8, App. G for negotiation)."""

from accord.games.negotiation.judge.agreement import agreement, cohen_kappa, inter_judge, prevalence
from accord.games.negotiation.judge.verdicts import (
    Judged,
    RoundLabels,
    judge_game,
    judge_trace,
    merge,
    parse_verdict,
    system_prompt,
)

__all__ = [
    "Judged",
    "RoundLabels",
    "agreement",
    "cohen_kappa",
    "inter_judge",
    "judge_game",
    "judge_trace",
    "merge",
    "parse_verdict",
    "prevalence",
    "system_prompt",
]
