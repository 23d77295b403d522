"""A person's browser controls for the sorting game (`accord.games.sorting.controls`)."""

from __future__ import annotations

from typing import Any

import pytest

from accord.core.controls import play_controls
from accord.core.errors import ActionError
from accord.core.registry import make
from accord.core.spec import Request
from accord.games.sorting.commands import VERBS
from accord.games.sorting.controls import build, form


def _request(backend: str = "broadcast") -> Request:
    game = make("sorting", {"backend": backend})
    game.reset(3)
    return game.pending()[0]


def test_the_sorting_game_declares_its_controls() -> None:
    controls = play_controls("sorting-v3")
    assert controls is not None and controls.build is build


@pytest.mark.parametrize("backend", ["broadcast", "p2p", "kv"])
def test_the_form_lists_the_backends_commands_and_the_own_slice(backend: str) -> None:
    req = _request(backend)
    shown = form(req)
    assert [c["verb"] for c in shown["commands"]] == list(VERBS[backend])  # type: ignore[index]
    assert all(c["help"] for c in shown["commands"])
    assert shown["xs"] == req.info["xs"] and shown["submit_len"] == req.info["submit_len"]
    assert req.seat not in shown["agents"]


def test_commands_become_the_fenced_blocks_a_model_writes() -> None:
    req = _request()
    action = build(
        req,
        {
            "commands": [
                {"verb": "broadcast_message", "text": " my numbers are 1 2 3 "},
                {"verb": "submit_result", "text": "3 1, 2"},
                {"verb": "wait"},
            ]
        },
    )
    assert action["commands"] == [
        "broadcast_message my numbers are 1 2 3",
        "submit_result [3, 1, 2]",
        "wait",
    ]


def test_the_key_value_store_and_direct_messages() -> None:
    kv = build(
        _request("kv"),
        {"commands": [{"verb": "write_file", "key": "a1", "value": "1 2\n3\n"}]},
    )
    assert kv["commands"] == ["write_file a1\n1 2\n3"]
    p2p = _request("p2p")
    to = form(p2p)["agents"][0]
    sent = build(p2p, {"commands": [{"verb": "send_message", "to": to, "text": "hi"}]})
    assert sent["commands"] == [f"send_message {to} hi"]


@pytest.mark.parametrize(
    ("backend", "command", "needle"),
    [
        ("broadcast", {"verb": "rm"}, "pick a command"),
        ("broadcast", {"verb": "send_message", "text": "x"}, "pick a command"),
        ("broadcast", {"verb": "broadcast_message", "text": " "}, "write the message"),
        ("broadcast", {"verb": "broadcast_message", "text": "a\nwait"}, "starts with the command"),
        ("broadcast", {"verb": "submit_result", "text": "one two"}, "list of integers"),
        ("broadcast", {"verb": "broadcast_message", "text": "```x```"}, "may not contain"),
        ("p2p", {"verb": "send_message", "to": 99, "text": "hi"}, "who to send it to"),
        ("kv", {"verb": "read_file", "key": ""}, "write the key"),
        ("kv", {"verb": "read_file", "key": "a b"}, "one word"),
        ("kv", {"verb": "write_file", "key": "a", "value": ""}, "write the value"),
    ],
)
def test_a_command_the_game_would_refuse_is_caught_as_typed(
    backend: str, command: dict[str, Any], needle: str
) -> None:
    with pytest.raises(ActionError, match=needle):
        build(_request(backend), {"commands": [command]})


def test_a_turn_needs_a_command() -> None:
    with pytest.raises(ActionError, match="at least one command"):
        build(_request(), {"commands": []})
