"""The pre-game context check grows the longest conversation as a real model would: every
earlier reply as long as the game's usual reply (a stand-in's short replies could fit where a
real model's do not), and room for the reply asked for at its cap. It refuses what cannot fit
so, and warns when only replies running to the cap would overflow. The server is faked: it
counts a filler word as one token, other text at four characters a token, and refuses what
does not fit its context as llama.cpp does."""

from __future__ import annotations

from typing import Any

import pytest

from accord.core.errors import AccordWarning, ConfigError
from accord.core.registry import game_class
from accord.runner import server_check
from accord.runner.server_check import check_server_context, grown, worst_case
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


def test_grown_keeps_longer_replies_and_fills_shorter_ones() -> None:
    long_reply = "x" * 400
    prompt = [
        {"role": "system", "content": "rules"},
        {"role": "assistant", "content": "short"},
        {"role": "user", "content": "more"},
        {"role": "assistant", "content": long_reply},
    ]
    out = grown(prompt, 50, 200)
    assert [m["role"] for m in out] == ["system", "assistant", "user", "assistant", "user"]
    assert _tokens([out[1]]) - 4 == 50, "a short reply grows to the usual length"
    assert out[3]["content"] == long_reply, "a reply longer than usual is kept"
    assert _tokens([out[4]]) - 4 == 200, "room for the reply asked for, at the cap"


def _usual_and_worst(server: FakeServer) -> tuple[int, int]:
    """What the check sends for `_specs()` (the usual growth) and the same at its worst."""
    server.n_ctx = 10**9
    with _no_warning():
        check_server_context(_specs())
    sent, worst = server.sent  # the usual growth, then (no size said) the worst case
    assert worst == worst_case([m for m in sent if m["role"] != "user" or m is not sent[-1]], 512)
    server.sent.clear()
    cap = game_class("negotiation").reply_tokens
    earlier = game_class("negotiation").expected_reply_tokens
    replies = sum(1 for m in sent if m["role"] == "assistant")
    assert replies >= 2
    usual = _tokens(sent)
    return usual, usual + replies * (cap - earlier)


class _no_warning:
    def __enter__(self) -> None:
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error", AccordWarning)

    def __exit__(self, *exc: object) -> None:
        self._catch.__exit__(*exc)


def test_a_conversation_too_long_even_with_usual_replies_is_refused(server: FakeServer) -> None:
    usual, _ = _usual_and_worst(server)
    server.n_ctx = usual - 1
    with pytest.raises(ConfigError) as caught:
        check_server_context(_specs())
    line = str(caught.value)
    assert "\n" not in line
    assert f"the server's context is {usual - 1} tokens" in line
    assert "start the server with a larger context" in line
    assert "max_tokens (512)" in line and "the game's usual reply" in line
    fits = int(line.split("-M max_tokens=")[-1].split()[0])
    # The cap it names does fit: checking again with it passes, a larger one does not.
    with pytest.warns(AccordWarning, match="if its 4 earlier replies all ran to max_tokens"):
        check_server_context(_specs(max_tokens=fits))
    with pytest.raises(ConfigError):
        check_server_context(_specs(max_tokens=fits + 5))


def test_a_conversation_that_fits_only_with_usual_replies_is_played_with_a_warning(
    server: FakeServer,
) -> None:
    usual, worst = _usual_and_worst(server)
    assert worst > usual
    server.n_ctx = (usual + worst) // 2
    with pytest.warns(AccordWarning) as caught:
        check_server_context(_specs())
    (warning,) = caught
    text = str(warning.message)
    assert f"takes {usual} of the server's {server.n_ctx} tokens" in text
    assert "max_tokens (512)" in text
    assert "fails with the server's reason" in text


def test_a_large_context_passes(server: FakeServer) -> None:
    _, worst = _usual_and_worst(server)
    server.n_ctx = worst
    with _no_warning():
        check_server_context(_specs())
    assert len(server.sent) == 2, "the usual growth, then the worst case: both fit"
