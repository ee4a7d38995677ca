"""What the RoPE lesson quotes beside its figures, measured: each function returns the numbers one part's caption,
table and checks state, from the same ``posviz.rope`` calls that part's figure draws (docs/FORMULAS.md §1).

numpy only; every argument is checked (a ``ValueError`` names the parameter, its value and the valid range) and
sizes are capped at the lesson's largest settings. Results are plain floats, ints, strings and dicts, small
enough for the page's cache.
"""

from __future__ import annotations

import numpy as np

from posviz import rope
from posviz._validate import check_choice, check_float, check_int

MAX_POSITION = 8192  # the lesson's positions m, n, shifts c and positions shown N
NORM_SPAN = 2048  # relative_checks: the norm drift is measured over the first positions, at most this many
F32_POSITIONS = (1e3, 1e4, 1e5, 1e6)  # float32_quotes: the positions the float32 pitfall quotes (drawn there too)
MAX_TRAIN_LENGTH = 131072  # base_summary: L up to 2^17 keeps b* below 1e12 at every d
# real models' bases beside the b* of their training length (head dim 128; presets "Llama 3 8B", "Code Llama 7B")
MODEL_BASES = (("Llama 3", 500_000.0, 8192), ("Code Llama", 1_000_000.0, 16384))
ROLES = ("turns", "under a quarter turn", "not rotated")


def relative_checks(dim: int = 64, base: float = 10000.0, seed: int = 0, layout: str = "interleaved", m: int = 5,
                    n: int = 2, c: int = 4, n_positions: int = 256) -> dict[str, float]:
    """The score of seeded q and k at (m, n), at (m + c, n + c) and swapped (n, m), with ``layout`` and with the
    buggy "mixed" one; ‖q‖, ‖R_m q‖/‖q‖ and the largest |‖R_m q‖/‖q‖ − 1| over the first min(N, 2048) positions.
    A rotation keeps norms and ⟨R_m q, R_n k⟩ = qᵀR_(n−m)k, so "s" equals "s_shift" (docs/FORMULAS.md §1.1, §1.2).
    """
    layout = check_choice("layout", layout, rope.LAYOUTS)
    m, n, c = (check_int(name, v, 0, MAX_POSITION) for name, v in (("m", m), ("n", n), ("c", c)))
    n_positions = check_int("n_positions", n_positions, 1, MAX_POSITION)
    q, k = rope.sample_qk(dim, seed)
    span = list(range(min(n_positions, NORM_SPAN)))
    out = {"norm": float((q**2).sum() ** 0.5), "s_swap": rope.score(q, k, n, m, base, layout)}
    for prefix, how in (("", layout), ("mixed_", "mixed")):
        out[prefix + "drift"] = float(abs(rope.norm_ratio(q, span, base, how) - 1).max())
        out[prefix + "s"] = rope.score(q, k, m, n, base, how)
        out[prefix + "s_shift"] = rope.score(q, k, m + c, n + c, base, how)
        out[prefix + "ratio"] = float(rope.norm_ratio(q, [m], base, how)[0])
    return out


def additive_summary(n_positions: int = 64, dim: int = 64, base: float = 10000.0, seed: int = 0,
                     tokens: str = "same", weights: str = "random") -> dict:
    """Per term of an additive code's score (x_m + p_m)ᵀ A (x_n + p_n) (Vaswani et al. 2017, §3.5): its RMS, the
    RMS left after each diagonal's mean (``rope.off_offset_residual``) and what it depends on
    (``rope.dependence``); and how closely the four terms sum to the full score ("sum_error", "scale")."""
    dim = check_int("dim", dim, 2, rope.MAX_D_MODEL, even=True)
    terms = rope.additive_score_terms(n_positions, dim, base, seed, tokens, weights)
    out: dict = {name: {"rms": float(np.sqrt(np.mean(z**2))), "res": rope.off_offset_residual(z),
                        "dep": rope.dependence(z)} for name, z in terms.items()}
    total = sum(terms[t] for t in rope.ADDITIVE_TERMS)
    out["sum_error"] = float(np.abs(total - terms["full"]).max())
    out["scale"] = float(np.abs(terms["full"]).max())
    return out


