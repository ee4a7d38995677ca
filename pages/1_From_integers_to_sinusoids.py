"""Lesson 1: why attention needs positions, and how integer, binary and sinusoidal codes compare.

After C. Fleetwood, "You could have designed state of the art positional encoding" (docs/SOURCES.md). Every
number is computed by posviz.intro on small seeded arrays; no torch, no download.
"""

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import streamlit as st

from posviz import intro, ui
from posviz import sinusoidal as sn
from posviz.figures.intro import (
    SMOOTH_DOTS_MOST,
    averaged_columns,
    intro_attention,
    intro_binary,
    intro_binary_vs_sinusoid,
    intro_integer_ranges,
    intro_normalised,
    intro_shuffle,
    intro_trajectory,
    intro_wavelength_limit,
)
from posviz.i18n import N_, _, ngettext

# ---------------------------------------------------------------------------------------------------
# the five properties (Fleetwood): the table of part 6

SCHEMES = ("integer", "normalised", "binary", "sinusoidal", "RoPE")
SCHEME_TITLES = {"integer": N_("integer p"), "normalised": N_("normalised p/N"), "binary": N_("binary bits"),
                 "sinusoidal": N_("sinusoidal"), "RoPE": "RoPE"}


@dataclass(frozen=True)
class Property:
    """One property of a good position code, how each scheme fares on it, and where the course shows it."""

    name: str
    question: str
    cells: dict[str, tuple[str, str]]       # scheme -> (verdict "yes" / "no" / "partly", one-line reason)
    links: tuple[tuple[str, str, str], ...]  # (lesson slug, part, link label) of the lessons that show it


PROPERTIES: tuple[Property, ...] = (
    Property(
        N_("Unique code per position, whatever the length"),
        N_("Does position 5 get the same code, distinct from every other position, in a sequence of 10 "
           "and of 10,000?"),
        {
            "integer": ("yes", N_("p is p in any sequence")),
            "normalised": ("no", N_("p/N changes with N: position 5 is 0.5 when N = 10, 0.05 when N = 100")),
            "binary": ("partly", N_("fixed bits per position, but n bits repeat after 2^n positions")),
            "sinusoidal": ("yes", N_("fixed for any length; pair 0 never repeats (wavelength 2π is irrational)")),
            "RoPE": ("yes", N_("the same rotation angles m·θ_i as the sinusoids, whatever the length")),
        },
        (("sinusoidal", "waves", N_("Sinusoidal: the table and its wavelengths")),),
    ),
    Property(
        N_("Linear relation between positions"),
        N_("Is there one fixed map taking the code of p to the code of p + k, the same for every p?"),
        {
            "integer": ("yes", N_("add k to every component (but the values grow without bound)")),
            "normalised": ("partly", N_("add k/N, a step that depends on the sequence length")),
            "binary": ("no", N_("carries: p + 1 flips a different number of bits at every p")),
            "sinusoidal": ("yes", N_("a block rotation M_k, independent of p")),
            "RoPE": ("yes", N_("q·k after rotation depends only on the offset m − n")),
        },
        (("sinusoidal", "shift", N_("Sinusoidal: the shift matrix M_k")),
         ("rope", "relative", N_("RoPE: scores that depend only on m − n"))),
    ),
    Property(
        N_("Generalises to longer sequences"),
        N_("Are positions beyond the training length still sensible, in-range codes?"),
        {
            "integer": ("no", N_("unseen, ever larger values swamp the embedding")),
            "normalised": ("no", N_("a longer N rescales every position the model learnt")),
            "binary": ("partly", N_("new bit patterns appear, and n bits wrap after 2^n")),
            "sinusoidal": ("partly", N_("values stay in [−1, 1], but slow pairs reach unseen angles")),
            "RoPE": ("partly", N_("relative by design, yet long offsets reach unseen angles")),
        },
        (("rope", "tables", N_("RoPE: angles per pair")),
         ("context_extension", "pairs", N_("Context extension: stretching the angles"))),
    ),
    Property(
        N_("A deterministic rule"),
        N_("Is the code computed by a fixed formula a model can learn to read, rather than learnt?"),
        {
            "integer": ("yes", N_("the identity p → p")),
            "normalised": ("yes", N_("p → p/N (given N)")),
            "binary": ("yes", N_("the bits of p")),
            "sinusoidal": ("yes", N_("sin and cos of p·ω_i with ω_i = base^(−2i/d)")),
            "RoPE": ("yes", N_("rotate pair i by m·θ_i with θ_i = base^(−2i/d)")),
        },
        (("sinusoidal", "table", N_("Sinusoidal: the formula")),),
    ),
    Property(
        N_("Extends to n dimensions"),
        N_("Can the same idea encode a position (row, column) on an image, or more axes?"),
        {
            "integer": ("partly", N_("one number per axis, with the same swamping")),
            "normalised": ("partly", N_("one p/N per axis, with the same length dependence")),
            "binary": ("partly", N_("concatenate the bits of each axis")),
            "sinusoidal": ("yes", N_("give each axis its share of the channels (MAE's 2-D table)")),
            "RoPE": ("yes", N_("rotate some pairs by the row and others by the column (axial 2-D RoPE)")),
        },
        (("2d", "grid", N_("2-D encodings: images and grids")),),
    ),
)


