"""The course as the lessons declare it: every page is a lesson, the home page and README list every lesson,
and the kit's declarations (parts, uses, bounds, aliases, links) fail loudly when they are wrong."""

from __future__ import annotations

import json
import re

import pytest

from posviz import ui
from posviz.ui import course
from posviz.ui.params import Choice, Float, Int, parse_or_default, values_for
from testkit.apptest import ROOT, assert_clean, chart_specs, run_page

LESSONS = ui.lessons(ROOT / "pages")


def test_every_page_declares_a_lesson_with_parts():
    reference = ui.reference_pages(ROOT / "pages")
    assert [p.name for p in reference] == ["99_Glossary.py"]  # the one page that is not a lesson
    pages = [p for p in sorted((ROOT / "pages").glob("*.py")) if p not in reference]
    declared = {ls.script for ls in LESSONS if ls.parts}
    missing = [p.name for p in pages if p.resolve() not in declared]
    assert not missing, f"pages that do not declare a ui.Lesson with parts: {missing}"


def test_a_page_that_is_neither_a_lesson_nor_a_plain_page_is_refused(tmp_path):
    (tmp_path / "1_Stray.py").write_text("import streamlit as st\nst.write('hi')\n", encoding="utf-8")
    with pytest.raises(ValueError, match="1_Stray.py declares no ui.Lesson and is no ui.plain_page"):
        ui.lessons(tmp_path)
    (tmp_path / "1_Stray.py").write_text("from posviz import ui\nui.plain_page('x', print)\n", encoding="utf-8")
    assert ui.lessons(tmp_path) == [] and ui.reference_pages(tmp_path) == [tmp_path / "1_Stray.py"]


def test_lessons_are_in_course_order_and_slugs_are_unique():
    numbers = [int(ls.script.stem.split("_")[0]) for ls in LESSONS]
    assert numbers == sorted(numbers)
    assert [ls.order for ls in LESSONS] == sorted(ls.order for ls in LESSONS)
    assert len({ls.slug for ls in LESSONS}) == len(LESSONS)
    titles = [ls.title for ls in LESSONS]
    # the course builds: integers -> sinusoidal -> RoPE -> context extension -> 2D -> ... -> CoPE
    assert titles.index("Sinusoidal") < titles.index("RoPE") < titles.index("Context extension") \
        < titles.index("2D encodings") < titles.index("CoPE")


@pytest.mark.app
def test_home_page_lists_every_lesson_in_order():
    at = run_page("Home.py")
    assert_clean(at)
    links = [link.proto.page for link in at.main.get("page_link")]
    names = [re.sub(r"^\d+_", "", p.split("/")[-1].removesuffix(".py")) for p in links]
    assert names == ["Glossary"] + [ls.url_path for ls in LESSONS]
    captions = [c.value for c in at.caption]
    assert all(ls.summary in captions for ls in LESSONS)
    labels = [link.proto.label for link in at.main.get("page_link")][1:]
    assert labels == [f"**{n}. {ls.title}**" for n, ls in enumerate(LESSONS, start=1)]
    sidebar = [link.proto.label for link in at.sidebar.get("page_link")]
    assert sidebar == ["Home", *(ls.title for ls in LESSONS), "Glossary and notation"]  # the pages, in course order
    steps = "\n".join(m.value for m in at.markdown)
    assert "before it: nothing (start here)" in steps and "nothing: start" not in steps


@pytest.mark.app
def test_home_page_in_chinese_draws_the_path_in_chinese():
    from posviz.ui import path

    at = run_page("Home.py", {"lang": "zh"})
    assert_clean(at)
    assert at.title[0].value == "posviz：Transformer 如何编码位置"
    core, total = path.total_minutes(LESSONS, optional=False), path.total_minutes(LESSONS)
    steps = "\n".join(m.value for m in at.markdown)
    assert f"共 {len(LESSONS)} 课，核心课约需 {core} 分钟（加上选修案例共 {total} 分钟）" in steps
    assert "先学：无（从这里开始）" in steps and "**选修案例（可学可跳过）** · 约 " in steps
    assert [h.value for h in at.header] == ["学习路径", "导出与分享"]
    assert [link.proto.label for link in at.main.get("page_link")][0] == "**术语与记号**"
    sidebar = [link.proto.label for link in at.sidebar.get("page_link")]
    assert sidebar == ["首页", *(_zh(ls.title) for ls in LESSONS), "术语与记号"]


