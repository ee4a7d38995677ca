"""Mistakes of real YaRN code, kept here (and only here) so the pitfall callouts can draw the wrong beside the
right: ramp ends rounded before the division, the temperature applied to cos/sin twice over, and the two bands
swapped (docs/FORMULAS.md §5.7). Every function here is WRONG on purpose and says so in its docstring.
"""

from __future__ import annotations

import math

import numpy as np

from posviz._validate import check_float, check_int
from posviz.rotary import MAX_DIM, inv_freq
from posviz.scaling.methods import (
    MAX_BASE,
    MAX_FACTOR,
    MAX_LENGTH,
    _factor,
    get_mscale,
    pair_index,
    yarn_extrapolation_weight,
)


def numerator_rounded_yarn_bounds(dim: int, base: float, original_max_position_embeddings: int,
                                  beta_fast: float = 32.0, beta_slow: float = 1.0) -> tuple[float, float]:
    """WRONG on purpose: floor/ceil of the numerator *before* dividing by 2 ln b,
    which leaves non-integer ramp ends (d = 64, L = 2048: 8.034 and 20.140 instead of 8 and 21)."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, MAX_BASE, lo_open=True)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    beta_fast = check_float("beta_fast", beta_fast, 0.0, 1e6, lo_open=True)
    beta_slow = check_float("beta_slow", beta_slow, 0.0, 1e6, lo_open=True)
    low = math.floor(dim * math.log(L / (beta_fast * 2 * math.pi))) / (2 * math.log(base))
    high = math.ceil(dim * math.log(L / (beta_slow * 2 * math.pi))) / (2 * math.log(base))
    return float(max(low, 0)), float(min(high, dim - 1))


def numerator_rounded_yarn_inv_freq(dim: int, base: float, factor: float,
                                    original_max_position_embeddings: int, beta_fast: float = 32.0,
                                    beta_slow: float = 1.0) -> np.ndarray:
    """WRONG on purpose: YaRN frequencies with ``numerator_rounded_yarn_bounds`` (no low == high guard either)."""
    factor = _factor(factor)
    low, high = numerator_rounded_yarn_bounds(dim, base, original_max_position_embeddings, beta_fast, beta_slow)
    if high <= low:
        high = low + 0.001
    w = 1.0 - np.clip((pair_index(dim) - low) / (high - low), 0.0, 1.0)
    theta = inv_freq(dim, base)
    return theta * w + theta / factor * (1.0 - w)


def scaled_cos_sin_logit_multiplier(factor: float, mscale: float = 0.707) -> float:
    """WRONG on purpose: cos/sin scaled by ``(0.1 ln s + 1)·0.707``, so the logits get
    its square (0.815 at s = 16) instead of ``(0.1 ln s + 1)**2`` (1.631)."""
    factor = check_float("factor", factor, 0.0, MAX_FACTOR, lo_open=True)
    return (get_mscale(factor) * check_float("mscale", mscale, -1e3, 1e3)) ** 2


def inverted_yarn_inv_freq(dim: int, base: float, factor: float, original_max_position_embeddings: int,
                           beta_fast: float = 32.0, beta_slow: float = 1.0) -> np.ndarray:
    """WRONG on purpose: YaRN with the bands swapped (high frequencies interpolated, low ones kept), the
    reading several write-ups give (docs/FORMULAS.md §5.7)."""
    factor = _factor(factor)
    w = yarn_extrapolation_weight(dim, base, original_max_position_embeddings, beta_fast, beta_slow)
    theta = inv_freq(dim, base)
    return theta * (1.0 - w) + theta / factor * w
