"""Lesson 1: why attention needs positions, and how integer, binary and sinusoidal codes compare.

After C. Fleetwood, "You could have designed state of the art positional encoding" (docs/SOURCES.md). Every
number is computed by posviz.intro on small seeded arrays; no torch, no download.
"""

from dataclasses import dataclass

import numpy as np
import streamlit as st

from posviz import intro, ui
from posviz import sinusoidal as sn
from posviz.figures.intro import (
    intro_attention,
    intro_binary,
    intro_binary_vs_sinusoid,
    intro_integer_ranges,
    intro_normalised,
    intro_shuffle,
    intro_trajectory,
    intro_wavelength_limit,
)

# ---------------------------------------------------------------------------------------------------
# the five properties (Fleetwood): the table of part 6

SCHEMES = ("integer", "normalised", "binary", "sinusoidal", "RoPE")
SCHEME_TITLES = {"integer": "integer p", "normalised": "normalised p/N", "binary": "binary bits",
                 "sinusoidal": "sinusoidal", "RoPE": "RoPE"}


@dataclass(frozen=True)
class Property:
    """One property of a good position code, how each scheme fares on it, and where the course shows it."""

    name: str
    question: str
    cells: dict[str, tuple[str, str]]       # scheme -> (verdict "yes" / "no" / "partly", one-line reason)
    links: tuple[tuple[str, str, str], ...]  # (lesson slug, part, link label) of the lessons that show it


PROPERTIES: tuple[Property, ...] = (
    Property(
        "Unique code per position, whatever the length",
        "Does position 5 get the same code, distinct from every other position, in a sequence of 10 "
        "and of 10,000?",
        {
            "integer": ("yes", "p is p in any sequence"),
            "normalised": ("no", "p/N changes with N: position 5 is 0.5 when N = 10, 0.05 when N = 100"),
            "binary": ("partly", "fixed bits per position, but n bits repeat after 2^n positions"),
            "sinusoidal": ("yes", "fixed for any length; pair 0 never repeats (wavelength 2π is irrational)"),
            "RoPE": ("yes", "the same rotation angles m·θ_i as the sinusoids, whatever the length"),
        },
        (("sinusoidal", "waves", "Sinusoidal: the table and its wavelengths"),),
    ),
    Property(
        "Linear relation between positions",
        "Is there one fixed map taking the code of p to the code of p + k, the same for every p?",
        {
            "integer": ("yes", "add k to every component (but the values grow without bound)"),
            "normalised": ("partly", "add k/N, a step that depends on the sequence length"),
            "binary": ("no", "carries: p + 1 flips a different number of bits at every p"),
            "sinusoidal": ("yes", "a block rotation M_k, independent of p"),
            "RoPE": ("yes", "q·k after rotation depends only on the offset m − n"),
        },
        (("sinusoidal", "shift", "Sinusoidal: the shift matrix M_k"),
         ("rope", "relative", "RoPE: scores that depend only on m − n")),
    ),
    Property(
        "Generalises to longer sequences",
        "Are positions beyond the training length still sensible, in-range codes?",
        {
            "integer": ("no", "unseen, ever larger values swamp the embedding"),
            "normalised": ("no", "a longer N rescales every position the model learnt"),
            "binary": ("partly", "new bit patterns appear, and n bits wrap after 2^n"),
            "sinusoidal": ("partly", "values stay in [−1, 1], but slow pairs reach unseen angles"),
            "RoPE": ("partly", "relative by design, yet long offsets reach unseen angles"),
        },
        (("rope", "tables", "RoPE: angles per pair"),
         ("context_extension", "pairs", "Context extension: stretching the angles")),
    ),
    Property(
        "A deterministic rule",
        "Is the code computed by a fixed formula a model can learn to read, rather than learnt?",
        {
            "integer": ("yes", "the identity p → p"),
            "normalised": ("yes", "p → p/N (given N)"),
            "binary": ("yes", "the bits of p"),
            "sinusoidal": ("yes", "sin and cos of p·ω_i with ω_i = base^(−2i/d)"),
            "RoPE": ("yes", "rotate pair i by m·θ_i with θ_i = base^(−2i/d)"),
        },
        (("sinusoidal", "table", "Sinusoidal: the formula"),),
    ),
    Property(
        "Extends to n dimensions",
        "Can the same idea encode a position (row, column) on an image, or more axes?",
        {
            "integer": ("partly", "one number per axis, with the same swamping"),
            "normalised": ("partly", "one p/N per axis, with the same length dependence"),
            "binary": ("partly", "concatenate the bits of each axis"),
            "sinusoidal": ("yes", "give each axis its share of the channels (MAE's 2-D table)"),
            "RoPE": ("yes", "rotate some pairs by the row and others by the column (axial 2-D RoPE)"),
        },
        (("2d", "grid", "2-D encodings: images and grids"),),
    ),
)


