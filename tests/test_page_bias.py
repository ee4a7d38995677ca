"""AppTest of pages/6_Distance_biases.py: every part at its defaults and at chosen settings (charts and captions
against posviz.bias), bounds that depend on other controls, values each control refuses, the links to other lessons
(every part clean at its declared extremes and with hostile URLs, each control named: tests/test_pages_all.py)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz import bias as b
from posviz import ui
from testkit.apptest import ROOT, assert_clean, chart_specs, page_at, run_page, warnings_text
from tests.test_gaussian_figures import values

pytestmark = pytest.mark.app

PAGE = "pages/6_Distance_biases.py"
PARTS = {"family": "1. One family: a penalty per distance", "attention": "2. What each member does to one query's "
         "attention", "matrix": "3. The bias over every (query, key) pair", "t5": "4. T5: buckets of distance",
         "alibi": "5. ALiBi: one slope per head", "nope": "6. NoPE: no position, only the causal mask",
         "gaussian": "7. Case study: a Gaussian kernel joins the family", "rotation": "8. Rotation against bias"}


def run_part(part: str, **query: str) -> AppTest:
    """A fresh run of ``part``, clean (for tests that then set widgets)."""
    at = run_page(PAGE, query={**query, "part": part})
    assert_clean(at)
    return at


def part_at(part: str, **query: str) -> AppTest:
    """The shared run of ``part``, clean (for tests that only read it)."""
    at = page_at(PAGE, **query, part=part)
    assert_clean(at)
    return at


def caption(at: AppTest) -> str:
    """The figure's caption (the panel's first caption; the sidebar's share hint comes later)."""
    return at.caption[0].value


def trace(at: AppTest, group: str) -> dict:
    hits = [t for t in chart_specs(at)[0]["data"] if t.get("legendgroup") == group]
    assert len(hits) == 1, group
    return hits[0]


def test_defaults_open_the_family_part():
    at = page_at(PAGE)
    assert_clean(at)
    assert warnings_text(at) == ""
    assert [h.value for h in at.header] == [PARTS["family"]]
    assert len(chart_specs(at)) == 1
    d = np.arange(129)
    fam = b.Family(t5_shape="seeded")  # the page's default T5 table: seeded, untrained
    for member in b.BIASES:
        np.testing.assert_allclose(values(trace(at, member)["y"]), b.distance_bias(member, d, fam), rtol=1e-6,
                                   atol=1e-6)
    text = caption(at)
    assert "At Δ = 100: ALiBi head 0 adds −50 (a straight line of slope −0.5)" in text
    assert f"KERPLE log {-math.log(101):.3g}".replace("-", "−") in text


@pytest.mark.parametrize("part", list(PARTS))
def test_every_part_draws_one_chart_under_its_heading(part):
    at = part_at(part)
    assert warnings_text(at) == ""
    assert [h.value for h in at.header] == [PARTS[part]]
    assert len(chart_specs(at)) == 1
    assert at.radio[0].options == [
        "1. One family", "2. One query's attention", "3. The (i, j) pattern", "4. T5's buckets", "5. ALiBi's slopes",
        "6. NoPE", "7. Case study: Gaussian kernel", "8. Rotation vs bias"]


def test_attention_part_at_chosen_settings():
    q = dict(n_heads="12", head="9", T="64", content_scale="0.5", seed="7", log_r1="2", mass="0.8")
    at = part_at("attention", **q)
    fam = b.Family(n_heads=12, head=9, content_scale=0.5, seed=7, log_r1=2.0, t5_shape="seeded")
    text = caption(at)
    for member in b.MEMBERS:
        w = b.attention_row(member, 64, fam)
        np.testing.assert_allclose(values(trace(at, member)["y"]), w, rtol=1e-5, atol=1e-8)
        assert trace(at, member)["name"].endswith(f"80% within Δ ≤ {b.reach(w, 0.8)}")
    r = {m: b.reach(b.attention_row(m, 64, fam), 0.8) for m in ("alibi", "nope", "rope")}
    assert f"ALiBi head 9 {r['alibi']}," in text and f"(NoPE) {r['nope']} of the 64 keys" in text
    assert f"RoPE's rotation reaches {r['rope']}" in text


