"""Distance biases: position as a number added to the attention logit that depends on the distance i − j.

The family, all causal (query i sees keys j <= i, distance ``d = i − j >= 0``):
ALiBi (Press et al. 2022): ``−m_h·d`` with BLOOM's geometric head slopes ``m_h``; T5 (Raffel et al. 2020):
a learned scalar per bucket of ``j − i``, the buckets exact up to ``max_exact`` and logarithmic up to
``max_distance`` (transformers' ``T5Attention._relative_position_bucket``); KERPLE (Chi et al. 2022):
``−r1·log(1 + r2·d)`` or ``−r1·d^r2``; NoPE (Kazemnejad et al. 2023): no bias at all, only the causal
mask; the two-scale Gaussian kernel as ``+log K(d)`` (a bias) or ``×K(d)`` on the logit (a factor), both
from ``posviz.gaussian``. RoPE, for contrast, rotates q and k instead (``posviz.rope``). The logits of
one query are ``content + bias`` with the content term ``q·k/√d`` of seeded vectors shared by every member.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields

import numpy as np

from posviz import gaussian as gk
from posviz import rope
from posviz._validate import check_cells, check_choice, check_float, check_int
from posviz.i18n import N_

MAX_HEADS = 1024           # alibi_slopes / alibi_bias: heads
MAX_T = 4096               # alibi_bias: sequence length T
MAX_MATRIX_T = 1024        # bias_matrix: T·T <= MAX_ELEMENTS
MAX_CELLS = 1 << 23        # alibi_bias: n_heads·T·T cells (64 MB of float64)
MAX_GAP_CELLS = 1 << 19    # alibi_forms_gap: n_heads·T·T (several (H, T, T) arrays at once)
MAX_ELEMENTS = 1 << 20     # t5_bucket, kerple, distance_bias: array elements per call (~1M, < 0.5 s)
MAX_RELATIVE = 10**9       # |relative_position|, distance
MAX_BUCKETS = 1024
MAX_R = 1e6                # KERPLE r1 (both kinds) and r2 (log kind); power r2 is in (0, 2]
MAX_POWER = 2.0
MAX_CURVE_DISTANCE = 10**6  # distance_bias (the Gaussian kernel takes positions up to 1e6)
MAX_ATTENTION_T = gk.MAX_T  # attention_row uses posviz.gaussian's seeded q, k
ROPE_SAMPLES = 512         # rope_profile: random (q, k) pairs averaged
MAX_SCALE = 1e3            # content_scale, t5_scale

KERPLE_KINDS = ("log", "power")
MEMBERS = ("alibi", "t5", "kerple_log", "kerple_power", "nope", "gaussian_log", "gaussian_mul", "rope")
BIASES = ("alibi", "t5", "kerple_log", "kerple_power", "nope", "gaussian_log")  # additive, f(distance) alone
T5_SHAPES = ("seeded", "alibi", "kerple_log", "kerple_power", "gaussian_log")
LABELS = {
    "alibi": N_("ALiBi −m_h·Δ"), "t5": N_("T5 buckets"), "kerple_log": N_("KERPLE log −r1·log(1+r2·Δ)"),
    "kerple_power": N_("KERPLE power −r1·Δ^r2"), "nope": N_("NoPE (no bias)"), "gaussian_log": N_("Gaussian +log K(Δ)"),
    "gaussian_mul": N_("Gaussian ×K(Δ) on the logit"), "rope": N_("RoPE (rotation, no bias)"),
}


# ---------------------------------------------------------------------------- argument helpers

def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r:.40}")
    return bool(value)


def _number_array(name: str, value: object, *, integer: bool, lo: float, hi: float) -> np.ndarray:
    """``value`` as an array of finite numbers in [lo, hi] (integer-valued if ``integer``), any shape.

    At most MAX_ELEMENTS elements; booleans, text and complex numbers are refused with a ValueError
    naming ``name``.
    """
    kind = "integers" if integer else "finite numbers"
    msg = f"{name} must be a number or an array of {kind} in [{lo:g}, {hi:g}]"
    if isinstance(value, (bool, str, bytes)) or value is None:
        raise ValueError(f"{msg}; got {value!r:.40}")
    try:
        arr = np.asarray(value)
        if arr.dtype.kind not in "iuf" and not (arr.dtype.kind == "O" and arr.size):
            raise TypeError(f"dtype {arr.dtype}")
        if arr.size > MAX_ELEMENTS:
            raise ValueError(f"{name} may hold at most {MAX_ELEMENTS} elements (the size cap); got {arr.size}")
        flt = arr.astype(np.float64)
    except ValueError as exc:
        if "size cap" in str(exc):
            raise
        raise ValueError(f"{msg} ({str(exc)[:80]})") from None
    except (TypeError, OverflowError) as exc:
        raise ValueError(f"{msg} ({str(exc)[:80]})") from None
    if not np.isfinite(flt).all():
        raise ValueError(f"{msg}; got a NaN or an infinity")
    if flt.size and (flt.min() < lo or flt.max() > hi):
        bad = flt.min() if flt.min() < lo else flt.max()
        raise ValueError(f"{msg}; got {bad:g}")
    if integer:
        if flt.size and not np.array_equal(flt, np.round(flt)):
            raise ValueError(f"{msg}; got a fractional value")
        return flt.astype(np.int64)
    return flt


# ---------------------------------------------------------------------------- ALiBi

def alibi_base_heads(n_heads: int) -> int:
    """P, the largest power of two <= H: ALiBi's heads 0..P − 1 take the P-head geometric slopes."""
    n_heads = check_int("n_heads", n_heads, 1, MAX_HEADS)
    return 1 << (n_heads.bit_length() - 1)


