"""Every part of every lesson in Chinese (``?lang=zh``), from the course's declarations: it runs clean at its
defaults, and at least 95% of its visible text elements are Chinese; presenter mode too, once per lesson.

A text element is what a student reads as one piece: a title, heading, markdown block, caption, expander, a
control's label, a button, and in every chart its title, axis titles and legend names. Elements with no words to
translate are left out: numbers, math ($...$), code (`...`), identifiers (``rope_theta``) and names (RoPE, Llama).
This is the Chinese run of each part (once, at its defaults); the full matrix of control values runs in English
(tests/test_pages_all.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from testkit.apptest import assert_clean, chart_specs, course, part_cases, run_page

pytestmark = pytest.mark.app

SHARE = 0.95
CASES = part_cases()
IDS = [f"{lesson.slug}-{part.key}" for lesson, part in CASES]
LESSONS = course()

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NOT_WORDS = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|```.*?```|`[^`]*`|<[^>]+>|\]\([^)]*\)|https?://\S+|&#?\w+;",
                        re.DOTALL)
_WORD = re.compile(r"[^\W\d_][\w'’.\-]*")  # a word, Greek letters and subscripts included (jmθ, θ_i)
# names and notation that stay as they are in Chinese writing (methods and models are named by their capitals,
# digits or underscores and need no entry here)
NAMES = frozenset({
    "posviz", "sin", "cos", "tan", "log", "ln", "exp", "max", "min", "mod", "arg", "argmax", "softmax", "sigmoid",
    "px", "ms", "nats", "bits", "Llama", "Qwen", "Mistral", "Gemma", "Phi", "Falcon", "Vaswani", "Shift", "PageUp",
    "PageDown", "Enter", "Python", "NumPy", "PyTorch", "Plotly", "Streamlit", "config.json", "transformers",
    "English", "theta", "alpha", "beta", "gamma", "sigma", "lambda", "pi", "MiB", "MB", "GB", "KB", "rad", "deg",
    # Hugging Face's rope_type values, which name the methods in legends and labels ("PI / linear", "Dynamic NTK")
    "default", "linear", "dynamic", "Dynamic", "yarn", "longrope", "ntk",
})


def is_name(word: str) -> bool:
    """A word that is the same in both languages: notation, a unit, an identifier or a name (RoPE, NTK, T5, GPT-2,
    rope_theta, d_model), a single letter (a variable) or math with Greek letters (jmθ)."""
    word = word.strip("'’.-")
    return (len(word) <= 1 or word in NAMES or any(c.isdigit() or c == "_" or not c.isascii() for c in word)
            or any(c.isupper() for c in word[1:]) or "." in word)


def has_words(text: str) -> bool:
    """Whether ``text`` says something in a language: Chinese characters, or an English word that is no name."""
    if CJK.search(text):
        return True
    return any(not is_name(w) for w in _WORD.findall(_NOT_WORDS.sub(" ", text)))


def chart_texts(spec: dict) -> Iterator[str]:
    """A chart's title, axis titles (every axis of every panel), colour-bar titles and legend names."""
    layout = spec.get("layout", {})

    def title(node: object) -> str | None:
        t = node.get("title") if isinstance(node, dict) else None
        return t.get("text") if isinstance(t, dict) else t if isinstance(t, str) else None

    yield from filter(None, [title(layout)])
    yield from filter(None, (title(v) for k, v in layout.items() if re.fullmatch(r"[xy]axis\d*|coloraxis", k)))
    legend = layout.get("showlegend", True) is not False
    for trace in spec.get("data", []):
        if legend and trace.get("name") and trace.get("showlegend", True) is not False:
            yield str(trace["name"])
        bars = (trace.get("colorbar"), (trace.get("marker") or {}).get("colorbar"))
        yield from filter(None, (title(bar) for bar in bars if bar))


def text_elements(at: object) -> list[str]:
    """Every visible text element of the page (see the module docstring)."""
    texts = [e.value for kind in ("title", "header", "subheader", "markdown", "caption") for e in at.get(kind)]
    texts += [e.label for e in at.get("expander")]
    texts += [w.label for kind in ("slider", "select_slider", "radio", "selectbox", "toggle", "number_input",
                                   "multiselect", "text_input", "text_area", "checkbox", "button")
              for w in at.get(kind)]
    texts += [t for spec in chart_specs(at) for t in chart_texts(spec)]
    return [str(t) for t in texts if t and has_words(str(t))]


def assert_chinese(at: object) -> None:
    texts = text_elements(at)
    english = [t for t in texts if not CJK.search(t)]
    assert texts, "the page shows no text"
    share = 1 - len(english) / len(texts)
    assert share >= SHARE, (f"{share:.0%} of {len(texts)} text elements are Chinese (at least {SHARE:.0%} must be); "
                            f"in English: {[t[:80] for t in english[:12]]}")


@pytest.mark.parametrize(("lesson", "part"), CASES, ids=IDS)
def test_every_part_in_chinese(lesson, part):
    at = run_page(f"pages/{lesson.script.name}", {"lang": "zh", "part": part.key})
    assert_clean(at)
    assert CJK.search(at.header[0].value), at.header[0].value
    assert_chinese(at)


@pytest.mark.parametrize("lesson", LESSONS, ids=[ls.slug for ls in LESSONS])
def test_every_lesson_in_chinese_in_presenter_mode(lesson):
    at = run_page(f"pages/{lesson.script.name}", {"lang": "zh", "present": "true"})
    assert_clean(at)
    assert_chinese(at)


def test_the_element_filter_keeps_words_and_leaves_out_names_and_math():
    assert not has_words("RoPE, NTK-aware, T5, GPT-2, rope_theta, d = 64, $\\theta_i = b^{-2i/d}$, `inv_freq`")
    assert not has_words("1,024 · 2.5e-3 · 45°") and not has_words("Llama 3 · Qwen2")
    assert not has_words("m·θ_0 = 5 rad") and not has_words("e^(jmθ)·q, m = 5") and not has_words("PI / linear")
    assert has_words("head dim d") and has_words("维度对 i") and has_words("the base b")
