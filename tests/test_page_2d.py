"""AppTest tests of the 2D encodings page: what every part shows, the largest and smallest settings, bounds set by
other controls, lesson-specific fallbacks, pitfall toggles (every part clean at its declared extremes and with hostile
URLs, each control named: tests/test_pages_all.py)."""

from __future__ import annotations

import base64
import re

import numpy as np
import pytest

from posviz import mrope
from posviz import rope2d as r2
from posviz.figures.mrope import sequence
from posviz.rope import inv_freq
from testkit.apptest import GARBAGE, assert_clean, chart_specs, numbers, page_at, run_page, warnings_text

pytestmark = pytest.mark.app

PAGE = "pages/5_2D_encodings.py"
SLUG = "2d"
SIDEBAR = ["H", "W", "D", "base", "combine", "part"]
MROPE_SEQUENCE = ["mt1", "mih", "miw", "mt2", "mvt", "mvh", "mvw", "mt3"]
PART_PARAMS = {"grid": ["ch"], "multiples": ["first", "spread"], "similarity": ["row", "col"],
               "resize": ["nh", "nw", "recompute", "rch"], "resize_error": ["nh", "nw", "recompute"],
               "rope": ["kind", "hd", "rbase", "content", "seed", "head", "ra", "ca", "rb", "cb", "by_offset"],
               "mixed": ["hd", "rbase", "seed"], "flux": ["ntext"], "flux_scores": ["ntext", "fq", "fr", "fc"],
               "mrope": [*MROPE_SEQUENCE, "mvariant", "spg", "mafter"],
               "mrope_pairs": [*MROPE_SEQUENCE, "mbase", "minter"], "pitfalls": []}
# every part draws one chart, so a slider move redraws one chart; words of its title at defaults
TITLES = {"grid": "MAE (column | row), ch 1", "multiples": "one channel in 4 from 0 of 64", "similarity":
          "Which patches look like patch (row 2, column 9)", "resize":
          "14×14 grid used at 20×20", "resize_error": "Bicubic 14×14 → 20×20", "rope": "axial RoPE (base 100)",
          "mixed": "RoPE-Mixed at initialisation", "flux": "FLUX.1 RoPE angles", "flux_scores":
          "FLUX.1 RoPE: query = patch (row 2, column 3)", "mrope": "Position ids: M-RoPE (Qwen2-VL)",
          "mrope_pairs": "M-RoPE angles per pair, chunked, section (16, 24, 24)",
          "pitfalls": "Which channels move"}  # the pitfalls part draws MAE's halves; the rest wait for toggles
LARGEST = dict(spread="0", H="64", W="64", D="1024", base="1000000", ch="1023", first="1023", row="63", col="63",
               nh="64", nw="64", rch="1023", kind="mixed", hd="128", rbase="100000", content="random", seed="999",
               head="15", ra="63", ca="63", rb="63", cb="0", by_offset="1", ntext="64", fq="text", fr="63",
               fc="63", recompute="integer", combine="add", mt1="32", mih="16", miw="16", mt2="32", mvt="16",
               mvh="16", mvw="16", mt3="32", mvariant="qwen2_5_vl", spg="4", mafter="spatial", mbase="10000000",
               minter="1")
SMALLEST = dict(H="1", W="1", D="4", base="10", ch="0", first="0", row="0", col="0", nh="1", nw="1", rch="0",
                hd="4", rbase="2", seed="0", head="0", ra="0", ca="0", rb="0", cb="0", ntext="0", fr="0", fc="0",
                mt1="1", mih="1", miw="1", mt2="1", mvt="0", mvh="1", mvw="1", mt3="1", spg="0.25", mbase="100")


def arr(v: object) -> np.ndarray:
    """A plotted array from the JSON spec: a list, or plotly's base64 typed array with a "shape"."""
    if isinstance(v, dict):
        shape = tuple(int(n) for n in str(v.get("shape", "-1")).split(","))
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).reshape(shape)
    return np.asarray(v, dtype=np.float64)


def z(trace: dict) -> np.ndarray:
    return arr(trace["z"])


def by_title(specs: list[dict], words: str) -> dict:
    for s in specs:
        if words in s["layout"].get("title", {}).get("text", ""):
            return s
    raise AssertionError(f"no chart titled with {words!r}: " + " | ".join(
        s["layout"].get("title", {}).get("text", "") for s in specs))