def property_rows() -> list[dict[str, str]]:
    """The five-properties table as rows of plain strings: property, then ``"verdict: reason"`` per scheme."""
    rows = []
    for prop in PROPERTIES:
        row = {_("property"): _(prop.name)}
        for scheme in SCHEMES:
            verdict, reason = prop.cells[scheme]
            row[_(SCHEME_TITLES[scheme])] = _(_CELL[verdict], reason=_(reason))
        rows.append(row)
    return rows


# a table cell: the verdict as a mark and a word (the word is what a screen reader and the tests read)
_CELL = {"yes": N_("✅ yes: {reason}"), "no": N_("❌ no: {reason}"), "partly": N_("⚠️ partly: {reason}")}


lesson = ui.Lesson(
    "intro", N_("From integers to sinusoids"), icon="🔢", order=1, headline="intro_binary_vs_sinusoid",
    summary=N_("Why attention needs positions: one seeded bidirectional self-attention layer gives the two copies "
               "of a repeated word identical outputs until sinusoidal PE is added (a causal mask alone tells them "
               "apart), and shuffling the words just moves the outputs. "
               "Then integer, p/N and binary codes each fail (swamping, length dependence, jumps), sines and "
               "cosines arrive as smooth binary, and five schemes are compared on the five properties of a good "
               "encoding."),
    intro=N_("Bidirectional self-attention (every word attends to every word, as in an encoder) cannot tell the "
             "first word of a sentence from the last on its own; a decoder's causal mask gives some of the order "
             "away. This lesson shows both with a real (tiny) attention layer, then tries the obvious fixes one by "
             "one, integers, fractions, binary, until we arrive at the sines and cosines of the original "
             "Transformer."),
    controls=(
        ui.Text("text", N_("sentence (words only; punctuation is ignored)"), default=intro.DEFAULT_TEXT,
                max_chars=200, help=N_("Edit it: any words, up to {most} are used."),
                help_values=(("most", intro.MAX_TOKENS),)),
        ui.Int("d", N_("embedding size d"), default=16, lo=4, hi=intro.MAX_DIM, step=2,
               help=N_("Width of each word vector and of the attention layer. Even, so sinusoidal PE fits.")),
        ui.Int("seed", N_("seed (embedding table and W_q, W_k, W_v)"), default=0, lo=0, hi=99),
        ui.Int("P", N_("positions shown"), default=64, lo=8, hi=intro.MAX_POSITIONS),
        ui.Int("bits", N_("bits n"), default=6, lo=2, hi=intro.MAX_BITS),
        ui.Int("j", N_("bit j for the close-ups"), default=2, lo=0, hi=lambda v: v["bits"] - 1,
               hi_max=intro.MAX_BITS - 1),
    ),
)


@ui.cached
def attention_run(text: str, d: int, seed: int, positions: str, shuffle: int = 0,
                  causal: bool = False) -> intro.AttentionDemo:
    return intro.attention_demo(text, d, seed, positions, shuffle, causal=causal)


def part_link(slug: str, part: str) -> str:
    """A markdown link to a part of another lesson, its text read from that lesson's declarations."""
    address = ui.href(slug, part=part)  # a ValueError naming the lesson's parts if ``part`` is not one of them
    lesson = ui.find(slug)
    return _("[{lesson}, part {part}]({address})", lesson=_(lesson.title), part=_(lesson.parts[part].label),
             address=address)


@ui.cached
def swamp_numbers(text: str, length: int, d: int, seed: int) -> tuple[float, float]:
    emb = intro.repeated_sentence(text, length, d, seed)[1]
    ratio = intro.norm_ratio(intro.integer_encoding(length, d), emb)
    return float(abs(emb).mean()), float(ratio[-1])


