"""AppTest of the "From integers to sinusoids" page: what each part shows, its checks and numbers, the values the
controls reach, lesson-specific fallbacks and hostile text. Every part clean at its defaults, with every control at
its extremes and with hostile URL values is tests/test_pages_all.py's."""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz import i18n, intro, ui
from posviz.figures.intro import position_run
from testkit.apptest import (
    GARBAGE,
    ROOT,
    assert_clean,
    chart_specs,
    garbage_query,
    numbers,
    page_at,
    page_module,
    run_page,
    warnings_text,
)

pytestmark = pytest.mark.app

PAGE = "pages/1_From_integers_to_sinusoids.py"
SLUG = "intro"
PARTS = ["blind", "shuffle", "integers", "normalised", "binary", "jumps", "sinusoids", "properties"]
SIDEBAR = {"d": "16", "seed": "0", "P": "64", "bits": "6", "j": "2"}  # kept in the address on every part
OWN = {"blind": {}, "shuffle": {"shuffle": "1"}, "integers": {"L": "512"},
       "normalised": {"N1": "10", "N2": "100", "pos": "5"}}  # the parts with controls of their own
TITLES = {"blind": "Self-attention outputs", "shuffle": "Permutation equivariance",
          "integers": "Channel ranges per position", "normalised": "p/N: position 5", "binary": "Binary code of p",
          "jumps": "Binary jumps", "sinusoids": "Sinusoids as smooth binary"}
HOSTILE = "<script>alert(1)</script> **bold** [link](javascript:alert(2)) <img src=x onerror=y> dog $x$ dog"


def run_part(part: str, query: dict[str, str] | None = None) -> AppTest:
    """A fresh run of ``part`` (for tests that then set widgets)."""
    return run_page(PAGE, query={**(query or {}), "part": part})


def part_at(part: str, query: dict[str, str] | None = None) -> AppTest:
    """The shared run of ``part`` (for tests that only read it)."""
    return page_at(PAGE, **{**(query or {}), "part": part})


def _checks(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith(("✅", "❌"))]


def _by_label(at: AppTest) -> dict[str, str]:
    return {c.split("**")[1]: c for c in _checks(at)}


def _infos(at: AppTest) -> str:
    return "\n".join(str(i.value) for i in at.info)


def _titles(at: AppTest) -> list[str]:
    return [s["layout"]["title"]["text"] for s in chart_specs(at)]


def _shape(z: dict | list) -> tuple[int, ...]:
    """Shape of a heatmap's z as shipped to the browser (plotly's typed-array encoding or nested lists)."""
    if isinstance(z, dict):
        return tuple(int(n) for n in z["shape"].split(","))
    return (len(z), len(z[0]))


def _heatmap_rows(spec: dict, trace: int = 0) -> list[str]:
    return spec["data"][trace]["y"]


def test_a_link_without_part_opens_part_one_only():
    at = page_at(PAGE)
    assert_clean(at)
    radio = at.radio(key=f"{SLUG}.part")
    assert radio.value == "blind" and radio.options == [
        "1. Blind to word order", "1b. Shuffle the words", "2. Integers", "3. p / N", "4. Binary",
        "4b. Binary jumps", "5. Sinusoids", "6. The five properties"]
    assert [h.value for h in at.header] == ["1. Attention is blind to word order"]
    specs = chart_specs(at)
    assert len(specs) == 1 and _titles(at)[0].startswith(TITLES["blind"])
    assert _heatmap_rows(specs[0]) == ["0: the", "1: dog", "2: chased", "3: another", "4: dog"]
    assert "0: the   1: dog   2: chased   3: another   4: dog" in [t.value for t in at.text]
    by_label = _by_label(at)
    assert len(by_label) == 3
    assert by_label["Without positions, np.allclose(output[1], output[4])"].startswith("✅")
    assert by_label["With sinusoidal PE, output[1] and output[4] differ"].startswith("✅")
    assert by_label["With a causal mask and no positions, output[1] and output[4] differ"].startswith("✅")
    assert not warnings_text(at) and not _infos(at)
    assert "part" not in at.query_params  # the default part keeps the URL clean


