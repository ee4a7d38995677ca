"""What a context-extension method does at the target length: angles never seen in training, attention
scores against distance and the softmax entropy of one query (docs/FORMULAS.md §5; the temperature of YaRN §5.4).

The functions take frequencies already scaled by ``posviz.scaling.methods``; each call is bounded by
``MAX_POINTS`` distances and ``MAX_CELLS`` (points × pairs) so no page slider can ask for more than ~100 MB.
"""

from __future__ import annotations

import math

import numpy as np

from posviz._validate import check_array, check_cells, check_choice, check_float, check_int
from posviz.rotary import MAX_DIM, inv_freq
from posviz.scaling.methods import MAX_LENGTH, MAX_POINTS, _factor

MAX_CELLS = 1 << 22   # points × pairs of one (points, d/2) float64 block (32 MB; ~100 MB peak with cos/sin)


def _float_array(name: str, values: object, *, lo: float, hi: float, max_len: int, lo_open: bool = False) -> np.ndarray:
    """A finite 1-D float64 array of 1 to ``max_len`` entries in range (``posviz._validate.check_array``)."""
    return check_array(name, values, ndim=1, min_size=1, max_size=max_len, lo=lo, hi=hi, lo_open=lo_open)


def unseen_angles(dim: int, base: float, factor: float, original_max_position_embeddings: int,
                  theta_scaled: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Largest angle per pair in training ``L·theta_i`` vs at the target ``L'·theta'_i``, and the flags.

    A pair reaches angles never seen in training when it did not complete a full turn in L
    (``L·theta_i < 2π``) and the target range goes further (``L'·theta'_i > L·theta_i``). Returns
    ``(seen (dim/2,), target (dim/2,), flagged (dim/2,) bool)``.
    """
    factor = _factor(factor)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    theta = inv_freq(dim, base)
    theta_scaled = _float_array("theta_scaled", theta_scaled, lo=0.0, hi=1e6, max_len=MAX_DIM // 2, lo_open=True)
    if theta_scaled.shape != theta.shape:
        raise ValueError(f"theta_scaled must have shape ({theta.size},); got {theta_scaled.shape}")
    seen = L * theta
    target = factor * L * theta_scaled
    flagged = (seen < 2 * np.pi) & (target > seen * (1 + 1e-9))
    return seen, target, flagged


def rope_scores(theta: np.ndarray, distances: np.ndarray, qk: str = "ones", seed: int = 0) -> np.ndarray:
    """Attention score ``q·R_Δ k = Σ_i Re[h_i e^{jΔθ_i}]`` (j² = −1) against distance, divided by ``Σ_i |h_i|``
    (the largest score any rotation could give; it is the score at Δ = 0 when q = k = all ones).

    ``qk="ones"``: q = k = all ones (``h_i = 2``); ``"random"``: q, k seeded Gaussian with k = q/2 + noise.
    Computed per (distance, pair) in float64; shape (len(distances),).
    """
    qk = check_choice("qk", qk, ("ones", "random"))
    seed = check_int("seed", seed, 0, 2**31 - 1)
    theta = _float_array("theta", theta, lo=0.0, hi=1e6, max_len=MAX_DIM // 2)
    n = theta.size
    if qk == "ones":
        h = np.full(n, 2.0 + 0j)
    else:
        rng = np.random.default_rng(seed)
        q = rng.standard_normal((n, 2))
        k = 0.5 * q + math.sqrt(0.75) * rng.standard_normal((n, 2))
        h = (q[:, 0] + 1j * q[:, 1]) * np.conj(k[:, 0] + 1j * k[:, 1])  # (d/2,)
    dist = _float_array("distances", distances, lo=-MAX_LENGTH, hi=MAX_LENGTH, max_len=MAX_POINTS)
    check_cells("distances × theta", dist.size * n, MAX_CELLS, "angles")
    return _phase_sum(dist, theta, h) / np.abs(h).sum()


SPLIT_FROM = 1 << 16  # distance × pair cells from which two phase tables pay off (see _phase_sum)
SPLIT_CHUNK = 8192  # distances multiplied at once (two (chunk, d/2) complex arrays: 16 MB at d/2 = 128)


def _phase_sum(dist: np.ndarray, theta: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``Σ_i Re[h_i e^{j·dist·θ_i}]`` (j² = −1) for every distance, shape (n_dist,) (sums as matrix-vector products).

    Many integer distances: write Δ = a·S + b with S = ⌈√(max |Δ| + 1)⌉, so ``e^{jΔθ_i} = e^{jaSθ_i} e^{jbθ_i}``
    comes from two tables of at most S + 1 rows each, and a product per distance and pair replaces a cosine and a
    sine (the same sums to ~1e-12 relative, as ``_phase_sum_uniform``)."""
    if dist.size * theta.size >= SPLIT_FROM and np.array_equal(dist, np.round(dist)):
        whole = dist.astype(np.int64)
        split = math.isqrt(int(np.abs(whole).max())) + 1
        a, b = np.divmod(whole, split)
        coarse, a_row = np.unique(a, return_inverse=True)
        fine, b_row = np.unique(b, return_inverse=True)
        far = np.exp(1j * split * np.outer(coarse, theta)) * h  # (A, d/2), each row times h
        near = np.exp(1j * np.outer(fine, theta))  # (B, d/2)
        out = np.empty(dist.size)
        for lo in range(0, dist.size, SPLIT_CHUNK):
            rows = slice(lo, lo + SPLIT_CHUNK)
            out[rows] = np.einsum("ij,ij->i", far[a_row.ravel()[rows]], near[b_row.ravel()[rows]]).real
        return out
    angles = dist[:, None] * theta[None, :]  # (n_dist, d/2)
    return np.cos(angles) @ h.real - np.sin(angles) @ h.imag


def _phase_sum_uniform(step: float, m: int, theta: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``_phase_sum`` at the evenly spaced distances 0, step, .., (m-1)·step, shape (m,).

    Write j = a·B + b with B = ⌈√m⌉: ``e^{i·j·step·θ} = e^{i·a·B·step·θ} · e^{i·b·step·θ}``, so two
    tables of √m rows replace m·d/2 cos/sin evaluations (8× faster; error ~1e-12 relative)."""
    B = max(1, math.ceil(math.sqrt(m)))
    j = np.arange(B)
    fine = np.exp(1j * step * np.outer(j, theta))  # (B, d/2): e^{i b step θ}
    coarse = np.exp(1j * step * B * np.outer(j, theta))  # (B, d/2): e^{i a B step θ}
    powers = (coarse[:, None, :] * fine[None, :, :]).reshape(-1, theta.size)[:m]  # (m, d/2)
    return (powers @ h).real


def attention_entropy(theta: np.ndarray, lengths: np.ndarray, logit_multiplier: float = 1.0,
                      n_keys: int = 1024, seed: int = 0) -> np.ndarray:
    """Softmax entropy (nats) of one query over ``n`` keys at distances 0..n-1, for each n in ``lengths``.

    Logits ``multiplier · q·R_Δ k / sqrt(d)`` with seeded Gaussian q and k (k = q/2 + noise); multiplier
    ``A²`` is YaRN's temperature. Keys are sampled at ``n_keys`` evenly spaced distances and weighted by
    the spacing (a Riemann sum), so the cost is per sample, not per token. Shape (len(lengths),).
    """
    theta = _float_array("theta", theta, lo=0.0, hi=1e6, max_len=MAX_DIM // 2)
    lengths = _float_array("lengths", lengths, lo=1.0, hi=MAX_LENGTH, max_len=1000)
    mult = check_float("logit_multiplier", logit_multiplier, 0.0, 1e3)
    n_keys = check_int("n_keys", n_keys, 2, 8192)
    check_cells("n_keys × theta", n_keys * theta.size, MAX_CELLS // 4, "complex phases per length")
    check_cells("lengths × n_keys × theta", lengths.size * n_keys * theta.size, 1 << 22, "phase products")
    rng = np.random.default_rng(check_int("seed", seed, 0, 2**31 - 1))
    d = 2 * theta.size
    q = rng.standard_normal((theta.size, 2))
    k = 0.5 * q + math.sqrt(0.75) * rng.standard_normal((theta.size, 2))
    h = (q[:, 0] + 1j * q[:, 1]) * np.conj(k[:, 0] + 1j * k[:, 1])
    out = np.empty(len(lengths))
    for j, n in enumerate(lengths):
        m = int(min(n, n_keys))
        dist = np.linspace(0.0, n - 1, m)
        z = mult * _phase_sum_uniform(float(dist[1] - dist[0]) if m > 1 else 0.0, m, theta, h) / math.sqrt(d)
        w = n / m
        zmax = z.max()
        e = np.exp(z - zmax)
        Z = w * e.sum()
        out[j] = math.log(Z) + zmax - w * float((e * z).sum()) / Z
    return out
