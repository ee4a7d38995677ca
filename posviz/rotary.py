"""The rotation RoPE applies (Su et al., RoFormer §3.2–3.4), in numpy: frequencies, angles, pair layouts, the
cos/sin tables a model stores and the rotation of a vector.

Pair i rotates by the angle ``m·theta_i`` at position m, ``theta_i = base**(-2i/dim)``. Two pair layouts
are in use and give identical attention scores when used consistently: "interleaved" pairs
``(x_2i, x_2i+1)`` (RoFormer paper, Meta, GPT-J) and "half" pairs ``(x_i, x_i+dim/2)`` (GPT-NeoX,
transformers' ``rotate_half``). The numpy functions here also know the teaching-only "mixed" layout, a bug
of real code (cos/sin concatenated as for "half", rotation interleaved), which is not a rotation.
docs/FORMULAS.md §1. Every rotation goes through one formula, ``out = x·cos + rotate(x)·sin`` with the
cos/sin tables of ``cos_sin_from_inv_freq`` (``_tables``) and the partner map of ``_partner``; the torch
twin ``posviz.rope.apply_rope`` shares ``_rotation``. ``posviz.rope`` re-exports every public name.
"""

from __future__ import annotations

import numpy as np

from posviz._validate import check_array, check_cells, check_choice, check_float, check_int
from posviz.sinusoidal import _ladder

LAYOUTS = ("interleaved", "half")
TEACHING_LAYOUTS = ("interleaved", "half", "mixed")
MAX_DIM = 4096
MAX_POSITION = 1e9  # |m| above this: float64 angles themselves lose whole radians
MAX_LENGTH = 1 << 16  # number of positions / offsets one call may take
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
    """Angular frequencies ``theta_i = base**(-2i/dim)`` (radians per token), shape (dim/2,), float64: the
    sinusoidal code's ladder (``posviz.sinusoidal.frequencies``)."""
    return _ladder("dim", dim, base, MAX_DIM)


def wavelengths(dim: int, base: float = 10000.0) -> np.ndarray:
    """Wavelength of each pair in tokens, ``lambda_i = 2π/theta_i``, shape (dim/2,)."""
    return 2 * np.pi / inv_freq(dim, base)


def angles(positions: object, dim: int, base: float = 10000.0, *, dtype: str = "float64") -> np.ndarray:
    """The rotation angles ``m·theta_i`` (radians, not wrapped), shape (T, dim/2).

    ``theta_i`` is the frequency (radians per token); the angle is position × frequency (some tutorials
    call the angle a frequency). ``dtype="float32"`` reproduces how transformers computes it (float32
    ``inv_freq`` times float32 positions), whose spacing at m ≈ 1e5 is ~0.01 rad (docs/FORMULAS.md §1.3).
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
    else:  # "interleaved" and the buggy "mixed" both rotate interleaved pairs
        idx = np.arange(dim) ^ 1  # swap 2i <-> 2i+1
        sign = np.tile([-1.0, 1.0], dim // 2)
    return idx, sign


def cos_sin_from_inv_freq(positions: object, inv_freq: object,
                          layout: str = "interleaved") -> tuple[np.ndarray, np.ndarray]:
    """The cos and sin tables a model stores, each (T, dim), float64, for explicit frequencies.

    "interleaved": each angle repeated in place ``[a0, a0, a1, a1, ..]`` (Meta/RoFormer);
    "half" and "mixed": angles concatenated ``[a0 .. a_{d/2-1}, a0 .. a_{d/2-1}]`` (HF). docs/FORMULAS.md §1.2.
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
    a rotation: norms drift and scores stop depending on m - n only.
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
