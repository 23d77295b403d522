"""The sorting game's commands as tools, for a seat that asks for them (sorting/tools.py)."""

from __future__ import annotations

import json

import pytest

from accord.agents.tools import tool_set
from accord.core.errors import ActionError
from accord.core.registry import make
from accord.core.spec import Request


def _request(backend: str) -> Request:
    game = make("sorting-v3", {"backend": backend, "n": 3})
    game.reset(1)
    return game.pending()[0]


def test_each_backend_offers_its_own_commands_and_only_on_explicit_request() -> None:
    kv = _request("kv").spec
    found = tool_set(kv, explicit=True)
    assert found is not None and found.batch
    assert found.names == ["list_files", "read_file", "write_file", "delete_file", "wait",
                           "submit_result"]  # fmt: skip
    assert tool_set(kv, explicit=False) is None  # auto: the paper's fenced blocks
    assert "send_message" in tool_set(_request("p2p").spec, explicit=True).names  # type: ignore[union-attr]


def test_calls_become_the_fenced_blocks_the_parser_reads_in_order() -> None:
    request = _request("kv")
    tools = tool_set(request.spec)
    assert tools is not None
    calls = [
        ("write_file", json.dumps({"key": "part0", "value": "1 5 9"})),
        ("read_file", json.dumps({"key": "part1"})),
        ("submit_result", json.dumps({"values": [1, 5, 9]})),
    ]
    text = tools.to_reply("", calls)
    assert text == (
        "```\nwrite_file part0\n1 5 9\n```\n```\nread_file part1\n```\n"
        "```\nsubmit_result [1, 5, 9]\n```"
    )
    action = request.spec.parse(text)
    assert action["commands"] == [
        "write_file part0\n1 5 9",
        "read_file part1",
        "submit_result [1, 5, 9]",
    ]


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (("send_message", "{}"), "unknown tool 'send_message'"),
        (("submit_result", json.dumps({"values": []})), "non-empty list of integers"),
        (("read_file", json.dumps({"key": " "})), "give 'key'"),
        (("write_file", "[1, 2]"), "not a JSON object"),
    ],
)
def test_a_bad_call_gets_one_error_for_the_model(call: tuple[str, str], error: str) -> None:
    tools = tool_set(_request("kv").spec)
    assert tools is not None
    with pytest.raises(ActionError, match=error):
        tools.to_reply("", [call])


def test_a_turn_without_calls_is_read_as_text() -> None:
    request = _request("broadcast")
    tools = tool_set(request.spec)
    assert tools is not None
    reply = "```\nwait\n```"
    assert tools.to_reply(reply, []) == reply
