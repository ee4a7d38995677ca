"""AppTest of the CoPE page: what every part shows, examples, chosen extremes, bounds set by other controls, hostile
text, lesson-specific fallbacks, pitfalls, reruns (every part clean at its declared extremes and with hostile URLs,
each control named: tests/test_pages_all.py)."""

from __future__ import annotations

import html

import numpy as np
import pytest

from posviz import cope
from testkit.apptest import (
    GARBAGE,
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
from tests.test_cope_figures import arr

pytestmark = pytest.mark.app

PAGE = "pages/8_CoPE.py"
SCALE = 4.0  # the page's default gate scale: soft enough that positions are fractional (the interpolation shows)
HOSTILE = "<b>x</b> **bold** <script>alert(1)</script> [a](javascript:x) 🙂👍🏽 数数 مرحبا $x$"
PARAMS = ["part", "example", "text", "rule", "scale", "bias", "causal", "npos_max", "seed", "d_head", "i", "j", "emb",
          "target", "strength", "nodiv"]


def chart(at, title_start):
    for spec in chart_specs(at):
        title = spec["layout"].get("title", {}).get("text", "")
        if title.startswith(title_start):
            return spec
    raise AssertionError(f"no chart titled {title_start!r}")


def texts(at):
    return [t.value for t in at.text]


def markdown_blob(at):
    return "\n".join(str(m.value) for m in at.markdown) + "\n".join(str(c.value) for c in at.caption)


# one chart per part ("count" and "interp", the keys of links shared before the split, open the first of
# their former charts); "all" is the whole lesson on one page, an explicit opt-in
PART_CHARTS = {
    "count": ["Tokens"],
    "positions": ["Which tokens count"],
    "query": ["Positions seen from query"],
    "interp": ["Query i = "],
    "table": ["Embedding table e"],
    "attention": ["Attention of query"],
    "pitfalls": [],
}
PART_CHARTS["all"] = [t for titles in PART_CHARTS.values() for t in titles]


@pytest.mark.parametrize("part", list(PART_CHARTS))
def test_each_part_of_the_lesson(part):
    at = page_at(PAGE, part=part)
    assert_clean(at)
    titles = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    assert len(titles) == len(PART_CHARTS[part])
    assert all(t.startswith(want) for t, want in zip(titles, PART_CHARTS[part]))
    n_pitfalls = sum("Pitfall:" in str(m.value) for m in at.markdown)
    assert n_pitfalls == (6 if part in ("pitfalls", "all") else 0)


def test_interpolation_numbers_match_the_math():
    at = page_at(PAGE, part="interp", rule="constant", scale="0", i="2", j="0")
    assert_clean(at)
    metrics = numbers(at)
    assert metrics["p_ij"] == "1.500" and metrics["w"] == "0.500"
    assert metrics["⌊p⌋"] == "1" and metrics["⌈p⌉"] == "2"
    L = cope.cope_run(rule="constant", scale=0.0)
    assert metrics["pos_ij"] == f"{0.5 * (L.z_int[2, 1] + L.z_int[2, 2]):.3f}"


def test_attention_numbers_show_the_effect():
    at = page_at(PAGE, part="attention")
    assert_clean(at)
    values = [float(v) for _, v in number_items(at)]
    assert len(values) == 2 and values[1] > values[0] + 0.2


def test_defaults():
    at = page_at(PAGE)
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == 1
    assert texts(at)[0] == cope.DEFAULT_TEXT
    tokens = chart(at, "Tokens")
    assert tokens["data"][0]["text"][:3] == ["CoPE", "count", "##s"]
    L = cope.cope_run(scale=SCALE)
    assert [float(v) for v in tokens["data"][1]["text"]] == pytest.approx(L.positions[-1], abs=0.05)
    metrics = numbers(at)
    assert metrics["tokens T"] == str(L.T) and metrics["npos_max P"] == str(L.T + 1)
    assert not at.info  # no cap, no empty-text notice


def test_positions_part_at_defaults():
    at = page_at(PAGE, part="positions")
    assert_clean(at)
    heat = chart(at, "Which tokens count")
    L = cope.cope_run(scale=SCALE)
    p = arr(heat["data"][1]["z"])
    np.testing.assert_allclose(p[-1], L.positions[-1], rtol=1e-6)
    assert any("p_ij ≤ i − j + 1" in m.value and "holds" in m.value for m in at.markdown)


def test_first_sidebar_slider_redraws_the_default_part():
    """The first sidebar slider is the query i, whose view the default part (the chips) shows."""
    at = run_page(PAGE)
    first = at.sidebar.slider[0]
    assert first.key == "cope.i"
    before = chart(at, "Tokens")
    first.set_value(0).run()
    assert_clean(at)
    after = chart(at, "Tokens")
    L = cope.cope_run(scale=SCALE)
    assert len(before["data"][1]["text"]) == L.T  # the last token sees every key
    assert after["data"][1]["text"] == [f"{L.positions[0, 0]:.1f}"]  # query 0 sees only itself
    assert "query i = 0" in after["layout"]["title"]["text"]


def test_key_j_is_shared_by_the_interpolation_and_table_parts():
    query = {"rule": "constant", "scale": "0", "i": "2", "j": "0"}  # p_20 = 1.5: columns 1 and 2 mix
    table = page_at(PAGE, **query, part="table")
    assert_clean(table)
    spec = chart(table, "Embedding table e")
    assert sorted(s["x0"] + 0.5 for s in spec["layout"]["shapes"]) == [1, 2]
    every = page_at(PAGE, **query, part="all")  # both parts on one page: one j control, drawn once
    assert_clean(every)
    assert len([s for s in every.slider if s.key == "cope.j"]) == 1
    assert sorted(s["x0"] + 0.5 for s in chart(every, "Embedding table e")["layout"]["shapes"]) == [1, 2]
    assert chart(every, "Query i = 2, key j = 0: p = 1.500")


@pytest.mark.parametrize("example", ["sentences", "list", "code"])
def test_examples(example):
    at = page_at(PAGE, example=example)
    assert_clean(at)
    assert texts(at)[0] == cope.EXAMPLES[example]
    labels = chart(at, "Tokens")["data"][0]["text"]
    assert labels == [html.escape(s, quote=False) for s in cope.tokenize(cope.EXAMPLES[example]).labels]


def test_hostile_text_from_the_url_is_shown_as_text():
    at = page_at(PAGE, text=HOSTILE)
    assert_clean(at)
    assert HOSTILE in texts(at)
    assert "<b>" not in markdown_blob(at) and "<script" not in markdown_blob(at)
    for spec in chart_specs(at):
        blob = str(spec)
        assert "<b>x" not in blob and "<script" not in blob
    labels = chart(at, "Tokens")["data"][0]["text"]
    assert "&lt;" in labels and "🙂" in labels and "数数" in labels


def test_hostile_text_typed_into_the_box():
    at = run_page(PAGE)
    at.text_area(key="cope.text").input("<b>x</b>").run()
    assert_clean(at)
    assert "<b>x</b>" in texts(at)
    labels = chart(at, "Tokens")["data"][0]["text"]
    assert labels == ["&lt;", "b", "&gt;", "x", "&lt;", "/", "b", "&gt;"]
    assert at.query_params["text"] == "<b>x</b>"  # the link keeps it, still shown only as text


def test_empty_text_falls_back_to_the_example_and_says_so():
    at = page_at(PAGE, text="   ")
    assert_clean(at)
    assert any("empty" in i.value for i in at.info)
    assert chart(at, "Tokens")["data"][0]["text"][0] == "CoPE"


def test_long_text_is_capped_and_said():
    at = page_at(PAGE, text="count " * 150)
    assert_clean(at)
    assert any(f"first {cope.MAX_TOKENS} tokens" in i.value for i in at.info)
    assert len(chart(at, "Tokens")["data"][0]["text"]) == cope.MAX_TOKENS


def test_count_everything_is_relative_position():
    at = page_at(PAGE, part="positions", rule="all", scale="40")
    assert_clean(at)
    assert any("relative position" in m.value and "holds" in m.value for m in at.markdown)
    p = arr(chart(at, "Which tokens count")["data"][1]["z"])
    T = p.shape[0]
    assert p[T - 1, 0] == T


def test_clamp_is_visible():
    at = page_at(PAGE, part="positions", rule="all", scale="40", npos_max="3")
    assert_clean(at)
    heat = chart(at, "Which tokens count")
    assert len(arr(heat["data"][3]["x"])) > 0
    assert arr(heat["data"][1]["z"])[-1, 0] == 2
    assert any("clamped" in c.value for c in at.caption)


def test_query_index_is_bounded_by_the_text_and_the_slider_shows_it():
    at = page_at(PAGE, part="query", i="63")
    assert_clean(at)
    T = cope.cope_run(scale=SCALE).T
    query = at.sidebar.slider(key="cope.i")
    assert query.max == T - 1 and query.value == T - 1  # the real bound, not 63
    assert chart(at, "Positions seen from query").get("layout")["title"]["text"].startswith(
        f"Positions seen from query i = {T - 1}")


def test_key_j_is_bounded_by_the_query_under_the_causal_mask():
    at = page_at(PAGE, part="interp", i="5", j="20")
    assert_clean(at)
    assert at.sidebar.slider(key="cope.j").max == 5 and numbers(at)["p_ij"] == \
        f"{cope.cope_run(scale=SCALE).positions[5, 5]:.3f}"
    at = page_at(PAGE, part="interp", i="5", j="20", causal="0")
    assert at.sidebar.slider(key="cope.j").max == cope.cope_run(scale=SCALE).T - 1
    assert at.sidebar.slider(key="cope.j").value == 20


def test_target_is_bounded_by_the_table():
    at = page_at(PAGE, part="attention", npos_max="3", target="9")
    assert_clean(at)
    target = at.slider(key="cope.target")
    assert target.max == 2 and target.value == 2
    assert "p* = 2" in chart(at, "Attention of query")["layout"]["title"]["text"]


def test_interpolation_default_shows_a_fractional_position():
    at = page_at(PAGE, part="interp")
    assert_clean(at)
    w = float(numbers(at)["w"])
    assert 0.2 < w < 0.8, w  # a point visibly between two embeddings, not 0.001 away from one
    star = next(t for t in chart(at, "Query i = ")["data"] if t["name"] == "interpolated pos_ij")
    assert star["x"][0] == pytest.approx(float(numbers(at)["p_ij"]), abs=1e-3)


def test_attention_caption_names_the_keys_the_numbers_count():
    at = page_at(PAGE, part="attention")
    assert_clean(at)
    caption = next(c.value for c in at.caption if c.value.startswith("The toy head"))
    run = cope.cope_run(scale=SCALE)
    i = run.T - 1
    near = np.flatnonzero(np.abs(run.positions[i] - 2) < 0.5)
    labels = run.tokens.labels
    assert f"p* = 2 picks out keys {near[0]}–{near[-1]} (“{labels[near[0]]}” … “{labels[near[-1]]}”)" in caption
    assert labels[near[0]] == "Can" and labels[near[-1]] == "?"  # the previous sentence, as the caption says
    assert "from a query that ends a sentence, p* = 2 is the previous sentence" in caption
    doc = " ".join(cope.cope_run.__doc__.split())  # the source the part shows says the same
    assert "a query that is itself a sentence end" in doc and "the previous one at p = 2" in doc


def test_gate_scale_help_is_what_float64_gives():
    """The help of the scale slider: σ(37) rounds to exactly 1, σ(36.5) does not; σ(−37) = 8.5e−17, not 0."""
    sigma = lambda z: float(cope.cope_gates(np.array([[z]]), causal=False)[0, 0])  # noqa: E731
    assert sigma(37.0) == 1.0 and sigma(36.5) < 1.0
    assert f"{sigma(-37.0):.1e}".replace("-", "−") == "8.5e−17" and sigma(-40.0) > 0
    at = page_at(PAGE)
    help_text = at.sidebar.slider(key="cope.scale").help
    assert "From a = 37 on" in help_text and "8.5e−17 at a = 37" in help_text and "never exactly 0" in help_text


@pytest.mark.parametrize("part", [p for p in PART_CHARTS if p != "all"])
def test_sidebar_shows_only_the_controls_the_part_reads(part):
    at = page_at(PAGE, part=part)
    assert_clean(at)
    shown = {w.key.removeprefix("cope.") for kind in ("slider", "selectbox", "text_area", "toggle", "radio")
             for w in at.sidebar.get(kind) if str(w.key).startswith("cope.") and not str(w.key).startswith("cope._")}
    head = {"example", "text", "rule", "scale", "bias", "causal", "npos_max", "seed", "d_head"}
    want = {"count": head - {"seed", "d_head"} | {"i"}, "positions": head - {"seed", "d_head"},
            "query": head - {"seed", "d_head"} | {"i"},
            "interp": head | {"i", "emb", "j"}, "table": head | {"i", "emb", "j"}, "attention": head | {"i", "emb"},
            "pitfalls": head | {"i", "emb"}}[part]
    assert shown == want


@pytest.mark.parametrize("high", [False, True])
def test_every_control_at_an_extreme(high):
    lo = {"part": "count", "example": "typed", "text": "a", "rule": "all", "scale": "0", "bias": "-10", "causal": "0",
          "npos_max": "0", "seed": "0", "d_head": "4", "i": "-1", "j": "0", "emb": "random", "target": "0",
          "strength": "0", "nodiv": "0"}
    hi = {"part": "all", "example": "code", "text": "x" * 1000, "rule": "constant", "scale": "40", "bias": "10",
          "causal": "1", "npos_max": "65", "seed": "999", "d_head": "64", "i": "63", "j": "63",
          "emb": "sinusoidal", "target": "64", "strength": "20", "nodiv": "1"}
    at = page_at(PAGE, **(hi if high else lo))
    assert_clean(at)
    assert not warnings_text(at)
    assert len(chart_specs(at)) == (6 if high else 1)


def test_last_option_of_every_control_is_the_largest_text():
    """Every control at its last option (what the --largest benchmark opens): your own text, 64 tokens, and the
    last query i = 63 is a real token, so moving it redraws the chips."""
    last = list(page_at(PAGE).session_state["_posviz_ctx"].params["example"].options)[-1]
    assert last == "typed"
    at = page_at(PAGE, example=last, text="x " * 500, i="63")
    assert_clean(at)
    labels = chart(at, "Tokens")["data"][0]["text"]
    assert len(labels) == cope.MAX_TOKENS == 64 and "query i = 63" in chart(at, "Tokens")["layout"]["title"]["text"]
    assert not any("clamped" in c.value for c in at.caption)


def test_garbage_in_every_parameter_warns_and_falls_back():
    """Every control garbage at once on the whole lesson, each a different class (the text longer than the box
    takes): each named, the six charts still drawn, no markup in the markdown or the captions. (Each part's hostile
    run, each control named: tests/test_pages_all.py; every class for every control kind: tests/test_ui_params.py.)"""
    names = [n for n in PARAMS if n not in ("part", "text")]
    query = garbage_query(names)
    assert set(query.values()) == set(GARBAGE)  # every class in this one run
    at = page_at(PAGE, **query, text="x" * 1001, part="all")
    assert_clean(at)
    for name in [*names, "text"]:
        assert f"`{name}`" in warnings_text(at), (name, query.get(name))
    assert len(chart_specs(at)) == 6
    assert "<script" not in markdown_blob(at)


def test_a_garbage_part_falls_back_to_the_first_part():
    at = page_at(PAGE, part=GARBAGE[0])
    assert_clean(at)
    assert "`part`" in warnings_text(at)
    assert len(chart_specs(at)) == 1


def test_pitfall_toggles_show_wrong_and_right():
    """Each toggle in turn on one page (the previous one switched off in the same run): its wrong and right chart."""
    at = run_page(PAGE, {"part": "pitfalls"})
    for key in each_pitfall(at, "cope", ("leak", "table_size", "bounds", "gqa", "nodiv")):
        specs = chart_specs(at)
        assert len(specs) == 2, key
        wrong, right = specs
        if key == "leak":
            assert np.triu(arr(wrong["data"][0]["z"]), 1).max() > 0
            assert np.triu(arr(right["data"][0]["z"]), 1).max() == 0
        elif key == "table_size":
            assert "1 clamped" in wrong["layout"]["title"]["text"]
            assert "0 clamped" in right["layout"]["title"]["text"]
        elif key == "bounds":
            T = cope.cope_run(scale=SCALE).T
            assert wrong["layout"]["title"]["text"].startswith(f"{T} of {T}")
            assert right["layout"]["title"]["text"].startswith(f"0 of {T}")
        elif key == "gqa":
            assert wrong["data"][0]["cells"]["values"][1][-1].startswith("RuntimeError")
            assert right["data"][0]["cells"]["values"][1][-1] == "(1, 8, 4, 4)"
        else:
            assert "nodiv" in wrong["data"][1]["name"] and "nodiv" not in right["data"][1]["name"]


def test_leak_toggle_on_the_main_control():
    at = page_at(PAGE, part="positions", causal="0")
    assert_clean(at)
    p = arr(chart(at, "Which tokens count")["data"][1]["z"])
    assert np.triu(p, 1).max() > 0


def test_slider_rerun_at_64_tokens_redraws_and_updates_the_link():
    """(Its speed is measured in benchmarks/, not asserted here.)"""
    at = run_page(PAGE, {"text": "word " * 64, "rule": "attention"})
    assert_clean(at)
    before = chart(at, "Tokens")["data"][1]["text"]
    at.slider(key="cope.scale").set_value(12.5).run()
    assert_clean(at)
    assert at.query_params["scale"] in ("12.5", ["12.5"])
    assert chart(at, "Tokens")["data"][1]["text"] != before
