"""A lesson may declare its own check-yourself questions, ``ui.Lesson(..., questions=...)``: they win over
posviz.ui.questions' table, bad ones are refused, and the runner draws and reveals them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from posviz import i18n, ui
from posviz.ui import course
from posviz.ui.questions import QUESTIONS, Question, lesson_questions, question_key, questions

OWN = (Question("One plus one is…", ("1", "2"), lambda: (1, "1 + 1 = 2.")),
       Question("Two times two is…", ("4", "5"), lambda: (0, "2 × 2 = 4.")))

SCRIPT = '''
import posviz.ui as ui
from posviz.ui.questions import Question

lesson = ui.Lesson("zz_own_questions", "Own questions", icon="❓", order=99, summary="A lesson of the test.",
                   questions=(Question("One plus one is…", ("1", "2"), lambda: (1, "1 + 1 = 2.")),
                              Question("Two times two is…", ("4", "5"), lambda: (0, "2 × 2 = 4."))))


@lesson.part("only", "1. Only")
def only(v):
    ui.prose("The only part.")


lesson.run()
'''


@pytest.fixture
def forget_test_lessons():
    yield
    for slug in ("zz_own_questions", "zz_bad_questions", "zz_no_questions"):
        course._REGISTRY.pop(slug, None)


def test_declared_questions_win_over_the_table(forget_test_lessons):
    own = ui.Lesson("zz_own_questions", "Own questions", icon="❓", order=99, summary="s", questions=OWN)
    assert lesson_questions(own) == OWN
    assert lesson_questions(ui.Lesson("zz_no_questions", "No questions", icon="❓", order=99, summary="s")) == ()
    assert questions("zz_no_questions") == ()
    declared_none = SimpleNamespace(slug="rope", questions=None)  # as the RoPE page declares it
    assert lesson_questions(declared_none) == QUESTIONS["rope"]  # a lesson that declares none keeps the table's


@pytest.mark.parametrize("bad", [[OWN[0]], (OWN[0], "What is 2?"), ("prompt",)])
def test_questions_must_be_a_tuple_of_questions(bad, forget_test_lessons):
    with pytest.raises(ValueError, match="zz_bad_questions.*questions must be a tuple"):
        ui.Lesson("zz_bad_questions", "Bad", icon="❓", order=99, summary="s", questions=bad)


@pytest.mark.app
def test_the_runner_draws_and_reveals_the_declared_questions(forget_test_lessons):
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    assert not at.exception
    assert "Check yourself: 2 questions (predict, then reveal)" in [e.label for e in at.expander]
    keys = [r.key for r in at.radio]
    assert keys == ["zz_own_questions.part", question_key("zz_own_questions", 0), question_key("zz_own_questions", 1)]
    at.radio(key=question_key("zz_own_questions", 0)).set_value("2").run()
    assert "**Right.** 1 + 1 = 2." in [m.value for m in at.markdown]
    at.radio(key=question_key("zz_own_questions", 1)).set_value("5").run()
    assert "**Not quite: the answer is 4.** 2 × 2 = 4." in [m.value for m in at.markdown]


@pytest.mark.app
def test_declared_questions_without_a_translation_are_drawn_as_declared_in_chinese(forget_test_lessons):
    at = AppTest.from_string(SCRIPT, default_timeout=60)
    at.query_params["lang"] = "zh"
    at.run()
    assert not at.exception
    assert "自测：2 道题（先预测，再揭晓答案）" in [e.label for e in at.expander]
    radio = at.radio(key=question_key("zz_own_questions", 0))
    assert (radio.label, radio.options) == ("1. One plus one is…", ["1", "2"])
    with i18n.using("zh"):  # AppTest formats every radio's value in this thread
        radio.set_value("2").run()
    assert "**答对了。** 1 + 1 = 2." in [m.value for m in at.markdown]
