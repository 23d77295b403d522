"""A seat's transcript: every chat message its model was sent or returned, each stored once.

Traces are the evidence (DESIGN "Trace file"): a reviewer must see exactly what a model saw
without the cache or a rerun. Conversations grow turn by turn, so storing each call's full
message list would make a trace quadratic in its length. Instead the transcript is an
append-only list of distinct messages, and each ``model_call`` (or ``model_error``) event names
the messages it was sent as index ranges (``sent: [[0, 6], [9, 9]]`` = messages 0 to 6 and 9,
in that order) and the reply it got (``reply: 7``). A message object that is sent again (the
system prompt, earlier turns) keeps its first index.

Replies and prompts longer than `MAX_CHARS` characters are cut, with ``truncated`` holding the
original length, so one runaway reply cannot bloat a trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.models.base import Message

MAX_CHARS = 64 * 1024
"""Characters of one message kept in a transcript (the rest is cut and marked)."""


def cap_text(text: str, limit: int = MAX_CHARS) -> tuple[str, int | None]:
    """`text` cut to `limit` characters, and its original length when it was cut."""
    if len(text) <= limit:
        return text, None
    return text[:limit], len(text)


class Transcript:
    """The messages of one seat's conversation, in the order they first appeared.

    Attributes:
        messages: JSON-able entries ``{"role", "content"}`` plus, where they apply,
            ``truncated`` (original length), ``reasoning`` (reasoning text the provider
            returned beside the reply) and ``note`` (why the harness wrote the message).
        calls: model calls made so far (successful or not); a call's number is its 1-based
            position, as in the ``call`` field of its event.
    """

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.calls = 0
        self._index: dict[int, int] = {}
        # Holding the message objects keeps their ids from being reused by new objects.
        self._objects: list[Message] = []

    def add(self, message: Message, **extra: Any) -> int:
        """The index of `message`, storing it first if this object is new."""
        key = id(message)
        found = self._index.get(key)
        if found is not None:
            return found
        content, cut = cap_text(message["content"])
        entry: dict[str, Any] = {"role": message["role"], "content": content}
        if cut is not None:
            entry["truncated"] = cut
        if "tool_calls" in message:  # tools mode only
            entry["tool_calls"] = message["tool_calls"]
        if "tool_call_id" in message:
            entry["tool_call_id"] = message["tool_call_id"]
        entry.update({k: v for k, v in extra.items() if v is not None})
        self.messages.append(entry)
        self._objects.append(message)
        index = self._index[key] = len(self.messages) - 1
        return index

    def annotate(self, index: int, **extra: Any) -> None:
        """Attach fields (e.g. ``reasoning``) to a stored message; long text is capped."""
        entry = self.messages[index]
        for key, value in extra.items():
            if value is None:
                continue
            if isinstance(value, str):
                value, cut = cap_text(value)
                if cut is not None:
                    entry[f"{key}_truncated"] = cut
            entry[key] = value

    def sent(self, conversation: Sequence[Message]) -> list[list[int]]:
        """Index ranges ``[first, last]`` of `conversation`'s messages, storing new ones."""
        ranges: list[list[int]] = []
        for message in conversation:
            i = self.add(message)
            if ranges and ranges[-1][1] == i - 1:
                ranges[-1][1] = i
            else:
                ranges.append([i, i])
        return ranges

    def next_call(self) -> int:
        """Count one more model call and return its number."""
        self.calls += 1
        return self.calls

    def to_json(self) -> dict[str, Any]:
        """The transcript as stored in a trace."""
        return {"messages": self.messages, "calls": self.calls}


def expand(ranges: Sequence[Sequence[int]]) -> list[int]:
    """``[[0, 2], [5, 5]]`` -> ``[0, 1, 2, 5]``."""
    return [i for first, last in ranges for i in range(first, last + 1)]
