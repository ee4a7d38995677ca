"""RoPE in two (or more) dimensions for image patches, and the 2-D sin/cos helpers of ``posviz.sincos2d``.

For a grid of H×W patches in row-major token order ``t = r·W + c`` (``r`` = row, ``c`` = column; rope-vit and
FLUX call the column ``x`` and the row ``y``): axial RoPE (rope-vit, base 100), RoPE-Mixed (Heo et al. 2024,
seeded random direction per head, base 10) and FLUX's ``EmbedND`` with three axes (16, 56, 56)
(docs/FORMULAS.md §4). Every variant is "pair k rotates by ``Σ_a coord_a · f_a[k]``": a coordinate matrix
(T, A) times a frequency matrix (A, dim/2). The rotation itself is :func:`posviz.rope.apply_rope`, applied once
per axis (rotations of the same plane add their angles). The additive 2-D sin/cos encodings (docs/FORMULAS.md
§3) live in ``posviz.sincos2d`` and are re-exported here. numpy everywhere, torch only inside the functions that
rotate tensors.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from posviz._validate import check_choice, check_float, check_int
from posviz.rope import apply_rope, inv_freq
from posviz.sincos2d import (  # noqa: F401 - the 2-D lesson's public API re-exports the sin/cos encodings
    MAX_D,
    MAX_ELEMENTS,
    MAX_GRID,
    _check_base,
    _check_grid,
    _float_array,
    antialias_gap,
    axis_response,
    patch_similarity,
    resize_channel_maps,
    resize_error,
    resize_parts,
    resize_sincos_2d,
    separable_parts,
    sincos_2d_at,
    sincos_2d_channel_info,
    sincos_2d_channels,
    transpose_gap,
)

if TYPE_CHECKING:
    import torch

FLUX_AXES = (16, 56, 56)
FLUX_THETA = 10000.0
ROPE2D_KINDS = ("axial", "mixed")
CONTENTS = ("ones", "random")
DEFAULT_BASE = {"axial": 100.0, "mixed": 10.0}


# ---------------------------------------------------------------------------------------------------
# RoPE in two or more dimensions (rope-vit axial and mixed; FLUX EmbedND)
# ---------------------------------------------------------------------------------------------------

def grid_coords(height: int, width: int) -> np.ndarray:
    """Coordinates ``(x, y) = (column, row)`` of every patch in row-major order, shape (H·W, 2), float64."""
    height = check_int("height", height, 1, MAX_GRID)
    width = check_int("width", width, 1, MAX_GRID)
    y, x = np.divmod(np.arange(height * width), width)  # row, column of token t = r·W + c
    return np.stack([x, y], axis=1).astype(np.float64)  # (H·W, 2)


def axial_rope_freqs(dim: int, base: float = 100.0) -> np.ndarray:
    """Axial 2-D RoPE frequencies as a (2, dim/2) matrix ``[f_x; f_y]`` (rope-vit ``compute_axial_cis``).

    ``ω_k = base**(-4k/dim)``, ``k < dim/4`` (= :func:`posviz.rope.inv_freq` of width dim/2): pairs
    ``0 … dim/4−1`` turn with x (column) only, pairs ``dim/4 … dim/2−1`` with y (row) only. Default base
    100 as in RoPE-ViT. docs/FORMULAS.md §4.1.
    """
    dim = check_int("dim", dim, 4, MAX_D, multiple_of=4)
    w = inv_freq(dim // 2, _check_base(base))  # (dim/4,)
    zeros = np.zeros_like(w)
    return np.stack([np.concatenate([w, zeros]), np.concatenate([zeros, w])])  # (2, dim/2)


def mixed_rope_freqs(dim: int, num_heads: int = 1, base: float = 10.0, seed: int = 0,
                     rotate: bool = True) -> np.ndarray:
    """RoPE-Mixed initial frequencies per head, shape (num_heads, 2, dim/2): ``[f_x; f_y]`` for each head.

    Magnitudes ``μ_k = base**(-4k/dim)`` (``k < dim/4``, base 10 in rope-vit ``init_random_2d_freqs``);
    one angle ``φ ~ U[0, 2π)`` per head from ``numpy.random.default_rng(seed)`` (``rotate=False``: φ = 0):
    ``f_x = [μ cos φ, μ cos(φ + π/2)]``, ``f_y = [μ sin φ, μ sin(φ + π/2)]``, so the first dim/4 pairs
    turn along direction φ and the rest along the orthogonal one. Trained afterwards; this is the
    initialisation. docs/FORMULAS.md §4.2 (Heo et al. 2024).
    """
    dim = check_int("dim", dim, 4, MAX_D, multiple_of=4)
    num_heads = check_int("num_heads", num_heads, 1, 64)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    if not isinstance(rotate, bool):
        raise ValueError(f"rotate must be True or False; got {rotate!r}")
    mu = inv_freq(dim // 2, _check_base(base))  # (dim/4,)
    phi = np.random.default_rng(seed).uniform(0.0, 2 * np.pi, num_heads) if rotate else np.zeros(num_heads)
    phi = phi[:, None]  # (heads, 1)
    fx = np.concatenate([mu * np.cos(phi), mu * np.cos(phi + np.pi / 2)], axis=1)  # (heads, dim/2)
    fy = np.concatenate([mu * np.sin(phi), mu * np.sin(phi + np.pi / 2)], axis=1)  # (heads, dim/2)
    return np.stack([fx, fy], axis=1)  # (heads, 2, dim/2)


def axial_rope_angles(height: int, width: int, dim: int, base: float = 100.0) -> np.ndarray:
    """Rotation angle of every pair at every patch for axial 2-D RoPE, shape (H·W, dim/2), row-major."""
    height, width, dim = _check_grid(height, width, dim, "dim")
    return grid_coords(height, width) @ axial_rope_freqs(dim, base)  # (H·W, 2) @ (2, dim/2)


def mixed_rope_angles(height: int, width: int, dim: int, base: float = 10.0, seed: int = 0,
                      head: int = 0) -> np.ndarray:
    """Rotation angles ``f_x[k]·x + f_y[k]·y`` of head ``head`` for RoPE-Mixed, shape (H·W, dim/2)."""
    height, width, dim = _check_grid(height, width, dim, "dim")
    head = check_int("head", head, 0, 63)
    return grid_coords(height, width) @ mixed_rope_freqs(dim, head + 1, base, seed)[head]  # (H·W, dim/2)


def flux_ids(height: int, width: int, n_text: int = 0) -> np.ndarray:
    """FLUX.1 position ids, shape (n_text + H·W, 3): text tokens first, all ``(0, 0, 0)``, then image
    patches ``(0, row, col)`` in row-major order (black-forest-labs/flux ``sampling.prepare``)."""
    height = check_int("height", height, 1, MAX_GRID)
    width = check_int("width", width, 1, MAX_GRID)
    n_text = check_int("n_text", n_text, 0, 4096)
    img = np.zeros((height * width, 3))
    img[:, 1:] = grid_coords(height, width)[:, ::-1]  # (H·W, 2): (row, col)
    return np.concatenate([np.zeros((n_text, 3)), img])  # (n_text + H·W, 3)


def flux_rope_freqs(axes_dim: tuple[int, ...] = FLUX_AXES, theta: float = FLUX_THETA) -> np.ndarray:
    """FLUX ``EmbedND`` frequencies as an (A, Σd_a/2) matrix: axis a owns its own block of pairs.

    Block a holds ``θ**(-2k/d_a)`` (normalised by the axis' own width d_a, :func:`posviz.rope.inv_freq`),
    zeros elsewhere; blocks are concatenated in axis order. FLUX.1: ``axes_dim = (16, 56, 56)``,
    ``θ = 10000``. docs/FORMULAS.md §4.3.
    """
    axes = tuple(axes_dim) if isinstance(axes_dim, (tuple, list)) else None
    if not axes or len(axes) > 8:
        raise ValueError(f"axes_dim must be a tuple of 1 to 8 even widths; got {axes_dim!r}")
    axes = tuple(check_int("axes_dim", a, 2, MAX_D, even=True) for a in axes)
    if sum(axes) > MAX_D:
        raise ValueError(f"axes_dim must sum to at most {MAX_D}; got {sum(axes)}")
    theta = check_float("theta", theta, 1.0, 1e12, lo_open=True)
    freqs = np.zeros((len(axes), sum(axes) // 2))
    start = 0
    for a, d in enumerate(axes):
        freqs[a, start:start + d // 2] = inv_freq(d, theta)
        start += d // 2
    return freqs  # (A, Σd_a/2)


def flux_rope_angles(ids: np.ndarray, axes_dim: tuple[int, ...] = FLUX_AXES,
                     theta: float = FLUX_THETA) -> np.ndarray:
    """Rotation angle of every pair for FLUX position ids (N, A), shape (N, Σd_a/2).

    Text tokens have ids ``(0, 0, 0)``, so all their angles are 0: RoPE is the identity on every text
    token in FLUX.1 (their order comes from the text encoder, not from RoPE).
    """
    freqs = flux_rope_freqs(axes_dim, theta)
    ids = _float_array("ids", ids, 2)
    if ids.shape[1] != freqs.shape[0] or not 1 <= ids.shape[0] <= 1 << 16:
        raise ValueError(f"ids must have shape (N, {freqs.shape[0]}) with 1 <= N <= 65536; got {ids.shape}")
    return ids @ freqs  # (N, A) @ (A, Σd_a/2)


def rope_nd_rotate(x: torch.Tensor, coords: np.ndarray, freqs: np.ndarray) -> torch.Tensor:
    """Rotate x (..., T, dim) so pair k at token t turns by ``Σ_a coords[t, a]·freqs[a, k]``.

    One :func:`posviz.rope.apply_rope` (interleaved pairs) per axis a with positions ``coords[:, a]`` and
    frequencies ``freqs[a]``, restricted to the pairs that axis turns (axial and FLUX give each axis its own
    block): two rotations of the same plane add their angles, so the order does not matter. Axial, mixed
    and FLUX RoPE are all this with different (coords, freqs).
    """
    import torch

    if not isinstance(x, torch.Tensor) or x.ndim < 2:
        raise ValueError(f"x must be a torch tensor of shape (..., T, dim); got {type(x).__name__}")
    coords = _float_array("coords", coords, 2)
    freqs = _float_array("freqs", freqs, 2, max_abs=1e6)
    if coords.shape[1] != freqs.shape[0]:
        raise ValueError(f"coords (T, A) and freqs (A, dim/2) must agree on A; "
                         f"got {coords.shape}, {freqs.shape}")
    if not hasattr(x, "shape") or x.shape[-1] != 2 * freqs.shape[1]:
        raise ValueError(f"x must have dim = 2·freqs.shape[1] = {2 * freqs.shape[1]} channels; got {x.shape[-1]}")
    for a in range(freqs.shape[0]):
        pairs = np.flatnonzero(freqs[a])  # the pairs axis a turns
        if len(pairs) == 0:
            continue
        if len(pairs) == freqs.shape[1]:
            x = apply_rope(x, coords[:, a], freqs[a], layout="interleaved")
            continue
        ch = torch.from_numpy(np.stack([2 * pairs, 2 * pairs + 1], axis=1).reshape(-1))  # (2·n,)
        x = x.clone()
        x[..., ch] = apply_rope(x[..., ch], coords[:, a], freqs[a, pairs], layout="interleaved")
    return x


def _content(dim: int, content: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Query and key vectors before rotation: all equal (score = mean cos of the angle gaps) or random."""
    if content == "ones":
        v = np.full(dim, 1.0 / np.sqrt(dim))
        return v, v
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, dim)) / dim ** 0.25
    return q, k


