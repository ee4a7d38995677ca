"""AppTest of pages/6_Gaussian_kernel_RoPE.py: defaults, extremes, hostile URLs, pitfall toggles, speed."""

from __future__ import annotations

import time

import numpy as np
import pytest

from posviz import gaussian as gk
from tests.apptest_utils import GARBAGE, assert_clean, chart_specs, run_page, warnings_text
from tests.test_gaussian_figures import values

PAGE = "pages/6_Gaussian_kernel_RoPE.py"
SLUG = "gaussian_kernel_rope"
DEFAULTS = {"alpha1": "0.7", "alpha2": "0.3", "sigma1": "5", "sigma2": "20", "T": "128", "d": "64",
            "base": "10000", "seed": "0", "mode": "absolute", "m": "3", "n": "0", "shift": "37", "all4": "0",
            "spiral": "0"}
TITLES = ["Multi-scale Gaussian kernel", "Attention after softmax", "The envelope", "Same q and k"]


def titles(at) -> list[str]:
    return [spec["layout"]["title"]["text"] for spec in chart_specs(at)]


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def checks(at) -> list[str]:
    return [md.value for md in at.markdown if md.value.startswith(("✅", "❌"))]


def test_defaults():
    at = run_page(PAGE)
    assert_clean(at)
    assert warnings_text(at) == ""
    got = titles(at)
    assert len(got) == len(TITLES)
    for title, start in zip(got, TITLES):
        assert title.startswith(start), title
    kernel = chart_specs(at)[0]["data"][2]
    assert values(kernel["y"])[0] == pytest.approx(1.0)  # K(0) = α1 + α2
    nums = metrics(at)
    assert float(nums["K(m)K(n) at (3, 0)"]) == pytest.approx(0.8813, abs=1e-4)
    assert float(nums["K(m)K(n) at (40, 37)"]) == pytest.approx(0.0022, abs=1e-4)
    assert float(nums["K(m−n) = K(3) at both"]) == pytest.approx(0.8813, abs=1e-4)
    marks = checks(at)
    assert sum(c.startswith("✅") for c in marks) == 3  # (b), (c) and the angle check
    assert any(c.startswith("❌") and "as written" in c for c in marks)
    attn = chart_specs(at)[1]
    assert [t["name"] for t in attn["data"]] == ["plain RoPE", "(a) K(m)·K(n)"]


