"""A new lesson is new files: docs/CONTRIBUTING.md's "Adding a lesson, end to end" followed literally.

In a copy of the repository (the files a clone would have, committed to a fresh git repository) the walk-through
adds a one-part, one-slider, one-figure lesson between Distance biases and Gaussian-kernel RoPE: its math module and
test, its figures module and test, its page and AppTest, its Chinese catalog (compiled), ``python -m posviz.ui`` for
the README's generated table and gallery, and its gallery image. Then: git sees only the new files and those two
generated README lines; the course and Streamlit's sidebar both put the lesson in its place; the page renders its
figure under AppTest; ``posviz export --list`` lists the figure; and the discovery-driven tests (the public API
contract, every part of every lesson, the course checks, the questions, the Chinese checks) run on it without an
edit, restricted to it with ``-k``.

Marked ``package``: like the wheel test it works on a copy of the whole checkout, from outside (about 30 s on a
quiet 2-core machine; the gallery image needs a Chromium).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from testkit.browser import need_browser
from tests.test_package import source_files

pytestmark = pytest.mark.package

ROOT = Path(__file__).resolve().parents[1]
SLUG, PAGE, FIGURE = "recency", "pages/6_Recency_weights.py", "recency_weights"
GALLERY = "docs/gallery/6_recency_weights.png"
GALLERY_LINE = f"![Recency weights]({GALLERY})"
CATALOG = "posviz/locale/zh/LC_MESSAGES/recency.po"
BEFORE, AFTER = "bias", "gaussian_kernel_rope"  # the lessons it goes between

# The lesson, file by file, as a newcomer writes it from docs/CONTRIBUTING.md.
LESSON_FILES = {
    "posviz/recency.py": '''\
"""Recency weights: the share of attention a key k tokens back keeps when each step back multiplies it by the same
factor, w(k) = exp(-rate * k): the exponential of ALiBi's linear distance bias -m k with m = rate (Press et al.
2022, "Train Short, Test Long")."""

from __future__ import annotations

import numpy as np

from posviz._validate import check_float, check_int

MAX_DISTANCE = 4096
MAX_RATE = 10.0


def recency_weights(max_distance: int = 32, rate: float = 0.25) -> np.ndarray:
    """w(k) = exp(-rate * k) for k = 0 ... max_distance, shape (max_distance + 1,): ALiBi's bias -m k with
    m = rate, exponentiated (Press et al. 2022)."""
    max_distance = check_int("max_distance", max_distance, 1, MAX_DISTANCE)
    rate = check_float("rate", rate, 0.0, MAX_RATE)
    return np.exp(-rate * np.arange(max_distance + 1, dtype=np.float64))
''',
    "tests/test_recency_math.py": '''\
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from posviz import recency


def test_weights_match_a_loop_over_distances():
    got = recency.recency_weights(5, 0.5)
    assert got.tolist() == pytest.approx([math.exp(-0.5 * k) for k in range(6)], rel=1e-12)


@given(st.integers(1, 200), st.floats(0.0, 10.0))
def test_each_step_back_multiplies_by_the_same_factor(n, rate):
    w = recency.recency_weights(n, rate)
    assert w[0] == 1.0 and w[1:] == pytest.approx(w[:-1] * math.exp(-rate), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize(("args", "name"), [((0, 0.5), "max_distance"), ((5, -1.0), "rate"), ((5, math.nan), "rate")])
def test_bad_input_names_the_parameter(args, name):
    with pytest.raises(ValueError, match=name):
        recency.recency_weights(*args)
''',
    "posviz/figures/recency.py": '''\
"""Figures of the recency lesson: the weight a query keeps of a key k tokens back. Numbers from posviz.recency."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import recency
from posviz.figures._common import f32
from posviz.figures._registry import figure
from posviz.i18n import _

__all__ = ["recency_curve"]


