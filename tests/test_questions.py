"""Check yourself: every lesson has two or three questions, each answer is computed by posviz and agrees with an
independent recomputation, and the runner draws a lesson's questions and reveals the computed answer, in English
and in Chinese (the same numbers in both)."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from posviz import i18n
from posviz.ui.questions import QUESTIONS, lesson_questions, question_key, questions
from testkit.apptest import ROOT, assert_clean, run_page
from testkit.apptest import course as lessons

CASES = [(slug, n, q) for slug, qs in QUESTIONS.items() for n, q in enumerate(qs)]

# the right choice of each question, worked out by hand from the formula (not by posviz)
EXPECTED = {
    ("intro", 0): "are the same rows, shuffled alike",        # attention without positions is equivariant
    ("intro", 1): "4",                                        # 0111 -> 1000
    ("intro", 2): "no",                                       # 3/10 != 3/20
    ("sinusoidal", 0): "6.28 tokens",                         # 2*pi / base**0
    ("sinusoidal", 1): "no, only on the offset",
    ("sinusoidal", 2): "equal",                               # sum cos(k w_i) is even in k
    ("rope", 0): "stays the same",
    ("rope", 1): "changes",
    ("rope", 2): "pair 0",
    ("context_extension", 0): "4",
    ("context_extension", 1): "is unchanged",                 # (b s^(d/(d-2)))^0 = 1
    ("context_extension", 2): "1.14",                         # 0.1 ln 4 + 1 = 1.1386
    ("2d", 0): "the column",
    ("2d", 1): "16",
    ("bias", 0): "1/2",                                       # 2^(-8/8)
    ("bias", 1): "yes",
    ("bias", 2): "falls",
    ("gaussian_kernel_rope", 0): "1",                         # 0.7 + 0.3
    ("gaussian_kernel_rope", 1): "only K(m)·K(n) (absolute)",
    ("cope", 0): "4",                                         # i - j + 1
    ("cope", 1): "grows: it counts future tokens",
    ("long_context", 0): "25,600",                            # (4096 - 1024) * 8 + 1024
    ("long_context", 1): "20",                                # 4 sinks + 16 recent: slots 0..20
    ("real_models", 0): "no row: the table has none",
    ("real_models", 1): "causal",
    ("real_models", 2): "on q and k in every layer",
}


def test_every_lesson_has_two_or_three_questions():
    found = lessons()
    assert set(QUESTIONS) <= {ls.slug for ls in found}
    assert all(2 <= len(lesson_questions(ls)) <= 3 for ls in found)
    assert questions("no_such_lesson") == ()
    assert set(EXPECTED) == {(slug, n) for slug, n, _ in CASES}


@pytest.mark.parametrize(("slug", "n", "q"), CASES, ids=[f"{s}-{n}" for s, n, _ in CASES])
def test_the_computed_answer_is_the_expected_one(slug, n, q):
    right, why = q.solve()
    assert 0 <= right < len(q.choices) and len(set(q.choices)) == len(q.choices)
    assert q.choices[right] == EXPECTED[(slug, n)]
    assert any(ch.isdigit() for ch in why) or "R_m" in why


def test_the_numbers_in_the_explanations_are_the_formulas():
    assert f"{0.1 * math.log(4) + 1:.4f}" in QUESTIONS["context_extension"][2].solve()[1]
    assert f"{2 * math.pi:.4f}" in QUESTIONS["sinusoidal"][0].solve()[1]
    assert f"{(4096 - 1024) * 8 + 1024:,}" in QUESTIONS["long_context"][0].solve()[1]


@pytest.mark.app
def test_a_lesson_page_reveals_the_computed_answer_when_a_choice_is_picked():
    at = run_page("pages/2_Sinusoidal.py")
    assert_clean(at)
    assert any(e.label.startswith("Check yourself: 3 questions") for e in at.expander)
    radio = next(w for w in at.radio if w.key == "_check.sinusoidal.0")
    assert radio.value is None  # predict first: nothing is revealed until a choice is made
    assert not [m for m in at.markdown if "Right." in str(m.value)]
    radio.set_value("6.28 tokens").run()
    assert_clean(at)
    assert [str(m.value) for m in at.markdown if "Right." in str(m.value)] == \
        ["**Right.** λ₀ = 2π/θ₀ = 6.2832 tokens (θ₀ = b⁰ = 1)."]
    assert ROOT.is_dir()


NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]\d+)?")  # 25,600 is one number


@pytest.mark.parametrize(("slug", "n", "q"), CASES, ids=[f"{s}-{n}" for s, n, _ in CASES])
def test_a_question_reads_in_chinese_with_the_same_computed_numbers(slug, n, q):
    right, why = q.solve()
    with i18n.using("zh"):
        prompt, choices = i18n._(q.prompt), [i18n._(c) for c in q.choices]
        right_zh, why_zh = q.solve()
    assert right_zh == right
    assert prompt != q.prompt and re.search("[\u4e00-\u9fff]", prompt), q.prompt
    for english, chinese in zip(q.choices, choices, strict=True):
        if re.search("[a-z]{2}", english):  # words are translated; a choice that is only a number is not
            assert chinese != english and re.search("[\u4e00-\u9fff]", chinese), english
        else:
            assert chinese == english
    assert len(set(choices)) == len(choices)
    assert why_zh != why  # in Chinese words and punctuation (one answer is all formula: its punctuation only)
    assert Counter(NUMBER.findall(why_zh)) == Counter(NUMBER.findall(why)), (why, why_zh)


@pytest.mark.app
def test_a_lesson_page_in_chinese_asks_and_reveals_in_chinese():
    at = run_page("pages/2_Sinusoidal.py", {"lang": "zh"})
    assert_clean(at)
    assert "自测：3 道题（先预测，再揭晓答案）" in [e.label for e in at.expander]
    radio = at.radio(key=question_key("sinusoidal", 0))
    assert radio.label == "1. d_model = 128，基数 10000：维度对 0 的波长约为……"
    assert radio.options == ["6.28 个 token", "10,000 个 token", "62,832 个 token"]
    radio.set_value("10,000 tokens")  # the options keep the declared English; the student reads them translated
    with i18n.using("zh"):  # AppTest formats the picked option in this thread
        at.run()
    assert_clean(at)
    assert "**不太对：正确答案是“6.28 个 token”。** λ₀ = 2π/θ₀ = 6.2832 个 token（θ₀ = b⁰ = 1）。" in \
        [m.value for m in at.markdown]
