"""AppTest of pages/7_Gaussian_kernel_RoPE.py: what every part shows, chosen extremes, the fallbacks the lesson
explains, pitfall toggles, reruns (every part clean at its declared extremes and with hostile URLs, each control
named: tests/test_pages_all.py)."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz import gaussian as gk
from posviz.ui.questions import question_key, questions
from testkit.apptest import GARBAGE, assert_clean, chart_specs, numbers, page_at, run_page, warnings_text
from tests.test_gaussian_figures import values

pytestmark = pytest.mark.app

PAGE = "pages/7_Gaussian_kernel_RoPE.py"
SLUG = "gaussian_kernel_rope"
PARTS = ["kernel", "modes", "envelope", "shift", "pitfalls"]
SIDEBAR = {"alpha1": "0.7", "alpha2": "0.3", "sigma1": "5", "sigma2": "20", "T": "128", "d": "64",
           "base": "10000", "seed": "0"}  # drawn in every part
OWN = {"kernel": {}, "modes": {"mode": "absolute", "all4": "0"}, "envelope": {},
       "shift": {"m": "3", "n": "0", "shift": "37"}, "pitfalls": {"spiral": "0"}}
TRACE_NAMES = {"absolute": "(a) K(m)·K(n)", "relative_mul": "(b) ×K(m−n)", "relative_log": "(c) +log K(|m−n|)"}
TITLES = {"kernel": "Multi-scale Gaussian kernel", "modes": "Attention after softmax", "envelope": "The envelope",
          "shift": "Same q and k"}


def run_part(part: str, query: dict[str, str] | None = None) -> AppTest:
    """A fresh run of ``part`` (for tests that then set widgets)."""
    return run_page(PAGE, query={**(query or {}), "part": part})


def part_at(part: str, query: dict[str, str] | None = None) -> AppTest:
    """The shared run of ``part`` (for tests that only read it)."""
    return page_at(PAGE, **{**(query or {}), "part": part})


def titles(at: AppTest) -> list[str]:
    return [spec["layout"]["title"]["text"] for spec in chart_specs(at)]



def checks(at: AppTest) -> list[str]:
    return [md.value for md in at.markdown if md.value.startswith(("✅", "❌"))]


def test_a_link_without_part_opens_the_kernel_only():
    at = page_at(PAGE)
    assert_clean(at)
    assert warnings_text(at) == ""
    radio = at.radio(key=f"{SLUG}.part")
    assert radio.value == "kernel" and radio.options == [
        "1. The kernel", "2. Three ways to apply it", "3a. Effect on attention", "3b. The shift check", "4. Pitfalls"]
    assert [h.value for h in at.header] == ["1. The kernel"]
    got = titles(at)
    assert len(got) == 1 and got[0].startswith(TITLES["kernel"])
    kernel = chart_specs(at)[0]["data"][2]
    assert values(kernel["y"])[0] == pytest.approx(1.0)  # K(0) = α1 + α2
    assert "part" not in at.query_params


def test_every_part_draws_one_chart_and_its_checks():
    got, marks, headers = [], [], []
    for part in PARTS:
        at = part_at(part)
        assert_clean(at)
        assert warnings_text(at) == "", part
        part_titles = titles(at)
        assert len(part_titles) == (part != "pitfalls"), (part, part_titles)  # pitfall charts wait for toggles
        got += part_titles
        marks += checks(at)
        headers += [h.value for h in at.header]
        if part == "modes":
            assert [t["name"] for t in chart_specs(at)[0]["data"]] == ["plain RoPE", "(a) K(m)·K(n)"]
        if part == "shift":
            nums = numbers(at)
            assert float(nums["K(m)K(n) at (3, 0)"]) == pytest.approx(0.8813, abs=1e-4)
            assert float(nums["K(m)K(n) at (40, 37)"]) == pytest.approx(0.0022, abs=1e-4)
            assert float(nums["K(m−n) = K(3) at both"]) == pytest.approx(0.8813, abs=1e-4)
    assert len(got) == len(TITLES)
    for title, start in zip(got, TITLES.values(), strict=True):
        assert title.startswith(start), title
    assert headers == ["1. The kernel", "2. Three ways to apply it", "3a. What it does to attention",
                       "3b. The shift check: move both positions, keep the distance",
                       "4. Pitfalls: layout, broadcast, frequency"]
    assert sum(c.startswith("✅") for c in marks) == 3  # (b), (c) and the angle check
    assert sum(c.startswith("❌") for c in marks) == 1
    assert any(c.startswith("❌") and "as written" in c for c in marks)


@pytest.mark.parametrize("query", [
    {"alpha1": "0", "alpha2": "1", "sigma1": "0.5", "sigma2": "1", "T": "8", "d": "8", "base": "10",
     "seed": "0", "mode": "relative_mul", "m": "0", "n": "0", "shift": "0"},
    {"alpha1": "1", "alpha2": "0", "sigma1": "50", "sigma2": "500", "T": "512", "d": "256", "base": "10000000",
     "seed": "9999", "mode": "relative_log", "m": "512", "n": "512", "shift": "512"},
    {"alpha1": "0.05", "alpha2": "0", "sigma1": "50", "sigma2": "1", "T": "512", "d": "8", "base": "10",
     "mode": "absolute", "m": "0", "n": "512", "shift": "512"},
])
def test_extremes(query):
    runs = {part: part_at(part, query) for part in PARTS}
    for part, at in runs.items():
        assert_clean(at)
        assert "invalid value" not in warnings_text(at), part
        assert len(chart_specs(at)) == (part != "pitfalls"), part
    t = int(query["T"])
    attention = chart_specs(runs["modes"])[0]
    for trace in attention["data"]:  # at most 160 × 160 cells per matrix, block means of f × f
        f = -(-t // 160)
        assert values(trace["z"]).shape == (-(-t // f),) * 2
    assert ("block means" in attention["layout"]["title"]["text"]) == (t > 160)
    assert attention["data"][1]["name"] == TRACE_NAMES[query["mode"]]
    kernel = chart_specs(runs["kernel"])[0]["data"][2]
    a1, a2 = float(query["alpha1"]), float(query["alpha2"])
    assert values(kernel["y"])[0] == pytest.approx(a1 + a2, rel=1e-6)
    shift_checks = checks(runs["shift"])
    assert len(shift_checks) == 3 and all(c.startswith("✅") for c in shift_checks[:2])  # (b), (c) stay relative


def test_presenter_mode_and_the_optional_views():
    modes = part_at("modes", {"present": "1", "all4": "1", "mode": "relative_mul"})
    pitfalls = part_at("pitfalls", {"present": "1", "spiral": "1"})
    specs = []
    for at in (modes, pitfalls):
        assert_clean(at)
        specs += chart_specs(at)
    assert [s["layout"]["title"]["text"].split(" (")[0].split(":")[0] for s in specs] == [
        "All four side by side", "Pair 2"]
    assert all(spec["layout"]["font"]["size"] == 21 for spec in specs)  # presenter: 14 × 1.5


@pytest.mark.parametrize("part", ["kernel", "modes", "envelope", "shift"])
def test_rerun_at_largest_settings_redraws(part):
    at = run_part(part, {"T": "512", "d": "256"})
    assert_clean(at)
    before = chart_specs(at)[0]
    at.slider(key=f"{SLUG}.alpha1").set_value(0.5)
    at.run()
    assert_clean(at)
    after = chart_specs(at)[0]
    assert after["data"] != before["data"]  # the kernel weight reaches every part's chart
    if part == "kernel":
        assert values(after["data"][2]["y"])[0] == pytest.approx(0.8)


def test_garbage_falls_back_to_each_controls_default_and_says_which():
    """Every control's warning quotes the default the page falls back to: one run per part with every control
    garbage, each a different class (round robin over the parts, so every class is used). The kernel's run has a
    garbage part as well: it opens the kernel. (A hostile run of every part, each control named:
    tests/test_pages_all.py; every class of value for every control kind: tests/test_ui_params.py.)"""
    turn = 0
    for part, own in OWN.items():
        defaults = {**SIDEBAR, **own}
        query = {name: GARBAGE[(turn + k) % len(GARBAGE)] for k, name in enumerate(defaults)}
        turn += len(defaults)
        if part == "kernel":  # a garbage part: the kernel
            defaults["part"] = "kernel"
            query["part"] = GARBAGE[turn % len(GARBAGE)]
        at = page_at(PAGE, **query, **({} if part == "kernel" else {"part": part}))
        assert_clean(at)
        text = warnings_text(at)
        for name, default in defaults.items():
            assert f"`{name}` had an invalid value" in text, (part, name, query[name], text)
            assert f"using the default ({default})" in text
        assert "<script>" not in text
        assert len(chart_specs(at)) == (part != "pitfalls")
        if part == "kernel":
            assert titles(at)[0].startswith(TITLES["kernel"])
        if part == "shift":
            assert float(numbers(at)["K(m)K(n) at (40, 37)"]) == pytest.approx(0.0022, abs=1e-4)
    assert turn >= len(GARBAGE)


@pytest.mark.parametrize("query", [{"alpha1": "0", "alpha2": "0"}, {"alpha1": "0.0", "alpha2": "0.00"}])
def test_both_alphas_zero_warns_and_falls_back(query):
    at = page_at(PAGE, **query)
    assert_clean(at)
    text = warnings_text(at)
    assert "α1 and α2 are both 0" in text and "α1 = 0.7 and α2 = 0.3" in text
    specs = chart_specs(at)
    kernel = specs[0]["data"][2]
    r = values(specs[0]["data"][0]["x"])
    np.testing.assert_allclose(values(kernel["y"]), gk.gaussian_kernel(r), rtol=1e-5, atol=1e-7)
    at = part_at("shift", query)  # every part uses the fallback kernel
    assert "α1 and α2 are both 0" in warnings_text(at)
    assert float(numbers(at)["K(m)K(n) at (3, 0)"]) == pytest.approx(0.8813, abs=1e-4)


def test_sigma_order_note_and_url_roundtrip():
    at = part_at("modes", {"sigma1": "40", "sigma2": "10", "mode": "relative_log"})
    assert_clean(at)
    assert any("roles swap" in i.value for i in at.info)
    assert at.query_params["sigma1"] == ["40"] or at.query_params["sigma1"] == "40"
    attn = chart_specs(at)[0]
    assert attn["data"][1]["name"] == "(c) +log K(|m−n|)"
    assert not any("roles swap" in i.value for i in part_at("modes").info)


def test_pitfall_toggles_show_wrong_and_right():
    at = run_part("pitfalls")
    assert chart_specs(at) == []
    for key in ("mixed", "broadcast"):
        at.toggle(key=f"{SLUG}.pitfall.{key}").set_value(True)
    at.run()
    assert_clean(at)
    got = titles(at)
    assert len(got) == 4
    assert any(t.startswith("mixed: cat(freqs, freqs)") and not t.endswith("(up to rounding)")
               for t in got)
    assert any(t.startswith("interleaved:") and t.endswith("0 (up to rounding)") for t in got)
    assert any(t == "K_r * x, T = D: one factor per FEATURE" for t in got)
    assert any(t == "intended: one factor K(t) per token" for t in got)
    codes = "\n".join(c.value for c in at.code)
    assert "RuntimeError: The size of tensor a (128) must match the size of tensor b (64)" in codes


def test_four_way_view_replaces_the_pair():
    at = run_part("modes", {"all4": "1", "T": "512"})
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == 1  # one attention chart at a time
    grid = specs[0]
    assert grid["layout"]["title"]["text"].startswith("All four side by side (T = 512 shown as 74×74")
    assert [t["name"] for t in grid["data"]] == ["plain RoPE", "(a) K(m)·K(n)", "(b) ×K(m−n)", "(c) +log K(|m−n|)"]
    assert sum(values(t["z"]).size for t in grid["data"]) <= 250_000
    assert "80 × 80 in the four-way view" in "\n".join(c.value for c in at.caption)
    answers = {question_key(SLUG, n) for n in range(len(questions(SLUG)))}  # the check-yourself box's radios
    assert [r.key for r in at.radio if r.key not in answers] == [f"{SLUG}.part"]  # no mode to choose here
    at.toggle(key=f"{SLUG}.all4").set_value(False).run()  # back to the pair, at the mode of the link
    assert_clean(at)
    assert [t["name"] for t in chart_specs(at)[0]["data"]] == ["plain RoPE", "(a) K(m)·K(n)"]


def test_spiral_on_request():
    at = part_at("pitfalls", {"spiral": "1", "d": "16"})
    assert_clean(at)
    spec = chart_specs(at)[-1]
    assert spec["layout"]["title"]["text"].startswith("Pair 2: the kernel shrinks the length")
    by_name = {t["name"]: t for t in spec["data"]}
    np.testing.assert_allclose(values(by_name["angle, K(m)·R_m"]["y"]), values(by_name["angle, plain RoPE"]["y"]),
                               atol=1e-5)


def test_mode_control_switches_the_compared_mode():
    at = run_part("modes")
    at.radio(key=f"{SLUG}.mode").set_value("relative_mul").run()
    assert_clean(at)
    attn = chart_specs(at)[0]
    assert attn["data"][1]["name"] == "(b) ×K(m−n)"
    z = values(attn["data"][1]["z"])
    want = np.log10(np.maximum(gk.attention(128, mode="relative_mul"), 1e-6))
    np.testing.assert_allclose(z, want, atol=1e-5)


def test_an_old_link_keeps_the_values_of_later_parts():
    """Links from before the parts carry every control; the kernel opens, and each part then shows its value."""
    at = run_page(PAGE, query={"mode": "relative_log", "m": "10", "n": "4", "shift": "5"})
    assert_clean(at)
    assert not warnings_text(at)
    at.radio(key=f"{SLUG}.part").set_value("modes").run()
    assert_clean(at)
    assert chart_specs(at)[0]["data"][1]["name"] == "(c) +log K(|m−n|)"
    at.radio(key=f"{SLUG}.part").set_value("shift").run()
    assert_clean(at)
    assert "K(m)K(n) at (15, 9)" in numbers(at)
