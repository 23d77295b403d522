"""Metrics of the sorting game (MAS-Bench §3.4, App. C).

- SR (eq. 4): the share of agents whose final submission equals their expected slice.
- Instance success: SR = 1. Global CHECK (App. F.2) is reported beside it.
- R (eq. 5): max over agents of the rounds in which the agent made a model call, summed over
  both phases when the verification phase runs (per-phase values are reported too).
- TE (eq. 6): N*K / T_total * 1e5, T_total the input plus output tokens of all agents.
- CR (eq. 7): communication tokens / T_total. Communication tokens (App. C: the commands that touch
  messages or files, and what the environment answers to them) are, for every model call,
  the message and file commands (``receive_messages``, ``broadcast_message``,
  ``send_message``, ``list_files``, ``read_file``, ``write_file``, ``delete_file``) in the
  reply it produced, plus the replies to such commands in the observation it was shown. Each
  is counted once, where the model handles it; re-sent conversation is not communication.

A game never sees model usage, so the engine estimates tokens from text: 4 characters per
token, rounded up, on the conversation an `LLMAgent` keeps (system prompt, every observation
and reply, each call re-sending the conversation so far). These are ``tokens_est``, ``te_est``
and ``cr_est``; each ``turn`` event carries the per-call estimates (``tokens_est``) that
`accord.games.sorting.usage` uses to attribute model-reported tokens to communication.
`cost_estimate` is the App. C (Table 4) estimate from per-million-token prices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.games.sorting.task import Submission, Task, check, strict_correct

CHARS_PER_TOKEN = 4
TE_SCALE = 1e5


def estimate_tokens(text: str) -> int:
    """Rough token count of `text` (4 characters per token, rounded up)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass
class SeatTally:
    """What one agent did over a game (both phases)."""

    rounds: list[int] = field(default_factory=list)
    """Rounds with a model call, per phase."""
    input_tokens_est: int = 0
    output_tokens_est: int = 0
    comm_tokens_est: int = 0
    commands: int = 0
    comm_commands: int = 0
    failed_commands: int = 0
    """Bad arguments, unknown verbs and refused sends."""
    no_command_replies: int = 0
    model_failures: int = 0
    submitted_round: list[int | None] = field(default_factory=list)
    """Round of the submission in each phase (None: never submitted)."""

    @property
    def total_rounds(self) -> int:
        return sum(self.rounds)


def te(n: int, k: int, total_tokens: int) -> float | None:
    """Token efficiency, eq. (6); None when no tokens were counted."""
    return n * k / total_tokens * TE_SCALE if total_tokens > 0 else None


def cr(comm_tokens: int, total_tokens: int) -> float | None:
    """Communication ratio, eq. (7); None when no tokens were counted."""
    return comm_tokens / total_tokens if total_tokens > 0 else None


def game_metrics(
    task: Task, subs: Sequence[Submission], tallies: Sequence[SeatTally]
) -> dict[str, Any]:
    """Game-level metrics from the final submissions and the per-agent tallies."""
    correct = strict_correct(task, subs)
    sr = sum(correct) / task.n
    total = sum(t.input_tokens_est + t.output_tokens_est for t in tallies)
    comm = sum(t.comm_tokens_est for t in tallies)
    phases = max(len(t.rounds) for t in tallies)
    return {
        "sr": sr,
        "success": 1.0 if sr == 1.0 else 0.0,
        "global_check": 1.0 if check(task, subs) else 0.0,
        "rounds": max(t.total_rounds for t in tallies),
        "rounds_per_phase": [max(t.rounds[p] for t in tallies) for p in range(phases)],
        "submitted_rate": sum(s is not None for s in subs) / task.n,
        "tokens_est": total,
        "comm_tokens_est": comm,
        "te_est": te(task.n, task.k, total),
        "cr_est": cr(comm, total),
        "commands": sum(t.commands for t in tallies),
        "failed_commands": sum(t.failed_commands for t in tallies),
        "no_command_replies": sum(t.no_command_replies for t in tallies),
        "model_failures": sum(t.model_failures for t in tallies),
        "nk": task.n * task.k,
        "rho": task.rho,
        "inversions": task.inversions,
    }


def seat_rows(
    task: Task, subs: Sequence[Submission], tallies: Sequence[SeatTally]
) -> list[dict[str, Any]]:
    """One scalar row per agent for ``results.jsonl``."""
    correct = strict_correct(task, subs)
    rows = []
    for i, (t, ok, sub) in enumerate(zip(tallies, correct, subs, strict=True)):
        rows.append(
            {
                "seat": i,
                "name": f"Agent-{i}",
                "correct": ok,
                "submitted": sub is not None,
                "rounds": t.total_rounds,
                "input_tokens_est": t.input_tokens_est,
                "output_tokens_est": t.output_tokens_est,
                "comm_tokens_est": t.comm_tokens_est,
                "commands": t.commands,
                "failed_commands": t.failed_commands,
                "no_command_replies": t.no_command_replies,
                "model_failures": t.model_failures,
            }
        )
    return rows


def cost_estimate(
    total_tokens: int, price_in_per_m: float, price_out_per_m: float
) -> dict[str, float]:
    """App. C (Table 4): midpoint cost at a 50/50 input/output split, and the all-input /
    all-output range, from prices per million tokens."""
    low = total_tokens * price_in_per_m / 1e6
    high = total_tokens * price_out_per_m / 1e6
    return {"midpoint": (low + high) / 2, "low": min(low, high), "high": max(low, high)}
