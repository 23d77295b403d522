"""Numbers a paper states in its text, beside ours (`accord.reproduce.stated`)."""

from __future__ import annotations

import pytest

from accord.reproduce.compare import TEXT, Observation, observation
from accord.reproduce.published import StatedResult
from accord.reproduce.stated import compare_stated, published_value


def _obs(models: list[str], ratio: float, talk: bool, efficiency: float) -> Observation:
    ident = {"models": models, "ratio": ratio, "cheap_talk": talk, "selfplay": len(models) == 1}
    return observation(TEXT, ident, {"efficiency": efficiency})


OBS = [
    _obs(["openai/gpt-5-mini-2025-08-07"], 0.5, True, 0.60),
    _obs(["openai/gpt-5-mini-2025-08-07"], 0.5, True, 0.66),
    _obs(["openai/gpt-5-mini-2025-08-07"], 0.5, False, 0.20),
    _obs(["a/x", "openai/gpt-5-mini-2025-08-07"], 0.5, True, 0.90),
    _obs(["a/x"], 1.0, True, 0.10),
]


def _result(match: dict[str, object], value: float = 63.0) -> StatedResult:
    return StatedResult(
        id="r", where="§5.1", what="w", value=value, percent=True, key="efficiency", match=match
    )


def test_only_the_matching_games_enter_our_value() -> None:
    (talk,) = compare_stated(
        [_result({"cheap_talk": True, "selfplay": True, "ratio": 0.5})], OBS, same_models=True
    )
    assert talk.ours is not None and talk.ours.n == 2
    assert talk.ours.mean == pytest.approx(0.63) and talk.inside is True
    (notalk,) = compare_stated([_result({"cheap_talk": False})], OBS, same_models=True)
    assert notalk.ours is not None and notalk.ours.n == 1 and notalk.inside is False
    # `model`: any game with that model in a seat (behind a provider prefix); `models`: the pair.
    (anyseat,) = compare_stated(
        [_result({"model": "gpt-5-mini-2025-08-07"})], OBS, same_models=True
    )
    assert anyseat.ours is not None and anyseat.ours.n == 4
    pair = _result({"models": ["gpt-5-mini-2025-08-07", "a/x"]})
    assert compare_stated([pair], OBS, same_models=True)[0].ours.n == 1  # type: ignore[union-attr]


def test_other_models_are_shape_only_and_reasons_have_no_value() -> None:
    (shape,) = compare_stated([_result({"ratio": 0.5})], OBS, same_models=False)
    assert shape.ours is not None and shape.inside is None
    why = StatedResult(
        id="j", where="§5.6", what="judge", value=41.7, percent=True, not_reproduced="a judge"
    )
    (judged,) = compare_stated([why], OBS, same_models=True)
    assert (
        judged.ours is None and judged.inside is None and judged.published == pytest.approx(0.417)
    )


def test_a_count_of_n_is_compared_as_a_share_and_one_of_key_or_reason_is_required() -> None:
    share = StatedResult(id="s", where="G.1", what="full", value=358, of=630, key="k")
    assert published_value(share) == pytest.approx((358 / 630, 0.5 / 630))
    with pytest.raises(ValueError, match="exactly one of key and not_reproduced"):
        StatedResult(id="x", where="§5", what="w", value=1.0)
