"""RoPE: pairs of a query turn like clock hands; only the offset m - n survives in the score."""

import streamlit as st

from posviz import rope, ui
from posviz import sinusoidal as sn
from posviz.figures.rope import (
    MAX_GRID_POSITIONS,
    rope_angle_heatmap,
    rope_clock,
    rope_cos_sin_tables,
    rope_decay,
    rope_float32_error,
    rope_frequency_ladder,
    rope_norms,
    rope_pairing,
    rope_score_grid,
    rope_vs_sinusoidal,
)


@st.cache_data(max_entries=32, show_spinner=False)
def relative_numbers(d: int, base: float, seed: int, layout: str, m: int, n: int, c: int, n_pos: int) -> dict:
    q, k = rope.sample_qk(d, seed)
    span = list(range(min(n_pos, 2048)))
    return {
        "drift": float(abs(rope.norm_ratio(q, span, base, layout) - 1).max()),
        "mixed_drift": float(abs(rope.norm_ratio(q, span, base, "mixed") - 1).max()),
        "s": rope.score(q, k, m, n, base, layout),
        "s_shift": rope.score(q, k, m + c, n + c, base, layout),
        "s_swap": rope.score(q, k, n, m, base, layout),
        "norm": float((q**2).sum() ** 0.5),
        "ratio": float(rope.norm_ratio(q, [m], base, layout)[0]),
        "mixed_s": rope.score(q, k, m, n, base, "mixed"),
        "mixed_s_shift": rope.score(q, k, m + c, n + c, base, "mixed"),
        "mixed_ratio": float(rope.norm_ratio(q, [m], base, "mixed")[0]),
        "sin_pos": float(sn.dot_by_offset([m - n], d, base)[0]),
        "sin_neg": float(sn.dot_by_offset([n - m], d, base)[0]),
    }


@st.cache_data(max_entries=32, show_spinner=False)
def agreement(d: int, base: float, seed: int) -> dict:
    return rope.layout_agreement(d, base, 64, seed)


@st.cache_data(max_entries=32, show_spinner=False)
def float32_numbers(d: int, base: float) -> list[float]:
    return [float(e) for e in rope.float32_error([1e3, 1e4, 1e5, 1e6], d, base)]




lesson = ui.Lesson(
    "rope", "RoPE", icon="🌀", order=3,
    summary='Each pair of a query turns like a clock hand at θ_i = b^(−2i/d) (animated in the browser); the score'
            ' depends only on m − n; interleaved vs half-split layouts and the permutation linking them; an '
            "honest look at the long-term decay bound; the seeds' mixed layout, swapped q/k, reversed fast/slow "
            'pairs and float32 angles, wrong beside right.',
    intro="Rotary position embedding turns each pair of a query and a key by an angle that grows with the "
          "position. Watch the pairs rotate at their own speeds, then see why the attention score only "
          "depends on how far apart two tokens are, which channels form a pair in each layout, and where "
          "popular write-ups get it wrong.",
    controls=(
            ui.Int("d", "head dim d", default=64, lo=2, hi=256, step=2,
                   help="Rotary dimension: d/2 pairs of channels, each rotated as one 2-D vector."),
            ui.LogFloat("base", "base b", default=10000.0, lo=10.0, hi=1e7, extra=(500000.0,),
                        help="rope_theta. 10 000 in RoFormer and Llama 2, 500 000 in Llama 3."),
            ui.Int("n", "positions shown N", default=256, lo=8, hi=8192, step=8,
                   help="Positions in the heatmaps and curves (heatmaps show every k-th position above a cap)."),
            ui.Choice("layout", "pair layout", default="interleaved",
                      options={"interleaved": "interleaved (RoFormer, Meta)", "half": "half-split (GPT-NeoX, HF)"}),
            ui.Int("seed", "random seed for q and k", default=0, lo=0, hi=9999, widget="number"),
            ui.Int("m", "query position m", default=5, lo=0, hi=8192, widget="number"),
            ui.Int("kpos", "key position n", default=2, lo=0, hi=8192, widget="number"),
            ui.Int("c", "shift c (both positions)", default=4, lo=0, hi=8192, widget="number"),
    ),
)