@ui.cached
def binary_code_numbers(n: int, bits: int) -> dict[str, object]:
    """What part 4 checks on the binary code alone: each bit's measured flip period, the distinct codes."""
    codes = intro.binary_encoding(n, bits)
    return {"periods": intro.measured_flip_periods(codes).tolist(), "distinct": intro.distinct_codes(codes)}


@ui.cached
def binary_numbers(n: int, bits: int, d: int) -> dict[str, object]:
    codes = intro.binary_encoding(n, bits)
    smooth = intro.smooth_bits(n, bits)
    return {
        **binary_code_numbers(n, bits),
        "round_trip": bool(((smooth > 0.5) == (codes == 1)).all()),
        "steps_binary": intro.step_lengths(codes) if n > 1 else None,
        "steps_sin": intro.step_lengths(intro.position_codes("sinusoidal", n, d)) if n > 1 else None,
        "residual": {
            _("binary bits"): intro.linear_shift_residual(codes) if n > 2 else 0.0,
            _("smooth bits (cos only)"): intro.linear_shift_residual(smooth) if n > 2 else 0.0,
            _("sin + cos per bit wavelength"): (intro.linear_shift_residual(intro.bit_pairs(n, bits))
                                               if n > 2 else 0.0),
            _("Vaswani sinusoids, d = {d}", d=d): (
                intro.linear_shift_residual(intro.position_codes("sinusoidal", n, d)) if n > 2 else 0.0),
        },
    }


@ui.cached
def repeat_numbers(d: int) -> tuple[int, float, float, float]:
    k, dist, step = intro.closest_repeat(intro.MAX_OFFSET, d)
    return k, dist, step, float(sn.wavelengths(d)[-1])


def number_table(columns: dict[str, np.ndarray]) -> None:
    """A few computed columns as a plain markdown table, one row per channel (cheaper to redraw than
    st.dataframe's grid, which cost about 50 ms of every slider move)."""
    names = list(columns)
    rows = ["| " + _("channel") + " | " + " | ".join(names) + " |", "|---:|" + "---:|" * len(names)]
    rows += [f"| {c} | " + " | ".join(f"{columns[n][c]:.6f}" for n in names) + " |"
             for c in range(len(columns[names[0]]))]
    st.markdown("\n".join(rows))


def used_sentence(raw: str) -> str:
    """The sentence the layer reads: the example one if ``raw`` has no words; says so when words are dropped."""
    n_words = intro.count_words(raw)
    if n_words == 0:
        st.info(_("The sentence has no words (letters or digits), so the example sentence is used instead."))
        return intro.DEFAULT_TEXT
    if n_words > intro.MAX_TOKENS:
        st.info(_("The sentence has {words} words; only the first {kept} are used, to keep the figures readable.",
                  words=n_words, kept=intro.MAX_TOKENS))
    return raw


@lesson.part("blind", N_("1. Blind to word order"), uses=("text", "d", "seed"),
             title=N_("1. Attention is blind to word order"))
