"""The sorting replay view (`accord.core.replay`): who holds what, what is shared, and CHECK.

Each agent's slice of the input and the part of the answer it must submit (MAS-Bench §3.1),
its submitted result and CHECK's verdict on it (§3.3: a submission is correct when it equals
the agent's slice of the expected output), the messages of the round (broadcast and p2p
backends) or the key-value store's contents after each command (kv backend, App. F.4), and
the phase and round. The store is rebuilt from the commands the trace records as accepted;
each phase starts with an empty store, as the engine's does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from accord.core.replay import Frame, Replay, cell, facts, grid, messages
from accord.games.sorting.backends import agent_name
from accord.games.sorting.commands import format_list, submission_key

if TYPE_CHECKING:
    from accord.core.spec import Request
    from accord.traces.schema import Trace

PREVIEW = 120
"""Characters of a stored value shown in the store's table (the rest on hover)."""


def _files(n: int) -> str:
    return "file" if n == 1 else "files"


def _fmt(values: Any) -> str:
    return "–" if values is None else "[" + ", ".join(str(v) for v in values) + "]"


class _State:
    def __init__(self, trace: Trace) -> None:
        sc = trace.scenario
        self.xs: list[list[int]] = sc.get("xs", [])
        self.expected: list[list[int]] = sc.get("expected", [])
        self.n = len(self.xs)
        self.backend = str(sc.get("backend", ""))
        self.task = str(sc.get("task", ""))
        self.names = [s.name for s in trace.seats] or [f"agent_{i}" for i in range(self.n)]
        self.phase = 0
        self.round = 0
        self.offset = 0
        self.last_round = 0
        self.submitted: list[list[int] | None] = [None] * self.n
        self.correct: list[bool | None] = [None] * self.n
        self.store: dict[str, str] = {}
        self.talk: list[Mapping[str, Any]] = []
        self.end: Mapping[str, Any] | None = None

    @property
    def mark(self) -> int:
        return self.offset + self.round

    def apply(self, ev: Mapping[str, Any]) -> None:
        kind = ev.get("type")
        if kind == "phase_start":
            self.offset += self.last_round
            self.phase, self.round, self.last_round = int(ev.get("phase", self.phase + 1)), 1, 1
            self.submitted, self.correct = [None] * self.n, [None] * self.n
            self.store, self.talk = {}, []
        elif kind == "submission":
            seat = int(ev["seat"])
            self.submitted[seat] = list(ev["values"])
            self.correct[seat] = bool(ev["correct"])
            if self.backend == "kv":  # the same command writes the marker file (Table 5)
                shown = format_list(self.submitted[seat] or [])
                self.store[submission_key(seat)] = (
                    f"{agent_name(seat)} submitted {shown} and is now offline."
                )
        elif kind == "turn":
            if int(ev.get("round", self.round)) != self.round:
                self.round = int(ev["round"])
                self.talk = []
            self.last_round = max(self.last_round, self.round)
            for c in ev.get("commands", []):
                if c.get("ok"):
                    self._command(int(ev["seat"]), str(c.get("command", "")), c.get("submitted"))
        elif kind == "round_end":
            self.last_round = max(self.last_round, int(ev.get("round", self.round)))
        elif kind == "game_end":
            self.end = ev

    def _command(self, seat: int, command: str, submitted: list[int] | None) -> None:
        first, _, below = command.partition("\n")
        verb, _, rest = first.strip().partition(" ")
        if verb == "write_file" and rest.strip():
            self.store[rest.strip()] = below
        elif verb in ("delete_file", "rm") and rest.strip():
            self.store.pop(rest.strip(), None)
        elif verb == "submit_result" and self.backend == "kv" and submitted is not None:
            shown = format_list(submitted)
            self.store[submission_key(seat)] = (
                f"{agent_name(seat)} submitted {shown} and is now offline."
            )
        elif verb == "submit_result" and self.backend == "broadcast" and submitted is not None:
            # Table 5: a broadcast submission is announced to every other agent.
            text = f"{agent_name(seat)} submitted its result: {format_list(submitted)}"
            self.talk.append({"from": self.names[seat], "to": None, "text": text})
        elif verb == "broadcast_message":
            body = (rest + ("\n" + below if below else "")).strip()
            self.talk.append({"from": self.names[seat], "to": None, "text": body})
        elif verb == "send_message":
            to, _, body = (rest + ("\n" + below if below else "")).strip().partition(" ")
            target = self.names[int(to)] if to.isdigit() and int(to) < self.n else to
            self.talk.append({"from": self.names[seat], "to": target, "text": body.strip()})

    def frame(self) -> Frame:
        cols = ["slice (input)", "must submit", "submitted", "CHECK"]
        rows = []
        for a in range(self.n):
            ok = self.correct[a]
            verdict = (
                cell("–", "muted")
                if ok is None
                else cell("correct" if ok else "wrong", "good" if ok else "bad")
            )
            sub = self.submitted[a]
            rows.append(
                (
                    self.names[a],
                    [
                        cell(_fmt(self.xs[a])),
                        cell(_fmt(self.expected[a]), "muted"),
                        cell(_fmt(sub), None if sub is None else ("good" if ok else "bad")),
                        verdict,
                    ],
                )
            )
        panels: list[dict[str, Any]] = [grid(f"Agents ({self.task})", cols, rows)]
        info: list[Any] = [
            ("phase", self.phase),
            ("round", self.round),
            ("backend", self.backend),
            ("submitted", f"{sum(s is not None for s in self.submitted)} of {self.n}"),
        ]
        if self.end is not None:
            sr = float(self.end.get("sr", 0.0))
            info.append(("CHECK: success rate", f"{100 * sr:.0f}%", "good" if sr == 1 else "bad"))
        panels.append(facts("State", info))
        if self.backend == "kv":
            files = [
                (key, [cell(v[:PREVIEW] + ("…" if len(v) > PREVIEW else ""), "busy", v)])
                for key, v in sorted(self.store.items())
            ]
            panels.append(
                grid(
                    f"Key-value store after this step ({len(files)} {_files(len(files))})",
                    ["value"],
                    files,
                )
            )
        else:
            items = [{**m, "current": False} for m in self.talk]
            panels.append(messages(f"Messages of round {self.round}", items))
        title = (
            "Before the first phase"
            if not self.phase
            else f"Phase {self.phase} · round {self.round}"
        )
        if self.end is not None:
            title = "Game over"
        return {"title": title, "panels": panels}


def replay(trace: Trace) -> Replay:
    """The sorting replay of `trace`: one step per event."""
    state = _State(trace)
    out = Replay()
    for ev in trace.events:
        state.apply(ev)
        seat = ev.get("seat")
        who = f" · {state.names[seat]}" if isinstance(seat, int) and 0 <= seat < state.n else ""
        out.add(state.frame(), state.mark, f"{ev.get('type', '?')}{who}")
    return out


def seat_frame(request: Request) -> Frame | None:
    """What a person at `request.seat` sees above their controls: their own slice, the task,
    the backend and the round (MAS-Bench §3). Built from the seat's own request only."""
    info = request.info
    if "xs" not in info:
        return None
    return {
        "title": f"Round {info['round']} of {info['max_rounds']} · task {info['task']}",
        "panels": [
            grid(
                "Your numbers",
                [str(i) for i in range(len(info["xs"]))],
                [("you", [cell(str(x), "busy") for x in info["xs"]])],
            ),
            facts(
                "The task",
                [
                    ("task", info["task"]),
                    ("backend", info["backend"]),
                    ("agents", info["n"]),
                    ("you submit", f"{info['submit_len']} integers"),
                ],
            ),
        ],
    }
