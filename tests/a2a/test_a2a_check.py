"""`accord agent check --protocol a2a` against the example A2A agent and broken ones."""

from __future__ import annotations

import sys

from typer.testing import CliRunner

from accord.cli.main import app
from accord.remote.spec import RemoteSeatSpec
from accord.testing.a2a_check import POINTS, check_a2a_agent
from accord.testing.agent_check import FAIL, PASS, UNTESTED


def test_the_example_a2a_agent_passes_every_point(a2a) -> None:
    done = CliRunner().invoke(
        app,
        ["agent", "check", "--protocol", "a2a", "--command", a2a.example_command(),
         "--deadline", "20"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "3 of 3 games failed no point" in done.output
    for point in POINTS:
        assert done.output.count(point) == 3, point


async def test_a_no_show_passes_no_point(a2a) -> None:
    remote = RemoteSeatSpec(
        command=f"{sys.executable} -c 'import threading; threading.Event().wait()'",
        protocol="a2a",
        join_s=1,
    )
    (result,) = await check_a2a_agent(remote, games=("negotiation",))
    assert not any(v == PASS for v, _ in result.points.values()), result.points
    for point in ("refuses a wrong token", "respects deadlines", "handles an error reply"):
        assert result.points[point][0] == UNTESTED, point
        assert result.points[point][1].startswith("not exercised")


async def test_a_late_agent_fails_respects_deadlines(a2a) -> None:
    remote = RemoteSeatSpec(command=a2a.broken_command("slow"), protocol="a2a", deadline_s=1)
    (result,) = await check_a2a_agent(remote, games=("negotiation",))
    assert result.points["joins"][0] == PASS
    assert result.points["refuses a wrong token"][0] == PASS
    verdict, why = result.points["respects deadlines"]
    assert verdict == FAIL and why.startswith("missed deadline")
    assert result.points["game complete"][0] == FAIL


async def test_an_agent_that_ignores_the_token_fails_that_point(a2a, tmp_path) -> None:
    script = tmp_path / "lax.py"
    script.write_text(
        "import sys, os\n"
        f"sys.path.insert(0, {str(a2a.example_dir())!r})\n"
        "import agent\n"
        "async def let_all_in(self, scope, receive, send):\n"
        "    await self.app(scope, receive, send)\n"
        "agent.RequireToken.__call__ = let_all_in\n"
        "agent.main()\n"
    )
    remote = RemoteSeatSpec(command=f"{sys.executable} {script}", protocol="a2a")
    (result,) = await check_a2a_agent(remote, games=("negotiation",))
    verdict, why = result.points["refuses a wrong token"]
    assert verdict == FAIL and "accepted a call with a wrong token" in why
    assert result.points["game complete"][0] == PASS


def test_a2a_check_bad_input_gets_one_line_and_exit_2() -> None:
    runner = CliRunner()
    for args, says in (
        (["agent", "check", "--protocol", "grpc", "--command", "true"], "--protocol 'grpc'"),
        (["agent", "check", "--token-env", "X", "--command", "true"], "--token-env goes with"),
        (["agent", "check", "--protocol", "a2a", "ftp://x"], "must start with http://"),
    ):
        done = runner.invoke(app, args)
        assert done.exit_code == 2, done.output
        assert says in done.output


async def test_an_a2a_agent_joined_by_url_is_checked_with_its_token(a2a, monkeypatch) -> None:
    monkeypatch.setenv("CHECKED_AGENT_TOKEN", "checked-agent-token-41d2")
    async with a2a.agent_by_hand("checked-agent-token-41d2") as url:
        remote = RemoteSeatSpec(a2a=url, token_env="CHECKED_AGENT_TOKEN", deadline_s=20)
        (result,) = await check_a2a_agent(remote, games=("sorting",))
    assert result.passed, result.points
    assert set(result.points) == set(POINTS)
