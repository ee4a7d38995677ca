"""Rotary position embedding (RoPE; Su et al., RoFormer §3.2–3.4): frequencies and the rotation.

Pair i rotates by the angle ``m·theta_i`` at position m, ``theta_i = base**(-2i/dim)``. Two pair layouts
are in use and give identical attention scores when used consistently: "interleaved" pairs
``(x_2i, x_2i+1)`` (RoFormer paper, Meta, GPT-J) and "half" pairs ``(x_i, x_i+dim/2)`` (GPT-NeoX,
transformers' ``rotate_half``). The numpy twins below also know the teaching-only "mixed" layout of
seeds 001/002 (cos/sin concatenated as for "half", rotation interleaved), which is not a rotation.
reference/formulas.md §1. torch is imported lazily, only by the functions that take tensors.

Every rotation in this module goes through one formula, ``out = x·cos + rotate(x)·sin`` with the
cos/sin tables of ``cos_sin_from_inv_freq`` (``_tables``) and the partner map of ``_partner``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from posviz._validate import check_array, check_cells, check_choice, check_float, check_int

if TYPE_CHECKING:
    import torch

LAYOUTS = ("interleaved", "half")
TEACHING_LAYOUTS = ("interleaved", "half", "mixed")
PRESETS = ("random", "ones")
MAX_DIM = 4096
MAX_POSITION = 1e9  # |m| above this: float64 angles themselves lose whole radians
MAX_LENGTH = 1 << 16  # number of positions / offsets one call may take
MAX_GRID = 2048  # score_grid is (T, T)
MAX_CELLS = 1 << 22  # rows × pairs for the (T, d/2) intermediate arrays (64 MB as complex128)
MAX_SEQUENCE = 1 << 20  # apply_rope / rotate: positions per call (a 1M-token sequence)
MAX_TABLE = 1 << 20  # apply_rope / rotate: T × d/2 angles (measured peak ~100 MB at the cap, float64)
TWO_PI = 2 * np.pi


# ---------------------------------------------------------------------------- argument helpers

def _array(name: str, values: object, *, max_len: int = MAX_LENGTH, max_abs: float = MAX_POSITION,
           ndim: int = 1) -> np.ndarray:
    """``values`` as a finite float64 array of ``ndim`` dims (``posviz._validate.check_array``)."""
    return check_array(name, values, ndim=ndim, max_size=max_len, lo=-max_abs, hi=max_abs, scalar_ok=True)


def _vector(name: str, values: object, dim: int | None = None) -> np.ndarray:
    """A finite (dim,) float64 vector with an even dim in [2, MAX_DIM]."""
    v = _array(name, values, max_len=MAX_DIM, max_abs=1e12)
    if v.size < 2 or v.size % 2:
        raise ValueError(f"{name} must have an even length in [2, {MAX_DIM}]; got {v.size}")
    if dim is not None and v.size != dim:
        raise ValueError(f"{name} must have length {dim} (the same as q); got {v.size}")
    return v


# ---------------------------------------------------------------------------- frequencies and angles

def inv_freq(dim: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequencies ``theta_i = base**(-2i/dim)`` (radians per token), shape (dim/2,), float64."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, 1e12, lo_open=True)
    return base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)


def wavelengths(dim: int, base: float = 10000.0) -> np.ndarray:
    """Wavelength of each pair in tokens, ``lambda_i = 2π/theta_i``, shape (dim/2,)."""
    return 2 * np.pi / inv_freq(dim, base)


def angles(positions: object, dim: int, base: float = 10000.0, *, dtype: str = "float64") -> np.ndarray:
    """The rotation angles ``m·theta_i`` (radians, not wrapped), shape (T, dim/2).

    ``theta_i`` is the frequency (radians per token); the angle is position × frequency (seed 003 calls
    the angle a frequency). ``dtype="float32"`` reproduces how transformers computes it (float32
    ``inv_freq`` times float32 positions), whose spacing at m ≈ 1e5 is ~0.01 rad (formulas.md §1.3).
    """
    return _angles("positions", positions, dim, base, dtype)


def _angles(name: str, values: object, dim: int, base: float, dtype: str = "float64") -> np.ndarray:
    dtype = check_choice("dtype", dtype, ("float64", "float32"))
    theta = inv_freq(dim, base)
    pos = _array(name, values)
    _check_cells(name, pos.size, theta.size)
    if dtype == "float32":
        return pos.astype(np.float32)[:, None] * theta.astype(np.float32)[None, :]  # (T, d/2) float32
    return pos[:, None] * theta[None, :]  # (T, d/2)


def wrapped_pairs(m: float, dim: int, base: float = 10000.0) -> np.ndarray:
    """Which pairs have turned at least once by position m: ``|m|·theta_i >= 2π``, bool (dim/2,)."""
    m = check_float("m", m, -MAX_POSITION, MAX_POSITION)
    return abs(m) * inv_freq(dim, base) >= TWO_PI


def _check_cells(name: str, rows: int, pairs: int, cap: int = MAX_CELLS) -> None:
    check_cells(f"{name}: {rows} values × {pairs} pairs", rows * pairs, cap, "cells")


# ---------------------------------------------------------------------------- layouts

def deinterleave_permutation(dim: int) -> np.ndarray:
    """The permutation P = [0, 2, 4, .., dim-2, 1, 3, .., dim-1] with ``half(P·x) = P·interleaved(x)``."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    return np.concatenate([np.arange(0, dim, 2), np.arange(1, dim, 2)])