def numbers(p: ui.Values) -> dict:
    """The scores, norms and drifts quoted by parts 3, 4 and 6 (cached)."""
    return relative_numbers(p.d, p.base, p.seed, p.layout, p.m, p.kpos, p.c, p.n)


# ---------------------------------------------------------------------------- 1. clock hands

@lesson.part('clock', '1. Clock hands', uses=('base', 'd', 'layout', 'seed'), title='1. Every pair is a clock hand')
def part_clock(p: ui.Values) -> None:
    clock = ui.controls(
        ui.Int("m_max", "animation ends at position M", default=30, lo=1, hi=8192, widget="number"),
        ui.Int("frames", "frames", default=31, lo=30, hi=72,
               help="At least 30, at most 72 frames keep the animation under 1 MB at d = 256."),
        ui.Choice("preset", "query q", default="ones",
                  options={"ones": "all ones (every hand starts at 45°)", "random": "random (seeded)"}),
        ui.Choice("pairs", "pairs drawn", default="spread",
                  options={"spread": "16, fast to slow", "all": "all d/2 pairs",
                           "ends": "fastest 8 and slowest 8", "stride4": "every 4th pair"}, widget="select",
                  help="Up to d = 32 every choice draws all pairs. 16 clocks stay readable and quick to redraw; "
                       "all d/2 clocks show every step from one pair to the next."),
        ui.Bool("angles", "angle m·θ_i under each clock", default=False,
                help="Up to 32 pairs: a second line under each clock shows its angle, frame by frame. Off, the "
                     "angle is in the hover of each tip, and every redraw is quicker (32 labels fewer)."),
        where="main", columns=4,
    )
    step = clock.m_max / (clock.frames - 1)
    if step > 3.0:
        st.info(f"Each frame advances the position by {step:.3g} tokens, so the fastest hands jump by more than "
                "a full turn per frame (a strobe effect). Lower M or raise the frame count to follow them.")
    ui.figure_panel(
        rope_clock,
        dict(dim=p.d, base=p.base, m_max=float(clock.m_max), n_frames=clock.frames, preset=clock.preset,
             seed=p.seed, layout=p.layout, pairs=clock.pairs, show_angles=clock.angles),
        key="clock", live="base",
        caption="Press Play, or drag the position slider under the chart: it runs in your browser. Pair 0 (top "
                "left) turns one radian per token and completes a turn every 2π ≈ 6.3 tokens; each following pair "
                "is slower by the same factor, and the last pairs hardly move in a whole document. By default 16 "
                "pairs are drawn, spread evenly from the fastest to the slowest (their labels give i); choose "
                "“all d/2 pairs” to see every step. A tip turns orange once its pair has completed a full turn. "
                "Hover a tip for its angle and wavelength.",
        latex=r"\theta_i = b^{-2i/d},\qquad (u, v) \mapsto (u\cos m\theta_i - v\sin m\theta_i,\;"
              r" u\sin m\theta_i + v\cos m\theta_i)",
        code=[rope.rotate, rope.inv_freq, rope.pair_channels],
    )


# ---------------------------------------------------------------------------- 2. angles and tables

@lesson.part('tables', '2a. Angles', uses=('base', 'd', 'n'), title='2a. The angles')
def part_angles(p: ui.Values) -> None:
    ui.figure_panel(
        rope_angle_heatmap, dict(dim=p.d, base=p.base, n_positions=p.n), key="angles",
        caption="Read each row left to right: fast pairs (bottom) cycle through all colours every few tokens, "
                "slow pairs (top) keep one colour for thousands. The colour scale is cyclic because an angle of "
                "2π is the same as 0. The dashed line is where each pair completes its first turn.",
        latex=r"\phi_{m,i} = m\,\theta_i \bmod 2\pi",
        code=[rope.angles, rope.wavelengths],
    )


