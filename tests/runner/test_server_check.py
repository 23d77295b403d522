"""The pre-game context check takes the longest conversation at its worst: every earlier reply
in it as long as the reply cap allows (a stand-in's short replies could fit where a real
model's do not). The server is faked: it counts a filler word as one token, other text at
four characters a token, and refuses what does not fit its context as llama.cpp does."""

from __future__ import annotations

from typing import Any

import pytest

from accord.core.errors import ConfigError
from accord.runner import server_check
from accord.runner.server_check import check_server_context, worst_case
from accord.runner.specs import AgentSpec, GameSpec

URL = "http://127.0.0.1:9/v1"


def _tokens(messages: list[dict[str, str]]) -> int:
    text = "".join(m["content"] for m in messages)
    return text.count(" ok") + len(text.replace(" ok", "")) // 4 + 4 * len(messages)


class FakeServer:
    """A server of `n_ctx` tokens that does not report its size (llama-cpp-python)."""

    def __init__(self, n_ctx: int) -> None:
        self.n_ctx = n_ctx
        self.sent: list[list[dict[str, str]]] = []

    def measure(
        self, base_url: str, model: str, messages: list[dict[str, str]], **_: Any
    ) -> tuple[int | None, int | None]:
        assert (base_url, model) == (URL, "q")
        self.sent.append(messages)
        asked = _tokens(messages)
        return (asked, self.n_ctx) if asked > self.n_ctx else (asked, None)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    fake = FakeServer(2048)
    monkeypatch.setattr(server_check, "reported_context", lambda *a, **k: None)
    monkeypatch.setattr(server_check, "measure_prompt", fake.measure)
    return fake


def _specs(max_tokens: int | None = None) -> list[GameSpec]:
    seat = AgentSpec(model="openai-compatible/q", max_tokens=max_tokens, options={"base_url": URL})
    return [
        GameSpec(
            trace_id="g0",
            game="negotiation",
            seed=0,
            options={"rounds": 2, "talk_turns": 1},
            agents=[seat, seat],
        )
    ]


def test_worst_case_fills_every_reply_and_leaves_room_for_the_next() -> None:
    prompt = [
        {"role": "system", "content": "rules"},
        {"role": "assistant", "content": "short"},
        {"role": "user", "content": "more"},
    ]
    worst = worst_case(prompt, 10)
    assert [m["role"] for m in worst] == ["system", "assistant", "user", "user"]
    assert worst[0] == prompt[0] and worst[2] == prompt[2]
    assert _tokens([worst[1]]) - 4 == 10 and _tokens([worst[3]]) - 4 == 10


def test_a_conversation_that_fits_only_with_short_replies_is_refused(server: FakeServer) -> None:
    with pytest.raises(ConfigError) as caught:
        check_server_context(_specs())
    (sent,) = server.sent
    stand_in = [m for m in sent if m["role"] != "assistant"][:-1]
    assert _tokens(stand_in) < 2048 - 512, "the stand-in's own conversation had room"
    line = str(caught.value)
    assert "\n" not in line
    assert "the server's context is 2048 tokens" in line
    assert "start the server with a larger context" in line
    assert "max_tokens (512)" in line
    fits = int(line.split("-M max_tokens=")[-1].split()[0])
    # The cap it names does fit: checking again with it passes, one more token does not.
    server.sent.clear()
    check_server_context(_specs(max_tokens=fits))
    with pytest.raises(ConfigError):
        check_server_context(_specs(max_tokens=fits + 5))


def test_a_large_context_passes(server: FakeServer) -> None:
    server.n_ctx = 8192
    check_server_context(_specs())
    assert len(server.sent) == 1