def property_rows() -> list[dict[str, str]]:
    """The five-properties table as rows of plain strings: property, then ``"verdict: reason"`` per scheme."""
    rows = []
    for prop in PROPERTIES:
        row = {"property": prop.name}
        for scheme in SCHEMES:
            verdict, reason = prop.cells[scheme]
            row[SCHEME_TITLES[scheme]] = f"{_MARK[verdict]} {verdict}: {reason}"
        rows.append(row)
    return rows


_MARK = {"yes": "✅", "no": "❌", "partly": "⚠️"}


lesson = ui.Lesson(
    "intro", "From integers to sinusoids", icon="🔢", order=1, headline="intro_binary_vs_sinusoid",
    summary="Why attention needs positions: one seeded bidirectional self-attention layer gives the two copies of a "
            "repeated word identical outputs until sinusoidal PE is added (a causal mask alone tells them apart), "
            "and shuffling the words just moves the outputs. "
            "Then integer, p/N and binary codes each fail (swamping, length dependence, jumps), sines and cosines "
            "arrive as smooth binary, and five schemes are compared on the five properties of a good encoding.",
    intro="Bidirectional self-attention (every word attends to every word, as in an encoder) cannot tell the first "
          "word of a sentence from the last on its own; a decoder's causal mask gives some of the order away. This "
          "lesson shows both with a real (tiny) attention layer, then tries the obvious fixes one by one, integers, "
          "fractions, binary, until we arrive at the sines and cosines of the original Transformer.",
    controls=(
        ui.Text("text", "sentence (words only; punctuation is ignored)", default=intro.DEFAULT_TEXT,
                max_chars=200, help=f"Edit it: any words, up to {intro.MAX_TOKENS} are used."),
        ui.Int("d", "embedding size d", default=16, lo=4, hi=intro.MAX_DIM, step=2,
               help="Width of each word vector and of the attention layer. Even, so sinusoidal PE fits."),
        ui.Int("seed", "seed (embedding table and W_q, W_k, W_v)", default=0, lo=0, hi=99),
        ui.Int("P", "positions shown", default=64, lo=8, hi=intro.MAX_POSITIONS),
        ui.Int("bits", "bits n", default=6, lo=2, hi=intro.MAX_BITS),
        ui.Int("j", "bit j for the close-ups", default=2, lo=0, hi=lambda v: v["bits"] - 1,
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
    return f"[{lesson.title}, part {lesson.parts[part].label}]({address})"


@ui.cached
def swamp_numbers(text: str, length: int, d: int, seed: int) -> tuple[float, float]:
    _, emb = intro.repeated_sentence(text, length, d, seed)
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
            "binary bits": intro.linear_shift_residual(codes) if n > 2 else 0.0,
            "smooth bits (cos only)": intro.linear_shift_residual(smooth) if n > 2 else 0.0,
            "sin + cos per bit wavelength": intro.linear_shift_residual(intro.bit_pairs(n, bits)) if n > 2 else 0.0,
            f"Vaswani sinusoids, d = {d}": (intro.linear_shift_residual(intro.position_codes("sinusoidal", n, d))
                                            if n > 2 else 0.0),
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
    rows = ["| channel | " + " | ".join(names) + " |", "|---:|" + "---:|" * len(names)]
    rows += [f"| {c} | " + " | ".join(f"{columns[n][c]:.6f}" for n in names) + " |"
             for c in range(len(columns[names[0]]))]
    st.markdown("\n".join(rows))


def used_sentence(raw: str) -> str:
    """The sentence the layer reads: the example one if ``raw`` has no words; says so when words are dropped."""
    n_words = intro.count_words(raw)
    if n_words == 0:
        st.info("The sentence has no words (letters or digits), so the example sentence is used instead.")
        return intro.DEFAULT_TEXT
    if n_words > intro.MAX_TOKENS:
        st.info(f"The sentence has {n_words} words; only the first {intro.MAX_TOKENS} are used, to keep the "
                "figures readable.")
    return raw


@lesson.part("blind", "1. Blind to word order", uses=("text", "d", "seed"),
             title="1. Attention is blind to word order")
def part_blind(v: ui.Values) -> None:
    ui.prose(
        "Take a sentence in which one word appears twice. Each word becomes a vector (a row of a small, "
        "seeded embedding table: the same word always gets the same row). One self-attention layer then mixes "
        "the rows: every output is a weighted average of value vectors, with weights from query·key scores. "
        "In a **bidirectional** layer (no mask: every word attends to every word, as in BERT's encoder) nothing "
        "in that recipe looks at **where** a row sits, so two copies of the same word must come out identical, "
        "even though in the sentence they are different things. A "
        f"{ui.term('causal', '**causal**')} layer (GPT's decoder) masks the "
        "words after each query: the two copies then average different sets of words, and the mask alone gives "
        "some position away."
    )
    text = used_sentence(v.text)
    plain = attention_run(text, v.d, v.seed, "none")
    with_pe = attention_run(text, v.d, v.seed, "sinusoidal")
    causal = attention_run(text, v.d, v.seed, "none", causal=True)
    st.markdown("**The tokens the layer sees** (slot: word, lower-cased; edit the sentence in the sidebar):")
    ui.say("   ".join(f"{t}: {w}" for t, w in enumerate(plain.tokens)))

    pair = intro.repeated_pair(plain.tokens)
    gaps = tuple(intro.row_gap(demo.out, *pair) for demo in (plain, with_pe, causal)) if pair else None
    ui.figure_panel(
        intro_attention, dict(text=text, d_model=v.d, seed=v.seed), key="attention",
        caption=blind_caption(gaps, max(float(abs(demo.out).max()) for demo in (plain, with_pe, causal))),
        latex=r"\mathrm{Attn}(X) = \mathrm{softmax}\!\Big(\tfrac{(XW_q)(XW_k)^\top}{\sqrt d} + M\Big)\,XW_v,"
              r"\quad X = \text{embeddings}\ (+\ PE),\quad M_{ij} = \begin{cases}0 & \text{no mask, or } j \le i"
              r"\\ -\infty & \text{causal and } j > i\end{cases}",
        code=[intro.attention_demo, intro.self_attention, intro.token_embeddings, sn.sinusoidal_table],
    )
    if pair is None:
        st.info("No word occurs twice in this sentence. Repeat one (for example end it with its first word) "
                "to see two identical outputs.")
        return
    i, j = pair
    gap, gap_pe, gap_causal = gaps
    st.markdown(f"**The two outputs of the repeated word** (slots {i} and {j}), first 6 of {v.d} channels:")
    number_table({f"slot {i}, no positions": plain.out[i, :6], f"slot {j}, no positions": plain.out[j, :6],
                  f"slot {i}, with PE": with_pe.out[i, :6], f"slot {j}, with PE": with_pe.out[j, :6],
                  f"slot {i}, causal": causal.out[i, :6], f"slot {j}, causal": causal.out[j, :6]})
    ui.check(f"Without positions, np.allclose(output[{i}], output[{j}])", gap <= 1e-12,
             f"max |difference| over {v.d} channels = {gap:.1e}")
    ui.check(f"With sinusoidal PE, output[{i}] and output[{j}] differ", gap_pe > 1e-6,
             f"max |difference| = {gap_pe:.3g}")
    ui.check(f"With a causal mask and no positions, output[{i}] and output[{j}] differ", gap_causal > 1e-6,
             f"max |difference| = {gap_causal:.3g}")
    ui.prose(f"Causal language models trained with no position encoding at all ({ui.term('nope', 'NoPE')}) read "
             "positions off the "
             f"mask: {part_link('bias', 'nope')}.")


def blind_caption(gaps: tuple[float, float, float] | None, scale: float) -> str:
    """Part 1's caption, with the gaps between the repeated word's two output rows when there is one."""
    if gaps is None:
        return ("What to notice: on the left the layer with no mask and no positions; in the middle the same layer "
                "after each slot's sinusoidal code was added to its embedding; on the right no positions but a causal "
                "mask. No word occurs twice in this sentence, so there are no two copies to compare.")
    gap, gap_pe, gap_causal = gaps
    than = "more" if gap_causal > gap_pe else "less"
    return ("What to notice: the strip on top is the difference between the two copies of the repeated word's "
            "output rows, on its own colour scale: "
            + ("none without positions (a blank row)" if gap <= 1e-12 else f"up to {gap:.3g} without positions")
            + ", up to "
            + f"{gap_pe:.3g} in one channel once each slot's sinusoidal code is added to its embedding. Below, the "
            "outlined rows themselves: on the left (no mask, no positions) the same colours channel for channel; in "
            f"the middle (+ PE) they look alike too, because {gap_pe:.3g} is small on the outputs' colour scale of "
            f"±{scale:.2g} (the table below gives the numbers). On the right the layer has no positions but a causal "
            f"mask: the rows differ by up to {gap_causal:.3g}, {than} than PE made them differ.")


@lesson.part("shuffle", "1b. Shuffle the words", uses=("text", "d", "seed"),
             controls=(
                 ui.Int("shuffle", "shuffle seed s (0 = original order)", default=1, lo=0, hi=50),
             ))
def part_shuffle(v: ui.Values) -> None:
    ui.prose(
        "A stronger statement about the bidirectional layer: reorder the words and the outputs are reordered "
        "the same way, each word's output unchanged (it is *permutation-equivariant*: for a permutation matrix "
        "Π, attn(Π·x) = Π·attn(x)). With positions added by slot, a word that moves gets a new code and a new "
        "output."
    )
    sh = ui.controls(where="main")
    text = used_sentence(v.text)
    shuffled = attention_run(text, v.d, v.seed, "none", sh.shuffle)
    st.markdown("**Shuffled sentence:**")
    ui.say(" ".join(shuffled.tokens))
    ui.figure_panel(
        intro_shuffle, dict(text=text, d_model=v.d, seed=v.seed, shuffle=sh.shuffle), key="shuffle",
        caption="What to notice: in the top row, each row on the right (labelled with the slot it came from) is a "
                "row of the left panel moved to a new place, colours unchanged. In the bottom row, with "
                "sinusoidal PE by slot, the moved words get different outputs.",
        latex=r"\mathrm{Attn}(\Pi X) = \Pi\,\mathrm{Attn}(X)\ \text{ for every permutation matrix } \Pi",
        code=[intro.shuffle_order, intro.equivariance_gap],
    )
    if list(shuffled.order) == list(range(len(shuffled.order))):
        st.info("This shuffle seed keeps the original order; pick another seed to move the words.")
        return
    eq_gap = intro.equivariance_gap(text, v.d, v.seed, "none", sh.shuffle)
    eq_gap_pe = intro.equivariance_gap(text, v.d, v.seed, "sinusoidal", sh.shuffle)
    ui.check("Without positions, attn(shuffled words) = shuffled attn(words)", eq_gap <= 1e-12,
             f"max |difference| = {eq_gap:.1e}")
    ui.check("With sinusoidal PE, shuffling changes the outputs themselves", eq_gap_pe > 1e-6,
             f"max |attn(Π·x + PE) − Π·attn(x + PE)| = {eq_gap_pe:.3g}")


@lesson.part("integers", "2. Integers", uses=("text", "d", "seed"), title="2. First try: add the integer position",
             controls=(
                 ui.Int("L", "sequence length L (tokens)", default=512, lo=8, hi=intro.MAX_POSITIONS),
             ))
def part_integers(v: ui.Values) -> None:
    ui.prose(
        "The simplest fix: add the position p to every component of the word's vector. Word vectors, like "
        "those of real models, are small numbers around 0. Positions are not: by the end of a sequence of L "
        "tokens they reach L − 1, and the word drowns."
    )
    ln = ui.controls(where="main")
    mean_abs, ratio = swamp_numbers(used_sentence(v.text), ln.L, v.d, v.seed)
    text = used_sentence(v.text)
    ui.figure_panel(
        intro_integer_ranges, dict(text=text, n_positions=ln.L, d_model=v.d, seed=v.seed), key="integer",
        caption="What to notice: each band spans the smallest to the largest channel of one slot's vector (the "
                f"sentence repeated to fill L slots). The word alone is a thin stripe near 0 (mean |entry| "
                f"{mean_abs:.2g}); adding p carries it up to {ln.L - 1}, while the sinusoidal band stays within ±1 "
                "of the word's own band.",
        latex=r"x_p = e_{w_p} + p\cdot\mathbf 1",
        code=[intro.integer_encoding, intro.repeated_sentence],
    )
    ui.numbers({"mean |embedding entry|": mean_abs, "position added at the last slot": ln.L - 1,
                "‖position‖ / ‖embedding‖ at the last slot": ratio}, fmt="{:.3g}")


@lesson.part("normalised", "3. p / N", title="3. Second try: normalise, p / N",
             controls=(
                 ui.Int("N1", "short length N₁", default=10, lo=2, hi=1000),
                 ui.Int("N2", "long length N₂", default=100, lo=2, hi=1000),
                 ui.Int("pos", "position p (< both lengths)", default=5, lo=0, hi=lambda v: min(v["N1"], v["N2"]) - 1,
                        hi_max=999),
             ))
def part_normalised(v: ui.Values) -> None:
    ui.prose(
        "Divide by the sequence length N and every code stays between 0 and 1. But now the code of a position "
        "depends on how long the sequence is: position 5 of a 10-word sentence and position 5 of a 100-word "
        "document get different codes, so what the model learnt about one does not carry over."
    )
    nm = ui.controls(where="main", columns=3)
    pos = nm.pos
    ui.figure_panel(
        intro_normalised, dict(short=nm.N1, long=nm.N2, position=pos), key="normalised",
        caption="What to notice: the two lines have different slopes, so the dotted position meets them at two "
                "different heights. Only when N₁ = N₂ do the codes agree.",
        latex=r"\mathrm{code}(p) = p / N",
        code=[intro.normalised_positions],
    )
    c1, c2 = intro.normalised_positions(nm.N1)[pos], intro.normalised_positions(nm.N2)[pos]
    ui.check(f"Property 1 for p/N: position {pos} has the same code when N = {nm.N1} and N = {nm.N2}", c1 == c2,
             f"{pos}/{nm.N1} = {c1:.4g}, {pos}/{nm.N2} = {c2:.4g}")


@lesson.part("binary", "4. Binary", uses=("P", "bits"), title="4. Third try: binary")
def part_binary(v: ui.Values) -> None:
    ui.prose(
        "Write p in binary and use one bit per dimension: every value is 0 or 1 and a position's code no "
        "longer depends on the length. The lowest bit alternates every token, the next every 2 tokens, bit j "
        "every 2^j tokens: a ladder of ever slower square waves."
    )
    ui.figure_panel(
        intro_binary, dict(n_positions=v.P, n_bits=v.bits), key="binary",
        caption="What to notice: the bottom row (least significant bit) flips at every token, each row above "
                "flips half as often, and the top row (most significant bit) flips every 2^(n−1) tokens. With "
                "more positions than 2^n the whole pattern starts again: codes are no longer unique.",
        latex=r"b_j(p) = \lfloor p / 2^j \rfloor \bmod 2",
        code=[intro.binary_encoding],
    )
    nums = binary_code_numbers(v.P, v.bits)
    expected = [intro.flip_period(k) if intro.flip_period(k) < v.P else 0 for k in range(v.bits)]
    ui.check("Bit j flips exactly every 2^j tokens (measured on the heatmap's data)", nums["periods"] == expected,
             "measured intervals, LSB to MSB: " + ", ".join(str(v) if v else "no flip yet" for v in nums["periods"]))
    ui.check(f"Every one of the {v.P} positions has its own {v.bits}-bit code", nums["distinct"] == v.P,
             f"{nums['distinct']} distinct codes for {v.P} positions (at most 2^{v.bits} = {1 << v.bits})")


@lesson.part("jumps", "4b. Binary jumps", uses=("P", "bits", "j", "d"))
def part_jumps(v: ui.Values) -> None:
    ui.prose(
        "Follow the code as p grows. Two neighbouring bits, drawn as a point in the plane, sit on one corner of "
        "a square for a while and then jump, sometimes diagonally. Over the whole code, one step forward, "
        "p → p + 1, clears the run of 1s at the bottom of p and sets the bit above it: it flips one bit when p "
        "is even, m + 1 bits when p + 1 is an odd multiple of 2^m (m < n), and so all n bits only when p + 1 is "
        "a multiple of 2^(n−1) (the top bit turns on, or the code wraps around). Training prefers codes that "
        "move smoothly and predictably."
    )
    traj_n = min(v.P, 128)
    traj_bit = min(v.j, v.bits - 2)
    if traj_n < v.P or traj_bit != v.j:
        st.info(f"This figure shows the first {traj_n} positions and bits ({traj_bit}, {traj_bit + 1}) "
                f"(at most 128 positions, and bit j + 1 must exist among the {v.bits} bits).")
    flips = intro.flipped_bits(traj_n, v.bits)
    ui.figure_panel(
        intro_trajectory, dict(n_positions=traj_n, bit=traj_bit, n_bits=v.bits, d_model=v.d), key="trajectory",
        caption="What to notice: the binary point visits four corners in blocks (labels list the positions on "
                "each corner); the sinusoid pair with the same period (cos across, sin up) glides "
                "counter-clockwise round a circle in equal steps. "
                "Right: one-token step lengths over the whole code jump around for binary and are flat for "
                f"Vaswani's sinusoids. A binary step's length is √(bits flipped); {flip_words(flips, v.bits)}",
        latex=r"\lVert PE(p+1) - PE(p)\rVert^2 = \sum_i \big(2 - 2\cos\omega_i\big)\ \text{ for every } p",
        code=[intro.step_lengths, intro.sinusoid_pair, intro.flipped_bits],
    )
    nums = binary_numbers(v.P, v.bits, v.d)
    if nums["steps_sin"] is not None:
        sb, ss = nums["steps_binary"], nums["steps_sin"]
        ui.check(f"Sinusoidal (d = {v.d}): every one-token step has the same length", float(ss.max() - ss.min()) < 1e-9,
                 f"steps from {ss.min():.6f} to {ss.max():.6f}; binary steps from {sb.min():.3g} to {sb.max():.3g}")


def flip_words(flips: np.ndarray, n_bits: int) -> str:
    """How many bits the figure's one-token steps flip, counted on its own codes, as a sentence."""
    if flips.size == 0:
        return "with a single position there is no step."
    counts = [(int(k), int(np.count_nonzero(flips == k))) for k in np.unique(flips)]
    told = ", ".join(f"{c} flip{'s' * (c == 1)} {k} bit{'s' * (k > 1)}" for k, c in counts)
    top = int(np.argmax(flips))
    return (f"of the {flips.size} steps shown, {told}; the first of the biggest, {top} → {top + 1}, flips "
            f"{int(flips[top])} of the {n_bits} bits.")


@lesson.part("sinusoids", "5. Sinusoids", uses=("P", "bits", "j", "d"), title="5. Sinusoids: binary, made smooth")
def part_sinusoids(v: ui.Values) -> None:
    ui.prose(
        "Keep the ladder of wavelengths and replace each square wave by a smooth wave of the same wavelength. "
        "That is the idea behind sinusoidal encoding. Vaswani et al. go one step further: every frequency gets "
        "a sine **and** a cosine, and their wavelengths grow by a factor b^(2/d) per pair instead of 2."
    )
    ui.figure_panel(
        intro_binary_vs_sinusoid, dict(n_positions=v.P, n_bits=v.bits, bit=v.j), key="smooth",
        caption="What to notice: the two heatmaps show the same stripes at the same wavelengths; on the right "
                "the edges are blurred into waves. Below, bit j's square wave and its sinusoid rise and fall "
                "together, the sinusoid peaking in the middle of each run of ones. The curve is the sinusoid at "
                "every real position; the dots are its values at the integer positions, the code a token gets.",
        latex=r"s_j(p) = \tfrac12 - \tfrac12\cos\!\Big(\pi\,\frac{p - (2^j - 1)/2}{2^j}\Big),\qquad "
              r"\lambda_j = 2^{j+1}",
        code=[intro.smooth_bits],
    )
    nums = binary_numbers(v.P, v.bits, v.d)
    ui.check("Rounding each smooth bit gives back the binary code", nums["round_trip"],
             f"compared at all {v.P} × {v.bits} cells")
    st.markdown(
        "Why a sine **and** a cosine? Because then moving k tokens is the same linear map (a rotation) from "
        "every starting position. Below: how far the best single affine map from code(p) to code(p+1) misses, "
        "over all positions (0 means it is exact; 1 means it explains nothing)."
    )
    ui.numbers(nums["residual"], fmt="{:.2g}")
    st.markdown(f"➡️ [Sinusoidal lesson: the full table, and the rotation M_k that shifts it]"
                f"({ui.href('sinusoidal', part='shift')})")

    wavelength_pitfall(v.d)


def wavelength_pitfall(d: int) -> None:
    """The "base wavelength" and "63,000-token limit" claims, with what the code really does at this d."""
    k_best, d_best, d_step, slowest = repeat_numbers(d)
    near = d_best < d_step
    ui.pitfall(
        "10,000 is neither a wavelength nor a length limit",
        "10,000 is sometimes called the *base wavelength* and said to bound the context length at about 63,000 "
        "tokens (2π·10,000 = 62,832). In the formula, 10,000 is the "
        "**base** b of the frequencies ω_i = b^(−2i/d): wavelengths run from 2π (pair 0) to 2π·b^((d−2)/d) (the "
        f"last pair), {slowest:,.0f} tokens at d = {d}; 2π·b is only the limit of that as d grows, reached by no "
        "pair. Only the slowest pair returns to its start after its wavelength; the other pairs are elsewhere at "
        "that moment. Toggle to compare the slowest pair alone with the whole code, for every offset up to "
        f"{intro.MAX_OFFSET:,} tokens.",
        key="wavelength",
        wrong=lambda: ui.figure_panel(
            intro_wavelength_limit, dict(d_model=d, pairs="slowest"), key="limit_wrong",
            caption=f"The slowest pair alone: its distance drops to almost 0 after one wavelength ({slowest:,.0f} "
                    "tokens), and again after every multiple of it.",
            code=[intro.offset_distances, intro.distance_profile]),
        right=lambda: ui.figure_panel(
            intro_wavelength_limit, dict(d_model=d, pairs="all"), key="limit_right",
            caption=(f"All {d // 2} pairs together: the closest return in {intro.MAX_OFFSET:,} tokens is at "
                     f"k = {k_best:,}, at distance {d_best:.3g}"
                     + (f", closer than the next token's code ({d_step:.3g}). With so few pairs a near-return "
                        "happens by coincidence, at no wavelength of the formula; raise d and it moves away."
                        if near else f", farther than the next token's code ({d_step:.3g}): no offset brings the "
                        "code back.")),
            latex=r"\lVert PE(p+k) - PE(p)\rVert^2 = \sum_i \big(2 - 2\cos k\omega_i\big)",
            code=[intro.offset_distances, intro.distance_profile]),
    )
    ui.check(f"d = {d}, b = 10,000: the closest return within {intro.MAX_OFFSET:,} tokens is farther from PE(p) "
             "than PE(p + 1) is", not near,
             f"closest return at k = {k_best:,}: distance {d_best:.3g}; next token: {d_step:.3g}")


@lesson.part("properties", "6. The five properties")
def part_properties(v: ui.Values) -> None:
    ui.prose(
        "What we wanted from a position code, and how each attempt fares. RoPE, the rotary encoding used by "
        "most current language models, takes the rotation idea into the attention score itself."
    )
    st.table(property_rows())
    st.caption("✅ yes · ⚠️ partly · ❌ no. Integer, p/N and binary are shown in parts 2 to 4 of this lesson; the "
               "links below open the lessons that show the rest.")
    for prop in PROPERTIES:
        links = " · ".join(f"[{label}]({ui.href(slug, part=part)})" for slug, part, label in prop.links)
        st.markdown(f"**{prop.name}**: {prop.question} ➡️ {links}")


lesson.run()
