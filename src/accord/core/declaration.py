"""The types of a game's one declaration: `GameInfo` and its parts (DESIGN principle 6).

`accord.core.gameinfo` re-exports all of them, looks declarations up and documents how a game
declares itself; this module holds only the types, so that the registry can use them.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from accord.core.blame import Blame
from accord.core.errors import AccordError

if TYPE_CHECKING:
    from pathlib import Path

    from accord.core.controls import PlayControls
    from accord.core.game import Game, GameResult
    from accord.core.spec import Action, Request
    from accord.traces.schema import Trace

T = TypeVar("T")

_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


@dataclass(frozen=True)
class Lazy(Generic[T]):
    """A ``"module:attribute"`` reference imported on first `get` (keeps game imports cheap)."""

    target: str
    """Dotted module path, a colon, and the attribute (dots allowed for nested attributes)."""

    def __post_init__(self) -> None:
        if not _TARGET.match(self.target):
            raise AccordError(
                f"Lazy reference {self.target!r} is not 'module:attribute'; write it as "
                "'package.module:name'"
            )

    def get(self) -> T:
        """The object the reference names (imported now; Python caches the module)."""
        module_name, _, attr = self.target.partition(":")
        try:
            obj: Any = importlib.import_module(module_name)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as exc:
            raise AccordError(
                f"cannot load {self.target!r} ({type(exc).__name__}: {exc}); check the "
                "reference in the game's GameInfo and that its package is installed"
            ) from exc
        return obj  # type: ignore[no-any-return]


def resolve_ref(value: T | Lazy[T]) -> T:
    """`value` itself, or what a `Lazy` reference names."""
    return value.get() if isinstance(value, Lazy) else value


# -- leaderboard -------------------------------------------------------------------------------

SeatScore = Callable[["Trace"], list[float | None]]
"""Per-seat scores of one trace, by seat index (None: not defined for that seat)."""
GameScore = Callable[["Trace"], float | None]
"""The one score a whole game earned (None: not defined)."""


@dataclass(frozen=True)
class Dimension:
    """One rated dimension of a game's leaderboard (CalBench App. E rates each on its own)."""

    key: str
    """Short name, used by ``accord leaderboard --sort-by``."""
    label: str
    """Column title."""
    higher_is_better: bool
    margin: float
    """Score difference treated as a draw (App. E: calibrated to the score's spread)."""
    seat_score: SeatScore | None = None
    """Free-for-all boards: each seat's score."""
    game_score: GameScore | None = None
    """Team boards: the one score the whole game earned."""


@dataclass(frozen=True)
class Board:
    """How a game is rated: free-for-all over seats (``seats``) or games as teams (``teams``)."""

    mode: Literal["seats", "teams"]
    dimensions: tuple[Dimension, ...]
    game: str = ""
    """The short game name it rates (filled in by the leaderboard)."""


def metric(key: str, *, flip: bool = False) -> Callable[[Trace], float | None]:
    """A trace's numeric game metric `key` (``1 - value`` with `flip`); None when absent."""

    def get(trace: Trace) -> float | None:
        v = trace.metrics.get(key)
        if not isinstance(v, int | float) or isinstance(v, bool):
            return None
        return 1.0 - float(v) if flip else float(v)

    return get


def seat_field(trace: Trace, keys: tuple[str, ...]) -> list[float | None]:
    """Each seat's first present seat-row column of `keys`, by seat index."""
    by_seat = {r.get("seat"): r for r in trace.seat_rows}
    out: list[float | None] = []
    for seat in trace.seats:
        row = by_seat.get(seat.seat, {})
        value = next((row[k] for k in keys if row.get(k) is not None), None)
        out.append(float(value) if isinstance(value, int | float) else None)
    return out


# -- value of communication --------------------------------------------------------------------

TraceValue = Callable[["Trace"], float | None]


@dataclass(frozen=True)
class Outcome:
    """One outcome whose gain from communication is measured."""

    key: str
    label: str
    oracle: float
    """What a perfect team reaches (the ``1`` of the value scale)."""
    value: TraceValue
    """The outcome of one game; None when it is not defined."""


def _no_baseline(trace: Trace) -> bool:
    del trace
    return False


def _no_channel(trace: Trace) -> str:
    del trace
    return ""


def players(trace: Trace) -> str:
    """The team, seat order ignored: ``"a × b"`` (each seat's model, else its agent)."""
    return " × ".join(sorted(s.identity for s in trace.seats))