def alibi_head_settings(n_heads: int = 8, *, head: int = 0) -> dict[str, int]:
    """The settings of a figure that draws one ALiBi head of H: H, and the head kept among them (min(h, H − 1)),
    as the page's head slider keeps it."""
    n_heads = check_int("n_heads", n_heads, 1, MAX_HEADS)
    return {"n_heads": n_heads, "head": min(check_int("head", head, 0, MAX_HEADS - 1), n_heads - 1)}


def alibi_slopes(n_heads: int) -> np.ndarray:
    """ALiBi head slopes as BLOOM builds them (Press et al. 2022, §3; transformers ``_get_alibi_slopes``).

    Heads are numbered h = 0..H − 1. With P the largest power of two <= H: ``m_h = 2^(−8(h+1)/P)`` for
    h = 0..P − 1 (the paper's 2^(−8/P), 2^(−16/P), ..., 2^(−8)), then, when H > P, the odd members
    ``2^(−8k/(2P))``, k = 1, 3, 5, ..., of the 2P-head sequence for heads P..H − 1. For H a power of two
    the slopes are geometric with ratio ``2^(−8/H)``. Shape (H,), float64.
    """
    p = alibi_base_heads(n_heads)
    slopes = 2.0 ** (-8.0 * np.arange(1, p + 1) / p)  # (P,)
    extra = 2.0 ** (-8.0 * np.arange(1, 2 * (int(n_heads) - p), 2) / (2 * p))  # (H − P,)
    return np.concatenate([slopes, extra])


def alibi_steepest_head(n_heads: int) -> int:
    """The head with the largest slope: head 0 (``m_0 = 2^(−8/H)``) when H is a power of two, else head P.

    Head P, the first of the interleaved slopes, has ``m_P = 2^(−4/P)`` (k = 1 of the 2P-head sequence),
    steeper than head 0's ``2^(−8/P)``; P is the largest power of two <= H (``alibi_slopes``).
    """
    p = alibi_base_heads(n_heads)
    return 0 if p == n_heads else p


def alibi_bias(n_heads: int, T: int) -> np.ndarray:
    """The causal ALiBi bias ``B[h, i, j] = −m_h·(i − j)`` for j <= i and ``−inf`` for j > i: (H, T, T).

    ``m_h`` from ``alibi_slopes``. BLOOM adds the key-only form ``m_h·j`` instead, which differs from
    this by ``−m_h·i`` per row: the same softmax. Capped at n_heads·T·T <= 2^23 cells (64 MB).
    """
    slopes = alibi_slopes(n_heads)
    T = check_int("T", T, 1, MAX_T)
    if n_heads * T * T > MAX_CELLS:
        raise ValueError(f"n_heads·T·T must be at most {MAX_CELLS} cells (the size cap); "
                         f"got n_heads = {n_heads}, T = {T}: {n_heads * T * T}")
    dist = _distance_grid(T)  # (T, T): i − j
    out = -slopes[:, None, None] * dist[None]  # (H, T, T)
    out[:, dist < 0] = -np.inf
    return out


