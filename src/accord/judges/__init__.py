"""LLM-as-judge pipelines (seed 004 §5.8, App. G for negotiation)."""

from accord.judges.agreement import agreement, cohen_kappa, prevalence
from accord.judges.negotiation import RoundLabels, judge_trace, parse_verdict, system_prompt

__all__ = [
    "RoundLabels",
    "agreement",
    "cohen_kappa",
    "judge_trace",
    "parse_verdict",
    "prevalence",
    "system_prompt",
]
