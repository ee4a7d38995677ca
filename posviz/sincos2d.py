"""2-D sin/cos position encodings for image patches (MAE's layout, and the "concat"/"add" variants).

For a grid of H×W patches in row-major token order ``t = r·W + c`` (``r`` = row, ``c`` = column): helpers
around :func:`posviz.sinusoidal.sinusoidal_2d` — the table at real-valued coordinates, cosine similarity
between patches, which channels follow which axis, and the bicubic resize ViTs apply when the grid changes
(docs/FORMULAS.md §3). The grid checks here are shared with the rotary 2-D encodings of ``posviz.rope2d``,
which re-exports every public name of this module. numpy everywhere, torch only inside the resize.
"""

from __future__ import annotations

import numpy as np

from posviz._validate import check_array, check_choice, check_float, check_int
from posviz.sinusoidal import COMBINE_2D, frequencies, sinusoidal_2d

MAX_GRID = 128           # patches per side
MAX_D = 1024             # channels of a 2-D sin/cos encoding or rotary head dim
MAX_ELEMENTS = 1 << 23   # H·W·D cap (64 MB in float64) so no call allocates more than a few hundred MB


def _check_grid(height: object, width: object, d: object, d_name: str = "d_model",
                multiple_of: int = 4, hi: int = MAX_D) -> tuple[int, int, int]:
    height = check_int("height", height, 1, MAX_GRID)
    width = check_int("width", width, 1, MAX_GRID)
    d = check_int(d_name, d, multiple_of, hi, multiple_of=multiple_of)
    if height * width * d > MAX_ELEMENTS:
        raise ValueError(f"{d_name} must keep height·width·{d_name} <= {MAX_ELEMENTS}; got "
                         f"{height}·{width}·{d} = {height * width * d}")
    return height, width, d


def _check_sincos(height: object, width: object, d_model: object,
                  combine: object) -> tuple[int, int, int, str]:
    combine = check_choice("combine", combine, COMBINE_2D)
    height, width, d_model = _check_grid(height, width, d_model, multiple_of=4 if combine != "add" else 2)
    return height, width, d_model, combine


def _float_array(name: str, value: object, ndim: int, max_abs: float = 1e7) -> np.ndarray:
    """``value`` as a finite float64 array with ``ndim`` dims (``posviz._validate.check_array``)."""
    return check_array(name, value, ndim=ndim, lo=-max_abs, hi=max_abs)


def _check_base(base: object) -> float:
    return check_float("base", base, 1.0, 1e12, lo_open=True)


# ---------------------------------------------------------------------------------------------------
# 2-D sin/cos (MAE; the "concat" and "add" variants)
# ---------------------------------------------------------------------------------------------------

def _table_1d(pos: np.ndarray, d: int, base: float, layout: str) -> np.ndarray:
    """The 1-D sin/cos table of real positions ``pos`` (P,), width d, shape (P, d)."""
    angles = pos[:, None] * frequencies(d, base)[None, :]  # (P, d/2)
    sin, cos = np.sin(angles), np.cos(angles)
    if layout == "concat":
        return np.concatenate([sin, cos], axis=1)  # (P, d)
    return np.stack([sin, cos], axis=2).reshape(len(pos), d)  # (P, d/2, 2) -> (P, d)


def sincos_2d_at(rows: np.ndarray, cols: np.ndarray, d_model: int, base: float = 10000.0,
                 combine: str = "concat") -> np.ndarray:
    """:func:`~posviz.sinusoidal.sinusoidal_2d` evaluated at real-valued coordinates, shape (R, C, d).

    Same three layouts ("concat", "add", "mae"; docs/FORMULAS.md §3) but the row and column coordinates may be
    fractional, e.g. the points a bicubic resize samples. At ``rows = arange(H)``, ``cols = arange(W)`` it
    equals ``sinusoidal_2d(H, W, d_model, base, combine)``.
    """
    combine = check_choice("combine", combine, COMBINE_2D)
    r = _float_array("rows", rows, 1)
    c = _float_array("cols", cols, 1)
    check_int("len(rows)", len(r), 0, MAX_GRID)
    check_int("len(cols)", len(c), 0, MAX_GRID)
    _check_grid(max(len(r), 1), max(len(c), 1), d_model, multiple_of=4 if combine != "add" else 2)
    if len(r) == 0 or len(c) == 0:
        raise ValueError("rows and cols must each hold at least one coordinate")
    base = _check_base(base)
    if combine == "add":
        return _table_1d(r, d_model, base, "interleaved")[:, None, :] + \
            _table_1d(c, d_model, base, "interleaved")[None, :, :]  # (R, C, d)
    half = d_model // 2
    layout = "concat" if combine == "mae" else "interleaved"
    tr = np.broadcast_to(_table_1d(r, half, base, layout)[:, None, :], (len(r), len(c), half))  # (R, C, d/2)
    tc = np.broadcast_to(_table_1d(c, half, base, layout)[None, :, :], (len(r), len(c), half))  # (R, C, d/2)
    first, second = (tc, tr) if combine == "mae" else (tr, tc)
    return np.concatenate([first, second], axis=2)  # (R, C, d)