def test_readme_table_is_built_from_the_declarations():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert course.readme_with_table(readme, LESSONS) == readme, "run `python -m posviz.ui` to rewrite the table"
    for ls in LESSONS:
        assert f"(pages/{ls.script.name})" in readme


def _lesson(**kwargs) -> ui.Lesson:
    defaults = dict(icon="x", order=99, summary="s", script=ROOT / "pages" / "99_Test.py")
    return ui.Lesson("test_lesson", "Test", **{**defaults, **kwargs})


def test_a_part_using_an_undeclared_control_fails_at_declaration():
    lesson = _lesson(controls=(Int("d", "d", default=4, lo=2, hi=8),))
    with pytest.raises(ValueError, match="'e'"):
        lesson.part("a", "A", uses=("d", "e"))


def test_a_bound_must_name_an_earlier_control():
    with pytest.raises(ValueError, match="'H'"):
        _lesson(controls=(Int("head", "h", default=0, lo=0, hi="H", hi_max=64), Int("H", "H", default=8, lo=1, hi=64)))


def test_part_keys_and_aliases_are_unique():
    lesson = _lesson()
    lesson.part("a", "A", aliases=("old",))(lambda v: None)
    with pytest.raises(ValueError, match="'old'"):
        lesson.part("b", "B", aliases=("old",))


def test_values_apply_bounds_that_depend_on_other_controls():
    lesson = _lesson(controls=(
        Int("H", "heads", default=8, lo=1, hi=64),
        Int("head", "head", default=5, lo=0, hi=lambda v: v["H"] - 1, hi_max=63),
        Float("x", "x", default=2.0, lo=0.0, hi="H", hi_max=64.0),
    ))
    def asked(raw):
        return lambda control, resolved: raw.get(control.name, control.default)

    assert values_for(lesson.controls, asked({"H": 4, "head": 9, "x": 7.5})) == {"H": 4, "head": 3, "x": 4.0}
    assert values_for(lesson.controls, asked({"H": 64, "head": 9, "x": 7.5})) == {"H": 64, "head": 9, "x": 7.5}
    assert values_for(lesson.controls, asked({})) == {"H": 8, "head": 5, "x": 2.0}
    # a part's own controls are bounded by the lesson's values
    own = (Int("k", "k", default=6, lo=0, hi="H", hi_max=64),)
    assert values_for(own, asked({}), earlier={"H": 4}) == {"k": 4}
    resolved = lesson.controls[1].resolve({"H": 4})
    assert (resolved.lo, resolved.hi) == (0, 3)


def test_a_dynamic_bound_reads_the_url_up_to_hi_max_and_names_it():
    head = Int("head", "head", default=0, lo=0, hi="H", hi_max=63)
    assert parse_or_default(head, "63") == (63, None)
    value, warning = parse_or_default(head, "64")
    assert value == 0 and "`head`" in warning and "at most 63" in warning


def test_an_int_bound_keeps_the_step():
    d_pairs = Int("k", "k", default=0, lo=0, hi=lambda v: v["d"] - 1, hi_max=99, step=2)
    assert d_pairs.resolve({"d": 8}).hi == 6


def test_part_aliases_keep_old_links():
    part = Choice("part", "part", default="a", options={"a": "A", "b": "B"}, aliases={"old_b": "b"})
    assert parse_or_default(part, "old_b") == ("b", None)
    assert parse_or_default(part, "nope")[1] is not None


def test_links_name_a_real_lesson_and_part():
    rope = next(ls for ls in LESSONS if ls.slug == "rope")
    first = next(iter(rope.parts))
    assert ui.href("rope", ROOT / "pages", part=first) == f"/{rope.url_path}?part={first}"
    with pytest.raises(ValueError, match="no part 'nonsense'"):
        ui.href("rope", ROOT / "pages", part="nonsense")
    with pytest.raises(ValueError, match="no lesson with slug 'nonsense'"):
        ui.href("nonsense", ROOT / "pages")


def test_reading_an_unused_control_in_a_part_says_which_declaration_to_fix():
    from posviz.ui.page import _PartValues

    part = course.Part("p", "P", lambda v: None, uses=("d",))
    values = _PartValues({"d": 4, "base": 10.0}, part)
    assert values.d == 4
    with pytest.raises(AttributeError, match="part 'p' reads control 'base'"):
        _ = values.base


@pytest.mark.app
def test_home_in_presenter_mode_folds_its_intro_under_its_own_name():
    at = run_page("Home.py", query={"present": "1"})
    assert_clean(at)
    assert [e.label for e in at.expander][:1] == ["About posviz"]  # the home page is not a lesson