def test_defaults_open_the_patch_grid():
    at = page_at(PAGE)
    assert_clean(at)
    assert not warnings_text(at)
    specs = chart_specs(at)
    assert len(specs) == 1
    img = z(by_title(specs, "MAE (column | row), ch 1")["data"][0])
    assert img.shape == (14, 14)
    omega = 10000.0 ** (-1 / 16)  # MAE: channel 1 is sin(column · b^(-1/16)), D/4 = 16 sines of the column
    np.testing.assert_allclose(img[5], np.sin(np.arange(14) * omega), atol=1e-6)
    assert "whatever the base" not in at.caption[0].value  # the default channel moves when the base is dragged
    at = page_at(PAGE, ch="0")
    assert "channel 0 is sin of the column, with a wavelength of 6.28 patches whatever the base" in at.caption[0].value
    assert not at.main.toggle  # the pitfalls are a part of their own


@pytest.mark.parametrize("part", list(PART_PARAMS))
def test_every_part_draws_one_chart(part):
    at = page_at(PAGE, part=part)
    assert_clean(at)
    assert not warnings_text(at)
    (spec,) = chart_specs(at)
    assert TITLES[part] in spec["layout"]["title"]["text"]
    drawn = set(at.session_state["_posviz_ctx"].params) - {*SIDEBAR, "present"}
    assert drawn == set(PART_PARAMS[part])  # the part's own controls, and only those


def test_pitfalls_are_a_part_of_their_own():
    at = page_at(PAGE, part="pitfalls")
    assert_clean(at)
    (spec,) = chart_specs(at)  # MAE's halves, drawn with its pitfall
    assert TITLES["pitfalls"] in spec["layout"]["title"]["text"]
    assert len(at.main.toggle) == 5  # each other pitfall's wrong/right on demand


def test_labels_share_one_style_and_titles_are_numbered_like_them():
    """"1a. Patch grid": a number, a dot, a space and a capital, as the other lessons write them; each heading
    starts with its part's number."""
    labels = page_at(PAGE).radio(key=f"{SLUG}.part").options
    assert len(labels) == len(PART_PARAMS)
    for part, label in zip(PART_PARAMS, labels, strict=True):
        assert re.fullmatch(r"\d+[ab]?\. [A-Z0-9].*", label), label
        (heading,) = [h.value for h in page_at(PAGE, part=part).header]
        assert heading.startswith(label.split(". ", 1)[0] + ". "), (label, heading)


def test_part_choice_lists_every_part_and_old_links_open_the_first_half():
    at = page_at(PAGE)
    assert at.radio(key=f"{SLUG}.part").options == [
        "1a. Patch grid", "1b. Small multiples", "2. Similar patches", "3a. Resolution change", "3b. Resize error",
        "4a. 2-D RoPE", "4b. RoPE-Mixed directions", "5a. FLUX.1 angles", "5b. FLUX.1 scores", "6a. M-RoPE ids",
        "6b. M-RoPE pairs", "7. Pitfalls"]
    # parts split in two kept their key for the first half: links shared before the split open it
    for part, words in (("grid", "ch 1"), ("resize", "grid used at"), ("flux", "FLUX.1 RoPE angles")):
        assert words in chart_specs(page_at(PAGE, part=part))[0]["layout"]["title"]["text"]


def test_small_multiples_part():
    at = page_at(PAGE, part="multiples")
    assert_clean(at)
    (multiples,) = chart_specs(at)
    assert len(multiples["data"]) == 1  # one mosaic heatmap
    titles = [a["text"] for a in multiples["layout"]["annotations"]]
    assert titles[0] == "ch 0: sin column" and titles[-1] == "ch 60: cos row"  # all four MAE blocks
    tile = z(multiples["data"][0])[5:19, 0:14]  # first tile (channel 0) under its label gutter
    np.testing.assert_allclose(tile, np.sin(np.arange(14))[None, :].repeat(14, 0), atol=1e-6)


def test_paired_parts_share_their_controls():
    """4a and 4b draw the same H' x W' controls: a value set in one part is kept in the other."""
    at = run_page(PAGE, query={"part": "resize"})
    at.slider(key=f"{SLUG}.nh").set_value(30).run()
    at.radio(key=f"{SLUG}.part").set_value("resize_error").run()
    assert_clean(at)
    assert at.slider(key=f"{SLUG}.nh").value == 30
    assert "14×14 → 30×20" in chart_specs(at)[0]["layout"]["title"]["text"]
    at.radio(key=f"{SLUG}.part").set_value("rope").run()
    at.slider(key=f"{SLUG}.hd").set_value(32).run()
    at.radio(key=f"{SLUG}.part").set_value("mixed").run()
    assert len(arr(chart_specs(at)[0]["data"][0]["x"])) == 16  # head dim 32: 16 pairs per head


