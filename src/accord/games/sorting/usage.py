"""TE, CR and cost of a sorting trace from model-reported tokens (MAS-Bench §3.4, App. C).

A game never sees model usage, so its own metrics estimate tokens from text (`metrics`). A
trace also holds what the models reported: one ``model_call`` event per call, with its input
and output tokens, and the per-seat ``usage``. `trace_metrics` recomputes TE and CR from them.

**Attribution rule.** A call's reported tokens are split between communication and the rest
in the proportions the game estimated for that call. The ``turn`` event of the same seat's
answer carries those estimates (``tokens_est``): the whole input the call re-sent (``input``),
its output (``output``), the message/file replies newly shown in its observation
(``input_comm``) and the message/file commands in its reply (``output_comm``). Then

    comm = input_tokens * input_comm / input + visible_output * output_comm / output

Each piece of communication counts once, in the call where the model first reads or writes
it, at that call's own tokens-per-character rate; with reported counts equal to the estimates
this is exactly the game's ``comm_tokens_est``.

**Reasoning tokens.** A reasoning model's hidden reasoning (``reasoning_tokens``) is never
seen by another agent and is not in the game's estimate (the visible reply). Whether a
provider's ``output_tokens`` include it is decided per provider (`reasoning_apart`): the
OpenAI usage convention (reasoning inside ``output_tokens``, broken down in
``completion_tokens_details.reasoning_tokens``) is what every provider Accord ships reports,
since the litellm and OpenAI-compatible clients both read that field and litellm folds
Gemini's separate thought count into the output; a provider named in `REASONING_APART`
reports it beside the output, and so does any call reporting more reasoning than output
(it cannot be inside). Then ``visible_output`` is ``output_tokens - reasoning_tokens``
(inside) or ``output_tokens`` (apart).

**CR's denominator.** The option ``cr_tokens: total`` divides by T_total instead (the paper's
eq. (7) read with eq. (6)'s T_total); when a model reasons, ``cr_visible`` and ``cr_total``
(the headline scope, both readings) are reported beside ``cr`` whatever the option.

**One CR per scope.** CR = comm / T_visible, T_visible the input plus visible output tokens
of the scope, for each phase (``cr_phase1``, ``cr_phase2``) and both together
(``cr_combined``); ``cr`` is the scope named by the trace's ``metrics_phase`` (default: the
final, scored phase; `accord.games.sorting.metrics`). Reasoning is reported apart, per scope
(``reasoning_tokens``, ``reasoning_phase1``, ...), and stays in TE's T_total, which counts
every token paid for (eq. 6). Before issue 24 ``cr`` divided by T_total with reasoning and a
separate ``cr_visible`` covered both phases; without reasoning the two now agree per scope.
That was ``sorting-v2``; a ``sorting-v2`` trace is still scored its own way (`LEGACY_CR`), so
its report reads as it did.

**Phases.** Each call belongs to the phase its ``turn`` was played in, so TE and CR are also
given per phase and combined (``te_phase1``, ``te_phase2``, ``te_combined``).

TE = N*K / T_total * 1e5, T_total the reported input plus output tokens (plus reasoning
reported apart) of every seat that made model calls; seats without model calls (reference
agents, people) add nothing. A trace without any model call keeps the game's text estimates
(``token_source`` says which).

**Cost.** Per seat, from prices per million tokens: the seat's agent options (``prices``, set
per model in an experiment file) first, else the price table given (default `PAPER_PRICES`,
the App. C OpenRouter prices), looked up by the full model string or its last path segment.
Reported: the cost of the actual input/output split (``cost_usd``) and the App. C Table 4
estimate from total tokens alone (``cost_mid`` at a 50/50 split, the all-input / all-output
range ``cost_low`` .. ``cost_high``). Unknown when any model seat has no price.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from accord.games.sorting.metrics import cost_estimate, phase_values, scope_key
from accord.models.options import Prices
from accord.traces.schema import Trace

TokenSource = Literal["model", "estimate"]

_PHASE_KEYS = tuple(f"{m}_{p}" for m in ("te", "cr") for p in ("phase1", "phase2", "combined"))
_SCOPES = ("phase1", "phase2", "combined")

LEGACY_CR = frozenset({"sorting-v2"})
"""Game ids whose CR divides by T_total with reasoning (per phase), with ``cr_visible`` =
comm / (T_total - reasoning) over both phases beside it: their definitions before issue 24."""

REASONING_APART: frozenset[str] = frozenset()
"""Providers (the part of a model string before its first ``/``) whose ``output_tokens``
exclude hidden reasoning. Empty: ``openai``, ``anthropic``, ``openrouter``, ``gemini``,
``vertex_ai``, ``hosted_vllm`` (through litellm or the OpenAI-compatible client), ``local``
and ``mock`` all report reasoning inside the output (module docstring). Pass another set to
`trace_metrics` for a server that reports it apart."""


def reasoning_apart(
    provider: str | None, reasoning: int, output: int, apart: frozenset[str] = REASONING_APART
) -> bool:
    """Whether a call's reasoning tokens are reported beside its output tokens: always when
    there are more of them than output tokens, else when its provider is in `apart`."""
    return reasoning > output or (reasoning > 0 and provider in apart)


PAPER_PRICES: dict[str, Prices] = {
    "deepseek-chat-v3.1": Prices(input_per_mtok=0.15, output_per_mtok=0.75),
    "deepseek-v3.1": Prices(input_per_mtok=0.15, output_per_mtok=0.75),
    "qwen3-next-80b-a3b-instruct": Prices(input_per_mtok=0.06, output_per_mtok=0.60),
    "gpt-oss-120b": Prices(input_per_mtok=0.02, output_per_mtok=0.10),
}
"""App. C: OpenRouter prices (USD per million tokens) of the paper's three models."""


