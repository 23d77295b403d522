"""What a finished negotiation game reports: metrics, final state and one row per seat
(seed 004 §4.2; every process metric of `metrics.game_metrics` under ``metrics.detail``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.core.game import GameResult
from accord.games.negotiation.config import NegotiationConfig
from accord.games.negotiation.metrics import game_metrics
from accord.games.negotiation.record import RoundRecord

SEAT_NAMES = ("A", "B")


def game_result(
    cfg: NegotiationConfig,
    ratio: float,
    records: Sequence[RoundRecord],
    totals: Sequence[int],
    reflections: Sequence[str | None],
) -> GameResult:
    """The `GameResult` of a game played under `cfg` whose rounds are `records`."""
    gm = game_metrics(
        records,
        rotating=cfg.projects == "rotating",
        shifting=cfg.partner == "shifting",
        supply=cfg.market.supply,
    )
    detail = gm.as_dict()
    metrics: dict[str, Any] = {
        "overdraw_rate": gm.rates["overdraw"].value,
        "efficiency": gm.efficiency.value,
        "optimum_rate": gm.rates["optimum"].value,
        "early_decision_rate": gm.rates["early_decision"].value,
        "joint_reward": sum(r.joint_reward for r in records),
        "oracle_total": sum(r.oracle_max for r in records),
        "fallback_rounds": gm.fallback_rounds,
        "detail": detail,
    }
    final_state = {
        "ratio": ratio,
        "rounds": [r.model_dump() for r in records],
        "totals": list(totals),
        "reflections": list(reflections),
    }
    seat_rows = []
    for seat in (0, 1):
        valid = [r for r in records if not any(r.fallback)]
        seat_rows.append(
            {
                "seat": seat,
                "name": SEAT_NAMES[seat],
                "ratio": ratio,
                "total_reward": totals[seat],
                "mean_reward": totals[seat] / max(1, len(records)),
                "early_decision_rate": sum(r.early_decision[seat] for r in records)
                / max(1, len(records)),
                "fallback_rounds": sum(r.fallback[seat] for r in records),
                "share_of_joint": (
                    sum(r.rewards[seat] for r in valid) / max(1, sum(r.joint_reward for r in valid))
                ),
            }
        )
    return GameResult(final_state=final_state, metrics=metrics, seat_rows=seat_rows)