def same_task(trace: Trace) -> str:
    """The default cell: a talk game and its baseline share game id, seed and options."""
    import json

    return json.dumps([trace.game_id, trace.seed, trace.config], sort_keys=True, default=str)


def same_task_except(*options: str) -> Callable[[Trace], str]:
    """A cell for a baseline played by an option: game id, seed and the options but those
    named (``same_task_except("talk")``), so a no-talk game pairs with the talk games of its
    task. The default cell, `same_task`, keeps every option, so a baseline that differs by
    the option that mutes talk would pair with nothing."""
    import json

    left_out = frozenset(options)

    def cell(trace: Trace) -> str:
        kept = {k: v for k, v in trace.config.items() if k not in left_out}
        return json.dumps([trace.game_id, trace.seed, kept], sort_keys=True, default=str)

    return cell


@dataclass(frozen=True)
class TalkValue:
    """The value-of-communication declaration of a game (``accord value``).

    ``value = (achieved - no-talk) / (oracle - no-talk)``, each talk game paired with the mean
    no-talk baseline of its `cell`.
    """

    outcomes: tuple[Outcome, ...]
    is_baseline: Callable[[Trace], bool] = _no_baseline
    """Whether a played game is a no-talk baseline (e.g. an option that mutes every channel)."""
    cell: Callable[[Trace], str] = same_task
    """What a talk game and its baseline must share (a JSON string)."""
    channel: Callable[[Trace], str] = _no_channel
    """The communication channel of a game (rows are grouped by it)."""
    baseline_agent: str | None = None
    """A reference agent that plays every seat of a no-talk baseline replayed on each talk
    game's very task (options and seed); its own games are never counted as talk games."""
    how: str = "a no-talk run"
    """How to play the baseline, for the hint under the table (e.g. ``-o talk=false``)."""


# -- query, PettingZoo, people -----------------------------------------------------------------

MessageRow = tuple[int, Any, str, list[int] | None, str, bool]
"""(index of the event, sender seat, channel, recipients, text, delivered)."""
MessageExtractor = Callable[[list[dict[str, Any]], int], list[MessageRow]]
"""``extract(events, num_seats)`` -> one `MessageRow` per communication act."""

ScoreFn = Callable[["GameResult"], "list[float]"]
"""Final PettingZoo scores of a game result, one per seat in seat order."""


def seat_column(name: str) -> ScoreFn:
    """Scores read from one numeric seat-row column; a leading ``-`` negates it.

    ``None`` (a metric undefined for that seat, such as calendar success without meetings)
    scores 0; booleans score 0 or 1.
    """
    from accord.core.errors import ConfigError

    sign, key = (-1.0, name[1:]) if name.startswith("-") else (1.0, name)

    def score(result: GameResult) -> list[float]:
        out = []
        for row in result.seat_rows:
            if key not in row:
                known = ", ".join(sorted(row))
                raise ConfigError(f"reward column {key!r} is not a seat-row column; try: {known}")
            value: Any = row[key]
            if value is not None and not isinstance(value, int | float):
                raise ConfigError(f"reward column {key!r} is not numeric (got {value!r})")
            out.append(0.0 if value is None else sign * float(value))
        return out

    return score


HumanAdapter = Callable[["Request", str], "Action"]
"""A typed line -> an action for a request; raises `ActionError` with help text."""
HumanHelp = Callable[["Request"], str]
"""What a person is told once about the short commands of a request."""


@dataclass(frozen=True)
class HumanSeat:
    """How a person plays the game: short terminal commands, and browser controls."""

    adapter: HumanAdapter | Lazy[HumanAdapter] | None = None
    help: HumanHelp | Lazy[HumanHelp] | None = None
    controls: PlayControls | Lazy[PlayControls] | None = None
    """The browser's controls (`accord.core.controls`); None: a form from the JSON schema."""


# -- judges ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeRun:
    """What ``accord judge`` hands a game's judge."""

    model: str
    """The judge model (provider/model)."""
    options: Mapping[str, Any]
    """Model options (``--model-base-url``, ``-M``)."""
    out: Path
    """The folder to write into."""
    concurrency: int
    specialist_model: str | None = None
    human_labels: list[dict[str, Any]] | None = None
    leak_set: bool = False
    say: Callable[[str], None] = print
    """Prints one line of progress (already escaped for rich)."""


