"""Sinusoidal position encodings, 1-D (Vaswani et al. 2017, §3.5) and 2-D (MAE's layout and two simpler ones).

Frequencies ``w_i = base**(-2i/d_model)``, ``i = 0 .. d_model/2 - 1``: pair 0 is the fastest (wavelength
2π tokens), the last pair the slowest (wavelength 2π·base^((d-2)/d)). Numpy only.
"""

from __future__ import annotations

import numpy as np

from posviz._validate import check_array, check_cells, check_choice, check_float, check_int

LAYOUTS_1D = ("interleaved", "concat")
COMBINE_2D = ("concat", "add", "mae")
PAIR_ORDERS = ("sin_cos", "cos_sin")  # a (sin, cos) pair as the table stores it, or as the point (cos, sin)
MAX_POSITIONS = 1 << 20
MAX_DIM = 4096
MAX_CELLS = 1 << 22        # positions × d_model of one table: 32 MB, ~85 MB peak with sin/cos/angles
MAX_POSITION = 1e9         # |p| of an explicit position (float64 angles p·w keep ~1e-7 rad)
MAX_OFFSETS = 1 << 20      # distinct offsets ``similarity`` tabulates before it switches to table products


def frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequencies ``w_i = base**(-2i/d_model)`` of the d_model/2 (sin, cos) pairs, shape (d/2,).

    RoPE's ``theta_i`` (``posviz.rope.inv_freq``) is the same ladder, computed by the same ``_ladder``."""
    return _ladder("d_model", d_model, base)


def _ladder(name: str, d: object, base: object, max_d: int = MAX_DIM) -> np.ndarray:
    """``base**(-2i/d)`` for i = 0 .. d/2 − 1, float64, with d an even integer in [2, max_d] (``name``: what the
    caller calls it) and base in (1, 1e12]. The one copy of the formula: the sinusoidal code's (Vaswani §3.5),
    which RoPE reuses, so posviz.rope imports it from here."""
    d = check_int(name, d, 2, max_d, even=True)
    base = check_float("base", base, 1.0, 1e12, lo_open=True)
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)


