"""AppTest of the "From integers to sinusoids" page: defaults, extremes, garbage URLs, hostile text."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz import intro
from tests.apptest_utils import GARBAGE, ROOT, assert_clean, chart_specs, run_page, warnings_text

PAGE = "pages/1_From_integers_to_sinusoids.py"
SLUG = "from_integers_to_sinusoids"
DEFAULTS = {"d": "16", "seed": "0", "shuffle": "1", "L": "64", "N1": "10", "N2": "100", "pos": "5", "P": "64",
            "bits": "6", "j": "2"}
HOSTILE = "<script>alert(1)</script> **bold** [link](javascript:alert(2)) <img src=x onerror=y> dog $x$ dog"


def _checks(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith(("✅", "❌"))]


def _infos(at: AppTest) -> str:
    return "\n".join(str(i.value) for i in at.info)


def _shape(z: dict | list) -> tuple[int, ...]:
    """Shape of a heatmap's z as shipped to the browser (plotly's typed-array encoding or nested lists)."""
    if isinstance(z, dict):
        return tuple(int(n) for n in z["shape"].split(","))
    return (len(z), len(z[0]))


def _heatmap_rows(spec: dict, trace: int = 0) -> list[str]:
    return spec["data"][trace]["y"]


def test_defaults_render_every_figure_and_every_check_holds_as_expected():
    at = run_page(PAGE)
    assert_clean(at)
    specs = chart_specs(at)
    titles = [s["layout"]["title"]["text"] for s in specs]
    assert len(specs) == 7
    assert titles[0].startswith("Self-attention outputs") and "Binary code of p" in titles[4]
    assert _heatmap_rows(specs[0]) == ["0: the", "1: dog", "2: chased", "3: another", "4: dog"]
    checks = _checks(at)
    assert len(checks) == 10
    by_label = {c.split("**")[1]: c for c in checks}
    assert by_label["Without positions, np.allclose(output[1], output[4])"].startswith("✅")
    assert by_label["With sinusoidal PE, output[1] and output[4] differ"].startswith("✅")
    assert by_label["Without positions, attn(shuffled words) = shuffled attn(words)"].startswith("✅")
    assert by_label["With sinusoidal PE, shuffling changes the outputs themselves"].startswith("✅")
    # the deliberate failure: p/N violates property 1
    assert by_label["Property 1 for p/N: position 5 has the same code when N = 10 and N = 100"].startswith("❌")
    assert "5/10 = 0.5, 5/100 = 0.05" in by_label[
        "Property 1 for p/N: position 5 has the same code when N = 10 and N = 100"]
    assert "1, 2, 4, 8, 16, 32" in checks[5]
    texts = [t.value for t in at.text]
    assert "0: the   1: dog   2: chased   3: another   4: dog" in texts
    assert " ".join(intro.attention_demo(shuffle=1).tokens) in texts
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["position added at the last slot"] == "63"
    assert float(metrics["‖position‖ / ‖embedding‖ at the last slot"]) > 50
    assert float(metrics["binary bits"]) > 0.2 and float(metrics["Vaswani sinusoids, d = 16"]) < 1e-9
    assert len(at.table) == 1
    assert not warnings_text(at) and not _infos(at)


def test_wavelength_pitfall_shows_slowest_pair_beside_whole_code():
    at = run_page(PAGE)
    assert len(chart_specs(at)) == 7
    check = [c for c in _checks(at) if "no offset k up to 200,000" in c]
    assert len(check) == 1 and check[0].startswith("✅") and "slowest wavelength ≈ 19,869 tokens" in check[0]
    at.toggle(key=f"{SLUG}.pitfall.wavelength").set_value(True).run()
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == 9
    titles = [s["layout"]["title"]["text"] for s in specs]
    assert any(t.endswith("slowest pair only") for t in titles) and any(t.endswith("all 8 pairs") for t in titles)
    # d = 4: only two pairs, and a near-repeat really exists: the check says so
    at = run_page(PAGE, query={"d": "4"})
    check = [c for c in _checks(at) if "no offset k up to 200,000" in c]
    assert check[0].startswith("❌") and "k = 84,823" in check[0]


def test_dog_numbers_table_shows_identical_rows_without_positions():
    at = run_page(PAGE)
    df = at.dataframe[0].value
    np.testing.assert_array_equal(df["slot 1, no positions"], df["slot 4, no positions"])
    assert np.abs(df["slot 1, with PE"] - df["slot 4, with PE"]).max() > 1e-3
    demo = intro.attention_demo()
    np.testing.assert_allclose(df["slot 1, no positions"], demo.out[1, :6].round(6))


@pytest.mark.parametrize("query", [
    {"d": "4", "seed": "99", "shuffle": "50", "L": "8", "N1": "2", "N2": "2", "pos": "0", "P": "8", "bits": "2",
     "j": "0"},
    {"d": "64", "seed": "0", "shuffle": "0", "L": "1024", "N1": "1000", "N2": "2", "pos": "999", "P": "1024",
     "bits": "12", "j": "11"},
])
def test_every_control_at_its_extremes(query):
    at = run_page(PAGE, query=query)
    assert_clean(at)
    assert not warnings_text(at)
    specs = chart_specs(at)
    assert len(specs) == 7
    d = int(query["d"])
    assert _shape(specs[0]["data"][0]["z"]) == (len(_heatmap_rows(specs[0])), d)
    assert _shape(specs[4]["data"][0]["z"]) == (int(query["bits"]), int(query["P"]))
    assert f"d = {d}" in specs[0]["layout"]["title"]["text"]
    assert f"{query['bits']} bits" in specs[4]["layout"]["title"]["text"]
    infos = _infos(at)
    if query["shuffle"] == "0":
        assert "keeps the original order" in infos
    if query["pos"] == "999":
        assert "showing p = 1 instead" in infos
        assert "position 1 has the same code when N = 1000 and N = 2" in "\n".join(_checks(at))
    if query["P"] == "1024":
        assert "first 128 positions" in infos
        assert "4096" not in infos
        # 12 bits hold 4096 codes, so all 1024 positions are distinct; the MSB never flips within them
        assert any("1024 distinct codes" in c and c.startswith("✅") for c in _checks(at))
    if query["P"] == "8" and query["bits"] == "2":
        assert any("4 distinct codes for 8 positions" in c and c.startswith("❌") for c in _checks(at))


def test_extreme_rerun_is_fast_and_small():
    at = run_page(PAGE)
    tracemalloc.start()
    start = time.perf_counter()
    for name, value in (("d", 64), ("L", 1024), ("P", 1024), ("bits", 12), ("j", 11), ("N1", 1000)):
        at.slider(key=f"{SLUG}.{name}").set_value(value)
    at.text_input(key=f"{SLUG}.text").input(" ".join(f"w{i}" for i in range(40)))
    at.run()
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert_clean(at)
    assert elapsed < 4.0, elapsed  # 2 s budget per rerun on a quiet machine; margin for a shared CI core
    assert peak < 256 * 2**20, peak
    assert "only the first 24 are used" in _infos(at)
    assert len(_heatmap_rows(chart_specs(at)[0])) == intro.MAX_TOKENS


@pytest.mark.parametrize("value", GARBAGE)
def test_garbage_in_every_query_parameter_warns_and_falls_back(value):
    at = run_page(PAGE, query=dict.fromkeys(DEFAULTS, value))
    assert_clean(at)
    warnings = warnings_text(at)
    for name, default in DEFAULTS.items():
        assert f"`{name}`" in warnings, (name, value)
        assert f"using the default ({default})" in warnings
    specs = chart_specs(at)
    assert "d = 16" in specs[0]["layout"]["title"]["text"]
    assert "<script>" not in warnings.replace("`", "")
    assert "0: the   1: dog   2: chased   3: another   4: dog" in [t.value for t in at.text]


def test_too_long_text_in_the_url_falls_back_to_the_example():
    at = run_page(PAGE, query={"text": "dog " * 100})
    assert_clean(at)
    assert "`text`" in warnings_text(at) and "the example text" in warnings_text(at)
    assert _heatmap_rows(chart_specs(at)[0])[1] == "1: dog"


def test_hostile_text_is_shown_only_as_plain_text():
    at = run_page(PAGE, query={"text": HOSTILE})
    assert_clean(at)
    assert not warnings_text(at)
    words = intro.tokenize(HOSTILE)
    assert "   ".join(f"{t}: {w}" for t, w in enumerate(words)) in [t.value for t in at.text]
    for m in at.markdown:
        for bad in ("<script", "onerror", "javascript", "**bold**"):
            assert bad not in m.value, m.value
    rows = _heatmap_rows(chart_specs(at)[0])
    assert all("<" not in r and ">" not in r and "*" not in r for r in rows)
    assert intro.repeated_pair(words) is not None
    assert _checks(at)[0].startswith("✅")


@pytest.mark.parametrize(("text", "message"), [
    ("", "no words"),
    ("!!! ??? ...", "no words"),
    ("every word here is unique", "No word occurs twice"),
])
def test_sentences_without_words_or_repeats_explain_themselves(text, message):
    at = run_page(PAGE, query={"text": text})
    assert_clean(at)
    assert message in _infos(at)
    if message == "no words":
        assert _heatmap_rows(chart_specs(at)[0])[1] == "1: dog"
    else:
        assert "np.allclose" not in "\n".join(_checks(at))


def test_moving_the_embedding_slider_redraws_with_the_new_width():
    at = run_page(PAGE)
    before = chart_specs(at)[0]
    at.slider(key=f"{SLUG}.d").set_value(32).run()
    assert_clean(at)
    after = chart_specs(at)[0]
    assert "d = 32" in after["layout"]["title"]["text"] and "d = 16" in before["layout"]["title"]["text"]
    assert _shape(after["data"][0]["z"]) == (5, 32) and _shape(before["data"][0]["z"]) == (5, 16)
    assert dict(at.query_params) == {"d": "32"}  # the URL now carries the new value


def test_page_links_resolve_inside_the_app():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    links = [(link.proto.page, link.proto.label) for link in at.get("page_link")]
    expected = [("pages/2_Sinusoidal.py", "Sinusoidal lesson: the full table, and the rotation M_k that shifts it")]
    expected += [(path, label) for prop in intro.PROPERTIES for path, label in prop.pages]
    # st.page_link resolves "pages/4_RoPE.py" to the page's URL name "RoPE"
    assert links == [(path.split("_", 1)[1].removesuffix(".py"), label) for path, label in expected]
    assert {page for page, _ in links} == {"Sinusoidal", "RoPE", "Context_extension", "2D_encodings"}
