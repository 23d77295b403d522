"""A person plays the calendar game with short commands (`accord play calendar`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.errors import ActionError
from accord.core.registry import make
from accord.games.calendar.human import human_adapter


def first_request():  # type: ignore[no-untyped-def]
    game = make("calendar", {})
    game.reset(0)
    return game.pending()[0]


def test_commands_become_the_llm_reply_format() -> None:
    req = first_request()
    action = human_adapter(req, "dm 1 can we meet at slot 2?; dm 2 and you?")
    assert [a["type"] for a in action["actions"]] == ["dm", "dm"]
    assert action["actions"][0]["content"] == "can we meet at slot 2?"
    assert human_adapter(req, "pass")["actions"] == []
    # The default game has DMs only: a group message gets the parser's own explanation.
    with pytest.raises(ActionError, match="not available in this game"):
        human_adapter(req, "all hello everyone")


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("dance", "unknown command"),
        ("dm x hi", "must be a number"),
        ("schedule 1", "meeting and a slot"),
        ("move 3 1 2", "item, two slots and a reason"),
        ("", "type a command"),
    ],
)
def test_bad_commands_are_explained(line: str, needle: str) -> None:
    with pytest.raises(ActionError) as exc:
        human_adapter(first_request(), line)
    assert needle in str(exc.value)


def test_play_calendar_from_the_terminal(tmp_path: Path) -> None:
    # Pass every turn: the game must still run to its end and save a trace.
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        app,
        [
            "play",
            "calendar",
            "--against",
            "oracle-follower",
            "-o",
            "num_agents=2",
            "-o",
            "num_meetings=1",
            "--out",
            str(tmp_path),
        ],
        input="pass\n" * 60,
    )
    assert result.exit_code == 0, result.output
    (path,) = (tmp_path / "traces").glob("*.json")
    trace = json.loads(path.read_text())
    assert trace["seats"][0]["agent"] == "human" and trace["status"] == "complete"


def _outcome(req, line: str) -> str:  # type: ignore[no-untyped-def]
    try:
        return json.dumps(human_adapter(req, line), sort_keys=True)
    except ActionError as exc:
        return f"refused: {exc}"


def test_a_meeting_may_be_written_as_the_briefing_writes_it() -> None:
    """The briefing says 'M0'; `schedule M0 1` means what `schedule 0 1` means."""
    req = first_request()
    assert "Meeting M" in req.observation
    for meeting in (0, 1):
        assert _outcome(req, f"schedule M{meeting} 1") == _outcome(req, f"schedule {meeting} 1")
        assert "must be a number" not in _outcome(req, f"schedule m{meeting} 1")
    assert "must be a number" in _outcome(req, "schedule Mx 1")