@lesson.part('cossin', '2b. Stored tables', uses=('base', 'd', 'n'), title='2b. The tables a model stores')
def part_tables(p: ui.Values) -> None:
    ui.figure_panel(
        rope_cos_sin_tables, dict(dim=p.d, base=p.base, n_positions=p.n), key="tables",
        caption="Models precompute cos(mθ) and sin(mθ) once. Interleaved tables repeat each angle in two "
                "neighbouring columns; half-split tables put all d/2 angles in the left half and repeat them in "
                "the right half. Same numbers, different column order: the layout decides which columns rotate "
                "together. Only the first 64 positions are drawn; the pattern just continues.",
        code=[rope.cos_sin, rope.cos_sin_from_inv_freq],
    )


# ---------------------------------------------------------------------------- 3. relative property

@lesson.part('relative', '3a. Only m − n matters', uses=('base', 'c', 'd', 'kpos', 'layout', 'm', 'n', 'seed'),
              title='3a. Only the offset m − n survives')
def part_relative(p: ui.Values) -> None:
    nums = numbers(p)
    ui.numbers({"q_m·k_n": nums["s"], "q_(m+c)·k_(n+c)": nums["s_shift"], "‖q‖": nums["norm"],
                "‖R_m q‖": nums["norm"] * nums["ratio"]})
    ui.check("The score depends only on m − n", ok=abs(nums["s"] - nums["s_shift"]) < 1e-9 * (1 + abs(nums["s"])),
             detail=f"|difference| = {abs(nums['s'] - nums['s_shift']):.2e}; the rotation keeps the norm "
                    f"(ratio {nums['ratio']:.12f})")
    if p.n > MAX_GRID_POSITIONS:
        st.info(f"The score heatmap shows 1 position in {-(-p.n // MAX_GRID_POSITIONS)} of the N = {p.n} "
                "chosen, to keep the chart small; its diagonals stay constant.")
    ui.figure_panel(
        rope_score_grid, dict(dim=p.d, base=p.base, n_positions=p.n, layout=p.layout, seed=p.seed), key="grid",
        caption="Every diagonal (fixed m − n) has one colour: moving the query and the key together does not "
                "change their score. The picture is not symmetric about the main diagonal: a key 3 tokens to "
                "the left scores differently from one 3 tokens to the right.",
        latex=r"\langle R_m q, R_n k\rangle = \sum_i \operatorname{Re}\!\big[z^q_i\,\overline{z^k_i}\,"
              r"e^{\,i(m-n)\theta_i}\big]",
        code=[rope.score_grid, rope.score],
    )


@lesson.part('leftright', '3b. Left or right', uses=('base', 'c', 'd', 'kpos', 'layout', 'm', 'n', 'seed'),
              title='3b. Left or right? The sign of m − n')
def part_left_right(p: ui.Values) -> None:
    nums = numbers(p)
    ui.numbers({"RoPE score at Δ = m − n": nums["s"], "RoPE score at −Δ": nums["s_swap"]})
    ui.numbers({"sinusoidal PE·PE at Δ": nums["sin_pos"], "sinusoidal PE·PE at −Δ": nums["sin_neg"]})
    if p.n > 2048:
        st.caption("The curves below stop at Δ = ±2048 (N is larger) to stay readable.")
    ui.figure_panel(
        rope_vs_sinusoidal, dict(dim=p.d, base=p.base, max_offset=min(p.n, 2048), seed=p.seed), key="vs_sin",
        caption="Top: the RoPE score against the offset and its mirror image; they differ, so attention can "
                "prefer keys on one side. Bottom: the dot product of two sinusoidal codes (the Sinusoidal "
                "page) is the same for +Δ and −Δ, so on its own it cannot tell left from right.",
        latex=r"\text{per pair: } (q_u k_u + q_v k_v)\cos\Delta\theta_i + (q_u k_v - q_v "
              r"k_u)\sin\Delta\theta_i",
        code=[rope.relative_scores, sn.dot_by_offset],
    )
    st.markdown("More on the sinusoidal dot product: the [Sinusoidal page](Sinusoidal), part 3.")


# ---------------------------------------------------------------------------- 4. layouts

