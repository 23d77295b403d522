"""Typed JSON messages of the calendar reference protocols (CalBench App. D.1-D.4, Table 10).

Every protocol message is one compact JSON object ``{"proto": ..., "type": ..., "meeting": ...,
...}`` carried as the content of an ordinary cheap-talk message. The vocabulary is closed: ids,
slot numbers, scores, costs and two status words. No field ever holds free text, so a protocol
seat cannot leak a private label (App. D.4); `decode` rejects anything outside the vocabulary,
which is also how protocol seats and the VPS estimator tell typed messages from natural language.

``to`` is set only when a message travels on a group channel (no ``dm`` in the game): it names
the intended recipients, and everyone else who sees the message ignores it.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Status = Literal["PENDING", "IMPOSSIBLE"]
Move = tuple[int, int, int]
"""(meeting id, from slot, to slot): one prior meeting moved by a DSM plan or an SD repair."""


class Typed(BaseModel):
    """Fields every protocol message has."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    key: ClassVar[tuple[str, str]]

    meeting: int = Field(description="The meeting being scheduled this round.")
    to: list[int] | None = Field(None, description="Intended recipients on a group channel.")

    def encode(self) -> str:
        """The message as compact JSON (the content string that is sent)."""
        proto, kind = self.key
        body: dict[str, Any] = {"proto": proto, "type": kind}
        body |= self.model_dump(exclude_none=True)
        return json.dumps(body, separators=(",", ":"))

    def addressed_to(self, seat: int) -> bool:
        """Whether `seat` should act on this message."""
        return self.to is None or seat in self.to


# -- IMAP (App. D.1) ------------------------------------------------------------------------
class CostRequest(Typed):
    """The initiator asks for a cost per listed slot."""

    key: ClassVar[tuple[str, str]] = ("imap", "cost_request")
    slots: list[int]


class Costs(Typed):
    """A responder's local insertion cost per requested slot (None: infeasible)."""

    key: ClassVar[tuple[str, str]] = ("imap", "costs")
    slots: list[int]
    costs: list[int | None]


class ImapDecision(Typed):
    """The slot the initiator picked."""

    key: ClassVar[tuple[str, str]] = ("imap", "decision")
    slot: int


# -- SD-MAP (App. D.2) ----------------------------------------------------------------------
class Propose(Typed):
    """The initiator proposes one slot."""

    key: ClassVar[tuple[str, str]] = ("sd", "propose")
    slot: int


class Reply(Typed):
    """A binary feasibility answer to a proposal (also used to withdraw a failed bump)."""

    key: ClassVar[tuple[str, str]] = ("sd", "reply")
    slot: int
    status: Status


class Confirm(Typed):
    """Every participant answered PENDING: the slot is agreed."""

    key: ClassVar[tuple[str, str]] = ("sd", "confirm")
    slot: int


class Fail(Typed):
    """No candidate slot worked: the meeting stays unresolved."""

    key: ClassVar[tuple[str, str]] = ("sd", "fail")


class RescheduleRequest(Typed):
    """A bumping participant asks the bumped meeting's initiator for a repair."""

    key: ClassVar[tuple[str, str]] = ("sd", "reschedule_request")
    target: int = Field(description="The bumped prior meeting.")
    slot: int = Field(description="Where it sits now.")


class ProposeReschedule(Typed):
    """The bumped meeting's initiator proposes a repair slot."""

    key: ClassVar[tuple[str, str]] = ("sd", "propose_reschedule")
    target: int
    from_slot: int
    slot: int


class RescheduleReply(Typed):
    """A binary answer to a repair proposal."""

    key: ClassVar[tuple[str, str]] = ("sd", "reschedule_reply")
    target: int
    slot: int
    status: Status


class ConfirmReschedule(Typed):
    """Every participant of the bumped meeting accepted: move it."""

    key: ClassVar[tuple[str, str]] = ("sd", "confirm_reschedule")
    target: int
    from_slot: int
    slot: int


class FailReschedule(Typed):
    """No repair slot: the bumped meeting stays at its pre-bump slot."""

    key: ClassVar[tuple[str, str]] = ("sd", "fail_reschedule")
    target: int


# -- DSM (App. D.3) -------------------------------------------------------------------------
PlanTuple = tuple[int, int, list[Move]]
"""One DSM offer on the wire: (plan id, slot for the meeting, prior meetings it displaces)."""


class Proposals(Typed):
    """The initiator's offer set of one sub-round."""

    key: ClassVar[tuple[str, str]] = ("dsm", "proposals")
    sub: int
    plans: list[PlanTuple]


class Scores(Typed):
    """A scorer's satisfaction level per plan id (0 = infeasible, D-1 = free)."""

    key: ClassVar[tuple[str, str]] = ("dsm", "scores")
    sub: int
    scores: list[tuple[int, int]]


class DsmDecision(Typed):
    """The chosen plan and the recipient's flexibility-adjusted reward."""

    key: ClassVar[tuple[str, str]] = ("dsm", "decision")
    plan: int
    slot: int
    moves: list[Move] = Field(default_factory=list)
    reward: int = 0


MESSAGE_TYPES: dict[tuple[str, str], type[Typed]] = {
    cls.key: cls
    for cls in (
        CostRequest,
        Costs,
        ImapDecision,
        Propose,
        Reply,
        Confirm,
        Fail,
        RescheduleRequest,
        ProposeReschedule,
        RescheduleReply,
        ConfirmReschedule,
        FailReschedule,
        Proposals,
        Scores,
        DsmDecision,
    )
}
"""Every typed message, by (protocol, type)."""


def decode(content: str) -> Typed | None:
    """The typed message in `content`, or None for anything else (natural language included)."""
    if not content.startswith("{"):
        return None
    try:
        raw = json.loads(content)
    except json.JSONDecodeError:
        return None
    if not isinstance(raw, dict):
        return None
    cls = MESSAGE_TYPES.get((str(raw.pop("proto", "")), str(raw.pop("type", ""))))
    if cls is None:
        return None
    try:
        return cls.model_validate(raw)
    except ValidationError:
        return None


_SPLIT_FIELDS: dict[type[Typed], tuple[str, ...]] = {
    CostRequest: ("slots",),
    Costs: ("slots", "costs"),
    Proposals: ("plans",),
    Scores: ("scores",),
}
"""List fields a message may be split along, kept aligned part by part."""


def fit(message: Typed, limit: int) -> list[Typed]:
    """`message` as one or more messages whose encodings fit in `limit` characters.

    A long cost vector, offer set or score list is cut into consecutive parts (each a complete
    message of the same type); receivers merge the parts, and the VPS estimator reads each part
    on its own. Messages without a list field are never long."""
    if len(message.encode()) <= limit:
        return [message]
    fields = _SPLIT_FIELDS.get(type(message))
    first = cast(list[Any], getattr(message, fields[0])) if fields else []
    if fields is None or len(first) < 2:
        raise ValueError(f"{message.key} message does not fit in {limit} characters")
    half = len(first) // 2
    head = message.model_copy(update={f: getattr(message, f)[:half] for f in fields})
    tail = message.model_copy(update={f: getattr(message, f)[half:] for f in fields})
    return fit(head, limit) + fit(tail, limit)