def _distance_grid(T: int) -> np.ndarray:
    pos = np.arange(T, dtype=np.float64)
    return pos[:, None] - pos[None, :]  # (T, T): query i on rows, key j on columns


def alibi_key_only(n_heads: int, T: int) -> np.ndarray:
    """BLOOM's form of ALiBi: ``m_h·j`` for key j, whatever the query, shape (H, T) (``build_alibi_tensor``).

    It differs from ``−m_h·(i − j)`` by ``−m_h·i``, a constant per query row, which softmax ignores, but only
    over the keys j <= i: the causal mask is what makes it a distance bias.
    """
    slopes = alibi_slopes(n_heads)
    T = check_int("T", T, 1, MAX_T)
    return slopes[:, None] * np.arange(T, dtype=np.float64)[None, :]  # (H, T)


def alibi_forms_gap(n_heads: int = 8, T: int = 64, causal: bool = True, seed: int = 0) -> float:
    """Largest |softmax difference| between BLOOM's ``m_h·j`` and the distance bias, on seeded content logits.

    Causal: against ``alibi_bias`` (the mask on both): ~1e-16, the same attention. Not causal (an encoder):
    against the symmetric ``−m_h·|i − j|``: BLOOM's form then favours the last keys, not the near ones.
    """
    causal = _check_bool("causal", causal)
    key_only = alibi_key_only(n_heads, T)  # (H, T)
    T = key_only.shape[1]
    if key_only.size * T > MAX_GAP_CELLS:
        raise ValueError(f"n_heads·T·T must be at most {MAX_GAP_CELLS} cells here (the size cap); "
                         f"got n_heads = {key_only.shape[0]}, T = {T}: {key_only.size * T}")
    content = content_logits_grid(T, seed)  # (T, T)
    dist = _distance_grid(T)  # (T, T)
    if causal:
        ours = content + alibi_bias(n_heads, T)  # (H, T, T), −inf above the diagonal
        bloom = np.where(dist < 0, -np.inf, content + key_only[:, None, :])  # (H, T, T), the same mask
    else:
        ours = content - alibi_slopes(n_heads)[:, None, None] * np.abs(dist)  # (H, T, T)
        bloom = content + key_only[:, None, :]  # (H, T, T)
    worst = float(np.abs(gk.softmax(bloom) - gk.softmax(ours)).max())
    return worst


# ---------------------------------------------------------------------------- T5 buckets

def _t5_sizes(bidirectional: bool, num_buckets: object, max_distance: object) -> tuple[int, int, int]:
    """Validated (num_buckets, max_distance, max_exact); the log buckets need max_distance > max_exact >= 1."""
    num_buckets = check_int("num_buckets", num_buckets, 4 if bidirectional else 2, MAX_BUCKETS)
    max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    max_distance = check_int("max_distance", max_distance, max_exact + 1, MAX_RELATIVE)
    return num_buckets, max_distance, max_exact


def t5_bucket(relative_position: object, bidirectional: bool = True, num_buckets: int = 32,
              max_distance: int = 128) -> np.ndarray:
    """T5's bucket of ``relative_position = j − i`` (key minus query), an int64 array of the same shape.

    Bidirectional: half of the buckets for j > i (offset ``num_buckets//2``), the other half for j <= i, on
    ``|j − i|``; otherwise only ``max(i − j, 0)`` counts. Within a half of n buckets, distances below
    ``max_exact = n//2`` get their own bucket; larger ones ``max_exact + ⌊log(d/max_exact) /
    log(max_distance/max_exact)·(n − max_exact)⌋``, capped at n − 1, computed in float32 as Mesh TensorFlow
    and transformers' ``T5Attention._relative_position_bucket`` do (Raffel et al. 2020, §2.1).
    """
    rp = _number_array("relative_position", relative_position, integer=True, lo=-MAX_RELATIVE, hi=MAX_RELATIVE)
    bidirectional = _check_bool("bidirectional", bidirectional)
    num_buckets, max_distance, max_exact = _t5_sizes(bidirectional, num_buckets, max_distance)
    n = num_buckets // 2 if bidirectional else num_buckets
    shape, rp = rp.shape, rp.reshape(-1)  # (N,): a 0-d input stays indexable
    if bidirectional:
        offset = np.where(rp > 0, n, 0)
        dist = np.abs(rp)
    else:
        offset = np.zeros_like(rp)
        dist = -np.minimum(rp, 0)
    large = dist >= max_exact
    far = dist[large].astype(np.float32) / np.float32(max_exact)
    far = np.log(far) / np.float32(math.log(max_distance / max_exact)) * np.float32(n - max_exact)
    bucket = dist.copy()
    bucket[large] = np.minimum(max_exact + far.astype(np.int64), n - 1)
    return (offset + bucket).reshape(shape)