@pytest.mark.parametrize("query", [
    {"alpha1": "0", "alpha2": "1", "sigma1": "0.5", "sigma2": "1", "T": "8", "d": "8", "base": "10",
     "seed": "0", "mode": "relative_mul", "m": "0", "n": "0", "shift": "0"},
    {"alpha1": "1", "alpha2": "0", "sigma1": "50", "sigma2": "500", "T": "512", "d": "256", "base": "10000000",
     "seed": "9999", "mode": "relative_log", "m": "512", "n": "512", "shift": "512"},
    {"alpha1": "0.05", "alpha2": "0", "sigma1": "50", "sigma2": "1", "T": "512", "d": "8", "base": "10",
     "mode": "absolute", "m": "0", "n": "512", "shift": "512"},
])
def test_extremes(query):
    t0 = time.perf_counter()
    at = run_page(PAGE, query=query)
    assert_clean(at)
    assert "invalid value" not in warnings_text(at)
    specs = chart_specs(at)
    assert len(specs) == len(TITLES)
    t = int(query["T"])
    for trace in specs[1]["data"]:  # at most 160 × 160 cells per matrix, block means of f × f
        f = -(-t // 160)
        assert values(trace["z"]).shape == (-(-t // f),) * 2
    assert ("block means" in specs[1]["layout"]["title"]["text"]) == (t > 160)
    kernel = specs[0]["data"][2]
    a1, a2 = float(query["alpha1"]), float(query["alpha2"])
    assert values(kernel["y"])[0] == pytest.approx(a1 + a2, rel=1e-6)
    assert time.perf_counter() - t0 < 30  # first run includes imports; the rerun budget is tested below


def test_presenter_mode_and_all_views_together():
    at = run_page(PAGE, query={"present": "1", "all4": "1", "spiral": "1", "mode": "relative_mul"})
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == len(TITLES) + 2
    assert all(spec["layout"]["font"]["size"] == 21 for spec in specs)  # presenter: 14 × 1.5


def test_rerun_at_largest_settings_is_fast():
    at = run_page(PAGE, query={"T": "512", "d": "256"})
    assert_clean(at)
    at.slider(key=f"{SLUG}.alpha1").set_value(0.5)
    t0 = time.perf_counter()
    at.run()
    assert time.perf_counter() - t0 < 2.0
    assert_clean(at)
    assert values(chart_specs(at)[0]["data"][2]["y"])[0] == pytest.approx(0.8)


@pytest.mark.parametrize("bad", GARBAGE)
def test_garbage_in_every_query_parameter(bad):
    at = run_page(PAGE, query=dict.fromkeys(DEFAULTS, bad))
    assert_clean(at)
    text = warnings_text(at)
    for name, default in DEFAULTS.items():
        assert f"`{name}` had an invalid value" in text, (name, text)
        assert f"using the default ({default})" in text
    assert "<script>" not in text
    assert len(chart_specs(at)) == len(TITLES)
    assert float(metrics(at)["K(m)K(n) at (40, 37)"]) == pytest.approx(0.0022, abs=1e-4)


@pytest.mark.parametrize("query", [{"alpha1": "0", "alpha2": "0"}, {"alpha1": "0.0", "alpha2": "0.00"}])
def test_both_alphas_zero_warns_and_falls_back(query):
    at = run_page(PAGE, query=query)
    assert_clean(at)
    text = warnings_text(at)
    assert "α1 and α2 are both 0" in text and "α1 = 0.7 and α2 = 0.3" in text
    specs = chart_specs(at)
    kernel = specs[0]["data"][2]
    r = values(specs[0]["data"][0]["x"])
    np.testing.assert_allclose(values(kernel["y"]), gk.gaussian_kernel(r), rtol=1e-5, atol=1e-7)
    assert float(metrics(at)["K(m)K(n) at (3, 0)"]) == pytest.approx(0.8813, abs=1e-4)


def test_sigma_order_note_and_url_roundtrip():
    at = run_page(PAGE, query={"sigma1": "40", "sigma2": "10", "mode": "relative_log"})
    assert_clean(at)
    assert any("roles swap" in i.value for i in at.info)
    assert at.query_params["sigma1"] == ["40"] or at.query_params["sigma1"] == "40"
    attn = chart_specs(at)[1]
    assert attn["data"][1]["name"] == "(c) +log K(|m−n|)"


def test_pitfall_toggles_show_wrong_and_right():
    at = run_page(PAGE)
    n_before = len(chart_specs(at))
    for key in ("mixed", "broadcast"):
        at.toggle(key=f"{SLUG}.pitfall.{key}").set_value(True)
    at.run()
    assert_clean(at)
    got = titles(at)
    assert len(got) == n_before + 4
    assert any(t.startswith("mixed: seed 002: cat(freqs, freqs)") and not t.endswith("(up to rounding)")
               for t in got)
    assert any(t.startswith("interleaved:") and t.endswith("0 (up to rounding)") for t in got)
    assert any(t == "seed 002, T = D: one factor per FEATURE" for t in got)
    assert any(t == "intended: one factor K(t) per token" for t in got)
    codes = "\n".join(c.value for c in at.code)
    assert "RuntimeError: The size of tensor a (128) must match the size of tensor b (64)" in codes


def test_four_way_view_on_request():
    at = run_page(PAGE, query={"all4": "1", "T": "512"})
    assert_clean(at)
    specs = chart_specs(at)
    grid = specs[2]
    assert grid["layout"]["title"]["text"].startswith("All four side by side (T = 512 shown as 74×74")
    assert [t["name"] for t in grid["data"]] == ["plain RoPE", "(a) K(m)·K(n)", "(b) ×K(m−n)", "(c) +log K(|m−n|)"]
    assert sum(values(t["z"]).size for t in grid["data"]) <= 250_000
    assert "80 × 80 in the four-way view" in "\n".join(c.value for c in at.caption)


def test_spiral_on_request():
    at = run_page(PAGE, query={"spiral": "1", "d": "16"})
    assert_clean(at)
    spec = chart_specs(at)[-1]
    assert spec["layout"]["title"]["text"].startswith("Pair 2: the kernel shrinks the length")
    by_name = {t["name"]: t for t in spec["data"]}
    np.testing.assert_allclose(values(by_name["angle, K(m)·R_m"]["y"]), values(by_name["angle, plain RoPE"]["y"]),
                               atol=1e-5)


def test_mode_control_switches_the_compared_mode():
    at = run_page(PAGE)
    at.radio(key=f"{SLUG}.mode").set_value("relative_mul").run()
    assert_clean(at)
    attn = chart_specs(at)[1]
    assert attn["data"][1]["name"] == "(b) ×K(m−n)"
    z = values(attn["data"][1]["z"])
    want = np.log10(np.maximum(gk.attention(128, mode="relative_mul"), 1e-6))
    np.testing.assert_allclose(z, want, atol=1e-5)
