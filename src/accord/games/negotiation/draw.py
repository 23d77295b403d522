"""Which scenarios and resource names a game plays, drawn from its seed (seed 004 §4, App. D.8).

Each draw uses its own named stream (`make_rng(seed, "scenario")`, `"theme"`, `"generate"`),
so changing one never shifts another.
"""

from __future__ import annotations

from accord.core.rng import derive_seed, make_rng
from accord.games.negotiation.config import NegotiationConfig
from accord.games.negotiation.pool import get_scenario, scenarios_for_ratio
from accord.games.negotiation.scenario import RESOURCES, THEMES, Scenario


def draw_scenarios(cfg: NegotiationConfig, ratio: float, seed: int) -> list[Scenario]:
    """The scenario of every round.

    Fixed projects repeat one scenario; rotating projects walk the pool of the same ratio in a
    seed-shuffled order without repeats until it is used up (or draw from the generator).
    """
    n = cfg.rounds if cfg.projects == "rotating" else 1
    if cfg.scenario is not None:
        chosen = [get_scenario(cfg.scenario)]
    elif cfg.generate:
        from accord.games.negotiation.generate import generate_scenario

        chosen = [
            generate_scenario(ratio, derive_seed(seed, "generate", i), cfg.market) for i in range(n)
        ]
    else:
        pool = list(scenarios_for_ratio(ratio))
        rng = make_rng(seed, "scenario")
        order: list[Scenario] = []
        while len(order) < n:
            batch = pool[:]
            rng.shuffle(batch)
            order += batch
        chosen = order[:n]
    return chosen if n == cfg.rounds else chosen * cfg.rounds


def draw_names(cfg: NegotiationConfig, seed: int) -> list[dict[str, str]]:
    """Themed resource names of every round (Table 7): one theme per game, or one per round
    with no theme twice in a row."""
    rng = make_rng(seed, "theme")
    themes = sorted(THEMES)
    picks: list[str] = []
    for i in range(cfg.rounds):
        if cfg.theme != "random":
            picks.append(cfg.theme)
        elif cfg.theme_per == "game" and i > 0:
            picks.append(picks[0])
        else:
            choices = [t for t in themes if not picks or t != picks[-1]]
            picks.append(rng.choice(choices))
    return [dict(zip(RESOURCES, THEMES[t], strict=True)) for t in picks]