def t5_bucket_edges(num_buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """Where each causal (``bidirectional=False``) T5 bucket starts: its smallest distance i − j, real-valued.

    ``e_b = b`` for the exact buckets b < max_exact, ``max_exact·(max_distance/max_exact)^((b − max_exact)/
    (num_buckets − max_exact))`` for the log buckets (the inverse of ``t5_bucket``'s log map). Shape
    (num_buckets,). A log bucket narrower than one token holds no integer distance and is never used.
    """
    num_buckets, max_distance, max_exact = _t5_sizes(False, num_buckets, max_distance)
    b = np.arange(num_buckets, dtype=np.float64)
    frac = (b - max_exact) / (num_buckets - max_exact)  # (B,)
    return np.where(b < max_exact, b, max_exact * (max_distance / max_exact) ** frac)


# ---------------------------------------------------------------------------- KERPLE

def kerple(distance: object, r1: float, r2: float, kind: str = "log") -> np.ndarray:
    """KERPLE's bias at distance ``d = |m − n| >= 0`` (Chi et al. 2022, §4), elementwise, float64.

    ``kind="log"``: ``−r1·log(1 + r2·d)``, r1, r2 > 0. ``kind="power"``: ``−r1·d^r2``, r1 > 0, 0 < r2 <= 2
    (the range in which ``−|m − n|^r2`` is conditionally positive definite). Both are 0 at d = 0 and
    decrease with d.
    """
    kind = check_choice("kind", kind, KERPLE_KINDS)
    d = _number_array("distance", distance, integer=False, lo=0.0, hi=MAX_RELATIVE)
    r1 = check_float("r1", r1, 0.0, MAX_R, lo_open=True)
    r2 = check_float("r2", r2, 0.0, MAX_POWER if kind == "power" else MAX_R, lo_open=True)
    if kind == "log":
        return -r1 * np.log1p(r2 * d)
    return -r1 * d ** r2


# ---------------------------------------------------------------------------- the family's settings

@dataclass(frozen=True)
class Family:
    """Every member's parameters, validated once: ALiBi (H heads, which head), T5 (causal buckets and the
    per-bucket table: seeded N(0, t5_scale²) or another member's curve at each bucket's start), KERPLE
    (log and power), the Gaussian kernel, and the shared content term (seeded q, k of dimension d, scaled by
    ``content_scale``; RoPE rotates them with ``base``)."""

    n_heads: int = 8
    head: int = 0
    num_buckets: int = 32
    max_distance: int = 128
    t5_shape: str = "kerple_log"
    t5_scale: float = 1.0
    log_r1: float = 1.0
    log_r2: float = 1.0
    pow_r1: float = 0.5
    pow_r2: float = 0.5
    alpha1: float = 0.7
    alpha2: float = 0.3
    sigma1: float = 5.0
    sigma2: float = 20.0
    d: int = 64
    base: float = 10000.0
    seed: int = 0
    content_scale: float = 1.0

    def __post_init__(self) -> None:
        checked = dict(
            n_heads=check_int("n_heads", self.n_heads, 1, MAX_HEADS),
            num_buckets=check_int("num_buckets", self.num_buckets, 2, MAX_BUCKETS),
            t5_shape=check_choice("t5_shape", self.t5_shape, T5_SHAPES),
            t5_scale=check_float("t5_scale", self.t5_scale, 0.0, MAX_SCALE),
            log_r1=check_float("log_r1", self.log_r1, 0.0, MAX_R, lo_open=True),
            log_r2=check_float("log_r2", self.log_r2, 0.0, MAX_R, lo_open=True),
            pow_r1=check_float("pow_r1", self.pow_r1, 0.0, MAX_R, lo_open=True),
            pow_r2=check_float("pow_r2", self.pow_r2, 0.0, MAX_POWER, lo_open=True),
            d=check_int("d", self.d, 2, gk.MAX_DIM, even=True),
            base=check_float("base", self.base, 1.0, 1e12, lo_open=True),
            seed=check_int("seed", self.seed, 0, gk.MAX_SEED),
            content_scale=check_float("content_scale", self.content_scale, 0.0, MAX_SCALE),
        )
        checked["head"] = check_int("head", self.head, 0, checked["n_heads"] - 1)
        checked["max_distance"] = _t5_sizes(False, checked["num_buckets"], self.max_distance)[1]
        if checked["t5_shape"] != "seeded" and checked["max_distance"] > MAX_CURVE_DISTANCE:
            # the table is that member's curve at each bucket's start (below max_distance)
            raise ValueError(f"max_distance must be at most {MAX_CURVE_DISTANCE} (the distances distance_bias "
                             f"takes) with t5_shape = {checked['t5_shape']!r}; got {checked['max_distance']}")
        kern = gk._check_kernel(self.alpha1, self.alpha2, self.sigma1, self.sigma2)
        checked.update(zip(("alpha1", "alpha2", "sigma1", "sigma2"), kern))
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @classmethod
    def of(cls, **params: object) -> Family:
        """A Family from keyword arguments, ignoring those that are not its fields (figure parameters)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in params.items() if k in names})

    @property
    def kernel(self) -> dict[str, float]:
        return dict(alpha1=self.alpha1, alpha2=self.alpha2, sigma1=self.sigma1, sigma2=self.sigma2)


def _check_family(fam: object) -> Family:
    """``fam`` itself if it is a ``Family`` (whose fields were validated when it was made)."""
    if not isinstance(fam, Family):
        raise ValueError(f"fam must be a posviz.bias.Family (e.g. Family(n_heads=8)); got {fam!r:.40}")
    return fam


# ---------------------------------------------------------------------------- the family as f(distance)

def alibi_distance_bias(n_heads: int, distance: object) -> np.ndarray:
    """ALiBi's bias of every head at distances d >= 0: ``−m_h·d``, shape (H, *distance.shape)."""
    slopes = alibi_slopes(n_heads)
    d = _number_array("distance", distance, integer=False, lo=0.0, hi=MAX_CURVE_DISTANCE)
    if slopes.size * d.size > MAX_ELEMENTS:
        raise ValueError(f"n_heads·len(distance) must be at most {MAX_ELEMENTS} (the size cap); "
                         f"got {slopes.size * d.size}")
    return -slopes.reshape((-1,) + (1,) * d.ndim) * d


def t5_table(fam: Family = Family()) -> np.ndarray:
    """The learned-style scalar of each causal T5 bucket, shape (num_buckets,).

    ``t5_shape="seeded"``: i.i.d. ``N(0, t5_scale²)`` from ``seed`` (a table before training); any other
    shape is that member's bias at the bucket's start ``t5_bucket_edges`` (T5 as a staircase of it).
    """
    fam = _check_family(fam)
    if fam.t5_shape == "seeded":
        rng = np.random.default_rng(fam.seed)
        return fam.t5_scale * rng.standard_normal(fam.num_buckets)
    return distance_bias(fam.t5_shape, t5_bucket_edges(fam.num_buckets, fam.max_distance), fam)


def distance_bias(member: str, distance: object, fam: Family = Family()) -> np.ndarray:
    """The additive bias of ``member`` (one of ``BIASES``) for a key at distance d = i − j >= 0 behind the query.

    ALiBi (head ``fam.head``): ``−m_h·d``. T5: ``t5_table[t5_bucket(−d, bidirectional=False)]`` (the
    decoder's causal buckets; d is rounded down to whole tokens). KERPLE: ``kerple(d, ...)``. NoPE: 0.
    Gaussian: ``+log max(K(d), 1e-30)`` exactly as ``posviz.gaussian.apply_kernel`` mode "relative_log"
    adds it. Same shape as ``distance``, float64.
    """
    fam = _check_family(fam)
    member = check_choice("member", member, BIASES)
    d = _number_array("distance", distance, integer=False, lo=0.0, hi=MAX_CURVE_DISTANCE)
    if member == "alibi":
        return -alibi_slopes(fam.n_heads)[fam.head] * d
    if member == "t5":
        buckets = t5_bucket(-np.floor(d).astype(np.int64), False, fam.num_buckets, fam.max_distance)
        return t5_table(fam)[buckets]
    if member == "kerple_log":
        return kerple(d, fam.log_r1, fam.log_r2, "log")
    if member == "kerple_power":
        return kerple(d, fam.pow_r1, fam.pow_r2, "power")
    if member == "nope":
        return np.zeros_like(d)
    flat = d.reshape(1, -1)  # (1, D): one query at 0, keys at −d
    log_k = gk.apply_kernel(np.zeros_like(flat), [0.0], -flat[0], "relative_log", **fam.kernel)
    return log_k.reshape(d.shape)


def bias_matrix(member: str, T: int, fam: Family = Family()) -> np.ndarray:
    """The causal (T, T) bias of an additive member: ``distance_bias(member, i − j)`` for j <= i, −inf above."""
    fam = _check_family(fam)
    member = check_choice("member", member, BIASES)
    T = check_int("T", T, 1, MAX_MATRIX_T)
    dist = _distance_grid(T)  # (T, T)
    out = distance_bias(member, np.maximum(dist, 0.0), fam)
    out[dist < 0] = -np.inf
    return out


# ---------------------------------------------------------------------------- one query's attention

def content_logits(T: int, fam: Family = Family()) -> np.ndarray:
    """The content term shared by every member: ``content_scale·q·k_j/√d`` of the query at i = T − 1 and keys
    j = 0..T − 1, with seeded q, k (``posviz.gaussian.random_qk``) and no position. Shape (T,)."""
    fam = _check_family(fam)
    T = check_int("T", T, 1, MAX_ATTENTION_T)
    return fam.content_scale * _content_dot(T, fam.d, fam.seed) / np.sqrt(fam.d)


# One query's rows depend on T, d, seed (and base) alone, not on the members' settings: kept, so the page's
# numbers, its figure and the next slider step (another head, another kernel) reuse them. Validated values only.
@functools.lru_cache(maxsize=16)
def _content_dot(T: int, d: int, seed: int) -> np.ndarray:
    """``q_(T−1)·k_j`` of the seeded q, k (``posviz.gaussian.random_qk``), j = 0..T − 1, read-only. Shape (T,)."""
    q, k = gk.random_qk(T, d, seed)  # (T, d) each
    out = k @ q[-1]
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=16)
def _rope_row(T: int, d: int, seed: int, base: float) -> np.ndarray:
    """Plain RoPE logits of the query at T − 1 over keys 0..T − 1 (``posviz.gaussian.rope_logits``), read-only."""
    q, k = gk.random_qk(T, d, seed)
    keys = np.arange(T, dtype=np.float64)
    out = gk.rope_logits(q[-1:], k, np.array([T - 1.0]), keys, base)[0]
    out.setflags(write=False)
    return out