def rope_nd_scores(coords: np.ndarray, freqs: np.ndarray, query_index: int, content: str = "ones",
                   seed: int = 0) -> np.ndarray:
    """Score ``R(a_q) q · R(a_t) k`` of the query token against every token t, shape (T,), float64.

    ``content="ones"``: q = k = (1, …, 1)/√dim, so the score is the mean over pairs of ``cos(a_q − a_t)``
    (1 at the query itself); ``"random"``: seeded Gaussian q and k (a generic head). Computed in the
    relative form RoPE is built for, ``Σ_k Re[q̃_k conj(k̃_k) e^{i(a_q,k − a_t,k)}]`` with the pairs as
    complex numbers (numpy, one (T, dim/2) cos/sin table): the score sees the two tokens only through
    the angle gaps. Tested equal to rotating with :func:`rope_nd_rotate` (``apply_rope``) and taking the
    dot product.
    """
    content = check_choice("content", content, CONTENTS)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    coords = _float_array("coords", coords, 2)
    freqs = _float_array("freqs", freqs, 2, max_abs=1e6)
    if coords.shape[1] != freqs.shape[0] or coords.shape[0] < 1 or freqs.shape[1] < 1:
        raise ValueError(f"coords (T, A) and freqs (A, dim/2) must agree on A and be non-empty; "
                         f"got {coords.shape}, {freqs.shape}")
    if coords.shape[0] * freqs.shape[1] > MAX_ELEMENTS:
        raise ValueError(f"coords: {coords.shape[0]} tokens × {freqs.shape[1]} pairs exceeds {MAX_ELEMENTS}")
    T, dim = coords.shape[0], 2 * freqs.shape[1]
    query_index = check_int("query_index", query_index, 0, T - 1)
    q, k = _content(dim, content, seed)
    w = (q[0::2] + 1j * q[1::2]) * np.conj(k[0::2] + 1j * k[1::2])  # (dim/2,) q̃·conj(k̃)
    angles = coords @ freqs  # (T, dim/2)
    gap = angles[query_index] - angles  # (T, dim/2): a_q − a_t
    return np.cos(gap) @ w.real - np.sin(gap) @ w.imag  # (T,)


