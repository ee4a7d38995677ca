"""posviz.mrope: Qwen2-VL's M-RoPE position ids and angles against transformers itself (5.23's ``get_rope_index``
and ``Qwen2VLRotaryEmbedding``, called without weights), against transformers 4.x's ``get_rope_index`` re-typed
here from its published logic (token ids, ``<|vision_start|>`` search, "next start = largest id + 1"), against the
worked example of Qwen2.5-VL's docstring, plus hypothesis properties and the ValueError contract."""

from __future__ import annotations

import types

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz import mrope
from posviz.rope import inv_freq

IMAGE, VIDEO, START, TEXT = 151655, 151656, 151652, 100  # Qwen2-VL's token ids (config defaults); any text id


def _stub(cls, tokens_per_second: float = 2.0):
    """An object with just what ``get_rope_index`` reads: the vision config and ``get_vision_position_ids``."""
    vision = types.SimpleNamespace(spatial_merge_size=2, tokens_per_second=tokens_per_second)
    stub = types.SimpleNamespace(config=types.SimpleNamespace(vision_config=vision))
    stub.get_vision_position_ids = types.MethodType(cls.get_vision_position_ids, stub)
    return stub


def transformers_ids(segments, variant="qwen2_vl", tokens_per_second=2.0, second_per_grid_ts=None):
    """transformers 5.23's ``get_rope_index`` on the sequence: (3, N) ids and the rope delta."""
    from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VLModel
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel

    cls = Qwen2VLModel if variant == "qwen2_vl" else Qwen2_5_VLModel
    types_ = torch.tensor(mrope.token_types(segments))[None]
    grids = {k: [list(s[1:]) for s in segments if s[0] == k] for k in ("image", "video")}
    kw = {f"{k}_grid_thw": torch.tensor(g) if g else None for k, g in grids.items()}
    if second_per_grid_ts is not None:
        kw["second_per_grid_ts"] = torch.tensor(second_per_grid_ts, dtype=torch.float32)
    pos, delta = cls.get_rope_index(_stub(cls, tokens_per_second), torch.zeros_like(types_), types_, **kw)
    return pos[:, 0].numpy(), int(delta)


def v4_input_ids(segments) -> list[int]:
    """Token ids as Qwen2-VL's chat template lays them out: each vision run right after <|vision_start|>."""
    ids: list[int] = []
    for seg in segments:
        if seg[0] == "text":
            ids += [TEXT] * seg[1]
        else:
            ids[-1] = START  # the text token before a vision run is its <|vision_start|>
            t, h, w = seg[1:]
            ids += [IMAGE if seg[0] == "image" else VIDEO] * (t * (h // 2) * (w // 2))
    return ids


def v4_rope_index(input_ids, image_grids, video_grids, variant="qwen2_vl", tokens_per_second=2.0,
                  second_per_grid_ts=None):
    """transformers 4.x's ``get_rope_index`` for one unpadded sequence, re-typed: find each vision run from the
    token after <|vision_start|>, give the text before it 1-D ids from the previous block's largest id + 1, the
    grid (t·Δ, r, c) offset by the same start, and the trailing text again from the largest id + 1."""
    tokens = list(input_ids)
    starts = [i for i, tok in enumerate(tokens) if tok == START]
    kinds = [tokens[i + 1] for i in starts]
    blocks: list[np.ndarray] = []
    cursor, n_img, n_vid = 0, 0, 0
    for kind in kinds:
        at = tokens.index(kind, cursor)
        if kind == IMAGE:
            (t, h, w), step = image_grids[n_img], 1.0
            n_img += 1
        else:
            (t, h, w) = video_grids[n_vid]
            spg = 1.0 if second_per_grid_ts is None else second_per_grid_ts[n_vid]
            step = spg * tokens_per_second if variant == "qwen2_5_vl" else 1.0
            n_vid += 1
        gh, gw = h // 2, w // 2
        first = int(blocks[-1].max()) + 1 if blocks else 0
        n_text = at - cursor
        blocks.append(np.tile(np.arange(n_text) + first, (3, 1)))
        frames = (np.arange(t, dtype=np.float32) * np.float32(step)).astype(np.int64)
        grid = np.array([[f, r, c] for f in frames for r in range(gh) for c in range(gw)]).T
        blocks.append(grid + n_text + first)
        cursor = at + t * gh * gw
    if cursor < len(tokens):
        first = int(blocks[-1].max()) + 1 if blocks else 0
        blocks.append(np.tile(np.arange(len(tokens) - cursor) + first, (3, 1)))
    pos = np.concatenate(blocks, axis=1)
    return pos, int(pos.max()) + 1 - len(tokens)


def grids_of(segments, kind):
    return [tuple(s[1:]) for s in segments if s[0] == kind]


# a sequence: text, then up to three (vision, text) pairs; vision grids before the 2 × 2 merge
vision = st.tuples(st.sampled_from(["image", "video"]), st.integers(1, 5), st.integers(1, 4).map(lambda x: 2 * x),
                   st.integers(1, 4).map(lambda x: 2 * x)).map(lambda s: (s[0], 1 if s[0] == "image" else s[1], *s[2:]))
sequences = st.builds(lambda first, rest: (("text", first), *[x for pair in rest for x in pair]),
                      st.integers(1, 5), st.lists(st.tuples(vision, st.integers(1, 4).map(lambda n: ("text", n))),
                                                  max_size=3))


def test_text_only_is_one_dimensional_rope():
    segs = (("text", 7),)
    ids = mrope.mrope_position_ids(segs)
    np.testing.assert_array_equal(ids, np.tile(np.arange(7), (3, 1)))
    np.testing.assert_array_equal(ids, transformers_ids(segs)[0])
    np.testing.assert_array_equal(ids, mrope.sequential_position_ids(segs))
    assert mrope.rope_delta(ids) == 0


@settings(max_examples=60, deadline=None)
@given(sequences)
def test_equals_transformers_5_get_rope_index(segments):
    """text_after="spatial" is transformers 5.23 for Qwen2-VL, on any text / image / video sequence."""
    ours = mrope.mrope_position_ids(segments, text_after="spatial")
    theirs, delta = transformers_ids(segments)
    np.testing.assert_array_equal(ours, theirs)
    assert mrope.rope_delta(ours) == delta


@settings(max_examples=40, deadline=None)
@given(sequences, st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0]), st.sampled_from([1.0, 2.0, 4.0]))
def test_qwen2_5_vl_time_steps_equal_transformers(segments, spg, tps):
    n_video = len(grids_of(segments, "video"))
    per = [spg * (1 + k % 2) for k in range(n_video)] or None
    ours = mrope.mrope_position_ids(segments, variant="qwen2_5_vl", tokens_per_second=tps,
                                    second_per_grid_t=per if per else 1.0, text_after="spatial")
    theirs, _ = transformers_ids(segments, "qwen2_5_vl", tps, per)
    np.testing.assert_array_equal(ours, theirs)


