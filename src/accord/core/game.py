"""The `Game` contract every game implements (DESIGN principle 1).

A game never calls a model. The runner drives it:

    game = registry.make("negotiation-v3", config)
    game.reset(seed)
    while not game.done():
        requests = game.pending()          # one or more seats to act now
        ... answer them (concurrently) ...
        game.submit(seat, action)          # per answered request
    game.result()                          # final state, metrics, per-seat rows

Events (`Game.events`) are the game's own record: messages, decisions, round results. The
runner interleaves them with agent events (retries, fallbacks) into the trace.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import BaseModel

from accord.core.errors import ConfigError
from accord.core.provenance import AGENT, Provenance
from accord.core.spec import Action, Request

if TYPE_CHECKING:
    from accord.traces.events import GameEvent
    from accord.traces.schema import Trace


class DetailPool(Protocol):
    """Extra summary estimates of a group of games, accumulated one trace at a time."""

    def add(self, trace: Trace) -> None:
        """Count one complete trace."""

    def result(self) -> dict[str, Any]:
        """The estimates of every trace added."""


@dataclass
class GameResult:
    """What a finished game reports.

    Attributes:
        final_state: enough to rebuild the outcome (allocations, rewards, schedule, ...).
        metrics: game-level metrics (JSON-able scalars, lists or dicts).
        seat_rows: one row per seat for ``results.jsonl`` (scalars only).
    """

    final_state: dict[str, Any]
    metrics: dict[str, Any]
    seat_rows: list[dict[str, Any]] = field(default_factory=list)


class Game(ABC):
    """A multi-agent game as a state machine over frozen state.

    Subclasses set `game_id`, `config_model`, `seat_names`, and implement the abstract methods.
    All randomness must come from the seed given to `reset` (DESIGN principle 5).
    """

    game_id: ClassVar[str]
    config_model: ClassVar[type[BaseModel]]
    summary_metrics: ClassVar[list[tuple[str, str, bool]]] = []
    """Metrics in the run summary table: (metric key, column label, shown as percent)."""
    oracle_agent: ClassVar[str | None] = None
    """A reference agent that, in every seat, reaches the oracle (checked by conformance)."""
    reply_tokens: ClassVar[int] = 1024
    """Default ``max_tokens`` of a model on a server someone runs (``openai-compatible/``,
    ``hosted_vllm/``, any ``base_url``), which would otherwise generate until its context is
    full: room for the longest valid reply of the game, with margin."""
    expected_reply_tokens: ClassVar[int] = 256
    """How long a reply of the game usually is, in tokens: the pre-game context check
    (`accord.runner.server_check`) grows each earlier reply of a conversation to this length
    (a real model's replies vary; the cap is the most any one may take, and planning for every
    reply at the cap would refuse conversations that fit). Set from replies measured on real
    models (docs/running.md "Context a game needs")."""
    prompts_module: ClassVar[str | None] = None
    """The module holding the game's prompt templates: ``TEMPLATES`` (name ->
    `accord.core.prompts.TemplateSpec`) and ``templates(override=None) -> PromptSet``, with
    the template files in a ``templates/`` folder of its package. Read by ``accord prompts``,
    `accord.core.prompts.game_templates` and ``--prompts DIR``; None: prompts built in code."""
    event_types: ClassVar[tuple[type[GameEvent], ...]] = ()
    """The game's own event models (`accord.traces.events.GameEvent` subclasses, one per
    ``type`` it emits), usually from its ``events.py``; empty: its events load generic."""
    provenance: Provenance = AGENT
    """Where the decision now being submitted came from (agent, retry or documented
    fallback): set by `accord.core.provenance.submit` for the length of each `submit` call.
    A game keeping fallback metrics reads ``self.provenance.fallback`` there."""
    replay_module: ClassVar[str | None] = None
    """The module holding the game's replay view, ``replay(trace) -> accord.core.replay.Replay``
    (what the web view shows at each step of a trace, `accord.core.replay`); None: the generic
    event timeline only."""

    def __init__(self, config: BaseModel) -> None:
        self.config = config
        self._events: list[dict[str, Any]] = []
        self._step = 0

    # -- contract --------------------------------------------------------------------------
    @property
    @abstractmethod
    def num_seats(self) -> int:
        """How many seats this game has under its config."""

    @abstractmethod
    def reset(self, seed: int) -> None:
        """Start a fresh game; everything random derives from `seed`."""

    @abstractmethod
    def pending(self) -> list[Request]:
        """Requests to be answered now. Empty only when `done()`."""

    @abstractmethod
    def submit(self, seat: int, action: Action) -> None:
        """Apply `seat`'s answer to its pending request. Raises `ActionError` if invalid."""

    @abstractmethod
    def done(self) -> bool:
        """True once the game is over."""

    @abstractmethod
    def result(self) -> GameResult:
        """Final state, metrics and per-seat rows. Only valid once `done()`."""

    @classmethod
    def suite_options(cls, suite: str, options: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Option overrides selecting each task of a named suite, in suite order.

        Used by ``accord run GAME --suite NAME`` (and ``suite:`` in experiment files) to play
        every task once per repeat. Games without suites keep this default, which refuses.
        """
        del options
        raise ConfigError(f"{cls.game_id} has no task suites (asked for {suite!r})")

    @classmethod
    def detail_pool(cls) -> DetailPool | None:
        """A fresh accumulator of the extra per-group estimates for ``summary.json``
        (``group["details"]``), fed the group's complete traces one at a time, so a summary
        of any number of games holds only what the pool keeps. Default: none."""
        return None

    @classmethod
    def summary_details(cls, traces: Sequence[Trace]) -> dict[str, Any]:
        """`detail_pool` over `traces` at once (not printed in the results table)."""
        pool = cls.detail_pool()
        if pool is None:
            return {}
        for trace in traces:
            pool.add(trace)
        return pool.result()

    def prompt_templates(self) -> dict[str, dict[str, str]]:
        """The prompt templates this game renders, ``{name: {"sha256", "source"}}``
        (`accord.core.prompts`), recorded in the trace. Default: none."""
        return {}

    def bind_models(self, models: list[str | None]) -> None:
        """Told before `reset`: each seat's model id (``provider/model``), None for non-LLM
        seats. Games whose prompts depend on the provider use it; default: ignored."""
        del models

    def trace_metrics(self, trace: Trace) -> dict[str, Any]:
        """Metrics that need the finished trace (model-reported usage, per-call events).

        `result()` runs before the runner knows token usage; this hook runs after, and what it
        returns is merged into ``trace.metrics``. Default: nothing.
        """
        del trace
        return {}

    @classmethod
    def seat_view(cls, seat: int, event: Mapping[str, Any]) -> dict[str, Any] | None:
        """What `seat` may see of a trace event as it happens: another seat's message the
        rules deliver to `seat`, as ``{"from": sender seat, "text": ..., "round": ...}``;
        None for everything else (the default: nothing).

        People playing in the browser (`accord serve --play`) see these between their own
        requests. Only what the game's rules put in front of `seat` may be returned: never
        private reasoning, another seat's private information, or a message not yet
        delivered to it.
        """
        del seat, event
        return None

    def scenario(self) -> dict[str, Any]:
        """The JSON-able scenario this game was played on (for traces and replay)."""
        return {}

    def oracle_gap(self, result: GameResult) -> float | None:
        """How far the outcome is from the oracle: 0 at the optimum, > 0 below it.

        ``None`` when the game has no oracle. Used by the conformance suite.
        """
        del result
        return None

    def seat_label(self, seat: int) -> str:
        """A human name for a seat (``"A"``, ``"B"``, ``"agent_3"``)."""
        return f"seat{seat}"

    # -- events ----------------------------------------------------------------------------
    def emit(self, type_: str, **fields: Any) -> None:
        """Record a game event. `t` is a step counter, monotone within a game."""
        self._step += 1
        self._events.append({"type": type_, "t": self._step, **fields})

    def drain_events(self) -> list[dict[str, Any]]:
        """Events recorded since the last call (the runner moves them into the trace)."""
        out, self._events = self._events, []
        return out

    @property
    def step(self) -> int:
        """The current event step counter."""
        return self._step

    def next_step(self) -> int:
        """Reserve a step number for an event recorded outside the game (agent events)."""
        self._step += 1
        return self._step
