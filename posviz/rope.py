"""Rotary position embedding (RoPE; Su et al., RoFormer §3.2–3.4): the torch rotation ``apply_rope`` and what
the RoPE lesson measures about it: scores, long-term decay, float32 precision and the derivation.

Pair i rotates by the angle ``m·theta_i`` at position m, ``theta_i = base**(-2i/dim)`` (docs/FORMULAS.md §1).
The frequencies, layouts, cos/sin tables and the numpy rotation live in ``posviz.rotary`` and are re-exported
here, so ``posviz.rope.inv_freq`` and friends keep their names. torch is imported lazily, only by the functions
that take tensors.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from posviz._validate import check_cells, check_choice, check_float, check_int
from posviz.rotary import (  # noqa: F401 - the lesson's public API re-exports the rotation
    LAYOUTS,
    MAX_CELLS,
    MAX_DIM,
    MAX_LENGTH,
    MAX_POSITION,
    MAX_SEQUENCE,
    MAX_TABLE,
    TEACHING_LAYOUTS,
    TWO_PI,
    _angles,
    _array,
    _check_cells,
    _rotation,
    _vector,
    angles,
    cos_sin,
    cos_sin_from_inv_freq,
    deinterleave_permutation,
    inv_freq,
    pair_channels,
    rotate,
    wavelengths,
    wrapped_pairs,
)
from posviz.sinusoidal import sinusoidal_table

if TYPE_CHECKING:
    import torch

PRESETS = ("random", "ones")
MAX_GRID = 2048  # score_grid is (T, T)
MAX_SAMPLE_CELLS = 1 << 21  # mean_random_score: samples × dim normal draws for q and for k (16 MB each)


def apply_rope(x: torch.Tensor, positions: torch.Tensor, inv_freq: torch.Tensor | np.ndarray,
               layout: str = "interleaved") -> torch.Tensor:
    """Rotate every pair of ``x`` (..., T, dim) by ``positions[t]·inv_freq[i]``, counter-clockwise.

    ``(u, v) -> (u cos a - v sin a, u sin a + v cos a)``, ``a = m·theta_i`` (RoFormer Eq. 34). Positions
    may be fractional. The result has the shape and dtype of ``x``; angles are computed in float64 then
    cast, so large positions do not lose precision before the cast.
    """
    import torch

    layout = check_choice("layout", layout, LAYOUTS)
    if not isinstance(x, torch.Tensor) or x.ndim < 2:
        raise ValueError("x must be a torch tensor of shape (..., T, dim)")
    if not torch.is_floating_point(x):
        raise ValueError(f"x must be a floating-point tensor; got {x.dtype}")
    if x.numel() > MAX_CELLS:
        raise ValueError(f"x may hold at most {MAX_CELLS:,} values; got {x.numel():,}")
    if not torch.isfinite(x).all():
        raise ValueError("x must hold finite numbers only (no NaN or inf)")
    cos, sin, idx, sign = _rotation(x.shape[-2], x.shape[-1], positions, inv_freq, layout)
    cos_t = torch.as_tensor(cos, dtype=x.dtype, device=x.device)
    sin_t = torch.as_tensor(sin * sign, dtype=x.dtype, device=x.device)  # sign folded into the table
    return x * cos_t + x[..., torch.as_tensor(idx, device=x.device)] * sin_t


# ---------------------------------------------------------------------------- scores

def sample_qk(dim: int, seed: int = 0, preset: str = "random") -> tuple[np.ndarray, np.ndarray]:
    """A query and a key of length dim: standard normal from ``seed``, or both all-ones (preset)."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    preset = check_choice("preset", preset, PRESETS)
    if preset == "ones":
        return np.ones(dim), np.ones(dim)
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, dim))  # (dim,) each
    return q, k


def score(q: object, k: object, m: float, n: float, base: float = 10000.0,
          layout: str = "interleaved") -> float:
    """The attention logit ``(R_m q)·(R_n k)`` of a query at position m and a key at position n."""
    q = _vector("q", q)
    k = _vector("k", k, q.size)
    m = check_float("m", m, -MAX_POSITION, MAX_POSITION)
    n = check_float("n", n, -MAX_POSITION, MAX_POSITION)
    theta = inv_freq(q.size, base)
    qm = rotate(q[None, :], [m], theta, layout)[0]
    kn = rotate(k[None, :], [n], theta, layout)[0]
    return float(qm @ kn)


