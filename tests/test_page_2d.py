"""AppTest tests of the 2D encodings page: defaults, extremes, hostile URLs, pitfall toggles."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from posviz import rope2d as r2
from tests.apptest_utils import GARBAGE, assert_clean, chart_specs, run_page, warnings_text

PAGE = "pages/3_2D_encodings.py"
SLUG = "2d_encodings"
PARAMS = ["H", "W", "D", "base", "combine", "ch", "first", "row", "col", "old", "new", "recompute", "rch",
          "kind", "hd", "rbase", "content", "seed", "head", "ra", "ca", "rb", "cb", "by_offset", "ntext", "fq"]
LARGEST = dict(H="64", W="64", D="1024", base="1000000", ch="1023", first="1023", row="63", col="63", old="64",
               new="64", rch="1023", kind="mixed", hd="128", rbase="100000", content="random", seed="999",
               head="15", ra="63", ca="63", rb="63", cb="0", by_offset="1", ntext="64", fq="text",
               recompute="integer", combine="add")
SMALLEST = dict(H="1", W="1", D="4", base="10", ch="0", first="0", row="0", col="0", old="2", new="2", rch="0",
                hd="4", rbase="2", seed="0", head="0", ra="0", ca="0", rb="0", cb="0", ntext="0")


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


def test_defaults_draw_every_section():
    at = run_page(PAGE)
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == 9  # 2 grid + similarity + MAE + 2 resize + RoPE + 2 FLUX (mixed directions hidden)
    sim = by_title(specs, "Which patches look like")
    heat = [t for t in sim["data"] if t["type"] == "heatmap"]
    assert len(heat) == 3
    np.testing.assert_allclose(z(heat[1]), r2.patch_similarity(14, 14, 64, 10000.0, "add", 2, 9), atol=1e-6)
    assert z(heat[1])[9, 2] == pytest.approx(1.0, abs=1e-6)  # the transposed patch collides
    rope = by_title(specs, "axial RoPE")
    assert "gap" in rope["layout"]["title"]["text"]
    texts = " ".join(m.value for m in at.markdown)
    assert "holds" in texts  # the offset-only and collision checks hold
    assert not warnings_text(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["|PE(2,9) − PE(9,2)|, add"] == "0.0000"
    assert float(metrics["|PE(2,9) − PE(9,2)|, mae"]) > 0.5
    assert float(metrics["first half (emb_h), step down a column"]) == 0.0
    assert float(metrics["first half (emb_h), step along a row"]) > 0.05


def test_largest_settings():
    at = run_page(PAGE, query=LARGEST)
    assert_clean(at)
    assert not warnings_text(at)
    specs = chart_specs(at)
    assert len(specs) == 10  # + RoPE-Mixed directions
    grid = by_title(specs, "add (row + column), ch 1023")
    assert z(grid["data"][0]).shape == (64, 64)
    captions = " ".join(c.value for c in at.caption)
    assert "FLUX grid height is capped at 32" in captions
    flux = by_title(specs, "FLUX.1 RoPE angles")
    assert z(flux["data"][0]).shape == (64 + 32 * 32, 64)
    scores = by_title(specs, "query = text token 0")
    bars = arr(scores["data"][0]["y"])
    assert len(bars) == 64 and np.ptp(bars) < 1e-6  # every text token scores the same


def test_smallest_settings():
    at = run_page(PAGE, query=SMALLEST)
    assert_clean(at)
    assert not warnings_text(at)
    specs = chart_specs(at)
    assert z(by_title(specs, "MAE (column | row), ch 0")["data"][0]).shape == (1, 1)


def test_caps_are_announced():
    at = run_page(PAGE, query=dict(D="16", ch="40", H="5", row="9", ra="20"))
    assert_clean(at)
    captions = " ".join(c.value for c in at.caption)
    assert "channel k is capped at 15" in captions
    assert "patch row is capped at 4" in captions
    assert "query A row is capped at 4" in captions
    assert "ch 15" in by_title(chart_specs(at), "ch 15")["layout"]["title"]["text"]


@pytest.mark.parametrize("combine", ["concat", "add"])
def test_combine_modes(combine):
    at = run_page(PAGE, query=dict(combine=combine, ch="1"))
    assert_clean(at)
    ch = by_title(chart_specs(at), "ch 1")
    img = z(ch["data"][0])
    if combine == "concat":  # channel 1 = cos of the row: constant along each row
        assert np.ptp(img, axis=1).max() < 1e-6 and np.ptp(img[:, 0]) > 0.5
    else:  # add: symmetric about the diagonal
        np.testing.assert_allclose(img, img.T, atol=1e-6)


def test_mixed_rope_and_offsets():
    at = run_page(PAGE, query=dict(kind="mixed", rbase="10", by_offset="1", content="random", seed="3"))
    assert_clean(at)
    specs = chart_specs(at)
    rope = by_title(specs, "RoPE-Mixed init")
    heat = [t for t in rope["data"] if t["type"] == "heatmap"]
    assert arr(heat[0]["x"])[0] == -3 and arr(heat[1]["x"])[0] == -10  # offsets from queries (3,3) and (9,10)
    a, b = z(heat[0]), z(heat[1])
    assert a[3 + 1, 3 + 2] == pytest.approx(b[9 + 1, 10 + 2], abs=1e-5)  # same (dx, dy) = (2, 1)
    assert any("perpendicular" in c.value for c in at.caption)


def test_pitfall_toggles_show_wrong_and_right():
    at = run_page(PAGE)
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


@pytest.mark.parametrize("bad", GARBAGE)
def test_garbage_in_every_parameter_warns_and_falls_back(bad):
    at = run_page(PAGE, query=dict.fromkeys(PARAMS, bad))
    assert_clean(at)
    warn = warnings_text(at)
    for name in PARAMS:
        if name == "by_offset" and bad.strip().lower() in ("1", "0"):
            continue
        assert f"`{name}`" in warn, (name, bad)
    assert len(chart_specs(at)) == 9  # the defaults are drawn
    assert "<script>" not in " ".join(m.value for m in at.markdown)