def content_logits_grid(T: int, seed: int = 0, d: int = 16) -> np.ndarray:
    """Content logits ``q_i·k_j/√d`` of every query and key (T, T), seeded q, k, no position."""
    T = check_int("T", T, 1, MAX_ATTENTION_T)
    q, k = gk.random_qk(T, d, seed)  # (T, d) each
    return q @ k.T / np.sqrt(d)


def attention_row(member: str, T: int, fam: Family = Family()) -> np.ndarray:
    """Softmax weights of the last query (i = T − 1) over its T keys j = 0..T − 1 (all visible), shape (T,).

    Additive members: ``softmax(content + distance_bias(i − j))``. "gaussian_mul": the content logit times
    K(i − j) (``apply_kernel`` mode "relative_mul"). "rope": no bias, the same q and k rotated to their
    positions (``posviz.gaussian.rope_logits``), times ``content_scale``.
    """
    fam = _check_family(fam)
    member = check_choice("member", member, MEMBERS)
    content = content_logits(T, fam)  # validates T
    T = content.size
    keys = np.arange(T, dtype=np.float64)
    query = np.array([T - 1.0])
    if member == "rope":
        logits = fam.content_scale * _rope_row(T, fam.d, fam.seed, fam.base)
    elif member == "gaussian_mul":
        logits = gk.apply_kernel(content[None, :], query, keys, "relative_mul", **fam.kernel)[0]
    else:
        logits = content + distance_bias(member, T - 1 - keys, fam)
    return gk.softmax(logits)


