"""The numbers a paper states in its text, beside ours.

Each stated result (``results`` in ``data/<paper>.yaml``) either names the value of ours it is
set beside (``key``: a value of the kit's `TEXT` observations; ``match``: which games enter it)
or says why the kit cannot reproduce it. Ours is the mean over the matching games with its 95%
percentile-bootstrap CI (games are the resampling unit, as in every table). A value is compared
(inside the CI or not) only when the reproduction played exactly the paper's models; otherwise
it stands beside the paper's for its shape.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from accord.analysis.stats import Estimate, bootstrap_mean
from accord.reproduce.compare import TEXT, Observation, half_digit, model_matches, models_match
from accord.reproduce.published import StatedResult


@dataclass
class StatedComparison:
    """One stated result beside ours."""

    result: StatedResult
    published: float
    """The stated value in our units (a fraction for percentages and 'N of M' counts)."""
    ours: Estimate | None
    """Our value (None when the kit cannot reproduce it)."""
    inside: bool | None
    """Published value within our CI (None: not compared by value)."""


def _matches(identity: Mapping[str, Any], match: Mapping[str, Any]) -> bool:
    for key, want in match.items():
        if key == "model":  # any seat plays this model
            have = identity.get("models", identity.get("model"))
            names = list(have) if isinstance(have, tuple | list) else [have]
            if not any(isinstance(n, str) and model_matches(n, str(want)) for n in names):
                return False
        elif key == "models":
            have = identity.get("models")
            if not isinstance(have, tuple | list) or not models_match(list(have), list(want)):
                return False
        elif key not in identity:
            return False
        elif isinstance(want, bool) or isinstance(identity[key], bool):
            if identity[key] is not want:
                return False
        elif isinstance(want, int | float) and isinstance(identity[key], int | float):
            if not math.isclose(float(identity[key]), float(want)):
                return False
        elif str(identity[key]) != str(want):
            return False
    return True


def published_value(result: StatedResult) -> tuple[float, float]:
    """The stated value in our units and the rounding tolerance around it."""
    if result.of:
        return result.value / result.of, 0.5 / result.of
    scale = 0.01 if result.percent else 1.0
    return result.value * scale, half_digit(result.value) * scale


def compare_stated(
    results: Iterable[StatedResult], observations: Iterable[Observation], *, same_models: bool
) -> list[StatedComparison]:
    """Every stated result beside our value (module docstring)."""
    text = [o for o in observations if o.table == TEXT]
    out = []
    for result in results:
        value, tol = published_value(result)
        if result.key is None:
            out.append(StatedComparison(result, value, None, None))
            continue
        vals = [
            v
            for o in text
            if _matches(dict(o.identity), result.match)
            and (v := o.values.get(result.key)) is not None
        ]
        est = bootstrap_mean(vals)
        inside = None
        if same_models and est.n and not math.isnan(est.mean):
            inside = est.lo - tol - 1e-12 <= value <= est.hi + tol + 1e-12
        out.append(StatedComparison(result, value, est, inside))
    return out
