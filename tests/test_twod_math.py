"""Math of the 2D lesson: sinusoidal_2d and posviz.rope2d against independent references and properties."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posviz import rope2d as r2
from posviz.sinusoidal import sinusoidal_2d

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- independent references (naive loops)

def naive_2d(H, W, D, base, combine):
    """Written from docs/FORMULAS.md §3 one number at a time."""
    out = np.zeros((H, W, D))
    for r in range(H):
        for c in range(W):
            if combine == "add":
                for i in range(D // 2):
                    w = base ** (-2 * i / D)
                    out[r, c, 2 * i] = math.sin(r * w) + math.sin(c * w)
                    out[r, c, 2 * i + 1] = math.cos(r * w) + math.cos(c * w)
            elif combine == "concat":  # [interleaved row table, width D/2 | interleaved column table]
                half = D // 2
                for off, p in ((0, r), (half, c)):
                    for i in range(half // 2):
                        w = base ** (-2 * i / half)
                        out[r, c, off + 2 * i] = math.sin(p * w)
                        out[r, c, off + 2 * i + 1] = math.cos(p * w)
            else:  # MAE: [sin c·w | cos c·w | sin r·w | cos r·w], w_k = base**(-4k/D)
                q = D // 4
                for k in range(q):
                    w = base ** (-4 * k / D)
                    out[r, c, k] = math.sin(c * w)
                    out[r, c, q + k] = math.cos(c * w)
                    out[r, c, 2 * q + k] = math.sin(r * w)
                    out[r, c, 3 * q + k] = math.cos(r * w)
    return out


@pytest.mark.parametrize("combine", ["concat", "add", "mae"])
@pytest.mark.parametrize(("H", "W", "D", "base"), [(3, 5, 8, 10000.0), (6, 4, 16, 100.0), (1, 7, 4, 2.5)])
def test_sinusoidal_2d_matches_naive_loops(combine, H, W, D, base):
    np.testing.assert_allclose(sinusoidal_2d(H, W, D, base, combine), naive_2d(H, W, D, base, combine),
                               atol=1e-12)


@pytest.mark.parametrize("G", [1, 4, 7, 14])
@pytest.mark.parametrize("D", [8, 64])
def test_mae_layout_matches_diffusers(G, D):
    from diffusers.models.embeddings import get_2d_sincos_pos_embed

    ref = get_2d_sincos_pos_embed(D, G, base_size=G, output_type="np")
    ref = np.asarray(ref.numpy() if hasattr(ref, "numpy") else ref, dtype=np.float64)  # (G·G, D)
    np.testing.assert_allclose(sinusoidal_2d(G, G, D, combine="mae").reshape(G * G, D), ref, atol=1e-12)


def test_mae_first_half_is_the_column():
    pe = sinusoidal_2d(5, 5, 16, combine="mae")
    # moving along a row (column index changes) leaves the second half untouched, and vice versa
    assert np.abs(pe[2, 3, 8:] - pe[2, 0, 8:]).max() == 0.0
    assert np.abs(pe[2, 3, :8] - pe[2, 0, :8]).max() > 0.5
    assert np.abs(pe[4, 1, :8] - pe[0, 1, :8]).max() == 0.0


@pytest.mark.parametrize("combine", ["concat", "add", "mae"])
def test_sincos_2d_at_fractional_matches_loops_and_grid(combine):
    rows, cols = np.array([0.0, 0.25, 3.5]), np.array([-0.3, 1.0, 2.75, 9.0])
    got = r2.sincos_2d_at(rows, cols, 12 if combine != "add" else 10, 50.0, combine)
    D = got.shape[2]
    # naive: evaluate the same layout via the integer formula with a shifted loop
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            one = np.zeros(D)
            if combine == "add":
                for k in range(D // 2):
                    w = 50.0 ** (-2 * k / D)
                    one[2 * k], one[2 * k + 1] = math.sin(r * w) + math.sin(c * w), math.cos(r * w) + math.cos(c * w)
            else:
                q = D // 4
                for k in range(q):
                    w = 50.0 ** (-4 * k / D)
                    if combine == "mae":
                        one[k], one[q + k], one[2 * q + k], one[3 * q + k] = (
                            math.sin(c * w), math.cos(c * w), math.sin(r * w), math.cos(r * w))
                    else:
                        one[2 * k], one[2 * k + 1] = math.sin(r * w), math.cos(r * w)
                        one[2 * q + 2 * k], one[2 * q + 2 * k + 1] = math.sin(c * w), math.cos(c * w)
            np.testing.assert_allclose(got[i, j], one, atol=1e-12)
    np.testing.assert_array_equal(r2.sincos_2d_at(np.arange(4), np.arange(6), 16, 10000.0, combine),
                                  sinusoidal_2d(4, 6, 16, 10000.0, combine))


@pytest.mark.parametrize("combine", ["concat", "add", "mae"])
def test_channel_info_agrees_with_the_table(combine):
    D = 16
    info = r2.sincos_2d_channel_info(D, 10000.0, combine)
    pe = sinusoidal_2d(6, 6, D, 10000.0, combine)
    for ch in range(D):
        moves_row = np.abs(np.diff(pe[:, 0, ch])).max() > 1e-9  # changes when the row index changes
        moves_col = np.abs(np.diff(pe[0, :, ch])).max() > 1e-9
        expect = {"row": (True, False), "column": (False, True), "row+column": (True, True)}[info["axis"][ch]]
        assert (moves_row, moves_col) == expect, ch
        fn, w = info["fn"][ch], info["omega"][ch]
        ref = math.sin(3 * w) if fn == "sin" else math.cos(3 * w)
        coord_val = pe[3, 0, ch] if info["axis"][ch] == "row" else pe[0, 3, ch]
        if combine == "add":
            ref += 0.0 if fn == "sin" else 1.0  # the other axis sits at 0: sin 0 = 0, cos 0 = 1
        assert coord_val == pytest.approx(ref, abs=1e-12)
    if combine == "mae":
        assert list(info["axis"][:8]) == ["column"] * 8


def test_patch_similarity_against_brute_force():
    for combine in ("concat", "add", "mae"):
        pe = sinusoidal_2d(5, 7, 32, 100.0, combine)
        q = pe[3, 2]
        ref = np.array([[q @ pe[i, j] / np.linalg.norm(q) / np.linalg.norm(pe[i, j]) for j in range(7)]
                        for i in range(5)])
        got = r2.patch_similarity(5, 7, 32, 100.0, combine, 3, 2)
        np.testing.assert_allclose(got, ref, atol=1e-12)
        assert got[3, 2] == pytest.approx(1.0)


def test_add_mode_transposition_collision():
    assert r2.transpose_gap(64, 10000.0, "add", 2, 5) == 0.0
    assert r2.transpose_gap(64, 10000.0, "concat", 2, 5) > 1.0
    assert r2.transpose_gap(64, 10000.0, "mae", 2, 5) > 1.0
    sim = r2.patch_similarity(8, 8, 64, 10000.0, "add", 2, 5)
    assert sim[5, 2] == pytest.approx(1.0, abs=1e-12)
    assert r2.patch_similarity(8, 8, 64, 10000.0, "concat", 2, 5)[5, 2] < 0.99


def test_axis_response_mae_halves():
    resp = r2.axis_response(8, 8, 32, combine="mae")
    assert resp.shape == (2, 32)
    assert resp[0, 16:].max() == 0.0 and resp[0, :16].min() > 0.0  # along a row: first half only
    assert resp[1, :16].max() == 0.0 and resp[1, 16:].min() > 0.0
    conc = r2.axis_response(8, 8, 32, combine="concat")
    assert conc[0, :16].max() == 0.0 and conc[1, 16:].max() == 0.0  # concat: row first
    assert np.all(r2.axis_response(1, 8, 32)[1] == 0.0)  # no step down a one-row grid


def naive_bicubic(img, new_h, new_w):
    """PyTorch's bicubic (a = -0.75, align_corners=False, clamped borders), one pixel at a time."""
    A = -0.75

    def w(t):
        t = abs(t)
        if t <= 1:
            return (A + 2) * t ** 3 - (A + 3) * t ** 2 + 1
        if t < 2:
            return A * t ** 3 - 5 * A * t ** 2 + 8 * A * t - 4 * A
        return 0.0

    H, W = img.shape
    out = np.zeros((new_h, new_w))
    for i in range(new_h):
        y = (i + 0.5) * H / new_h - 0.5
        y0 = math.floor(y)
        for j in range(new_w):
            x = (j + 0.5) * W / new_w - 0.5
            x0 = math.floor(x)
            acc = 0.0
            for m in range(-1, 3):
                for n in range(-1, 3):
                    yy, xx = min(max(y0 + m, 0), H - 1), min(max(x0 + n, 0), W - 1)
                    acc += img[yy, xx] * w(y - (y0 + m)) * w(x - (x0 + n))
            out[i, j] = acc
    return out


