"""AppTest tests of the 2D encodings page: defaults, extremes, hostile URLs, pitfall toggles."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from posviz import rope2d as r2
from tests.apptest_utils import GARBAGE, assert_clean, chart_specs, run_page, warnings_text

PAGE = "pages/3_2D_encodings.py"
SLUG = "2d_encodings"
SIDEBAR = ["H", "W", "D", "base", "combine", "part"]
PART_PARAMS = {"grid": ["ch", "first", "spread"], "similarity": ["row", "col"], "mae": [],
               "resize": ["nh", "nw", "recompute", "rch"],
               "rope": ["kind", "hd", "rbase", "content", "seed", "head", "ra", "ca", "rb", "cb", "by_offset"],
               "flux": ["ntext", "fq", "fr", "fc"]}
CHARTS = {"grid": 2, "similarity": 1, "mae": 1, "resize": 2, "rope": 1, "flux": 2}
LARGEST = dict(spread="0", H="64", W="64", D="1024", base="1000000", ch="1023", first="1023", row="63", col="63",
               nh="64", nw="64", rch="1023", kind="mixed", hd="128", rbase="100000", content="random", seed="999",
               head="15", ra="63", ca="63", rb="63", cb="0", by_offset="1", ntext="64", fq="text", fr="63",
               fc="63", recompute="integer", combine="add")
SMALLEST = dict(H="1", W="1", D="4", base="10", ch="0", first="0", row="0", col="0", nh="1", nw="1", rch="0",
                hd="4", rbase="2", seed="0", head="0", ra="0", ca="0", rb="0", cb="0", ntext="0", fr="0", fc="0")


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
    at = run_page(PAGE)
    assert_clean(at)
    assert not warnings_text(at)
    specs = chart_specs(at)
    assert len(specs) == 2
    img = z(by_title(specs, "MAE (column | row), ch 0")["data"][0])
    assert img.shape == (14, 14)
    np.testing.assert_allclose(img[5], np.sin(np.arange(14)), atol=1e-6)  # sin(column · 1) on every row
    multiples = by_title(specs, "every 4th channel from 0 of 64")
    assert len(multiples["data"]) == 1  # one mosaic heatmap
    titles = [a["text"] for a in multiples["layout"]["annotations"]]
    assert titles[0] == "ch 0: sin column" and titles[-1] == "ch 60: cos row"  # all four MAE blocks
    assert len(at.toggle) >= 3  # the pitfalls sit under every part


@pytest.mark.parametrize("part", list(PART_PARAMS))
def test_every_part_draws_its_charts(part):
    at = run_page(PAGE, query={"part": part})
    assert_clean(at)
    assert not warnings_text(at)
    assert len(chart_specs(at)) == CHARTS[part]


def test_similarity_part_shows_the_collision_with_numbers():
    at = run_page(PAGE, query={"part": "similarity"})
    assert_clean(at)
    sim = by_title(chart_specs(at), "Which patches look like")
    heat = [t for t in sim["data"] if t["type"] == "heatmap"]
    assert len(heat) == 3
    np.testing.assert_allclose(z(heat[1]), r2.patch_similarity(14, 14, 64, 10000.0, "add", 2, 9), atol=1e-6)
    assert z(heat[1])[9, 2] == pytest.approx(1.0, abs=1e-6)  # the transposed patch collides
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["|PE(2,9) − PE(9,2)|, add"] == "0.0000"
    assert float(metrics["|PE(2,9) − PE(9,2)|, mae"]) > 0.5
    assert "transposed patches collide** holds" in " ".join(m.value for m in at.markdown)


def test_mae_part_numbers():
    at = run_page(PAGE, query={"part": "mae"})
    assert_clean(at)
    metrics = {m.label: float(m.value) for m in at.metric}
    assert metrics["emb_h (1st half), down a column"] == 0.0
    assert metrics["emb_h (1st half), along a row"] > 0.05
    assert metrics["emb_w (2nd half), along a row"] == 0.0


def test_rope_part_offset_check_holds():
    at = run_page(PAGE, query={"part": "rope"})
    assert_clean(at)
    rope = by_title(chart_specs(at), "axial RoPE")
    assert "gap" in rope["layout"]["title"]["text"]
    assert "agree at every shared offset** holds" in " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("part", list(PART_PARAMS))
def test_largest_settings(part):
    at = run_page(PAGE, query={**LARGEST, "part": part})
    assert_clean(at)
    assert not warnings_text(at)
    specs = chart_specs(at)
    assert len(specs) == CHARTS[part] + (part == "rope")  # + RoPE-Mixed directions
    if part == "grid":
        assert z(by_title(specs, "add (row + column), ch 1023")["data"][0]).shape == (64, 64)
    if part == "flux":
        assert z(by_title(specs, "FLUX.1 RoPE angles")["data"][0]).shape == (64 + 3 * 64, 64)
        assert z(by_title(specs, "query = text token 0")["data"][1]).shape == (64, 64)
        bars = arr(by_title(specs, "query = text token 0")["data"][0]["y"])
        assert len(bars) == 64 and np.ptp(bars) < 1e-6  # every text token scores the same


@pytest.mark.parametrize("part", list(PART_PARAMS))
def test_smallest_settings(part):
    at = run_page(PAGE, query={**SMALLEST, "part": part})
    assert_clean(at)
    assert not warnings_text(at)
    if part == "grid":
        assert z(by_title(chart_specs(at), "MAE (column | row), ch 0")["data"][0]).shape == (1, 1)


def test_caps_are_announced():
    at = run_page(PAGE, query=dict(D="16", ch="40", H="5"))
    assert_clean(at)
    captions = " ".join(c.value for c in at.caption)
    assert "channel k is capped at 15" in captions
    assert "ch 15" in by_title(chart_specs(at), "ch 15")["layout"]["title"]["text"]
    at = run_page(PAGE, query=dict(part="similarity", H="5", row="9"))
    assert "patch row is capped at 4" in " ".join(c.value for c in at.caption)
    at = run_page(PAGE, query=dict(part="rope", H="5", ra="20"))
    assert "query A row is capped at 4" in " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("combine", ["concat", "add"])
def test_combine_modes(combine):
    at = run_page(PAGE, query=dict(combine=combine, ch="1"))
    assert_clean(at)
    assert any(f"\\mathrm{{{combine}:}}" in el.value for el in at.latex)  # the formula follows the mode
    ch = by_title(chart_specs(at), "ch 1")
    img = z(ch["data"][0])
    if combine == "concat":  # channel 1 = cos of the row: constant along each row
        assert np.ptp(img, axis=1).max() < 1e-6 and np.ptp(img[:, 0]) > 0.5
    else:  # add: symmetric about the diagonal
        np.testing.assert_allclose(img, img.T, atol=1e-6)


def test_mixed_rope_and_offsets():
    at = run_page(PAGE, query=dict(part="rope", kind="mixed", rbase="10", by_offset="1", content="random",
                                   seed="3"))
    assert_clean(at)
    specs = chart_specs(at)
    rope = by_title(specs, "RoPE-Mixed init")
    heat = [t for t in rope["data"] if t["type"] == "heatmap"]
    assert arr(heat[0]["x"])[0] == -3 and arr(heat[1]["x"])[0] == -10  # offsets from queries (3,3) and (9,10)
    a, b = z(heat[0]), z(heat[1])
    assert a[3 + 1, 3 + 2] == pytest.approx(b[9 + 1, 10 + 2], abs=1e-5)  # same (dx, dy) = (2, 1)
    assert any("perpendicular" in c.value for c in at.caption)


def test_pitfall_toggles_show_wrong_and_right():
    at = run_page(PAGE, query={"part": "mae"})
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


SOME_GARBAGE = ["abc", "nan", "1e309", "", "<script>alert(1)</script>"]
GARBAGE_CASES = ([("rope", bad) for bad in GARBAGE] +  # the part with the most controls gets every value
                 [(part, bad) for part in PART_PARAMS if part != "rope" for bad in SOME_GARBAGE])


@pytest.mark.parametrize(("part", "bad"), GARBAGE_CASES)
def test_garbage_in_every_parameter_warns_and_falls_back(part, bad):
    params = [p for p in SIDEBAR if p != "part"] + PART_PARAMS[part]
    at = run_page(PAGE, query={**dict.fromkeys(params, bad), "part": part})
    assert_clean(at)
    warn = warnings_text(at)
    for name in params:
        if name in ("by_offset", "spread") and bad.strip().lower() in ("1", "0"):
            continue
        assert f"`{name}`" in warn, (name, bad)
    assert len(chart_specs(at)) == CHARTS[part]  # the defaults are drawn
    assert "<script>" not in " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("bad", ["abc", "<script>alert(1)</script>", ""])
def test_garbage_part_falls_back_to_the_grid(bad):
    at = run_page(PAGE, query={"part": bad})
    assert_clean(at)
    assert "`part`" in warnings_text(at)
    assert len(chart_specs(at)) == CHARTS["grid"]
