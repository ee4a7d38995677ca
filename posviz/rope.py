"""Rotary position embedding (RoPE; Su et al., RoFormer §3.2–3.4): frequencies and the rotation.

Pair i rotates by the angle ``m·theta_i`` at position m, ``theta_i = base**(-2i/dim)``. Two pair layouts
are in use and give identical attention scores when used consistently: "interleaved" pairs
``(x_2i, x_2i+1)`` (RoFormer paper, Meta, GPT-J) and "half" pairs ``(x_i, x_i+dim/2)`` (GPT-NeoX,
transformers' ``rotate_half``). reference/formulas.md §1. torch is imported lazily, only by the
functions that take tensors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from posviz._validate import check_choice, check_float, check_int

if TYPE_CHECKING:
    import torch

LAYOUTS = ("interleaved", "half")
MAX_DIM = 4096


def inv_freq(dim: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequencies ``theta_i = base**(-2i/dim)`` (radians per token), shape (dim/2,), float64."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, 1e12, lo_open=True)
    return base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)


def wavelengths(dim: int, base: float = 10000.0) -> np.ndarray:
    """Wavelength of each pair in tokens, ``lambda_i = 2π/theta_i``, shape (dim/2,)."""
    return 2 * np.pi / inv_freq(dim, base)


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
    T, dim = x.shape[-2], x.shape[-1]
    theta = torch.as_tensor(np.asarray(inv_freq, dtype=np.float64) if not isinstance(inv_freq, torch.Tensor)
                            else inv_freq, dtype=torch.float64)
    if dim % 2 or theta.shape != (dim // 2,):
        raise ValueError(f"inv_freq must have shape (dim/2,) = ({dim // 2},) for an even dim; "
                         f"got {tuple(theta.shape)} for dim {dim}")
    pos = torch.as_tensor(positions, dtype=torch.float64)
    if pos.shape != (T,):
        raise ValueError(f"positions must have shape (T,) = ({T},); got {tuple(pos.shape)}")
    if not torch.isfinite(pos).all():
        raise ValueError("positions must be finite numbers")
    angles = pos[:, None] * theta[None, :]  # (T, dim/2)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    if layout == "interleaved":
        u, v = x[..., 0::2], x[..., 1::2]  # (..., T, dim/2) each
        out = torch.stack([u * cos - v * sin, u * sin + v * cos], dim=-1)  # (..., T, dim/2, 2)
        return out.flatten(-2)  # (..., T, dim)
    u, v = x[..., : dim // 2], x[..., dim // 2:]  # (..., T, dim/2) each
    return torch.cat([u * cos - v * sin, u * sin + v * cos], dim=-1)  # (..., T, dim)


def deinterleave_permutation(dim: int) -> np.ndarray:
    """The permutation P = [0, 2, 4, .., dim-2, 1, 3, .., dim-1] with ``half(P·x) = P·interleaved(x)``."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    return np.concatenate([np.arange(0, dim, 2), np.arange(1, dim, 2)])