def test_resize_uses_bicubic_align_corners_false():
    interp, exact = r2.resize_sincos_2d(6, 5, 9, 8, 8, 10000.0, "mae", "scaled")
    trained = sinusoidal_2d(6, 5, 8, combine="mae")
    for ch in (0, 3, 7):
        np.testing.assert_allclose(interp[:, :, ch], naive_bicubic(trained[:, :, ch], 9, 8), atol=1e-12)
    np.testing.assert_allclose(exact[:, :, 0],
                               np.sin((np.arange(8) + 0.5) * 5 / 8 - 0.5)[None, :].repeat(9, 0), atol=1e-12)
    _, integer = r2.resize_sincos_2d(6, 5, 9, 8, 8, 10000.0, "mae", "integer")
    np.testing.assert_allclose(integer, sinusoidal_2d(9, 8, 8, combine="mae"), atol=1e-12)


@pytest.mark.parametrize("combine", ["concat", "add", "mae"])
@pytest.mark.parametrize(("old", "new"), [((14, 14), (20, 20)), ((7, 12), (16, 5)), ((1, 6), (3, 9))])
def test_separable_resize_equals_full_table_interpolate(combine, old, new):
    """What a ViT does: resize the whole (1, D, H, W) table at once. Our separable shortcut must agree."""
    D = 32
    trained = torch.from_numpy(sinusoidal_2d(*old, D, 10000.0, combine).transpose(2, 0, 1).copy())[None]
    full = torch.nn.functional.interpolate(trained, size=new, mode="bicubic", align_corners=False)
    ours, _ = r2.resize_sincos_2d(*old, *new, D, 10000.0, combine)
    np.testing.assert_allclose(ours, full[0].numpy().transpose(1, 2, 0), atol=1e-12)
    per_patch, per_channel = r2.resize_error(*old, *new, D, 10000.0, combine, "integer")
    interp, exact = r2.resize_sincos_2d(*old, *new, D, 10000.0, combine, "integer")
    diff = interp - exact
    np.testing.assert_allclose(per_patch, np.linalg.norm(diff, axis=2) / np.linalg.norm(exact, axis=2), atol=1e-9)
    np.testing.assert_allclose(per_channel, np.sqrt((diff ** 2).mean(axis=(0, 1))), atol=1e-9)
    a, e = r2.resize_channel_maps(*old, *new, D, 10000.0, combine, "integer", channel=5)
    np.testing.assert_allclose(a, interp[:, :, 5], atol=1e-12)
    np.testing.assert_allclose(e, exact[:, :, 5], atol=1e-12)