@settings(max_examples=60, deadline=None)
@given(sequences, st.sampled_from(["qwen2_vl", "qwen2_5_vl"]))
def test_equals_transformers_4_get_rope_index(segments, variant):
    """text_after="max_id" (the default) is transformers 4.x's rule, as released with the models."""
    ours = mrope.mrope_position_ids(segments, variant=variant, second_per_grid_t=0.5)
    theirs, delta = v4_rope_index(v4_input_ids(segments), grids_of(segments, "image"), grids_of(segments, "video"),
                                  variant, 2.0, [0.5] * 8)
    np.testing.assert_array_equal(ours, theirs)
    assert mrope.rope_delta(ours) == delta


def test_qwen2_5_vl_docstring_example():
    """Qwen2.5-VL's documented example: 3 × 2 × 2 video tokens, 25 tokens per second, 2 s per grid (interval
    50): temporal ids 0, 50, 100 per frame, and the text after it at 101, 102, ... (largest id + 1);
    transformers 5.23 resumes the text at max(h', w') = 2 instead."""
    segs = (("video", 3, 4, 4), ("text", 5))
    ids = mrope.mrope_position_ids(segs, variant="qwen2_5_vl", tokens_per_second=25, second_per_grid_t=2.0)
    np.testing.assert_array_equal(ids[0, :12], np.repeat([0, 50, 100], 4))
    np.testing.assert_array_equal(ids[1, :12], np.tile([0, 0, 1, 1], 3))
    np.testing.assert_array_equal(ids[2, :12], np.tile([0, 1], 6))
    np.testing.assert_array_equal(ids[:, 12:], np.tile(np.arange(101, 106), (3, 1)))
    v5 = mrope.mrope_position_ids(segs, variant="qwen2_5_vl", tokens_per_second=25, second_per_grid_t=2.0,
                                  text_after="spatial")
    np.testing.assert_array_equal(v5[:, 12:], np.tile(np.arange(2, 7), (3, 1)))
    np.testing.assert_array_equal(v5, transformers_ids(segs, "qwen2_5_vl", 25, [2.0])[0])


def test_image_tokens_keep_one_temporal_id_and_text_resumes_after_the_largest():
    segs = (("text", 3), ("image", 1, 6, 8), ("text", 2))
    ids = mrope.mrope_position_ids(segs)
    img = ids[:, 3:15]
    assert set(img[0]) == {3}
    np.testing.assert_array_equal(img[1], np.repeat(np.arange(3), 4) + 3)
    np.testing.assert_array_equal(img[2], np.tile(np.arange(4), 3) + 3)
    np.testing.assert_array_equal(ids[:, 15:], np.tile([7, 8], (3, 1)))   # 3 + max(3, 4), not 3 + 12 tokens
    assert mrope.rope_delta(ids) == 9 - 17