@lesson.part('layouts', '4a. Two layouts', uses=('base', 'd', 'seed'), title='4a. Two layouts, one rotation')
def part_layouts(p: ui.Values) -> None:
    ui.figure_panel(
        rope_pairing, dict(dim=p.d), key="pairing",
        caption="Interleaved RoPE (RoFormer, Meta, GPT-J) rotates neighbouring channels (2i, 2i+1); half-split "
                "RoPE (GPT-NeoX, transformers' rotate_half) rotates channel i with channel i + d/2. The grey "
                "lines are the permutation P that moves one layout onto the other; converting Meta weights to "
                "transformers applies it to the rows of W_q and W_k.",
        latex=r"P = [0, 2, 4, \dots, d-2,\; 1, 3, \dots, d-1],\qquad \mathrm{half}(Px) = "
              r"P\,\mathrm{interleaved}(x)",
        code=[rope.deinterleave_permutation, rope.layout_agreement],
    )
    agree = agreement(p.d, p.base, p.seed)
    ui.check("Permuting q and k by P makes the two layouts agree",
             ok=agree["max_score_diff"] < 1e-9 and agree["max_vector_diff"] < 1e-12,
             detail=f"max |score difference| = {agree['max_score_diff']:.1e}, max |vector difference| = "
                    f"{agree['max_vector_diff']:.1e} over 64 positions")


def mixed_side(p: ui.Values, layout: str, key: str, s: float, s_shift: float, ratio: float, drift: float) -> None:
    """One side of the mixed-layout pitfall: the score before and after a shift, the norm, and the grid."""
    ui.numbers({"q_m·k_n": s, "q_(m+c)·k_(n+c)": s_shift, "‖R_m q‖/‖q‖": ratio})
    ui.numbers({f"largest |‖R_m q‖/‖q‖ − 1|, m < {min(p.n, 2048)}": f"{drift:.2e}"})
    ui.figure_panel(rope_score_grid, dict(dim=p.d, base=p.base, n_positions=min(p.n, 128), layout=layout,
                                            seed=p.seed),
                    key=key, caption="Diagonals of the mixed version change colour along their length."
                    if layout == "mixed" else "Consistent layout: constant diagonals.",
                    code=[rope.rotate])


@lesson.part('mixed', '4b. Mixed layout', uses=('base', 'c', 'd', 'kpos', 'layout', 'm', 'n', 'seed'),
              title='4b. Mixing the two layouts is not a rotation')
def part_mixed(p: ui.Values) -> None:
    nums = numbers(p)
    ui.pitfall(
        "Mixed layout (seeds 001 and 002)",
        "Building cos/sin by concatenation (the half-split table) but rotating interleaved neighbours gives "
        "channel 2i the angle of pair 2i mod d/2 and channel 2i+1 that of pair 2i+1 mod d/2. The two halves of a "
        "pair then turn by different angles: this is not a rotation. Norms drift and the score stops depending "
        "on m − n only. Table and rotation must use the same layout.",
        key="mixed",
        wrong=lambda: mixed_side(p, "mixed", "mixed_wrong", nums["mixed_s"], nums["mixed_s_shift"],
                                 nums["mixed_ratio"], nums["mixed_drift"]),
        right=lambda: mixed_side(p, p.layout, "mixed_right", nums["s"], nums["s_shift"], nums["ratio"],
                                 nums["drift"]),
    )
    ui.figure_panel(
        rope_norms, dict(dim=p.d, base=p.base, n_positions=p.n, seed=p.seed), key="norms",
        caption="Both real layouts keep the length of q exactly (ratio 1); the mixed one stretches and shrinks "
                "it as the position changes.",
        code=[rope.norm_ratio],
    )


# ---------------------------------------------------------------------------- 5. decay

@lesson.part('decay', '5. The decay story', uses=('base', 'd', 'seed'), title="5. The 'long-term decay', honestly")
def part_decay(p: ui.Values) -> None:
    dec = ui.controls(ui.Int("max_delta", "largest offset Δ", default=1024, lo=16, hi=8192, step=16),
                      where="main", columns=1)
    ui.figure_panel(
        rope_decay, dict(dim=p.d, base=p.base, max_delta=dec.max_delta, seed=p.seed), key="decay",
        caption="B(Δ) is RoFormer's upper bound on the score's size, not a score, and it is not monotone: it "
                "rises on about half of the unit steps and only its envelope decays. Σcos(Δθ_i), half the score "
                "of all-ones q and k, even turns negative. For independent random q and k the mean score is zero "
                "at "
                "every offset. Decay is not why RoPE works (Barbero et al. 2024): in Gemma the fastest pairs carry "
                "positional attention patterns and the slowest pairs carry meaning, nearly independent of "
                "position.",
        latex=r"B(\Delta) = \frac{2}{d}\sum_{j=1}^{d/2}\Big|\sum_{i=0}^{j-1} e^{\,i\Delta\theta_i}\Big|",
        code=[rope.decay_bound, rope.cos_sum, rope.mean_random_score],
    )