@dataclass(frozen=True)
class CallTokens:
    """One model call with the game's estimates for the turn it produced."""

    seat: int
    input_tokens: int
    output_tokens: int
    input_est: int
    output_est: int
    input_comm_est: int
    output_comm_est: int
    reasoning_tokens: int = 0
    phase: int = 1
    provider: str | None = None
    """The seat's provider, for `reasoning_apart`."""
    apart_providers: frozenset[str] = REASONING_APART

    @property
    def apart(self) -> bool:
        """Whether this call's reasoning is reported beside its output (`reasoning_apart`)."""
        return reasoning_apart(
            self.provider, self.reasoning_tokens, self.output_tokens, self.apart_providers
        )

    @property
    def visible_output(self) -> int:
        """Output tokens other than hidden reasoning (the module's rule)."""
        if self.apart:
            return self.output_tokens
        return self.output_tokens - self.reasoning_tokens

    @property
    def visible(self) -> int:
        """T_visible of the call: input and visible output."""
        return self.input_tokens + self.visible_output

    @property
    def total(self) -> int:
        """Every token of the call: input, visible output and reasoning."""
        return self.visible + self.reasoning_tokens

    @property
    def comm_tokens(self) -> float:
        """Reported tokens attributed to communication (the module's rule)."""
        comm = 0.0
        if self.input_est > 0:
            comm += self.input_tokens * self.input_comm_est / self.input_est
        if self.output_est > 0:
            comm += self.visible_output * self.output_comm_est / self.output_est
        return comm


