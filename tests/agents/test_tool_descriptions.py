"""Tools mode describes each tool and argument from the game's action spec; json mode's reply
schema is left exactly as it was."""

from __future__ import annotations

import json

from accord.core.tools import argument_doc, tools_from_schema
from accord.games.calendar.actions import ParseContext
from accord.games.calendar.requests import TOOL_DESCRIPTIONS, action_spec

TALK = ParseContext(
    seat=0,
    phase="CHEAP_TALK",
    num_agents=3,
    num_slots=8,
    meeting_id=2,
    is_participant=True,
    message_types=("dm", "participant_groupchat", "all_groupchat"),
)
DECIDE = ParseContext(**{**TALK.__dict__, "phase": "DECISION"})


def test_calendar_tools_carry_the_games_descriptions_and_argument_docs() -> None:
    for ctx in (TALK, DECIDE):
        spec = action_spec(ctx, [None] * 8)
        assert spec.tools is not None
        for t in spec.tools.tools:
            function = t["function"]
            assert function["description"] == TOOL_DESCRIPTIONS[function["name"]]
            for name, arg in function["parameters"]["properties"].items():
                assert arg.get("description"), (function["name"], name)
        # json mode sends the schema as it was: no description was written into it.
        assert "description" not in json.dumps(spec.schema)


def test_argument_docs_say_type_values_and_bounds() -> None:
    assert argument_doc({"type": "integer", "enum": [1, 2]}) == "integer, one of 1, 2"
    assert argument_doc({"type": "integer", "minimum": 0, "maximum": 7}) == ("integer from 0 to 7")
    assert argument_doc({"type": "string", "minLength": 1, "maxLength": 240}) == (
        "text of at most 240 characters, not empty"
    )
    assert argument_doc({"const": 3}) == "always 3"


def test_a_derived_tool_without_a_description_says_what_it_takes() -> None:
    schema = {
        "type": "object",
        "properties": {"reflection": {"type": "string", "maxLength": 600}},
        "required": ["reflection"],
    }
    tools = tools_from_schema("reflect", schema)
    assert tools is not None
    (function,) = [t["function"] for t in tools.tools]
    assert "Take the action" not in function["description"]
    assert function["parameters"]["properties"]["reflection"]["description"] == (
        "text of at most 600 characters"
    )
    assert "description" not in schema["properties"]["reflection"]  # never edited in place