def test_every_part_draws_one_chart_and_its_checks():
    titles, checks, headers = [], {}, []
    for part in PARTS:
        at = part_at(part)
        assert_clean(at)
        assert not warnings_text(at) and not _infos(at), part
        got = _titles(at)
        assert len(got) == (part != "properties"), (part, got)  # one chart per part, none in the summary
        if got:
            assert got[0].startswith(TITLES[part]), (part, got)
        titles += got
        checks.update(_by_label(at))
        headers += [h.value for h in at.header]
        if part == "shuffle":
            assert " ".join(intro.attention_demo(shuffle=1).tokens) in [t.value for t in at.text]
        if part == "integers":
            metrics = numbers(at)
            assert metrics["position added at the last slot"] == "511"  # hundreds, as the prose says
            assert float(metrics["‖position‖ / ‖embedding‖ at the last slot"]) > 50
        if part == "sinusoids":
            metrics = numbers(at)
            assert float(metrics["binary bits"]) > 0.2 and float(metrics["Vaswani sinusoids, d = 16"]) < 1e-9
        if part == "properties":
            assert len(at.table) == 1 and any("parts 2 to 4" in c.value for c in at.caption)
    assert len(titles) == 7 and "Binary code of p" in titles[4]
    assert headers == ["1. Attention is blind to word order", "1b. Shuffle the words",
                       "2. First try: add the integer position", "3. Second try: normalise, p / N",
                       "4. Third try: binary", "4b. Binary jumps", "5. Sinusoids: binary, made smooth",
                       "6. The five properties"]
    assert len(checks) == 11
    assert checks["Without positions, attn(shuffled words) = shuffled attn(words)"].startswith("✅")
    assert checks["With sinusoidal PE, shuffling changes the outputs themselves"].startswith("✅")
    # the deliberate failure: p/N violates property 1
    label = "Property 1 for p/N: position 5 has the same code when N = 10 and N = 100"
    assert checks[label].startswith("❌") and "5/10 = 0.5, 5/100 = 0.05" in checks[label]
    flips = checks["Bit j flips exactly every 2^j tokens (measured on the code of every position)"]
    assert "1, 2, 4, 8, 16, 32" in flips
    assert checks["Every one of the 64 positions has its own 6-bit code"].startswith("✅")
    assert checks["Sinusoidal (d = 16): every one-token step has the same length"].startswith("✅")
    assert checks["Rounding each smooth bit gives back the binary code"].startswith("✅")


def test_choosing_a_part_redraws_only_that_part_and_puts_it_in_the_url():
    at = run_page(PAGE)
    at.radio(key=f"{SLUG}.part").set_value("binary").run()
    assert_clean(at)
    assert at.query_params["part"] in ("binary", ["binary"])
    assert [t.split(":")[0] for t in _titles(at)] == ["Binary code of p, 6 bits"]
    at.slider(key=f"{SLUG}.bits").set_value(4).run()  # a sidebar control applies to the part shown
    assert_clean(at)
    spec = chart_specs(at)[0]
    assert _shape(spec["data"][0]["z"]) == (4, 64) and "4 bits" in spec["layout"]["title"]["text"]
    at.radio(key=f"{SLUG}.part").set_value("sinusoids").run()  # ... and to the next part
    assert_clean(at)
    assert "64 × 4 cells" in _by_label(at)["Rounding each smooth bit gives back the binary code"]


