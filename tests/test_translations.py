"""The translation catalogs (posviz/locale/<lang>/LC_MESSAGES/*.po) and what they do to pages and figures.

Quick: each catalog compiles to the .mo beside it (compiled here in memory with Babel and compared message by
message), has no untranslated or fuzzy entry, keeps every placeholder and format spec of its English (plural forms
too); a message is translated one way in all catalogs; every message the sources mark is translated (the
extraction check: ``python scripts/translations.py missing`` lists nothing); no entry uses a translation that
docs/TERMS_ZH.md rejects for a term of its English. Render: every lesson's headline figure exported in Chinese as
PNG and SVG draws Chinese glyphs (no tofu boxes: two different Chinese texts of one length rasterise differently)
in the CJK font the SVG names.
"""

from __future__ import annotations

import gettext
import importlib.util
import io
import re
import string
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo

from posviz import i18n

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = sorted((ROOT / "posviz" / "locale").glob("*/LC_MESSAGES/*.po"))
IDS = [f"{po.parents[1].name}/{po.stem}" for po in CATALOGS]
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _tools() -> object:
    """scripts/translations.py (the catalogs' extract / compile / missing), imported from its path."""
    spec = importlib.util.spec_from_file_location("posviz_translations", ROOT / "scripts" / "translations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOLS = _tools()


def entries(po: Path) -> list[object]:
    """The catalog's messages, its header left out."""
    return [m for m in TOOLS.read(po) if m.id]


def placeholders(text: str) -> set:
    """The ``str.format`` fields of ``text``: (name, format spec, conversion); a translation may use one twice or
    in another order. Text that is not a format string (a message shown without values, with LaTeX braces) gives
    its brace groups instead."""
    try:
        return {(name, spec, conv) for _, name, spec, conv in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return set(re.findall(r"\{[^{}]*\}", text))


@pytest.mark.parametrize("po", CATALOGS, ids=IDS)
def test_each_catalog_compiles_to_the_mo_beside_it(po):
    fresh = io.BytesIO()
    write_mo(fresh, TOOLS.read(po))
    fresh.seek(0)
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo.name} missing: python scripts/translations.py compile"
    with mo.open("rb") as f:
        shipped = gettext.GNUTranslations(f)._catalog
    compiled = gettext.GNUTranslations(fresh)._catalog
    # the header ("" key) is left out: Babel stamps it with the time of compiling
    changed = compiled.keys() ^ shipped.keys() | {k for k in compiled if compiled[k] != shipped.get(k)}
    stale = sorted(str(k) for k in changed - {""})
    assert not stale, f"{mo.name} is out of date (python scripts/translations.py compile): {stale[:5]}"


@pytest.mark.parametrize("po", CATALOGS, ids=IDS)
def test_no_entry_is_untranslated_or_fuzzy(po):
    fuzzy = [m.id for m in entries(po) if m.fuzzy]
    empty = [m.id for m in entries(po) if not (all(m.string) if isinstance(m.string, tuple) else m.string)]
    assert not fuzzy, f"fuzzy entries: {fuzzy[:5]}"
    assert not empty, f"untranslated entries: {empty[:5]}"


@pytest.mark.parametrize("po", CATALOGS, ids=IDS)
def test_placeholders_and_format_specs_match_the_english(po):
    wrong = []
    for m in entries(po):
        if isinstance(m.id, tuple):  # plural: every form has the plural's placeholders (n is always given)
            want = placeholders(m.id[1])
            wrong += [(m.id[1], s) for s in m.string if placeholders(s) != want]
        elif m.string and placeholders(m.string) != placeholders(m.id):
            wrong.append((m.id, m.string))
    assert not wrong, f"placeholders differ from the English: {wrong[:5]}"


def test_a_message_is_translated_one_way_in_every_catalog():
    """At run time every catalog of a language is searched and the first (by file name) that has a message wins, so
    one English message translated two ways would show one lesson the other's words: give it other English."""
    seen: dict[tuple[str, object], tuple[object, str]] = {}
    twice = []
    for po in CATALOGS:
        for m in entries(po):
            key = (po.parents[1].name, m.id)
            if key in seen and seen[key][0] != m.string:
                twice.append((m.id, seen[key], (m.string, po.name)))
            seen.setdefault(key, (m.string, po.name))
    assert not twice, f"one English message, two translations (only the first is ever shown): {twice[:5]}"


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT])
def test_every_marked_message_is_translated(lang):
    missing = TOOLS.missing(lang)
    assert not missing, (f"{len(missing)} marked messages have no {lang} translation "
                         f"(python scripts/translations.py missing): {missing[:8]}")