@figure("recency_weights")
def recency_curve(*, max_distance: int = 32, rate: float = 0.25) -> go.Figure:
    """The weight exp(-rate k) a query keeps of the key k tokens back, for k = 0 ... max_distance."""
    w = recency.recency_weights(max_distance, rate)
    fig = go.Figure(go.Scatter(x=f32(np.arange(w.size)), y=f32(w), mode="lines+markers", name="w(k)"))
    fig.update_layout(title=_("Recency weights at rate {rate:g}", rate=rate),
                      xaxis_title=_("distance k (tokens back)"), yaxis_title=_("weight w(k)"), showlegend=False)
    return fig
''',
    "tests/test_recency_figures.py": '''\
import numpy as np

from posviz.figures.recency import recency_curve


def test_the_curve_plots_the_weights():
    trace = recency_curve(max_distance=8, rate=0.5).data[0]
    np.testing.assert_allclose(trace.y, np.exp(-0.5 * np.arange(9)), rtol=1e-6)
    assert list(trace.x) == list(range(9))
''',
    PAGE: '''\
"""Recency weights: how fast a distance bias forgets, as the weight exp(-rate k) a query keeps of a key k back."""

import math

from posviz import recency, ui
from posviz.figures.recency import recency_curve
from posviz.i18n import N_, _
from posviz.ui.questions import Question


def _third_key() -> tuple[int, str]:
    w = recency.recency_weights(3, math.log(2))[3]
    return (0 if abs(w - 1 / 8) < 1e-12 else 1), f"exp(-3 ln 2) = {w:.3f}"


def _doubled_rate() -> tuple[int, str]:
    once, twice = recency.recency_weights(1, 0.3)[1], recency.recency_weights(1, 0.6)[1]
    return (1 if abs(twice - once**2) < 1e-12 else 0), _("{once:.3f} squared is {twice:.3f}", once=once, twice=twice)


lesson = ui.Lesson(
    "recency", N_("Recency weights"), icon="⏳", order=6.5, headline="recency_weights",
    summary=N_("The weight a query keeps of a key k tokens back when each step back costs the same factor."),
    intro=N_("Drag the rate and watch how far back attention still reaches."),
    needs=("bias",), minutes=5,
    questions=(Question(N_("At rate ln 2, what weight does the key 3 tokens back keep?"), ("1/8", "1/3"),
                        _third_key),
               Question(N_("Doubling the rate does what to the weight one token back?"),
                        (N_("halves it"), N_("squares it")), _doubled_rate)),
    controls=(ui.Float("rate", N_("rate"), default=0.25, lo=0.0, hi=2.0, step=0.05),),
)


@lesson.part("curve", N_("1. The weight curve"), uses=("rate",))
def curve(v: ui.Values) -> None:
    w = recency.recency_weights(32, v.rate)
    ui.figure_panel(recency_curve, dict(rate=v.rate), key="curve", latex=r"w(k) = e^{-\\lambda k}",
                    caption=_("At rate {rate:g} the key 10 tokens back keeps {kept:.3f} of the newest key's weight.",
                              rate=v.rate, kept=w[10]),
                    code=[recency.recency_weights])


lesson.run()
''',
    CATALOG: '''\
# Simplified Chinese translation of the lesson "Recency weights" (domain recency).
msgid ""
msgstr ""
"Language: zh_Hans\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=1; plural=0;\\n"

msgid "Recency weights"
msgstr "近因权重"

msgid "The weight a query keeps of a key k tokens back when each step back costs the same factor."
msgstr "每往回一步都乘上同一个因子时，查询对往回 k 个 token 的键还保留多少权重。"

msgid "Drag the rate and watch how far back attention still reaches."
msgstr "拖动衰减率，看注意力还能往回看多远。"

msgid "At rate ln 2, what weight does the key 3 tokens back keep?"
msgstr "衰减率为 ln 2 时，往回 3 个 token 的键保留多少权重？"

msgid "Doubling the rate does what to the weight one token back?"
msgstr "衰减率翻倍，往回 1 个 token 的权重会怎样？"

msgid "halves it"
msgstr "减半"

msgid "squares it"
msgstr "变成原来的平方"

msgid "{once:.3f} squared is {twice:.3f}"
msgstr "{once:.3f} 的平方是 {twice:.3f}"