def part_blind(v: ui.Values) -> None:
    causal_term = ui.term("causal", _("**causal**"))
    ui.prose(_(
        "Take a sentence in which one word appears twice. Each word becomes a vector (a row of a small, "
        "seeded embedding table: the same word always gets the same row). One self-attention layer then mixes "
        "the rows: every output is a weighted average of value vectors, with weights from query·key scores. "
        "In a **bidirectional** layer (no mask: every word attends to every word, as in BERT's encoder) nothing "
        "in that recipe looks at **where** a row sits, so two copies of the same word must come out identical, "
        "even though in the sentence they are different things. A {causal} layer (GPT's decoder) masks the "
        "words after each query: the two copies then average different sets of words, and the mask alone gives "
        "some position away.", causal=causal_term
    ))
    text = used_sentence(v.text)
    plain = attention_run(text, v.d, v.seed, "none")
    with_pe = attention_run(text, v.d, v.seed, "sinusoidal")
    causal = attention_run(text, v.d, v.seed, "none", causal=True)
    st.markdown(_("**The tokens the layer sees** (slot: word, lower-cased; edit the sentence in the sidebar):"))
    ui.say("   ".join(f"{t}: {w}" for t, w in enumerate(plain.tokens)))

    pair = intro.repeated_pair(plain.tokens)
    gaps = tuple(intro.row_gap(demo.out, *pair) for demo in (plain, with_pe, causal)) if pair else None
    ui.figure_panel(
        intro_attention, dict(text=text, d_model=v.d, seed=v.seed), key="attention",
        live={"d": "d_model", "seed": "seed"},
        caption=blind_caption(gaps, max(float(abs(demo.out).max()) for demo in (plain, with_pe, causal))),
        latex=r"\mathrm{Attn}(X) = \mathrm{softmax}\!\Big(\tfrac{(XW_q)(XW_k)^\top}{\sqrt d} + M\Big)\,XW_v,"
              r"\quad X = \text{embeddings}\ (+\ PE),\quad M_{ij} = \begin{cases}0 & \text{no mask, or } j \le i"
              r"\\ -\infty & \text{causal and } j > i\end{cases}",
        code=[intro.attention_demo, intro.self_attention, intro.token_embeddings, sn.sinusoidal_table],
    )
    if pair is None:
        st.info(_("No word occurs twice in this sentence. Repeat one (for example end it with its first word) "
                  "to see two identical outputs."))
        return
    i, j = pair
    gap, gap_pe, gap_causal = gaps
    st.markdown(_("**The two outputs of the repeated word** (slots {first} and {second}), first 6 of {channels} "
                  "channels:", first=i, second=j, channels=v.d))
    number_table({_("slot {slot}, no positions", slot=i): plain.out[i, :6],
                  _("slot {slot}, no positions", slot=j): plain.out[j, :6],
                  _("slot {slot}, with PE", slot=i): with_pe.out[i, :6],
                  _("slot {slot}, with PE", slot=j): with_pe.out[j, :6],
                  _("slot {slot}, causal", slot=i): causal.out[i, :6],
                  _("slot {slot}, causal", slot=j): causal.out[j, :6]})
    ui.check(_("Without positions, np.allclose(output[{first}], output[{second}])", first=i, second=j), gap <= 1e-12,
             _("max |difference| over {channels} channels = {gap:.1e}", channels=v.d, gap=gap))
    ui.check(_("With sinusoidal PE, output[{first}] and output[{second}] differ", first=i, second=j), gap_pe > 1e-6,
             _("max |difference| = {gap:.3g}", gap=gap_pe))
    ui.check(_("With a causal mask and no positions, output[{first}] and output[{second}] differ", first=i,
               second=j), gap_causal > 1e-6,
             _("max |difference| = {gap:.3g}", gap=gap_causal))
    ui.prose(_("Causal language models trained with no position encoding at all ({nope}) read positions off the "
               "mask: {link}.", nope=ui.term("nope", "NoPE"), link=part_link("bias", "nope")))


def blind_caption(gaps: tuple[float, float, float] | None, scale: float) -> str:
    """Part 1's caption, with the gaps between the repeated word's two output rows when there is one."""
    if gaps is None:
        return _("What to notice: on the left the layer with no mask and no positions; in the middle the same layer "
                 "after each slot's sinusoidal code was added to its embedding; on the right no positions but a "
                 "causal mask. No word occurs twice in this sentence, so there are no two copies to compare.")
    gap, gap_pe, gap_causal = gaps
    without = (_("none without positions (a blank row)") if gap <= 1e-12
               else _("up to {gap:.3g} without positions", gap=gap))
    than = (_("more than PE made them differ.") if gap_causal > gap_pe
            else _("less than PE made them differ."))
    return _("What to notice: the strip on top is the difference between the two copies of the repeated word's "
             "output rows, on its own colour scale: {without}, up to {gap_pe:.3g} in one channel once each slot's "
             "sinusoidal code is added to its embedding. Below, the outlined rows themselves: on the left (no mask, "
             "no positions) the same colours channel for channel; in the middle (+ PE) they look alike too, because "
             "{gap_pe:.3g} is small on the outputs' colour scale of ±{scale:.2g} (the table below gives the "
             "numbers). On the right the layer has no positions but a causal mask: the rows differ by up to "
             "{gap_causal:.3g}, {than}", without=without, gap_pe=gap_pe, scale=scale, gap_causal=gap_causal,
             than=than)


@lesson.part("shuffle", N_("1b. Shuffle the words"), uses=("text", "d", "seed"),
             controls=(
                 ui.Int("shuffle", N_("shuffle seed s (0 = original order)"), default=1, lo=0, hi=50),
             ))