@settings(max_examples=60, deadline=None)
@given(sequences)
def test_properties(segments):
    ids = mrope.mrope_position_ids(segments)
    types_ = mrope.token_types(segments)
    assert ids.shape == (3, types_.size)
    text = types_ == 0
    assert (ids[:, text] == ids[0, text]).all()                         # text: one id on all three axes
    kinds = mrope.check_segments(segments)
    start, prev_max = 0, -1
    for kind, t, h, w in kinds:
        block = ids[:, start:start + t * h * w]
        assert block.min() == prev_max + 1                              # no overlap, no gap
        if kind != "text":
            assert block[1].max() - block[1].min() == h - 1 and block[2].max() - block[2].min() == w - 1
        prev_max, start = int(block.max()), start + t * h * w
    spatial = mrope.mrope_position_ids(segments, text_after="spatial")
    short = all(t <= max(h, w) for kind, t, h, w in kinds if kind == "video")  # the rules agree then
    if short:
        np.testing.assert_array_equal(ids, spatial)
    assert mrope.rope_delta(ids) <= 0


def test_long_video_is_where_the_two_rules_part():
    segs = (("text", 2), ("video", 8, 4, 4), ("text", 3))
    a = mrope.mrope_position_ids(segs)
    b = mrope.mrope_position_ids(segs, text_after="spatial")
    np.testing.assert_array_equal(a[:, -3:], np.tile([10, 11, 12], (3, 1)))  # 2 + 8 frames
    np.testing.assert_array_equal(b[:, -3:], np.tile([4, 5, 6], (3, 1)))     # 2 + max(2, 2)
    assert (b[0, 2:-3] >= 4).sum() == 6 * 4  # six of the eight frames have temporal ids at or past the text


def test_angles_equal_qwen2vl_rotary_embedding():
    from transformers import Qwen2VLTextConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding

    cfg = Qwen2VLTextConfig(hidden_size=256, num_attention_heads=2, num_key_value_heads=2, num_hidden_layers=1,
                            rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [16, 24, 24]})
    rot = Qwen2VLRotaryEmbedding(cfg)
    ids = mrope.mrope_position_ids(mrope.DEMO)
    cos, sin = rot(torch.zeros(1, dtype=torch.float32), torch.from_numpy(ids)[:, None, :])
    ang = mrope.mrope_angles(ids, 128, 1e6, (16, 24, 24))                 # (N, 64)
    np.testing.assert_allclose(cos[0, :, :64].numpy(), np.cos(ang), atol=2e-5)
    np.testing.assert_allclose(sin[0, :, 64:].numpy(), np.sin(ang), atol=2e-5)  # rotate_half: both halves


def test_text_tokens_see_plain_rope_angles():
    ids = mrope.mrope_position_ids(mrope.DEMO)
    text = mrope.token_types(mrope.DEMO) == 0
    ang = mrope.mrope_angles(ids)
    np.testing.assert_allclose(ang[text], ids[0, text][:, None] * inv_freq(128, 1e6)[None, :], rtol=1e-15)


def test_sections_split_the_spectrum():
    chunked = mrope.axis_wavelengths()
    assert chunked["temporal"][1] < chunked["height"][0] < chunked["height"][1] < chunked["width"][0]
    spread = mrope.axis_wavelengths(section=(24, 20, 20), interleaved=True)
    assert spread["width"][0] < chunked["temporal"][1]      # interleaved: every axis gets fast pairs
    np.testing.assert_array_equal(mrope.mrope_freqs().sum(0), inv_freq(128, 1e6))  # each pair on one axis


def test_angle_spread_over_an_image():
    segs = (("text", 2), ("image", 1, 6, 8), ("text", 1))
    ids = mrope.mrope_position_ids(segs)[:, 2:14]  # rows 2..4, columns 2..5
    theta = inv_freq(128, 1e6)
    spread = mrope.axis_angle_spread(ids)
    assert spread == {"temporal": 0.0, "height": pytest.approx(2 * theta[16]), "width": pytest.approx(3 * theta[40])}
    inter = mrope.axis_angle_spread(ids, section=(24, 20, 20), interleaved=True)
    assert inter["height"] == pytest.approx(2 * theta[1]) and inter["width"] == pytest.approx(3 * theta[2])


@pytest.mark.parametrize("kwargs, name", [
    (dict(segments=()), "segments"),
    (dict(segments=(("audio", 3),)), r"segments\[0\]\[0\]"),
    (dict(segments=(("text", 0),)), "text length"),
    (dict(segments=(("image", 1, 3, 4),)), "grid h"),
    (dict(segments=(("image", 1, 4, 4), ("video", 2, 4, 4))), "need text between"),
    (dict(segments=(("image", 1, 4, 4),), spatial_merge_size=0), "spatial_merge_size"),
    (dict(variant="qwen3"), "variant"),
    (dict(text_after="count"), "text_after"),
    (dict(second_per_grid_t=[1.0, 2.0]), "second_per_grid_t"),
    (dict(second_per_grid_t=-1.0), "second_per_grid_t"),
    (dict(segments=(("image", 1, 1024, 1024),)), "at most"),
])
def test_bad_arguments_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mrope.mrope_position_ids(**kwargs)


def test_bad_sections_and_ids():
    with pytest.raises(ValueError, match="dim/2 = 64"):
        mrope.mrope_freqs(128, 1e6, (16, 24, 16))
    with pytest.raises(ValueError, match="position_ids"):
        mrope.mrope_angles(np.zeros((2, 5)))
    with pytest.raises(ValueError, match="base"):
        mrope.mrope_angles(None, 128, 0.0)
