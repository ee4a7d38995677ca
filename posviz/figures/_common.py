"""Helpers shared by figure builders: heatmap downsampling."""

from __future__ import annotations

import math

import numpy as np

MAX_CELLS = 160_000  # ~0.85 MB of float32 JSON: under the 1 MB payload budget of a page's heatmap


def sample_index(rows: int, cols: int, max_cells: int = MAX_CELLS) -> tuple[np.ndarray, np.ndarray, int]:
    """Row and column indices of an evenly strided view with at most ``max_cells`` cells, and the stride.

    ``stride == 1`` means nothing is dropped. Compute only the cells you show: a screen cannot show
    more cells than it has pixels, so the picture is unchanged to the eye.
    """
    stride = max(1, math.ceil(math.sqrt(rows * cols / max_cells)))
    r_step = stride if rows > 1 else 1
    c_step = stride if cols >= stride * 4 else 1
    while math.ceil(rows / r_step) * math.ceil(cols / c_step) > max_cells:
        r_step += 1
    return np.arange(0, rows, r_step), np.arange(0, cols, c_step), max(r_step, c_step)


def downsample(z: np.ndarray, max_cells: int = MAX_CELLS) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Stride a 2-D array to at most ``max_cells`` cells: (z as float32, row_index, col_index, stride)."""
    r_idx, c_idx, stride = sample_index(*z.shape, max_cells=max_cells)
    return z[np.ix_(r_idx, c_idx)].astype(np.float32), r_idx, c_idx, stride


def sampled_note(stride: int) -> str:
    """Title suffix telling the reader that a heatmap shows every n-th row/column."""
    return "" if stride == 1 else f" (every {stride}th cell shown)"