def sincos_2d_channel_info(d_model: int, base: float = 10000.0,
                           combine: str = "concat") -> dict[str, np.ndarray]:
    """For every channel of the 2-D sin/cos encoding: the axis it follows, sin or cos, and its frequency.

    Returns ``{"axis": (d,) of "row" | "column" | "row+column", "fn": (d,) of "sin" | "cos",
    "omega": (d,) radians per patch}``. MAE's first half follows the COLUMN although its code names it
    ``emb_h`` (https://github.com/facebookresearch/mae/issues/18); the "concat" mode puts the row first. In
    "concat" and "mae" each axis gets d/2 channels with ``w_k = base**(-4k/d)``, so in MAE's [sin | cos]
    halves channel d/4 of a half turns as fast as channel 0.
    """
    combine = check_choice("combine", combine, COMBINE_2D)
    d_model = check_int("d_model", d_model, 4, MAX_D, multiple_of=4 if combine != "add" else 2)
    base = _check_base(base)
    if combine == "add":
        w = frequencies(d_model, base)
        fn = np.tile(np.array(["sin", "cos"]), d_model // 2)
        return {"axis": np.full(d_model, "row+column"), "fn": fn, "omega": np.repeat(w, 2)}
    half, w = d_model // 2, frequencies(d_model // 2, base)
    if combine == "mae":
        fn_half = np.repeat(np.array(["sin", "cos"]), half // 2)  # [sin block | cos block]
        om_half = np.tile(w, 2)
        axes = ("column", "row")
    else:
        fn_half = np.tile(np.array(["sin", "cos"]), half // 2)  # interleaved
        om_half = np.repeat(w, 2)
        axes = ("row", "column")
    return {"axis": np.repeat(np.array(axes), half), "fn": np.tile(fn_half, 2), "omega": np.tile(om_half, 2)}


def separable_parts(rows: np.ndarray, cols: np.ndarray, d_model: int, base: float = 10000.0,
                    combine: str = "concat") -> tuple[np.ndarray, np.ndarray]:
    """The 2-D code split into a row part and a column part: ``PE(r, c) = A[r] + B[c]``, shapes (R, d), (C, d).

    Every combine mode is a sum of a function of the row and a function of the column (in disjoint channels
    for "concat" and "mae", in the same channels for "add"), so ``A[r] = PE(r, 0) − PE(0, 0)`` and
    ``B[c] = PE(0, c)`` rebuild the whole table from :func:`sincos_2d_at` (hence from the one formula)
    at O((R + C)·d) cost instead of O(R·C·d). Coordinates may be fractional.
    """
    zero = np.zeros(1)
    down = sincos_2d_at(rows, zero, d_model, base, combine)[:, 0]  # (R, d): PE(r, 0)
    across = sincos_2d_at(zero, cols, d_model, base, combine)[0]  # (C, d): PE(0, c)
    origin = sincos_2d_at(zero, zero, d_model, base, combine)[0, 0]  # (d,): PE(0, 0)
    return down - origin, across


def _check_resize(old_height: int, old_width: int, new_height: int, new_width: int, d_model: int, combine: str,
                  base: float) -> tuple[int, int, int, int, int, str, float]:
    """The arguments of a table resize, checked (each grid at most MAX_GRID per side, both grids valid for the
    table's d_model and combine mode); ValueError naming the parameter otherwise."""
    old_height = check_int("old_height", old_height, 1, MAX_GRID)
    old_width = check_int("old_width", old_width, 1, MAX_GRID)
    old_height, old_width, d_model, combine = _check_sincos(old_height, old_width, d_model, combine)
    new_height = check_int("new_height", new_height, 1, MAX_GRID)
    new_width = check_int("new_width", new_width, 1, MAX_GRID)
    _check_sincos(new_height, new_width, d_model, combine)
    return old_height, old_width, new_height, new_width, d_model, combine, _check_base(base)


def _grid_parts(height: int, width: int, d_model: int, base: float, combine: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`separable_parts` on the integer grid, read off :func:`~posviz.sinusoidal.sinusoidal_2d` itself."""
    down = sinusoidal_2d(height, 1, d_model, base, combine)[:, 0]  # (H, d): PE(r, 0)
    across = sinusoidal_2d(1, width, d_model, base, combine)[0]  # (W, d): PE(0, c)
    return down - across[0], across


def sincos_2d_channels(height: int, width: int, d_model: int, base: float = 10000.0, combine: str = "concat",
                       first: int = 0, count: int = 1, step: int = 1) -> np.ndarray:
    """Channels ``first, first+step, …`` (``count`` of them, stopping at the last channel) as images, (H, W, n).

    Values of :func:`~posviz.sinusoidal.sinusoidal_2d`, built from its separable parts
    (:func:`separable_parts`), so a 64×64 grid at D = 1024 costs a few 1-D tables, not the 32 MB table.
    """
    height, width, d_model, combine = _check_sincos(height, width, d_model, combine)
    first = check_int("first", first, 0, d_model - 1)
    count = check_int("count", count, 1, MAX_D)
    step = check_int("step", step, 1, MAX_D)
    ch = np.arange(first, d_model, step)[:count]  # (n,)
    A, B = _grid_parts(height, width, d_model, _check_base(base), combine)
    return A[:, None, ch] + B[None, :, ch]  # (H, W, n)


def patch_similarity(height: int, width: int, d_model: int, base: float = 10000.0, combine: str = "concat",
                     row: int = 0, col: int = 0) -> np.ndarray:
    """Cosine similarity between the encoding of patch (row, col) and that of every patch, shape (H, W).

    ``cos(PE(r, c), PE(r', c')) = PE(r, c)·PE(r', c') / (|PE(r, c)| |PE(r', c')|)`` for the code of
    :func:`~posviz.sinusoidal.sinusoidal_2d`, evaluated through its separable parts
    ``PE(r', c') = A[r'] + B[c']``: dot products and norms are sums of (H, W) outer terms and one
    (H, d)·(d, W) product. H·W values, never an (H·W)² matrix.
    """
    height, width, d_model, combine = _check_sincos(height, width, d_model, combine)
    row = check_int("row", row, 0, height - 1)
    col = check_int("col", col, 0, width - 1)
    A, B = _grid_parts(height, width, d_model, _check_base(base), combine)  # (H, d), (W, d)
    q = A[row] + B[col]  # (d,)
    dots = (A @ q)[:, None] + (B @ q)[None, :]  # (H, W)
    sq = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] + 2 * A @ B.T  # (H, W): |A[r] + B[c]|²
    denom = np.sqrt(np.maximum(sq, 0.0)) * np.linalg.norm(q)
    return np.clip(dots / np.maximum(denom, 1e-300), -1.0, 1.0)  # (H, W)


def transpose_gap(d_model: int, base: float = 10000.0, combine: str = "add", row: int = 2,
                  col: int = 5) -> float:
    """``|PE(row, col) − PE(col, row)|``: 0 for every pair in the "add" mode (transposed patches collide).

    In "add" both axes share one frequency set and are summed, so swapping row and column changes
    nothing (docs/FORMULAS.md §3.2); "concat" and "mae" keep the axes in separate channels.
    """
    row = check_int("row", row, 0, MAX_GRID - 1)
    col = check_int("col", col, 0, MAX_GRID - 1)
    rc = np.array([row, col], dtype=np.float64)
    pe = sincos_2d_at(rc, rc, d_model, base, combine)  # (2, 2, d): pe[i, j] = PE(rc[i], rc[j])
    return float(np.linalg.norm(pe[0, 1] - pe[1, 0]))


def axis_response(height: int, width: int, d_model: int, base: float = 10000.0,
                  combine: str = "mae") -> np.ndarray:
    """How much each channel changes for one step along a row vs one step down a column, shape (2, d).

    Row 0: RMS over the grid of ``PE(r, c+1) − PE(r, c)`` (moving along a row, i.e. the column index
    changes); row 1: RMS of ``PE(r+1, c) − PE(r, c)``. A direction with no step (width or height 1) gives
    zeros. Since ``PE(r, c) = A[r] + B[c]``, a step along a row is ``B[c+1] − B[c]`` on every row, so the
    RMS over the grid is the RMS over the W − 1 steps. In MAE's layout only the first half responds to
    moving along a row, the half MAE's code calls ``emb_h``.
    """
    height, width, d_model, combine = _check_sincos(height, width, d_model, combine)
    A, B = _grid_parts(height, width, d_model, _check_base(base), combine)

    def rms(steps: np.ndarray) -> np.ndarray:
        return np.sqrt((steps ** 2).mean(axis=0)) if len(steps) else np.zeros(d_model)

    return np.stack([rms(np.diff(B, axis=0)), rms(np.diff(A, axis=0))])  # (2, d)


def _bicubic_1d(part: np.ndarray, size: int, antialias: bool = False) -> np.ndarray:
    """Resize an (n, d) table along n with torch's bicubic (align_corners=False) as an (n×1) image.

    With ``antialias`` the image is two identical columns wide: torch 2.13's antialiased kernel returns wrong
    values for a one-column image (tested against the full-table resize).
    """
    import torch

    width = 2 if antialias else 1
    img = torch.from_numpy(np.ascontiguousarray(part.T))[None, :, :, None].expand(-1, -1, -1, width)  # (1, d, n, w)
    out = torch.nn.functional.interpolate(img.contiguous(), size=(size, width), mode="bicubic", align_corners=False,
                                          antialias=antialias)
    return out[0, :, :, 0].numpy().T  # (size, d)


def resize_parts(old_height: int, old_width: int, new_height: int, new_width: int, d_model: int,
                 base: float = 10000.0, combine: str = "mae",
                 recompute: str = "scaled") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Separable parts ``(A_interp, B_interp, A_exact, B_exact)`` of :func:`resize_sincos_2d`.

    ``interp(i, j) = A_interp[i] + B_interp[j]``, ``exact(i, j) = A_exact[i] + B_exact[j]``, shapes
    (H', d) and (W', d). Bicubic resizing is linear and its 4×4 weights are a product of 1-D weights that
    sum to 1, so resizing ``A[r] + B[c]`` as a whole equals resizing A down the rows and B along the
    columns (tested against the full-table ``interpolate`` to 1e-12).
    """
    recompute = check_choice("recompute", recompute, ("scaled", "integer"))
    old_height, old_width, new_height, new_width, d_model, combine, base = _check_resize(
        old_height, old_width, new_height, new_width, d_model, combine, base)
    A, B = _grid_parts(old_height, old_width, d_model, base, combine)  # (H, d), (W, d)
    Ai, Bi = _bicubic_1d(A, new_height), _bicubic_1d(B, new_width)  # (H', d), (W', d)
    if recompute == "integer":
        rows, cols = np.arange(new_height, dtype=np.float64), np.arange(new_width, dtype=np.float64)
    else:  # the fractional old-grid coordinates that align_corners=False samples
        rows = (np.arange(new_height) + 0.5) * old_height / new_height - 0.5
        cols = (np.arange(new_width) + 0.5) * old_width / new_width - 0.5
    Ae, Be = separable_parts(rows, cols, d_model, base, combine)
    return Ai, Bi, Ae, Be


def resize_sincos_2d(old_height: int, old_width: int, new_height: int, new_width: int, d_model: int,
                     base: float = 10000.0, combine: str = "mae",
                     recompute: str = "scaled") -> tuple[np.ndarray, np.ndarray]:
    """A grid trained at old_height×old_width used at new_height×new_width: (interpolated, recomputed).

    Interpolated: the trained table resized with ``torch.nn.functional.interpolate(mode="bicubic",
    align_corners=False)``, no antialias, as DeiT resizes its position table to fine-tune at a higher
    resolution. timm's ``resample_abs_pos_embed`` defaults to ``antialias=True``, a different kernel whose
    table differs from this one (:func:`antialias_gap`: up to 0.052 for 14×14 → 20×20 and 0.173 for
    14×14 → 7×7 at d = 64, b = 10⁴, MAE's layout). Recomputed: the formula
    evaluated either at the same fractional coordinates the resize samples, ``(j + 0.5)·old/new − 0.5``
    (``recompute="scaled"``: isolates the interpolation error), or at the new integer grid
    (``"integer"``: ``sinusoidal_2d(new_h, new_w)``, what a fixed sin/cos model can simply do). Both
    (new_h, new_w, d), float64, assembled from :func:`resize_parts`.
    """
    Ai, Bi, Ae, Be = resize_parts(old_height, old_width, new_height, new_width, d_model, base, combine,
                                  recompute)
    return Ai[:, None, :] + Bi[None, :, :], Ae[:, None, :] + Be[None, :, :]  # (H', W', d) each


def antialias_gap(old_height: int, old_width: int, new_height: int, new_width: int, d_model: int,
                  base: float = 10000.0, combine: str = "mae") -> float:
    """Largest |entry| of ``timm − DeiT``: the bicubic resize with ``antialias=True`` (timm's default in
    ``resample_abs_pos_embed``) against the one without (DeiT, :func:`resize_sincos_2d`), over every patch and
    channel of the H'×W'×d table.

    Both resizes are separable with 1-D weights that sum to 1, so ``timm − DeiT = a[i] + b[j]`` with a, b the
    differences of the row and column parts, and the largest |a[i] + b[j]| of a channel is
    ``max(max a + max b, −(min a + min b))``: no (H', W', d) array is built.
    """
    old_height, old_width, new_height, new_width, d_model, combine, base = _check_resize(
        old_height, old_width, new_height, new_width, d_model, combine, base)
    A, B = _grid_parts(old_height, old_width, d_model, base, combine)  # (H, d), (W, d)
    a = _bicubic_1d(A, new_height, antialias=True) - _bicubic_1d(A, new_height)  # (H', d)
    b = _bicubic_1d(B, new_width, antialias=True) - _bicubic_1d(B, new_width)  # (W', d)
    worst = np.maximum(a.max(0) + b.max(0), -(a.min(0) + b.min(0)))  # (d,)
    return float(worst.max())


def resize_channel_maps(old_height: int, old_width: int, new_height: int, new_width: int, d_model: int,
                        base: float = 10000.0, combine: str = "mae", recompute: str = "scaled",
                        channel: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One channel of :func:`resize_sincos_2d`: (interpolated, recomputed), each (H', W')."""
    Ai, Bi, Ae, Be = resize_parts(old_height, old_width, new_height, new_width, d_model, base, combine,
                                  recompute)
    k = check_int("channel", channel, 0, Ai.shape[1] - 1)
    return Ai[:, None, k] + Bi[None, :, k], Ae[:, None, k] + Be[None, :, k]


def resize_error(old_height: int, old_width: int, new_height: int, new_width: int, d_model: int,
                 base: float = 10000.0, combine: str = "mae",
                 recompute: str = "scaled") -> tuple[np.ndarray, np.ndarray]:
    """Where the bicubic resize departs from the formula: (per patch (H', W'), per channel (d,)).

    Per patch: ``|interp − exact| / |exact|`` (relative L2 over channels); per channel: RMS over patches of
    ``interp − exact``. With ``interp − exact = a[i] + b[j]`` (separable parts) both come from (H', W')
    outer sums and one matrix product, never an (H', W', d) array.
    """
    Ai, Bi, Ae, Be = resize_parts(old_height, old_width, new_height, new_width, d_model, base, combine,
                                  recompute)
    a, b = Ai - Ae, Bi - Be  # (H', d), (W', d)

    def sq_norms(x: np.ndarray, y: np.ndarray) -> np.ndarray:  # |x[i] + y[j]|² for every (i, j)
        return np.maximum((x * x).sum(1)[:, None] + (y * y).sum(1)[None, :] + 2 * x @ y.T, 0.0)

    per_patch = np.sqrt(sq_norms(a, b)) / np.maximum(np.sqrt(sq_norms(Ae, Be)), 1e-12)  # (H', W')
    per_channel = np.sqrt(np.maximum((a * a).mean(0) + (b * b).mean(0) + 2 * a.mean(0) * b.mean(0), 0.0))
    return per_patch, per_channel  # (H', W'), (d,)
