"""How an experiment names an A2A seat, and what it refuses."""

from __future__ import annotations

import pytest

from accord.core.errors import ConfigError
from accord.core.secrets import registered_secret_envs
from accord.remote.a2a_url import same_origin
from accord.runner.specs import parse_agent


def test_a2a_seats_parse_display_and_round_trip() -> None:
    by_url = parse_agent({"agent": {"a2a": "http://127.0.0.1:9999", "token_env": "AGENT_TOK"}})
    assert by_url.remote is not None and by_url.remote.is_a2a
    assert by_url.display == "remote-a2a"
    assert "AGENT_TOK" in registered_secret_envs()
    started = parse_agent({"agent": {"command": "python agent.py", "protocol": "a2a"}})
    assert started.remote is not None and started.remote.is_a2a
    assert started.display == "cmd-agent"
    for spec in (by_url, started):
        assert parse_agent(spec.model_dump(exclude_none=True)) == spec  # a plan file
    labelled = parse_agent({"agent": {"a2a": "http://127.0.0.1:9"}, "label": "mine"})
    assert labelled.display == "mine"


def test_seats_that_do_not_use_a2a_serialize_as_before() -> None:
    for seat in ({"remote": "mcp"}, {"command": "python agent.py"}):
        spec = parse_agent({"agent": seat})
        assert spec.remote is not None and not spec.remote.is_a2a
        dumped = spec.model_dump(mode="json")["remote"]
        assert not {"a2a", "protocol", "token_env"} & set(dumped)


@pytest.mark.parametrize(
    ("seat", "says"),
    [
        ({"a2a": "ftp://x"}, "must start with http:// or https://"),
        ({"a2a": "http://user:pw@127.0.0.1:9"}, "must not hold credentials"),
        ({"a2a": "http://127.0.0.1:9/?q=1"}, "must not have a query"),
        ({"a2a": "http://127.0.0.1:99999"}, "cannot be read"),
        ({"a2a": "http://h:1", "remote": "mcp"}, "exactly one of 'remote: mcp|http' or 'command'"),
        ({"remote": "mcp", "protocol": "a2a"}, "'protocol' applies to 'command' seats only"),
        ({"command": "python a.py", "token_env": "X"}, "ACCORD_A2A_TOKEN"),
        ({"a2a": "http://h:1", "token_env": "not a name"}, "not an environment variable name"),
        ({"command": "python a.py", "protocol": "grpc"}, "protocol"),
    ],
)
def test_bad_a2a_seats_get_one_line(seat, says) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_agent({"agent": seat})
    assert says in str(caught.value)
    assert "\n" not in str(caught.value)


def test_same_origin_pins_scheme_host_and_port() -> None:
    assert same_origin("http://127.0.0.1:9/", "http://127.0.0.1:9")
    assert same_origin("http://LOCALHOST/x", "http://localhost:80")
    assert not same_origin("http://127.0.0.1:9", "http://127.0.0.1:10")
    assert not same_origin("http://127.0.0.1:9", "https://127.0.0.1:9")
    assert not same_origin("http://127.0.0.1:9", "http://evil.example:9")


def test_the_docs_a2a_experiment_is_valid(tmp_path) -> None:
    import re
    from pathlib import Path

    from accord.runner.config import expand, load_experiment

    doc = (Path(__file__).resolve().parents[2] / "docs" / "agents.md").read_text()
    section = doc[doc.index("## A2A agents") :]
    (block,) = re.findall(r"```yml\n(.*?)```", section, re.S)
    (tmp_path / "exp.yaml").write_text(block)
    specs = expand(load_experiment(tmp_path / "exp.yaml"))
    assert len(specs) == 20
    seats = {s.agents[0].display: s.agents[0].remote for s in specs}
    assert set(seats) == {"cmd-agent", "remote-a2a"}
    assert all(r is not None and r.is_a2a for r in seats.values())


def test_the_example_experiment_is_valid() -> None:
    from pathlib import Path

    from accord.runner.config import expand, load_experiment

    path = Path(__file__).resolve().parents[2] / "examples" / "a2a-agent" / "experiment.yaml"
    specs = expand(load_experiment(path))
    assert len(specs) == 9
    assert {s.game.split("-")[0] for s in specs} == {"calendar", "negotiation", "sorting"}
    assert all(s.agents[0].remote is not None and s.agents[0].remote.is_a2a for s in specs)


async def test_without_the_a2a_extra_a_seat_says_what_to_install(monkeypatch) -> None:
    import sys

    from accord.agents.a2a import A2AAgent

    monkeypatch.setitem(sys.modules, "a2a.client", None)  # as if a2a-sdk were not installed
    spec = parse_agent({"agent": {"a2a": "http://127.0.0.1:9"}}).remote
    assert spec is not None
    with pytest.raises(ConfigError, match=r"pip install 'accord\[a2a\]'"):
        await A2AAgent(spec, "negotiation-v3", session="t").start(0)
