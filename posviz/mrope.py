"""M-RoPE (Qwen2-VL, Qwen2.5-VL): three position ids per token and a split of the rotary pairs between them.

Every token gets three ids, (temporal, height, width). Text tokens get the same number three times, so on text
M-RoPE is plain 1-D RoPE; the tokens of an image or a video get ids from their place in the merged patch grid.
The d/2 rotary pairs are split by ``mrope_section`` ((16, 24, 24) for head dim 128): pair k turns with the id
of its section's axis, ``angle_k = id_{axis(k)} · θ_k`` with the usual ``θ_k = base**(-2k/d)``
(:func:`posviz.rope.inv_freq`; which pair belongs to which axis is :func:`posviz.scaling.mrope_axis`).
Wang et al. 2024, "Qwen2-VL" (arXiv:2409.12191) §2.1; the ids are those of transformers'
``Qwen2VLModel.get_rope_index`` and ``Qwen2_5_VLModel.get_rope_index``; the id rules, the sections and the
pitfalls are docs/FORMULAS.md §4.5, RoPE on several axes docs/FORMULAS.md §4.

A sequence is a tuple of segments: ``("text", n)`` for n text tokens, ``("image", t, h, w)`` and
``("video", t, h, w)`` with (t, h, w) the vision encoder's patch grid, exactly transformers' ``image_grid_thw`` /
``video_grid_thw`` (h and w before the 2 × 2 merge, so the segment holds t·(h/2)·(w/2) tokens).
"""

from __future__ import annotations

import numpy as np

from posviz._validate import check_array, check_choice, check_float, check_int
from posviz.rope import inv_freq
from posviz.scaling import mrope_axis

MROPE_SECTION = (16, 24, 24)      # Qwen2-VL and Qwen2.5-VL, head dim 128
QWEN2_VL_THETA = 1_000_000.0      # rope_theta of Qwen2-VL and Qwen2.5-VL
SPATIAL_MERGE_SIZE = 2            # vision_config.spatial_merge_size: 2 × 2 patches become one token
TOKENS_PER_SECOND = 2.0           # Qwen2.5-VL's vision_config.tokens_per_second in its released config.json
KINDS = ("text", "image", "video")
VARIANTS = ("qwen2_vl", "qwen2_5_vl")
TEXT_AFTER = ("max_id", "spatial")
MAX_TOKENS = 1 << 16              # tokens of one sequence
MAX_SEGMENTS = 64
MAX_GRID = 1024                   # t, h or w of one vision grid
DEMO = (("text", 4), ("image", 1, 6, 8), ("text", 3), ("video", 3, 4, 4), ("text", 3))


