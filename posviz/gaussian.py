"""Multi-scale Gaussian-kernel RoPE (no upstream method): the kernel and three ways to apply it.

The blog post "Gaussian Kernel-enhanced Rotary Position Embedding" (docs/SOURCES.md) proposes
``K(r) = alpha1·exp(-r²/(2 sigma1²)) + alpha2·exp(-r²/(2 sigma2²))`` (its defaults 0.7, 0.3, 5, 20;
``K(0) = alpha1 + alpha2``) and multiplies the rotated q and k by K of their *absolute* positions,
so a score gets ``K(m)·K(n)`` (mode "absolute"). A relative kernel cannot be written as per-token
scaling, so the two relative modes act on the T×T logits instead: "relative_mul" multiplies the RoPE
logit by ``K(m-n)``; "relative_log" adds ``log K(|m-n|)`` (ALiBi/KERPLE style), which multiplies the
softmax weights by K before renormalisation. docs/FORMULAS.md §6 and §6.3. The rotation
itself is ``posviz.rope.apply_rope``; torch is imported only inside the functions that rotate.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from posviz import rope as _rope
from posviz._validate import check_array, check_cells, check_choice, check_float, check_int
from posviz.i18n import N_
from posviz.rope import inv_freq

MODES = ("rope", "absolute", "relative_mul", "relative_log")
MODE_LABELS = {
    "rope": N_("plain RoPE"),
    "absolute": N_("(a) as written: K(m)·K(n)"),
    "relative_mul": N_("(b) relative ×K(m−n)"),
    "relative_log": N_("(c) relative +log K(|m−n|)"),
}
PITFALL_LAYOUTS = ("interleaved", "mixed")  # mixed_layout_rope: the bug and the fix
KERNEL_FLOOR = 1e-30  # K is clamped to this before the log (mode "relative_log")
MAX_T = 1024          # attention matrices are T×T: 1024² float64 cells = 8 MB each
MAX_DIM = 1024
MAX_POSITION = 1e6
MAX_ALPHA = 1e6
MAX_SIGMA = 1e6
MAX_SEED = 2**32 - 1


def _check_kernel(alpha1: float, alpha2: float, sigma1: float, sigma2: float) -> tuple[float, ...]:
    alpha1 = check_float("alpha1", alpha1, 0.0, MAX_ALPHA)
    alpha2 = check_float("alpha2", alpha2, 0.0, MAX_ALPHA)
    if alpha1 == 0 and alpha2 == 0:
        raise ValueError("alpha1 and alpha2 must not both be 0 (the kernel would be 0 everywhere); "
                         "got alpha1 = 0, alpha2 = 0")
    sigma1 = check_float("sigma1", sigma1, 0.0, MAX_SIGMA, lo_open=True)
    sigma2 = check_float("sigma2", sigma2, 0.0, MAX_SIGMA, lo_open=True)
    return alpha1, alpha2, sigma1, sigma2


MAX_ABS = 1e100  # entries of q, k, x, logits: squares and dot products of these stay finite in float64


def _as_real_array(name: str, value: object) -> np.ndarray:
    """``value`` as a float64 array of finite numbers within ±MAX_ABS (``posviz._validate.check_array``)."""
    return check_array(name, value, lo=-MAX_ABS, hi=MAX_ABS)


def _components(r: np.ndarray, alpha1: float, alpha2: float, sigma1: float,
                sigma2: float) -> tuple[np.ndarray, np.ndarray]:
    # (r/sigma)² rather than r²/sigma²: no overflow for huge r and no 0/0 for tiny sigma.
    with np.errstate(over="ignore", under="ignore"):
        local = alpha1 * np.exp(-0.5 * np.square(r / sigma1))
        wide = alpha2 * np.exp(-0.5 * np.square(r / sigma2))
    return local, wide


def gaussian_kernel(r: object, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                    sigma2: float = 20.0) -> np.ndarray:
    """Multi-scale Gaussian kernel ``K(r) = alpha1·exp(-r²/2σ1²) + alpha2·exp(-r²/2σ2²)``, elementwise.

    ``r`` is a number or an array of finite numbers; the result is a float64 numpy array of the same
    shape (0-d for a number). ``alpha1, alpha2 >= 0`` and not both 0, ``sigma1, sigma2 > 0``. K is even
    in r, ``K(0) = alpha1 + alpha2`` and it decreases with |r|. See docs/FORMULAS.md §6.1.
    """
    alpha1, alpha2, sigma1, sigma2 = _check_kernel(alpha1, alpha2, sigma1, sigma2)
    local, wide = _components(_as_real_array("r", r), alpha1, alpha2, sigma1, sigma2)
    return local + wide


def kernel_components(r: object, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                      sigma2: float = 20.0) -> tuple[np.ndarray, np.ndarray]:
    """The two terms of ``gaussian_kernel``: local ``alpha1·exp(-r²/2σ1²)``, global ``alpha2·exp(-r²/2σ2²)``.
    """
    alpha1, alpha2, sigma1, sigma2 = _check_kernel(alpha1, alpha2, sigma1, sigma2)
    return _components(_as_real_array("r", r), alpha1, alpha2, sigma1, sigma2)


def random_qk(T: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Seeded token contents q, k, each (T, d) with i.i.d. standard normal entries (no position yet)."""
    T = check_int("T", T, 1, MAX_T)
    d = check_int("d", d, 2, MAX_DIM, even=True)
    seed = check_int("seed", seed, 0, MAX_SEED)
    rng = np.random.default_rng(seed)
    qk = rng.standard_normal((2, MAX_T, d))[:, :T]  # (2, T, d); rows do not depend on T
    return qk[0], qk[1]


