"""Text spaces of the PettingZoo adapter: the character set, observation values and fitting.

Games write ASCII (plus ``×``), but observations also carry what other agents said, and a
language model may say anything. A `gymnasium.spaces.Text` space must list its characters, and
a space over all of Unicode costs tens of megabytes and a fifth of a second to build per space,
so the default set covers printable ASCII, Latin-1, Latin Extended-A, punctuation, currency,
arrows, mathematical operators and box drawing; any other character in an observation is
replaced by U+FFFD. Pass ``charset=`` to the environment for another set.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import numpy as np

from accord.core.errors import ConfigError

_RANGES: tuple[tuple[int, int], ...] = (
    (0x20, 0x7E),  # printable ASCII
    (0xA0, 0x17F),  # Latin-1 Supplement, Latin Extended-A
    (0x2010, 0x205E),  # general punctuation (dashes, quotes, ellipsis)
    (0x20A0, 0x20BF),  # currency symbols
    (0x2190, 0x21FF),  # arrows
    (0x2200, 0x22FF),  # mathematical operators
    (0x2500, 0x257F),  # box drawing
)
REPLACEMENT = "\ufffd"
"""Stands in for any character of an observation that is not in the space's charset."""


def _default_charset() -> frozenset[str]:
    chars = {chr(c) for lo, hi in _RANGES for c in range(lo, hi + 1)}
    # Separators and format controls in these blocks (U+2028, bidi marks, ...) are not text.
    return frozenset({c for c in chars if c.isprintable()} | set("\t\n\r") | {REPLACEMENT})


DEFAULT_CHARSET: frozenset[str] = _default_charset()
"""Characters of the default observation and action spaces (see the module docstring)."""


class TextObservation(str):
    """An observation: a plain `str` that also carries the numpy dtype of its `Text` space.

    `pettingzoo.test.api_test` compares ``observation_space.dtype`` with ``observation.dtype``
    (a check written for array observations); a bare `str` has no dtype and fails it.
    """

    __slots__ = ()
    dtype: ClassVar[np.dtype[np.str_]] = np.dtype(np.str_)


def make_charset(charset: Iterable[str] | None) -> tuple[frozenset[str], str]:
    """The charset to use and the character that replaces anything outside it."""
    chars = DEFAULT_CHARSET if charset is None else frozenset(charset)
    if not chars or any(len(c) != 1 for c in chars):
        raise ConfigError("charset must be a non-empty string or set of single characters")
    for stand_in in (REPLACEMENT, "?"):
        if stand_in in chars:
            return chars, stand_in
    raise ConfigError(
        "charset must contain U+FFFD or '?': characters outside the charset are replaced by it"
    )


class TextFitter:
    """Makes any text a member of a `Text` space: charset-clean and within `max_length`."""

    def __init__(self, charset: frozenset[str], replacement: str, max_length: int) -> None:
        self.charset = charset
        self.replacement = replacement
        self.max_length = max_length

    def fit(self, text: str) -> tuple[TextObservation, bool]:
        """`text` made to fit, and whether it had to be shortened.

        Too long a text keeps its head (the system prompt, the task) and its tail (the latest
        news) around a marker saying how much was cut.
        """
        cut = len(text) > self.max_length
        if cut:
            text = self._shorten(text)
        if not all(c in self.charset for c in text):
            text = "".join(c if c in self.charset else self.replacement for c in text)
        return TextObservation(text), cut

    def _shorten(self, text: str) -> str:
        marker = ""
        # The marker's length depends on the number it states; two passes settle it.
        for _ in range(3):
            cut = len(text) - (self.max_length - len(marker))
            marker = f"\n[... {cut} characters cut ...]\n"
        room = self.max_length - len(marker)
        if room < 2:
            return text[: self.max_length]
        head = room // 2
        return text[:head] + marker + text[len(text) - (room - head) :]


def retry_text(error: str, hint: str) -> str:
    """The re-prompt after an invalid reply: the words `LLMAgent` sends a model on retry, so a
    policy trained here reads what a model reads when it plays through the runner."""
    msg = f"Your last reply could not be used: {error}"
    if hint:
        msg += f"\n{hint}"
    return msg + "\nPlease answer again."