def wavelengths(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Wavelength in tokens of each pair, ``2π/w_i = 2π·base**(2i/d_model)``, shape (d/2,)."""
    return 2 * np.pi / frequencies(d_model, base)


def sinusoidal_table(n_positions: int, d_model: int, base: float = 10000.0,
                     layout: str = "interleaved") -> np.ndarray:
    """The (n_positions, d_model) sinusoidal table ``PE(p, 2i) = sin(p·w_i)``, ``PE(p, 2i+1) = cos(p·w_i)``.

    ``layout="interleaved"`` is Vaswani's ``[sin p·w0, cos p·w0, sin p·w1, ...]``; ``"concat"`` is
    ``[sin p·w0 .. sin p·w_{d/2-1} | cos p·w0 ..]`` (TensorFlow tutorial, MAE's 1-D helper). Source:
    Vaswani et al. 2017 §3.5; docs/FORMULAS.md §2.1.
    """
    n_positions = check_int("n_positions", n_positions, 1, MAX_POSITIONS)
    layout = check_choice("layout", layout, LAYOUTS_1D)
    w = frequencies(d_model, base)
    check_cells("n_positions × d_model", n_positions * w.size * 2, MAX_CELLS, "table cells")
    angles = np.arange(n_positions, dtype=np.float64)[:, None] * w[None, :]  # (P, d/2)
    sin, cos = np.sin(angles), np.cos(angles)
    if layout == "concat":
        return np.concatenate([sin, cos], axis=1)  # (P, d)
    return np.stack([sin, cos], axis=2).reshape(n_positions, -1)  # (P, d/2, 2) -> (P, d)


def shift_matrix(k: float, d_model: int, base: float = 10000.0, order: str = "sin_cos") -> np.ndarray:
    """The block-diagonal (d_model, d_model) map with ``PE(p + k) = M_k PE(p)``, independent of p, orthogonal.

    ``order="sin_cos"``: pair i as the interleaved table stores it, (sin pw_i, cos pw_i), and
    ``M_k = [[cos kw, sin kw], [−sin kw, cos kw]]`` per pair. ``order="cos_sin"``: each pair read as the point
    (cos pw_i, sin pw_i), and ``M_k = [[cos kw, −sin kw], [sin kw, cos kw]]``, the counter-clockwise rotation
    by kw. The two are one map written in two bases (Fleetwood; docs/FORMULAS.md §2.2).
    """
    k = check_float("k", k, -1e7, 1e7)
    order = check_choice("order", order, PAIR_ORDERS)
    w = frequencies(d_model, base)
    c, s = np.cos(k * w), np.sin(k * w)
    if order == "cos_sin":
        s = -s  # the same rotation with the pair's two coordinates swapped
    m = np.zeros((d_model, d_model))
    idx = np.arange(0, d_model, 2)
    m[idx, idx], m[idx, idx + 1] = c, s
    m[idx + 1, idx], m[idx + 1, idx + 1] = -s, c
    return m


def dot_by_offset(offsets: np.ndarray, d_model: int, base: float = 10000.0) -> np.ndarray:
    """``PE(p)·PE(p+k) = Σ_i cos(k·w_i)`` for each offset k: independent of p and even in k (docs/FORMULAS.md §2.3).

    ``offsets``: a number or an array of finite numbers (fractional allowed) with |k| <= 1e9; the result
    has its shape."""
    w = frequencies(d_model, base)
    k = check_array("offsets", offsets, lo=-MAX_POSITION, hi=MAX_POSITION)
    check_cells("offsets × d_model/2", k.size * w.size, MAX_CELLS, "angles")
    return np.cos(k[..., None] * w).sum(axis=-1)


def sinusoidal_2d(height: int, width: int, d_model: int, base: float = 10000.0,
                  combine: str = "concat") -> np.ndarray:
    """2-D sin/cos encodings of an H×W patch grid, shape (height, width, d_model) (MAE; docs/FORMULAS.md §3).

    None of the three concatenates two full d_model-channel tables (exponent 2i/d_model), 2·d_model channels
    in all, as one tutorial in docs/SOURCES.md does; here every mode has d_model channels.

    ``"concat"``: [interleaved 1-D table of the row index, width d/2 | same of the column index].
    ``"add"``: interleaved 1-D table of the row (width d) + that of the column, so PE(r, c) = PE(c, r).
    ``"mae"``: MAE's ``get_2d_sincos_pos_embed`` layout ``[sin c·w | cos c·w | sin r·w | cos r·w]`` with
    ``w_k = base**(-4k/d_model)``: the first half encodes the COLUMN. docs/FORMULAS.md §3.1.
    """
    height = check_int("height", height, 1, 4096)
    width = check_int("width", width, 1, 4096)
    combine = check_choice("combine", combine, COMBINE_2D)
    d_model = check_int("d_model", d_model, 4, MAX_DIM, multiple_of=4 if combine != "add" else 2)
    check_cells("height × width × d_model", height * width * d_model, MAX_CELLS, "table cells")
    if combine == "add":
        rows = sinusoidal_table(height, d_model, base)  # (H, d)
        cols = sinusoidal_table(width, d_model, base)  # (W, d)
        return rows[:, None, :] + cols[None, :, :]  # (H, W, d)
    half = d_model // 2
    layout = "concat" if combine == "mae" else "interleaved"
    rows = sinusoidal_table(height, half, base, layout)  # (H, d/2)
    cols = sinusoidal_table(width, half, base, layout)  # (W, d/2)
    rows_b = np.broadcast_to(rows[:, None, :], (height, width, half))  # (H, W, d/2)
    cols_b = np.broadcast_to(cols[None, :, :], (height, width, half))  # (H, W, d/2)
    first, second = (cols_b, rows_b) if combine == "mae" else (rows_b, cols_b)
    return np.concatenate([first, second], axis=2)  # (H, W, d)


def similarity(rows: np.ndarray, cols: np.ndarray, d_model: int, base: float = 10000.0) -> np.ndarray:
    """``PE(p)·PE(q)`` for p in ``rows``, q in ``cols``, shape (len(rows), len(cols)).

    ``PE(p)·PE(q) = Σ_i cos((p−q)·w_i)`` (Vaswani et al. 2017 §3.5; docs/FORMULAS.md §2.3). Positions may
    be fractional (|p| <= 1e9). When they are all integers and their offsets p − q span few enough values
    (fewer than 2^20, and offsets × d/2 within the cells cap), one dot product per distinct offset is
    tabulated (a 4096×4096 view costs O(P·d) cosines instead of O(P²·d)); otherwise the two sin/cos tables
    are multiplied, ``[cos p·w | sin p·w]·[cos q·w | sin q·w]ᵀ``, so a request is refused only when its
    own size (len(rows), len(cols), d_model) is over the caps, never for the spread of its positions. Both
    are tested against the explicit table product.
    """
    rows = check_array("rows", rows, ndim=1, min_size=1, lo=-MAX_POSITION, hi=MAX_POSITION, scalar_ok=True)
    cols = check_array("cols", cols, ndim=1, min_size=1, lo=-MAX_POSITION, hi=MAX_POSITION, scalar_ok=True)
    w = frequencies(d_model, base)
    check_cells("len(rows) × len(cols)", rows.size * cols.size, MAX_CELLS, "similarities")
    check_cells("(len(rows) + len(cols)) × d_model", (rows.size + cols.size) * w.size * 2, MAX_CELLS, "table cells")
    lo, hi = rows.min() - cols.max(), rows.max() - cols.min()
    integral = np.all(rows == np.round(rows)) and np.all(cols == np.round(cols))
    span = hi - lo + 1  # distinct offsets p − q
    if integral and span <= MAX_OFFSETS and span * w.size <= MAX_CELLS:
        by_offset = dot_by_offset(np.arange(lo, hi + 1), d_model, base)  # (offsets,)
        idx = (rows[:, None] - cols[None, :] - lo).astype(np.int64)  # (R, C)
        return by_offset[idx]
    def table(p: np.ndarray) -> np.ndarray:
        a = p[:, None] * w[None, :]  # (P, d/2)
        return np.concatenate([np.cos(a), np.sin(a)], axis=1)  # (P, d)

    return table(rows) @ table(cols).T  # (R, C)


def slice_for_sequence(pe: np.ndarray, seq_len: int, *, feature_axis: bool = False) -> np.ndarray:
    """The rows of a (max_len, d_model) table to add to a length-``seq_len`` sequence.

    Right: ``pe[:seq_len]`` -> (seq_len, d_model). ``feature_axis=True`` is ``pe[:, :seq_len]``, which slices the
    FEATURE axis of this 2-D buffer -> (max_len, seq_len), which cannot be added to (seq_len, d_model).
    """
    pe = check_array("pe", pe, ndim=2, min_size=1)
    seq_len = check_int("seq_len", seq_len, 1, pe.shape[0])
    if not isinstance(feature_axis, (bool, np.bool_)):
        raise ValueError(f"feature_axis must be True or False; got {feature_axis!r:.40}")
    return pe[:, :seq_len] if feature_axis else pe[:seq_len]