def reach(weights: object, mass: float = 0.9) -> int:
    """The smallest distance D such that keys at distances 0..D hold at least ``mass`` of the weight.

    ``weights`` is one query's attention over keys j = 0..T − 1 with the query at T − 1 (``attention_row``),
    so distance i − j runs from T − 1 down to 0.
    """
    w = _number_array("weights", weights, integer=False, lo=0.0, hi=1.0)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"weights must be a non-empty 1-D array; got shape {w.shape}")
    mass = check_float("mass", mass, 0.0, 1.0, lo_open=True)
    near_first = np.cumsum(w[::-1])  # (T,): weight within distance 0..D
    hit = np.nonzero(near_first >= mass * near_first[-1] * (1 - 1e-12))[0]
    return int(hit[0])


# ---------------------------------------------------------------------------- NoPE: what the mask alone tells

def nope_signals(T: int = 128, d: int = 256, seed: int = 0) -> dict[str, np.ndarray]:
    """What uniform causal attention (every logit equal: no position, no content) outputs at each position i.

    Query i averages its i + 1 visible values. ``"first_token"``: the value is 1 on token 0 (a BOS marker)
    and 0 elsewhere, so the output is exactly ``1/(i + 1)``, strictly decreasing: the position can be read
    back as ``1/output − 1`` (``"recovered"``; Kazemnejad et al. 2023, Thm. 1). ``"variance"``: i.i.d.
    N(0, 1) values in d channels; the variance of the average over channels shrinks like ``1/(i + 1)``
    (Chi et al. 2023). Shapes (T,).
    """
    T = check_int("T", T, 1, MAX_ATTENTION_T)
    d = check_int("d", d, 1, 4096)
    seed = check_int("seed", seed, 0, gk.MAX_SEED)
    return {name: a.copy() for name, a in _nope_signals(T, d, seed).items()}