def rope2d_scores(height: int, width: int, dim: int, query_row: int, query_col: int, kind: str = "axial",
                  base: float | None = None, seed: int = 0, head: int = 0,
                  content: str = "ones") -> np.ndarray:
    """Score between the query patch (query_row, query_col) and every key patch, shape (H, W).

    ``kind="axial"`` (rope-vit, default base 100) or ``"mixed"`` (RoPE-Mixed initialisation, default base
    10, random direction of head ``head`` from ``seed``). Both have phases linear in (x, y), so the score
    depends only on the offset (dx, dy) between query and key. See :func:`rope_nd_scores`.
    """
    kind = check_choice("kind", kind, ROPE2D_KINDS)
    height, width, dim = _check_grid(height, width, dim, "dim", hi=512)
    query_row = check_int("query_row", query_row, 0, height - 1)
    query_col = check_int("query_col", query_col, 0, width - 1)
    base = _check_base(DEFAULT_BASE[kind] if base is None else base)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    head = check_int("head", head, 0, 63)
    content = check_choice("content", content, CONTENTS)
    return _rope2d_scores(kind, height, width, dim, query_row, query_col, base, seed, head, content).copy()


@functools.lru_cache(maxsize=16)  # validated primitives only; a page draws the same maps for a figure and a check
def _rope2d_scores(kind: str, height: int, width: int, dim: int, query_row: int, query_col: int, base: float,
                   seed: int, head: int, content: str) -> np.ndarray:
    freqs = axial_rope_freqs(dim, base) if kind == "axial" else mixed_rope_freqs(dim, head + 1, base, seed)[head]
    scores = rope_nd_scores(grid_coords(height, width), freqs, query_row * width + query_col, content, seed)
    return scores.reshape(height, width)  # (H, W)