def _positions(name: str, positions: object) -> np.ndarray:
    pos = _as_real_array(name, positions)
    if pos.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of positions; got shape {pos.shape}")
    if pos.size and np.abs(pos).max() > MAX_POSITION:
        raise ValueError(f"{name} must lie in [-{MAX_POSITION:g}, {MAX_POSITION:g}]")
    return pos


def _tokens(x: object, positions: object) -> tuple[np.ndarray, np.ndarray, int]:
    """Validated token vectors x (T, d), their positions (T,) and the even dimension d."""
    x = _as_real_array("x", x)
    if x.ndim != 2:
        raise ValueError(f"x must be (T, d); got shape {x.shape}")
    d = check_int("x.shape[1] (the dimension d)", x.shape[1], 2, MAX_DIM, even=True)
    pos = _positions("positions", positions)
    if pos.shape != (x.shape[0],):
        raise ValueError(f"positions must have shape (T,) = ({x.shape[0]},); got {pos.shape}")
    return x, pos, d


def rotate(x: np.ndarray, positions: object, base: float = 10000.0) -> np.ndarray:
    """``R_m x`` for x (T, d) at positions (T,), interleaved pairs: ``posviz.rope.rotate``, the numpy twin of
    ``apply_rope`` (tested equal to it), so this lesson never needs torch."""
    x, pos, d = _tokens(x, positions)
    return _rope.rotate(x, pos, inv_freq(d, base), "interleaved")


def rope_logits(q: np.ndarray, k: np.ndarray, m: object, n: object, base: float = 10000.0) -> np.ndarray:
    """Plain RoPE logits ``(R_m q)·(R_n k)/√d`` for q (Tq, d) at positions m and k (Tk, d) at n: (Tq, Tk).

    Interleaved pairs, rotated by ``posviz.rope.apply_rope`` (RoFormer §3.4.2).
    """
    q, k = _as_real_array("q", q), _as_real_array("k", k)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"q and k must be (Tq, d) and (Tk, d) with the same d; got {q.shape} and {k.shape}")
    check_cells("q and k: Tq × Tk", q.shape[0] * k.shape[0], MAX_T * MAX_T, "logits")
    m, n = _positions("m", m), _positions("n", n)
    if m.shape != (q.shape[0],) or n.shape != (k.shape[0],):
        raise ValueError(f"m and n must have one position per row of q and k; got {m.shape}, {n.shape}")
    q_rot = rotate(q, m, base)  # (Tq, d)
    k_rot = rotate(k, n, base)  # (Tk, d)
    return q_rot @ k_rot.T / np.sqrt(q.shape[1])  # (Tq, Tk)