def terms() -> list[tuple[str, str, list[str]]]:
    """docs/TERMS_ZH.md's table: (English, 中文, rejected translations)."""
    rows = []
    for line in (ROOT / "docs" / "TERMS_ZH.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and cells[0] not in ("English", "---"):
            rows.append((cells[0], cells[1], [r.strip() for r in cells[2].split(",") if r.strip()]))
    return rows


def test_the_terms_table_has_a_rejected_column():
    table = terms()
    assert len(table) >= 40 and all(zh for _, zh, _ in table)
    assert ("base", "基数", ["底数", "基底"]) in table
    assert any(english == "extrapolation" and "延展" in rejected for english, _, rejected in table)


def term_conflicts(message: str, translation: str, table: list[tuple[str, str, list[str]]]) -> list[str]:
    """The rejected translations ``translation`` uses for terms of ``message`` (a rejected word inside the accepted
    one, 桶 in 分桶, counts only outside it)."""
    found = []
    for english, chinese, rejected in table:
        if not re.search(rf"\b{re.escape(english)}(s|es)?\b", message, re.IGNORECASE):
            continue
        for word in rejected:
            text = translation.replace(chinese, "") if word in chinese else translation
            if word in text:
                found.append(f"{english}: {word} (use {chinese})")
    return found


def test_term_conflicts_are_found():
    table = [("base", "基数", ["底数"]), ("heatmap", "热力图", ["热图"]), ("lesson", "课", ["课程"])]
    assert term_conflicts("the base b", "底数 b", table) == ["base: 底数 (use 基数)"]
    assert term_conflicts("two heatmaps", "两张热力图", table) == []
    assert term_conflicts("two heatmaps", "两张热图", table) == ["heatmap: 热图 (use 热力图)"]
    assert term_conflicts("this lesson", "这一课程", table) == ["lesson: 课程 (use 课)"]
    assert term_conflicts("a database", "底数", table) == []


def test_no_catalog_uses_a_rejected_translation_of_a_term():
    table = terms()
    conflicts = []
    for po in CATALOGS:
        for m in entries(po):
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            conflicts += [(po.name, ids[0][:60], c) for s in strings for c in term_conflicts(" ".join(ids), s, table)]
    assert not conflicts, f"a term said two ways: {conflicts[:8]}"


def test_the_kit_speaks_chinese_and_english_stays_the_source():
    from posviz.ui.params import Int, parse_or_default

    control = Int("d", "head dim d", default=64, lo=2, hi=256, step=2)
    with i18n.using("zh"):
        warning = parse_or_default(control, "abc")[1]
        assert i18n._("lesson part") == "小节"
    assert "URL 参数 `d`" in warning and "从 2 到 256、步长为 2 的整数" in warning
    assert parse_or_default(control, "abc")[1] == ("URL parameter `d` had an invalid value and was ignored; using "
                                                   "the default (64). Valid: an integer from 2 to 256 in steps of 2.")


# --- render: the headline figure of every lesson exported in Chinese ---------------------------------------------
def _lessons() -> list[object]:
    from posviz.ui.course import lessons, quiet_outside_a_server

    quiet_outside_a_server()
    return lessons(ROOT / "pages")


def _reversed_chinese(text: str) -> str:
    """``text`` with its Chinese characters in reverse order (same glyphs, same length, other places)."""
    chars = iter(reversed(CJK.findall(text)))
    return CJK.sub(lambda _m: next(chars), text)


@pytest.mark.render
@pytest.mark.parametrize("lesson", _lessons(), ids=lambda ls: ls.slug)
def test_headline_figure_exports_chinese_glyphs(lesson):
    """The headline figure built in Chinese has a Chinese title; its PNG changes when the title's Chinese characters
    are put in another order (tofu boxes all look alike, so a missing font would rasterise both alike), and its SVG
    names the CJK font and holds the Chinese text."""
    from posviz import export
    from posviz.figures import build
    from posviz.theme import CJK_FONT, style
    from testkit.browser import need_browser

    need_browser()
    with i18n.using("zh"):
        fig = style(build(lesson.headline), "light")
    title = fig.layout.title.text or ""
    assert CJK.search(title), f"{lesson.headline}'s title is not Chinese: {title!r}"
    if len(set(CJK.findall(title))) < 2:
        pytest.skip("a title with one distinct Chinese character cannot be reordered")
    opts = export.ExportOptions(width=700, height=420, scale=1.0)
    png = export.render(fig, "png", opts)
    other = type(fig)(fig)  # a copy with the characters reordered
    other.layout.title.text = _reversed_chinese(title)
    assert export.render(other, "png", opts) != png, "Chinese glyphs rasterise alike: is a CJK font installed?"
    svg = export.render(fig, "svg", opts).decode("utf-8")
    assert CJK_FONT in svg
    assert any(ch in svg for ch in CJK.findall(title))