def part_shuffle(v: ui.Values) -> None:
    ui.prose(_(
        "A stronger statement about the bidirectional layer: reorder the words and the outputs are reordered "
        "the same way, each word's output unchanged (it is *permutation-equivariant*: for a permutation matrix "
        "Π, attn(Π·x) = Π·attn(x)). With positions added by slot, a word that moves gets a new code and a new "
        "output."
    ))
    sh = ui.controls(where="main")
    text = used_sentence(v.text)
    shuffled = attention_run(text, v.d, v.seed, "none", sh.shuffle)
    st.markdown(_("**Shuffled sentence:**"))
    ui.say(" ".join(shuffled.tokens))
    ui.figure_panel(
        intro_shuffle, dict(text=text, d_model=v.d, seed=v.seed, shuffle=sh.shuffle), key="shuffle",
        live={"shuffle": "shuffle", "d": "d_model", "seed": "seed"},
        caption=_("What to notice: in the top row, each row on the right (labelled with the slot it came from) is a "
                  "row of the left panel moved to a new place, colours unchanged. In the bottom row, with "
                  "sinusoidal PE by slot, the moved words get different outputs."),
        latex=r"\mathrm{Attn}(\Pi X) = \Pi\,\mathrm{Attn}(X)\ \text{ for every permutation matrix } \Pi",
        code=[intro.shuffle_order, intro.equivariance_gap],
    )
    if list(shuffled.order) == list(range(len(shuffled.order))):
        st.info(_("This shuffle seed keeps the original order; pick another seed to move the words."))
        return
    eq_gap = intro.equivariance_gap(text, v.d, v.seed, "none", sh.shuffle)
    eq_gap_pe = intro.equivariance_gap(text, v.d, v.seed, "sinusoidal", sh.shuffle)
    ui.check(_("Without positions, attn(shuffled words) = shuffled attn(words)"), eq_gap <= 1e-12,
             _("max |difference| = {gap:.1e}", gap=eq_gap))
    ui.check(_("With sinusoidal PE, shuffling changes the outputs themselves"), eq_gap_pe > 1e-6,
             _("max |attn(Π·x + PE) − Π·attn(x + PE)| = {gap:.3g}", gap=eq_gap_pe))


@lesson.part("integers", N_("2. Integers"), uses=("text", "d", "seed"),
             title=N_("2. First try: add the integer position"),
             controls=(
                 ui.Int("L", N_("sequence length L (tokens)"), default=512, lo=8, hi=intro.MAX_POSITIONS),
             ))
def part_integers(v: ui.Values) -> None:
    ui.prose(_(
        "The simplest fix: add the position p to every component of the word's vector. Word vectors, like "
        "those of real models, are small numbers around 0. Positions are not: by the end of a sequence of L "
        "tokens they reach L − 1, and the word drowns."
    ))
    ln = ui.controls(where="main")
    mean_abs, ratio = swamp_numbers(used_sentence(v.text), ln.L, v.d, v.seed)
    text = used_sentence(v.text)
    ui.figure_panel(
        intro_integer_ranges, dict(text=text, n_positions=ln.L, d_model=v.d, seed=v.seed), key="integer",
        live={"L": "n_positions", "d": "d_model", "seed": "seed"},
        caption=_("What to notice: each band spans the smallest to the largest channel of one slot's vector (the "
                  "sentence repeated to fill L slots). The word alone is a thin stripe near 0 (mean |entry| "
                  "{mean_abs:.2g}); adding p carries it up to {last}, while the sinusoidal band stays within ±1 "
                  "of the word's own band.", mean_abs=mean_abs, last=ln.L - 1),
        latex=r"x_p = e_{w_p} + p\cdot\mathbf 1",
        code=[intro.integer_encoding, intro.repeated_sentence],
    )
    ui.numbers({_("mean |embedding entry|"): mean_abs, _("position added at the last slot"): ln.L - 1,
                _("‖position‖ / ‖embedding‖ at the last slot"): ratio}, fmt="{:.3g}")


@lesson.part("normalised", N_("3. p / N"), title=N_("3. Second try: normalise, p / N"),
             controls=(
                 ui.Int("N1", N_("short length N₁"), default=10, lo=2, hi=1000),
                 ui.Int("N2", N_("long length N₂"), default=100, lo=2, hi=1000),
                 ui.Int("pos", N_("position p (< both lengths)"), default=5, lo=0,
                        hi=lambda v: min(v["N1"], v["N2"]) - 1, hi_max=999),
             ))