def score_grid(q: object, k: object, positions: object, base: float = 10000.0,
               layout: str = "interleaved", *, swap: bool = False) -> np.ndarray:
    """All scores ``S[a, b] = (R_{p_a} q)·(R_{p_b} k)`` (query at p_a, key at p_b), shape (T, T).

    With a consistent layout S depends on p_a - p_b only (constant diagonals). ``swap=True`` is seed
    000's bug (``apply_rope(k, q, cis)`` called as ``(q, k)``): the rotated q and k trade places, and
    the result is the transpose of the true grid.
    """
    q = _vector("q", q)
    k = _vector("k", k, q.size)
    pos = _array("positions", positions, max_len=MAX_GRID)
    if not isinstance(swap, (bool, np.bool_)):
        raise ValueError(f"swap must be True or False; got {swap!r}")
    theta = inv_freq(q.size, base)
    tile = np.ones((pos.size, 1))
    qr = rotate(tile * q, pos, theta, layout)  # (T, d)
    kr = rotate(tile * k, pos, theta, layout)  # (T, d)
    if swap:
        qr, kr = kr, qr
    return qr @ kr.T  # (T, T)


def relative_scores(q: object, k: object, deltas: object, base: float = 10000.0,
                    layout: str = "interleaved") -> np.ndarray:
    """The score as a function of the offset Δ = m - n alone (consistent layouts), shape (len(deltas),).

    Per pair, with (u, v) the pair of q and (u', v') that of k:
    ``(u u' + v v')·cos(Δ theta_i) + (u v' - v u')·sin(Δ theta_i)`` (docs/FORMULAS.md §1.1). For any q and k
    the whole score depends on Δ alone; the sine term makes S(Δ) differ from S(-Δ) unless every pair of q
    is parallel to the same pair of k (q = k gives a symmetric score). Compare like with like: the raw
    sinusoidal PE·PE (no weights) is even in Δ, but an absolute-PE score through learned W_q, W_k can be
    direction-aware too, it then depends on m and n separately, not on m - n alone.
    """
    q = _vector("q", q)
    k = _vector("k", k, q.size)
    layout = check_choice("layout", layout, LAYOUTS)
    ch = pair_channels(q.size, layout)  # (d/2, 2)
    a = q[ch[:, 0]] * k[ch[:, 0]] + q[ch[:, 1]] * k[ch[:, 1]]  # (d/2,)
    b = q[ch[:, 0]] * k[ch[:, 1]] - q[ch[:, 1]] * k[ch[:, 0]]  # (d/2,)
    ang = _angles("deltas", deltas, q.size, base)  # (D, d/2)
    return np.cos(ang) @ a + np.sin(ang) @ b


def norm_ratio(x: object, positions: object, base: float = 10000.0, layout: str = "interleaved") -> np.ndarray:
    """``‖R_m x‖ / ‖x‖`` for each position m: exactly 1 for a rotation, drifting for "mixed"."""
    x = _vector("x", x)
    if not np.any(x):
        raise ValueError("x must not be the zero vector (its norm ratio is undefined)")
    pos = _array("positions", positions)
    _check_cells("positions", pos.size, x.size)
    rot = rotate(np.ones((pos.size, 1)) * x, pos, inv_freq(x.size, base), layout)  # (T, d)
    return np.linalg.norm(rot, axis=1) / np.linalg.norm(x)


def layout_agreement(dim: int, base: float = 10000.0, n_positions: int = 64, seed: int = 0) -> dict[str, float]:
    """Numeric check that the two layouts agree up to the permutation P (docs/FORMULAS.md §1.2).

    Returns the largest ``|half(P x) - P interleaved(x)|`` over random vectors and positions, and the
    largest ``|S_interleaved(q, k) - S_half(P q, P k)|`` over the score grid: both ~1e-15.
    """
    n_positions = check_int("n_positions", n_positions, 1, 512)
    q, k = sample_qk(dim, seed)
    theta = inv_freq(dim, base)
    P = deinterleave_permutation(dim)
    pos = np.arange(n_positions, dtype=np.float64)
    x = np.ones((n_positions, 1)) * q  # (T, d)
    vec = np.abs(rotate(x[:, P], pos, theta, "half") - rotate(x, pos, theta, "interleaved")[:, P]).max()
    s_il = score_grid(q, k, pos, base, "interleaved")
    s_half = score_grid(q[P], k[P], pos, base, "half")
    return {"max_vector_diff": float(vec), "max_score_diff": float(np.abs(s_il - s_half).max())}


# ---------------------------------------------------------------------------- long-term decay

