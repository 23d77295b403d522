"""Tables where people play in the browser (`accord serve --play`).

The lobby creates a *table*: a game, its options and seed, and who sits where: a person, a
reference agent or a model. Each person's seat gets a link holding an unguessable token;
nothing else lets a browser act for that seat or see its feed. The game starts once every
person has opened their link, and runs in the server's event loop through the same
`play_game` as `accord run`, so its trace is an ordinary trace (seat agent ``human``,
``human_action`` events with response times) written to ``OUT/traces`` and counted by every
report, query and leaderboard. ``OUT`` is served as a run like any other directory.

Privacy: a seat's browser gets only its own feed (`accord.web.seat`): its own requests
(exactly what an LLM seat is told) and the other seats' messages that the game delivers to
it, as `Game.seat_view` shows them. While a table plays, its in-flight game is not shown on
the run pages (no live log is written for it); its trace appears when it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from accord.agents.base import Agent
from accord.core.controls import play_controls
from accord.core.errors import AccordError, ConfigError
from accord.core.registry import game_class, make, resolve
from accord.core.replay import seat_frame_of
from accord.runner.play import build_agent, play_game
from accord.runner.results import write_outputs
from accord.runner.run import check_seats, write_run_trace
from accord.runner.specs import AgentSpec, GameSpec, parse_agent
from accord.traces.schema import Trace
from accord.web.seat import SeatChannel, WebHumanAgent

TableStatus = Literal["waiting", "playing", "complete", "failed"]

MAX_TABLES = 64
"""Tables kept at once (finished ones are dropped first): a lobby cannot fill the memory."""


@dataclass
class Table:
    """One game being set up or played in the browser."""

    table_id: str
    spec: GameSpec
    seat_names: list[str]
    channels: dict[int, SeatChannel]
    created_at: str
    status: TableStatus = "waiting"
    error: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def public(self, *, with_links: bool, run_id: str) -> dict[str, Any]:
        """The lobby's view of the table (seat links only for the lobby's holder)."""
        seats = []
        for i, name in enumerate(self.seat_names):
            a = self.spec.agents[i]
            entry: dict[str, Any] = {"seat": i, "name": name, "agent": a.display}
            ch = self.channels.get(i)
            if ch is not None:
                entry["joined"] = ch.joined
                entry["present"] = ch.connections > 0
                if with_links:
                    entry["token"] = ch.token
            seats.append(entry)
        return {
            "table": self.table_id,
            "run": run_id,
            "game_id": self.spec.game,
            "seed": self.spec.seed,
            "trace_id": self.spec.trace_id,
            "status": self.status,
            "error": self.error,
            "created_at": self.created_at,
            "seats": seats,
        }


class SeatSink:
    """Passes each new event to the people's feeds, as each seat may see it."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.view = game_class(table.spec.game).seat_view

    def begin(self, game_id: str, seat_names: list[str]) -> None:
        """Nothing to do: the seats' names are known from the lobby."""
        del game_id, seat_names

    def events(self, batch: list[dict[str, Any]]) -> None:
        """Show each seat the messages the game delivers to it."""
        for seat, ch in self.table.channels.items():
            for event in batch:
                shown = self.view(seat, event)
                if shown is not None:
                    ch.post({"type": "message", **shown})


SERVER_PATH_OPTIONS = frozenset({"prompts"})
"""Game options that name a file or folder on the server: not taken from the lobby."""