def test_similarity_part_shows_the_collision_with_numbers():
    at = page_at(PAGE, part="similarity")
    assert_clean(at)
    sim = by_title(chart_specs(at), "Which patches look like")
    heat = [t for t in sim["data"] if t["type"] == "heatmap"]
    assert len(heat) == 3
    np.testing.assert_allclose(z(heat[1]), r2.patch_similarity(14, 14, 64, 10000.0, "add", 2, 9), atol=1e-6)
    assert z(heat[1])[9, 2] == pytest.approx(1.0, abs=1e-6)  # the transposed patch collides
    metrics = numbers(at)
    assert metrics["|PE(2,9) − PE(9,2)|, add"] == "0.0000"
    assert float(metrics["|PE(2,9) − PE(9,2)|, mae"]) > 0.5
    assert "transposed patches collide** holds" in " ".join(m.value for m in at.markdown)


def test_mae_pitfall_numbers_and_check():
    at = page_at(PAGE, part="pitfalls")
    assert_clean(at)
    metrics = {k: float(v) for k, v in numbers(at).items()}
    resp = r2.axis_response(14, 14, 64, 10000.0, "mae")
    assert metrics["emb_h (1st half), down a column"] == 0.0
    assert metrics["emb_h (1st half), along a row"] == pytest.approx(resp[0, :32].mean(), abs=5e-4)
    assert metrics["emb_h (1st half), along a row"] > 0.05
    assert metrics["emb_w (2nd half), along a row"] == 0.0
    assert metrics["emb_w (2nd half), down a column"] == pytest.approx(resp[1, 32:].mean(), abs=5e-4)
    texts = " ".join(m.value for m in at.markdown)
    assert "MAE's emb_h ignores a step down a column and emb_w a step along a row** holds" in texts
    assert "**⚠️ Pitfall: MAE's `emb_h` holds the column, not the row**" in texts
    assert "channels 0 and 16 of the first half, 32 and 48 of the second" in at.caption[0].value


def test_links_to_the_old_mae_part_open_the_pitfalls():
    """MAE's naming quirk moved from a part of its own into the pitfalls: ``?part=mae`` (shared links, the model
    atlas, docs/FORMULAS.md) opens the pitfalls part, where it is drawn."""
    at = page_at(PAGE, part="mae")
    assert_clean(at)
    assert [h.value for h in at.header] == ["7. Pitfalls"]
    assert TITLES["pitfalls"] in chart_specs(at)[0]["layout"]["title"]["text"]


def test_rope_part_offset_check_holds():
    at = page_at(PAGE, part="rope")
    assert_clean(at)
    rope = by_title(chart_specs(at), "axial RoPE")
    assert "gap" in rope["layout"]["title"]["text"]
    assert "agree at every shared offset** holds" in " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("part", list(PART_PARAMS))
def test_largest_settings(part):
    at = page_at(PAGE, **LARGEST, part=part)
    assert_clean(at)
    assert not warnings_text(at)
    specs = chart_specs(at)
    assert len(specs) == 1
    if part == "grid":
        assert z(by_title(specs, "add (row + column), ch 1023")["data"][0]).shape == (64, 64)
    if part == "flux":
        assert z(by_title(specs, "FLUX.1 RoPE angles")["data"][0]).shape == (64 + 3 * 64, 64)
    if part == "flux_scores":
        assert z(by_title(specs, "query = text token 0")["data"][1]).shape == (64, 64)
        bars = arr(by_title(specs, "query = text token 0")["data"][0]["y"])
        assert len(bars) == 64 and np.ptp(bars) < 1e-6  # every text token scores the same
    if part == "mixed":
        assert len(by_title(specs, "RoPE-Mixed at initialisation")["data"]) == 4  # four heads of 64 pairs


@pytest.mark.parametrize("part", list(PART_PARAMS))
def test_smallest_settings(part):
    at = page_at(PAGE, **SMALLEST, part=part)
    assert_clean(at)
    assert not warnings_text(at)
    if part == "grid":
        assert z(by_title(chart_specs(at), "MAE (column | row), ch 0")["data"][0]).shape == (1, 1)