def call_tokens(
    events: Iterable[Mapping[str, Any]],
    providers: Mapping[int, str] | None = None,
    apart: frozenset[str] = REASONING_APART,
) -> list[CallTokens]:
    """Every ``model_call`` paired with the ``turn`` its reply became.

    A seat's calls for one request come before the game applies its answer (the ``turn``),
    and its next request comes after, so each seat's calls and turns pair up in step order.
    A call without a turn (a game that failed mid-round) keeps its tokens and no estimates,
    in the phase being played when it was made. `providers` (seat -> provider) and `apart`
    decide where each call's reasoning was counted (`reasoning_apart`).
    """
    providers = providers or {}
    waiting: dict[int, list[Mapping[str, Any]]] = {}
    out: list[CallTokens] = []
    current = 1

    def close(seat: int, est: Mapping[str, Any], phase: int) -> None:
        for call in waiting.pop(seat, []):
            out.append(
                CallTokens(
                    seat=seat,
                    input_tokens=int(call.get("input_tokens", 0)),
                    output_tokens=int(call.get("output_tokens", 0)),
                    input_est=int(est.get("input", 0)),
                    output_est=int(est.get("output", 0)),
                    input_comm_est=int(est.get("input_comm", 0)),
                    output_comm_est=int(est.get("output_comm", 0)),
                    reasoning_tokens=int(call.get("reasoning_tokens") or 0),
                    phase=phase,
                    provider=providers.get(seat),
                    apart_providers=apart,
                )
            )

    for event in sorted(events, key=lambda e: float(e.get("t", 0))):
        kind = event.get("type")
        if kind == "phase_start":
            current = int(event.get("phase", current))
        elif kind == "model_call" and "seat" in event:
            waiting.setdefault(int(event["seat"]), []).append(event)
        elif kind == "turn":
            close(int(event["seat"]), event.get("tokens_est") or {}, int(event.get("phase", 1)))
    for seat in sorted(waiting):
        close(seat, {}, current)
    return out


def _model_key(model: str) -> str:
    return model.rsplit("/", 1)[-1].lower()


def seat_prices(
    trace: Trace, seat: int, prices: Mapping[str, Prices] = PAPER_PRICES
) -> Prices | None:
    """The prices of `seat`'s model: its agent options, else the table, else ``None``."""
    if seat < len(trace.agents_config):
        configured = (trace.agents_config[seat].get("options") or {}).get("prices")
        if configured is not None:
            try:
                return Prices.model_validate(configured)
            except ValidationError:
                return None
    model = trace.seats[seat].model if seat < len(trace.seats) else None
    if model is None:
        return None
    table = {k.lower(): v for k, v in prices.items()}
    return table.get(model.lower()) or table.get(_model_key(model))


def _scope(trace: Trace) -> str:
    phases = len(trace.metrics.get("rounds_per_phase") or [1])
    return scope_key(trace.config.get("metrics_phase", "final"), phases)