@dataclass(frozen=True)
class JudgeResult:
    """What one judge did: how many games it judged and the error line, if it must fail."""

    judged: int
    error: str | None = None
    """Set when the command must exit 1 (the files are still written)."""


@dataclass(frozen=True)
class Judge:
    """An LLM judge a game declares (``accord judge``)."""

    name: str
    select: Callable[[list[Trace]], list[Trace]]
    """The traces (complete or not) this judge labels; empty: nothing to do."""
    run: (
        Callable[[list[Trace], JudgeRun], JudgeResult]
        | Lazy[Callable[[list[Trace], JudgeRun], JudgeResult]]
    )
    subfolder: str | None = None
    """Writes into this subfolder of the output when another judge writes at its top."""
    what: str = ""
    """What it judges, for the message when no game of any judge is found."""


# -- scenarios and suites ----------------------------------------------------------------------


@dataclass(frozen=True)
class ScenarioQuery:
    """What ``accord scenario`` was asked, for a game's own scenario tool."""

    options: dict[str, Any]
    """Game options (``-o``, with the game's `GameInfo.scenario_flags` mapped in)."""
    seed: int
    pool: str
    """``--pool``: a built-in pool of scenarios to print."""
    scenario_id: str | None
    """``--id``: one scenario of the pool."""
    generate: bool
    ratio: float
    filter_models: list[str] | None
    filter_tries: int


@dataclass(frozen=True)
class ScenarioOutput:
    """A game's scenario tool's answer: the JSON data and the lines of the table format."""

    data: Any
    lines: list[str]
    """Rich markup (already escaped), one line per scenario."""


ScenarioTool = Callable[[ScenarioQuery], ScenarioOutput]


@dataclass(frozen=True)
class SuiteTool:
    """``accord suite``: a game's named task suites (CalBench §4.1's canonical suite, say)."""

    names: tuple[str, ...]
    """The suites the game knows by name (a suite file path is accepted too)."""
    tasks: Callable[[str, int], list[Any]]
    """``tasks(name or file, seed)`` -> the suite's tasks."""
    summary: Callable[[str, list[Any]], list[str]]
    """Lines describing the tasks (rich markup, escaped)."""
    write: Callable[[Path, list[Any]], Path]
    """Write the tasks as JSONL; returns the path."""
    task_id: Callable[[Any], Any]
    """A task's id (the ``task`` option that plays it, with ``suite`` naming the suite)."""
    seeded: tuple[str, ...] = ()
    """The suites built from ``--seed`` (the others are fixed data)."""


@dataclass(frozen=True)
class PromptCases:
    """Option sets under which every prompt of a game is rendered
    (`accord.testing.prompt_cases`)."""

    cases: Mapping[str, dict[str, Any]]
    """Case name -> game options."""
    seats: Callable[[dict[str, Any]], int]
    """How many seats a case's options give."""


@dataclass(frozen=True)
class AgentCheckGame:
    """The small game ``accord agent check`` plays with the checked agent in seat 0
    (`accord.testing.agent_check`)."""

    others: str
    """The reference agent in every other seat."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Game options that keep the check game short."""


# -- the declaration ---------------------------------------------------------------------------


Moves = Literal["sequential", "simultaneous", "mixed"]
Information = Literal["perfect", "imperfect"]
Utility = Literal["zero-sum", "constant-sum", "identical", "general-sum"]


@dataclass(frozen=True)
class GameType:
    """What kind of game it is, in the terms game-theory libraries use (open_spiel's
    ``GameType``, PettingZoo's AEC and Parallel APIs), shown by ``accord games`` and read by
    the PettingZoo adapters."""

    seats: tuple[int, int]
    """The fewest and most seats the game's options allow (``(2, 2)``: always two)."""
    moves: Moves
    """``sequential``: one seat acts at a time; ``simultaneous``: every seat still playing
    acts at every step; ``mixed``: some phases one seat, others several at once (talk, then
    simultaneous decisions)."""
    information: Information = "imperfect"
    """``imperfect``: seats hold private information (the benchmarks' premise)."""
    utility: Utility = "general-sum"
    """How the seats' payoffs relate: ``identical`` for a team scored as one."""

    def describe(self) -> str:
        """One line: ``2 seats · mixed moves · imperfect information · general-sum``."""
        low, high = self.seats
        seats = f"{low} seats" if low == high else f"{low}-{high} seats"
        return f"{seats} · {self.moves} moves · {self.information} information · {self.utility}"