def test_bounds_set_by_the_grid_show_on_the_sliders():
    at = page_at(PAGE, D="16", ch="40", H="5")
    assert_clean(at)
    assert at.slider(key=f"{SLUG}.ch").max == 15 and at.slider(key=f"{SLUG}.ch").value == 15
    assert "ch 15" in by_title(chart_specs(at), "ch 15")["layout"]["title"]["text"]
    at = page_at(PAGE, part="similarity", H="5", row="9")
    assert at.slider(key=f"{SLUG}.row").max == 4 and "row 4" in chart_specs(at)[0]["layout"]["title"]["text"]
    at = page_at(PAGE, part="rope", H="5", ra="20")
    assert at.slider(key=f"{SLUG}.ra").max == 4 and at.slider(key=f"{SLUG}.ra").value == 4


def test_channel_captions_follow_the_layout():
    """MAE's halves are [sines | cosines]: channel D/4 is a cosine as fast as channel 0 (not a slow channel)."""
    info = r2.sincos_2d_channel_info(64, 10000.0, "mae")
    assert info["omega"][16] == info["omega"][0] and info["fn"][16] == "cos"
    at = page_at(PAGE, ch="16")
    caption = at.caption[0].value
    assert "channel 16 is cos of the column, with a wavelength of 6.28 patches" in caption
    at = page_at(PAGE, ch="16", combine="concat")  # concat: [row | column], interleaved sin, cos
    info = r2.sincos_2d_channel_info(64, 10000.0, "concat")
    assert (info["axis"][16], info["fn"][16]) == ("row", "sin")
    wave = 2 * np.pi / info["omega"][16]
    assert f"channel 16 is sin of the row, with a wavelength of {wave:,.3g} patches" in at.caption[0].value


def test_small_multiples_count_the_nearly_constant_channels():
    at = page_at(PAGE, part="multiples")
    info = r2.sincos_2d_channel_info(64, 10000.0, "mae")
    still = int((info["omega"] * 13 < 0.25).sum())
    assert f"{still} of the 64 channels" in at.caption[0].value and still >= 32
    at = page_at(PAGE, part="multiples", base="100")
    fewer = int((r2.sincos_2d_channel_info(64, 100.0, "mae")["omega"] * 13 < 0.25).sum())
    assert f"{fewer} of the 64 channels" in at.caption[0].value and fewer < still


@pytest.mark.parametrize("combine", ["concat", "add"])
def test_combine_modes(combine):
    at = page_at(PAGE, combine=combine, ch="1")
    assert_clean(at)
    assert any(f"\\mathrm{{{combine}:}}" in el.value for el in at.latex)  # the formula follows the mode
    ch = by_title(chart_specs(at), "ch 1")
    img = z(ch["data"][0])
    if combine == "concat":  # channel 1 = cos of the row: constant along each row
        assert np.ptp(img, axis=1).max() < 1e-6 and np.ptp(img[:, 0]) > 0.5
    else:  # add: symmetric about the diagonal
        np.testing.assert_allclose(img, img.T, atol=1e-6)


def test_mixed_rope_and_offsets():
    at = page_at(PAGE, part="rope", kind="mixed", rbase="10", by_offset="1", content="random", seed="3")
    assert_clean(at)
    specs = chart_specs(at)
    rope = by_title(specs, "RoPE-Mixed init")
    heat = [t for t in rope["data"] if t["type"] == "heatmap"]
    assert arr(heat[0]["x"])[0] == -3 and arr(heat[1]["x"])[0] == -10  # offsets from queries (3,3) and (9,10)
    a, b = z(heat[0]), z(heat[1])
    assert a[3 + 1, 3 + 2] == pytest.approx(b[9 + 1, 10 + 2], abs=1e-5)  # same (dx, dy) = (2, 1)
    assert any("drawn in part 4b" in m.value for m in at.markdown)  # the directions have their own part


def test_mixed_directions_part():
    at = page_at(PAGE, part="mixed", rbase="10", seed="3")
    assert_clean(at)
    (dirs,) = chart_specs(at)
    assert len(dirs["data"]) == 4 and any("perpendicular" in c.value for c in at.caption)
    for head in dirs["data"]:  # each head: two perpendicular directions through the origin
        angle = np.mod(np.arctan2(arr(head["y"]), arr(head["x"])), np.pi)
        first, second = angle[:16], angle[16:]  # dim 64: 32 pairs, half along φ, half along φ + 90°
        assert np.ptp(first) < 1e-5 and np.ptp(second) < 1e-5
        assert abs(abs(first[0] - second[0]) - np.pi / 2) < 1e-5
    np.testing.assert_allclose(np.hypot(arr(dirs["data"][0]["x"]), arr(dirs["data"][0]["y"]))[:16],
                               inv_freq(32, 10.0), rtol=1e-5)  # magnitudes 10^(-4k/64)