def test_an_old_link_keeps_the_values_of_later_parts():
    """Links from before the parts carry every control; part 1 opens, and each part then shows its value."""
    at = run_page(PAGE, query={"L": "200", "N1": "20", "pos": "3", "d": "8"})
    assert_clean(at)
    assert "d = 8" in _titles(at)[0] and not warnings_text(at)
    at.radio(key=f"{SLUG}.part").set_value("integers").run()
    assert_clean(at)
    assert at.slider(key=f"{SLUG}.L").value == 200
    assert numbers(at)["position added at the last slot"] == "199"
    at.radio(key=f"{SLUG}.part").set_value("normalised").run()
    assert_clean(at)
    assert _by_label(at)["Property 1 for p/N: position 3 has the same code when N = 20 and N = 100"].startswith("❌")


def test_wavelength_pitfall_shows_slowest_pair_beside_whole_code():
    at = run_part("sinusoids")
    assert len(chart_specs(at)) == 1
    check = [c for c in _checks(at) if "the closest return within 200,000 tokens" in c]
    assert len(check) == 1 and check[0].startswith("✅")
    explanation = "\n".join(m.value for m in at.markdown)
    assert "19,869 tokens at d = 16" in explanation and "2π·10,000 = 62,832" in explanation
    at.toggle(key=f"{SLUG}.pitfall.wavelength").set_value(True).run()
    assert_clean(at)
    titles = _titles(at)
    assert len(titles) == 3
    assert titles[1].endswith("slowest pair only") and titles[2].endswith("all 8 pairs")
    k, dist, step = intro.closest_repeat(200_000, 16)
    captions = "\n".join(c.value for c in at.caption)
    assert f"closest return in 200,000 tokens is at k = {k:,}, at distance {dist:.3g}" in captions
    assert "farther than the next token's code" in captions
    # d = 4: only two pairs, and a near-repeat really exists: the check and the caption say so
    at = run_part("sinusoids", {"d": "4"})
    check = [c for c in _checks(at) if "the closest return within 200,000 tokens" in c]
    assert check[0].startswith("❌") and "k = 84,823" in check[0]
    at.toggle(key=f"{SLUG}.pitfall.wavelength").set_value(True).run()
    assert "closer than the next token's code" in "\n".join(c.value for c in at.caption)


def _number_table(at: AppTest) -> dict[str, np.ndarray]:
    """The markdown table of the repeated word's outputs, as columns of floats."""
    tables = [m.value for m in at.markdown if m.value.startswith("| channel |")]
    assert len(tables) == 1, tables
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in tables[0].splitlines()]
    header, body = rows[0], rows[2:]
    return {name: np.array([float(r[k]) for r in body]) for k, name in enumerate(header)}


def test_dog_numbers_table_shows_identical_rows_without_positions():
    table = _number_table(page_at(PAGE))
    assert list(table) == ["channel", "slot 1, no positions", "slot 4, no positions", "slot 1, with PE",
                           "slot 4, with PE", "slot 1, causal", "slot 4, causal"]
    np.testing.assert_array_equal(table["channel"], np.arange(6))
    np.testing.assert_array_equal(table["slot 1, no positions"], table["slot 4, no positions"])
    assert np.abs(table["slot 1, with PE"] - table["slot 4, with PE"]).max() > 1e-3
    demo = intro.attention_demo()
    np.testing.assert_allclose(table["slot 1, no positions"], demo.out[1, :6], atol=5e-7)
    table = _number_table(page_at(PAGE, d="4", text="a b a"))  # d = 4: only 4 channels
    np.testing.assert_array_equal(table["channel"], np.arange(4))
    np.testing.assert_allclose(table["slot 0, no positions"], intro.attention_demo("a b a", 4).out[0, :4], atol=5e-7)