@functools.lru_cache(maxsize=8)  # validated values; the page's caption and its figure ask for the same signals
def _nope_signals(T: int, d: int, seed: int) -> dict[str, np.ndarray]:
    weights = gk.softmax(bias_matrix("nope", T))  # (T, T): 1/(i+1) on j <= i, 0 above
    marker = np.zeros(T)
    marker[0] = 1.0
    first = weights @ marker  # (T,)
    values = np.random.default_rng(seed).standard_normal((T, d))  # (T, d)
    averaged = weights @ values  # (T, d)
    out = {"first_token": first, "recovered": 1.0 / first - 1.0, "variance": averaged.var(axis=1)}
    for a in out.values():
        a.setflags(write=False)
    return out


# ---------------------------------------------------------------------------- RoPE's side, for contrast

def rope_profile(span: int = 128, dim: int = 64, base: float = 10000.0, seed: int = 0,
                 n_samples: int = ROPE_SAMPLES) -> dict[str, np.ndarray]:
    """RoPE's logit ``(R_i q)·(R_j k)/√d`` as a function of the distance Δ = i − j = 0..span (RoFormer §3.4).

    ``"seeded"``: one seeded (q, k) pair (``posviz.gaussian.random_qk``); ``"ones"``: q = k = all ones
    (the popular 'decay' curve, ``2·Σcos(Δθ_i)/√d``); ``"mean"``: the mean over ``n_samples`` independent
    random pairs (``posviz.rope.mean_random_score``), about 0 at every Δ. ``"delta"``: Δ. Shapes (span + 1,).
    """
    span = check_int("span", span, 1, 8192)
    dim = check_int("dim", dim, 2, gk.MAX_DIM, even=True)
    check_cells(f"span, dim: {span + 1} distances × {dim // 2} pairs", (span + 1) * (dim // 2), rope.MAX_CELLS,
                "angles")
    args = (span, dim, base, seed, n_samples)
    if all(type(a) in (int, float) for a in args):  # kept: the page's caption and its figure draw the same curves
        return {name: a.copy() for name, a in _kept_rope_profile(*args).items()}
    return _rope_profile(*args)


@functools.lru_cache(maxsize=8, typed=True)  # plain ints and floats only (rope_profile)
def _kept_rope_profile(span: int, dim: int, base: float, seed: int, n_samples: int) -> dict[str, np.ndarray]:
    out = _rope_profile(span, dim, base, seed, n_samples)
    for a in out.values():
        a.setflags(write=False)
    return out


def _rope_profile(span: int, dim: int, base: object, seed: object, n_samples: object) -> dict[str, np.ndarray]:
    delta = np.arange(span + 1, dtype=np.float64)
    q, k = gk.random_qk(1, dim, seed)
    scale = 1.0 / np.sqrt(dim)
    ones = np.ones(dim)
    return {
        "delta": delta,
        "seeded": scale * rope.relative_scores(q[0], k[0], delta, base),
        "ones": scale * rope.relative_scores(ones, ones, delta, base),
        "mean": scale * rope.mean_random_score(delta, dim, base, n_samples, seed),
    }