def apply_kernel(logits: np.ndarray, m: object, n: object, mode: str, alpha1: float = 0.7,
                 alpha2: float = 0.3, sigma1: float = 5.0, sigma2: float = 20.0) -> np.ndarray:
    """Apply the kernel to RoPE logits (Tq, Tk) of queries at positions m and keys at n, by ``mode``.

    "rope": unchanged. "absolute" (the blog post as written): ``K(m)·K(n)·logit``. "relative_mul":
    ``K(m-n)·logit``. "relative_log": ``logit + log max(K(|m-n|), 1e-30)``. docs/FORMULAS.md §6.2.
    """
    mode = check_choice("mode", mode, MODES)
    kern = _check_kernel(alpha1, alpha2, sigma1, sigma2)
    logits = _as_real_array("logits", logits)
    m, n = _positions("m", m), _positions("n", n)
    check_cells("m and n: len(m) × len(n)", m.size * n.size, MAX_T * MAX_T, "logits")
    if logits.shape != (m.size, n.size):
        raise ValueError(f"logits must have shape (len(m), len(n)) = ({m.size}, {n.size}); "
                         f"got {logits.shape}")
    if mode == "rope":
        return logits.copy()
    if mode == "absolute":
        return gaussian_kernel(m, *kern)[:, None] * gaussian_kernel(n, *kern)[None, :] * logits
    dist = m[:, None] - n[None, :]  # (Tq, Tk)
    if mode == "relative_mul":
        return gaussian_kernel(dist, *kern) * logits
    return logits + np.log(np.maximum(gaussian_kernel(np.abs(dist), *kern), KERNEL_FLOOR))