def _screen_data(at) -> dict:
    """The data the page handed its screen component (presenter mode only)."""
    found = []

    def walk(node: object) -> None:
        for child in getattr(node, "children", {}).values():
            if getattr(child, "type", None) == "bidi_component" and child.proto.component_name == "posviz_screen":
                found.append(json.loads(json.loads(child.proto.json)))
            walk(child)

    walk(at._tree)
    return found[0] if found else {}


@pytest.mark.app
@pytest.mark.parametrize(("asked", "used", "size"), [(None, 1.5, 21), (1.25, 1.25, 18), (1.0, 1.0, 14), (1, 1.0, 14),
                                                     (7.0, 1.5, 21), ("x", 1.5, 21)])
def test_presenter_mode_draws_figures_at_the_scale_the_window_fits(asked, used, size):
    """Presenter mode's figures are drawn at ×1.5 until the screen component (screen.js) has measured the lesson's
    column; then at the scale it asked for, one of 1, 1.25 and 1.5 (the figure's base font is 14 px); anything else
    it might send is ignored. The component is told the scale used, so it asks only when that one does not fit."""
    at = run_page("pages/2_Sinusoidal.py", query={"present": "1"})
    if asked is not None:
        at.session_state["_posviz.screen"] = {"scale": asked}
        at.run()
    assert_clean(at)
    assert [spec["layout"]["font"]["size"] for spec in chart_specs(at)] == [size]
    assert _screen_data(at) == {"chart": 820, "steps": 4, "max": 1.5, "used": used,  # and the part's step buttons
                                "next": ".st-key-sinusoidal-part-next button",
                                "previous": ".st-key-sinusoidal-part-previous button"}


@pytest.mark.app
def test_without_presenter_mode_there_is_no_screen_component():
    at = run_page("pages/2_Sinusoidal.py")
    assert _screen_data(at) == {}
    assert [spec["layout"].get("font") for spec in chart_specs(at)] == [None]  # the template's 14 px


def _main_order(at) -> list[str]:
    """The main area's charts ("chart") and number rows ("numbers": a markdown table) in page order."""
    order = []

    def walk(node: object) -> None:
        for child in getattr(node, "children", {}).values():
            kind = getattr(child, "type", None)
            if kind in ("plotly_chart", "bidi_component") and getattr(child.proto, "component_name", "posviz_live") \
                    == "posviz_live":
                order.append("chart")
            elif kind == "markdown" and str(child.value).startswith("| "):
                order.append("numbers")
            walk(child)

    walk(at.main)
    return order


@pytest.mark.app
@pytest.mark.parametrize(("query", "order", "chooser", "offset_in"),
                         [({}, ["numbers", "numbers", "chart"], "radio", "main"),
                          ({"present": "1"}, ["chart", "numbers", "numbers"], "selectbox", "sidebar")])
def test_presenter_mode_puts_the_figure_first(query, order, chooser, offset_in):
    """On a 1280×800 projector the part's figure must start near the top of the screen: in presenter mode the part
    chooser is a one-line select, a part's own controls join the others in the sidebar, and the numbers a part
    shows before its figure come just after it. Without presenter mode the page keeps its reading order."""
    at = run_page("pages/3_RoPE.py", query={"part": "leftright", **query})
    assert_clean(at)
    assert _main_order(at) == order
    assert [w.value for w in getattr(at, chooser) if w.key == "rope.part"] == ["leftright"]
    other = "radio" if chooser == "selectbox" else "selectbox"
    assert [w.key for w in getattr(at, other) if w.key == "rope.part"] == []
    area = at.sidebar if offset_in == "sidebar" else at.main
    assert [s.value for s in area.slider if s.key == "rope.lr_max"] == [64]
    rest = at.main if offset_in == "sidebar" else at.sidebar
    assert [s.key for s in rest.slider if s.key == "rope.lr_max"] == []


@pytest.mark.app
def test_presenter_mode_keeps_numbers_of_a_part_without_a_figure():
    """Numbers held for a figure that never comes are still drawn, at the end of the part."""
    from streamlit.testing.v1 import AppTest

    def page() -> None:
        from posviz import ui

        lesson = ui.Lesson("held_numbers", "Held numbers", icon="🧪", order=99, summary="a test page")

        @lesson.part("only", "Only numbers")
        def only(v: ui.Values) -> None:
            ui.numbers({"answer": 42})

        lesson.run()

    at = AppTest.from_function(page)
    at.query_params["present"] = "1"
    at.run()
    assert_clean(at)
    assert _main_order(at) == ["numbers"]
    assert any("**42**" in str(m.value) for m in at.markdown)