def derivation_summary(dim: int = 64, base: float = 10000.0, seed: int = 0, m: int = 5, n: int = 2,
                       c: int = 4) -> dict[str, float]:
    """``rope.derivation_checks`` for the seeded q and k: the score written three ways, shifted by c, and the
    errors of R_mᵀR_n = R_(n−m) and of rotation = multiplication by e^(jmθ_i) (RoFormer §3.2; docs/FORMULAS.md
    §1.1)."""
    m, n, c = (check_int(name, v, 0, MAX_POSITION) for name, v in (("m", m), ("n", n), ("c", c)))
    q, k = rope.sample_qk(dim, seed)
    return rope.derivation_checks(q, k, m, n, c, base)


def together_ends(dim: int = 64, base: float = 10000.0, seed: int = 0, layout: str = "interleaved", m: int = 5,
                  n: int = 2, pair: int = 0, c_max: float = 24.0) -> dict:
    """The first and last frame of q at m + c and k at n + c, c from 0 to c_max (``rope.qk_pairs``): the whole
    score, pair i's angle k → q and its share of the score at both ends, θ_i and the turn c_max·θ_i. Shifting both
    positions keeps the score and every angle (docs/FORMULAS.md §1.1)."""
    layout = check_choice("layout", layout, rope.LAYOUTS)
    m, n = (check_int(name, v, 0, MAX_POSITION) for name, v in (("m", m), ("n", n)))
    c_max = check_float("c_max", c_max, 0.0, 1e6, lo_open=True)
    q, k = rope.sample_qk(dim, seed)
    pair = check_int("pair", pair, 0, q.size // 2 - 1)
    ends = rope.qk_pairs(q, k, [m, m + c_max], [n, n + c_max], base, layout)
    theta = float(rope.inv_freq(q.size, base)[pair])
    return {"score": ends["score"].sum(axis=1).tolist(), "angle": ends["angle"][:, pair].tolist(),
            "share": ends["score"][:, pair].tolist(), "theta": theta, "turned": c_max * theta}


def left_right_offset(dim: int = 64, max_offset: int = 64) -> int:
    """The largest offset Δ ≤ max_offset that ``rope.left_right_curves`` draws at head dim d: its 2Δ + 1
    offsets × (d/2 + 1) pairs stay within ``rope.MAX_QK_CELLS``."""
    dim = check_int("dim", dim, 2, rope.MAX_DIM, even=True)
    max_offset = check_int("max_offset", max_offset, 1, rope.MAX_OFFSET)
    return min(max_offset, rope.MAX_QK_CELLS // (dim // 2 + 1) // 2 - 1)


def left_right_summary(dim: int = 64, base: float = 10000.0, max_offset: int = 64, c: int = 4,
                       seed: int = 0) -> dict:
    """How far each curve of ``rope.left_right_curves`` is from its mirror, max |S(Δ) − S(−Δ)|, and how far
    moving the query from Δ to Δ + c moves RoPE's curve and the absolute code's (docs/FORMULAS.md §1.1: RoPE's
    score is a function of m − n alone; the sine term makes it direction-aware for q ≠ k)."""
    cur = rope.left_right_curves(dim, base, max_offset, c, seed)
    return {"mirror": {k: float(np.abs(v - v[::-1]).max()) for k, v in cur.items() if k != "deltas"},
            "rope_anchor": float(np.abs(cur["rope_a"] - cur["rope_ac"]).max()),
            "abs_anchor": float(np.abs(cur["abs_a"] - cur["abs_ac"]).max())}


def rotated_pairs(dim: int = 64, share: float = 0.75) -> tuple[int, float]:
    """The pairs a variant rotates when a share of the head's d channels rotates, at least one (the rotated width
    is even), and the exact fraction 2·pairs/d the math then uses (docs/FORMULAS.md §1.5)."""
    dim = check_int("dim", dim, 2, rope.MAX_DIM, even=True)
    share = check_float("share", share, 0.0, 1.0, lo_open=True)
    pairs = max(1, round(dim * share / 2))
    return pairs, 2 * pairs / dim


def pair_roles_settings(dim: int = 64, *, share: float = 0.75) -> dict[str, float]:
    """The "which pairs matter" figure's settings at head size d for a rotated share of the head: d and the exact
    fraction 2·pairs/d that share rotates (``rotated_pairs``), as the page sets both from its d slider."""
    return {"dim": check_int("dim", dim, 2, rope.MAX_DIM, even=True), "fraction": rotated_pairs(dim, share)[1]}


def derivation_settings(dim: int = 64, *, pair: int = 0) -> dict[str, int]:
    """The derivation figure's settings at head size d: d, and the drawn pair kept among its d/2 pairs
    (min(pair, d/2 − 1)), as the page's pair slider keeps it."""
    dim = check_int("dim", dim, 2, rope.MAX_DIM, even=True)
    return {"dim": dim, "pair": min(check_int("pair", pair, 0, rope.MAX_DIM // 2 - 1), dim // 2 - 1)}


def pair_summary(dim: int = 64, base: float = 10000.0, scheme: str = "p-rope", fraction: float = 0.75,
                 context: int = 4096) -> dict:
    """How many pairs of a RoPE variant turn at least a quarter turn within the context L, fewer, or not at all
    (``rope.pair_roles``: turns = L·|θ_i|/2π), and how many turn under a quarter turn with full RoPE
    (docs/FORMULAS.md §1.5)."""
    context = check_int("context", context, 1, 10**7)
    roles = rope.pair_roles(rope.pair_frequencies(dim, base, scheme, fraction), context)
    full = rope.pair_roles(rope.inv_freq(dim, base), context)
    return {"roles": {r: int((roles == r).sum()) for r in ROLES}, "full_quarter": int((full == ROLES[1]).sum())}


def base_summary(dim: int = 64, base: float = 10000.0, train_length: int = 4096) -> dict:
    """The slowest wavelength λ_(d/2−1) = 2π·b^((d−2)/d), its turns within L, the pairs with λ_i > L, the base
    b* = (L/2π)^(d/(d−2)) whose slowest pair turns once in L (None at d = 2), the first m where Σ_i cos(mθ_i)
    turns negative (−1: never up to L; Men et al. 2024), and b* of real models' training lengths at d = 128
    (docs/FORMULAS.md §1.5)."""
    train_length = check_int("train_length", train_length, 8, MAX_TRAIN_LENGTH)
    lam = rope.wavelengths(dim, base)
    return {"slowest": float(lam[-1]), "longer": int((lam > train_length).sum()),
            "turns": train_length / float(lam[-1]),
            "b_star": rope.base_for_wavelength(dim, float(train_length)) if dim >= 4 else None,
            "negative_at": rope.first_negative_cos_sum(dim, base, train_length),
            "models": {name: rope.base_for_wavelength(128, float(length)) for name, _, length in MODEL_BASES}}


def float32_quotes(dim: int = 64, base: float = 10000.0) -> list[float]:
    """``rope.float32_error`` at the positions 10³, 10⁴, 10⁵ and 10⁶: the largest |cos, sin| error of float32
    angles m·θ_i against float64 (docs/FORMULAS.md §1.3)."""
    return [float(e) for e in rope.float32_error(list(F32_POSITIONS), dim, base)]


def decay_shape(dim: int = 64, base: float = 10000.0, max_delta: int = 1024) -> dict:
    """What the decay part says about RoFormer's bound B(Δ) and Σ_i cos(Δθ_i) for Δ = 0 .. max_delta in unit
    steps: the share of steps on which B rises, whether B is flat (d = 2), the lowest Σ cos and where
    (RoFormer §3.4.3; docs/FORMULAS.md §1.4)."""
    max_delta = check_int("max_delta", max_delta, 1, MAX_POSITION)
    deltas = np.arange(0, max_delta + 1, dtype=np.float64)
    bound = rope.decay_bound(deltas, dim, base)
    cos = rope.cos_sum(deltas, dim, base)
    steps = np.diff(bound)
    return {"rises": float((steps > 1e-12 * bound.max()).mean()), "flat": bool(np.ptp(bound) <= 1e-12 * bound.max()),
            "cos_min": float(cos.min()), "cos_at": int(np.argmin(cos))}
