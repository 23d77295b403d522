"""The meeting-point-v1 state machine: requests out, actions in, events recorded.

Talk phase: one ``talk`` request at a time, A then B, `talk_turns` each. Decision: both seats
get a ``meet`` request at once (simultaneous moves) and the game ends when both answered.

Privacy: a seat's prompt and `Request.info` hold its own costs and the messages sent so far,
never the other seat's costs; the only way to learn them is to be told.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from accord.core.errors import ActionError
from accord.core.game import Game, GameResult
from accord.core.spec import Action, ActionSpec, Request
from pydantic import BaseModel

from meeting_point import prompts
from meeting_point.config import MeetingPointConfig
from meeting_point.rules import (
    SEATS,
    Scenario,
    State,
    cheapest,
    choose,
    make_scenario,
    meeting_place,
    oracle,
    say,
    speaker,
    talking,
    team_cost,
    worst_cost,
)

SEAT_NAMES = ("A", "B")


class MeetingPointGame(Game):
    """Two people agree where to meet, each knowing only its own costs."""

    game_id: ClassVar[str] = "meeting-point-v1"
    config_model: ClassVar[type[BaseModel]] = MeetingPointConfig
    prompts_module: ClassVar[str | None] = "meeting_point.prompts"
    oracle_agent: ClassVar[str | None] = "share"
    summary_metrics: ClassVar[list[tuple[str, str, bool]]] = [
        ("met", "met", True),
        ("optimal", "optimal", True),
        ("excess", "excess cost", False),
    ]

    def __init__(self, config: BaseModel) -> None:
        super().__init__(config)
        assert isinstance(config, MeetingPointConfig)
        self.cfg = config
        self._prompts = prompts.templates(config.prompts)
        self._scenario: Scenario | None = None
        self._state = State()
        self._answers: dict[int, int] = {}

    @property
    def num_seats(self) -> int:
        return SEATS

    @classmethod
    def seat_view(cls, seat: int, event: Mapping[str, Any]) -> dict[str, Any] | None:
        """The partner's message, which the seat's next observation quotes (for people
        playing in the browser); nothing else: the costs stay private."""
        if event.get("type") != "message" or event.get("seat") == seat:
            return None
        return {"from": event.get("seat"), "text": event.get("text", "")}

    def reset(self, seed: int) -> None:
        self._scenario = make_scenario(self.cfg, seed)
        self._state = State()
        self._answers = {}
        self.emit("start", places=list(self._scenario.places), talk_turns=self.cfg.talk_turns)

    @property
    def current(self) -> Scenario:
        """The scenario of the current game (after `reset`)."""
        if self._scenario is None:
            raise RuntimeError("call reset(seed) first")
        return self._scenario

    # -- requests ------------------------------------------------------------------------------
    def pending(self) -> list[Request]:
        if self.done():
            return []
        if talking(self.cfg, self._state):
            return [self._talk_request(speaker(self._state))]
        return [self._meet_request(s) for s in range(SEATS) if s not in self._answers]

    def _common(self, seat: int) -> dict[str, Any]:
        return {
            "seat": seat,
            "names": list(SEAT_NAMES),
            "costs": list(self.current.costs[seat]),
            "places": list(self.current.places),
            "messages": [[s, text] for s, text in self._state.messages],
        }

    def _system(self, seat: int) -> str:
        return self._prompts.render(
            "system",
            name=SEAT_NAMES[seat],
            partner=SEAT_NAMES[1 - seat],
            places=list(self.current.places),
            costs=list(self.current.costs[seat]),
            talk_turns=self.cfg.talk_turns,
        )

    def _history(self) -> list[str]:
        return [f"{SEAT_NAMES[s]}: {text}" for s, text in self._state.messages]

    def _talk_request(self, seat: int) -> Request:
        sent = sum(1 for s, _ in self._state.messages if s == seat)
        limit = self.cfg.message_chars
        return Request(
            seat=seat,
            observation=self._prompts.render(
                "talk",
                history=self._history(),
                turn=sent + 1,
                turns=self.cfg.talk_turns,
                chars=limit,
            ),
            system=self._system(seat),
            spec=ActionSpec(
                kind="talk",
                parse=lambda text: self._validate_talk(_json_object(text)),
                schema={
                    "type": "object",
                    "properties": {"message": {"type": "string", "maxLength": limit}},
                    "required": ["message"],
                    "additionalProperties": False,
                },
                fallback=lambda: {"message": ""},
                validate=self._validate_talk,
                format_hint='Reply with JSON only: {"message": "<what you say>"}',
            ),
            info=self._common(seat),
            round=1,
            turn=len(self._state.messages) + 1,
        )

    def _meet_request(self, seat: int) -> Request:
        own_best = cheapest(self.current.costs[seat])
        return Request(
            seat=seat,
            observation=self._prompts.render(
                "meet", history=self._history(), places=list(self.current.places)
            ),
            system=self._system(seat),
            spec=ActionSpec(
                kind="meet",
                parse=lambda text: self._validate_meet(_json_object(text)),
                schema={
                    "type": "object",
                    "properties": {
                        "place": {"type": "integer", "minimum": 0, "maximum": self.cfg.places - 1}
                    },
                    "required": ["place"],
                    "additionalProperties": False,
                },
                fallback=lambda: {"place": own_best},
                validate=self._validate_meet,
                format_hint='Reply with JSON only: {"place": <place number>}',
            ),
            info=self._common(seat),
            round=2,
        )

    # -- actions -------------------------------------------------------------------------------
    def _validate_talk(self, action: Action) -> Action:
        message = action.get("message")
        if not isinstance(message, str):
            raise ActionError('"message" must be text.')
        if len(message) > self.cfg.message_chars:
            raise ActionError(f"Your message is over {self.cfg.message_chars} characters.")
        return {"message": message}

    def _validate_meet(self, action: Action) -> Action:
        place = action.get("place")
        if not isinstance(place, int) or isinstance(place, bool):
            raise ActionError('"place" must be a whole number.')
        if not 0 <= place < self.cfg.places:
            raise ActionError(f'"place" must be between 0 and {self.cfg.places - 1}.')
        return {"place": place}

    def submit(self, seat: int, action: Action) -> None:
        if self.done() or seat not in {r.seat for r in self.pending()}:
            raise ActionError(f"seat {SEAT_NAMES[seat] if 0 <= seat < 2 else seat} has no turn now")
        if talking(self.cfg, self._state):
            text = self._validate_talk(action)["message"]
            self._state = say(self._state, seat, text)
            self.emit("message", seat=seat, text=text, fallback=self.provenance.fallback)
            return
        self._answers[seat] = self._validate_meet(action)["place"]
        if len(self._answers) == SEATS:
            choices = [self._answers[s] for s in range(SEATS)]
            self._state = choose(self._state, choices)
            self.emit("decisions", places=choices, met=meeting_place(self._state) is not None)

    def done(self) -> bool:
        return self._state.choices is not None

    # -- outcome -------------------------------------------------------------------------------
    def result(self) -> GameResult:
        place = meeting_place(self._state)
        best, best_cost = oracle(self.current)
        cost = None if place is None else team_cost(self.current, place)
        excess = None if cost is None else cost - best_cost
        scale = worst_cost(self.current) - best_cost + 1
        score = 0.0 if excess is None else 1.0 - excess / scale
        return GameResult(
            final_state={
                "choices": list(self._state.choices or []),
                "place": place,
                "messages": [[s, text] for s, text in self._state.messages],
            },
            metrics={
                "met": place is not None,
                "optimal": excess == 0,
                "team_cost": cost,
                "excess": excess,
                "oracle_place": best,
                "oracle_cost": best_cost,
                "gap_if_missed": scale,
                "messages": len(self._state.messages),
            },
            seat_rows=[
                {
                    "own_cost": None if place is None else self.current.costs[s][place],
                    "met": place is not None,
                    "score": score,
                }
                for s in range(SEATS)
            ],
        )

    def oracle_gap(self, result: GameResult) -> float | None:
        excess = result.metrics["excess"]
        return float(result.metrics["gap_if_missed"] if excess is None else excess)

    def scenario(self) -> dict[str, Any]:
        return self.current.to_json() if self._scenario is not None else {}

    def prompt_templates(self) -> dict[str, dict[str, str]]:
        return self._prompts.record()

    def seat_label(self, seat: int) -> str:
        return SEAT_NAMES[seat]


def _json_object(text: str) -> dict[str, Any]:
    """The JSON object of a reply (a fenced block is accepted)."""
    body = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ActionError(f"Your reply is not JSON ({exc.msg}). Reply with the JSON only.") from exc
    if not isinstance(data, dict):
        raise ActionError("Reply with one JSON object.")
    return data