# ---------------------------------------------------------------------------- 6. pitfalls

@lesson.part('pitfalls', '6. Pitfalls', uses=('base', 'c', 'd', 'kpos', 'layout', 'm', 'n', 'seed'))
def part_pitfalls(p: ui.Values) -> None:
    nums = numbers(p)
    grid = dict(dim=p.d, base=p.base, n_positions=min(p.n, 128), layout=p.layout, seed=p.seed)
    ui.pitfall(
        "q and k swapped (seed 000)",
        "Seed 000 defines `apply_rope(k, q, cis)` but calls it as `q, k = apply_rope(q, k, cis)`. The rotated "
        "query and key trade places, so the score at (m, n) is the true score at (n, m): the matrix is "
        "transposed and the model's sense of left and right is reversed. Weights trained with correct code "
        "then attend to the wrong side. Keep the order `(q, k)` in and out.",
        key="swap",
        wrong=lambda: (ui.numbers({"score at (m, n)": nums["s_swap"]}),
                       ui.figure_panel(rope_score_grid, dict(grid, swap=True), key="swap_wrong",
                                       caption="Swapped: the transpose of the right grid.")),
        right=lambda: (ui.numbers({"score at (m, n)": nums["s"]}),
                       ui.figure_panel(rope_score_grid, grid, key="swap_right",
                                       caption="Correct: query position on the rows.")),
    )
    ladder = dict(dim=p.d, base=p.base, n_positions=p.n)
    ui.pitfall(
        "Frequency or angle? Which pairs are fast? (seed 003)",
        "Seed 003 writes θ_i = pos/10000^(2i/d) and calls it a frequency. The frequency is θ_i = b^(−2i/d) "
        "(radians per token, no position in it); the angle is m·θ_i. It then says low dimensions change slowly "
        "and high ones quickly. The opposite is true: pair 0 turns by 1 radian per token (local detail), the "
        "last pair is the slowest (long range).",
        key="freq",
        wrong=lambda: ui.figure_panel(rope_frequency_ladder, dict(ladder, show_claim=True), key="freq_wrong",
                                      caption="Dashed: the seed's claimed ordering, reversed."),
        right=lambda: ui.figure_panel(rope_frequency_ladder, ladder, key="freq_right",
                                      caption="Pair 0 is the fastest; orange dots never complete a turn within N."),
    )
    err = float32_numbers(p.d, p.base)
    ui.pitfall(
        "float32 angles at large positions",
        "transformers computes m·θ_i in float32. A float32 number near 10^5 is only exact to about 0.008, so "
        "cos and sin are off by several 1e-3 there, while float64 stays exact to ~1e-11. Compare against a "
        "float64 reference only at small positions, or in the same precision.",
        key="f32",
        wrong=lambda: ui.numbers({"error at m = 10³": err[0], "m = 10⁴": err[1], "m = 10⁵": err[2],
                                  "m = 10⁶": err[3]}, fmt="{:.1e}"),
        right=lambda: ui.say("float64 angles: the rounding of m·θ_i stays near 1e-10 even at m = 10⁶."),
    )
    ui.figure_panel(
        rope_float32_error, dict(dim=p.d, base=p.base), key="f32",
        caption="The float32 error grows in proportion to the position: about 1e-5 at 10³, a few 1e-4 at "
                "10⁴, a few 1e-3 at 10⁵ and above 1e-2 by 10⁶. It follows the rounding step of the angle "
                "itself (dotted line).",
        code=[rope.float32_error, rope.angles],
    )


lesson.run()