def part_normalised(v: ui.Values) -> None:
    ui.prose(_(
        "Divide by the sequence length N and every code stays between 0 and 1. But now the code of a position "
        "depends on how long the sequence is: position 5 of a 10-word sentence and position 5 of a 100-word "
        "document get different codes, so what the model learnt about one does not carry over."
    ))
    nm = ui.controls(where="main", columns=3)
    pos = nm.pos
    ui.figure_panel(
        intro_normalised, dict(short=nm.N1, long=nm.N2, position=pos), key="normalised",
        live={"N1": ui.Sets(intro.normalised_settings, which="short", other=nm.N2, position=pos),
              "N2": ui.Sets(intro.normalised_settings, which="long", other=nm.N1, position=pos), "pos": "position"},
        caption=_("What to notice: the two lines have different slopes, so the dotted position meets them at two "
                  "different heights. Only when N₁ = N₂ do the codes agree."),
        latex=r"\mathrm{code}(p) = p / N",
        code=[intro.normalised_positions],
    )
    c1, c2 = intro.normalised_positions(nm.N1)[pos], intro.normalised_positions(nm.N2)[pos]
    ui.check(_("Property 1 for p/N: position {pos} has the same code when N = {short} and N = {long}", pos=pos,
               short=nm.N1, long=nm.N2), c1 == c2,
             f"{pos}/{nm.N1} = {c1:.4g}, {pos}/{nm.N2} = {c2:.4g}")


@lesson.part("binary", N_("4. Binary"), uses=("P", "bits"), title=N_("4. Third try: binary"))
def part_binary(v: ui.Values) -> None:
    ui.prose(_(
        "Write p in binary and use one bit per dimension: every value is 0 or 1 and a position's code no "
        "longer depends on the length. The lowest bit alternates every token, the next every 2 tokens, bit j "
        "every 2^j tokens: a ladder of ever slower square waves."
    ))
    ui.figure_panel(
        intro_binary, dict(n_positions=v.P, n_bits=v.bits), key="binary",
        live={"P": "n_positions", "bits": "n_bits"},
        caption=_("What to notice: the bottom row (least significant bit) flips at every token, each row above "
                  "flips half as often, and the top row (most significant bit) flips every 2^(n−1) tokens. With "
                  "more positions than 2^n the whole pattern starts again: codes are no longer unique.")
                + averaged_columns(v.P),
        latex=r"b_j(p) = \lfloor p / 2^j \rfloor \bmod 2",
        code=[intro.binary_encoding],
    )
    nums = binary_code_numbers(v.P, v.bits)
    expected = [intro.flip_period(k) if intro.flip_period(k) < v.P else 0 for k in range(v.bits)]
    intervals = listing(str(period) if period else _("no flip yet") for period in nums["periods"])
    ui.check(_("Bit j flips exactly every 2^j tokens (measured on the code of every position)"),
             nums["periods"] == expected,
             _("measured intervals, LSB to MSB: {intervals}", intervals=intervals))
    ui.check(_("Every one of the {positions} positions has its own {bits}-bit code", positions=v.P, bits=v.bits),
             nums["distinct"] == v.P,
             _("{distinct} distinct codes for {positions} positions (at most 2^{bits} = {limit})",
               distinct=nums["distinct"], positions=v.P, bits=v.bits, limit=1 << v.bits))


def listing(items: Iterable[str]) -> str:
    """Items as a list in a sentence: "1, 2, 4" (the separator is the language's)."""
    return _(", ").join(items)


TRAJECTORY_MAX = 128  # positions the trajectory figure draws at most (more and its corner labels pile up)