def test_matrix_part_shows_the_chosen_member_and_its_mask():
    at = part_at("matrix", member="kerple_power", T_map="24", pow_r1="1.5", pow_r2="1")
    bias, mask = chart_specs(at)[0]["data"]
    z = values(bias["z"]).reshape(24, 24)
    low = np.tril(np.ones((24, 24), bool))
    np.testing.assert_allclose(z[low], b.bias_matrix("kerple_power", 24, b.Family(pow_r1=1.5, pow_r2=1.0))[low],
                               rtol=1e-6)
    assert np.isnan(z[~low]).all()
    assert "Next to the diagonal (Δ = 1) it is −1.5; in the corner (i, j) = (23, 0), Δ = 23, it is −34.5" in caption(at)


def test_the_seed_control_seeds_the_t5_table_too():
    at = part_at("matrix", member="t5", t5_shape="seeded", T_map="16", seed="4")
    z = values(chart_specs(at)[0]["data"][0]["z"]).reshape(16, 16)
    low = np.tril(np.ones((16, 16), bool))
    np.testing.assert_allclose(z[low], b.bias_matrix("t5", 16, b.Family(t5_shape="seeded", seed=4))[low], rtol=1e-6)
    at = part_at("family", t5_shape="seeded", seed="4")
    np.testing.assert_allclose(values(trace(at, "t5")["y"]),
                               b.distance_bias("t5", np.arange(129), b.Family(t5_shape="seeded", seed=4)), rtol=1e-6)


def test_t5_part_numbers_and_a_bidirectional_request_with_too_few_buckets():
    at = part_at("t5", num_buckets="16", max_distance="40", span="64", bidirectional="1")
    y = values(chart_specs(at)[0]["data"][0]["y"])
    np.testing.assert_array_equal(y, b.t5_bucket(-np.arange(-64, 65), True, 16, 40))  # x is Δ = i − j
    text = caption(at)
    assert "below max_exact = 4" in text and "last bucket of its side (7 and 15)" in text
    assert f"Here {np.unique(y).size} of the 16 buckets" in text
    at = part_at("t5", num_buckets="2", bidirectional="1")
    assert "needs at least 4 buckets" in at.info[0].value
    np.testing.assert_array_equal(values(chart_specs(at)[0]["data"][0]["y"]),
                                  b.t5_bucket(-np.arange(-128, 129), False, 2, 128))


def test_dependent_bounds_are_clamped_not_rejected():
    at = part_at("alibi", n_heads="4", head="30")
    assert warnings_text(at) == ""
    assert "Head 3 (m = 0.003906)" in caption(at)
    at = part_at("t5", num_buckets="64", max_distance="20")  # max_distance >= num_buckets
    assert "to max_distance = 64" in caption(at)


def test_alibi_part_for_a_head_count_that_is_not_a_power_of_two():
    at = part_at("alibi", n_heads="12", head="8")
    text = caption(at)
    assert "12 is not a power of two: the first 8 heads take the 8-head slopes and the other 4" in text
    assert "Head 8 (m = 0.7071)" in text and f"every ln 2 / m = {math.log(2) / 2**-0.5:.3g} tokens" in text
    np.testing.assert_allclose(np.concatenate([values(t["y"]) for t in chart_specs(at)[0]["data"]]),
                               b.alibi_slopes(12))


def test_alibi_pitfall_shows_both_forms_and_their_checks():
    at = run_part("alibi", n_heads="4")
    at.toggle[0].set_value(True).run()
    assert_clean(at)
    assert len(chart_specs(at)) == 3  # the slopes, then the wrong and the right BLOOM form
    marks = [m.value for m in at.markdown if m.value.startswith(("✅", "❌"))]
    gap_open, gap_causal = b.alibi_forms_gap(4, 64, False), b.alibi_forms_gap(4, 64, True)
    assert marks[0].startswith("❌") and f"largest weight difference {gap_open:.2g}" in marks[0]
    assert marks[1].startswith("✅") and f"largest weight difference {gap_causal:.2g}" in marks[1]


def test_nope_part_numbers():
    at = part_at("nope", T="200", channels="64", seed="3")
    sig = b.nope_signals(200, 64, 3)
    assert f"{1 / 200:.4g} at i = 199" in caption(at)
    assert f"({sig['variance'][-1]:.4g} measured at i = 199" in caption(at)