def test_a_part_declares_its_own_controls_and_their_bounds_are_checked():
    lesson = _lesson(controls=(Int("d", "d", default=4, lo=2, hi=8),))
    lesson.part("a", "A", controls=(Int("m", "m", default=0, lo=0, hi="d", hi_max=8),))(lambda v: None)
    assert [c.name for c in lesson.parts["a"].controls] == ["m"]
    with pytest.raises(ValueError, match="bounded by 'x'"):
        lesson.part("b", "B", controls=(Int("m2", "m", default=0, lo=0, hi="x", hi_max=8),))
    with pytest.raises(ValueError, match="'d' is taken"):
        lesson.part("c", "C", controls=(Int("d", "d", default=4, lo=2, hi=8),))
    with pytest.raises(ValueError, match="declared differently"):
        lesson.part("e", "E", controls=(Int("m", "m", default=1, lo=0, hi=8),))
    lesson.part("f", "F", controls=(Int("m", "m", default=0, lo=0, hi="d", hi_max=8),))  # the same control: one URL key
    with pytest.raises(ValueError, match="does not declare in controls="):
        lesson.parts["a"].control("zz")


def test_the_outline_lists_every_lesson_part_and_control_as_declared():
    from posviz import cli as command

    out = course.outline(LESSONS)
    assert [ls["slug"] for ls in out["lessons"]] == [ls.slug for ls in LESSONS]
    for data, ls in zip(out["lessons"], LESSONS):
        assert data["page"] == f"pages/{ls.script.name}" and data["order"] == ls.order and data["title"] == ls.title
        assert [c["name"] for c in data["controls"]] == list(ls.control_names)
        assert [p["key"] for p in data["parts"]] == list(ls.parts)
        for pdata, part in zip(data["parts"], ls.parts.values()):
            assert [c["name"] for c in pdata["controls"]] == [c.name for c in part.controls]
            assert pdata["uses"] == list(part.uses)
    sinusoidal = next(ls for ls in out["lessons"] if ls["slug"] == "sinusoidal")
    assert sinusoidal["controls"][1] == {"name": "d", "kind": "int", "label": "model dimension d_model",
                                         "help": "Even: the dimensions come in (sin, cos) pairs.", "default": 128,
                                         "lo": 4, "hi": 1024, "step": 2}
    waves = next(p for p in sinusoidal["parts"] if p["key"] == "waves")
    dim_a = waves["controls"][0]
    assert dim_a["hi"] == {"computed_from_other_controls": True} and dim_a["hi_max"] == 1023
    text = course.outline_text(LESSONS)
    assert all(f"[part={key}]" in text for ls in LESSONS for key in ls.parts)
    assert command.main(["lessons", "--bogus"]) == 2


def test_posviz_lessons_json_is_the_outline(capsys):
    from posviz import cli as command

    assert command.main(["lessons", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(course.outline(LESSONS)))
    assert sum(len(p["controls"]) for ls in printed["lessons"] for p in (ls, *ls["parts"])) >= 150


def test_each_lesson_names_a_registered_headline_figure_that_the_readme_gallery_shows():
    from posviz.figures import FIGURES

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for ls in LESSONS:
        assert ls.headline in FIGURES, (ls.slug, ls.headline)
        assert f"(docs/gallery/{ls.script.stem.lower()}.png)" in readme, ls.slug
        assert (ROOT / "docs" / "gallery" / f"{ls.script.stem.lower()}.png").is_file()


# --- the learning path, its thumbnails, the glossary ---------------------------------------------------------
def test_the_path_has_every_lesson_with_what_it_needs_before_it():
    from posviz.ui import path

    steps = path.steps(LESSONS)
    assert [ls.slug for _, ls, _ in steps] == [ls.slug for ls in LESSONS]
    assert set(path.PATH) <= {ls.slug for ls in LESSONS}, "a row of posviz.ui.path.PATH names no lesson"
    optional = [ls.slug for _, ls, s in steps if s.optional]
    assert optional == ["gaussian_kernel_rope"]
    assert steps[0][2].needs == () and all(s.needs for _, _, s in steps[1:])
    assert path.total_minutes(LESSONS) - path.total_minutes(LESSONS, optional=False) == \
        path.PATH["gaussian_kernel_rope"].minutes
    lesson = _lesson(needs=("test_lesson",))
    with pytest.raises(ValueError, match="comes after it"):
        path.steps([lesson])
    assert path.step(_lesson(minutes=7)).minutes == 7  # a lesson's own declaration wins over the table


def _plain(values: object) -> object:
    """Plotted values as plain lists, whether a figure holds them as arrays or as plotly's base64 typed arrays."""
    import base64

    import numpy as np

    if values is None or isinstance(values, str):
        return values
    if isinstance(values, dict) and "bdata" in values:
        flat = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        shape = values.get("shape")
        return flat.reshape([int(n) for n in str(shape).split(",")] if shape else flat.shape).tolist()
    return np.asarray(values).tolist()


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda ls: ls.slug)
def test_a_thumbnail_is_the_headline_figure_drawn_by_its_own_code(lesson):
    from posviz.figures import build
    from posviz.theme import style
    from posviz.ui import path

    thumb, full = path.thumbnail(lesson.headline), style(build(lesson.headline))
    assert len(thumb.data) == len(full.data)
    for small, big in zip(thumb.data, full.data, strict=True):  # the same numbers, drawn smaller
        assert small.type == big.type
        for axis in ("x", "y", "z"):
            a, b = (json.dumps(_plain(t[axis]) if axis in t else None) for t in (small, big))  # NaN == NaN here
            assert a == b, (lesson.slug, axis)
    assert thumb.layout.height == path.THUMBNAIL_HEIGHT and not thumb.layout.annotations and not thumb.frames