@lesson.part("jumps", N_("4b. Binary jumps"), uses=("P", "bits", "j", "d"))
def part_jumps(v: ui.Values) -> None:
    ui.prose(_(
        "Follow the code as p grows. Two neighbouring bits, drawn as a point in the plane, sit on one corner of "
        "a square for a while and then jump, sometimes diagonally. Over the whole code, one step forward, "
        "p → p + 1, clears the run of 1s at the bottom of p and sets the bit above it: it flips one bit when p "
        "is even, m + 1 bits when p + 1 is an odd multiple of 2^m (m < n), and so all n bits only when p + 1 is "
        "a multiple of 2^(n−1) (the top bit turns on, or the code wraps around). Training prefers codes that "
        "move smoothly and predictably."
    ))
    traj_n = min(v.P, TRAJECTORY_MAX)
    traj_bit = min(v.j, v.bits - 2)
    if traj_n < v.P or traj_bit != v.j:
        st.info(_("This figure shows the first {positions} positions and bits ({low}, {high}) (at most {limit} "
                  "positions, and bit j + 1 must exist among the {bits} bits).", positions=traj_n, low=traj_bit,
                  high=traj_bit + 1, limit=TRAJECTORY_MAX, bits=v.bits))
    flips = intro.flipped_bits(traj_n, v.bits)
    ui.figure_panel(
        intro_trajectory, dict(n_positions=traj_n, bit=traj_bit, n_bits=v.bits, d_model=v.d), key="trajectory",
        live={"d": "d_model", "P": ui.AtMost("n_positions", TRAJECTORY_MAX), "bits": "n_bits",
              "j": ui.AtMost("bit", v.bits - 2)},
        caption=_("What to notice: the binary point visits four corners in blocks (labels list the positions on "
                  "each corner); the sinusoid pair with the same period (cos across, sin up) glides "
                  "counter-clockwise round a circle in equal steps. "
                  "Right: one-token step lengths over the whole code jump around for binary and are flat for "
                  "Vaswani's sinusoids. A binary step's length is √(bits flipped); {flips}",
                  flips=flip_words(flips, v.bits)),
        latex=r"\lVert PE(p+1) - PE(p)\rVert^2 = \sum_i \big(2 - 2\cos\omega_i\big)\ \text{ for every } p",
        code=[intro.step_lengths, intro.sinusoid_pair, intro.flipped_bits],
    )
    nums = binary_numbers(v.P, v.bits, v.d)
    if nums["steps_sin"] is not None:
        sb, ss = nums["steps_binary"], nums["steps_sin"]
        ui.check(_("Sinusoidal (d = {d}): every one-token step has the same length", d=v.d),
                 float(ss.max() - ss.min()) < 1e-9,
                 _("steps from {low:.6f} to {high:.6f}; binary steps from {binary_low:.3g} to {binary_high:.3g}",
                   low=ss.min(), high=ss.max(), binary_low=sb.min(), binary_high=sb.max()))


def flip_words(flips: np.ndarray, n_bits: int) -> str:
    """How many bits the figure's one-token steps flip, counted on its own codes, as a sentence."""
    if flips.size == 0:
        return _("with a single position there is no step.")
    counts = [(int(k), int(np.count_nonzero(flips == k))) for k in np.unique(flips)]
    told = listing(ngettext("{n} flips {k} bit", "{n} flip {k} bit", c, k=k) if k == 1
                   else ngettext("{n} flips {k} bits", "{n} flip {k} bits", c, k=k) for k, c in counts)
    top = int(np.argmax(flips))
    return _("of the {steps} steps shown, {told}; the first of the biggest, {top} → {after}, flips {flipped} of the "
             "{bits} bits.", steps=flips.size, told=told, top=top, after=top + 1, flipped=int(flips[top]),
             bits=n_bits)


@lesson.part("sinusoids", N_("5. Sinusoids"), uses=("P", "bits", "j", "d"),
             title=N_("5. Sinusoids: binary, made smooth"))
def part_sinusoids(v: ui.Values) -> None:
    ui.prose(_(
        "Keep the ladder of wavelengths and replace each square wave by a smooth wave of the same wavelength. "
        "That is the idea behind sinusoidal encoding. Vaswani et al. go one step further: every frequency gets "
        "a sine **and** a cosine, and their wavelengths grow by a factor b^(2/d) per pair instead of 2."
    ))
    ui.figure_panel(
        intro_binary_vs_sinusoid, dict(n_positions=v.P, n_bits=v.bits, bit=v.j), key="smooth",
        live={"P": "n_positions", "bits": "n_bits", "j": "bit"},
        caption=_("What to notice: the two heatmaps show the same stripes at the same wavelengths; on the right "
                  "the edges are blurred into waves. Below, bit j's square wave and its sinusoid rise and fall "
                  "together, the sinusoid peaking in the middle of each run of ones. The curve is the sinusoid at "
                  "every real position. Its values at the integer positions, the codes tokens get, are dots while "
                  "there are at most {most} positions; with more, the dots would merge into one thick line, so "
                  "hover over the curve to read them.", most=SMOOTH_DOTS_MOST)
                + averaged_columns(v.P, panels=2),
        latex=r"s_j(p) = \tfrac12 - \tfrac12\cos\!\Big(\pi\,\frac{p - (2^j - 1)/2}{2^j}\Big),\qquad "
              r"\lambda_j = 2^{j+1}",
        code=[intro.smooth_bits],
    )
    nums = binary_numbers(v.P, v.bits, v.d)
    ui.check(_("Rounding each smooth bit gives back the binary code"), nums["round_trip"],
             _("compared at all {positions} × {bits} cells", positions=v.P, bits=v.bits))
    st.markdown(_(
        "Why a sine **and** a cosine? Because then moving k tokens is the same linear map (a rotation) from "
        "every starting position. Below: how far the best single affine map from code(p) to code(p+1) misses, "
        "over all positions (0 means it is exact; 1 means it explains nothing)."
    ))
    ui.numbers(nums["residual"], fmt="{:.2g}")
    st.markdown(_("➡️ [Sinusoidal lesson: the full table, and the rotation M_k that shifts it]({address})",
                  address=ui.href("sinusoidal", part="shift")))

    wavelength_pitfall(v.d)