def as_written_qk(q: np.ndarray, positions: object, base: float = 10000.0, alpha1: float = 0.7,
                  alpha2: float = 0.3, sigma1: float = 5.0, sigma2: float = 20.0) -> np.ndarray:
    """The post's method, its broadcast fixed: ``f(x, m) = K(m)·R_m x`` for x (T, d) at positions (T,).

    K scales each token (row), not each channel. Dot products of two such vectors are
    ``K(m)·K(n)·RoPE score``: the absolute mode of ``apply_kernel``.
    """
    kern = _check_kernel(alpha1, alpha2, sigma1, sigma2)
    q = _as_real_array("q", q)
    if q.ndim != 2:
        raise ValueError(f"q must be (T, d); got shape {q.shape}")
    try:
        rotated = rotate(q, positions, base)  # (T, d)
    except ValueError as e:  # rotate names its input "x"
        raise ValueError(str(e).replace("x.shape", "q.shape").replace("x must", "q must")) from None
    pos = _positions("positions", positions)
    return gaussian_kernel(pos, *kern)[:, None] * rotated  # (T, 1) * (T, d): one factor per token


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax (over keys, the last axis), shifted by the row maximum for stability.

    ``logits``: finite numbers or -inf (a masked key), at least one key per row and at most MAX_T² values;
    a row of nothing but -inf has no softmax and raises ValueError rather than returning NaN weights."""
    if isinstance(logits, (bool, str, bytes)) or logits is None:
        raise ValueError(f"logits must be an array of numbers (-inf allowed for masked keys); got "
                         f"{type(logits).__name__}")
    arr = _logits_array(logits)
    top = arr.max(axis=-1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("logits must have at least one finite value in every row; a row of only -inf "
                         "(every key masked) has no softmax")
    e = np.exp(arr - top)
    return e / e.sum(axis=-1, keepdims=True)


def _logits_array(logits: object) -> np.ndarray:
    """``logits`` as a float64 array (ndim >= 1, last axis non-empty) of finite numbers or -inf."""
    masked = check_array("logits", np.where(_neg_inf_mask(logits), 0.0, logits) if _is_numeric(logits) else logits,
                         min_size=1, max_size=MAX_T * MAX_T, lo=-MAX_ABS, hi=MAX_ABS)
    if masked.ndim < 1 or masked.shape[-1] < 1:
        raise ValueError(f"logits must have at least one key on the last axis; got shape {masked.shape}")
    return np.where(_neg_inf_mask(logits), -np.inf, masked)


def _is_numeric(value: object) -> bool:
    try:
        return np.asarray(value).dtype.kind in "iuf"
    except (TypeError, ValueError, OverflowError):
        return False


def _neg_inf_mask(value: object) -> np.ndarray | bool:
    return np.isneginf(np.asarray(value, dtype=np.float64)) if _is_numeric(value) else False


def attention(T: int = 128, d: int = 64, base: float = 10000.0, seed: int = 0, mode: str = "rope",
              alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
              sigma2: float = 20.0) -> np.ndarray:
    """The T×T softmax attention (rows: query m, columns: key n, positions 0..T-1) of seeded q, k.

    ``softmax_n(apply_kernel(rope_logits(q, k), mode))``, no causal mask (every key visible), float64.
    Results are memoised (the figures of one view share them), so the array is read-only.
    """
    mode = check_choice("mode", mode, MODES)
    kern = _check_kernel(alpha1, alpha2, sigma1, sigma2)
    T = check_int("T", T, 1, MAX_T)
    d = check_int("d", d, 2, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, 1e12, lo_open=True)
    seed = check_int("seed", seed, 0, MAX_SEED)
    check_cells("T × T × d", T * T * d, MAX_T * MAX_T * 128, "multiply-adds")
    return _attention(T, d, base, seed, mode, kern if mode != "rope" else ())  # plain RoPE ignores K


@lru_cache(maxsize=16)
def _attention(T: int, d: int, base: float, seed: int, mode: str, kern: tuple[float, ...]) -> np.ndarray:
    pos = np.arange(T, dtype=np.float64)
    logits = _self_logits(T, d, base, seed)  # (T, T)
    out = softmax(apply_kernel(logits, pos, pos, mode, *kern) if kern else logits)  # (T, T)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=4)
def _self_logits(T: int, d: int, base: float, seed: int) -> np.ndarray:
    q, k = random_qk(T, d, seed)
    pos = np.arange(T, dtype=np.float64)
    out = rope_logits(q, k, pos, pos, base)  # (T, T)
    out.setflags(write=False)
    return out


def mean_by_distance(matrix: np.ndarray) -> np.ndarray:
    """Mean of a square (T, T) matrix over each distance r = |m − n| = 0..T−1, shape (T,).

    ``out[r] = Σ_{|m−n|=r} A[m, n] / #{(m, n): |m−n| = r}`` (the attention profile of the Gaussian-kernel
    lesson). T is at most MAX_T, the side of every attention matrix this module builds.
    """
    shape = getattr(matrix, "shape", None)
    if isinstance(shape, tuple) and len(shape) == 2 and max(shape) > MAX_T:  # before copying a huge array
        raise ValueError(f"matrix must be square (T, T) with 1 <= T <= {MAX_T}; got shape {shape}")
    a = check_array("matrix", matrix, max_size=MAX_T * MAX_T, lo=-MAX_ABS, hi=MAX_ABS)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] == 0:
        raise ValueError(f"matrix must be square (T, T) with 1 <= T <= {MAX_T}; got shape {a.shape}")
    T = a.shape[0]
    dist = np.abs(np.arange(T)[:, None] - np.arange(T)[None, :]).ravel()  # (T*T,)
    return np.bincount(dist, weights=a.ravel(), minlength=T) / np.bincount(dist, minlength=T)


def shift_check(m: int = 3, n: int = 0, shift: int = 37, d: int = 64, base: float = 10000.0,
                seed: int = 0, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                sigma2: float = 20.0) -> dict[str, dict[str, float]]:
    """Logit of one (q, k) pair at positions (m, n) and at (m + shift, n + shift), for every mode.

    Returns ``{mode: {"before", "after", "factor_before", "factor_after"}}``; the factor is what the
    mode does to the RoPE logit (``K(m)K(n)`` or ``K(m-n)``, or the additive ``log K(|m-n|)``). The
    relative modes must give ``before == after``; the absolute one does not.
    """
    m = check_int("m", m, 0, int(MAX_POSITION) // 2)
    n = check_int("n", n, 0, int(MAX_POSITION) // 2)
    shift = check_int("shift", shift, 0, int(MAX_POSITION) // 2)
    kern = _check_kernel(alpha1, alpha2, sigma1, sigma2)
    q, k = random_qk(1, d, seed)
    out: dict[str, dict[str, float]] = {}
    for mode in MODES:
        row: dict[str, float] = {}
        for tag, c in (("before", 0), ("after", shift)):
            pm, pn = np.array([m + c], dtype=np.float64), np.array([n + c], dtype=np.float64)
            row[tag] = float(apply_kernel(rope_logits(q, k, pm, pn, base), pm, pn, mode, *kern)[0, 0])
            if mode == "absolute":
                factor = gaussian_kernel(pm, *kern)[0] * gaussian_kernel(pn, *kern)[0]
            elif mode == "relative_mul":
                factor = gaussian_kernel(pm - pn, *kern)[0]
            elif mode == "relative_log":
                factor = np.log(max(float(gaussian_kernel(pm - pn, *kern)[0]), KERNEL_FLOOR))
            else:
                factor = 1.0
            row[f"factor_{tag}"] = float(factor)
        out[mode] = row
    return out


# ----- two mistakes of real code, reproduced as pitfalls (never used by the modes above) -----

def mixed_layout_rope(x: np.ndarray, positions: object, base: float = 10000.0,
                      layout: str = "mixed") -> np.ndarray:
    """RoPE with cos/sin and rotation in a chosen layout: ``x·cos + rotate(x)·sin`` for x (T, d) at positions (T,).

    ``layout="mixed"`` is the bug: cos/sin as ``cat(angles, angles)`` (half-split order) but an
    interleaved ``rotate`` ``[-x1, x0, -x3, x2, ...]``, so pair (x_2i, x_2i+1) gets two different
    angles: not a rotation. ``"interleaved"`` repeats each angle in place, which is correct RoPE.
    docs/FORMULAS.md §1.2, §6.3.
    """
    layout = check_choice("layout", layout, PITFALL_LAYOUTS)
    x, pos, d = _tokens(x, positions)
    return _rope.rotate(x, pos, inv_freq(d, base), layout)  # one formula for every layout, in posviz.rope


def mixed_layout_score_grid(T: int = 24, d: int = 8, base: float = 10000.0, seed: int = 0,
                            layout: str = "mixed") -> np.ndarray:
    """Scores ``f(q, m)·f(k, n)`` (T, T) of one fixed q and k placed at every position, via ``mixed_layout_rope``.

    A true rotation gives a function of m − n only (constant along diagonals); the mixed layout does not.
    """
    q, k = random_qk(1, d, seed)
    T = check_int("T", T, 1, MAX_T)
    pos = np.arange(T, dtype=np.float64)
    qs = mixed_layout_rope(np.repeat(q, T, axis=0), pos, base, layout)  # (T, d)
    ks = mixed_layout_rope(np.repeat(k, T, axis=0), pos, base, layout)  # (T, d)
    return qs @ ks.T  # (T, T)


def toeplitz_error(scores: np.ndarray) -> float:
    """Largest spread (max − min) along any diagonal of a square (T, T) matrix.

    It is 0 exactly when s(m, n) depends on m − n only (a relative score).
    """
    s = _as_real_array("scores", scores)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"scores must be square (T, T); got shape {s.shape}")
    T = s.shape[0]
    worst = 0.0
    for off in range(-T + 1, T):
        diag = np.diagonal(s, offset=off)
        worst = max(worst, float(diag.max() - diag.min()))
    return worst


def feature_axis_broadcast(T: int = 128, D: int = 64, batch: int = 2, alpha1: float = 0.7, alpha2: float = 0.3,
                           sigma1: float = 5.0, sigma2: float = 20.0) -> tuple[np.ndarray | None, str | None]:
    """What ``K_r * x`` does for x (batch, T, D) and K_r (T,): the factor per (token, channel).

    Runs that broadcast in torch on ``x = 1``. When T != D it fails; the error text is returned
    (second item) instead of raised. When T == D it "works" and returns the (T, D) factor, which
    varies along channels (``K(channel)``) instead of along positions. docs/FORMULAS.md §6.3.
    """
    import torch

    T = check_int("T", T, 1, MAX_T)
    D = check_int("D", D, 1, MAX_DIM)
    batch = check_int("batch", batch, 1, 8)
    kern = _check_kernel(alpha1, alpha2, sigma1, sigma2)
    K_r = torch.from_numpy(gaussian_kernel(np.arange(T, dtype=np.float64), *kern))  # (T,)
    x = torch.ones(batch, T, D, dtype=torch.float64)
    try:
        out = K_r * x  # broadcasting lines K_r up with the LAST axis (features), not with the tokens
    except RuntimeError as exc:
        return None, str(exc)
    return out[0].numpy(), None  # (T, D)


def intended_scale(T: int = 64, D: int = 64, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                   sigma2: float = 20.0) -> np.ndarray:
    """The per-position factor ``K_r * x`` was meant to apply: ``K(t)`` for every channel of token t, shape (T, D)."""
    T = check_int("T", T, 1, MAX_T)
    D = check_int("D", D, 1, MAX_DIM)
    kern = _check_kernel(alpha1, alpha2, sigma1, sigma2)
    return np.repeat(gaussian_kernel(np.arange(T, dtype=np.float64), *kern)[:, None], D, axis=1)  # (T, D)


def spiral(pair: int = 2, n_positions: int = 40, d: int = 64, base: float = 10000.0, seed: int = 0,
           alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
           sigma2: float = 20.0) -> dict[str, np.ndarray]:
    """One 2-D pair of q under plain RoPE and under ``K(m)·R_m q`` (mode "absolute"), positions 0..n_positions-1.

    Returns ``{"m", "rope" (P, 2), "kernel" (P, 2), "angle_rope", "angle_kernel", "radius_rope",
    "radius_kernel"}``: the angles agree exactly (K > 0 only scales), the radii differ by K(m).
    """
    d = check_int("d", d, 2, MAX_DIM, even=True)
    pair = check_int("pair", pair, 0, d // 2 - 1)
    n_positions = check_int("n_positions", n_positions, 1, MAX_T)
    kern = _check_kernel(alpha1, alpha2, sigma1, sigma2)
    q, _ = random_qk(1, d, seed)
    m = np.arange(n_positions, dtype=np.float64)
    xs = np.repeat(q, n_positions, axis=0)  # (P, d): the same token at every position
    plain = rotate(xs, m, base)[:, 2 * pair:2 * pair + 2]  # (P, 2)
    scaled = as_written_qk(xs, m, base, *kern)[:, 2 * pair:2 * pair + 2]  # (P, 2)
    return {
        "m": m, "rope": plain, "kernel": scaled,
        "angle_rope": np.arctan2(plain[:, 1], plain[:, 0]),
        "angle_kernel": np.arctan2(scaled[:, 1], scaled[:, 0]),
        "radius_rope": np.hypot(plain[:, 0], plain[:, 1]),
        "radius_kernel": np.hypot(scaled[:, 0], scaled[:, 1]),
    }