@dataclass(frozen=True)
class GameInfo:
    """Everything Accord knows about one game, declared once by its package."""

    game: type[Game]
    """The `Game` subclass (its ``game_id`` is the game's versioned id)."""
    alias: str = ""
    """The short name (``accord run ALIAS``); default: the game id without its version."""
    agents: Mapping[str, Any] | Lazy[Mapping[str, Any]] | None = None
    """Reference agents: ``{name: factory}`` (`accord.agents.reference`)."""
    kind: GameType | None = None
    """The game's kind (seats, moves, information, utility); None: not declared."""
    opponent: str = ""
    """The reference agent a person meets in ``accord play`` when no ``--against`` is given
    (one of ``agents``); empty: the first of ``agents``."""
    report: Callable[..., Any] | Lazy[Callable[..., Any]] | None = None
    """The report builder ``(traces, folder) -> paths`` (`accord.analysis.report`)."""
    report_ids: tuple[str, ...] = ()
    """Older game ids whose traces this report also builds (e.g. earlier versions)."""
    suites: SuiteTool | Lazy[SuiteTool] | None = None
    """``accord suite``: the game's named task suites; None: it has none."""
    scenario: ScenarioTool | Lazy[ScenarioTool] | None = None
    """``accord scenario``: the game's own scenario sources (pools, a generator); None: the
    scenario the game builds from its options and seed."""
    scenario_flags: Mapping[str, str] = field(default_factory=dict)
    """``accord scenario`` flag name -> game option it sets (``agents`` -> ``num_agents``)."""
    board: Board | None = None
    """The leaderboard; None: rated on the seat rows' ``score`` column when there is one."""
    value: TalkValue | None = None
    """The value-of-communication outcomes and no-talk baseline; None: not measured."""
    messages: MessageExtractor | Lazy[MessageExtractor] | None = None
    """``accord query``'s ``messages`` view; None: generic ``message`` events."""
    score: ScoreFn | Lazy[ScoreFn] | None = None
    """The PettingZoo final score; None: the seat rows' ``score`` column."""
    score_ids: tuple[str, ...] = ()
    """Older game ids the PettingZoo score also applies to."""
    judges: tuple[Judge, ...] = ()
    human: HumanSeat = field(default_factory=HumanSeat)
    golden: Mapping[str, dict[str, Any]] | Lazy[Mapping[str, dict[str, Any]]] | None = None
    """Golden trace cases (`accord.testing.golden`): name -> ``{"options", "seed", "agents"}``
    (reference agent names, one per seat); the name is the trace id and the file name."""
    prompt_cases: PromptCases | Lazy[PromptCases] | None = None
    """The prompt-rendering cases (`accord.testing.prompt_cases`)."""
    kits: Mapping[str, Any] = field(default_factory=dict)
    """``accord reproduce``: paper name -> its kit class (`accord.reproduce.kit.Kit`, usually
    `Lazy`), for the papers whose benchmark this game implements."""
    agent_check: AgentCheckGame | None = None
    """``accord agent check``: the game a remote agent is checked on; None: not checked."""
    hidden_info: tuple[str, ...] = ()
    """Keys of `Request.info` that are hints for reference agents only (an oracle's answer):
    never sent to a remote agent in its structured observation (`accord.remote.observations`)."""
    blame: Blame | None = None
    """``accord blame``: the counterfactual seat, what recovered means, the outcome and how to
    withhold a message (`accord.core.blame`); None: the game cannot be blamed."""

    def __post_init__(self) -> None:
        if not self.alias:
            object.__setattr__(self, "alias", re.sub(r"-v[0-9]+$", "", self.game.game_id))

    @property
    def game_id(self) -> str:
        """The game's versioned id."""
        return self.game.game_id

    @property
    def trace_ids(self) -> tuple[str, ...]:
        """The game id and the older ids its report reads."""
        return (self.game_id, *(i for i in self.report_ids if i != self.game_id))

    @property
    def replay_module(self) -> str | None:
        """The replay view's module (declared on the game class, `accord.core.replay`)."""
        return getattr(self.game, "replay_module", None)

    @classmethod
    def of(cls, game: type[Game], alias: str = "") -> GameInfo:
        """The minimal declaration of a bare `Game` subclass (the older entry-point form)."""
        return cls(game=game, alias=alias)
