"""AppTest of pages/9_Long_context_methods.py: what each part's captions, numbers and checks say, recomputed from
the math (every part at its declared extremes and with hostile URLs: tests/test_pages_all.py)."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz import longctx as lc
from posviz import streams as sm
from posviz.figures.longctx import base_text
from testkit.apptest import assert_clean, chart_specs, numbers, page_at

pytestmark = pytest.mark.app

PAGE = "pages/9_Long_context_methods.py"
SLUG = "long_context"


def part_at(part: str, **query: str) -> AppTest:
    return page_at(PAGE, **{**query, "part": part})


def captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


def checks(at: AppTest) -> list[str]:
    return [md.value for md in at.markdown if md.value.startswith(("✅", "❌"))]


def test_parts_in_order():
    at = part_at("base")
    assert_clean(at)
    assert at.radio(key=f"{SLUG}.part").options == [
        "1. Raising the base", "2. xPos", "3. ReRoPE", "4. Self-Extend", "5. Attention sinks", "6. PoSE"]


def test_base_part_numbers_and_check():
    at = part_at("base", length="4096")
    assert_clean(at)
    got = numbers(at)
    assert got["lower bound on b for L"] == base_text(lc.base_lower_bound(128, 4096))
    first = lc.first_negative_position(128, 1e4, 4096)
    assert got["first m with B < 0 at this b"] == f"{first:,}"
    assert got["critical dimension dₑₓₜᵣₐ"] == "92"
    assert any(c.startswith("❌") and "Bₘ ≥ 0" in c for c in checks(at))  # Llama 2's base misses its bound
    text = captions(at)
    assert f"dips below 0 at m = {first:,}" in text
    assert f"returns {base_text(lc.base_bound_bisection(128, 4096))} for d" in "\n".join(md.value for md in at.markdown)
    assert "b = 10k does not" in text and "e+0" not in text
    assert len(chart_specs(at)) == 2
    assert base_text(1e6) == "1M" and base_text(2.3449e5) == "234k"
    assert f"Code Llama 7B (1M against {base_text(lc.base_lower_bound(128, 16384))} for 16k tokens)" in text
    assert "lie above the bound yet fail" in text and "Qwen2.5 7B Instruct + YaRN x4" in text


def test_base_part_passes_with_code_llamas_base():
    at = part_at("base", base="1000000", length="16384")
    assert_clean(at)
    assert any(c.startswith("✅") and "Bₘ ≥ 0" in c for c in checks(at))
    assert "b = 1M meets it." in captions(at)


def test_xpos_part():
    at = part_at("xpos", d="64", gamma="0.4", scale_base="512", max_distance="2048")
    assert_clean(at)
    prof = lc.xpos_score_profile(2048, 64, 1e4, 0.4, 512.0)
    assert f"{prof['xpos'][-1]:.3g} there" in captions(at)
    assert any(c.startswith("✅") and "m − n only" in c for c in checks(at))
    text = "\n".join(md.value for md in at.markdown)
    assert f"{lc.xpos_key_scale_overflow(64, 0.4, 512.0, centred=False):,} tokens" in text


@pytest.mark.parametrize("leaky", ["0", "4"])
def test_rerope_part(leaky):
    at = part_at("rerope", T="48", window="8", leaky_k=leaky)
    assert_clean(at)
    assert any(c.startswith("✅") and "two-pass" in c for c in checks(at))
    assert numbers(at)["pairs served by pass 2"] == f"{lc.rerope_cost(48, 128, 8)['far_fraction']:.0%}"
    assert ("compresses farther pairs to w + (m − n − w)/4" in captions(at)) == (leaky == "4")
    assert "Leak k = 0 is plain ReRoPE" in captions(at)
    scores = part_at("rerope", T="48", window="8", leaky_k=leaky, scores="1")
    assert_clean(scores)
    [spec] = chart_specs(scores)
    assert spec["layout"]["title"]["text"].startswith("Logits q·k/√d: the same q and k")


def test_self_extend_part():
    at = part_at("self_extend", se_T="64", group="4", se_window="16", se_pair="8")
    assert_clean(at)
    rel = sm.self_extend_relative(64, 4, 16)
    assert f"largest relative position is {lc.causal_part(rel).max():.4g} instead of 63" in captions(at)
    ang = sm.self_extend_angles(64, 4, 16, 128, 1e4, 8)
    assert numbers(at)["Self-Extend (rad)"] == f"{ang['self_extend'][0]:.4g}"
    assert numbers(at)["Llama 2 (L = 4096) reach (L − W)·G + W"] == f"{(4096 - 16) * 4 + 16:,}"
    shown = part_at("self_extend", se_T="64", group="4", se_window="16", se_pair="8", angles="1")
    assert_clean(shown)
    assert f"farthest key is {ang['self_extend'][0]:.4g} rad away instead of {ang['rope'][0]:.4g}" in captions(shown)


def test_sinks_part():
    at = part_at("sinks", steps="400", n_sink="4", recent="60", train_length="256")
    assert_clean(at)
    text = captions(at)
    cache = sm.sink_cache(399, 4, 60)
    assert cache["token"].size - 4 == 61 and int(cache["token"][4]) == 339  # 60 recent + the current token
    assert "the 60 most recent and the current token" in text
    assert "(the query is token 399) the cache holds tokens [0, 1, 2, 3] and 339..399, at positions 0..64" in text
    assert any(c.startswith("✅") for c in checks(at))
    assert "399 at the last step here, against a training length of 256" in "\n".join(m.value for m in at.markdown)
    slots = part_at("sinks", steps="400", n_sink="4", recent="60", train_length="256", slots="1")
    assert_clean(slots)
    assert len(chart_specs(slots)) == 2


def test_pose_part():
    at = part_at("pose", chunk="64", target="512", batch="16", seed="0", method="pose")
    assert_clean(at)
    ids = sm.pose_batch(64, 512, 16, 0)
    covered = int((sm.relative_coverage(ids, 512) > 0).sum())
    assert f"reach up to {int(ids.max()):,}" in captions(at) and f"{covered:,} of the 512" in captions(at)
    assert any(c.startswith("✅") for c in checks(at))
    assert np.all(np.diff(ids, axis=1) > 0)
    backwards = sm.unsorted_order_errors(64, 512, 16, 0)
    assert f"Left unsorted, {backwards:.0%} of the causal pairs" in "\n".join(m.value for m in at.markdown)


def test_base_part_without_a_bound_on_the_grid():
    at = part_at("base", d="8", length="65536")
    assert_clean(at)
    assert numbers(at)["lower bound on b for L"] == "none up to 10¹²"
