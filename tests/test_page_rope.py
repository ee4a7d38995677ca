"""AppTest of the RoPE page: what every part shows at its defaults and at chosen settings, the smallest and largest
settings, pitfall toggles, lesson-specific fallbacks (every part clean at its declared extremes and with hostile
URLs, each control named: tests/test_pages_all.py)."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz import rope
from posviz.figures import rope as rf
from posviz.figures.rope_hands import clock_pairs
from testkit.apptest import (
    GARBAGE,
    ROOT,
    assert_clean,
    chart_specs,
    each_pitfall,
    garbage_query,
    number_items,
    numbers,
    page_at,
    run_page,
    warnings_text,
)

pytestmark = pytest.mark.app

PAGE = "pages/3_RoPE.py"
GLOBAL = ["d", "base", "n", "layout", "seed", "m", "kpos", "c", "pair", "part"]
CLOCK = ["m_max", "frames", "preset", "pairs", "angles"]
# every part draws one chart (a slider move redraws one chart); first words of its title
PARTS = {"add": "Additive code, four terms", "derive": "From one plane to d/2 planes",
         "together": "q and k, shifted together", "clock": "Clock hands", "tables": "Angle m·θ_i",
         "cossin": "cos/sin tables", "relative": "Score q_m·k_n", "leftright": "Left or right, like with like",
         "layouts": "Pairs in both layouts", "mixed": "Norm after rotation", "decay": "The 'long-term decay'",
         "pairs": "Turns per pair within L", "base": "Choosing the base", "pitfalls": "float32 angle error"}
LABELS = ["1. Why not just add?", "2. Clock hands", "3. Derive the rotation", "4. q and k turn together",
          "5a. Angles", "5b. Stored tables", "6a. Only m − n matters", "6b. Left or right", "7a. Two layouts",
          "7b. Mixed layout", "8. The decay story", "9. Which pairs matter", "10. Choosing the base", "11. Pitfalls"]


def arr(v) -> np.ndarray:
    """A plotly JSON array (plain list or typed {dtype, bdata, shape}) as numpy."""
    if isinstance(v, dict) and "bdata" in v:
        out = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        return out.reshape([int(s) for s in str(v["shape"]).split(",")]) if "shape" in v else out
    return np.asarray(v, dtype=np.float64)


def title(spec: dict) -> str:
    return str(spec["layout"]["title"]["text"])



def part_at(part: str, **query: str):
    """The shared run of ``part`` (a bare link for the first part): for tests that only read it."""
    return page_at(PAGE, **query) if part == "add" and not query else page_at(PAGE, **query, part=part)


def checks(at) -> list[str]:
    return [md.value for md in at.markdown if md.value.startswith(("✅", "❌"))]


@pytest.mark.parametrize("part,words", sorted(PARTS.items()))
def test_every_part_at_defaults_draws_one_chart(part, words):
    at = part_at(part)
    assert_clean(at)
    assert warnings_text(at) == ""
    specs = chart_specs(at)
    assert len(specs) == 1
    assert title(specs[0]).startswith(words)
    assert all(c.startswith("✅") for c in checks(at))


def test_every_part_is_offered_in_a_newcomers_order_and_old_links_open_their_part():
    at = part_at("add")
    assert at.radio(key="rope.part").options == LABELS
    assert title(chart_specs(at)[0]).startswith(PARTS["add"])  # a bare link starts at the question
    # links already shared name these parts by key: each key keeps opening the part it names
    for part, words in (("clock", "Clock hands"), ("tables", "Angle m·θ_i"), ("relative", "Score q_m·k_n"),
                        ("layouts", "Pairs in both"), ("leftright", "Left or right")):
        assert title(chart_specs(part_at(part))[0]).startswith(words)


def test_the_clock_is_the_intuition_before_the_derivation_and_each_links_the_other():
    assert LABELS.index("2. Clock hands") < LABELS.index("3. Derive the rotation")
    clock = "\n".join(md.value for md in part_at("clock", d="32").markdown)
    assert "[derive the rotation](/RoPE?part=derive&d=32&base=10000)" in clock  # forward, keeping d and b
    derive = "\n".join(md.value for md in part_at("derive", d="32").markdown)
    assert "[clock hands](/RoPE?part=clock&d=32&base=10000)" in derive


def test_clock_defaults():
    at = part_at("clock")
    clock = chart_specs(at)[0]
    assert len(clock["frames"]) == 31  # positions 0, 1, ..., 30: one token per frame
    # d = 64 -> 32 pairs, of which 16 are drawn by default, pair 0 (fastest) to pair 31 (slowest)
    assert clock["data"][1]["text"][0].startswith("i=0,") and clock["data"][1]["text"][-1].startswith("i=31,")
    assert len(arr(clock["data"][3]["x"])) == 16
    assert clock["layout"]["updatemenus"][0]["buttons"][0]["args"][1]["frame"]["redraw"] is False
    steps = clock["layout"]["sliders"][0]["steps"]
    assert [s["label"] for s in steps][:11] == ["0"] + [""] * 9 + ["10"]  # a light slider: every 10th label
    assert [s["args"][0][0] for s in steps] == [str(f) for f in range(31)]  # but a step for every frame
    assert [t["name"] for t in clock["data"]][-1] == "status"  # no angle line by default: 16 labels, not 32
    assert clock["frames"][5]["traces"] == [2, 3, 4]
    assert len(str(clock)) < 150_000


def test_clock_angle_labels_on_request():
    at = part_at("clock", angles="1")
    assert_clean(at)
    clock = chart_specs(at)[0]
    angle_line = clock["data"][5]
    assert angle_line["texttemplate"] == "m·θ=%{customdata:.3~g} rad"
    theta = rope.inv_freq(64, 10000.0)[clock_pairs(32, "spread")]  # the 16 pairs drawn
    frame = clock["frames"][7]
    assert frame["traces"] == [2, 3, 4, 5]
    np.testing.assert_allclose(arr(frame["data"][3]["customdata"]), 7 * theta, rtol=1e-6)  # m = 7


def test_relative_part_numbers_and_grid():
    at = part_at("relative")
    (grid_spec,) = chart_specs(at)
    grid = arr(grid_spec["data"][0]["z"])
    assert grid.shape == (256, 256)
    assert np.ptp(np.diagonal(grid, -3)) < 1e-3
    m = numbers(at)
    q, k = rope.sample_qk(64, 0)
    assert float(m["q_m·k_n"]) == pytest.approx(rope.score(q, k, 5, 2), rel=1e-5)
    assert m["q_m·k_n"] == m["q_(m+c)·k_(n+c)"]
    assert m["‖q‖"] == m["‖R_m q‖"]
    assert len(checks(at)) == 1
    marks = [t["name"] for t in grid_spec["data"][1:4]]  # the cells the numbers quote, and their diagonal
    assert marks == ["the diagonal m − n = 3", f"(m, n) = (5, 2): score {rope.score(q, k, 5, 2):.4f}",
                     f"(m + c, n + c) = (9, 6): score {rope.score(q, k, 9, 6):.4f}"]
    assert f"both score {rope.score(q, k, 5, 2):.4f}" in at.caption[0].value
    far = part_at("relative", n="8")
    assert "beyond the N positions shown" in far.caption[0].value


def test_left_right_part_compares_like_with_like():
    at = part_at("leftright")
    assert_clean(at)
    (spec,) = chart_specs(at)
    cur = rope.left_right_curves(64, 10000.0, 64, 4, 0)
    np.testing.assert_allclose(arr(spec["data"][0]["y"]), cur["rope_a"], atol=1e-4)
    np.testing.assert_allclose(arr(spec["data"][4]["y"]), cur["abs_ac"], atol=1e-4)
    m = numbers(at)
    assert float(m["RoPE: max |S at query 64 − S at 68|"]) < 1e-9  # RoPE: the anchor does not matter
    assert float(m["absolute + learned W: same"]) > 1.0  # the absolute code: it does
    assert float(m["RoPE, q = k"]) < 1e-9 and float(m["absolute, W = I"]) < 1e-9  # both symmetric cases
    assert float(m["RoPE, q ≠ k: max |S(Δ) − S(−Δ)|"]) > 1 and float(m["absolute + learned W"]) > 1
    caption = at.caption[0].value
    assert "for any q and k" in caption and "cannot tell" not in caption


def test_layouts_part_check_and_pairing():
    at = part_at("layouts")  # the diagram opens at 8 channels whatever d is
    assert_clean(at)
    pairing = chart_specs(at)[0]
    perm = arr(pairing["data"][0]["x"]).reshape(-1, 3)
    assert perm[:, 0].tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert checks(at)[0].startswith("✅ **Permuting q and k by P")


def test_smallest_settings():
    query = dict(d="2", base="10", n="8", m_max="1", frames="30", m="0", kpos="0", c="0", max_delta="16",
                 layout="half", preset="random", pairs="ends", seed="9999")
    for part in PARTS:
        at = part_at(part, **query)
        assert_clean(at)
        assert warnings_text(at) == ""
        specs = chart_specs(at)
        if part == "clock":
            assert len(specs[0]["frames"]) == 30
            assert len(arr(specs[0]["data"][3]["x"])) == 1
        if part == "tables":
            assert arr(specs[0]["data"][0]["z"]).shape == (1, 8)
        if part == "cossin":
            # the first MAX_TABLE_ROWS positions whatever N is (N is not this part's control)
            assert [arr(t["z"]).shape for t in specs[0]["data"]] == [(rf.MAX_TABLE_ROWS, 2)] * 4
        if part == "relative":
            assert "half-split" in title(specs[0])


def test_largest_settings_cap_and_say_so():
    query = dict(d="256", base="1e+07", n="8192", m_max="8192", frames="72", m="8192", kpos="8192", c="8192",
                 max_delta="8192", pairs="stride4", angles="1")
    for part in PARTS:
        at = run_page(PAGE, query={**query, "part": part})
        assert_clean(at)
        assert warnings_text(at) == ""
        specs = chart_specs(at)
        info = " ".join(i.value for i in at.info)
        assert max(len(str(s)) for s in specs) < 2_000_000
        if part == "clock":
            assert "strobe" in info
            assert len(arr(specs[0]["data"][3]["x"])) == 32
            assert len(specs[0]["frames"]) == 72 and specs[0]["frames"][0]["traces"] == [2, 3, 4, 5]  # live angles
            assert len(json.dumps(specs[0])) < 1_000_000  # the bound for the animation at d = 256
        if part == "relative":
            assert "1 position in 32" in info
            assert arr(specs[0]["data"][0]["z"]).shape == (256, 256)
        if part == "tables":
            assert "(1 position in 7 shown)" in title(specs[0])
        if part == "cossin":
            assert f"Positions 0 to {rf.MAX_TABLE_ROWS - 1} show the pattern" in at.caption[0].value
        at.run()  # a warm rerun at the largest settings (its speed: benchmarks/slider_to_chart.py --largest)
        assert_clean(at)


def test_slider_change_redraws():
    at = run_page(PAGE, query={"part": "clock"})
    at.slider(key="rope.d").set_value(128).run()
    assert_clean(at)
    specs = chart_specs(at)
    assert len(arr(specs[0]["data"][3]["x"])) == 16  # 16 of the 64 pairs
    assert specs[0]["data"][1]["text"][-1].startswith("i=63,")  # down to the slowest pair of d = 128
    at.selectbox(key="rope.pairs").set_value("all").run()
    assert len(arr(chart_specs(at)[0]["data"][3]["x"])) == 64


def test_part_switch():
    at = run_page(PAGE)
    at.radio(key="rope.part").set_value("decay").run()
    assert_clean(at)
    specs = chart_specs(at)
    assert "decay" in title(specs[0])
    b = arr(specs[0]["data"][0]["y"])
    assert b[0] == pytest.approx(16.5)  # B(0) = (d/2 + 1)/2 at d = 64


def test_pitfall_toggles_show_wrong_and_right():
    """Each toggle adds its wrong and right charts; the pitfalls part's toggles are tried one after the other on one
    page (the previous one switched off in the same run)."""
    for part, toggles in (("mixed", [("mixed", "mixed")]), ("pitfalls", [("swap", "swapped"), ("freq", "claim")])):
        at = run_page(PAGE, query={"part": part})
        before = len(chart_specs(at))
        words = dict(toggles)
        for toggle in each_pitfall(at, "rope", list(words)):
            wrong_word = words[toggle]
            specs = chart_specs(at)
            assert len(specs) == before + 2, toggle
            joined = " ".join(title(s) + " ".join(str(t.get("name")) for t in s["data"]) for s in specs)
            assert wrong_word in joined
            if toggle == "mixed":
                wrong = next(s for s in specs if "mixed" in title(s))
                assert np.ptp(np.diagonal(arr(wrong["data"][0]["z"]), -3)) > 0.1
                m = [v for k, v in number_items(at) if k.startswith("‖R_m q‖/")]
                assert len(m) == 2 and m[0] != m[1]
                drift = [float(v) for k, v in number_items(at)
                         if k.startswith("largest |‖R_m q‖/‖q‖ − 1|, m < 256")]
                assert len(drift) == 2 and drift[0] > 1e-3 and drift[1] < 1e-12  # wrong side drifts, right side not
            if toggle == "swap":
                swapped = next(arr(s["data"][0]["z"]) for s in specs if "swapped" in title(s))
                right = next(arr(s["data"][0]["z"]) for s in specs
                             if title(s).startswith("Score") and "swapped" not in title(s))
                np.testing.assert_allclose(right.T, swapped, atol=1e-4)


def test_float32_pitfall_numbers():
    at = run_page(PAGE, query=dict(d="128", part="pitfalls"))
    at.toggle(key="rope.pitfall.f32").set_value(True).run()
    assert_clean(at)
    m = numbers(at)
    assert float(m["m = 10⁵"]) > 1e-3 > float(m["error at m = 10³"])


def test_garbage_everywhere_opens_the_first_part_at_the_defaults():
    """Every control and the part garbage at once (each a different class of bad value): the lesson's own controls
    are named, and the first part is drawn at d = 64. (Each part's run with hostile values, every control named, is
    tests/test_pages_all.py's; every class of value, tests/test_ui_params.py's.)"""
    query = garbage_query(GLOBAL + CLOCK)  # the clock's controls too, which the first part does not read
    at = page_at(PAGE, **query)
    assert_clean(at)
    text = warnings_text(at)
    for name in GLOBAL:
        assert f"`{name}`" in text, (name, query[name], text)
    assert "default" in text
    specs = chart_specs(at)
    assert len(specs) == 1 and title(specs[0]).startswith(PARTS["add"])  # the first part, at d = 64
    assert "d = 64" in title(specs[0])
    rendered = " ".join(md.value for md in at.markdown)
    assert "<script>" not in rendered
    assert set(query.values()) == set(GARBAGE)  # every class in this one run


@pytest.mark.parametrize("garbage", ["-1", "15"])  # below its range (the other classes: tests/test_pages_all.py)
def test_garbage_in_decay_control(garbage):
    at = page_at(PAGE, part="decay", max_delta=garbage)
    assert_clean(at)
    assert "`max_delta`" in warnings_text(at) and "1024" in warnings_text(at)
    assert len(arr(chart_specs(at)[0]["data"][0]["y"])) == 1025


# ---------------------------------------------------------------------------- the parts from first principles

def test_add_part_terms_sum_back_and_the_caption_reads_the_numbers():
    at = part_at("add")
    assert checks(at) and all(c.startswith("✅") for c in checks(at))
    assert "The four terms add up to the full score" in checks(at)[0]
    terms = rope.additive_score_terms(64, 64, 10000.0, 0, "same", "random")
    m = numbers(at)
    z = terms["position·position"]
    assert m["RMS, position·position"] == f"{np.sqrt(np.mean(z**2)):.3g}"
    assert m["RMS along diagonals, position·position"] == f"{rope.off_offset_residual(z):.2g}"
    caption = at.caption[0].value
    assert "content·position: a function of the key's position n alone (absolute)" in caption
    assert "position·position: changes with m and n, not with m − n alone" in caption
    assert f"RMS {rope.off_offset_residual(terms['full']):.3g}" in caption
    ident = part_at("add", weights="identity", tokens="random", add_T="256")
    assert_clean(ident)
    assert "position·position: a function of m − n alone (relative)" in ident.caption[0].value
    assert checks(ident)[0].startswith("✅")


@pytest.mark.parametrize("query", [{}, dict(d="256", m="8192", kpos="0", c="8192", pair="127", base="1e+07"),
                                   dict(d="2", m="0", kpos="0", c="0")])
def test_derive_part_every_step_checks_out(query):
    at = part_at("derive", **query)
    assert_clean(at)
    assert warnings_text(at) == ""
    assert len(checks(at)) == 3 and all(c.startswith("✅") for c in checks(at))
    d, m, n = int(query.get("d", 64)), int(query.get("m", 5)), int(query.get("kpos", 2))
    q, k = rope.sample_qk(d, 0)
    values = numbers(at)
    expected = rope.score(q, k, m, n, float(query.get("base", 1e4)))
    for label in ("(R_m q)ᵀ(R_n k)", "qᵀ R_(n−m) k", "Re Σ z^q conj(z^k) e^(j(m−n)θ)", "score at (m + c, n + c)"):
        assert float(values[label]) == pytest.approx(expected, rel=1e-8, abs=1e-8)


def test_together_part_quotes_the_numbers_the_animation_keeps():
    at = part_at("together", pair="3", c_max="40", qk_frames="13")
    assert_clean(at)
    (spec,) = chart_specs(at)
    assert len(spec["frames"]) == 13
    q, k = rope.sample_qk(64, 0)
    s0, s1 = rope.score(q, k, 5, 2), rope.score(q, k, 45, 42)
    caption = at.caption[0].value
    assert f"the whole score stays {s0:+.4f}" in caption and f"{s1:+.4f}" == f"{s0:+.4f}"
    assert f"Pair 3 turns by c·θ = {40 * rope.inv_freq(64)[3]:.3g} rad" in caption
    last = spec["frames"][-1]["data"][-1]["text"][0]
    assert f"whole score q·k = {s1:+.4f}" in last and last.startswith("c = 40:")
    assert spec["layout"]["updatemenus"][0]["buttons"][0]["args"][1]["frame"]["redraw"] is False


@pytest.mark.parametrize("scheme,share,d", [("full", "1", "64"), ("partial", "0.25", "64"), ("p-rope", "0.75", "64"),
                                            ("decoupled", "1/3", "192"), ("partial", "0.125", "2")])
def test_pairs_part_counts_match_the_math(scheme, share, d):
    at = part_at("pairs", scheme=scheme, share=share, d=d)
    assert_clean(at)
    assert warnings_text(at) == ""
    dim = int(d)
    pairs = max(1, round(dim * (1 / 3 if share == "1/3" else float(share)) / 2))
    roles = rope.pair_roles(rope.pair_frequencies(dim, 10000.0, scheme, 2 * pairs / dim), 4096)
    m = numbers(at)
    assert int(m["pairs that turn"]) == (roles == "turns").sum()
    assert int(m["not rotated"]) == (roles == "not rotated").sum()
    assert f"{(roles == 'not rotated').sum()} do not turn at all" in at.caption[0].value
    if scheme == "decoupled":  # DeepSeek-V3's 128 + 64 channels
        assert int(m["not rotated"]) == 64 and "128 channels without position" in at.caption[0].value


def test_base_part_numbers_and_link_to_context_extension():
    at = part_at("base", d="128", base="500000", L="8192")
    assert_clean(at)
    m = numbers(at)
    lam = rope.wavelengths(128, 500000.0)
    assert m["slowest wavelength (tokens)"] == f"{lam[-1]:,.0f}"
    assert m["pairs with λ_i > L"] == f"{(lam > 8192).sum()} of 64"
    assert m["b* (slowest λ = L)"] == f"{rope.base_for_wavelength(128, 8192):,.0f}"
    link = next(md.value for md in at.markdown if "Context extension" in md.value)
    assert "/Context_extension?d=128&base=500000&L=8192&part=pairs" in link
    small = part_at("base", d="4")
    assert not [md.value for md in small.markdown if "Context extension" in md.value]  # its d starts at 8


def test_garbage_in_the_new_parts_controls():
    """Each part's own controls garbage (round robin over the classes, "-1" among them): named, and the part still
    draws its one chart."""
    values = ["abc", "nan", "1e309", "<script>alert(1)</script>", "-1"]
    turn = 0
    for part, names in (("add", ["add_T", "tokens", "weights"]), ("together", ["c_max", "qk_frames", "pair"]),
                        ("pairs", ["scheme", "share", "ctx"]), ("base", ["L"]), ("leftright", ["lr_max"]),
                        ("layouts", ["pd"])):
        query = {name: values[(turn + k) % len(values)] for k, name in enumerate(names)}
        turn += len(names)
        at = part_at(part, **query)
        assert_clean(at)
        text = warnings_text(at)
        for name in names:
            assert f"`{name}`" in text, (part, name, text)
        assert len(chart_specs(at)) == 1


def test_claims_about_models_in_the_pairs_part():
    """The pairs part names models: GPT-NeoX 20B rotates a quarter of each head, DeepSeek-V3 rotates 64 of 192
    channels (128 without position), and Phi models use transformers' partial_rotary_factor below 1."""
    import warnings

    from transformers import PhiConfig

    from posviz import presets

    neox = presets.get_preset("GPT-NeoX 20B").config
    assert neox["rotary_pct"] == 0.25
    ds = presets.get_preset("DeepSeek-V3").config
    assert (ds["qk_nope_head_dim"], ds["qk_rope_head_dim"]) == (128, 64)
    assert ds["qk_rope_head_dim"] / (ds["qk_nope_head_dim"] + ds["qk_rope_head_dim"]) == pytest.approx(1 / 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert PhiConfig().rope_parameters["partial_rotary_factor"] < 1


# ---------------------------------------------------------------------------- every caption number, two settings

def caption(at, start: str) -> str:
    return next(c.value for c in at.caption if c.value.startswith(start))


def latex(at) -> str:
    return "\n".join(str(x.value) for x in at.latex)


def _pairs_fraction(d: int, share: float) -> float:
    return 2 * max(1, round(d * share / 2)) / d  # as the page rounds the share to whole pairs


@pytest.mark.parametrize("query", [{}, dict(scheme="full", d="128", base="500000", ctx="65536"),
                                   dict(scheme="partial", share="0.25", ctx="256")])
def test_pairs_caption_says_only_what_holds(query):
    """The caption says what holds (cos(Δθ_i) > 0 for |Δ| <= L) and when a pair's share crosses zero; "their share
    of the score never changes sign there" would be false when q's and k's pair are near perpendicular."""
    at = part_at("pairs", **query)
    assert_clean(at)
    d, base, L = int(query.get("d", 64)), float(query.get("base", 1e4)), int(query.get("ctx", 4096))
    scheme = query.get("scheme", "p-rope")
    freqs = rope.pair_frequencies(d, base, scheme, _pairs_fraction(d, float(query.get("share", 0.75))))
    roles = rope.pair_roles(freqs, L)
    full = rope.pair_roles(rope.inv_freq(d, base), L)
    text = caption(at, {"full": "Full RoPE", "partial": "Partial RoPE", "p-rope": "p-RoPE"}[scheme])
    counts = [(roles == r).sum() for r in ("turns", "under a quarter turn", "not rotated")]
    assert (f"Within L = {L:,} tokens, {counts[0]} pairs turn at least a quarter turn, {counts[1]} turn less and "
            f"{counts[2]} do not turn at all.") in text
    assert f"(grey circles), {(full == 'under a quarter turn').sum()} pairs already turn less" in text
    assert "never changes sign" not in text
    assert "cos(Δθ_i) > 0 at every distance |Δ| ≤ L" in text and "less than L·|θ_i| from ±π/2" in text
    assert r"\cos(\Delta\theta_i) > 0" in latex(at) and "stays one sign" not in latex(at)


@pytest.mark.parametrize("query", [{}, dict(d="128", base="500000", L="8192"), dict(d="2", L="256")])
def test_base_caption_numbers_and_the_lower_bound_on_the_base(query):
    at = part_at("base", **query)
    assert_clean(at)
    d, base, L = int(query.get("d", 64)), float(query.get("base", 1e4)), int(query.get("L", 4096))
    lam = rope.wavelengths(d, base)
    text = caption(at, "At b =")
    assert (f"the slowest pair's wavelength is {lam[-1]:,.0f} tokens: it makes {L / lam[-1]:.3g} turns within "
            f"L = {L:,}, and {(lam > L).sum()} of the {d // 2} pairs never complete") in text
    if d >= 4:
        assert f"At b* = {rope.base_for_wavelength(d, float(L)):,.0f} the slowest pair" in text
    else:
        assert "At b* =" not in text
    for name, b, length in (("Llama 3", "500,000", 8192), ("Code Llama", "1,000,000", 16384)):
        star = rope.base_for_wavelength(128, float(length))
        assert f"{name} trains on {length:,} tokens with b = {b}, where b* = {star:,.0f}" in text
    assert "Men et al. (2024" in text
    neg = rope.first_negative_cos_sum(d, base, L)
    if neg < 0:
        assert f"stays ≥ 0 for every m up to L = {L:,}: this base meets their condition" in text
    else:
        assert f"first turns negative at m = {neg:,}, inside L = {L:,}: this base fails their condition" in text
    assert (neg < 0) == (query.get("base") == "500000")  # Llama 3's base meets it at 8,192; 10,000 fails at 4,096


@pytest.mark.parametrize("query", [{}, dict(d="8"), dict(d="2", base="500000")])
def test_float32_caption_and_pitfall_quote_the_chart_at_the_chosen_d_and_b(query):
    """The error quoted is the one drawn at the chosen d and b: fixed numbers ("about 1e-5 at 10³ ... above 1e-2 by
    10⁶") hold at d = 64, b = 1e4 only."""
    at = part_at("pitfalls", **query)
    assert_clean(at)
    d, base = int(query.get("d", 64)), float(query.get("base", 1e4))
    err = rope.float32_error([1e3, 1e4, 1e5, 1e6], d, base)
    text = caption(at, "The float32 error")
    assert (f"The float32 error at d = {d}, b = {base:g}: {err[0]:.1e} at m = 10³, {err[1]:.1e} at 10⁴, "
            f"{err[2]:.1e} at 10⁵ and {err[3]:.1e} at 10⁶.") in text
    spec = next(s for s in chart_specs(at) if title(s).startswith("float32 angle error"))
    x, y = arr(spec["data"][0]["x"]), arr(spec["data"][0]["y"])
    for m, e in zip((1e3, 1e4, 1e5, 1e6), err, strict=True):  # the caption's numbers are the drawn ones
        assert f"{float(y[np.flatnonzero(x == m)[0]]):.1e}" == f"{max(e, 1e-12):.1e}"
    prose = "\n".join(m.value for m in at.markdown)
    assert f"at d = {d}, b = {base:g} cos and sin are off by up to {err[2]:.1e} at m = 10^5" in prose
    assert "several 1e-3" not in prose


@pytest.mark.parametrize("query", [{}, dict(d="2", max_delta="64"), dict(d="256", base="10000000", max_delta="16")])
def test_decay_caption_numbers_follow_the_curves(query):
    """The caption's numbers come from the curves at the chosen d and b: fixed words ("rises on about half of the unit
    steps", "Σcos ... even turns negative") would be false at d = 2, where the bound is flat, and at d = 256,
    b = 10⁷, where the sum stays positive up to Δ = 16."""
    at = part_at("decay", **query)
    assert_clean(at)
    d, base, top = int(query.get("d", 64)), float(query.get("base", 1e4)), int(query.get("max_delta", 1024))
    deltas = np.arange(0, top + 1.0)
    bound, cos = rope.decay_bound(deltas, d, base), rope.cos_sum(deltas, d, base)
    spec = chart_specs(at)[0]
    np.testing.assert_allclose(arr(spec["data"][0]["y"]), bound, rtol=1e-6)
    text = caption(at, "B(Δ) is RoFormer's")
    rises = float((np.diff(bound) > 1e-12 * bound.max()).mean())
    if d == 2:
        assert "with a single pair (d = 2) it is flat" in text and "not monotone" not in text
    elif rises > 0:
        assert f"it rises on {100 * rises:.3g} % of the unit steps up to Δ = {top:,}" in text
    else:
        assert f"up to Δ = {top:,} it falls at every step" in text
    low, at_delta = float(cos.min()), int(np.argmin(cos))
    words = "turns negative: its lowest value is" if low < 0 else f"stays positive up to Δ = {top:,} (lowest"
    assert f"{words} {low:.2f}, at Δ = {at_delta:,}" in text
    assert "averages 512 such pairs" in text and "about half" not in text


@pytest.mark.parametrize("query", [{}, dict(m="40", kpos="7", pair="3", d="16")])
def test_derive_caption_and_notation(query):
    """The pair, m and n the caption names; the imaginary unit is j (i numbers the pairs) in prose, labels and
    formulas (u + iv and e^{i(m−n)θ_i} would give i two meanings in one formula)."""
    at = part_at("derive", **query)
    assert_clean(at)
    m, n, pair = query.get("m", "5"), query.get("kpos", "2"), query.get("pair", "0")
    text = caption(at, "Left: pair")
    assert f"pair {pair} of q turned by m·θ = {m}·θ_{pair} and of k by n·θ = {n}·θ_{pair}" in text
    prose = "\n".join(x.value for x in at.markdown)
    assert "u + jv, where j² = −1" in prose and "u + iv" not in prose and "e^{j(m−n)θ}" in prose
    assert r"e^{\,j(m-n)\theta_i}" in latex(at) and r"e^{\,i(m-n)" not in latex(at)
    assert "Re Σ z^q conj(z^k) e^(j(m−n)θ)" in numbers(at)
    assert any("e^(jmθ_i)" in x for x in checks(at))


def test_together_caption_at_the_defaults():
    at = part_at("together")
    q, k = rope.sample_qk(64, 0)
    text = caption(at, "Press Play")
    theta = rope.inv_freq(64)[0]
    assert f"runs from 0 to 24. Pair 0 turns by c·θ = {24 * theta:.3g} rad" in text
    angle = rope.qk_pairs(q, k, [5.0], [2.0])["angle"][0, 0]
    assert f"stays {angle:+.4f} rad and the whole score stays {rope.score(q, k, 5, 2):+.4f}" in text


def test_relative_caption_at_chosen_positions():
    at = part_at("relative", m="100", kpos="30", c="50", n="256")
    assert_clean(at)
    q, k = rope.sample_qk(64, 0)
    text = caption(at, "The square marks")
    assert "(m, n) = (100, 30) and the circle (m + c, n + c) = (150, 80): both lie on the dashed diagonal m − n = 70" \
        in text and f"both score {rope.score(q, k, 100, 30):.4f}" in text


@pytest.mark.parametrize("query", [{}, dict(d="32", lr_max="200", c="10", seed="5")])
def test_left_right_caption_numbers(query):
    at = part_at("leftright", **query)
    assert_clean(at)
    d, top, c, seed = (int(query.get(k, v)) for k, v in (("d", 64), ("lr_max", 64), ("c", 4), ("seed", 0)))
    cur = rope.left_right_curves(d, 10000.0, top, c, seed)
    mirror = {key: float(np.abs(v - v[::-1]).max()) for key, v in cur.items() if key != "deltas"}
    text = caption(at, "Left, RoPE")
    assert f"differs (by up to {mirror['rope_a']:.3g}); for q = k it is symmetric (difference " \
           f"{mirror['rope_same']:.1e})" in text
    assert f"direction-aware as well (up to {mirror['abs_a']:.3g})" in text
    assert f"moving the query from {top} to {top + c} leaves RoPE's curve in place (largest change " \
           f"{float(np.abs(cur['rope_a'] - cur['rope_ac']).max()):.1e}) but moves the absolute one (by up to " \
           f"{float(np.abs(cur['abs_a'] - cur['abs_ac']).max()):.3g})" in text


def test_parts_show_only_the_controls_they_use():
    """5b's tables show the first MAX_TABLE_ROWS positions whatever N is: N is not offered there. 7b's m, n and c
    are used where the student sees them: each side's grid marks (m, n) and (m + c, n + c), its numbers name
    those cells, and moving c moves the marks."""
    at = part_at("cossin")
    shown = {str(w.key).removeprefix("rope.") for kind in ("slider", "select_slider", "number_input", "selectbox",
                                                          "toggle", "radio", "text_input")
             for w in at.sidebar.get(kind) if str(w.key).startswith("rope.") and not str(w.key).startswith("rope._")}
    assert "n" not in shown and "d" in shown
    assert len(arr(chart_specs(at)[0]["data"][0]["y"])) == rf.MAX_TABLE_ROWS
    for c in ("4", "7"):
        at = run_page(PAGE, query={"part": "mixed", "m": "5", "kpos": "2", "c": c})
        for _ in each_pitfall(at, "rope", ["mixed"]):
            grids = [s for s in chart_specs(at) if title(s).startswith("Score")]
            assert len(grids) == 2
            for spec in grids:
                cells = [(t["x"][0], t["y"][0]) for t in spec["data"]
                         if t.get("mode") == "markers" and t.get("xaxis") in (None, "x")]
                assert cells == [(2, 5), (2 + int(c), 5 + int(c))]
            names = [k for k, _ in number_items(at)]
            assert f"q_(m+c)·k_(n+c) at ({5 + int(c)}, {2 + int(c)})" in names


def test_clock_toggle_label_fits_its_column():
    """The clock's four controls share a row of the 820 px column (about 190 px each): a longer label was cut to
    "angle m·θ_i under e..."."""
    from posviz import ui

    toggle = next(c for c in ui.find("rope").parts["clock"].controls if c.name == "angles")
    assert len(toggle.label) <= 18


ENGLISH_WORDS = re.compile(r"\b[a-z]{3,} [a-z]{3,} [a-z]{3,}\b")  # three English words in a row: a sentence left over


def shown_text(at) -> str:
    """Every markdown, caption and plain text of a run, without link targets and code spans (not read as prose)."""
    texts = [e.value for kind in (at.markdown, at.caption, at.text, at.info) for e in kind]
    return re.sub(r"\]\([^)]*\)|`[^`]*`", "", "\n".join(texts))


@pytest.mark.parametrize("part", sorted(PARTS))
def test_every_part_in_chinese(part):
    """?lang=zh: the part runs clean, its chart's title is Chinese, its checks hold and no English sentence is left
    in its prose, captions and checks."""
    at = page_at(PAGE, part=part, lang="zh")
    assert_clean(at)
    assert re.search(r"[\u4e00-\u9fff]", title(chart_specs(at)[0]))
    assert all(c.startswith("✅") for c in checks(at))
    assert ENGLISH_WORDS.findall(shown_text(at)) == []


@pytest.mark.parametrize("part", ["mixed", "pitfalls"])
def test_pitfalls_in_chinese(part):
    """?lang=zh with every pitfall's wrong and right versions shown: clean, and no English sentence left."""
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=90)
    at.query_params.update(part=part, lang="zh")
    for key in ("mixed", "swap", "freq", "f32"):
        at.session_state[f"rope.pitfall.{key}"] = True
    at.run()
    assert_clean(at)
    assert len(chart_specs(at)) == {"mixed": 3, "pitfalls": 5}[part]
    assert ENGLISH_WORDS.findall(shown_text(at)) == []