def decay_bound(deltas: object, dim: int, base: float = 10000.0) -> np.ndarray:
    """RoFormer's relative upper bound ``B(Δ) = (1/(d/2)) Σ_{ℓ=1}^{d/2} |S_ℓ|``, ``S_ℓ = Σ_{i<ℓ} e^{jΔθ_i}``
    (j the imaginary unit, so that i stays the pair index).

    From Abel summation (RoFormer §3.4.3): ``|score| <= max_i |h_{i+1} - h_i| · (d/2)·B(Δ)``. A bound, not
    the score, and not monotone in Δ: it decays only in envelope. docs/FORMULAS.md §1.4 (B(0) = 32.5 at d = 128).
    """
    ang = _angles("deltas", deltas, dim, base)  # (D, d/2)
    partial = np.cumsum(np.exp(1j * ang), axis=1)  # (D, d/2): S_1 .. S_{d/2}
    return np.abs(partial).mean(axis=1)


def cos_sum(deltas: object, dim: int, base: float = 10000.0) -> np.ndarray:
    """``Σ_i cos(Δ theta_i)``: half the score of q = k = all-ones at offset Δ; it dips below zero."""
    return np.cos(_angles("deltas", deltas, dim, base)).sum(axis=1)


def mean_random_score(deltas: object, dim: int, base: float = 10000.0, n_samples: int = 512,
                      seed: int = 0) -> np.ndarray:
    """Mean score ``(1/S) Σ_s Σ_i [a_si cos(Δθ_i) + b_si sin(Δθ_i)]`` at offset Δ over ``S = n_samples``
    independent standard-normal (q, k), with ``a = u u' + v v'`` and ``b = u v' − v u'`` per pair (RoFormer
    §3.4.3): ≈ 0 at every Δ, since every pair term of independent zero-mean q and k has expectation 0; the
    curve is sampling noise of size ~ sqrt(d / n_samples). ``n_samples · dim`` is capped at MAX_SAMPLE_CELLS
    (q and k are drawn whole: 16 MB each at the cap).
    """
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    n_samples = check_int("n_samples", n_samples, 1, 4096)
    check_cells(f"n_samples: {n_samples} samples × dim {dim}", n_samples * dim, MAX_SAMPLE_CELLS, "normal draws")
    seed = check_int("seed", seed, 0, 2**32 - 1)
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, dim // 2, 2))  # (S, d/2, 2): pairs in their own coordinates
    k = rng.standard_normal((n_samples, dim // 2, 2))
    a = (q[..., 0] * k[..., 0] + q[..., 1] * k[..., 1]).mean(axis=0)  # (d/2,)
    b = (q[..., 0] * k[..., 1] - q[..., 1] * k[..., 0]).mean(axis=0)  # (d/2,)
    ang = _angles("deltas", deltas, dim, base)  # (D, d/2)
    return np.cos(ang) @ a + np.sin(ang) @ b


# ---------------------------------------------------------------------------- float32 precision

def float32_error(positions: object, dim: int, base: float = 10000.0) -> np.ndarray:
    """Largest |cos or sin error| over pairs when angles are computed in float32 as transformers does.

    float32 ``inv_freq`` × float32 position, cos/sin in float32, against the float64 reference; shape
    (T,). Each angle ``m·θ_i`` (θ_i <= 1) is rounded twice, so the error stays below ``2·m·2^-24`` plus the
    ~1e-7 of float32 cos/sin; how close it comes depends on d and b: 2e-3 at m = 1e5 for d = 64, b = 1e4
    (docs/FORMULAS.md §1.3: up to ~1e-2), 7e-6 for d = 8 (its θ_i are powers of ten), 1e-8 for d = 2 (θ_0 = 1:
    every whole-number angle is exact).
    """
    a64 = angles(positions, dim, base)  # (T, d/2)
    a32 = angles(positions, dim, base, dtype="float32")  # (T, d/2) float32
    err_cos = np.abs(np.cos(a32).astype(np.float64) - np.cos(a64))
    err_sin = np.abs(np.sin(a32).astype(np.float64) - np.sin(a64))
    return np.maximum(err_cos, err_sin).max(axis=1)


# ============================================================================ RoPE from first principles
# The lesson's derivation (RoFormer §3.1–3.2; C. Fleetwood, "You could have designed state of the art positional
# encoding"): why an additive code cannot give a score that depends on m − n alone, the rotation that does, q and k
# turning together, which pairs matter (partial RoPE, p-RoPE, DeepSeek's decoupled part) and the choice of the base.

ADDITIVE_TERMS = ("content·content", "content·position", "position·content", "position·position")
TOKENS = ("same", "random")
WEIGHTS = ("random", "identity")
SCHEMES = ("full", "partial", "p-rope", "decoupled")
MAX_ADDITIVE = 1024  # additive_score_terms: positions per call (five (T, T) float64 arrays: 40 MB)
KEPT_ADDITIVE = 256  # additive_score_terms keeps its last results up to the lesson's T (five 0.5 MB arrays each)
KEPT_DIAGONALS = 256  # off_offset_residual keeps the diagonal index of matrices up to this side (0.5 MB each)
MAX_BLOCK = 256  # block_rotation: the dense (dim, dim) matrix is for looking at, not for computing
MAX_D_MODEL = 512  # additive code: width of x, p and W
MAX_OFFSET = 2048  # absolute_offset_scores / left_right_curves: offsets per side and the anchor shift (the PE
# table of 3·MAX_OFFSET + 1 rows × MAX_D_MODEL stays under sinusoidal_table's cell cap)
MAX_QK_CELLS = 1 << 18  # qk_pairs: positions × pairs (each (T, d) float64 temporary stays under 4 MB)
MAX_BOUND_LENGTH = 1 << 22  # first_negative_cos_sum: distances per call
MAX_BOUND_CELLS = 1 << 25  # first_negative_cos_sum: distances × pairs (cosines, in chunks of 2^20: ~0.5 s)
QUARTER_TURN = np.pi / 2  # a pair turning less than this within the context keeps cos(Δθ_i) > 0 there


# ---------------------------------------------------------------------------- 1. why not just add?

def additive_weights(d_model: int, seed: int = 0, weights: str = "random") -> np.ndarray:
    """``A = W_qᵀ W_k`` (d_model, d_model): seeded standard-normal W_q, W_k scaled by 1/√d, or the identity.

    The score of an additive code is ``(x_m + p_m)ᵀ A (x_n + p_n)`` (Vaswani et al. 2017, §3.2, 3.5). Seeded
    with ``default_rng(seed)``; W_q and W_k are the first two draws.
    """
    d_model = check_int("d_model", d_model, 2, MAX_D_MODEL, even=True)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    weights = check_choice("weights", weights, WEIGHTS)
    if weights == "identity":
        return np.eye(d_model)
    return _weight_product(np.random.default_rng(seed).standard_normal((2, d_model, d_model)))


def _weight_product(draws: np.ndarray) -> np.ndarray:
    """``W_qᵀ W_k`` from the two (d, d) standard-normal draws, each scaled by 1/√d (``additive_weights``)."""
    w_q, w_k = draws / np.sqrt(draws.shape[-1])
    return w_q.T @ w_k


def additive_score_terms(n_positions: int, d_model: int = 64, base: float = 10000.0, seed: int = 0,
                         tokens: str = "same", weights: str = "random") -> dict[str, np.ndarray]:
    """The four (T, T) terms of ``(x_m + p_m)ᵀ A (x_n + p_n)`` and their sum, the full score.

    ``x_m`` is a standard-normal token embedding (one token repeated at every position with
    ``tokens="same"``, else a new one per position, drawn after W from the same seed); ``p_m`` is the
    interleaved sinusoidal code (Vaswani §3.5); ``A`` from ``additive_weights``. Keys: ADDITIVE_TERMS and
    "full", computed directly as ``(X + P) A (X + P)ᵀ`` (Transformer-XL's expansion, Dai et al. 2019, §3.3).
    Each call returns its own arrays; the lesson's sizes are computed once for its numbers and its figure.
    """
    args = (n_positions, d_model, base, seed, tokens, weights)
    if type(n_positions) is int and n_positions <= KEPT_ADDITIVE and all(type(a) in (int, float, str) for a in args):
        return {name: z.copy() for name, z in _kept_additive_terms(*args).items()}
    return _additive_terms(*args)


@functools.lru_cache(maxsize=2, typed=True)  # plain ints, floats and strings only (additive_score_terms)
def _kept_additive_terms(n_positions: int, d_model: int, base: float, seed: int, tokens: str,
                         weights: str) -> dict[str, np.ndarray]:
    terms = _additive_terms(n_positions, d_model, base, seed, tokens, weights)
    for z in terms.values():
        z.setflags(write=False)
    return terms


def _additive_terms(n_positions: object, d_model: object, base: object, seed: object, tokens: object,
                    weights: object) -> dict[str, np.ndarray]:
    n_positions = check_int("n_positions", n_positions, 1, MAX_ADDITIVE)
    tokens = check_choice("tokens", tokens, TOKENS)
    seed = check_int("seed", seed, 0, 2**32 - 1)  # a whole float is accepted: default_rng needs the int
    d_model = check_int("d_model", d_model, 2, MAX_D_MODEL, even=True)
    weights = check_choice("weights", weights, WEIGHTS)
    rng = np.random.default_rng(seed)
    draws = rng.standard_normal((2, d_model, d_model))  # W_q, W_k as additive_weights draws them: x comes after
    a = np.eye(d_model) if weights == "identity" else _weight_product(draws)
    x = rng.standard_normal((1 if tokens == "same" else n_positions, d_model))  # (1 or T, d)
    x = np.broadcast_to(x, (n_positions, d_model))  # (T, d)
    p = sinusoidal_table(n_positions, d_model, base)  # (T, d)
    xa, pa = x @ a, p @ a  # (T, d): each product once, then by xᵀ and by pᵀ
    terms = dict(zip(ADDITIVE_TERMS, (xa @ x.T, xa @ p.T, pa @ x.T, pa @ p.T), strict=True))
    terms["full"] = (x + p) @ a @ (x + p).T
    return terms


def off_offset_residual(z: object) -> float:
    """RMS of ``z[m, n]`` minus the mean of its diagonal (fixed m − n): 0 exactly when z depends on m − n alone.

    z is a square (T, T) matrix; the residual is in z's own units, so it compares with ``RMS(z)``.
    """
    z = _array("z", z, max_len=MAX_GRID * MAX_GRID, max_abs=1e300, ndim=2)
    if z.shape[0] != z.shape[1] or z.size == 0:
        raise ValueError(f"z must be a non-empty square matrix; got shape {z.shape}")
    t = z.shape[0]
    offset, counts = _kept_diagonals(t) if t <= KEPT_DIAGONALS else _diagonals(t)
    means = np.bincount(offset.ravel(), z.ravel()) / counts  # (2T−1,)
    return float(np.sqrt(np.mean((z - means[offset]) ** 2)))


def _diagonals(t: int) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's diagonal of a (t, t) matrix, m − n shifted to 0 .. 2t−2, and the cells on each diagonal."""
    offset = np.subtract.outer(np.arange(t), np.arange(t)) + t - 1  # (T, T)
    return offset, np.bincount(offset.ravel())


@functools.lru_cache(maxsize=4)  # the additive part asks for nine residuals of one size per figure and numbers
def _kept_diagonals(t: int) -> tuple[np.ndarray, np.ndarray]:
    offset, counts = _diagonals(t)
    offset.setflags(write=False)
    counts.setflags(write=False)
    return offset, counts


def dependence(z: object, rtol: float = 1e-9) -> str:
    """What a (T, T) score term depends on, from its numbers: "constant", "m − n" (constant diagonals), "n"
    (every row the same), "m" (every column the same) or "m and n"; equal means within ``rtol``·max|z|."""
    z = _array("z", z, max_len=MAX_GRID * MAX_GRID, max_abs=1e300, ndim=2)
    rtol = check_float("rtol", rtol, 0.0, 1.0)
    tol = rtol * max(1.0, float(np.abs(z).max()) if z.size else 1.0)
    if z.size == 0 or np.ptp(z) <= tol:
        return "constant"
    if off_offset_residual(z) <= tol:
        return "m − n"
    if np.ptp(z, axis=0).max() <= tol:
        return "n"
    if np.ptp(z, axis=1).max() <= tol:
        return "m"
    return "m and n"


# ---------------------------------------------------------------------------- 2. derive the rotation

def rotation_2d(angle: float) -> np.ndarray:
    """The 2-D counter-clockwise rotation ``R(a) = [[cos a, −sin a], [sin a, cos a]]`` (RoFormer Eq. 13)."""
    angle = check_float("angle", angle, -MAX_POSITION, MAX_POSITION)
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def block_rotation(m: float, dim: int, base: float = 10000.0) -> np.ndarray:
    """RoFormer's ``R_m`` (Eq. 15): the (dim, dim) block-diagonal matrix of d/2 rotations ``R(m·theta_i)``.

    Interleaved pairs: block i acts on channels (2i, 2i+1). Dense, so capped at dim = MAX_BLOCK; models never
    build it (``rotate`` applies it in O(d)).
    """
    dim = check_int("dim", dim, 2, MAX_BLOCK, even=True)
    m = check_float("m", m, -MAX_POSITION, MAX_POSITION)
    out = np.zeros((dim, dim))
    for i, a in enumerate(m * inv_freq(dim, base)):
        out[2 * i:2 * i + 2, 2 * i:2 * i + 2] = rotation_2d(float(a))
    return out


def complex_pairs(x: object, layout: str = "interleaved") -> np.ndarray:
    """Each pair (u, v) of x as the complex number ``u + j·v`` (j² = −1), shape (dim/2,) (Llama's complex view)."""
    x = _vector("x", x)
    ch = pair_channels(x.size, layout)  # (d/2, 2)
    return x[ch[:, 0]] + 1j * x[ch[:, 1]]


def derivation_checks(q: object, k: object, m: float, n: float, c: float = 0.0,
                      base: float = 10000.0) -> dict[str, float]:
    """Each step of the derivation computed two ways; the page shows the numbers and their differences.

    - ``score_matrix``: ``(R_m q)ᵀ (R_n k)`` with RoFormer's block matrices;
    - ``score_relative``: ``qᵀ R_{n−m} k``, because ``R_mᵀ R_n = R_{n−m}`` (``composition_error``);
    - ``score_complex``: ``Re Σ_i z^q_i conj(z^k_i) e^{j(m−n)θ_i}`` (the complex view, j² = −1);
    - ``score_shifted``: the score with both positions moved by c;
    - ``complex_error``: max |pairs of ``R_m q``  −  ``z^q·e^{jmθ}``| (rotation = complex multiplication);
    - ``norm_change``: |‖R_m q‖ − ‖q‖|. Interleaved pairs, as in RoFormer.
    """
    q = _vector("q", q)
    k = _vector("k", k, q.size)
    if q.size > MAX_BLOCK:
        raise ValueError(f"q must have at most {MAX_BLOCK} entries (the dense R_m is built); got {q.size}")
    c = check_float("c", c, -MAX_POSITION, MAX_POSITION)
    theta = inv_freq(q.size, base)
    r_m, r_n = block_rotation(m, q.size, base), block_rotation(n, q.size, base)
    r_rel = block_rotation(float(n) - float(m), q.size, base)
    zq, zk = complex_pairs(q), complex_pairs(k)
    qm = r_m @ q
    return {
        "score_matrix": float(qm @ (r_n @ k)),
        "score_relative": float(q @ r_rel @ k),
        "score_complex": float(np.real(np.sum(zq * np.conj(zk) * np.exp(1j * (m - n) * theta)))),
        "score_shifted": score(q, k, m + c, n + c, base),
        "composition_error": float(np.abs(r_m.T @ r_n - r_rel).max()),
        "complex_error": float(np.abs(complex_pairs(qm) - zq * np.exp(1j * m * theta)).max()),
        "norm_change": float(abs(np.linalg.norm(qm) - np.linalg.norm(q))),
    }


# ---------------------------------------------------------------------------- 3. q and k turning together

def qk_pairs(q: object, k: object, m: object, n: object, base: float = 10000.0,
             layout: str = "interleaved", freqs: object = None) -> dict[str, np.ndarray]:
    """Every pair of ``R_{m_t} q`` and ``R_{n_t} k`` for T (m_t, n_t), with each pair's share of the score.

    Returns "q" and "k" (T, d/2, 2), "score" (T, d/2) = ``u_q u_k + v_q v_k`` (the scores sum over pairs) and
    "angle" (T, d/2), the angle from k's hand to q's hand in (−π, π]: ``arg(z^q) − arg(z^k) + (m − n)θ_i``, so
    it stays put when m and n move together. ``freqs`` (from ``pair_frequencies``; zeros allowed) replaces
    ``base**(-2i/d)``.
    """
    q = _vector("q", q)
    k = _vector("k", k, q.size)
    m, n = _array("m", m, max_len=MAX_LENGTH), _array("n", n, max_len=MAX_LENGTH)
    if m.shape != n.shape:
        raise ValueError(f"m and n must have the same length; got {m.size} and {n.size}")
    theta = inv_freq(q.size, base) if freqs is None else _array("freqs", freqs, max_len=MAX_DIM // 2, max_abs=1e6)
    if theta.shape != (q.size // 2,):
        raise ValueError(f"freqs must have shape (dim/2,) = ({q.size // 2},); got {theta.shape}")
    _check_cells("m and q", m.size, q.size // 2, MAX_QK_CELLS)  # either can make it large
    ch = pair_channels(q.size, layout)  # (d/2, 2)
    qr = rotate(np.ones((m.size, 1)) * q, m, theta, layout)[:, ch]  # (T, d/2, 2)
    kr = rotate(np.ones((n.size, 1)) * k, n, theta, layout)[:, ch]  # (T, d/2, 2)
    z = (qr[..., 0] + 1j * qr[..., 1]) * (kr[..., 0] - 1j * kr[..., 1])  # (T, d/2): z^q conj(z^k)
    return {"q": qr, "k": kr, "score": z.real, "angle": np.angle(z)}


# ---------------------------------------------------------------------------- 5. left or right, fairly

def absolute_offset_scores(anchor: int, max_offset: int, d_model: int = 64, base: float = 10000.0,
                           seed: int = 0, weights: str = "random") -> np.ndarray:
    """``p_aᵀ A p_{a−Δ}`` for Δ = −max_offset .. max_offset: an absolute code's position·position score.

    The query sits at the anchor a, the key Δ tokens to its left (right for Δ < 0); ``A`` from ``additive_weights``
    (a learned W is direction-aware: the curve is not even in Δ, and moves with a). Shape (2·max_offset + 1,); a >= Δ.
    """
    max_offset = check_int("max_offset", max_offset, 1, MAX_OFFSET)
    anchor = check_int("anchor", anchor, max_offset, 2 * MAX_OFFSET)
    a = additive_weights(d_model, seed, weights)
    return _offset_scores(sinusoidal_table(anchor + max_offset + 1, d_model, base), a, anchor, max_offset)


def _offset_scores(p: np.ndarray, a: np.ndarray, anchor: int, max_offset: int) -> np.ndarray:
    """``p_anchorᵀ A p_{anchor−Δ}`` for |Δ| <= max_offset; ``p`` holds anchor + max_offset + 1 positions."""
    keys = anchor - np.arange(-max_offset, max_offset + 1)  # (2D + 1,)
    return p[keys] @ (a.T @ p[anchor])  # (2D+1,): p_a A p_key, written as (p_key Aᵀ) p_a


def left_right_curves(dim: int = 64, base: float = 10000.0, max_offset: int = 64, c: int = 4,
                      seed: int = 0) -> dict[str, np.ndarray]:
    """Score against Δ = m − n (key Δ tokens left of the query) for RoPE and for an absolute code, like with like.

    Query at the anchor a = max_offset and at a + c. "rope_a", "rope_ac": ``(R_a q)·(R_{a−Δ} k)`` for the seeded
    q ≠ k, computed at those absolute positions; "rope_same": q = k. "abs_a", "abs_ac": ``p_aᵀ A p_{a−Δ}`` with a
    learned (seeded) A; "abs_identity": A = I. Plus "deltas". Each curve (2·max_offset + 1,).
    """
    max_offset = check_int("max_offset", max_offset, 1, MAX_OFFSET)
    c = check_int("c", c, 0, MAX_OFFSET)
    q, k = sample_qk(dim, seed)
    _check_cells("max_offset and dim", 2 * max_offset + 1, q.size // 2, MAX_QK_CELLS)  # either can make it large
    deltas = np.arange(-max_offset, max_offset + 1, dtype=np.float64)  # (2D+1,)
    theta = inv_freq(q.size, base)

    def at(query: np.ndarray, keys: np.ndarray, anchor: int) -> np.ndarray:  # (R_a q)·(R_{a−Δ} k) for every Δ
        rotated = rotate(keys[:, None, :] * np.ones((deltas.size, 1)), anchor - deltas, theta)  # (K, 2D+1, d)
        return rotated @ rotate(query[None, :], [anchor], theta)[0]  # (K, 2D+1)

    # one table of positions and one rotation per anchor for every curve: a third of the time at d = 256, Δ = 1,000
    table = sinusoidal_table(2 * max_offset + c + 1, dim, base)  # positions 0 .. a + c + D
    learned, identity = additive_weights(dim, seed), additive_weights(dim, seed, "identity")
    out = {"deltas": deltas, "abs_a": _offset_scores(table, learned, max_offset, max_offset),
           "abs_ac": _offset_scores(table, learned, max_offset + c, max_offset),
           "abs_identity": _offset_scores(table, identity, max_offset, max_offset)}
    out["rope_a"], out["rope_same"] = at(q, np.stack([k, q]), max_offset)
    out["rope_ac"] = at(q, k[None, :], max_offset + c)[0]
    return out


# ---------------------------------------------------------------------------- 6. which pairs matter

def pair_frequencies(dim: int, base: float = 10000.0, scheme: str = "full", fraction: float = 1.0) -> np.ndarray:
    """The frequency of every pair of a dim-channel head, 0 for pairs that are not rotated, shape (dim/2,).

    - "full": ``base**(-2i/dim)``.
    - "partial" (GPT-NeoX ``rotary_pct``, Phi, transformers' ``partial_rotary_factor``): the first
      ``d_r = int(dim·fraction)`` channels rotate with ``base**(-2i/d_r)`` (the exponent uses d_r); the rest pass.
    - "p-rope" (Barbero et al. 2024, §6; transformers' ``rope_type="proportional"``): the fastest
      ``int(fraction·dim // 2)`` pairs keep ``base**(-2i/dim)``; the slowest get frequency 0.
    - "decoupled" (DeepSeek-V2/V3 MLA): ``[nope | rope]`` channels, the last ``d_r = round(dim·fraction)``
      rotating with ``base**(-2i/d_r)`` (V3: 128 + 64, fraction 1/3).
    """
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    scheme = check_choice("scheme", scheme, SCHEMES)
    fraction = check_float("fraction", fraction, 0.0, 1.0)
    if scheme == "full":
        return inv_freq(dim, base)
    if scheme == "p-rope":
        kept = int(fraction * dim // 2)
        return np.concatenate([inv_freq(dim, base)[:kept], np.zeros(dim // 2 - kept)])
    # transformers: int(head_dim·factor) (1e-9 absorbs a product like 41.999..., which HF would floor to odd);
    # DeepSeek's configs give the rotated width itself, so round
    d_r = int(dim * fraction + 1e-9) if scheme == "partial" else round(dim * fraction)
    if d_r < 2 or d_r % 2:
        raise ValueError(f"fraction must make the rotated width dim·fraction an even number >= 2 for scheme "
                         f"{scheme!r}; got fraction {fraction:g} ({dim}·{fraction:g} -> {d_r} channels)")
    parts = [inv_freq(d_r, base), np.zeros((dim - d_r) // 2)]
    return np.concatenate(parts if scheme == "partial" else parts[::-1])


def turns_within(freqs: object, length: float) -> np.ndarray:
    """How many full turns each pair makes over ``length`` tokens: ``length·|theta_i| / 2π`` (YaRN's r_i); the
    sign of a frequency only says which way the pair turns (mixed 2-D RoPE learns negative ones)."""
    theta = _array("freqs", freqs, max_len=MAX_DIM // 2, max_abs=1e6)
    length = check_float("length", length, 0.0, MAX_POSITION, lo_open=True)
    return length * np.abs(theta) / TWO_PI


def pair_roles(freqs: object, length: float) -> np.ndarray:
    """Each pair's role over a context of ``length`` tokens, as strings (dim/2,): "not rotated" (frequency 0),
    "under a quarter turn" (``length·|theta_i| < π/2``) or "turns". Under a quarter turn, ``cos(Δθ_i) > 0`` for
    every |Δ| <= length, so the rotation moves the pair's share of the score, ``|h_i| cos(Δθ_i + φ_i)`` with
    ``h_i = z^q_i conj(z^k_i) = |h_i| e^{jφ_i}`` (docs/FORMULAS.md §1.1), by less than a quarter turn from its value
    at Δ = 0; the share itself can still change sign when φ_i is near ±π/2. Such a pair is nearly
    position-free, a channel for meaning (Barbero et al. 2024).
    """
    angle = turns_within(freqs, length) * TWO_PI
    return np.where(angle == 0, "not rotated", np.where(angle < QUARTER_TURN, "under a quarter turn", "turns"))


# ---------------------------------------------------------------------------- 7. choosing the base

def slowest_wavelengths(dim: int, bases: object) -> np.ndarray:
    """Wavelength of the slowest pair, ``2π·b^((d−2)/d)``, for every base b in ``bases``, shape (B,)."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    b = _array("bases", bases, max_len=MAX_LENGTH, max_abs=1e12)
    if b.size and b.min() <= 1.0:
        raise ValueError(f"bases must all be > 1; got {b.min():g}")
    return TWO_PI * b ** ((dim - 2) / dim)


def first_negative_cos_sum(dim: int, base: float, length: int) -> int:
    """The first distance m in 0 .. length at which ``B_m = Σ_i cos(m·θ_i)`` is negative, or −1 if B stays >= 0.

    For a key equal to the query plus independent noise, the query's expected score for it exceeds that for an
    independent random key by ``2σ² B_m`` (σ² the variance of q's entries), since ``qᵀ R_m q = Σ_i |z^q_i|²
    cos(m·θ_i)``; Men et al. (2024, "Base of RoPE Bounds Context Length") ask B_m >= 0 for every m up to the
    context length and call the smallest base that achieves it the lower bound of the base for that length.
    Computed in chunks of at most 2^20 cosines, stopping at the first negative value.
    """
    theta = inv_freq(dim, base)
    length = check_int("length", length, 0, MAX_BOUND_LENGTH)
    check_cells(f"length: {length + 1:,} distances × {theta.size} pairs", (length + 1) * theta.size,
                MAX_BOUND_CELLS, "cosines")
    rows = max(1, (1 << 20) // theta.size)
    for start in range(0, length + 1, rows):
        m = np.arange(start, min(length + 1, start + rows), dtype=np.float64)  # (rows,)
        negative = np.flatnonzero(np.cos(np.outer(m, theta)).sum(axis=1) < 0)
        if negative.size:
            return int(start + negative[0])
    return -1


def base_for_wavelength(dim: int, length: float) -> float:
    """The base whose slowest pair has wavelength ``length``: ``b = (length/2π)^(d/(d−2))``, d >= 4."""
    dim = check_int("dim", dim, 4, MAX_DIM, even=True)
    length = check_float("length", length, TWO_PI, MAX_POSITION, lo_open=True)
    b = (length / TWO_PI) ** (dim / (dim - 2))
    if b > 1e12:
        raise ValueError(f"length: the base for a slowest wavelength of {length:g} at dim {dim} would be {b:.3g}, "
                         "above the largest base 1e12")
    return float(b)