class PlayHub:
    """The tables of one `accord serve --play` server."""

    def __init__(
        self,
        out: Path,
        *,
        seat_timeout_s: float = 120.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Args:
        out: the run directory human games are written to (``OUT/traces``).
        seat_timeout_s: how long a person may be away before their seat's decisions fall
            back to the request's fallback.
        """
        if seat_timeout_s <= 0:
            raise ConfigError("--seat-timeout must be more than 0 seconds")
        self.out = out
        self.seat_timeout_s = seat_timeout_s
        self.clock = clock
        self.lobby_key = secrets.token_urlsafe(18)
        """Whoever holds it may create tables and see every seat link (printed at start)."""
        self.tables: dict[str, Table] = {}
        self.run_id = out.name
        """The run id the web view gives `out` (set by the app)."""
        (out / "traces").mkdir(parents=True, exist_ok=True)

    # -- lobby -------------------------------------------------------------------------------
    def create(
        self,
        game: str,
        seats: list[str],
        *,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
    ) -> Table:
        """A new table; `seats` names each seat's player: ``human``, a reference agent or a
        model (``provider/model``). Raises `ConfigError` naming what is wrong."""
        game_id = resolve(game)
        options = dict(options or {})
        for name in SERVER_PATH_OPTIONS & set(options):
            # A browser may not point the server at its own folders (an error would list
            # the folder's files); the person running accord serve chooses those.
            raise ConfigError(
                f"option {name!r} names a folder on the server and cannot be set from the "
                "lobby; leave it out (the game's own prompts are used)"
            )
        probe = make(game_id, options)
        if len(seats) != probe.num_seats:
            raise ConfigError(
                f"{game_id} has {probe.num_seats} seats under these options; give one player "
                f"for each ({len(seats)} given)"
            )
        agents = [parse_agent(s) for s in seats]
        if not any(a.is_human for a in agents):
            raise ConfigError("a table needs at least one person: make a seat 'human'")
        table_id = secrets.token_hex(4)
        spec = GameSpec(
            trace_id=f"play-{game_id}-{dt.datetime.now(dt.UTC):%Y%m%d-%H%M%S}-{table_id}",
            game=game_id,
            options=options,
            seed=seed if seed is not None else secrets.randbits(63),
            agents=agents,
            labels={"batch": "play", "pairing": " vs ".join(a.display for a in agents)},
        )
        check_seats([spec])
        probe.reset(spec.seed)
        names = [probe.seat_label(i) for i in range(probe.num_seats)]
        channels = {
            i: SeatChannel(i, names[i], clock=self.clock)
            for i, a in enumerate(agents)
            if a.is_human
        }
        self._make_room()
        table = Table(
            table_id=table_id,
            spec=spec,
            seat_names=names,
            channels=channels,
            created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        )
        self.tables[table_id] = table
        return table

    def _make_room(self) -> None:
        if len(self.tables) < MAX_TABLES:
            return
        for tid, t in list(self.tables.items()):
            if t.status in ("complete", "failed"):
                del self.tables[tid]
                if len(self.tables) < MAX_TABLES:
                    return
        raise ConfigError(f"{MAX_TABLES} tables are open; finish some games first")

    def seat(self, token: str) -> tuple[Table, SeatChannel]:
        """The table and seat a link's token opens; `KeyError` for an unknown token."""
        for table in self.tables.values():
            for ch in table.channels.values():
                if secrets.compare_digest(ch.token, token):
                    return table, ch
        raise KeyError(token)

    def joined(self, table: Table) -> None:
        """Start the game once every person has opened their link."""
        if table.status == "waiting" and all(ch.joined for ch in table.channels.values()):
            table.status = "playing"
            table.task = asyncio.ensure_future(self._play(table))

    # -- play --------------------------------------------------------------------------------
    def _agents(self, table: Table) -> list[Agent]:
        agents: list[Agent] = []
        for i, a in enumerate(table.spec.agents):
            ch = table.channels.get(i)
            if ch is not None:
                controls = play_controls(table.spec.game)
                view = functools.partial(seat_frame_of, game_class(table.spec.game))
                agents.append(
                    WebHumanAgent(ch, timeout_s=self.seat_timeout_s, controls=controls, view=view)
                )
            else:
                agents.append(_build(a, table.spec))
        return agents

    async def _play(self, table: Table) -> None:
        try:
            agents = self._agents(table)
        except AccordError as exc:
            table.status, table.error = "failed", str(exc)
            self._end(table, None)
            return
        trace = await play_game(table.spec, agents, sink=SeatSink(table))
        write_run_trace(self.out / "traces", trace)
        # The trace is on disk; if this fails, the next game (or accord report) rebuilds them.
        with contextlib.suppress(AccordError, OSError):
            write_outputs(self.out)
        table.status = trace.status
        table.error = trace.error
        self._end(table, trace)

    def _end(self, table: Table, trace: Trace | None) -> None:
        for seat, ch in table.channels.items():
            row = None
            if trace is not None:
                row = next((r for r in trace.seat_rows if r.get("seat") == seat), None)
            end: dict[str, Any] = {
                "type": "end",
                "status": table.status,
                "error": table.error,
                "result": row,
            }
            if trace is not None:  # the whole game, replayed in the run view
                end["replay"] = f"#/run/{quote(self.run_id, safe='')}/game/" + quote(
                    trace.trace_id, safe=""
                )
            ch.post(end)

    async def close(self) -> None:
        """Cancel games still playing (their traces are not written)."""
        tasks = [t.task for t in self.tables.values() if t.task is not None and not t.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _build(agent: AgentSpec, spec: GameSpec) -> Agent:
    return build_agent(agent, spec.game, seed=spec.seed, session=spec.trace_id)
