"""Reproduction kits: one command per paper, our numbers beside the published ones.

`accord reproduce PAPER` plans the paper's grid for the chosen tables (`plan.make_plan`), plays
it as an ordinary run, and writes ``reproduction.md`` with our values, their 95% CIs and the
published values side by side (`writeup.write_reproduction`). The published numbers ship as
data (``data/<paper>.yaml``, `published.load_published`).
"""

from accord.reproduce.compare import Comparison, Observation, compare, our_rows
from accord.reproduce.plan import Plan, get_kit, kits, make_plan
from accord.reproduce.published import PAPERS, PublishedPaper, load_published

__all__ = [
    "PAPERS",
    "Comparison",
    "Observation",
    "Plan",
    "PublishedPaper",
    "compare",
    "get_kit",
    "kits",
    "load_published",
    "make_plan",
    "our_rows",
]