def test_gaussian_part_links_to_the_gaussian_lesson_and_compares_three_members():
    at = part_at("gaussian")
    assert [t["legendgroup"] for t in chart_specs(at)[0]["data"]] == ["nope", "gaussian_log", "gaussian_mul"]
    sidebar = {w.label for w in at.sidebar.slider} | {w.label for w in at.sidebar.number_input}
    assert "Gaussian global width σ2 (tokens)" in sidebar and "ALiBi heads H" not in sidebar  # only what it uses
    links = re.findall(r"\]\((/[^)]+)\)", " ".join(m.value for m in at.markdown))
    assert "/Gaussian_kernel_RoPE?part=modes" in links
    prose = " ".join(m.value for m in at.markdown)  # the part stands on its own: K defined, its source named
    assert r"$K(\Delta) = \alpha_1 e^{-\Delta^2/2\sigma_1^2} + \alpha_2 e^{-\Delta^2/2\sigma_2^2}$" in prose
    assert "(here α1 = 0.7, σ1 = 5, α2 = 0.3, σ2 = 20 tokens)" in prose
    assert "“Gaussian Kernel-enhanced Rotary Position Embedding”" in prose  # docs/SOURCES.md's title
    assert "optional case-study lesson [Gaussian-kernel RoPE](/Gaussian_kernel_RoPE?part=modes)" in prose
    assert "Case study" in [h.value for h in at.header][0]
    r = {m: b.reach(b.attention_row(m, 128, b.Family())) for m in ("gaussian_log", "gaussian_mul", "nope")}
    assert f"within Δ ≤ {r['gaussian_log']} with + log K, within Δ ≤ {r['gaussian_mul']} with × K" in caption(at)


def test_rotation_part_numbers_and_link():
    at = part_at("rotation", d="32", seed="2", span="64")
    prof = b.rope_profile(64, 32, 10000.0, 2)
    text = caption(at)
    assert f"between {prof['seeded'].min():.3g} and {prof['seeded'].max():.3g}" in text
    assert f"falls from {prof['ones'][0]:.3g}" in text
    links = re.findall(r"\]\((/[^)]+)\)", " ".join(m.value for m in at.markdown))
    assert "/RoPE?part=decay" in links


def test_t5_part_measures_distance_as_the_lesson_does():
    """The lesson's distance is Δ = i − j (the family's curves, the heatmap); T5's chart and caption used j − i."""
    at = part_at("t5", num_buckets="16", max_distance="40", span="64")
    chart = chart_specs(at)[0]
    np.testing.assert_array_equal(values(chart["data"][0]["x"]), np.arange(-64, 65))
    y = values(chart["data"][0]["y"])
    assert (y[np.arange(-64, 65) <= 0] == 0).all() and y[-1] == 15  # causal: the buckets fill Δ > 0
    assert chart["layout"]["xaxis"]["title"]["text"].startswith("distance Δ = i − j")
    assert "|i − j| ≤ 64" in caption(at) and "j − i" not in caption(at)


def test_alibi_head_help_and_caption_name_the_steepest_head_for_every_head_count():
    """"Head 0 has the steepest slope" is false for H = 12 (head 0: 0.5, head 8: 0.7071): the help names the
    steepest head for every head count."""
    head = next(c for c in ui.find("bias").controls if c.name == "head")
    assert "Head 0 has the steepest slope" not in head.help
    assert "head 0's when H is a power of two" in head.help and "head P's" in head.help
    for n_heads, steep in ((12, 8), (8, 0), (1, 0), (63, 32)):
        assert b.alibi_steepest_head(n_heads) == steep == int(np.argmax(b.alibi_slopes(n_heads)))
    text = caption(part_at("alibi", n_heads="12", head="0"))
    assert "The steepest is head 8 (m = 0.7071), the first of the added slopes, steeper than head 0's 0.5." in text
    assert "The steepest is head 0 (m = 0.5)." in caption(part_at("alibi", n_heads="8", head="3"))


def test_alibi_formula_counts_heads_from_zero_like_the_chart():
    at = part_at("alibi", n_heads="8")
    assert [el.value.strip("$\n") for el in at.latex] == [r"m_h = 2^{-8(h+1)/H},\ h = 0..H-1\quad (H = 2^k)"]
    slopes = chart_specs(at)[0]["data"][0]
    np.testing.assert_allclose(values(slopes["y"]), 2.0 ** (-8 * (values(slopes["x"]) + 1) / 8))


