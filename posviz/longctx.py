"""Long-context methods beyond scaling the frequencies: raising the base (with its lower bound and critical
dimension), xPos, ReRoPE and leaky ReRoPE. Self-Extend, attention sinks and PoSE are in ``posviz.streams``.

Every function validates its arguments (``ValueError`` naming the parameter, its value and the valid range) and
caps its sizes. Sources: Men et al. 2024 ("Base of RoPE Bounds Context Length"), Liu et al. 2023 ("Scaling Laws
of RoPE-based Extrapolation"), Sun et al. 2022 ("A Length-Extrapolatable Transformer", xPos, as in
microsoft/torchscale), Su 2023 (ReRoPE, as in bojone/rerope); the formulas are docs/FORMULAS.md §9.1 (base,
bound, critical dimension), §9.2 (xPos), §9.3 (ReRoPE), their pitfalls §9.7; RoPE itself is docs/FORMULAS.md §1.1.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from posviz import rope
from posviz._validate import check_array, check_float, check_int

MAX_BOUND_LENGTH = 1 << 16      # longest context the base bound is computed for (65,536 positions: < 1 s)
BOUND_STEPS_PER_DECADE = 100    # the bound's base grid: 10^(k/100), steps of 2.3 %
BOUND_MIN_BASE, BOUND_MAX_BASE = 2.0, 1e12
MAX_MATRIX_SIDE = 2048          # T of the T × T relative-position and score matrices


def _theta(dim: int, base: float) -> np.ndarray:
    """θ_i = base^(-2i/dim), i = 0..dim/2-1 (docs/FORMULAS.md §1.1), as ``posviz.rope.inv_freq`` computes it."""
    return rope.inv_freq(dim, base)  # (dim/2,)


# ---------------------------------------------------------------------------------- raising the base

def cosine_sum(positions: object = (0, 1, 2, 3), dim: int = 128, base: float = 10000.0) -> np.ndarray:
    """Men et al. 2024's B_{m,θ} = Σ_{i=0}^{d/2-1} cos(m θ_i) at each relative position m, θ_i = b^(-2i/d).

    It is the RoPE score of a query and key whose pairs are all equal, (q·k at distance m)/(q·q); Men et al.
    2024 ask that it stay >= 0 for every m up to the context length, so that a token similar to the query is
    still preferred over a random one at any distance. docs/FORMULAS.md §9.1.
    """
    m = check_array("positions", positions, ndim=1, min_size=1, max_size=1 << 20, lo=0.0, hi=1e9, scalar_ok=True)
    dim = check_int("dim", dim, 2, 1024, even=True)
    base = check_float("base", base, 1.0, 1e12, lo_open=True)
    th = _theta(dim, base)
    out = np.empty(m.size)
    for s in range(0, m.size, 16_384):  # rows of (16384, d/2) at most: 8 MB
        out[s:s + 16_384] = np.cos(np.outer(m[s:s + 16_384], th)).sum(axis=1)
    return out


def first_negative_position(dim: int = 128, base: float = 10000.0, length: int = 4096) -> int:
    """The smallest m in [0, length] with B_{m,θ} < 0 (Men et al. 2024), or -1 when B stays >= 0 up to length.

    Exact to float64: B over a block of positions s + k is Re Σ_i e^{i s θ_i} e^{i k θ_i}, two small matrix
    products per block of about √length positions, scanned in order with an early stop at the first negative value.
    """
    dim = check_int("dim", dim, 2, 1024, even=True)
    base = check_float("base", base, 1.0, 1e12, lo_open=True)
    length = check_int("length", length, 1, MAX_BOUND_LENGTH)
    th = _theta(dim, base)
    head = np.cos(np.outer(np.arange(min(length + 1, 64), dtype=np.float64), th)).sum(axis=1)  # cheap first look
    neg = np.flatnonzero(head < 0)
    if neg.size:
        return int(neg[0])
    block = 1 << max(6, math.ceil(math.log2(length + 1) / 2))  # K ≈ √L positions a block: K and L/K rows of cos
    k = np.arange(block, dtype=np.float64)
    c, s = np.cos(np.outer(k, th)), np.sin(np.outer(k, th))  # (K, d/2)
    start, n_blocks = 0, 1
    while start <= length:
        starts = start + block * np.arange(n_blocks, dtype=np.float64)  # (n,)
        ang = np.outer(starts, th)  # (n, d/2)
        b = (np.cos(ang) @ c.T - np.sin(ang) @ s.T).ravel()[: length + 1 - start]  # (n*K,): m = start + row*K + k
        neg = np.flatnonzero(b < 0)
        if neg.size:
            return start + int(neg[0])
        start += n_blocks * block
        n_blocks *= 2
    return -1


def base_grid(lo: float = BOUND_MIN_BASE, hi: float = BOUND_MAX_BASE) -> np.ndarray:
    """The bases the bound is searched on: 10^(k/100) for every integer k with lo <= 10^(k/100) <= hi."""
    lo = check_float("lo", lo, 1.0, 1e12, lo_open=True)
    hi = check_float("hi", hi, lo, 1e12)
    k0 = math.ceil(math.log10(lo) * BOUND_STEPS_PER_DECADE - 1e-9)
    k1 = math.floor(math.log10(hi) * BOUND_STEPS_PER_DECADE + 1e-9)
    return 10.0 ** (np.arange(k0, k1 + 1) / BOUND_STEPS_PER_DECADE)


def base_lower_bound(dim: int = 128, length: int = 4096) -> float:
    """Men et al. 2024's lower bound on the base for a context of ``length``: the smallest base b on the grid
    10^(k/100) such that B_{m,θ} = Σ_i cos(m b^(-2i/d)) >= 0 for every m in [0, length].

    The grid is scanned upwards, never bisected: whether the bound holds is not monotone in b (windows of
    passing bases open and close), so bisection can return a base far above the smallest one. The scan starts at
    the bound for length // 2, which cannot be larger (a base that passes for length passes for any shorter one).
    """
    dim = check_int("dim", dim, 2, 1024, even=True)
    length = check_int("length", length, 1, MAX_BOUND_LENGTH)
    return _grid_bound(dim, length)


@functools.lru_cache(maxsize=512)
def _grid_bound(dim: int, length: int) -> float:
    start = BOUND_MIN_BASE if length < 64 else _grid_bound(dim, length // 2)
    for b in base_grid(start * (1 - 1e-9)):
        if first_negative_position(dim, float(b), length) < 0:
            return float(b)
    raise ValueError(f"length: no base up to {BOUND_MAX_BASE:g} keeps B >= 0 up to {length}; got {length}")


def critical_dimension(dim: int = 128, base: float = 10000.0, train_length: int = 4096) -> int:
    """Liu et al. 2023's critical dimension d_extra = 2⌈(d/2)·log_b(T_train/2π)⌉: the dimensions before it belong
    to pairs whose wavelength 2π b^(2i/d) fits in the training length (they saw a full period); the rest did not.
    Clamped to [0, d]. docs/FORMULAS.md §9.1."""
    dim = check_int("dim", dim, 2, 1024, even=True)
    base = check_float("base", base, 1.0, 1e12, lo_open=True)
    train_length = check_int("train_length", train_length, 1, 1 << 40)
    raw = 2 * math.ceil(dim / 2 * math.log(train_length / (2 * math.pi)) / math.log(base))
    return int(min(max(raw, 0), dim))


def extrapolation_limit(dim: int = 128, base: float = 10000.0, train_length: int = 4096) -> float:
    """Liu et al. 2023's extrapolation bound for a base fine-tuned at T_train: T_extra = 2π · b^(d_extra/d), the
    wavelength of the first pair whose period the training did not cover."""
    d_extra = critical_dimension(dim, base, train_length)
    return float(2 * math.pi * base ** (d_extra / dim))


# ---------------------------------------------------------------------------------- xPos

def xpos_zeta(dim: int = 128, gamma: float = 0.4) -> np.ndarray:
    """xPos's per-pair decay ζ_i = (2i/d + γ)/(1 + γ), i = 0..d/2-1 (Sun et al. 2022; torchscale's XPOS
    buffer (arange(0, d, 2) + γd)/((1 + γ)d) with γ = 0.4). Low pairs (fast rotation) decay fastest.
    docs/FORMULAS.md §9.2."""
    dim = check_int("dim", dim, 2, 1024, even=True)
    gamma = check_float("gamma", gamma, 0.0, 100.0, lo_open=True)
    return (np.arange(0, dim, 2, dtype=np.float64) / dim + gamma) / (1 + gamma)  # (dim/2,)


def xpos_decay(distances: object = (0, 1, 512), dim: int = 128, gamma: float = 0.4,
               scale_base: float = 512.0) -> np.ndarray:
    """The factor xPos puts on pair i of q_m·k_n at distance Δ = m - n: ζ_i^(Δ/B) (Sun et al. 2022): q is scaled
    by ζ^(m/B) and k by ζ^(-n/B), so only Δ is left. Returns (len(distances), d/2)."""
    delta = check_array("distances", distances, ndim=1, min_size=1, max_size=1 << 18, lo=-1e7, hi=1e7,
                        scalar_ok=True)
    zeta = xpos_zeta(dim, gamma)
    scale_base = check_float("scale_base", scale_base, 1.0, 1e9)
    return zeta[None, :] ** (delta[:, None] / scale_base)


def xpos_score_profile(max_distance: int = 4096, dim: int = 128, base: float = 10000.0, gamma: float = 0.4,
                       scale_base: float = 512.0) -> dict[str, np.ndarray]:
    """Σ_i cos(Δθ_i) (RoPE: the score of equal all-ones pairs, Men et al. 2024's B) beside
    Σ_i ζ_i^(Δ/B) cos(Δθ_i) (xPos, Sun et al. 2022) for Δ = 0..max_distance, each divided by d/2 so that both start
    at 1. Keys: "distance", "rope", "xpos"."""
    max_distance = check_int("max_distance", max_distance, 1, 1 << 17)
    dim = check_int("dim", dim, 2, 1024, even=True)
    th = _theta(dim, check_float("base", base, 1.0, 1e12, lo_open=True))
    delta = np.arange(max_distance + 1, dtype=np.float64)
    rope, xpos = np.empty_like(delta), np.empty_like(delta)
    for s in range(0, delta.size, 4096):  # (4096, d/2) blocks: 4 MB at d = 1024
        cos = np.cos(np.outer(delta[s:s + 4096], th))
        rope[s:s + 4096] = cos.sum(axis=1)
        xpos[s:s + 4096] = (cos * xpos_decay(delta[s:s + 4096], dim, gamma, scale_base)).sum(axis=1)
    half = dim / 2
    return {"distance": delta, "rope": rope / half, "xpos": xpos / half}


def xpos_key_scale_overflow(dim: int = 128, gamma: float = 0.4, scale_base: float = 512.0,
                            limit: float = 65504.0, centred: bool = True) -> int:
    """The first position count T at which xPos's key scale ζ_0^(-n/B) exceeds ``limit`` (65504: float16's
    largest number) somewhere in 0..T-1. torchscale centres positions (n from -T//2), which doubles that reach;
    uncentred positions 0..T-1 overflow at half the length."""
    zeta0 = float(xpos_zeta(dim, gamma)[0])
    scale_base = check_float("scale_base", scale_base, 1.0, 1e9)
    limit = check_float("limit", limit, 1.0, 1e300, lo_open=True)
    if not isinstance(centred, (bool, np.bool_)):
        raise ValueError(f"centred must be True or False; got {centred!r}")
    n_max = scale_base * math.log(limit) / -math.log(zeta0)  # largest n with ζ0^(-n/B) <= limit
    last = math.floor(n_max) + 1                              # first position that overflows
    # uncentred: positions 0..T-1 reach `last` at T = last + 1; centred: keys run up to T - 1 - T//2
    return last + 1 if not centred else 2 * last + 1


def xpos_scores(q: object = None, k: object = None, dim: int = 8, base: float = 10000.0, gamma: float = 0.4,
                scale_base: float = 512.0, offset: int = 0) -> np.ndarray:
    """xPos logits q'_m·k'_n for every m, n (T × T, no 1/√d): pair i of q at m rotated by mθ_i and scaled by
    ζ_i^(m/B), of k at n rotated by nθ_i and scaled by ζ_i^(-n/B) (Sun et al. 2022), interleaved pairs
    (x_2i, x_2i+1) as in torchscale. Rotations use offset + 0..T-1 and the scale uses positions centred on the
    window's middle, as torchscale does: the result depends on m - n only, and the factors stay in range.
    q, k: (T, d)."""
    d = check_int("dim", dim, 2, 1024, even=True)
    rng = np.random.default_rng(0)
    q = check_array("q", rng.standard_normal((6, d)) if q is None else q, ndim=2, max_size=MAX_MATRIX_SIDE * 1024)
    k = check_array("k", rng.standard_normal((6, d)) if k is None else k, ndim=2, max_size=MAX_MATRIX_SIDE * 1024)
    if q.shape != k.shape or q.shape[1] % 2 or q.shape[0] > MAX_MATRIX_SIDE:
        raise ValueError(f"q must have the shape of k, (T, d) with d even and T <= {MAX_MATRIX_SIDE}; "
                         f"got q {q.shape}, k {k.shape}")
    if d != q.shape[1]:
        raise ValueError(f"dim must equal q's last axis {q.shape[1]}; got {d}")
    offset = check_int("offset", offset, 0, 1 << 20)
    scale_base = check_float("scale_base", scale_base, 1.0, 1e9)
    T = q.shape[0]
    zeta0 = float(xpos_zeta(d, gamma)[0])
    if (T // 2 + 1) / scale_base * -math.log(zeta0) > 700:  # ζ^(±n/B) past float64's range
        raise ValueError(f"scale_base must keep ζ^(n/B) within float64 for T = {T} (|n| <= T/2); got {scale_base:g}")
    pos = offset + np.arange(T, dtype=np.float64)
    ang = np.outer(pos, _theta(d, check_float("base", base, 1.0, 1e12, lo_open=True)))  # (T, d/2)
    up = xpos_decay(pos - (offset + T // 2), d, gamma, scale_base)  # (T, d/2): ζ^(n/B), n centred as torchscale
    zq = (q[:, 0::2] + 1j * q[:, 1::2]) * np.exp(1j * ang) * up   # (T, d/2) complex pairs
    zk = (k[:, 0::2] + 1j * k[:, 1::2]) * np.exp(1j * ang) / up
    return (zq @ zk.conj().T).real


# ---------------------------------------------------------------------------------- ReRoPE

def rerope_relative(T: int = 16, window: int = 4, leaky_k: float = 0.0) -> np.ndarray:
    """ReRoPE's relative positions (Su 2023): r = m - n inside the window, capped at w beyond it
    (min(m - n, w)); leaky ReRoPE (leaky_k = k > 1) compresses instead, w + (m - n - w)/k beyond w. Every (m, n)
    as bojone/rerope computes it before the causal mask (its window test is |m - n| < w, so a key far in the
    future also gets w); attention masks n > m. Returns (T, T). docs/FORMULAS.md §9.3."""
    T = check_int("T", T, 1, MAX_MATRIX_SIDE)
    window = check_int("window", window, 1, 1 << 20)
    leaky_k = check_float("leaky_k", leaky_k, 0.0, 1e6)
    if 0 < leaky_k < 1:
        raise ValueError(f"leaky_k must be 0 (plain ReRoPE) or a number >= 1; got {leaky_k:g}")
    idx = np.arange(T, dtype=np.float64)
    rel = idx[:, None] - idx[None, :]  # (T, T)
    far = np.abs(rel) >= window
    if leaky_k:
        return np.where(far, window + (rel - window) / leaky_k, rel)
    return np.where(far, float(window), rel)


def causal_part(matrix: object = ((0.0, 1.0), (2.0, 3.0))) -> np.ndarray:
    """The entries a causal model uses, n <= m, of a (T, T) matrix, row by row (1-D): what a largest relative
    position or a score range is read from."""
    a = check_array("matrix", matrix, ndim=2, min_size=1)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"matrix must be square; got shape {a.shape}")
    return a[np.tril_indices(a.shape[0])]


def relative_scores(q: object = None, k: object = None, relative: object = None, base: float = 10000.0) -> np.ndarray:
    """Logits q_m·R(r_mn) k_n for any relative-position matrix r (T, T): pair i of k is turned by r_mn θ_i, the
    one-pass reference of a method that only changes relative positions (ReRoPE, Self-Extend), every (m, n)
    before the causal mask. Half-split pairs (x_i, x_{i+d/2}) as in transformers' Llama. Defaults: seeded (6, 8) q and k
    with ReRoPE's positions for w = 2."""
    rng = np.random.default_rng(0)
    q = rng.standard_normal((6, 8)) if q is None else q
    k = rng.standard_normal((6, 8)) if k is None else k
    relative = rerope_relative(6, 2) if relative is None else relative
    q = check_array("q", q, ndim=2, max_size=MAX_MATRIX_SIDE * 1024)
    k = check_array("k", k, ndim=2, max_size=MAX_MATRIX_SIDE * 1024)
    if q.shape != k.shape or q.shape[1] % 2 or q.shape[0] > MAX_MATRIX_SIDE:
        raise ValueError(f"q must have the shape of k, (T, d) with d even and T <= {MAX_MATRIX_SIDE}; "
                         f"got q {q.shape}, k {k.shape}")
    T, d = q.shape
    r = check_array("relative", relative, ndim=2, lo=-1e9, hi=1e9)
    if r.shape != (T, T):
        raise ValueError(f"relative must have shape ({T}, {T}); got {r.shape}")
    th = _theta(d, check_float("base", base, 1.0, 1e12, lo_open=True))
    h = d // 2
    zq = q[:, :h] + 1j * q[:, h:]  # (T, d/2)
    zk = k[:, :h] + 1j * k[:, h:]
    out = np.empty((T, T))
    for m in range(T):  # a row at a time: (T, d/2) complex, never (T, T, d/2)
        # the real dot of two turned pairs is Re(z_q conj(z_k) e^{i r θ})
        out[m] = (zq[m][None, :] * np.conj(zk) * np.exp(1j * np.outer(r[m], th))).real.sum(axis=1)
    return out


def rerope_cost(T: int = 4096, dim: int = 128, window: int = 512) -> dict[str, float]:
    """What ReRoPE costs against plain RoPE attention (Su 2023, the two-pass form of bojone/rerope): the prefill
    computes two T × T logit matrices (q at its position · rotated k, and q rotated to w · unrotated k), so 2× the
    QK^T multiply-adds; decoding step t cannot reuse rotated keys (each cached key's relative position to the
    new query changes) and turns all t keys again: t·d extra multiply-adds per step against 0 for RoPE."""
    T = check_int("T", T, 1, 1 << 24)
    dim = check_int("dim", dim, 2, 1024, even=True)
    window = check_int("window", window, 1, 1 << 24)
    qk = float(T) * T * dim
    return {"rope_prefill_macs": qk, "rerope_prefill_macs": 2 * qk, "prefill_ratio": 2.0,
            "decode_rotations_per_step": float(T) * dim, "far_fraction": _far_fraction(T, window)}


def _far_fraction(T: int, window: int) -> float:
    """Fraction of the causal T(T+1)/2 pairs with m - n >= window (the ones the second pass serves)."""
    far = max(T - window, 0)
    return far * (far + 1) / 2 / (T * (T + 1) / 2)


def base_bound_bisection(dim: int = 128, length: int = 4096) -> float:
    """What bisection on the same grid returns (the common shortcut, kept to show it is wrong): it assumes every
    base above a passing one passes, which Men et al. 2024's B does not satisfy, so it can land on a base above
    ``base_lower_bound``."""
    dim = check_int("dim", dim, 2, 1024, even=True)
    length = check_int("length", length, 1, MAX_BOUND_LENGTH)
    grid = base_grid()
    lo, hi = 0, grid.size - 1  # grid[lo] fails (b = 2 fails every length >= 2), grid[hi] is taken to pass
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if first_negative_position(dim, float(grid[mid]), length) < 0:
            hi = mid
        else:
            lo = mid
    return float(grid[hi])


def rerope_two_pass_scores(q: object = None, k: object = None, window: int = 4, leaky_k: float = 0.0,
                           base: float = 10000.0) -> np.ndarray:
    """ReRoPE's logits computed the way its prefill does (Su 2023, bojone/rerope): pass 1 is ordinary RoPE (q at m,
    k at n); pass 2 puts every query at w and leaves keys unrotated (leaky: q at (m + w(k-1))/k, k at n/k); each
    pair takes pass 1 where |m - n| < w and pass 2 elsewhere, every (m, n) before the causal mask. Equals
    ``relative_scores`` with ``rerope_relative``: two matrix products for one. Defaults: seeded (6, 8) q and k."""
    rng = np.random.default_rng(0)
    q = rng.standard_normal((6, 8)) if q is None else q
    k = rng.standard_normal((6, 8)) if k is None else k
    q = check_array("q", q, ndim=2, max_size=MAX_MATRIX_SIDE * 1024)
    k = check_array("k", k, ndim=2, max_size=MAX_MATRIX_SIDE * 1024)
    if q.shape != k.shape or q.shape[1] % 2 or q.shape[0] > MAX_MATRIX_SIDE:
        raise ValueError(f"q must have the shape of k, (T, d) with d even and T <= {MAX_MATRIX_SIDE}; "
                         f"got q {q.shape}, k {k.shape}")
    rerope_relative(1, window, leaky_k)  # validates window and leaky_k
    T, d = q.shape
    th = _theta(d, check_float("base", base, 1.0, 1e12, lo_open=True))
    pos = np.arange(T, dtype=np.float64)

    def turned(x: np.ndarray, at: np.ndarray) -> np.ndarray:  # half-split pairs as complex numbers, turned by at·θ
        return (x[:, : d // 2] + 1j * x[:, d // 2:]) * np.exp(1j * np.outer(at, th))  # (T, d/2)

    near = (turned(q, pos) @ turned(k, pos).conj().T).real
    if leaky_k:
        far = (turned(q, (pos + window * (leaky_k - 1)) / leaky_k) @ turned(k, pos / leaky_k).conj().T).real
    else:
        far = (turned(q, np.full(T, float(window))) @ turned(k, np.zeros(T)).conj().T).real
    return np.where(np.abs(pos[:, None] - pos[None, :]) < window, near, far)