def test_pitfall_toggles_show_wrong_and_right():
    at = run_page(PAGE, query={"part": "pitfalls"})
    n0 = len(chart_specs(at))
    for key in ("x", "add", "flux"):
        at.toggle(key=f"{SLUG}.pitfall.{key}").set_value(True)
    at.run()
    assert_clean(at)
    assert len(chart_specs(at)) == n0 + 3  # x: two charts, flux: one chart
    texts = " ".join(m.value for m in at.markdown)
    assert "add mode tells patch (2, 5) from patch (5, 2)** fails" in texts
    assert "mae mode tells patch (2, 5) from patch (5, 2)** holds" in texts
    assert "different rotations** fails" in texts


def test_garbage_in_every_parameter_warns_and_the_defaults_are_drawn():
    """One run per part with every control garbage, each a different class (round robin over the parts, so every
    class reaches every part's run): each control named, the part's chart at its defaults, no markup echoed. The grid's
    run has a garbage part as well: it opens the grid. (A hostile run of every part, each control named:
    tests/test_pages_all.py; every class of value for every control kind: tests/test_ui_params.py.)"""
    turn = 0
    for part in PART_PARAMS:
        params = [p for p in SIDEBAR if p != "part"] + PART_PARAMS[part]
        query = {name: GARBAGE[(turn + k) % len(GARBAGE)] for k, name in enumerate(params)}
        turn += len(params)
        if part == "grid":
            query["part"] = "<script>alert(1)</script>"
        at = page_at(PAGE, **query, **({} if part == "grid" else {"part": part}))
        assert_clean(at)
        warn = warnings_text(at)
        for name in query:
            assert f"`{name}`" in warn, (part, name, query[name])
        (spec,) = chart_specs(at)
        assert TITLES[part] in spec["layout"]["title"]["text"]  # the defaults are drawn
        assert "<script>" not in " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("bad", ["abc", ""])
def test_garbage_part_falls_back_to_the_grid(bad):
    at = page_at(PAGE, part=bad)
    assert_clean(at)
    assert "`part`" in warnings_text(at)
    assert len(chart_specs(at)) == 1 and TITLES["grid"] in chart_specs(at)[0]["layout"]["title"]["text"]


def test_mae_part_says_what_was_said_on_the_mae_repository():
    """Kaiming He wrote that the names look "not ideal (need to verify)": the page says that, and not that he
    confirmed them swapped."""
    at = page_at(PAGE, part="pitfalls")
    prose = " ".join(m.value for m in at.markdown)
    assert "confirmed" not in prose
    assert '"not ideal (need to verify)"' in prose and "https://github.com/facebookresearch/mae/issues/18" in prose


@pytest.mark.parametrize(("query", "sizes"), [({}, (14, 14, 20, 20)), ({"H": "14", "W": "14", "nh": "7", "nw": "7"},
                                                                        (14, 14, 7, 7))])
def test_resize_part_names_deit_and_computes_timms_difference(query, sizes):
    """DeiT resizes without antialias (what the chart shows); timm's resample_abs_pos_embed defaults to
    antialias=True: the page gives the largest difference at the chosen sizes (0.0524 for 14 → 20, 0.173 for
    14 → 7), computed by r2.antialias_gap and tested there against torch on the full table."""
    at = page_at(PAGE, part="resize", **query)
    assert_clean(at)
    prose = " ".join(m.value for m in at.markdown)
    gap = r2.antialias_gap(*sizes, 64)
    h, w, nh, nw = sizes
    assert "as DeiT does" in prose and "no antialias" in prose
    assert f"from {h} × {w} to {nh} × {nw} its table differs from this one by up to {gap:.3g}" in prose
    assert gap == pytest.approx(0.0524 if nh == 20 else 0.173, abs=5e-4)