def trace_metrics(
    trace: Trace,
    prices: Mapping[str, Prices] = PAPER_PRICES,
    apart: frozenset[str] = REASONING_APART,
) -> dict[str, Any]:
    """TE, CR, tokens and cost of one sorting trace (see the module docstring).

    Keys: ``token_source`` (``model`` or ``estimate``), ``tokens``, ``input_tokens``,
    ``output_tokens``, ``reasoning_tokens``, ``visible_tokens``, ``comm_tokens``, ``te``,
    ``cr``, the per-phase ``te_phase1``, ``te_phase2``, ``te_combined`` (and ``cr_`` and
    ``reasoning_`` the same), ``cost_usd``, ``cost_mid``, ``cost_low``, ``cost_high`` (cost
    keys are ``None`` when unknown or without models). `apart` names the providers that
    report reasoning beside the output (`reasoning_apart`).
    """
    m = trace.metrics
    nk = int(m.get("nk", 0))
    key = _scope(trace)
    by_name = {s.name: s.seat for s in trace.seats}
    used = {by_name[name]: u for name, u in trace.usage.items() if name in by_name and u.calls > 0}
    none: dict[str, Any] = dict.fromkeys(("cost_usd", "cost_mid", "cost_low", "cost_high"), None)
    if not used:
        rows = trace.seat_rows
        phases = {k: m.get(f"{k[:2]}_est{k[2:]}") for k in _PHASE_KEYS}
        return {
            "token_source": "estimate",
            "tokens": int(m.get("tokens_est", 0)),
            "input_tokens": sum(int(r.get("input_tokens_est", 0)) for r in rows),
            "output_tokens": sum(int(r.get("output_tokens_est", 0)) for r in rows),
            "reasoning_tokens": 0,
            "visible_tokens": int(m.get("tokens_est", 0)),
            "comm_tokens": float(m.get("comm_tokens_est", 0)),
            "te": m.get("te_est"),
            "cr": m.get("cr_est"),
            **phases,
            **{f"reasoning_{p}": 0 if phases[f"te_{p}"] is not None else None for p in _SCOPES},
            **none,
        }
    providers = {s: (trace.seats[s].model or "").split("/", 1)[0] for s in used}
    calls = [c for c in call_tokens(trace.events, providers, apart) if c.seat in used]
    tin = sum(u.input_tokens for u in used.values())
    tout = sum(u.output_tokens for u in used.values())
    reasoning = sum(u.reasoning_tokens for u in used.values())
    # Reasoning reported beside the output is added to T_total; inside it, it is already there.
    beside = sum(c.reasoning_tokens for c in calls if c.apart)
    total = tin + tout + beside
    visible = total - reasoning
    comm = sum(c.comm_tokens for c in calls)
    nphases = max([c.phase for c in calls] + [len(m.get("rounds_per_phase") or [1])])
    span = range(1, nphases + 1)
    p_tokens = [float(sum(c.total for c in calls if c.phase == p)) for p in span]
    p_visible = [float(sum(c.visible for c in calls if c.phase == p)) for p in span]
    p_reason = [sum(c.reasoning_tokens for c in calls if c.phase == p) for p in span]
    p_comm = [sum(c.comm_tokens for c in calls if c.phase == p) for p in span]
    # Usage the calls do not account for (none in a normal trace) counts in the last phase.
    if p_tokens:
        p_tokens[-1] += total - sum(p_tokens)
        p_visible[-1] += visible - sum(p_visible)
        p_reason[-1] += reasoning - sum(p_reason)
    legacy = trace.game_id in LEGACY_CR
    paper_cr = trace.config.get("cr_tokens") == "total"  # eq. 7 over eq. 6's T_total
    phases = phase_values(nk, p_tokens, p_comm, visible=None if legacy or paper_cr else p_visible)
    reasoning_by = {
        f"reasoning_phase{p}": p_reason[p - 1] if p <= nphases else None for p in (1, 2)
    }
    out: dict[str, Any] = {
        "token_source": "model",
        "tokens": total,
        "input_tokens": tin,
        "output_tokens": tout,
        "reasoning_tokens": reasoning,
        "visible_tokens": visible,
        "comm_tokens": comm,
        "te": phases[f"te_{key}"],
        "cr": phases[f"cr_{key}"],
        **phases,
        **reasoning_by,
        "reasoning_combined": reasoning,
        **none,
    }
    if legacy:
        out["cr_visible"] = comm / visible if visible > 0 else None
    elif reasoning:
        # The two readings of CR differ only when a model reasons: report both, by name.
        for name, shown in (("visible", p_visible), ("total", None)):
            out[f"cr_{name}"] = phase_values(nk, p_tokens, p_comm, visible=shown)[f"cr_{key}"]
    seat_prices_ = {s: seat_prices(trace, s, prices) for s in used}
    if all(p is not None for p in seat_prices_.values()):
        exact = mid = low = high = 0.0
        for s, u in used.items():
            p = seat_prices_[s]
            assert p is not None
            exact += (u.input_tokens * p.input_per_mtok + u.output_tokens * p.output_per_mtok) / 1e6
            est = cost_estimate(
                u.input_tokens + u.output_tokens, p.input_per_mtok, p.output_per_mtok
            )
            mid, low, high = mid + est["midpoint"], low + est["low"], high + est["high"]
        out.update(cost_usd=exact, cost_mid=mid, cost_low=low, cost_high=high)
    return out
