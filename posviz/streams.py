"""Long-context methods that change which positions RoPE sees, not its frequencies: Self-Extend's grouped
positions, attention sinks with a rolling KV cache (StreamingLLM), and training on short windows with skipped
(PoSE) or randomised position ids. Frequencies and the base bound are in ``posviz.longctx``.

Sources: Jin et al. 2024 ("LLM Maybe LongLM", Self-Extend, as in datamllab/LongLM), Xiao et al. 2023
("Efficient Streaming Language Models with Attention Sinks", as in mit-han-lab/streaming-llm), Zhu et al. 2023
(PoSE, as in dwzhu-pku/PoSE) and Ruoss et al. 2023 ("Randomized Positional Encodings"); the formulas are
docs/FORMULAS.md §9.4 (Self-Extend), §9.5 (attention sinks), §9.6 (PoSE, randomised ids), their pitfalls §9.7.
"""

from __future__ import annotations

import random

import numpy as np

from posviz._validate import check_array, check_bool, check_choice, check_float, check_int
from posviz.longctx import _theta

MAX_SIDE = 2048         # T of a T × T relative-position matrix
MAX_STEPS = 1 << 16     # stream length of the attention-sink tables
MAX_BATCH = 512         # samples of a PoSE / randomised batch
MAX_TARGET = 1 << 20    # target context of PoSE / randomised positions


# ---------------------------------------------------------------------------------- Self-Extend

def self_extend_relative(T: int = 24, group: int = 4, window: int = 6, shift: bool = True) -> np.ndarray:
    """Self-Extend's relative positions (Jin et al. 2024) as datamllab/LongLM computes them at prefill: query m
    and key n with m - n < W keep m - n (neighbour attention); the rest use grouped positions,
    query ⌊m/G⌋ + W - W/G and key ⌊n/G⌋, so r = ⌊m/G⌋ - ⌊n/G⌋ + W - W/G (true division: not an integer when G
    does not divide W). The shift W - W/G makes the grouped part start near W; ``shift=False`` drops it (the
    common slip). When T - 1 < W no pair is grouped and the shift is not applied. Every (m, n) as the reference
    computes it before the causal mask (n > m is masked). docs/FORMULAS.md §9.4."""
    T = check_int("T", T, 1, MAX_SIDE)
    group = check_int("group", group, 1, 1 << 16)
    window = check_int("window", window, 1, 1 << 20)
    shift = check_bool("shift", shift)
    idx = np.arange(T)
    re = float(window) if (window <= T - 1 and shift) else 0.0
    q_group = idx // group + re - re / group  # (T,) float
    k_group = idx // group
    near = idx[:, None] - idx[None, :]  # (T, T)
    grouped = q_group[:, None] - k_group[None, :]
    return np.where(near < window, near.astype(np.float64), grouped)


def self_extend_reach(train_length: int = 4096, group: int = 8, window: int = 1024) -> int:
    """The longest input Self-Extend keeps inside the trained relative positions (Jin et al. 2024):
    (L - W)·G + W; past it the grouped relative position ⌊m/G⌋ - ⌊n/G⌋ + W - W/G exceeds L - 1."""
    train_length = check_int("train_length", train_length, 2, 1 << 30)
    group = check_int("group", group, 1, 1 << 16)
    window = check_int("window", window, 1, train_length - 1)
    return (train_length - window) * group + window


