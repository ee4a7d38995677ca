"""Check yourself: two or three "predict, then reveal" questions per lesson, keyed by lesson slug.

A lesson may declare its own, ``ui.Lesson(..., questions=(Question(...), ...))``, which then win over the
:data:`QUESTIONS` table (so a new lesson edits no shared file).

Each answer is computed when it is revealed, by the same posviz functions the lesson's figures draw from: a
question's ``solve`` returns the index of the right choice and one sentence with the computed numbers. The lesson
runner draws a lesson's questions under its parts (``draw_questions``); tests/test_questions.py solves them all.
Prompts and choices are marked with ``N_`` and drawn in the student's language (posviz.i18n); the sentence
``solve`` returns is formatted in it, from the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from posviz.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from posviz.ui.course import Lesson


@dataclass(frozen=True)
class Question:
    """A question, its choices, and ``solve() -> (index of the right choice, why, with the computed numbers)``."""

    prompt: str
    choices: tuple[str, ...]
    solve: Callable[[], tuple[int, str]]


def _nearest(value: float, options: tuple[float, ...]) -> int:
    return int(np.argmin([abs(np.log(value / o)) for o in options]))


# --- 1. From integers to sinusoids ------------------------------------------------------------------------------
def _intro_shuffle() -> tuple[int, str]:
    from posviz import intro

    gap = intro.equivariance_gap(positions="none")
    return (1 if gap < 1e-9 else 0), _("max |attn(Πx) − Π attn(x)| = {gap:.1e}: the rows move, their values do "
                                       "not.", gap=gap)


def _intro_binary_flip() -> tuple[int, str]:
    from posviz import intro

    bits, before = 4, 7
    codes = intro.binary_encoding(16, bits)
    flips = int(np.abs(codes[before + 1] - codes[before]).sum())
    return flips - 1, _("{before:0{bits}b} → {after:0{bits}b}: {flips} of {bits} bits flip in one step, the jump a "
                        "smooth code avoids.", before=before, after=before + 1, flips=flips, bits=bits)


def _intro_normalised() -> tuple[int, str]:
    from posviz import intro

    p, short_n, long_n = 3, 10, 20
    short, long_ = intro.normalised_positions(short_n)[p], intro.normalised_positions(long_n)[p]
    return (0 if np.isclose(short, long_) else 1), _("p/N for p = {p}: {short:g} at N = {short_n}, {long:g} at "
                                                     "N = {long_n}.", p=p, short=short, short_n=short_n,
                                                     long=long_, long_n=long_n)


# --- 2. Sinusoidal ----------------------------------------------------------------------------------------------
def _sin_wavelength() -> tuple[int, str]:
    from posviz import rope

    lam = float(rope.wavelengths(128, 10000.0)[0])
    return _nearest(lam, (2 * np.pi, 10000.0, 2 * np.pi * 10000)), _("λ₀ = 2π/θ₀ = {length:.4f} tokens "
                                                                     "(θ₀ = b⁰ = 1).", length=lam)


def _sin_dot_offset() -> tuple[int, str]:
    from posviz import sinusoidal

    pe = sinusoidal.sinusoidal_table(64, 128)
    a, b = float(pe[3] @ pe[8]), float(pe[40] @ pe[45])
    return (0 if np.isclose(a, b) else 1), _("PE(3)·PE(8) = {near:.6f} and PE(40)·PE(45) = {far:.6f}.", near=a,
                                             far=b)


def _sin_symmetric() -> tuple[int, str]:
    from posviz import sinusoidal

    pe = sinusoidal.sinusoidal_table(64, 128)
    plus, minus = float(pe[20] @ pe[25]), float(pe[20] @ pe[15])
    return (0 if np.isclose(plus, minus) else 1), _("k = +5: {plus:.6f}; k = −5: {minus:.6f}: the dot product "
                                                    "cannot tell before from after.", plus=plus, minus=minus)


# --- 3. RoPE ----------------------------------------------------------------------------------------------------
def _rope_qk(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    from posviz import rope

    return rope.sample_qk(64, seed)


def _rope_shift() -> tuple[int, str]:
    from posviz import rope

    q, k = _rope_qk()
    a, b = rope.score(q, k, 7, 3), rope.score(q, k, 107, 103)
    return (1 if np.isclose(a, b) else 0), _("score at (7, 3) = {near:.6f}, at (107, 103) = {far:.6f}: only m − n "
                                             "counts.", near=a, far=b)


def _rope_mirror() -> tuple[int, str]:
    from posviz import rope

    q, k = _rope_qk()
    a, b = rope.score(q, k, 7, 3), rope.score(q, k, 3, 7)
    return (0 if np.isclose(a, b) else 1), _("Δ = +4: {plus:.4f}; Δ = −4: {minus:.4f}: the sine term changes "
                                             "sign.", plus=a, minus=b)


def _rope_fastest() -> tuple[int, str]:
    from posviz import rope

    theta = rope.inv_freq(64, 10000.0)
    i = int(np.argmax(theta))
    return (0 if i == 0 else 2 if i == theta.size - 1 else 1), \
        _("θ_i = b^(−2i/d): pair {pair} has θ = {fastest:g} rad/token, the last pair {slowest:.2e}.", pair=i,
          fastest=theta[i], slowest=theta[-1])


# --- 4. Context extension ---------------------------------------------------------------------------------------
def _ce_linear() -> tuple[int, str]:
    from posviz import scaling

    theta = scaling.default_inv_freq(128, 10000.0)[0]
    lin = scaling.linear_inv_freq(128, 10000.0, 4.0)[0]
    ratio = float(theta[0] / lin[0])
    return _nearest(ratio, (1.0, 2.0, 4.0)), _("θ₀/θ'₀ = {ratio:g}: linear scaling divides every frequency by s.",
                                               ratio=ratio)


def _ce_ntk() -> tuple[int, str]:
    from posviz import scaling

    theta = scaling.default_inv_freq(128, 10000.0)[0]
    ntk = scaling.ntk_inv_freq(128, 10000.0, 4.0)[0]
    r0, r_last = float(theta[0] / ntk[0]), float(theta[-1] / ntk[-1])
    return (0 if np.isclose(r0, 1.0) else 1), _("pair 0 is divided by {first:g}, the slowest pair by {last:.3g}: "
                                                "raising the base never touches θ₀ = 1.", first=r0, last=r_last)


def _ce_yarn_factor() -> tuple[int, str]:
    from posviz import scaling

    a = scaling.yarn_attention_factor(4.0)
    return _nearest(a, (1.0, 1.139, 2.0)), _("A = 0.1 ln 4 + 1 = {factor:.4f}; the logits grow by A² = "
                                             "{squared:.4f}.", factor=a, squared=a * a)


# --- 5. 2D encodings --------------------------------------------------------------------------------------------
def _2d_mae() -> tuple[int, str]:
    from posviz import sinusoidal

    pe = sinusoidal.sinusoidal_2d(4, 4, 16, combine="mae")
    half = pe.shape[-1] // 2
    along_col = float(np.abs(pe[0, 1, :half] - pe[0, 0, :half]).max())  # one step right: the column changes
    along_row = float(np.abs(pe[1, 0, :half] - pe[0, 0, :half]).max())
    return (0 if along_row == 0 and along_col > 0 else 1), \
        _("first half of the channels: a step right changes them by up to {right:.3f}, a step down by {down:g}: "
          "they encode the column.", right=along_col, down=along_row)


def _2d_mrope() -> tuple[int, str]:
    from posviz import mrope, scaling

    axis = scaling.mrope_axis(mrope.MROPE_SECTION)
    n = int((axis == 0).sum())
    return (0 if n == 16 else 1 if n == 24 else 2), _("{temporal} of {pairs} pairs turn with the temporal id.",
                                                      temporal=n, pairs=axis.size)


# --- 6. Distance biases -----------------------------------------------------------------------------------------
def _bias_steepest() -> tuple[int, str]:
    from posviz import bias

    s = bias.alibi_slopes(8)
    return _nearest(float(s.max()), (0.5, 1 / 8, 1 / 256)), _("slopes 2^(−8(h+1)/8): {steepest:g} to "
                                                              "{gentlest:g}.", steepest=s.max(), gentlest=s.min())


def _bias_t5_far() -> tuple[int, str]:
    from posviz import bias

    a, b = (int(bias.t5_bucket(-d, bidirectional=True)) for d in (200, 500))
    return (0 if a == b else 1), _("Δ = 200 → bucket {near}, Δ = 500 → bucket {far}: past max_distance every "
                                   "distance shares the last bucket.", near=a, far=b)


def _bias_nope() -> tuple[int, str]:
    from posviz import realmodels

    c = realmodels.mask_checks(16)
    falls = bool(np.all(np.diff(c.start_weight_causal) < 0))
    return (0 if falls else 1), _("weight on the first token: {first:.3f} at t = 1, {last:.3f} at t = {t}.",
                                  first=c.start_weight_causal[1], last=c.start_weight_causal[-1],
                                  t=c.start_weight_causal.size - 1)


# --- 7. Gaussian-kernel RoPE ------------------------------------------------------------------------------------
def _gauss_zero() -> tuple[int, str]:
    from posviz import gaussian

    k0 = float(gaussian.gaussian_kernel(0.0))
    return _nearest(k0, (0.7, 1.0, 0.3)), _("K(0) = α1 + α2 = {k0:g}.", k0=k0)


def _gauss_shift() -> tuple[int, str]:
    from posviz import gaussian

    shift = 37
    out = gaussian.shift_check(shift=shift)
    moved = [mode for mode, row in out.items() if not np.isclose(row["before"], row["after"])]
    absolute = out["absolute"]
    return (0 if moved == ["absolute"] else 1), \
        _("modes whose logit changes when both positions move by {shift}: {modes} (absolute: {before:.4f} → "
          "{after:.4f}).", shift=shift, modes=_(", ").join(moved) or _("none"), before=absolute["before"],
          after=absolute["after"])


# --- 8. CoPE ----------------------------------------------------------------------------------------------------
def _cope_all_ones() -> tuple[int, str]:
    from posviz import cope

    p = cope.cope_positions(np.full((8, 8), 40.0), causal=True)
    value = float(p[5, 2])
    return int(round(value)) - 3, _("every gate σ(40) ≈ 1: p₅₂ = gates 2..5 summed = {position:g} = i − j + 1.",
                                    position=value)


def _cope_leak() -> tuple[int, str]:
    from posviz import cope

    causal = float(cope.cope_positions(np.full((8, 8), 40.0), causal=True)[2, 0])
    free = float(cope.cope_positions(np.full((8, 8), 40.0), causal=False)[2, 0])
    return (0 if free > causal else 1), _("p₂₀ = {causal:g} with the mask, {free:g} without: the future is "
                                          "counted.", causal=causal, free=free)


# --- 9. Long-context methods ------------------------------------------------------------------------------------
def _long_self_extend() -> tuple[int, str]:
    from posviz import streams

    reach = streams.self_extend_reach(4096, 8, 1024)
    return _nearest(reach, (4096, 8192, 25600)), _("(L − W)·G + W = (4096 − 1024)·8 + 1024 = {reach:,}.",
                                                   reach=reach)


def _long_sinks() -> tuple[int, str]:
    from posviz import streams

    cache = streams.sink_cache(step=1000, n_sink=4, window=16)
    top = int(cache["position"].max())
    return (0 if top == 20 else 1), _("the cache holds 4 sinks + 16 recent keys + the query: positions 0..{top}, "
                                      "not 1000.", top=top)


# --- 10. Position in real models --------------------------------------------------------------------------------
def _real_row() -> tuple[int, str]:
    from posviz import realmodels

    row = realmodels.row_for_position(1500, 1024)
    return (2 if row is None else 0 if row == 1500 else 1), _("a 1024-row table has rows 0..1023; position 1500 "
                                                              "has none.")


def _real_mask() -> tuple[int, str]:
    from posviz import realmodels

    c = realmodels.mask_checks(16)
    causal_counts = bool(np.all(np.diff(c.start_weight_causal) < 0))
    word_queries = c.start_weight_bidirectional[1:]  # every query after the start token is the same word
    flat = bool(np.allclose(word_queries, word_queries[0]))
    return (0 if causal_counts and flat else 1), \
        _("causal: {first:.3f} → {last:.3f}; bidirectional: {flat:.3f} at every t ≥ 1.",
          first=c.start_weight_causal[1], last=c.start_weight_causal[-1], flat=word_queries[0])


def _real_rope_place() -> tuple[int, str]:
    from posviz import realmodels

    where = realmodels.PLACES["rope"].where
    return ("input", "qk", "logits").index(where), _("R_m q and R_n k in every layer; v is never rotated.")


QUESTIONS: dict[str, tuple[Question, ...]] = {
    "intro": (
        Question(N_("No position code: shuffle a sentence's words and run one bidirectional attention layer. The "
                    "output rows…"), (N_("change their values"), N_("are the same rows, shuffled alike"),
                                      N_("all become equal")), _intro_shuffle),
        Question(N_("Binary positions with 4 bits: how many bits flip from 7 to 8?"), ("1", "2", "3", "4"),
                 _intro_binary_flip),
        Question(N_("Normalised positions p/N: does position 3 get the same code in a 10-token and a 20-token "
                    "text?"), (N_("yes"), N_("no")), _intro_normalised),
    ),
    "sinusoidal": (
        Question(N_("d_model = 128, base 10000: the wavelength of pair 0 is about…"),
                 (N_("6.28 tokens"), N_("10,000 tokens"), N_("62,832 tokens")), _sin_wavelength),
        Question(N_("Does PE(p)·PE(p + 5) depend on p?"), (N_("no, only on the offset"), N_("yes")),
                 _sin_dot_offset),
        Question(N_("PE(p)·PE(p + k) against PE(p)·PE(p − k):"), (N_("equal"), N_("different")), _sin_symmetric),
    ),
    "rope": (
        Question(N_("Move a query and a key both 100 positions later. Their RoPE score…"),
                 (N_("changes"), N_("stays the same")), _rope_shift),
        Question(N_("Swap the positions of query and key (Δ → −Δ). The score…"),
                 (N_("stays the same"), N_("changes")), _rope_mirror),
        Question(N_("Which pair turns fastest?"), (N_("pair 0"), N_("a middle pair"), N_("the last pair")),
                 _rope_fastest),
    ),
    "context_extension": (
        Question(N_("Linear scaling (PI) with s = 4: pair 0's frequency is divided by…"), ("1", "2", "4"),
                 _ce_linear),
        Question(N_("NTK-aware scaling with s = 4: pair 0's frequency…"),
                 (N_("is unchanged"), N_("is divided by 4")), _ce_ntk),
        Question(N_("YaRN's attention factor A at s = 4 is about…"), ("1", "1.14", "2"), _ce_yarn_factor),
    ),
    "2d": (
        Question(N_("MAE's 2-D sin-cos: the first half of the channels encodes…"), (N_("the column"), N_("the row")),
                 _2d_mae),
        Question(N_("Qwen2-VL's M-RoPE, head dim 128: how many pairs turn with the temporal id?"),
                 ("16", "24", "64"), _2d_mrope),
    ),
    "bias": (
        Question(N_("ALiBi with 8 heads: the steepest head's slope is…"), ("1/2", "1/8", "1/256"), _bias_steepest),
        Question(N_("T5 buckets (32, max_distance 128): do distances 200 and 500 share a bucket?"),
                 (N_("yes"), N_("no")), _bias_t5_far),
        Question(N_("No position code, causal mask, a start token then one repeated word: the weight on the start "
                    "token as the query moves right…"), (N_("falls"), N_("stays the same")), _bias_nope),
    ),
    "gaussian_kernel_rope": (
        Question(N_("K(0) with α1 = 0.7, α2 = 0.3 is…"), ("0.7", "1", "0.3"), _gauss_zero),
        Question(N_("Shift both positions by the same amount: which way of applying K changes the logit?"),
                 (N_("only K(m)·K(n) (absolute)"), N_("all of them")), _gauss_shift),
    ),
    "cope": (
        Question(N_("Every gate is 1 (count everything), causal: the position of key j = 2 for query i = 5 is…"),
                 ("3", "4", "5"), _cope_all_ones),
        Question(N_("Drop the causal mask on the gates: the position of key 0 for query 2…"),
                 (N_("grows: it counts future tokens"), N_("stays")), _cope_leak),
    ),
    "long_context": (
        Question(N_("Self-Extend with L = 4096, group 8, window 1024 reaches about…"), ("4,096", "8,192", "25,600"),
                 _long_self_extend),
        Question(N_("StreamingLLM with 4 sinks and 16 recent keys at token 1000: the largest RoPE position is…"),
                 ("20", "1000"), _long_sinks),
    ),
    "real_models": (
        Question(N_("A learned table of 1024 rows meets position 1500. It reads…"),
                 (N_("row 1500"), N_("row 1500 mod 1024"), N_("no row: the table has none")), _real_row),
        Question(N_("No position code at all. Which mask still lets a model tell positions apart?"),
                 (N_("causal"), N_("bidirectional")), _real_mask),
        Question(N_("Where does RoPE act?"), (N_("once, added to the input"), N_("on q and k in every layer"),
                                             N_("as a bias on the logits")), _real_rope_place),
    ),
}


def questions(slug: str) -> tuple[Question, ...]:
    """The check-yourself questions of lesson ``slug`` in this module's :data:`QUESTIONS` table (none for a lesson
    without any there)."""
    return QUESTIONS.get(slug, ())


def lesson_questions(lesson: Lesson) -> tuple[Question, ...]:
    """The questions ``lesson`` is drawn with: those its ``ui.Lesson(..., questions=...)`` declares, else the
    table's (:func:`questions`)."""
    return lesson.questions if lesson.questions is not None else questions(lesson.slug)