def wavelength_pitfall(d: int) -> None:
    """The "base wavelength" and "63,000-token limit" claims, with what the code really does at this d."""
    k_best, d_best, d_step, slowest = repeat_numbers(d)
    near = d_best < d_step
    ui.pitfall(
        _("10,000 is neither a wavelength nor a length limit"),
        _("10,000 is sometimes called the *base wavelength* and said to bound the context length at about 63,000 "
          "tokens (2π·10,000 = 62,832). In the formula, 10,000 is the "
          "**base** b of the frequencies ω_i = b^(−2i/d): wavelengths run from 2π (pair 0) to 2π·b^((d−2)/d) (the "
          "last pair), {slowest:,.0f} tokens at d = {d}; 2π·b is only the limit of that as d grows, reached by no "
          "pair. Only the slowest pair returns to its start after its wavelength; the other pairs are elsewhere at "
          "that moment. Toggle to compare the slowest pair alone with the whole code, for every offset up to "
          "{max_offset:,} tokens.", slowest=slowest, d=d, max_offset=intro.MAX_OFFSET),
        key="wavelength",
        wrong=lambda: ui.figure_panel(
            intro_wavelength_limit, dict(d_model=d, pairs="slowest"), key="limit_wrong",
            live={"d": "d_model"},
            caption=_("The slowest pair alone: its distance drops to almost 0 after one wavelength ({slowest:,.0f} "
                      "tokens), and again after every multiple of it.", slowest=slowest),
            code=[intro.offset_distances, intro.distance_profile]),
        right=lambda: ui.figure_panel(
            intro_wavelength_limit, dict(d_model=d, pairs="all"), key="limit_right",
            live={"d": "d_model"},
            caption=closest_return_caption(d, k_best, d_best, d_step),
            latex=r"\lVert PE(p+k) - PE(p)\rVert^2 = \sum_i \big(2 - 2\cos k\omega_i\big)",
            code=[intro.offset_distances, intro.distance_profile]),
    )
    ui.check(_("d = {d}, b = 10,000: the closest return within {max_offset:,} tokens is farther from PE(p) than "
               "PE(p + 1) is", d=d, max_offset=intro.MAX_OFFSET), not near,
             _("closest return at k = {k:,}: distance {distance:.3g}; next token: {step:.3g}", k=k_best,
               distance=d_best, step=d_step))


def closest_return_caption(d: int, k_best: int, d_best: float, d_step: float) -> str:
    """The whole code's closest return within ``intro.MAX_OFFSET`` tokens, said as a near-return or as none."""
    values = dict(pairs=d // 2, max_offset=intro.MAX_OFFSET, k=k_best, distance=d_best, step=d_step)
    if d_best < d_step:
        return _("All {pairs} pairs together: the closest return in {max_offset:,} tokens is at k = {k:,}, at "
                 "distance {distance:.3g}, closer than the next token's code ({step:.3g}). With so few pairs a "
                 "near-return happens by coincidence, at no wavelength of the formula; raise d and it moves away.",
                 **values)
    return _("All {pairs} pairs together: the closest return in {max_offset:,} tokens is at k = {k:,}, at distance "
             "{distance:.3g}, farther than the next token's code ({step:.3g}): no offset brings the code back.",
             **values)


@lesson.part("properties", N_("6. The five properties"))
def part_properties(v: ui.Values) -> None:
    ui.prose(_(
        "What we wanted from a position code, and how each attempt fares. RoPE, the rotary encoding used by "
        "most current language models, takes the rotation idea into the attention score itself."
    ))
    st.table(property_rows())
    st.caption(_("✅ yes · ⚠️ partly · ❌ no. Integer, p/N and binary are shown in parts 2 to 4 of this lesson; the "
                 "links below open the lessons that show the rest."))
    for prop in PROPERTIES:
        links = " · ".join(f"[{_(label)}]({ui.href(slug, part=part)})" for slug, part, label in prop.links)
        st.markdown(_("**{name}**: {question} ➡️ {links}", name=_(prop.name), question=_(prop.question),
                      links=links))


lesson.run()