def test_a_thumbnail_not_yet_built_is_built_in_the_background_and_text_meanwhile(monkeypatch):
    from posviz.ui import path

    started = []
    monkeypatch.setattr(path, "_BUILT", {})
    monkeypatch.setattr(path, "_PENDING", set())
    monkeypatch.setattr(path._WORKER, "submit", lambda fn, *args: started.append(args))
    assert path.thumbnail_if_ready("sinusoidal_heatmap") is None
    assert path.thumbnail_if_ready("sinusoidal_heatmap") is None and started == [("sinusoidal_heatmap", "light")]
    path._build_in_background("no_such_figure", "light")  # a failure leaves text on the page, not a traceback
    assert path.thumbnail_if_ready("no_such_figure") is None
    path._build_in_background("sinusoidal_heatmap", "light")
    assert path.thumbnail_if_ready("sinusoidal_heatmap").layout.height == path.THUMBNAIL_HEIGHT


@pytest.mark.app
def test_home_shows_each_lessons_thumbnail_once_built():
    from posviz.ui import path

    for ls in LESSONS:
        path.thumbnail(ls.headline)  # what the background worker does on a first visit
    at = run_page("Home.py")
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == len(LESSONS)
    for spec, ls in zip(specs, LESSONS, strict=True):
        assert spec["layout"]["height"] == path.THUMBNAIL_HEIGHT
        assert len(spec["data"]) == len(path.thumbnail(ls.headline).data)


def test_glossary_links_name_real_terms():
    from posviz.ui import glossary

    assert ui.term("pair_index") == "[pair index i](/Glossary#pair-index)"
    assert ui.term("offset", "Δ") == "[Δ](/Glossary#offset)"
    with pytest.raises(ValueError, match="no glossary term 'nonsense'"):
        ui.term("nonsense")
    page = next(p for p in ui.reference_pages(ROOT / "pages") if p.stem.endswith("_Glossary"))
    assert re.sub(r"^\d+_", "", page.stem) == glossary.GLOSSARY_PATH
    assert len({t.anchor for t in glossary.TERMS}) == len(glossary.TERMS)


@pytest.mark.app
def test_the_glossary_page_has_a_heading_per_term_at_its_anchor():
    from posviz.ui import glossary

    at = run_page("pages/99_Glossary.py")
    assert_clean(at)
    headings = {h.proto.anchor: h.value for h in at.subheader}
    for t in glossary.TERMS:
        assert headings.get(t.anchor) == t.heading
    assert len(chart_specs(at)) == 1


def test_a_link_names_the_lesson_and_part_it_opens():
    rope = next(ls for ls in LESSONS if ls.slug == "rope")
    key, part = next(iter(rope.parts.items()))
    expected = f"[{rope.title}: {part.label}](/{rope.url_path}?part={key})"
    assert ui.link("rope", key, pages_dir=ROOT / "pages") == expected
    assert ui.link("rope", text="RoPE", pages_dir=ROOT / "pages") == f"[RoPE](/{rope.url_path})"
    with pytest.raises(ValueError, match="no part 'nonsense'"):
        ui.link("rope", "nonsense", pages_dir=ROOT / "pages")


def _zh(text: str) -> str:
    from posviz import i18n

    with i18n.using("zh"):
        return i18n._(text)