def question_key(slug: str, n: int) -> str:
    """The widget key of lesson ``slug``'s question ``n`` (0-based): outside the lesson's own keys ``slug.*``, so
    an answer is neither a control of the lesson nor a URL parameter."""
    return f"_check.{slug}.{n}"


def draw_questions(slug: str, items: tuple[Question, ...]) -> None:
    """Draw lesson ``slug``'s questions ``items`` (:func:`lesson_questions`) in a folded box: pick an answer, then
    its computed answer is revealed."""
    import streamlit as st

    if not items:
        return
    with st.expander(ngettext("Check yourself: {n} question (predict, then reveal)",
                              "Check yourself: {n} questions (predict, then reveal)", len(items))):
        for n, q in enumerate(items):
            # the options stay the declared English (the answer is found by it); the student reads them translated
            picked = st.radio(f"{n + 1}. {_(q.prompt)}", q.choices, index=None, key=question_key(slug, n),
                              format_func=_choice)
            if picked is None:
                continue
            right, why = q.solve()
            verdict = _("Right.") if q.choices.index(picked) == right else \
                _("Not quite: the answer is {answer}.", answer=_choice(q.choices[right]))
            st.markdown(f"**{verdict}** {why}")


def _choice(choice: str) -> str:
    """A choice as the student reads it: translated (a choice that is only a number is its own translation)."""
    return _(choice)
