"""Private semantic labels for errands and meetings (CalBench §3 "Private contexts", App. A.1
"Private label hydration" and "Label bank construction").

Every errand and every incoming meeting carries a short natural-language description of what it
is. The description is never needed to solve the scheduling problem; it exists so that a game can
measure task-irrelevant semantic leakage. Each label belongs to one of three sensitivity tiers:

* ``sensitive``: medical, legal, financial or identity matters;
* ``neutral``: everyday logistics that are ambiguously private;
* ``public``: routine, low-stakes errands and meetings.

The bank (``data/labels.json``) is Accord's own, written by hand; it shares no text with the
paper's bank. Labels are drawn once per scenario from a stream derived from the scenario seed, so
they are stable across rounds and reruns. Hydration rules (App. A.1): an agent sees the labels of
its own errands and of the meetings it takes part in, and never any tier.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Literal, TypedDict, get_args

from pydantic import BaseModel, ConfigDict, Field

from accord.core.errors import ConfigError

if TYPE_CHECKING:
    from accord.games.calendar.scenario import Scenario

Tier = Literal["sensitive", "neutral", "public"]
"""Sensitivity tier of a private label. Kept by the harness, never shown to agents."""

TIERS: tuple[Tier, ...] = get_args(Tier)

LabelKind = Literal["errand", "meeting"]


class PrivateLabel(BaseModel):
    """A natural-language private context attached to one errand or meeting."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(min_length=1, description="What the agent sees, e.g. 'Weekly grocery run'.")
    tier: Tier = Field(description="Sensitivity tier; for leakage analysis only, never shown.")


class LabelBank(BaseModel):
    """The label bank: texts per kind (errand or meeting) and tier."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = Field(description="Schema version of the bank file.")
    tiers: tuple[Tier, ...] = Field(description="The tiers, in the order draws consider them.")
    errand: dict[Tier, tuple[str, ...]] = Field(description="Errand label texts per tier.")
    meeting: dict[Tier, tuple[str, ...]] = Field(description="Meeting label texts per tier.")

    def texts(self, kind: LabelKind) -> dict[Tier, tuple[str, ...]]:
        """The texts of one kind, per tier."""
        return self.errand if kind == "errand" else self.meeting


class VisibleLabels(TypedDict):
    """The private labels one agent may see: texts only, keyed by item id."""

    errands: dict[int, str]
    meetings: dict[int, str]


@lru_cache(maxsize=1)
def load_label_bank() -> LabelBank:
    """The packaged label bank, validated: every tier non-empty and every text unique.

    Uniqueness across the whole bank is what lets a leakage audit attribute a leaked text to
    exactly one errand or meeting.
    """
    raw = resources.files("accord.games.calendar").joinpath("data/labels.json").read_text("utf-8")
    bank = LabelBank.model_validate(json.loads(raw))
    seen: set[str] = set()
    for kind in ("errand", "meeting"):
        per_tier = bank.texts(kind)
        if set(per_tier) != set(TIERS):
            raise ConfigError(f"label bank: '{kind}' must list exactly the tiers {list(TIERS)}")
        for tier, texts in per_tier.items():
            if not texts:
                raise ConfigError(f"label bank: '{kind}.{tier}' is empty; add labels to it")
            for text in texts:
                if text in seen:
                    raise ConfigError(
                        f"label bank: duplicate label {text!r}; labels must be unique"
                    )
                seen.add(text)
    return bank


def draw_labels(rng: random.Random, kind: LabelKind, count: int) -> list[PrivateLabel]:
    """Draw `count` labels of one kind: each item picks a tier uniformly, then an unused text.

    Picking the tier first keeps the three tiers equally likely however unevenly the bank is
    filled. Texts are drawn without replacement so that labels are unique within a scenario; if a
    tier runs dry the draw moves to a tier that still has texts, and only when the whole bank is
    used up (scenarios far larger than the paper's) do the pools refill and texts repeat.
    """
    bank = load_label_bank().texts(kind)
    pools: dict[Tier, list[str]] = {}

    def refill() -> None:
        for tier in TIERS:
            pools[tier] = list(bank[tier])

    refill()
    out: list[PrivateLabel] = []
    for _ in range(count):
        tier = rng.choice(TIERS)
        if not pools[tier]:
            open_tiers = [t for t in TIERS if pools[t]]
            if not open_tiers:
                refill()
                open_tiers = list(TIERS)
            tier = rng.choice(open_tiers)
        pool = pools[tier]
        # Swap-remove keeps each draw O(1) while staying a uniform pick from the pool.
        i = rng.randrange(len(pool))
        pool[i], pool[-1] = pool[-1], pool[i]
        out.append(PrivateLabel(text=pool.pop(), tier=tier))
    return out


def visible_labels(scenario: Scenario, agent: int) -> VisibleLabels:
    """The label texts `agent` may see (App. A.1 hydration): its own errands, and the meetings
    it participates in. Other agents' errands, meetings it is not in, and all tiers stay hidden.
    """
    if not 0 <= agent < scenario.num_agents:
        raise ConfigError(
            f"agent {agent} does not exist; this scenario has agents 0..{scenario.num_agents - 1}"
        )
    errands = {item.id: item.label.text for item in scenario.calendars[agent] if item is not None}
    meetings = {m.id: m.label.text for m in scenario.meetings if agent in m.participants}
    return VisibleLabels(errands=errands, meetings=meetings)