def rope2d_offset_gap(height: int, width: int, dim: int, query_a: tuple[int, int], query_b: tuple[int, int],
                      kind: str = "axial", base: float | None = None, seed: int = 0, head: int = 0,
                      content: str = "ones") -> float:
    """Largest ``|S_a(dx, dy) − S_b(dx, dy)|`` over the offsets both query patches can see (≈ 1e-15).

    ``S_q(dx, dy)`` is the score of query patch q with the key at (row + dy, col + dx). 0 up to rounding
    means the score depends on the offset only, not on where the query sits.
    """
    _check_pairs(query_a, query_b)
    sa = rope2d_scores(height, width, dim, query_a[0], query_a[1], kind, base, seed, head, content)
    sb = rope2d_scores(height, width, dim, query_b[0], query_b[1], kind, base, seed, head, content)
    return shared_offset_gap(sa, sb, query_a, query_b)


def _check_pairs(query_a: object, query_b: object) -> None:
    for name, q in (("query_a", query_a), ("query_b", query_b)):
        if not isinstance(q, (tuple, list)) or len(q) != 2:
            raise ValueError(f"{name} must be a (row, col) pair; got {q!r}"[:120])
        for v in q:
            check_int(name, v, 0, MAX_GRID - 1)


def shared_offset_gap(scores_a: np.ndarray, scores_b: np.ndarray, query_a: tuple[int, int],
                      query_b: tuple[int, int]) -> float:
    """Largest difference between two (H, W) score maps compared at equal offsets from their queries."""
    sa, sb = _float_array("scores_a", scores_a, 2, 1e300), _float_array("scores_b", scores_b, 2, 1e300)
    if sa.shape != sb.shape or sa.size == 0:
        raise ValueError(f"scores_a and scores_b must be (H, W) maps of one shape; got {sa.shape}, {sb.shape}")
    _check_pairs(query_a, query_b)
    height, width = sa.shape
    ra, ca = (check_int("query_a", v, 0, n - 1) for v, n in zip(query_a, (height, width)))
    rb, cb = (check_int("query_b", v, 0, n - 1) for v, n in zip(query_b, (height, width)))
    dy0, dy1 = max(-ra, -rb), min(height - 1 - ra, height - 1 - rb)
    dx0, dx1 = max(-ca, -cb), min(width - 1 - ca, width - 1 - cb)
    wa = sa[ra + dy0:ra + dy1 + 1, ca + dx0:ca + dx1 + 1]
    wb = sb[rb + dy0:rb + dy1 + 1, cb + dx0:cb + dx1 + 1]
    return float(np.abs(wa - wb).max())


def flux_rope_scores(height: int, width: int, n_text: int, query_index: int, content: str = "ones",
                     seed: int = 0, axes_dim: tuple[int, ...] = FLUX_AXES,
                     theta: float = FLUX_THETA) -> np.ndarray:
    """Score of token ``query_index`` against every FLUX token (text first, then patches), shape (N,).

    Text tokens sit at ids (0, 0, 0) like the top-left patch: RoPE cannot tell them apart, so a query
    scores every text token (and patch (0, 0)) the same.
    """
    ids = flux_ids(height, width, n_text)
    return rope_nd_scores(ids, flux_rope_freqs(axes_dim, theta), query_index, content, seed)
