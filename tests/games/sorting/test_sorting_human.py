"""A person at the terminal plays sorting with the commands a model writes (sorting/human.py)."""

from __future__ import annotations

import pytest

from accord.core.errors import ActionError
from accord.core.gameinfo import info_for, resolve_ref
from accord.core.registry import make
from accord.core.spec import Request
from accord.games.sorting.human import human_adapter, human_help


def _request(backend: str) -> Request:
    game = make("sorting-v3", {"backend": backend, "n": 3})
    game.reset(1)
    return game.pending()[0]


def test_commands_joined_by_semicolons_become_one_fenced_block_each() -> None:
    request = _request("broadcast")
    action = human_adapter(request, "receive_messages;  broadcast_message 4 7 9 ;")
    assert action["commands"] == ["receive_messages", "broadcast_message 4 7 9"]
    assert action["text"] == "```\nreceive_messages\n```\n```\nbroadcast_message 4 7 9\n```"
    # The same action a model's reply with those blocks gives.
    assert action == request.spec.parse(action["text"])


def test_a_line_with_its_own_fences_is_parsed_as_a_model_reply() -> None:
    request = _request("kv")
    line = "```\nlist_files\n``` ```\nwait\n```"
    assert human_adapter(request, line) == request.spec.parse(line)


def test_an_empty_line_is_refused_with_the_seats_commands() -> None:
    request = _request("p2p")
    with pytest.raises(ActionError, match="send_message"):
        human_adapter(request, " ; ")
    assert "send_message" in human_help(request) and "broadcast" not in human_help(request)


def test_the_declaration_gives_the_terminal_seat() -> None:
    human = info_for("sorting").human
    assert resolve_ref(human.adapter) is human_adapter
    assert resolve_ref(human.help) is human_help
