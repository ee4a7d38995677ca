"""Glossary links: every ``ui.term`` key a page uses is a glossary entry, the links follow the server's base path,
and each part that introduces a symbol links it where it first appears (its prose or caption); in Chinese every
term, its link and its page read in Chinese with the same maths and code."""

from __future__ import annotations

import re

import pytest
from streamlit import config

from posviz import i18n, ui
from posviz.ui.glossary import TERMS, find_term
from testkit.apptest import ROOT, assert_clean, page_at, run_page

TERM_CALL = re.compile(r"""ui\.term(?:_href)?\(\s*(['"])(\w+)\1""")

# (page, part): the glossary keys it links, where the symbol first appears in it
LINKED = {
    ("3_RoPE.py", "clock"): ("pair_index",),
    ("3_RoPE.py", "derive"): ("pair_index", "imaginary_unit"),
    ("3_RoPE.py", "relative"): ("offset",),
    ("3_RoPE.py", "layouts"): ("layout",),
    ("2_Sinusoidal.py", "table"): ("base", "dimensions"),
    ("2_Sinusoidal.py", "waves"): ("wavelength",),
    ("6_Distance_biases.py", "alibi"): ("head_index",),
    ("6_Distance_biases.py", "matrix"): ("pair_index",),
    ("6_Distance_biases.py", "t5"): ("offset",),
    ("6_Distance_biases.py", "nope"): ("causal", "nope"),
    ("8_CoPE.py", "count"): ("pair_index",),
    ("1_From_integers_to_sinusoids.py", "blind"): ("causal", "nope"),
}


def test_every_term_a_page_links_is_in_the_glossary():
    used = {m.group(2) for page in (ROOT / "pages").glob("*.py")
            for m in TERM_CALL.finditer(page.read_text(encoding="utf-8"))}
    assert used >= {k for keys in LINKED.values() for k in keys}  # the regex finds the calls
    known = {t.key for t in TERMS}
    assert used <= known, f"pages link terms the glossary lacks: {sorted(used - known)}"


def test_term_links_point_at_the_glossary_heading():
    assert ui.term_href("pair_index") == "/Glossary#pair-index"
    assert ui.term("offset", "Δ") == "[Δ](/Glossary#offset)"
    assert find_term("head_index").anchor == "head-index"


def test_term_labels_show_no_raw_subscripts():
    assert find_term("wavelength").label == "wavelength λᵢ"
    assert find_term("dimensions").label == "$d$ and $d_{model}$"
    for t in TERMS:
        plain = re.sub(r"\$[^$]*\$", "", t.label)  # markdown maths may use _ and ^; plain text may not
        assert "_" not in plain and "^" not in plain, t.label


@pytest.mark.parametrize("base", ["course", "/deep/course/"])
def test_links_follow_the_servers_base_path(base):
    """Under ``server.baseUrlPath`` a link "/Glossary" would leave the app; glossary and lesson links agree."""
    old = config.get_option("server.baseUrlPath")
    config.set_option("server.baseUrlPath", base)
    try:
        prefix = "/" + base.strip("/")
        assert ui.term_href("offset") == f"{prefix}/Glossary#offset"
        assert ui.term("layout", "layouts") == f"[layouts]({prefix}/Glossary#layout)"
        assert ui.href("rope", part="derive") == f"{prefix}/RoPE?part=derive"
    finally:
        config.set_option("server.baseUrlPath", old)
    assert ui.term_href("offset") == "/Glossary#offset"


@pytest.mark.app
@pytest.mark.parametrize(("page", "part"), list(LINKED), ids=lambda x: str(x).removesuffix(".py"))
def test_part_links_its_symbols_to_the_glossary(page, part):
    at = page_at(f"pages/{page}", part=part)
    assert_clean(at)
    shown = "\n".join(e.value for e in (*at.markdown, *at.caption))
    for key in LINKED[page, part]:
        assert f"](/Glossary#{find_term(key).anchor})" in shown, (page, part, key)


MATHS_AND_CODE = re.compile(r"\$[^$]*\$|`[^`]*`")


def test_every_term_reads_in_chinese_with_the_same_maths_and_code():
    with i18n.using("zh"):
        for t in TERMS:
            for english in (t.label, t.heading, t.text):
                chinese = i18n._(english)
                assert chinese != english or english == "NoPE", english  # a method's name stays English
                assert sorted(MATHS_AND_CODE.findall(chinese)) == sorted(MATHS_AND_CODE.findall(english)), english
        assert ui.term("pair_index") == "[维度对序号 i](/Glossary#pair-index)"
        assert ui.term("offset", "Δ") == "[Δ](/Glossary#offset)"  # the caller's words are the caller's to translate
    assert ui.term("pair_index") == "[pair index i](/Glossary#pair-index)"


@pytest.mark.app
def test_the_glossary_page_in_chinese_keeps_its_anchors():
    at = run_page("pages/99_Glossary.py", {"lang": "zh"})
    assert_clean(at)
    assert at.title[0].value == "术语与记号"
    headings = {h.proto.anchor: h.value for h in at.subheader}
    with i18n.using("zh"):
        assert headings == {**{t.anchor: i18n._(t.heading) for t in TERMS}, "figure": "一张图看懂这些记号"}
    caption = next(c.value for c in at.caption if c.value.startswith("d = 64"))
    assert "维度对 i = 0 的 θ₀ = 1 rad/token，λ₀ = 6.28 个 token" in caption and "λ = 47,117 个 token" in caption