def pair_channels(dim: int, layout: str = "interleaved") -> np.ndarray:
    """Channel indices (u, v) of each pair, shape (dim/2, 2): (2i, 2i+1) interleaved, (i, i+dim/2) half."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    layout = check_choice("layout", layout, LAYOUTS)
    i = np.arange(dim // 2)
    if layout == "interleaved":
        return np.stack([2 * i, 2 * i + 1], axis=1)  # (d/2, 2)
    return np.stack([i, i + dim // 2], axis=1)  # (d/2, 2)


def _partner(dim: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """``rotate(x) = x[..., idx] * sign``: interleaved ``[-x1, x0, -x3, x2, ..]``; half ``[-x_hi, x_lo]``."""
    if layout == "half":
        h = dim // 2
        idx = np.concatenate([np.arange(h, dim), np.arange(h)])
        sign = np.concatenate([-np.ones(h), np.ones(h)])
    else:  # "interleaved" and the seeds' "mixed" both rotate interleaved pairs
        idx = np.arange(dim) ^ 1  # swap 2i <-> 2i+1
        sign = np.tile([-1.0, 1.0], dim // 2)
    return idx, sign


def cos_sin_from_inv_freq(positions: object, inv_freq: object,
                          layout: str = "interleaved") -> tuple[np.ndarray, np.ndarray]:
    """The cos and sin tables a model stores, each (T, dim), float64, for explicit frequencies.

    "interleaved": each angle repeated in place ``[a0, a0, a1, a1, ..]`` (Meta/RoFormer);
    "half" and "mixed": angles concatenated ``[a0 .. a_{d/2-1}, a0 .. a_{d/2-1}]`` (HF). formulas.md §1.2.
    """
    layout = check_choice("layout", layout, TEACHING_LAYOUTS)
    theta = _array("inv_freq", inv_freq, max_len=MAX_DIM // 2, max_abs=1e6)
    if theta.size < 1:
        raise ValueError("inv_freq must hold at least one frequency")
    pos = _array("positions", positions)
    _check_cells("positions", pos.size, theta.size)
    return _tables(pos, theta, layout)


def _tables(pos: np.ndarray, theta: np.ndarray, layout: str) -> tuple[np.ndarray, np.ndarray]:
    a = pos[:, None] * theta[None, :]  # (T, d/2)
    if layout == "interleaved":
        a = np.repeat(a, 2, axis=1)  # (T, d)
    else:
        a = np.concatenate([a, a], axis=1)  # (T, d)
    return np.cos(a), np.sin(a)


def cos_sin(positions: object, dim: int, base: float = 10000.0,
            layout: str = "interleaved") -> tuple[np.ndarray, np.ndarray]:
    """The (T, dim) cos and sin tables for ``theta_i = base**(-2i/dim)`` in ``layout`` (see above)."""
    return cos_sin_from_inv_freq(positions, inv_freq(dim, base), layout)


def rotate(x: object, positions: object, inv_freq: object, layout: str = "interleaved") -> np.ndarray:
    """Numpy twin of ``apply_rope`` for x (..., T, dim), float64; also takes the buggy "mixed" layout.

    ``out = x·cos + rotate(x)·sin`` (one formula for every layout; HF writes the same with
    ``rotate_half``). With "mixed" the pair (x_2i, x_2i+1) gets two different angles, so the map is not
    a rotation: norms drift and scores stop depending on m - n only (seeds 001, 002).
    """
    layout = check_choice("layout", layout, TEACHING_LAYOUTS)
    arr = _as_float_array("x", x)
    if arr.ndim < 2:
        raise ValueError(f"x must have shape (..., T, dim); got shape {arr.shape}")
    cos, sin, idx, sign = _rotation(arr.shape[-2], arr.shape[-1], positions, inv_freq, layout)
    return arr * cos + arr[..., idx] * sign * sin


def _rotation(T: int, dim: int, positions: object, inv_freq: object,
              layout: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Validated cos/sin tables (T, dim) and the partner index and sign of every channel, so that
    ``x·cos + x[..., idx]·sign·sin`` rotates x (shared by ``rotate`` and ``apply_rope``)."""
    if dim % 2 or dim < 2:
        raise ValueError(f"x must have an even number of channels dim >= 2 on its last axis; got {dim}")
    theta = _array("inv_freq", inv_freq, max_len=MAX_DIM // 2, max_abs=1e6)
    if theta.shape != (dim // 2,):
        raise ValueError(f"inv_freq must have shape (dim/2,) = ({dim // 2},) for an even dim; "
                         f"got {tuple(theta.shape)} for dim {dim}")
    pos = _array("positions", positions, max_len=MAX_SEQUENCE)
    if pos.shape != (T,):
        raise ValueError(f"positions must have shape (T,) = ({T},); got {tuple(pos.shape)}")
    _check_cells("positions", T, theta.size, MAX_TABLE)
    cos, sin = _tables(pos, theta, layout)  # (T, d) each, float64
    idx, sign = _partner(dim, layout)
    return cos, sin, idx, sign


def _as_float_array(name: str, x: object) -> np.ndarray:
    return check_array(name, x, max_size=MAX_CELLS)


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
    ``(u u' + v v')·cos(Δ theta_i) + (u v' - v u')·sin(Δ theta_i)`` (formulas.md §1.1). For any q and k
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
    """Numeric check that the two layouts agree up to the permutation P (formulas.md §1.2).

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
    """RoFormer's relative upper bound ``B(Δ) = (1/(d/2)) Σ_{j=1}^{d/2} |S_j|``, ``S_j = Σ_{i<j} e^{iΔθ_i}``.

    From Abel summation (RoFormer §3.4.3): ``|score| <= max_i |h_{i+1} - h_i| · (d/2)·B(Δ)``. A bound, not
    the score, and not monotone in Δ: it decays only in envelope. formulas.md §1.4 (B(0) = 32.5 at d = 128).
    """
    ang = _angles("deltas", deltas, dim, base)  # (D, d/2)
    partial = np.cumsum(np.exp(1j * ang), axis=1)  # (D, d/2): S_1 .. S_{d/2}
    return np.abs(partial).mean(axis=1)


def cos_sum(deltas: object, dim: int, base: float = 10000.0) -> np.ndarray:
    """``Σ_i cos(Δ theta_i)``: half the score of q = k = all-ones at offset Δ; it dips below zero."""
    return np.cos(_angles("deltas", deltas, dim, base)).sum(axis=1)


def mean_random_score(deltas: object, dim: int, base: float = 10000.0, n_samples: int = 512,
                      seed: int = 0) -> np.ndarray:
    """Mean score at offset Δ over ``n_samples`` independent standard-normal (q, k): ≈ 0 at every Δ.

    For independent zero-mean q and k every pair term has expectation 0, so there is no decay to see;
    the curve is sampling noise of size ~ sqrt(d / n_samples).
    """
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    n_samples = check_int("n_samples", n_samples, 1, 4096)
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
    (T,). The error grows like m × 2^-24: several 1e-3 at m = 1e5 (formulas.md §1.3: up to ~1e-2).
    """
    a64 = angles(positions, dim, base)  # (T, d/2)
    a32 = angles(positions, dim, base, dtype="float32")  # (T, d/2) float32
    err_cos = np.abs(np.cos(a32).astype(np.float64) - np.cos(a64))
    err_sin = np.abs(np.sin(a32).astype(np.float64) - np.sin(a64))
    return np.maximum(err_cos, err_sin).max(axis=1)


# 2-D RoPE (axial, RoPE-Mixed, FLUX) lives in posviz.rope2d, which builds on this module; its public
# functions are also reachable here (``posviz.rope.axial_rope_angles``), loaded on first use.
_ROPE2D = ("axial_rope_freqs", "axial_rope_angles", "mixed_rope_freqs", "mixed_rope_angles", "flux_ids",
           "flux_rope_freqs", "flux_rope_angles", "rope_nd_rotate", "rope_nd_scores", "rope2d_scores",
           "rope2d_offset_gap", "shared_offset_gap", "flux_rope_scores")


def __getattr__(name: str) -> object:
    if name in _ROPE2D:
        from posviz import rope2d

        return getattr(rope2d, name)
    raise AttributeError(f"module 'posviz.rope' has no attribute {name!r}")