def link_texts(at: AppTest) -> dict[str, str]:
    """``{address: link text}`` of the markdown links on the page."""
    return {url: text for text, url in re.findall(r"\[([^\]]+)\]\((/[^)]+)\)", " ".join(m.value for m in at.markdown))}


def test_links_to_a_part_are_named_by_that_parts_declared_label():
    """A link reads the label of the part it opens: a number of its own ("part 5") can name another part than the
    one the link opens."""
    rope = ui.find("rope")
    links = link_texts(part_at("rotation"))
    assert links["/RoPE?part=decay"] == f"{rope.title}, part {rope.parts['decay'].label}"
    assert "part 5" not in links["/RoPE?part=decay"]


def test_nope_part_links_lesson_one_and_quotes_its_causal_layer():
    """The bridge to lesson 1: without a mask and positions the two 'dog's are identical, with the causal mask they
    differ (0.67), more than sinusoidal PE makes them differ without the mask (0.057)."""
    from posviz import intro

    at = part_at("nope")
    first = ui.find("intro")
    assert link_texts(at)["/From_integers_to_sinusoids?part=blind"] == (
        f"{first.title}, part {first.parts['blind'].label}")
    i, j = intro.repeated_pair(intro.attention_demo().tokens)
    causal = intro.row_gap(intro.attention_demo(causal=True).out, i, j)
    with_pe = intro.row_gap(intro.attention_demo(positions="sinusoidal").out, i, j)
    prose = " ".join(m.value for m in at.markdown)
    assert f"by up to {causal:.2g}, against {with_pe:.2g}" in prose and f"{causal:.2g}" == "0.67"


def test_linked_lessons_and_parts_exist():
    assert "modes" in ui.find("gaussian_kernel_rope").parts and "decay" in ui.find("rope").parts


def test_the_lesson_declares_itself():
    lesson = ui.find("bias")
    assert lesson.title == "Distance biases" and lesson.order == 6
    assert ui.href("bias", part="t5") == "/Distance_biases?part=t5"
    assert list(lesson.parts) == list(PARTS)
    assert Path(lesson.script).name == Path(PAGE).name
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"| [{lesson.icon} Distance biases](pages/{Path(PAGE).name}) | {lesson.summary} |" in readme


HOSTILE_RUNS = [  # (query, the controls whose warnings it must show): values each control refuses, a few per run
    ({"part": "<b>x</b>", "t5_shape": "t5", "pow_r2": "2.5", "n_heads": "0", "sigma1": "nan"},  # opens part 1
     ["part", "t5_shape", "pow_r2", "n_heads", "sigma1"]),
    ({"part": "matrix", "member": "rope", "n_heads": "1e309"}, ["member", "n_heads"]),  # rope is no bias member
    ({"part": "matrix", "member": "<script>alert(1)</script>"}, ["member"]),
    ({"part": "attention", "mass": "1"}, ["mass"]),
    ({"part": "nope", "channels": "-inf"}, ["channels"]),
]


@pytest.mark.parametrize(("query", "names"), HOSTILE_RUNS)
def test_hostile_values_warn_and_fall_back(query, names):
    at = page_at(PAGE, **query)
    assert_clean(at)
    for name in names:
        assert f"`{name}`" in warnings_text(at), name
    assert len(chart_specs(at)) == 1
    assert "<script>" not in str([m.value for m in at.markdown])


def test_family_part_folds_each_members_settings_under_its_heading():
    """Part 1 showed 16 controls in a row before any member; each member's settings are now folded under its own
    sidebar heading, and only the settings of no one member (seed, span) are drawn open."""
    at = part_at("family")
    headings = [e.label for e in at.sidebar.expander]
    assert headings[:4] == ["ALiBi: heads H, head h", "T5: buckets and their values", "KERPLE: r1, r2",
                            "Gaussian kernel: α, σ"]
    inside = {w.key for e in at.sidebar.expander[:4] for kind in ("slider", "number_input", "selectbox")
              for w in e.get(kind)}
    assert {"bias.n_heads", "bias.head", "bias.num_buckets", "bias.t5_shape", "bias.log_r1", "bias.sigma2"} <= inside
    t5 = next(c for c in ui.lessons(ROOT / "pages") if c.slug == "bias").controls
    t5 = next(c for c in t5 if c.name == "t5_shape")
    assert t5.default == "seeded"
    assert "here untrained: seeded N(0, 1²) numbers" in caption(at)
