"""Reference agents of the calendar game (CalBench §3.1, App. D).

* ``imap``: every participant sends the initiator its cost for each slot; the initiator takes
  the slot cheapest for all together (D.1);
* ``sd-map``: binary PENDING/IMPOSSIBLE feasibility with scheduling-difficulty bumping (D.2),
  walking the initiator's own feasible slots as the release's client does; ``sd-map-paper``
  walks every slot with only the responders evaluating, D.2's text read word for word;
* ``dsm-welfare`` / ``dsm-private``: satisfaction-level scores over offer sets sized by the
  offer-size utility, with the two presets of Table 9 (D.3) as the paper ran them (the
  release's client: its plan ranking, decision recipients, displacement chains and DECISION
  walk); ``dsm-welfare-release`` stops after one sub-round as that client does; the ``-v2``
  variants are the presets before issue 24, the ``-v1`` variants `calendar-v1`'s forms
  (ordered log scale, no fallback, displaced meetings' participants offered only their plans),
  and ``dsm-private-nofallback`` drops only the fallback;
* ``oracle-follower``: a test driver that schedules every meeting at the oracle's slot.

All of them play through the same requests, channels and batch validation as LLM seats, and
the four protocols send only the typed JSON messages of `messages` (App. D.4).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from accord.agents.base import Agent
from accord.games.calendar.protocols.dsm import DsmAgent
from accord.games.calendar.protocols.dsm_plans import PRESETS, PRIVATE, WELFARE, DsmParams
from accord.games.calendar.protocols.imap import ImapAgent
from accord.games.calendar.protocols.oracle_follower import OracleFollower, follow_oracle
from accord.games.calendar.protocols.sdmap import SdMapAgent

PROTOCOL_AGENTS: dict[str, Callable[[], Agent]] = {
    "imap": ImapAgent,
    "sd-map": SdMapAgent,
    "sd-map-paper": partial(SdMapAgent, walk="every"),
    **{p.name: partial(DsmAgent, p) for p in PRESETS},
}
"""The four non-LLM reference protocols of App. D, by agent spec (DSM also in its variants:
``dsm-welfare-release``, ``dsm-welfare-v2``, ``dsm-private-v2``, ``dsm-welfare-v1``,
``dsm-private-v1``, ``dsm-private-nofallback``)."""

REFERENCE_AGENTS: dict[str, Callable[[], Agent]] = {"oracle-follower": OracleFollower}
"""The test-driver team (registered with the game since the engine issue)."""

AGENTS: dict[str, Callable[[], Agent]] = {**REFERENCE_AGENTS, **PROTOCOL_AGENTS}
"""Every reference agent of the game (the ``accord.agents`` entry point of ``calendar-v2``)."""

__all__ = [
    "AGENTS",
    "PRIVATE",
    "PROTOCOL_AGENTS",
    "REFERENCE_AGENTS",
    "WELFARE",
    "DsmAgent",
    "DsmParams",
    "ImapAgent",
    "OracleFollower",
    "SdMapAgent",
    "follow_oracle",
]
