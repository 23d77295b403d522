"""Cross-game statistics and reports."""

from accord.analysis.stats import Estimate, bootstrap_mean

__all__ = ["Estimate", "bootstrap_mean"]
