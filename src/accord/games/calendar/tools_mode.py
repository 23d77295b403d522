"""The calendar game's wording for a seat acting through native tool calls (``action_mode:
tools``, `accord.agents.tools`).

CalBench App. A.5 asks for one JSON reply, ``{"thinking", "actions": [tool calls]}``: that is
json mode, the paper's method, and the templates (``templates/*.j2``) hold its wording. Tools
mode is Accord's extension; its seat must not be told to write that envelope, so its system
prompt swaps the tools and response-format sections (`tools_sections`) and its user messages
swap the reply lines (`tools_wording`). Kept in code, not in templates: the template set, whose
hashes every trace records, stays the paper's.
"""

from __future__ import annotations

from collections.abc import Sequence

_TOOL_LINES = {
    "dm": "- dm(to, content): a private message to one agent.",
    "participant_groupchat": "- participant_groupchat(content): a message to every participant "
    "of the current meeting.",
    "all_groupchat": "- all_groupchat(content): a message to every agent.",
}

TOOLS_RESPONSE_FORMAT = (
    "## How to act\n"
    "Act only by calling the tools you are offered: one call per action. The calls you make "
    "in one turn are one batch. To pass, make no call. Text you write beside your calls is "
    "your private reasoning, never shown to anyone."
)
"""The response-format section for a seat acting through native tool calls."""

TOOLS_REWORDING = (
    ("\n\nReply with your actions ([] to pass).", ""),
    ("or return [] if coordination is finished.", "or make no call if coordination is finished."),
    ("Return [] if you have nothing to move.", "Make no call if you have nothing to move."),
    ("Reply with one JSON object: ", "Give your answer as the arguments of the tool reflect: "),
)
"""(json-mode wording, tools-mode wording) of the default templates' reply instructions; the
tools mode's own line (`accord.core.tools.ToolSet.instruction`) follows each message."""


def tools_sections(message_types: Sequence[str]) -> dict[str, str]:
    """The system prompt's tools and response-format sections for a seat acting through
    native tool calls: the same tools and rules as App. A.2, told as calls (no JSON envelope)."""
    lines = [_TOOL_LINES[k] for k in message_types if k in _TOOL_LINES]
    tools = "\n".join(
        [
            "## Tools",
            "You act by calling these tools:",
            *lines,
            "- schedule(meeting_id, slot): write the meeting to a slot of your calendar.",
            "- reschedule(item_id, from_slot, to_slot, justification): move one of your entries; "
            "justification says why your user's entry has to move.",
            "Messages are valid only in CHEAP_TALK. reschedule is valid in VOLUNTARY and "
            "DECISION; schedule only in DECISION. A reschedule's to_slot must be free, or be "
            "emptied by another reschedule of the same batch.",
        ]
    )
    return {"tools": tools, "response_format": TOOLS_RESPONSE_FORMAT}


def tools_wording(text: str) -> str:
    """`text` (a user message) for a seat acting through tool calls (`TOOLS_REWORDING`); a
    message from overridden templates keeps the wording it has."""
    for old, new in TOOLS_REWORDING:
        text = text.replace(old, new)
    return text