def self_extend_angles(T: int = 24, group: int = 4, window: int = 6, dim: int = 128, base: float = 10000.0,
                       pair: int = 0) -> dict[str, np.ndarray]:
    """The angle pair i turns through between the last query (m = T - 1) and every key n: r_mn θ_i with
    Self-Extend's r against plain RoPE's m - n (θ_i = b^(-2i/d), docs/FORMULAS.md §1.1). Keys "key", "rope",
    "self_extend" (radians, unwrapped)."""
    rel = self_extend_relative(T, group, window)
    dim = check_int("dim", dim, 2, 1024, even=True)
    pair = check_int("pair", pair, 0, dim // 2 - 1)
    theta = float(_theta(dim, check_float("base", base, 1.0, 1e12, lo_open=True))[pair])
    keys = np.arange(T, dtype=np.float64)
    return {"key": keys, "rope": (T - 1 - keys) * theta, "self_extend": rel[T - 1] * theta}


# ---------------------------------------------------------------------------------- attention sinks

def sink_cache(step: int = 40, n_sink: int = 4, window: int = 16) -> dict[str, np.ndarray]:
    """What StreamingLLM's rolling cache holds when token ``step`` (0-based) is the query (Xiao et al. 2023,
    mit-han-lab/streaming-llm's StartRecentKVCache with position shift): the first ``n_sink`` tokens and the
    ``window`` most recent ones, plus the query. RoPE positions are slots in the cache, 0..len-1, not places in
    the text. Keys "token" (text index of each key, the query last) and "position" (its RoPE position).
    docs/FORMULAS.md §9.5."""
    step = check_int("step", step, 0, MAX_STEPS)
    n_sink = check_int("n_sink", n_sink, 0, 4096)
    window = check_int("window", window, 1, 1 << 16)
    if step <= n_sink + window:  # nothing evicted yet
        tokens = np.arange(step + 1)
    else:
        tokens = np.concatenate([np.arange(n_sink), np.arange(step - window, step + 1)])
    return {"token": tokens, "position": np.arange(tokens.size)}


def sink_positions_over_stream(steps: int = 200, n_sink: int = 4, window: int = 60,
                               shift: bool = True) -> dict[str, np.ndarray]:
    """For every step t of a stream, the largest RoPE position and the largest relative distance (query to the
    first sink) that attention sees (Xiao et al. 2023). With the cache's own positions (``shift``) both stop at
    n_sink + window once the cache is full; with the tokens' text positions they grow with t. Keys "step",
    "max_position", "max_distance"."""
    steps = check_int("steps", steps, 1, MAX_STEPS)
    n_sink = check_int("n_sink", n_sink, 0, 4096)
    window = check_int("window", window, 1, 1 << 16)
    shift = check_bool("shift", shift)
    t = np.arange(steps)
    cache_pos = np.minimum(t, n_sink + window)  # the query's slot in the cache
    pos = (cache_pos if shift else t).astype(np.float64)
    # the first sink (token 0, RoPE position 0) is never evicted: the query's distance to it is its own position
    return {"step": t, "max_position": pos, "max_distance": pos.copy()}


# ---------------------------------------------------------------------------------- PoSE and randomised ids

def pose_position_ids(train_length: int = 16, target_length: int = 64, split: int = 5, skip: int = 20) -> np.ndarray:
    """PoSE's position ids for one training window (Zhu et al. 2023, two chunks as dwzhu-pku/PoSE's
    train_pose.py): ids 0..L_c-1 with a skip u added to the second chunk, which starts at index ``split``:
    [0, ..., s-1, s+u, ..., L_c-1+u]. Valid: 1 <= s <= (L_c+1)//2, 0 <= u <= L_t - L_c. docs/FORMULAS.md §9.6."""
    train_length = check_int("train_length", train_length, 2, 1 << 16)
    target_length = check_int("target_length", target_length, train_length, MAX_TARGET)
    split = check_int("split", split, 1, (train_length + 1) // 2)
    skip = check_int("skip", skip, 0, target_length - train_length)
    ids = np.arange(train_length)
    ids[split:] += skip
    return ids


def pose_batch(train_length: int = 16, target_length: int = 64, batch: int = 8, seed: int = 0,
               method: str = "pose") -> np.ndarray:
    """Position ids of a batch of training windows, (batch, L_c). "pose": split s ~ U{1..(L_c+1)//2} and skip
    u ~ U{0..L_t-L_c} drawn as dwzhu-pku/PoSE does (Python's random, with its draw of the second chunk's text
    end between them; the text is taken as L_t tokens long). "random": a sorted sample of L_c distinct ids from
    0..L_t-1 (Ruoss et al. 2023; the PoSE repository's randomised baseline). Reproducible from ``seed``."""
    train_length = check_int("train_length", train_length, 2, 1 << 16)
    target_length = check_int("target_length", target_length, train_length, MAX_TARGET)
    batch = check_int("batch", batch, 1, MAX_BATCH)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    method = check_choice("method", method, ("pose", "random"))
    if batch * train_length > 1 << 22:
        raise ValueError(f"batch: batch × train_length may be at most {1 << 22:,}; got {batch * train_length:,}")
    rng = random.Random(seed)
    rows = []
    for _ in range(batch):
        if method == "random":
            rows.append(sorted(rng.sample(range(target_length), train_length)))
            continue
        split = rng.randint(1, (train_length + 1) // 2)
        rng.randint(train_length, target_length)  # the text end of the second chunk: no effect on the ids
        skip = rng.randint(0, target_length - train_length)
        rows.append(pose_position_ids(train_length, target_length, split, skip).tolist())
    return np.asarray(rows, dtype=np.int64)


def relative_coverage(position_ids: object = ((0, 1, 5), (0, 2, 3)), target_length: int = 8) -> np.ndarray:
    """How many windows of a batch contain each relative distance 0..L_t-1 (any query-key pair m > n with
    m - n = r; r = 0 is every token with itself). position_ids: (batch, L_c) increasing ids below L_t."""
    ids = check_array("position_ids", position_ids, ndim=2, min_size=1, max_size=1 << 22, lo=0.0)
    target_length = check_int("target_length", target_length, 1, MAX_TARGET)
    if ids.max() >= target_length:
        raise ValueError(f"position_ids must be below target_length {target_length}; got {ids.max():g}")
    if ids.shape[1] > 4096:
        raise ValueError(f"position_ids may have at most 4,096 ids a window; got {ids.shape[1]:,}")
    counts = np.zeros(target_length, dtype=np.int64)
    for row in ids.astype(np.int64):
        d = row[:, None] - row[None, :]  # (L_c, L_c)
        seen = np.zeros(target_length, dtype=bool)
        seen[d[d >= 0]] = True
        counts += seen
    return counts


def unsorted_order_errors(train_length: int = 16, target_length: int = 64, batch: int = 8, seed: int = 0) -> float:
    """The fraction of causal pairs (token m after token n in the window) whose position ids run backwards
    (id_m < id_n) when randomised ids are sampled as Ruoss et al. 2023 do but left unsorted: about one half."""
    train_length = check_int("train_length", train_length, 2, 1 << 12)
    target_length = check_int("target_length", target_length, train_length, MAX_TARGET)
    batch = check_int("batch", batch, 1, MAX_BATCH)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    rng = random.Random(seed)
    wrong = 0
    for _ in range(batch):
        ids = np.asarray(rng.sample(range(target_length), train_length))
        wrong += int(np.triu(ids[None, :] < ids[:, None], 1).sum())  # n < m in the window, id_m < id_n
    return wrong / (batch * train_length * (train_length - 1) / 2)