@pytest.mark.parametrize("query", [
    {"d": "4", "seed": "99", "shuffle": "50", "L": "8", "N1": "2", "N2": "2", "pos": "0", "P": "8", "bits": "2",
     "j": "0"},
    {"d": "64", "seed": "0", "shuffle": "0", "L": "1024", "N1": "1000", "N2": "2", "pos": "999", "P": "1024",
     "bits": "12", "j": "11"},
])
def test_every_control_at_its_extremes(query):
    """Two mixes of extreme values (not the declared all-min and all-max of tests/test_pages_all.py): every part runs
    without any warning (no figure falls back either), and what the values do to the figures and the checks.
    pos = 999 with N2 = 2 is clamped by the shorter length, without a warning."""
    d, n_bits, n_pos = int(query["d"]), int(query["bits"]), int(query["P"])
    runs = {}
    for part in PARTS:
        at = part_at(part, query)
        assert_clean(at)
        assert not warnings_text(at), part
        runs[part] = at
    attention = chart_specs(runs["blind"])[0]
    assert _shape(attention["data"][0]["z"]) == (len(_heatmap_rows(attention)), d)
    assert f"d = {d}" in attention["layout"]["title"]["text"]
    binary = chart_specs(runs["binary"])[0]
    # a column per position, or per run of positions once there are more than a pixel column could show
    assert _shape(binary["data"][0]["z"]) == (n_bits, -(-n_pos // position_run(n_pos)))
    assert f"{n_bits} bits" in binary["layout"]["title"]["text"]
    if query["shuffle"] == "0":
        assert "keeps the original order" in _infos(runs["shuffle"])
        assert not _checks(runs["shuffle"])
    else:
        assert all(c.startswith("✅") for c in _checks(runs["shuffle"]))
    if query["pos"] == "999":  # bounded by the shorter length: the slider shows p < 2
        assert runs["normalised"].slider(key=f"{SLUG}.pos").max == 1
        assert "position 1 has the same code when N = 1000 and N = 2" in "\n".join(_checks(runs["normalised"]))
    if n_pos == 1024:
        assert "first 128 positions" in _infos(runs["jumps"])
        assert "4096" not in _infos(runs["jumps"])
        # 12 bits hold 4096 codes, so all 1024 positions are distinct; the MSB never flips within them
        assert any("1024 distinct codes" in c and c.startswith("✅") for c in _checks(runs["binary"]))
    if n_pos == 8 and n_bits == 2:
        assert any("4 distinct codes for 8 positions" in c and c.startswith("❌") for c in _checks(runs["binary"]))
        assert "bits (0, 1)" not in _infos(runs["jumps"])  # j = 0 fits: no cap to explain


@pytest.mark.parametrize(("part", "sliders"), [  # each part's own sliders (the sidebar shows only those)
    ("blind", {"d": 64}),
    ("integers", {"d": 64, "L": 1024}),
    ("normalised", {"N1": 1000}),
    ("jumps", {"d": 64, "P": 1024, "bits": 12, "j": 11}),
    ("sinusoids", {"d": 64, "P": 1024, "bits": 12, "j": 11}),
])
def test_extreme_rerun_is_fast_and_small(part, sliders):
    at = run_part(part)
    tracemalloc.start()
    for name, value in sliders.items():
        at.slider(key=f"{SLUG}.{name}").set_value(value)
    if part in ("blind", "integers"):  # the parts that read the sentence
        at.text_input(key=f"{SLUG}.text").input(" ".join(f"w{i}" for i in range(40)))
    at.run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert_clean(at)
    assert peak < 256 * 2**20, peak
    if part in ("blind", "integers"):  # the parts that read the sentence say it was cut
        assert "only the first 24 are used" in _infos(at)
    if part == "blind":
        assert len(_heatmap_rows(chart_specs(at)[0])) == intro.MAX_TOKENS


def test_garbage_falls_back_to_each_controls_default_and_says_which():
    """Every control's warning quotes the default the page falls back to (every control named, for every hostile
    class: tests/test_pages_all.py and tests/test_ui_params.py); the sentence too long for the box falls back to
    the example. One run per part with controls of its own, each control a different bad value."""
    turn = 0
    for part, own in OWN.items():
        names = [*SIDEBAR, *own]
        query = garbage_query(names, turn)
        turn += len(names)
        if part == "blind":
            query["text"] = "dog " * 100  # longer than the box takes
        at = part_at(part, query)
        assert_clean(at)
        warnings = warnings_text(at)
        for name, default in {**SIDEBAR, **own}.items():
            assert f"`{name}`" in warnings, (part, name, query[name])
            assert f"using the default ({default})" in warnings
        assert "<script>" not in warnings.replace("`", "")
        assert len(chart_specs(at)) == 1
        if part == "blind":
            assert "`text`" in warnings and "the example text" in warnings
            assert _heatmap_rows(chart_specs(at)[0])[1] == "1: dog"
    assert turn >= len(GARBAGE)  # every class of bad value went to some control


@pytest.mark.parametrize("value", ["", "<script>alert(1)</script>"])
def test_a_garbage_part_opens_part_one_with_the_rest_of_the_link(value):
    at = page_at(PAGE, part=value, d="8")
    assert_clean(at)
    assert "`part`" in warnings_text(at) and "using the default (blind)" in warnings_text(at)
    assert "d = 8" in _titles(at)[0]
    assert "0: the   1: dog   2: chased   3: another   4: dog" in [t.value for t in at.text]


def test_hostile_text_is_shown_only_as_plain_text():
    words = intro.tokenize(HOSTILE)
    for part in ("blind", "shuffle"):
        at = part_at(part, {"text": HOSTILE})
        assert_clean(at)
        assert not warnings_text(at)
        for m in at.markdown:
            for bad in ("<script", "onerror", "javascript", "**bold**"):
                assert bad not in m.value, m.value
        rows = _heatmap_rows(chart_specs(at)[0])
        assert all("<" not in r and ">" not in r and "*" not in r for r in rows)
        if part == "blind":
            assert "   ".join(f"{t}: {w}" for t, w in enumerate(words)) in [t.value for t in at.text]
            assert intro.repeated_pair(words) is not None
            assert _checks(at)[0].startswith("✅")
        else:
            shown = [t.value for t in at.text]
            assert any(sorted(s.split(" ")) == sorted(words) and s != " ".join(words) for s in shown), shown


@pytest.mark.parametrize(("text", "message"), [
    ("", "no words"),
    ("!!! ??? ...", "no words"),
    ("every word here is unique", "No word occurs twice"),
])
def test_sentences_without_words_or_repeats_explain_themselves(text, message):
    at = page_at(PAGE, text=text)
    assert_clean(at)
    assert message in _infos(at)
    if message == "no words":
        assert _heatmap_rows(chart_specs(at)[0])[1] == "1: dog"
        # the other parts that read the sentence say so too; the binary parts do not read it
        assert message in _infos(part_at("integers", {"text": text}))
        assert not _infos(part_at("binary", {"text": text}))
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


def test_links_open_a_part_of_another_lesson_by_its_declaration():
    links = []
    for part in ("sinusoids", "properties"):
        at = part_at(part)
        assert_clean(at)
        links += re.findall(r"\]\((/[^)]+)\)", "\n".join(m.value for m in at.markdown))
    assert links[0] == "/Sinusoidal?part=shift"
    lessons = {ls.url_path: ls for ls in ui.lessons(ROOT / "pages")}
    for link in links:  # every link names a real lesson and one of its parts
        path, _, query = link[1:].partition("?part=")
        assert path in lessons and query in lessons[path].parts, link
    assert {link[1:].split("?")[0] for link in links} == {"Sinusoidal", "RoPE", "Context_extension", "2D_encodings"}


def test_properties_table_is_complete_and_links_real_lessons():
    page = page_module("intro")
    assert len(page.PROPERTIES) == 5
    names = [p.name.lower() for p in page.PROPERTIES]
    for word in ("unique", "linear", "longer", "deterministic", "dimensions"):
        assert any(word in n for n in names), word
    for prop in page.PROPERTIES:
        assert set(prop.cells) == set(page.SCHEMES)
        for verdict, reason in prop.cells.values():
            assert verdict in ("yes", "no", "partly")
            assert 10 < len(reason) <= 90
        for slug, part, label in prop.links:
            assert ui.href(slug, ROOT / "pages", part=part).startswith("/") and label
    rows = page.property_rows()
    assert len(rows) == 5 and list(rows[0]) == ["property", *page.SCHEME_TITLES.values()]
    assert rows[2]["normalised p/N"].startswith("❌ no:")
    assert rows[1]["sinusoidal"].startswith("✅ yes:")


def test_five_properties_table_has_a_verdict_in_words_for_every_scheme():
    at = part_at("properties")
    rows = at.table[0].value
    assert len(rows) == 5
    cells = [str(v) for v in rows.drop(columns="property").to_numpy().ravel()]
    assert all(re.search(r"(yes|no|partly): ", c) for c in cells)  # a word, not only an emoji


def test_the_founding_claim_is_about_bidirectional_attention_and_the_causal_case_is_shown_beside_it():
    """The claim is about bidirectional attention: under a causal mask the two 'dog's differ by 0.67 with no position
    at all (more than the 0.057 sinusoidal PE gives the unmasked layer), so "self-attention cannot tell the first
    word from the last" alone would be false."""
    lesson = ui.find(SLUG)
    assert lesson.intro.startswith("Bidirectional self-attention") and "causal mask" in lesson.intro
    at = part_at("blind")
    demos = {(positions, causal): intro.attention_demo(positions=positions, causal=causal)
             for positions, causal in (("none", False), ("sinusoidal", False), ("none", True))}
    gap_pe = intro.row_gap(demos["sinusoidal", False].out, 1, 4)
    gap_causal = intro.row_gap(demos["none", True].out, 1, 4)
    scale = max(float(abs(d.out).max()) for d in demos.values())
    caption = at.caption[0].value
    assert f"up to {gap_pe:.3g} in one channel once each slot's sinusoidal code is added" in caption
    assert f"on the outputs' colour scale of ±{scale:.2g}" in caption
    assert "the strip on top is the difference" in caption and "none without positions (a blank row)" in caption
    assert f"no positions but a causal mask: the rows differ by up to {gap_causal:.3g}, more than PE" in caption
    assert f"{gap_causal:.3g}" == "0.666" and f"{gap_pe:.3g}" == "0.0572"
    check = _by_label(at)["With a causal mask and no positions, output[1] and output[4] differ"]
    assert f"max |difference| = {gap_causal:.3g}" in check
    spec = chart_specs(at)[0]
    causal_panel = next(t for t in spec["data"] if t.get("name") == "causal mask, no PE")
    assert _shape(causal_panel["z"]) == (5, 16)
    table = _number_table(at)
    np.testing.assert_allclose(table["slot 4, causal"], demos["none", True].out[4, :6], atol=5e-7)
    assert "bidirectional" in " ".join(m.value for m in at.markdown).lower()


def test_the_blind_part_and_the_nope_part_link_each_other_by_their_declared_labels():
    at = part_at("blind")
    links = {url: text for text, url in re.findall(r"\[([^\]]+)\]\((/[^)]+)\)", " ".join(m.value for m in at.markdown))}
    bias = ui.find("bias")
    assert links[ui.href("bias", part="nope")] == f"{bias.title}, part {bias.parts['nope'].label}"


def test_jumps_part_states_the_carry_rule_and_counts_flips_on_the_figures_bits():
    """The carry rule, counted on the figure's bits: p → p + 1 flips m + 1 bits when p + 1 is an odd multiple of
    2^m, not "every bit at the next power of two" (7 → 8 flips 4 of 6 bits)."""
    at = part_at("jumps")
    prose = " ".join(m.value for m in at.markdown)
    assert "every bit at the next power of two" not in prose
    assert "m + 1 bits when p + 1 is an odd multiple of 2^m" in prose and "a multiple of 2^(n−1)" in prose
    flips = intro.flipped_bits(64, 6)
    assert flips[7] == 4  # 7 → 8
    caption = at.caption[0].value
    assert ("of the 63 steps shown, 32 flip 1 bit, 16 flip 2 bits, 8 flip 3 bits, 4 flip 4 bits, 2 flip 5 bits, "
            "1 flips 6 bits; the first of the biggest, 31 → 32, flips 6 of the 6 bits.") in caption
    steps = next(t for t in chart_specs(at)[0]["data"] if t.get("name") == "binary, 6 bits")
    y = steps["y"]
    y = np.frombuffer(__import__("base64").b64decode(y["bdata"]), dtype=y["dtype"]) if isinstance(y, dict) else y
    np.testing.assert_allclose(np.square(np.asarray(y, dtype=float)), flips, rtol=1e-5)  # the plotted steps
    caption12 = part_at("jumps", {"bits": "12"}).caption[0].value
    assert "the first of the biggest, 31 → 32, flips 6 of the 12 bits." in caption12


@pytest.mark.parametrize(("part", "panels"), [("binary", 1), ("sinusoids", 2)])
def test_a_binary_heatmap_of_many_positions_says_each_column_is_a_mean(part, panels):
    """Past what a pixel column can hold the heatmaps average runs of positions: the caption says how many (the
    figure's own run) and which bits show as ½; with few positions it says nothing of the kind."""
    k = position_run(1000, panels)
    assert k > 1 and position_run(64, panels) == 1
    caption = part_at(part, {"P": "1000"}).caption[0].value
    assert f"each heatmap column is the mean of {k} neighbouring positions" in caption
    assert f"Bits j < {k.bit_length() - 1} flip inside such a run" in caption
    assert "mean of" not in part_at(part).caption[0].value
    assert f"the mean of {k} positions" in chart_specs(part_at(part, {"P": "1000"}))[0]["layout"]["title"]["text"]


def test_the_shuffle_part_writes_the_permutation_as_pi_not_p():
    """P is the "positions shown" control of this lesson; the permutation is Π."""
    at = part_at("shuffle")
    assert any(r"\mathrm{Attn}(\Pi X) = \Pi\,\mathrm{Attn}(X)" in el.value for el in at.latex)
    assert not any("(PX)" in el.value for el in at.latex)
    assert "attn(Π·x) = Π·attn(x)" in " ".join(m.value for m in at.markdown)
    assert "attn(Π·x) = Π·attn(x)" in chart_specs(at)[0]["layout"]["title"]["text"]


def test_binary_part_offers_only_the_controls_it_reads():
    """Part 4 (binary) draws the code of P positions in n bits; the embedding size d changes nothing there, so it is
    not offered (it was, and moving it did nothing)."""
    at = part_at("binary")
    keys = [str(w.key) for kind in ("slider", "number_input", "text_input") for w in at.sidebar.get(kind)]
    shown = {k.removeprefix(f"{SLUG}.") for k in keys if k.startswith(f"{SLUG}.") and not k.startswith(f"{SLUG}._")}
    assert shown == {"P", "bits"}
    assert ui.find(SLUG).parts["binary"].uses == ("P", "bits")


def test_the_sentence_help_names_the_number_of_words_the_layer_keeps():
    """The sentence control's help quotes the number of words intro keeps, in both languages (its placeholder is
    filled from intro.MAX_TOKENS)."""
    control = next(c for c in ui.find(SLUG).controls if c.name == "text")
    assert f"up to {intro.MAX_TOKENS} are used" in control.outline()["help"]
    with i18n.using("zh"):
        assert f"最多使用 {intro.MAX_TOKENS} 个" in i18n._(control.help, **dict(control.help_values))