def check_segments(segments: object = DEMO,
                   spatial_merge_size: int = SPATIAL_MERGE_SIZE) -> tuple[tuple[str, int, int, int], ...]:
    """The segments as ``(kind, t, h', w')`` with the MERGED grid (h' = h / merge): text is ``("text", n, 1, 1)``.

    Refuses what transformers cannot read: a grid side that is not a multiple of ``spatial_merge_size``, two
    vision segments with no text between them (the chat template wraps each in ``<|vision_start|>`` …
    ``<|vision_end|>``, and ``get_rope_index`` finds the blocks by token type), more than ``MAX_TOKENS`` tokens.
    """
    merge = check_int("spatial_merge_size", spatial_merge_size, 1, 16)
    if not isinstance(segments, (tuple, list)) or not 1 <= len(segments) <= MAX_SEGMENTS:
        raise ValueError(f"segments must be a list of 1 to {MAX_SEGMENTS} segments such as ('text', 4) or "
                         f"('image', 1, 8, 12); got {segments!r}"[:200])
    out, total = [], 0
    for i, seg in enumerate(segments):
        kind = seg[0] if isinstance(seg, (tuple, list)) and seg else None
        kind = check_choice(f"segments[{i}][0]", kind, KINDS)
        if kind == "text":
            if len(seg) != 2:
                raise ValueError(f"segments[{i}] must be ('text', n); got {seg!r}"[:160])
            n = check_int(f"segments[{i}] text length", seg[1], 1, MAX_TOKENS)
            out.append(("text", n, 1, 1))
            total += n
            continue
        if len(seg) != 4:
            raise ValueError(f"segments[{i}] must be ('{kind}', t, h, w); got {seg!r}"[:160])
        t = check_int(f"segments[{i}] grid t", seg[1], 1, MAX_GRID)
        h, w = (check_int(f"segments[{i}] grid {a}", v, merge, MAX_GRID, multiple_of=merge)
                for a, v in zip("hw", seg[2:]))
        if out and out[-1][0] != "text":
            raise ValueError(f"segments[{i}]: two vision segments need text between them (Qwen2-VL wraps each "
                             "in <|vision_start|> … <|vision_end|>)")
        out.append((kind, t, h // merge, w // merge))
        total += t * (h // merge) * (w // merge)
    if total > MAX_TOKENS:
        raise ValueError(f"segments must hold at most {MAX_TOKENS:,} tokens; got {total:,}")
    return tuple(out)


def token_types(segments: object = DEMO, spatial_merge_size: int = SPATIAL_MERGE_SIZE) -> np.ndarray:
    """transformers' ``mm_token_type_ids`` of the sequence: 0 text, 1 image, 2 video, shape (N,) int64."""
    segs = check_segments(segments, spatial_merge_size)
    return np.concatenate([np.full(t * h * w, KINDS.index(kind)) for kind, t, h, w in segs]).astype(np.int64)


def _time_steps(t: int, interval: float) -> np.ndarray:
    """Temporal ids ``floor(k · interval)`` of a grid's t frames, in float32 as transformers multiplies them."""
    return np.floor(np.arange(t, dtype=np.float32) * np.float32(interval)).astype(np.int64)  # (t,)


def _intervals(segs: tuple, variant: str, tokens_per_second: float, second_per_grid_t: object) -> list[float]:
    """The temporal step of every vision segment: 1 for images and for Qwen2-VL's videos; Qwen2.5-VL's videos
    step by ``tokens_per_second · second_per_grid_t`` (one number for every video, or one per video)."""
    n_video = sum(kind == "video" for kind, *_ in segs)
    per = check_array("second_per_grid_t", second_per_grid_t, ndim=1, scalar_ok=True, min_size=1, max_size=
                      MAX_SEGMENTS, lo=0.0, hi=3600.0)
    if per.size not in (1, n_video):
        raise ValueError(f"second_per_grid_t must be one number or one per video ({n_video}); got {per.size}")
    per = np.broadcast_to(per, (max(n_video, 1),))
    out, v = [], 0
    for kind, *_ in segs:
        if kind == "video" and variant == "qwen2_5_vl":
            out.append(float(tokens_per_second * per[v]))
        else:
            out.append(1.0)
        v += kind == "video"
    return out


def mrope_position_ids(segments: object = DEMO, spatial_merge_size: int = SPATIAL_MERGE_SIZE,
                       variant: str = "qwen2_vl", tokens_per_second: float = TOKENS_PER_SECOND,
                       second_per_grid_t: object = 1.0, text_after: str = "max_id") -> np.ndarray:
    """M-RoPE position ids (temporal, height, width) of every token, shape (3, N) int64, as ``get_rope_index``.

    A text run starting at s gets ``s, s+1, …`` on all three axes. A vision grid of t × h' × w' merged tokens
    starting at s gets, for frame k, row r and column c (row-major within a frame, frames in order),
    ``(s + floor(k·Δ), s + r, s + c)``: Δ = 1 for images and Qwen2-VL videos, ``tokens_per_second ·
    second_per_grid_t`` for Qwen2.5-VL videos. ``text_after`` says where the next segment starts:
    ``"max_id"``: one past the largest id so far (Qwen's ``get_rope_index`` as released with the models,
    transformers 4.x); ``"spatial"``: ``s + max(h', w')`` (transformers 5.x). They agree on images, and on videos
    whose largest temporal id is below max(h', w'); after a longer video the second overlaps text ids with the
    video's temporal ids. Wang et al. 2024 (Qwen2-VL) §2.1; docs/FORMULAS.md §4.5.
    """
    segs = check_segments(segments, spatial_merge_size)
    variant = check_choice("variant", variant, VARIANTS)
    text_after = check_choice("text_after", text_after, TEXT_AFTER)
    tps = check_float("tokens_per_second", tokens_per_second, 0.0, 1000.0)
    intervals = _intervals(segs, variant, tps, second_per_grid_t)
    blocks, start = [], 0
    for (kind, t, h, w), interval in zip(segs, intervals):
        if kind == "text":
            blocks.append(np.broadcast_to(start + np.arange(t), (3, t)))  # (3, n)
            start += t
            continue
        tt, hh, ww = np.meshgrid(_time_steps(t, interval), np.arange(h), np.arange(w), indexing="ij")  # (t, h', w')
        block = start + np.stack([tt, hh, ww]).reshape(3, -1)  # (3, t·h'·w')
        blocks.append(block)
        start = int(block.max()) + 1 if text_after == "max_id" else start + max(h, w)
    return np.concatenate(blocks, axis=1).astype(np.int64)  # (3, N)


def sequential_position_ids(segments: object = DEMO, spatial_merge_size: int = SPATIAL_MERGE_SIZE) -> np.ndarray:
    """What a text-only model would use: ids 0, 1, …, N−1 on all three axes, shape (3, N) int64. On text alone
    it equals :func:`mrope_position_ids` (transformers' text-only fallback); with images it does not."""
    n = token_types(segments, spatial_merge_size).size
    return np.broadcast_to(np.arange(n), (3, n)).astype(np.int64)


def rope_delta(position_ids: object = None) -> int:
    """``max id + 1 − N`` (transformers' ``mrope_position_deltas``): generated token i (0-based, after the
    prompt of N tokens) gets id ``N + i + delta`` on all three axes, i.e. it continues after the largest id."""
    ids = _check_ids(position_ids)
    return int(ids.max()) + 1 - ids.shape[1]


def _check_ids(position_ids: object) -> np.ndarray:
    if position_ids is None:
        return mrope_position_ids()
    ids = check_array("position_ids", position_ids, ndim=2, min_size=3, lo=-1e9, hi=1e9)
    if ids.shape[0] != 3 or ids.shape[1] > MAX_TOKENS:
        raise ValueError(f"position_ids must have shape (3, N) with N <= {MAX_TOKENS:,}; got {ids.shape}")
    return ids


def mrope_freqs(dim: int = 128, base: float = QWEN2_VL_THETA, section: tuple[int, ...] = MROPE_SECTION,
                interleaved: bool = False) -> np.ndarray:
    """M-RoPE frequency matrix, shape (3, dim/2): row a holds ``θ_k = base**(-2k/dim)`` on the pairs that turn
    with axis a (0 temporal, 1 height, 2 width) and 0 elsewhere, so ``angles = ids.T @ freqs``.

    ``section`` counts rotary PAIRS (frequencies), adding up to dim/2: transformers splits the dim/2 frequencies
    with it and then duplicates them for the two halves of ``rotate_half``. Chunked (Qwen2-VL, Qwen2.5-VL) or
    ``interleaved`` (Qwen3-VL) as :func:`posviz.scaling.mrope_axis`. docs/FORMULAS.md §4.5.
    """
    dim = check_int("dim", dim, 2, 1024, even=True)
    theta = inv_freq(dim, check_float("base", base, 1.0, 1e12, lo_open=True))  # (dim/2,)
    axis = mrope_axis(section, interleaved)
    if axis.size != dim // 2:
        raise ValueError(f"section must add up to dim/2 = {dim // 2} pairs; got {list(section)} (sum {axis.size})")
    return np.where(axis[None, :] == np.arange(3)[:, None], theta[None, :], 0.0)  # (3, dim/2)


def mrope_angles(position_ids: object = None, dim: int = 128, base: float = QWEN2_VL_THETA,
                 section: tuple[int, ...] = MROPE_SECTION, interleaved: bool = False) -> np.ndarray:
    """Rotation angle of every pair at every token, shape (N, dim/2): ``id_{axis(k)} · θ_k`` (no modulo).

    The same numbers as transformers' ``Qwen2VLRotaryEmbedding`` (its ``freqs`` before cos/sin, pairs in
    ``rotate_half`` order). ``position_ids`` (3, N), by default those of :data:`DEMO`.
    """
    ids = _check_ids(position_ids)
    return ids.T @ mrope_freqs(dim, base, section, interleaved)  # (N, 3) @ (3, dim/2)


def axis_wavelengths(dim: int = 128, base: float = QWEN2_VL_THETA, section: tuple[int, ...] = MROPE_SECTION,
                     interleaved: bool = False) -> dict[str, tuple[float, float]]:
    """For each axis, the shortest and longest wavelength ``2π/θ_k`` (in ids) among the pairs it turns.

    Chunked sections give the temporal axis only the fastest pairs and the width axis only the slowest;
    interleaved ones spread every axis over the whole range. An axis with no pair is left out.
    """
    freqs = mrope_freqs(dim, base, section, interleaved)
    out = {}
    for name, row in zip(("temporal", "height", "width"), freqs):
        on = row[row > 0]
        if on.size:
            out[name] = (float(2 * np.pi / on.max()), float(2 * np.pi / on.min()))
    return out


def axis_angle_spread(position_ids: object = None, dim: int = 128, base: float = QWEN2_VL_THETA,
                      section: tuple[int, ...] = MROPE_SECTION, interleaved: bool = False) -> dict[str, float]:
    """How far the angles of each axis' pairs spread across the given tokens: for axis a, the largest over its
    pairs k of ``max_t angle_k(t) − min_t angle_k(t)`` (radians, no modulo), from :func:`mrope_angles`. Over an
    image's tokens the temporal spread is 0 (one temporal id); chunked sections give the width axis only the
    slowest pairs, so its spread is small. An axis with no pair is left out."""
    angles = mrope_angles(position_ids, dim, base, section, interleaved)  # (N, dim/2)
    freqs = mrope_freqs(dim, base, section, interleaved)
    spread = np.ptp(angles, axis=0)  # (dim/2,)
    return {name: float(spread[row > 0].max()) for name, row in zip(("temporal", "height", "width"), freqs)
            if (row > 0).any()}