@pytest.mark.parametrize("combine", ["concat", "add", "mae"])
def test_separable_parts_and_channels(combine):
    A, B = r2.separable_parts(np.arange(5.0), np.arange(7.0), 16, 100.0, combine)
    np.testing.assert_allclose(A[:, None] + B[None], sinusoidal_2d(5, 7, 16, 100.0, combine), atol=1e-12)
    np.testing.assert_allclose(r2.sincos_2d_channels(5, 7, 16, 100.0, combine, 10, 20),
                               sinusoidal_2d(5, 7, 16, 100.0, combine)[:, :, 10:], atol=1e-12)


def test_resize_error_is_large_for_fast_channels_and_small_for_slow_ones():
    per_patch, per_channel = r2.resize_error(14, 14, 20, 20, 256, combine="mae")
    assert per_patch.shape == (20, 20) and per_channel.shape == (256,)
    assert per_channel[0] > 10 * per_channel[63]  # sin of the fastest column channel vs the slowest
    same, _ = r2.resize_error(14, 14, 14, 14, 64)
    assert same.max() < 1e-12  # resizing to the same size is the identity


# ---------------------------------------------------------------- RoPE in 2-D

def test_axial_freqs_are_1d_rope_on_each_half():
    f = r2.axial_rope_freqs(16, 100.0)
    np.testing.assert_allclose(f[0, :4], 100.0 ** (-4 * np.arange(4) / 16))
    assert np.all(f[0, 4:] == 0) and np.all(f[1, :4] == 0)
    np.testing.assert_array_equal(f[1, 4:], f[0, :4])