msgid "rate"
msgstr "衰减率"

msgid "1. The weight curve"
msgstr "1. 权重曲线"

msgid "At rate {rate:g} the key 10 tokens back keeps {kept:.3f} of the newest key's weight."
msgstr "衰减率为 {rate:g} 时，往回 10 个 token 的键保留最新那个键权重的 {kept:.3f}。"

msgid "Recency weights at rate {rate:g}"
msgstr "衰减率 {rate:g} 下的近因权重"

msgid "distance k (tokens back)"
msgstr "距离 k（往回的 token 数）"

msgid "weight w(k)"
msgstr "权重 w(k)"
''',
    "tests/test_page_recency.py": '''\
import math

import pytest

from testkit.apptest import assert_clean, chart_specs, page_at

pytestmark = pytest.mark.app


def test_the_caption_reads_the_weight_at_the_slider():
    at = page_at("pages/6_Recency_weights.py", rate="0.5")
    assert_clean(at)
    assert f"keeps {math.exp(-5.0):.3f} of" in " ".join(c.value for c in at.caption)
    (spec,) = chart_specs(at)
    assert spec["layout"]["title"]["text"] == "Recency weights at rate 0.5"
''',
}


def _run(cmd: list[str], cwd: Path, timeout: float = 240) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    output = f"{done.stdout[-4000:]}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"{' '.join(cmd)} exited {done.returncode}:\n{output}"
    return done.stdout


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's files committed to a fresh git repository, then the lesson added as the walk-through says."""
    need_browser()  # the gallery image is a PNG export (kaleido drives chromium)
    dest = tmp_path_factory.mktemp("checkout")
    for name in source_files():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    git = ["git", "-c", "user.name=posviz", "-c", "user.email=posviz@localhost", "-c", "commit.gpgsign=false"]
    _run(git + ["init", "-q"], dest)
    _run(git + ["add", "-A"], dest)
    _run(git + ["commit", "-q", "-m", "the course"], dest)
    for name, text in LESSON_FILES.items():
        (dest / name).write_text(text, encoding="utf-8")
    _run([sys.executable, "scripts/translations.py", "compile"], dest)  # step 6: the catalog's .mo beside its .po
    _run([sys.executable, "-m", "posviz.ui"], dest)  # step 4: the README's table and gallery, regenerated
    # step 5: docs/gallery/make.sh's command for the new lesson alone (the others' images are already there)
    _run([sys.executable, "-m", "posviz", "export", FIGURE, "--width", "1200", "--height", "675", "-o", GALLERY], dest)
    return dest


def test_git_sees_new_files_and_two_readme_lines_only(copy):
    status = _run(["git", "status", "--porcelain", "--untracked-files=all"], copy).splitlines()
    made = [*LESSON_FILES, GALLERY, CATALOG.replace(".po", ".mo")]
    assert sorted(status) == sorted([" M README.md", *(f"?? {name}" for name in made)])
    diff = _run(["git", "diff", "-U0", "README.md"], copy)
    changed = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == [f"+| [⏳ Recency weights]({PAGE}) | The weight a query keeps of a key k tokens back when each "
                       "step back costs the same factor. |", f"+{GALLERY_LINE}"]


def test_the_new_files_pass_the_linter(copy):
    sources = [name for name in LESSON_FILES if name.endswith(".py")]
    assert "All checks passed" in _run([sys.executable, "-m", "ruff", "check", *sources], copy)


def test_the_course_and_the_sidebar_put_the_lesson_between_its_neighbours(copy):
    lessons = json.loads(_run([sys.executable, "-m", "posviz", "lessons", "--json"], copy))["lessons"]
    slugs = [ls["slug"] for ls in lessons]
    assert slugs[slugs.index(BEFORE) + 1:slugs.index(BEFORE) + 3] == [SLUG, AFTER]
    # Streamlit's own navigation order for a pages/ folder (what the sidebar lists)
    sidebar = _run([sys.executable, "-c", "import pathlib, streamlit.source_util as s; print(*sorted(pathlib.Path("
                    "'pages').glob('*.py'), key=s.page_sort_key))"], copy).split()
    after = [Path(p).name for p in sidebar[[Path(p).name for p in sidebar].index("6_Distance_biases.py") + 1:]]
    assert after[:2] == ["6_Recency_weights.py", "7_Gaussian_kernel_RoPE.py"]


def test_the_figure_is_listed_for_export(copy):
    listed = _run([sys.executable, "-m", "posviz", "export", "--list"], copy)
    assert re.search(rf"^{FIGURE}\b.*$", listed, re.MULTILINE), listed[:2000]
    out = copy / "w.json"
    _run([sys.executable, "-m", "posviz", "export", FIGURE, "--rate", "0.5", "-o", str(out)], copy)
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported["figure"] == FIGURE and exported["params"] == {"rate": 0.5}
    assert exported["traces"][0]["y"][:3] == pytest.approx([1.0, math.exp(-0.5), math.exp(-1.0)], rel=1e-6)


def test_its_own_tests_and_the_discovery_driven_tests_run_on_it(copy):
    """The lesson's three tests, and the tests that find modules and lessons by themselves, restricted to it."""
    files = ["tests/test_recency_math.py", "tests/test_recency_figures.py", "tests/test_page_recency.py",
             "tests/test_fuzz_public.py", "tests/test_pages_all.py", "tests/test_course.py", "tests/test_questions.py",
             "tests/test_chinese_pages.py", "tests/test_translations.py"]
    selection = ("recency or readme_table or readme_gallery or course_order or home_page_lists_every_lesson "
                 "or two_or_three_questions or every_page_declares or what_it_needs_before_it "
                 "or every_marked_message or one_way_in_every_catalog")
    out = _run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "quick or app", "-v", "-k", selection,
                *files], copy, timeout=400)
    passed = set(re.findall(r"^(tests/\S+) PASSED", out, re.MULTILINE))
    assert not re.search(r"^tests/\S+ (FAILED|ERROR|SKIPPED)", out, re.MULTILINE), out[-4000:]
    expected = {
        "tests/test_page_recency.py::test_the_caption_reads_the_weight_at_the_slider",
        "tests/test_fuzz_public.py::test_every_function_has_a_valid_call[recency.recency_weights]",
        "tests/test_fuzz_public.py::test_hostile_input_keeps_the_contract[recency.recency_weights]",
        "tests/test_pages_all.py::test_part_runs_clean_with_every_control_at_an_extreme[recency-curve-all-min]",
        "tests/test_pages_all.py::test_part_runs_clean_with_every_control_at_an_extreme[recency-curve-all-max]",
        "tests/test_pages_all.py::test_hostile_query_values_warn_and_fall_back[recency-curve]",
        f"tests/test_pages_all.py::test_page_runs_clean_at_defaults[{PAGE}]",
        "tests/test_course.py::test_readme_table_is_built_from_the_declarations",
        "tests/test_course.py::test_lessons_are_in_course_order_and_slugs_are_unique",
        "tests/test_course.py::test_each_lesson_names_a_registered_headline_figure_that_the_readme_gallery_shows",
        "tests/test_course.py::test_home_page_lists_every_lesson_in_order",
        "tests/test_questions.py::test_every_lesson_has_two_or_three_questions",
        "tests/test_course.py::test_the_path_has_every_lesson_with_what_it_needs_before_it",
        "tests/test_chinese_pages.py::test_every_part_in_chinese[recency-curve]",
        "tests/test_chinese_pages.py::test_every_lesson_in_chinese_in_presenter_mode[recency]",
        "tests/test_translations.py::test_each_catalog_compiles_to_the_mo_beside_it[zh/recency]",
        "tests/test_translations.py::test_no_entry_is_untranslated_or_fuzzy[zh/recency]",
        "tests/test_translations.py::test_placeholders_and_format_specs_match_the_english[zh/recency]",
        "tests/test_translations.py::test_every_marked_message_is_translated[zh]",
        "tests/test_translations.py::test_a_message_is_translated_one_way_in_every_catalog",
    }
    assert expected <= passed, sorted(expected - passed)