def test_mrope_part_numbers_chart_and_checks():
    """Part 7a at defaults: the chart plots posviz.mrope's ids (tested equal to transformers' get_rope_index), the
    numbers and the caption are read off them, and both checks hold."""
    at = page_at(PAGE, part="mrope")
    assert_clean(at)
    ids = mrope.mrope_position_ids(sequence())
    (spec,) = chart_specs(at)
    for a, name in enumerate(("temporal", "height", "width")):
        (trace,) = [t for t in spec["data"] if t["name"] == f"{name} id"]
        np.testing.assert_array_equal(arr(trace["y"]), ids[a])
    assert numbers(at) == {"tokens N": "40", "largest id": "16", "next generated token's id": "17",
                           "rope delta (max id + 1 − N)": "-23"}
    caption = at.caption[0].value
    assert "The 3×4 image's 12 tokens all keep temporal id 4" in caption
    assert "resumes at 8 = 4 + 4" in caption and "generation continues at 17, not at 40" in caption
    texts = " ".join(m.value for m in at.markdown)
    assert "each starts one past the largest id before it** holds" in texts
    assert "pair k turns by p·θₖ** holds" in texts
    assert "largest angle difference from plain RoPE 0 rad over" in texts  # an exact zero, not 0.0e+00


def test_mrope_part_long_video_under_transformers_5_reuses_ids():
    at = page_at(PAGE, part="mrope", mafter="spatial", mvt="8", mvh="2", mvw="2")
    assert_clean(at)
    texts = " ".join(m.value for m in at.markdown)
    assert "each starts one past the largest id before it** fails — text ×3 starts at 13, the ids before it reach 18" \
        in texts
    assert "The code Qwen released with the models uses the largest id + 1 rule" in texts
    at = page_at(PAGE, part="mrope", mvariant="qwen2_5_vl", spg="0.25", mvt="4")
    assert "temporal offsets 0, 0, 1, 1: floor(k · 2 tokens per second · 0.25 s)" in at.caption[0].value


@pytest.mark.parametrize("interleaved", [False, True])
def test_mrope_pairs_caption_spreads_come_from_the_angles(interleaved):
    at = page_at(PAGE, part="mrope_pairs", minter=str(int(interleaved)), mbase="10000")
    assert_clean(at)
    section = (24, 20, 20) if interleaved else (16, 24, 24)
    segs = sequence()
    ids = mrope.mrope_position_ids(segs)[:, 4:16]  # the 3×4 image's tokens
    ang = mrope.mrope_angles(ids, 128, 1e4, section, interleaved)
    freqs = mrope.mrope_freqs(128, 1e4, section, interleaved)
    height, width = (float(np.ptp(ang[:, freqs[k] > 0], axis=0).max()) for k in (1, 2))
    caption = at.caption[0].value
    assert f"height pairs spread by up to {height:.3g} rad and the width pairs by up to {width:.3g} rad" in caption
    assert (width > 1.0) == interleaved  # chunked: the width id only turns the slowest pairs
    title = chart_specs(at)[0]["layout"]["title"]["text"]
    assert ("interleaved, section (24, 20, 20)" in title) == interleaved
    lam = mrope.axis_wavelengths(128, 1e4, section, interleaved)["temporal"]
    assert numbers(at)["temporal λ (ids)"] == f"{lam[0]:,.3g} – {lam[1]:,.3g}"


def test_mrope_pitfalls_show_wrong_and_right():
    at = run_page(PAGE, query={"part": "pitfalls"})
    texts = " ".join(m.value for m in at.markdown)
    assert "image of part 6a the text starts at 16 instead of 8" in texts and "Part 6b draws both" in texts
    assert "rotates 43 of the 64 pairs by the wrong id" in texts  # chunked and interleaved [24, 20, 20] agree on 21
    for key in ("mrope_ids", "mrope_sections"):
        at.toggle(key=f"{SLUG}.pitfall.{key}").set_value(True)
    at.run()
    assert_clean(at)
    mae, wrong, right = chart_specs(at)  # MAE's halves, drawn with its pitfall, then the toggled pair
    assert "Which channels move" in mae["layout"]["title"]["text"]
    n = len(arr(wrong["data"][0]["y"]))
    np.testing.assert_array_equal(arr(wrong["data"][1]["y"]), np.arange(n))  # 0 … N−1 on the height axis too
    np.testing.assert_array_equal(arr(right["data"][1]["y"]), mrope.mrope_position_ids(sequence())[1])
    texts = " ".join(m.value for m in at.markdown)
    assert "read as chunked blocks, pairs 0–5 turn with t h w t h w" in texts and "they turn with t t t t t t" in texts
    assert "read interleaved, pairs 0–5 turn with t h w t h w, as transformers' Qwen3-VL applies them** holds" in texts
