"""Metrics of the sorting game (MAS-Bench §3.4, App. C).

- SR (eq. 4): the share of agents whose final submission equals their expected slice.
- Instance success: SR = 1. Global CHECK (App. F.2) is reported beside it.
- R (eq. 5): max over agents of the rounds in which the agent made a model call.
- TE (eq. 6): N*K / T_total * 1e5, T_total the input plus output tokens of all agents.
- CR (eq. 7): communication tokens / T_total.

**Which phase.** When the verification phase runs, R, TE and CR are reported for phase 1
(``*_phase1``), phase 2 (``*_phase2``) and both together (``*_combined``). The headline keys
(``rounds``, ``te_est``, ``cr_est``) describe the scope the game's ``metrics_phase`` option
names; the default ``final`` is the phase whose submissions are scored (Algorithm 3). Table 1
shows a per-phase reading: Abl. message (two phases) has the R and TE of Base (one phase),
which a sum over both phases would roughly double and halve (docs/sorting.md, "Which phase").

Communication tokens (App. C: the commands that touch messages or files, and what the
environment answers to them) are, for every model call, the message and file commands
(``receive_messages``, ``broadcast_message``, ``send_message``, ``list_files``,
``read_file``, ``write_file``, ``delete_file``) in the reply it produced, plus the replies to
such commands in the observation it was shown. Each is counted once, where the model handles
it; re-sent conversation is not communication.

A game never sees model usage, so the engine estimates tokens from text: 4 characters per
token, rounded up, on the conversation an `LLMAgent` keeps (system prompt, every observation
and reply, each call re-sending the conversation so far). These are ``tokens_est``, ``te_est``
and ``cr_est``; each ``turn`` event carries the per-call estimates (``tokens_est``) that
`accord.games.sorting.usage` uses to attribute model-reported tokens to communication.
`cost_estimate` is the App. C (Table 4) estimate from per-million-token prices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from accord.games.sorting.task import Submission, Task, check, strict_correct

PhaseScope = Literal["final", "phase1", "combined"]
"""Which phase the headline R, TE and CR describe (``final``: the scored phase)."""

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
    phase_tokens_est: list[int] = field(default_factory=list)
    """Estimated input plus output tokens, per phase."""
    phase_comm_est: list[int] = field(default_factory=list)
    """Estimated communication tokens, per phase."""
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


def _at(values: Sequence[int], i: int) -> int:
    return values[i] if i < len(values) else 0


def te(n: int, k: int, total_tokens: float) -> float | None:
    """Token efficiency, eq. (6); None when no tokens were counted."""
    return n * k / total_tokens * TE_SCALE if total_tokens > 0 else None


def cr(comm_tokens: float, total_tokens: float) -> float | None:
    """Communication ratio, eq. (7); None when no tokens were counted."""
    return comm_tokens / total_tokens if total_tokens > 0 else None


def scope_key(scope: PhaseScope, phases: int) -> str:
    """The suffix of the per-phase keys a `PhaseScope` selects (``phase1``, ``phase2``, ...)."""
    if scope == "combined":
        return "combined"
    return "phase1" if scope == "phase1" or phases < 2 else f"phase{phases}"


def phase_values(
    nk: int,
    tokens: Sequence[float],
    comm: Sequence[float],
    prefix: str = "",
    visible: Sequence[float] | None = None,
) -> dict[str, float | None]:
    """TE and CR per phase and combined: ``{prefix}te_phase1``, ..., ``{prefix}cr_combined``.

    `tokens` and `comm` hold one total per phase played; phase 2 keys are ``None`` when only
    one phase ran. CR divides by `visible` (the tokens other than hidden reasoning, one total
    per phase) when given, else by `tokens`: the same in text estimates, which hold no
    reasoning.
    """
    shown = tokens if visible is None else visible
    out: dict[str, float | None] = {}
    for p in (1, 2):
        has = p <= len(tokens)
        tot = tokens[p - 1] if has else 0.0
        out[f"{prefix}te_phase{p}"] = te(nk, 1, tot) if has else None
        out[f"{prefix}cr_phase{p}"] = cr(comm[p - 1], shown[p - 1]) if has else None
    out[f"{prefix}te_combined"] = te(nk, 1, math.fsum(tokens))
    out[f"{prefix}cr_combined"] = cr(math.fsum(comm), math.fsum(shown))
    return out


def game_metrics(
    task: Task,
    subs: Sequence[Submission],
    tallies: Sequence[SeatTally],
    scope: PhaseScope = "final",
) -> dict[str, Any]:
    """Game-level metrics from the final submissions and the per-agent tallies.

    `scope` picks the phase the headline ``rounds``, ``te_est`` and ``cr_est`` describe;
    the per-phase and combined values are always reported beside them.
    """
    correct = strict_correct(task, subs)
    sr = sum(correct) / task.n
    total = sum(t.input_tokens_est + t.output_tokens_est for t in tallies)
    comm = sum(t.comm_tokens_est for t in tallies)
    phases = max(len(t.rounds) for t in tallies)
    per_phase = [max(t.rounds[p] for t in tallies) for p in range(phases)]
    p_tokens = [sum(_at(t.phase_tokens_est, p) for t in tallies) for p in range(phases)]
    p_comm = [sum(_at(t.phase_comm_est, p) for t in tallies) for p in range(phases)]
    rounds = {
        "rounds_phase1": per_phase[0] if per_phase else 0,
        "rounds_phase2": per_phase[1] if phases > 1 else None,
        "rounds_combined": max(t.total_rounds for t in tallies),
    }
    ratios = phase_values(task.n * task.k, p_tokens, p_comm, prefix="")
    key = scope_key(scope, phases)
    return {
        "sr": sr,
        "success": 1.0 if sr == 1.0 else 0.0,
        "global_check": 1.0 if check(task, subs) else 0.0,
        "rounds": rounds[f"rounds_{key}"],
        "rounds_per_phase": per_phase,
        **rounds,
        "metrics_phase": scope,
        "submitted_rate": sum(s is not None for s in subs) / task.n,
        "tokens_est": total,
        "comm_tokens_est": comm,
        "te_est": ratios[f"te_{key}"],
        "cr_est": ratios[f"cr_{key}"],
        **{f"{k[:2]}_est{k[2:]}": v for k, v in ratios.items()},
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