def test_axial_with_dy_zero_reproduces_1d_rope_on_the_x_half():
    from posviz.rope import apply_rope, inv_freq

    dim, rng = 32, np.random.default_rng(1)
    q, k = torch.tensor(rng.standard_normal(dim)), torch.tensor(rng.standard_normal(dim))
    scores = []
    for kc in range(6):
        coords = np.array([[1.0, 2.0], [float(kc), 2.0]])  # same row
        rot = r2.rope_nd_rotate(torch.stack([q, k]), coords, r2.axial_rope_freqs(dim, 100.0))
        scores.append(float(rot[0] @ rot[1]))
    theta = inv_freq(dim // 2, 100.0)
    ref = [float(apply_rope(q[None, : dim // 2], torch.tensor([1.0]), theta)[0]
                 @ apply_rope(k[None, : dim // 2], torch.tensor([float(kc)]), theta)[0] + q[dim // 2:] @ k[dim // 2:])
           for kc in range(6)]
    np.testing.assert_allclose(scores, ref, atol=1e-12)


def test_mixed_freqs_match_the_rope_vit_recipe():
    f = r2.mixed_rope_freqs(16, 3, 10.0, seed=7)
    phi = np.random.default_rng(7).uniform(0, 2 * np.pi, 3)
    mu = 10.0 ** (-4 * np.arange(4) / 16)
    for h in range(3):
        np.testing.assert_allclose(f[h, 0], np.concatenate([mu * np.cos(phi[h]), mu * np.cos(phi[h] + np.pi / 2)]))
        np.testing.assert_allclose(f[h, 1], np.concatenate([mu * np.sin(phi[h]), mu * np.sin(phi[h] + np.pi / 2)]))
        # the two halves point in orthogonal directions
        assert abs(f[h, 0, 0] * f[h, 0, 4] + f[h, 1, 0] * f[h, 1, 4]) < 1e-12
    np.testing.assert_allclose(r2.mixed_rope_freqs(16, 1, 10.0, seed=0, rotate=False)[0],
                               r2.axial_rope_freqs(16, 10.0), atol=1e-15)  # cos(π/2) is 6e-17
    # head h does not depend on how many heads are drawn
    np.testing.assert_array_equal(r2.mixed_rope_freqs(16, 5, 10.0, 7)[:3], f)


def test_scores_against_complex_numbers():
    H, W, dim = 4, 5, 16
    for kind in ("axial", "mixed"):
        angles = r2.axial_rope_angles(H, W, dim) if kind == "axial" else r2.mixed_rope_angles(H, W, dim, seed=3)
        q, k = r2._content(dim, "random", 3)  # the seed drives both
        qc, kc = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]
        t0 = 2 * W + 3
        ref = np.array([np.real(np.sum(qc * np.exp(1j * angles[t0]) * np.conj(kc * np.exp(1j * angles[t]))))
                        for t in range(H * W)])
        got = r2.rope2d_scores(H, W, dim, 2, 3, kind, seed=3, content="random", base=None)
        np.testing.assert_allclose(got.reshape(-1), ref, atol=1e-12)


@pytest.mark.parametrize("kind", ["axial", "mixed", "flux"])
@pytest.mark.parametrize("content", ["ones", "random"])
def test_scores_equal_rotating_with_apply_rope_then_dot(kind, content):
    if kind == "flux":
        coords, freqs = r2.flux_ids(5, 6, 3), r2.flux_rope_freqs()
    else:
        coords = r2.grid_coords(5, 6)
        freqs = r2.axial_rope_freqs(32) if kind == "axial" else r2.mixed_rope_freqs(32, 2, 10.0, 4)[1]
    q, k = r2._content(2 * freqs.shape[1], content, 9)
    T = len(coords)
    q_rot = r2.rope_nd_rotate(torch.tensor(np.tile(q, (T, 1))), coords, freqs)  # every token's query
    k_rot = r2.rope_nd_rotate(torch.tensor(np.tile(k, (T, 1))), coords, freqs)
    for t0 in (0, 7, T - 1):
        ref = (k_rot @ q_rot[t0]).numpy()
        np.testing.assert_allclose(r2.rope_nd_scores(coords, freqs, t0, content, 9), ref, atol=1e-12)


@FAST
@given(kind=st.sampled_from(["axial", "mixed"]), H=st.integers(2, 9), W=st.integers(2, 9),
       dim=st.sampled_from([4, 8, 16, 32]), base=st.floats(1.5, 1e4), seed=st.integers(0, 99),
       content=st.sampled_from(["ones", "random"]), data=st.data())
def test_rope2d_scores_depend_only_on_the_offset(kind, H, W, dim, base, seed, content, data):
    qa = (data.draw(st.integers(0, H - 1)), data.draw(st.integers(0, W - 1)))
    qb = (data.draw(st.integers(0, H - 1)), data.draw(st.integers(0, W - 1)))
    gap = r2.rope2d_offset_gap(H, W, dim, qa, qb, kind, base, seed, 0, content)
    assert gap < 1e-9


@FAST
@given(n_text=st.integers(0, 6), H=st.integers(1, 5), W=st.integers(1, 5), content=st.sampled_from(["ones", "random"]))
def test_flux_text_tokens_are_not_rotated(n_text, H, W, content):
    ids = r2.flux_ids(H, W, n_text)
    assert ids.shape == (n_text + H * W, 3)
    angles = r2.flux_rope_angles(ids)
    assert angles.shape == (n_text + H * W, 64)
    assert np.all(angles[:n_text] == 0.0) and np.all(angles[n_text] == 0.0)  # text + patch (0, 0)
    x = torch.randn(n_text + H * W, 128, dtype=torch.float64)
    rot = r2.rope_nd_rotate(x, ids, r2.flux_rope_freqs())
    assert torch.equal(rot[: n_text + 1], x[: n_text + 1])
    s = r2.flux_rope_scores(H, W, n_text, n_text + H * W - 1, content)
    np.testing.assert_allclose(s[: n_text + 1], s[n_text], atol=1e-12)  # indistinguishable by position


def test_flux_against_diffusers():
    from diffusers.models.embeddings import apply_rotary_emb
    from diffusers.models.transformers.transformer_flux import FluxPosEmbed

    ids = r2.flux_ids(6, 7, 5)
    ids[:, 0] = np.arange(len(ids)) % 3  # exercise the first axis too
    cos, sin = FluxPosEmbed(10000, [16, 56, 56])(torch.tensor(ids))
    ang = r2.flux_rope_angles(ids)
    np.testing.assert_allclose(cos.numpy(), np.repeat(np.cos(ang), 2, axis=1), atol=1e-6)
    np.testing.assert_allclose(sin.numpy(), np.repeat(np.sin(ang), 2, axis=1), atol=1e-6)
    x = torch.randn(1, 1, len(ids), 128, dtype=torch.float64)
    ref = apply_rotary_emb(x, (cos.double(), sin.double()), use_real=True, use_real_unbind_dim=-1)
    ours = r2.rope_nd_rotate(x, ids, r2.flux_rope_freqs())
    torch.testing.assert_close(ours, ref.double(), atol=1e-5, rtol=0)


def test_flux_freqs_blocks():
    f = r2.flux_rope_freqs()
    assert f.shape == (3, 64)
    np.testing.assert_allclose(f[0, :8], 10000.0 ** (-2 * np.arange(8) / 16))
    np.testing.assert_allclose(f[1, 8:36], 10000.0 ** (-2 * np.arange(28) / 56))
    np.testing.assert_array_equal(f[2, 36:], f[1, 8:36])
    assert np.count_nonzero(f, axis=0).tolist() == [1] * 64


# ---------------------------------------------------------------- hostile input

@pytest.mark.parametrize(("call", "name"), [
    (lambda: r2.patch_similarity(0, 4, 16), "height"),
    (lambda: r2.patch_similarity(4, 200, 16), "width"),
    (lambda: r2.patch_similarity(4, 4, 18), "d_model"),
    (lambda: r2.patch_similarity(4, 4, 16, combine="sum"), "combine"),
    (lambda: r2.patch_similarity(4, 4, 16, row=4), "row"),
    (lambda: r2.patch_similarity(4, 4, 16, base=float("nan")), "base"),
    (lambda: r2.patch_similarity(128, 128, 1024), "d_model"),
    (lambda: r2.resize_sincos_2d(14, 14, 20, 20, 64, recompute="nearest"), "recompute"),
    (lambda: r2.resize_sincos_2d(14, 14, 0, 20, 64), "new_height"),
    (lambda: r2.rope2d_scores(4, 4, 6, 0, 0), "dim"),
    (lambda: r2.rope2d_scores(4, 4, 8, 0, 0, kind="3d"), "kind"),
    (lambda: r2.rope2d_scores(4, 4, 8, 0, 5), "query_col"),
    (lambda: r2.rope2d_scores(4, 4, 8, 0, 0, content="zeros"), "content"),
    (lambda: r2.mixed_rope_freqs(8, seed=-1), "seed"),
    (lambda: r2.mixed_rope_freqs(8, num_heads=True), "num_heads"),
    (lambda: r2.flux_rope_freqs((16, 55)), "axes_dim"),
    (lambda: r2.flux_rope_freqs((16, 56), theta=float("inf")), "theta"),
    (lambda: r2.flux_rope_angles(np.zeros((3, 2))), "ids"),
    (lambda: r2.flux_rope_angles(np.full((3, 3), np.nan)), "ids"),
    (lambda: r2.flux_ids(4, 4, -1), "n_text"),
    (lambda: r2.sincos_2d_at(np.array([np.inf]), np.arange(3), 8), "rows"),
    (lambda: r2.rope2d_offset_gap(4, 4, 8, (0, 0), 3), "query_b"),
])
def test_bad_arguments_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


junk = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                 st.sampled_from(["abc", "", None, True, (1, 2), "<script>"]), st.integers(0, 70))


def _finite_or_named_error(fn, kwargs):
    t0 = time.perf_counter()
    try:
        out = fn(**kwargs)
    except ValueError as err:
        assert any(name in str(err) for name in kwargs), (kwargs, str(err))
        return
    finally:
        assert time.perf_counter() - t0 < 5.0
    arrays = out if isinstance(out, tuple) else (out,)
    for a in arrays:
        assert np.all(np.isfinite(np.asarray(a, dtype=np.float64)))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fn=st.sampled_from(["patch_similarity", "axis_response", "transpose_gap", "sincos_2d_channel_info",
                           "resize_error", "rope2d_scores", "axial_rope_angles", "mixed_rope_angles",
                           "mixed_rope_freqs", "flux_ids", "flux_rope_scores", "sincos_2d_channels",
                           "resize_channel_maps", "resize_sincos_2d", "grid_coords", "axial_rope_freqs",
                           "flux_rope_freqs", "rope2d_offset_gap"]),
       a=junk, b=junk, c=junk, d=junk, e=junk, f=junk, g=junk)
def test_fuzz_public_functions(fn, a, b, c, d, e, f, g):
    params = {
        "patch_similarity": dict(height=a, width=b, d_model=c, base=d, combine=e, row=f, col=g),
        "axis_response": dict(height=a, width=b, d_model=c, base=d, combine=e),
        "transpose_gap": dict(d_model=a, base=b, combine=c, row=d, col=e),
        "sincos_2d_channel_info": dict(d_model=a, base=b, combine=c),
        "resize_error": dict(old_height=a, old_width=b, new_height=c, new_width=d, d_model=e, base=f,
                             combine=g),
        "rope2d_scores": dict(height=a, width=b, dim=c, query_row=d, query_col=e, base=f, seed=g),
        "axial_rope_angles": dict(height=a, width=b, dim=c, base=d),
        "mixed_rope_angles": dict(height=a, width=b, dim=c, base=d, seed=e, head=f),
        "mixed_rope_freqs": dict(dim=a, num_heads=b, base=c, seed=d),
        "flux_ids": dict(height=a, width=b, n_text=c),
        "flux_rope_scores": dict(height=a, width=b, n_text=c, query_index=d, seed=e),
        "sincos_2d_channels": dict(height=a, width=b, d_model=c, base=d, combine=e, first=f, count=g),
        "resize_channel_maps": dict(old_height=a, old_width=b, new_height=c, new_width=d, d_model=e, base=f,
                                    channel=g),
        "resize_sincos_2d": dict(old_height=a, old_width=b, new_height=c, new_width=d, d_model=e, recompute=f,
                                 combine=g),
        "grid_coords": dict(height=a, width=b),
        "axial_rope_freqs": dict(dim=a, base=b),
        "flux_rope_freqs": dict(axes_dim=a, theta=b),
        "rope2d_offset_gap": dict(height=a, width=b, dim=c, query_a=d, query_b=e, kind=f, seed=g),
    }[fn]
    fn_obj = getattr(r2, fn)
    info = fn == "sincos_2d_channel_info"
    if info:
        try:
            out = fn_obj(**params)
        except ValueError as err:
            assert any(name in str(err) for name in params)
            return
        assert np.all(np.isfinite(out["omega"]))
        return
    _finite_or_named_error(fn_obj, params)


def test_fuzz_array_functions():
    """The functions that take arrays: junk arrays give a ValueError naming the array, never another error."""
    bad_arrays = [np.full((3, 2), np.nan), np.zeros((0, 2)), np.zeros((4,)), np.full((2, 2), 1e300), "abc",
                  [[1, "x"]], None, np.zeros((3, 3)), np.ones((2, 5))]
    for bad in bad_arrays:
        for call, names in [
            (lambda b: r2.rope_nd_scores(b, np.ones((2, 4)), 0), ("coords", "query_index")),
            (lambda b: r2.rope_nd_scores(np.ones((3, 2)), b, 0), ("coords", "freqs", "query_index")),
            (lambda b: r2.flux_rope_angles(b), ("ids",)),
            (lambda b: r2.sincos_2d_at(b, np.arange(3), 8), ("rows", "cols")),
            (lambda b: r2.shared_offset_gap(b, np.zeros((3, 2)), (0, 0), (1, 1)), ("scores_a", "query")),
        ]:
            try:
                out = call(bad)
            except ValueError as err:
                assert any(n in str(err) for n in names), (bad, str(err))
            else:
                assert np.all(np.isfinite(np.asarray(out, dtype=np.float64)))


@settings(max_examples=60, deadline=None)
@given(H=st.integers(1, 64), W=st.integers(1, 64), D=st.sampled_from([4, 64, 1024]),
       base=st.floats(1.0001, 1e12), combine=st.sampled_from(["concat", "add", "mae"]))
def test_similarity_is_finite_and_bounded_at_any_page_setting(H, W, D, base, combine):
    s = r2.patch_similarity(H, W, D, base, combine, H - 1, 0)
    assert np.all(np.isfinite(s)) and np.abs(s).max() <= 1.0


# ---------------------------------------------------------------- DeiT's resize against timm's default

def full_table_resize(H, W, nh, nw, D, antialias, combine="mae"):
    """The whole (H, W, D) table resized as one image, the way DeiT (antialias=False) and timm's
    resample_abs_pos_embed (antialias=True by default) call torch."""
    img = torch.from_numpy(sinusoidal_2d(H, W, D, combine=combine)).permute(2, 0, 1)[None]  # (1, D, H, W)
    out = torch.nn.functional.interpolate(img, size=(nh, nw), mode="bicubic", align_corners=False,
                                          antialias=antialias)
    return out[0].permute(1, 2, 0).numpy()  # (nh, nw, D)


@pytest.mark.parametrize(("H", "W", "nh", "nw", "D", "combine"), [
    (14, 14, 20, 20, 64, "mae"), (14, 14, 7, 7, 64, "mae"), (5, 9, 13, 4, 16, "concat"), (6, 6, 3, 11, 8, "add"),
])
def test_antialias_gap_is_the_largest_entry_of_timm_minus_deit(H, W, nh, nw, D, combine):
    deit = full_table_resize(H, W, nh, nw, D, False, combine)
    timm = full_table_resize(H, W, nh, nw, D, True, combine)
    interp, _ = r2.resize_sincos_2d(H, W, nh, nw, D, combine=combine)
    np.testing.assert_allclose(interp, deit, atol=1e-12)  # resize_sincos_2d is DeiT's resize
    assert r2.antialias_gap(H, W, nh, nw, D, combine=combine) == pytest.approx(np.abs(timm - deit).max(), rel=1e-9)


def test_the_docstring_states_timms_difference_with_the_numbers_it_has():
    """resize_sincos_2d's docstring: DeiT resizes without antialias; timm defaults to antialias=True, up to 0.052
    apart going 14×14 → 20×20 and 0.173 going 14×14 → 7×7 (d = 64, b = 10⁴, MAE)."""
    doc = " ".join(r2.resize_sincos_2d.__doc__.split())
    assert "DeiT/timm" not in doc and "no antialias, as DeiT" in doc and "``antialias=True``" in doc
    up, down = r2.antialias_gap(14, 14, 20, 20, 64), r2.antialias_gap(14, 14, 7, 7, 64)
    assert f"up to {up:.3f} for 14×14 → 20×20" in doc and f"{down:.3f} for 14×14 → 7×7" in doc
