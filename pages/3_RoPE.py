"""RoPE from first principles: why an additive code is not relative, the rotation that is, q and k turning
together, the layouts, which pairs matter, and the choice of the base."""

import streamlit as st

from posviz import rope, rope_measures, ui
from posviz.figures import rope_prose
from posviz.figures.rope import (
    MAX_TABLE_ROWS,
    rope_angle_heatmap,
    rope_base_choice,
    rope_cos_sin_tables,
    rope_decay,
    rope_float32_error,
    rope_frequency_ladder,
    rope_pair_roles,
    rope_pairing,
)
from posviz.figures.rope_derive import TERM_NAMES, rope_additive_terms, rope_derivation
from posviz.figures.rope_hands import clock_pairs, rope_clock, rope_qk_turn
from posviz.figures.rope_scores import MAX_GRID_POSITIONS, rope_left_right, rope_norms, rope_score_grid
from posviz.i18n import N_, _

# what each part quotes, measured by posviz.rope_measures; cached per arguments and shared by every session
relative_numbers = ui.cached(rope_measures.relative_checks)
additive_numbers = ui.cached(rope_measures.additive_summary)
derivation_numbers = ui.cached(rope_measures.derivation_summary)
together_numbers = ui.cached(rope_measures.together_ends)
agreement = ui.cached(rope.layout_agreement)
left_right_numbers = ui.cached(rope_measures.left_right_summary)
decay_numbers = ui.cached(rope_measures.decay_shape)
pair_numbers = ui.cached(rope_measures.pair_summary)
base_numbers = ui.cached(rope_measures.base_summary)
float32_numbers = ui.cached(rope_measures.float32_quotes)
DECAY_SAMPLES = 512  # random (q, k) pairs averaged by the decay part's third curve


lesson = ui.Lesson(
    "rope", N_("RoPE"), icon="🌀", order=3, headline="rope_angle_heatmap",
    summary=N_("RoPE from first principles: why adding a position code cannot give a relative score (four terms), "
               "the rotation derived (2-D, complex, d/2 planes), q and k turning together with their angle kept "
               "(animated in the browser), the score's constant diagonals, left and right compared like with like, "
               "the two pair layouts, the decay bound honestly, which pairs turn (partial RoPE, p-RoPE, DeepSeek's "
               "decoupled part), the base against the training length, and common pitfalls beside the fix."),
    intro=N_("Rotary position embedding turns each pair of a query and a key by an angle that grows with the "
             "position. Start from the question RoPE answers (how can a score depend only on how far apart two "
             "tokens are?), watch each pair turn like a clock hand, derive why that rotation answers the question, "
             "watch a query and a key turn together, then see which channels pair up, which pairs carry position, "
             "how to pick the base, and where popular write-ups go wrong."),
    controls=(
        ui.Int("d", N_("head dim d"), default=64, lo=2, hi=256, step=2,
               help=N_("Rotary dimension: d/2 pairs of channels, each rotated as one 2-D vector.")),
        ui.LogFloat("base", N_("base b"), default=10000.0, lo=10.0, hi=1e7, extra=(500000.0,),
                    help=N_("rope_theta. 10 000 in RoFormer and Llama 2, 500 000 in Llama 3.")),
        ui.Int("n", N_("positions shown N"), default=256, lo=8, hi=8192, step=8,
               help=N_("Positions in the heatmaps and curves (heatmaps show every k-th position above a cap).")),
        ui.Choice("layout", N_("pair layout"), default="interleaved",
                  options={"interleaved": N_("interleaved (RoFormer, Meta)"), "half": N_("half-split (GPT-NeoX, HF)")}),
        ui.Int("seed", N_("random seed for q and k"), default=0, lo=0, hi=9999, widget="number"),
        ui.Int("m", N_("query position m"), default=5, lo=0, hi=8192, widget="number"),
        ui.Int("kpos", N_("key position n"), default=2, lo=0, hi=8192, widget="number"),
        ui.Int("c", N_("shift c (both positions)"), default=4, lo=0, hi=8192, widget="number"),
        ui.Int("pair", N_("pair i"), default=0, lo=0, hi=lambda v: v["d"] // 2 - 1, hi_max=127,
               help=N_("The pair drawn large: 0 is the fastest (θ₀ = 1 rad/token), d/2 − 1 the slowest.")),
    ),
)


def numbers(p: ui.Values) -> dict:
    """The scores, norms and drifts quoted by the score, layout and pitfall parts (cached)."""
    return relative_numbers(p.d, p.base, p.seed, p.layout, p.m, p.kpos, p.c, p.n)


# ---------------------------------------------------------------------------- 1. why not just add?

@lesson.part("add", N_("1. Why not just add?"), uses=("base", "d", "seed"),
             title=N_("1. Why not just add a position code?"),
             controls=(
                 ui.Int("add_T", N_("positions T"), default=64, lo=4, hi=256, step=4),
                 ui.Choice("tokens", N_("tokens x_m"), default="same",
                           options={"same": N_("one token at every position"),
                                    "random": N_("a random token per position")}),
                 ui.Choice("weights", "W_q, W_k", default="random",
                           options={"random": N_("learned (seeded random)"), "identity": N_("identity")}),
             ))
def part_add(p: ui.Values) -> None:
    ui.prose(_("The question RoPE answers: the attention score of a query at position m and a key at position n "
               "should depend on the tokens and on how far apart they are, m − n, not on where the pair sits. The "
               "first idea is to add a position code p_m to each token embedding x_m, as the original Transformer "
               "does. Expand the score and look at each of its four terms."))
    add = ui.controls(where="main", columns=3)
    num = additive_numbers(add.add_T, p.d, p.base, p.seed, add.tokens, add.weights)
    ui.figure_panel(
        rope_additive_terms,
        dict(dim=p.d, base=p.base, n_positions=add.add_T, seed=p.seed, tokens=add.tokens, weights=add.weights),
        key="add",
        live={"add_T": "n_positions", "d": "dim", "base": "base"}, caption=rope_prose.additive_caption(num),
        latex=r"(x_m + p_m)^\top W_q^\top W_k (x_n + p_n) = x_m^\top A x_n + x_m^\top A p_n + p_m^\top A x_n"
              r" + p_m^\top A p_n,\qquad A = W_q^\top W_k",
        code=[rope.additive_score_terms, rope.additive_weights, rope.off_offset_residual, rope.dependence],
    )
    names = (*rope.ADDITIVE_TERMS, "full")
    ui.numbers({_("RMS, {term}", term=_(TERM_NAMES[name])): num[name]["rms"] for name in names}, fmt="{:.3g}")
    ui.numbers({_("RMS along diagonals, {term}", term=_(TERM_NAMES[name])): num[name]["res"] for name in names},
               fmt="{:.2g}")
    ui.check(_("The four terms add up to the full score"),
             ok=num["sum_error"] <= 1e-10 * max(1.0, num["scale"]),
             detail=_("max |sum of the terms − (x_m + p_m)ᵀ W_qᵀW_k (x_n + p_n)| = {error:.1e} over {positions}² "
                      "cells (scores up to {scale:.3g})", error=num["sum_error"], positions=add.add_T,
                      scale=num["scale"]))


# ---------------------------------------------------------------------------- 2. clock hands

@lesson.part("clock", N_("2. Clock hands"), uses=("base", "d", "layout", "seed"),
             title=N_("2. Every pair is a clock hand"),
             controls=(
                 ui.Int("m_max", N_("animation ends at position M"), default=30, lo=1, hi=8192, widget="number"),
                 ui.Int("frames", N_("frames"), default=31, lo=30, hi=72,
                        help=N_("At least 30, at most 72 frames keep the animation under 1 MB at d = 256.")),
                 ui.Choice("preset", N_("query q"), default="ones",
                           options={"ones": N_("all ones (every hand starts at 45°)"),
                                    "random": N_("random (seeded)")}),
                 ui.Choice("pairs", N_("pairs drawn"), default="spread",
                           options={"spread": N_("16, fast to slow"), "all": N_("all d/2 pairs"),
                                    "ends": N_("fastest 8 and slowest 8"), "stride4": N_("every 4th pair")},
                           widget="select",
                           help=N_("Up to d = 32 every choice draws all pairs. 16 clocks stay readable and quick to "
                                   "redraw; all d/2 clocks show every step from one pair to the next.")),
                 ui.Bool("angles", N_("angles m·θ_i"), default=False,
                         help=N_("Up to 32 pairs: a second line under each clock shows its angle m·θ_i, frame by "
                                 "frame. Off, the angle is in the hover of each tip, and every redraw is quicker (32 "
                                 "labels fewer).")),
             ))
def part_clock(p: ui.Values) -> None:
    derive = ui.href("rope", part="derive", d=p.d, base=f"{p.base:g}")
    pair_i = ui.term("pair_index", _("pair i"))
    ui.prose(_("RoPE's answer, first as a picture. Cut the query's d channels into d/2 pairs and draw each pair as "
               "the hand of a clock of its own ({pair_i}, counted from 0). At position m, RoPE turns hand i by the "
               "angle m·θ_i, where θ_i = b^(−2i/d) is that pair's speed in radians per token: pair 0 turns fastest "
               "and each following pair more slowly. Turning changes no hand's length; only the direction the hands "
               "point carries the position. Why turning the query and the key this way makes their score depend on "
               "m − n alone is the next part: [derive the rotation]({derive}).",
               pair_i=pair_i, derive=derive))
    clock = ui.controls(where="main", columns=4)
    step = clock.m_max / (clock.frames - 1)
    if step > 3.0:
        st.info(_("Each frame advances the position by {step:.3g} tokens, so the fastest hands jump by more than "
                  "a full turn per frame (a strobe effect). Lower M or raise the frame count to follow them.",
                  step=step))
    ui.figure_panel(
        rope_clock,
        dict(dim=p.d, base=p.base, m_max=float(clock.m_max), n_frames=clock.frames, preset=clock.preset,
             seed=p.seed, layout=p.layout, pairs=clock.pairs, show_angles=clock.angles),
        key="clock", live={"frames": "n_frames", "d": "dim", "base": "base"},
        caption=_("Press Play, or drag the position slider under the chart: it runs in your browser. Pair 0 (top "
                  "left) turns one radian per token and completes a turn every 2π ≈ 6.3 tokens; each following "
                  "pair is slower by the same factor, and the last pairs hardly move in a whole document. {drawn} "
                  "A tip turns orange once its pair has completed a full turn. Hover a tip for its angle and "
                  "wavelength.", drawn=_pairs_drawn(p.d, clock.pairs)),
        latex=r"\theta_i = b^{-2i/d},\qquad (u, v) \mapsto (u\cos m\theta_i - v\sin m\theta_i,\;"
              r" u\sin m\theta_i + v\cos m\theta_i)",
        code=[rope.rotate, rope.inv_freq, rope.pair_channels],
    )


def _pairs_drawn(d: int, pairs: str) -> str:
    """Which pairs the clock shows, counted as the figure picks them (``clock_pairs``)."""
    shown = len(clock_pairs(d // 2, pairs))
    return (_("All {shown} pairs are drawn (their labels give i).", shown=shown) if shown == d // 2 else
            _("{shown} of the {pairs} pairs are drawn (their labels give i); choose “all d/2 pairs” to see every "
              "step.", shown=shown, pairs=d // 2))


# ---------------------------------------------------------------------------- 3. derive the rotation

@lesson.part("derive", N_("3. Derive the rotation"), uses=("base", "c", "d", "kpos", "m", "pair", "seed"),
             title=N_("3. Derive the rotation: ⟨f(q, m), f(k, n)⟩ = g(q, k, m − n)"))
def part_derive(p: ui.Values) -> None:
    clock = ui.href("rope", part="clock", d=p.d, base=f"{p.base:g}")
    j_term = ui.term("imaginary_unit", _("j for the imaginary unit"))
    i_term = ui.term("pair_index", _("i numbers the pairs"))
    ui.prose(_("Why do the [clock hands]({clock}) answer the question? Ask for a map f that puts the position into "
               "the query and the key themselves, such that their dot product depends on m and n only through "
               "m − n (RoFormer §3.1). In two dimensions a rotation does it: rotating q by mθ and k by nθ leaves "
               "them at the angle they had, plus (m − n)θ, and a rotation keeps lengths. Written with complex "
               "numbers (a pair (u, v) as u + jv, where j² = −1: we write {j_term} because {i_term}), the rotation "
               "is a multiplication by e^{{jmθ}}, and the product of e^{{jmθ}} with the conjugate of e^{{jnθ}} is "
               "e^{{j(m−n)θ}}. For d dimensions, cut the vector into d/2 pairs and turn each in its own plane at "
               "its own speed θ_i = b^(−2i/d): R_m is block-diagonal, so the d/2 planes never mix.", clock=clock,
               j_term=j_term, i_term=i_term))
    ui.figure_panel(
        rope_derivation, dict(dim=p.d, base=p.base, m=float(p.m), n=float(p.kpos), pair=p.pair, seed=p.seed),
        key="derive",
        live={"d": ui.Sets(rope_measures.derivation_settings, pair=p.pair), "pair": "pair", "base": "base"},
        caption=_("Left: pair {pair} of q turned by m·θ = {m}·θ_{pair} and of k by n·θ = {n}·θ_{pair}, "
                  "counter-clockwise (channel 2i across, 2i+1 up). The solid arc, the angle from k to q, is the "
                  "original angle plus (m − n)θ: move both positions by the same amount and it does not change. "
                  "Right: the matrix R_m, one 2 × 2 rotation per pair on the diagonal and zeros elsewhere. (The "
                  "Sinusoidal lesson draws its pairs as (cos, sin), so its hands turn counter-clockwise too.)",
                  pair=p.pair, m=p.m, n=p.kpos),
        code=[rope.rotation_2d, rope.block_rotation, rope.complex_pairs, rope.derivation_checks],
    )
    st.latex(r"f(q, m) = R_m q,\quad R_m = \operatorname{diag}\big(R(m\theta_0), \dots, R(m\theta_{d/2-1})\big),"
             r"\quad R(a) = \begin{pmatrix}\cos a & -\sin a\\ \sin a & \cos a\end{pmatrix}")
    st.latex(r"(R_m q)^\top (R_n k) = q^\top R_m^\top R_n k = q^\top R_{n-m}\, k = "
             r"\sum_i \operatorname{Re}\big[z^q_i\, \overline{z^k_i}\, e^{\,j(m-n)\theta_i}\big],\quad j^2 = -1")
    num = derivation_numbers(p.d, p.base, p.seed, p.m, p.kpos, p.c)
    ui.numbers({"(R_m q)ᵀ(R_n k)": num["score_matrix"], "qᵀ R_(n−m) k": num["score_relative"],
                "Re Σ z^q conj(z^k) e^(j(m−n)θ)": num["score_complex"],
                _("score at (m + c, n + c)"): num["score_shifted"]}, fmt="{:.10g}")
    spread = max(abs(num[k] - num["score_matrix"]) for k in ("score_relative", "score_complex", "score_shifted"))
    ui.check(_("R_mᵀ R_n = R_(n−m): two rotations compose into one by the difference"),
             ok=num["composition_error"] < 1e-9,
             detail=_("max |entry difference| = {error:.1e}", error=num["composition_error"]))
    ui.check(_("Rotating a pair is multiplying it by e^(jmθ_i)"), ok=num["complex_error"] < 1e-9,
             detail=_("max |difference| over the d/2 pairs = {error:.1e}", error=num["complex_error"]))
    ui.check(_("The three ways of writing the score agree, and shifting both positions keeps it"),
             ok=spread < 1e-9 * (1 + abs(num["score_matrix"])),
             detail=_("largest difference {spread:.1e}; ‖R_m q‖ − ‖q‖ = {change:.1e}", spread=spread,
                      change=num["norm_change"]))


# ---------------------------------------------------------------------------- 4. q and k turning together

@lesson.part("together", N_("4. q and k turn together"),
             uses=("base", "d", "kpos", "layout", "m", "pair", "seed"),
             title=N_("4. q and k turn together; their angle does not"),
             controls=(
                 ui.Float("c_max", N_("shift both by c up to"), default=24.0, lo=1.0, hi=512.0, step=1.0),
                 ui.Int("qk_frames", N_("frames"), default=49, lo=13, hi=72),
             ))
def part_together(p: ui.Values) -> None:
    tog = ui.controls(where="main", columns=2)
    num = together_numbers(p.d, p.base, p.seed, p.layout, p.m, p.kpos, p.pair, float(tog.c_max))
    ui.numbers({_("score at (m, n)"): num["score"][0],
                _("score at (m + {c:g}, n + {c:g})", c=tog.c_max): num["score"][1],
                _("pair {pair}: angle k → q (rad)", pair=p.pair): num["angle"][0],
                _("pair {pair}: angle after the shift", pair=p.pair): num["angle"][1]})
    ui.figure_panel(
        rope_qk_turn,
        dict(dim=p.d, base=p.base, m=float(p.m), n=float(p.kpos), pair=p.pair, c_max=float(tog.c_max),
             n_frames=tog.qk_frames, seed=p.seed, layout=p.layout),
        key="together",
        live={"c_max": "c_max", "qk_frames": "n_frames", "d": "dim", "pair": "pair", "base": "base"},
        caption=_("Press Play (it runs in your browser). The query sits at m + c and the key at n + c while c "
                  "runs from 0 to {c_max:g}. Pair {pair} turns by c·θ = {turned:.3g} rad over the animation, q's "
                  "hand and k's hand alike, so the angle between them stays {angle:+.4f} rad and the whole score "
                  "stays {score:+.4f} in every frame (the status line recomputes both at the shifted positions). On "
                  "the right every pair does the same at its own speed: fast pairs spin, slow ones barely move, each "
                  "keeping its own angle.", c_max=tog.c_max, pair=p.pair, turned=num["turned"],
                  angle=num["angle"][0], score=num["score"][0]),
        latex=r"\langle R_{m+c}\,q, R_{n+c}\,k\rangle = q^\top R_{(n+c)-(m+c)}\,k = \langle R_m q, R_n k\rangle",
        code=[rope.qk_pairs],
    )


# ---------------------------------------------------------------------------- 5. angles and tables

@lesson.part("tables", N_("5a. Angles"), uses=("base", "d", "n"), title=N_("5a. The angles"))
def part_angles(p: ui.Values) -> None:
    ui.figure_panel(
        rope_angle_heatmap, dict(dim=p.d, base=p.base, n_positions=p.n), key="angles",
        live={"d": "dim", "n": "n_positions", "base": "base"},
        caption=_("Read each row left to right: fast pairs (bottom) cycle through all colours every few tokens, "
                  "slow pairs (top) keep one colour for thousands. The colour scale is cyclic because an angle of "
                  "2π is the same as 0. The dashed line is where each pair completes its first turn."),
        latex=r"\phi_{m,i} = m\,\theta_i \bmod 2\pi",
        code=[rope.angles, rope.wavelengths],
    )


@lesson.part("cossin", N_("5b. Stored tables"), uses=("base", "d"), title=N_("5b. The tables a model stores"))
def part_tables(p: ui.Values) -> None:
    ui.figure_panel(
        rope_cos_sin_tables, dict(dim=p.d, base=p.base, n_positions=MAX_TABLE_ROWS), key="tables",
        live={"d": "dim", "base": "base"},
        caption=_("Models precompute cos(mθ) and sin(mθ) once. Interleaved tables repeat each angle in two "
                  "neighbouring columns; half-split tables put all d/2 angles in the left half and repeat them in "
                  "the right half. Same numbers, different column order: the layout decides which columns rotate "
                  "together. Positions 0 to {last} show the pattern; a model's table just continues it to its "
                  "context length.", last=MAX_TABLE_ROWS - 1),
        code=[rope.cos_sin, rope.cos_sin_from_inv_freq],
    )


# ---------------------------------------------------------------------------- 6. the relative property

@lesson.part("relative", N_("6a. Only m − n matters"), uses=("base", "c", "d", "kpos", "layout", "m", "n", "seed"),
             title=N_("6a. Only the offset m − n survives"))
def part_relative(p: ui.Values) -> None:
    nums = numbers(p)
    ui.numbers({"q_m·k_n": nums["s"], "q_(m+c)·k_(n+c)": nums["s_shift"], "‖q‖": nums["norm"],
                "‖R_m q‖": nums["norm"] * nums["ratio"]})
    ui.check(_("The score depends only on m − n"), ok=abs(nums["s"] - nums["s_shift"]) < 1e-9 * (1 + abs(nums["s"])),
             detail=_("|difference| = {difference:.2e}; the rotation keeps the norm (ratio {ratio:.12f})",
                      difference=abs(nums["s"] - nums["s_shift"]), ratio=nums["ratio"]))
    if p.n > MAX_GRID_POSITIONS:
        st.info(_("The score heatmap shows 1 position in {step} of the N = {n} chosen, to keep the chart small; its "
                  "diagonals stay constant.", step=-(-p.n // MAX_GRID_POSITIONS), n=p.n))
    shown = "" if max(p.m, p.kpos) + p.c < p.n else _(" (a marked cell lies beyond the N positions shown: raise N "
                                                        "or lower m, n, c to see it)")
    offset_term = ui.term("offset", _("offset m − n"))
    ui.figure_panel(
        rope_score_grid, dict(dim=p.d, base=p.base, n_positions=p.n, layout=p.layout, seed=p.seed, m=p.m, n=p.kpos,
                              c=p.c), key="grid",
                              live={"d": "dim", "n": "n_positions", "base": "base"},
        caption=_("The square marks (m, n) = ({m}, {n}) and the circle (m + c, n + c) = ({m_c}, {n_c}){beyond}: "
                  "both lie on the dashed diagonal m − n = {offset}, and both score {score:.4f}. Every diagonal "
                  "(fixed {offset_term}) has one colour: moving the query and the key together does not change "
                  "their score. The picture is not symmetric about the main diagonal: a key Δ tokens to the left "
                  "generally scores differently from one Δ tokens to the right (part 6b).", m=p.m, n=p.kpos,
                  m_c=p.m + p.c, n_c=p.kpos + p.c, beyond=shown, offset=p.m - p.kpos, score=nums["s"],
                  offset_term=offset_term),
        latex=r"\langle R_m q, R_n k\rangle = \sum_i \operatorname{Re}\!\big[z^q_i\,\overline{z^k_i}\,"
              r"e^{\,j(m-n)\theta_i}\big],\quad j^2 = -1",
        code=[rope.score_grid, rope.score],
    )


@lesson.part("leftright", N_("6b. Left or right"), uses=("base", "c", "d", "seed"),
             title=N_("6b. Left or right? Like with like"),
             controls=(
                 ui.Int("lr_max", N_("largest offset Δ"), default=64, lo=8, hi=1000, step=8,
                        help=N_("Offsets −Δ … Δ; the query sits at Δ and at Δ + c, so every key position is ≥ 0.")),
             ))
def part_left_right(p: ui.Values) -> None:
    lr = ui.controls(where="main", columns=1)
    c = min(p.c, rope.MAX_OFFSET)
    max_offset = rope_measures.left_right_offset(p.d, lr.lr_max)
    num = left_right_numbers(p.d, p.base, max_offset, c, p.seed)
    mir = num["mirror"]
    ui.numbers({"RoPE, q ≠ k: max |S(Δ) − S(−Δ)|": mir["rope_a"], "RoPE, q = k": mir["rope_same"],
                _("absolute + learned W"): mir["abs_a"], _("absolute, W = I"): mir["abs_identity"]}, fmt="{:.3g}")
    ui.numbers({_("RoPE: max |S at query {first} − S at {second}|", first=max_offset, second=max_offset + c):
                num["rope_anchor"], _("absolute + learned W: same"): num["abs_anchor"]}, fmt="{:.3g}")
    ui.prose(_("Comparing RoPE's score with the bare dot product PE·PE of two sinusoidal codes is unfair: a "
               "model never compares raw codes, it compares W_q(x + p) with W_k(x + p), and a learned W can make "
               "that direction-aware. Compare like with like."))
    ui.figure_panel(
        rope_left_right, dict(dim=p.d, base=p.base, max_offset=max_offset, c=c, seed=p.seed), key="leftright",
        live={"lr_max": "max_offset", "d": "dim", "base": "base"},
        caption=_("Left, RoPE: for q ≠ k the score at +Δ and −Δ differs (by up to {rope_a:.3g}); for q = k it is "
                  "symmetric (difference {rope_same:.1e}), since the sine term (q_u k_v − q_v k_u) vanishes. Right, "
                  "an absolute code with a learned W: direction-aware as well (up to {abs_a:.3g}), and symmetric "
                  "with W = I (grey). The real difference is the dotted curve: moving the query from {first} to "
                  "{second} leaves RoPE's curve in place (largest change {rope_anchor:.1e}) but moves the absolute "
                  "one (by up to {abs_anchor:.3g}). RoPE's whole score is a function of m − n alone, for any q and "
                  "k.", rope_a=mir["rope_a"], rope_same=mir["rope_same"], abs_a=mir["abs_a"], first=max_offset,
                  second=max_offset + c, rope_anchor=num["rope_anchor"], abs_anchor=num["abs_anchor"]),
        latex=r"\text{per pair: } (q_u k_u + q_v k_v)\cos\Delta\theta_i + (q_u k_v - q_v k_u)\sin\Delta\theta_i",
        code=[rope.left_right_curves, rope.absolute_offset_scores],
    )
    st.markdown(_("The four terms of the absolute score: [part 1]({link}).", link=ui.href("rope", part="add")))


# ---------------------------------------------------------------------------- 7. layouts

@lesson.part("layouts", N_("7a. Two layouts"), uses=("base", "d", "seed"), title=N_("7a. Two layouts, one rotation"),
             controls=(
                 ui.Int("pd", N_("channels in the diagram"), default=8, lo=2, hi=64, step=2,
                        help=N_("The pairing pattern is the same for every d; 8 channels show it line by line.")),
             ))
def part_layouts(p: ui.Values) -> None:
    lay = ui.controls(where="main", columns=1)
    layouts = ui.term("layout", _("layouts"))
    ui.figure_panel(
        rope_pairing, dict(dim=lay.pd), key="pairing",
        live={"pd": "dim"},
        caption=_("Two {layouts}: interleaved RoPE (RoFormer, Meta, GPT-J) rotates neighbouring channels (2i, "
                  "2i+1); half-split RoPE (GPT-NeoX, transformers' rotate_half) rotates channel i with channel "
                  "i + d/2. The grey lines are the permutation P that moves one layout onto the other; converting "
                  "Meta weights to transformers applies it to the rows of W_q and W_k.",
                  layouts=layouts),
        latex=r"P = [0, 2, 4, \dots, d-2,\; 1, 3, \dots, d-1],\qquad \mathrm{half}(Px) = "
              r"P\,\mathrm{interleaved}(x)",
        code=[rope.deinterleave_permutation, rope.layout_agreement],
    )
    agree = agreement(p.d, p.base, 64, p.seed)
    ui.check(_("Permuting q and k by P makes the two layouts agree"),
             ok=agree["max_score_diff"] < 1e-9 and agree["max_vector_diff"] < 1e-12,
             detail=_("max |score difference| = {score:.1e}, max |vector difference| = {vector:.1e} over 64 "
                      "positions", score=agree["max_score_diff"], vector=agree["max_vector_diff"]))


def mixed_side(p: ui.Values, layout: str, nums: dict, prefix: str) -> None:
    """One side of the mixed-layout pitfall (``prefix`` "mixed_" or ""): the score of (m, n) and of (m + c, n + c),
    the norm, and the grid with those two cells marked (equal scores on a consistent layout, not on the mixed)."""
    m, n, c = p.m, p.kpos, p.c
    s, s_shift = nums[prefix + "s"], nums[prefix + "s_shift"]
    ui.numbers({_("q_m·k_n at ({m}, {n})", m=m, n=n): s,
                _("q_(m+c)·k_(n+c) at ({m}, {n})", m=m + c, n=n + c): s_shift, "‖R_m q‖/‖q‖": nums[prefix + "ratio"]})
    ui.numbers({_("largest |‖R_m q‖/‖q‖ − 1|, m < {span}", span=min(p.n, rope_measures.NORM_SPAN)):
                f"{nums[prefix + 'drift']:.2e}"})
    ui.figure_panel(rope_score_grid, dict(dim=p.d, base=p.base, n_positions=min(p.n, 128), layout=layout,
                                            seed=p.seed, m=m, n=n, c=c),
                    key="mixed_wrong" if prefix else "mixed_right",
                    live={"d": "dim", "base": "base", "n": ui.AtMost("n_positions", 128)},
                    caption=(_("Diagonals of the mixed version change colour along their length: the marked cells "
                               "({m}, {n}) and ({m_c}, {n_c}) share a diagonal and score {score:.4f} and "
                               "{shifted:.4f}.", m=m, n=n, m_c=m + c, n_c=n + c, score=s, shifted=s_shift)
                             if prefix else _("Consistent layout: constant diagonals; the marked cells ({m}, {n}) and "
                                              "({m_c}, {n_c}) both score {score:.4f}.", m=m, n=n, m_c=m + c,
                                              n_c=n + c, score=s)),
                    code=[rope.rotate])


@lesson.part("mixed", N_("7b. Mixed layout"), uses=("base", "c", "d", "kpos", "layout", "m", "n", "seed"),
             title=N_("7b. Mixing the two layouts is not a rotation"))
def part_mixed(p: ui.Values) -> None:
    nums = numbers(p)
    ui.pitfall(
        _("Mixed layout"),
        _("Building cos/sin by concatenation (the half-split table) but rotating interleaved neighbours gives "
          "channel 2i the angle of pair 2i mod d/2 and channel 2i+1 that of pair 2i+1 mod d/2. The two halves of a "
          "pair then turn by different angles: this is not a rotation. Norms drift and the score stops depending "
          "on m − n only. Table and rotation must use the same layout."),
        key="mixed",
        wrong=lambda: mixed_side(p, "mixed", nums, "mixed_"),
        right=lambda: mixed_side(p, p.layout, nums, ""),
    )
    ui.figure_panel(
        rope_norms, dict(dim=p.d, base=p.base, n_positions=p.n, seed=p.seed), key="norms",
        live={"d": "dim", "n": "n_positions", "base": "base"},
        caption=_("Both real layouts keep the length of q exactly (ratio 1); the mixed one stretches and shrinks "
                  "it as the position changes."),
        code=[rope.norm_ratio],
    )


# ---------------------------------------------------------------------------- 8. decay

@lesson.part("decay", N_("8. The decay story"), uses=("base", "d", "seed"),
             title=N_("8. The 'long-term decay', honestly"),
             controls=(
                 ui.Int("max_delta", N_("largest offset Δ"), default=1024, lo=16, hi=8192, step=16),
             ))
def part_decay(p: ui.Values) -> None:
    dec = ui.controls(where="main", columns=1)
    num = decay_numbers(p.d, p.base, dec.max_delta)
    ui.figure_panel(
        rope_decay, dict(dim=p.d, base=p.base, max_delta=dec.max_delta, n_samples=DECAY_SAMPLES, seed=p.seed),
        key="decay",
        live={"max_delta": "max_delta", "d": "dim", "base": "base"}, caption=rope_prose.decay_caption(num,
              dec.max_delta, DECAY_SAMPLES),
        latex=r"B(\Delta) = \frac{2}{d}\sum_{\ell=1}^{d/2}\Big|\sum_{i=0}^{\ell-1} e^{\,j\Delta\theta_i}\Big|,"
              r"\quad j^2 = -1",
        code=[rope.decay_bound, rope.cos_sum, rope.mean_random_score],
    )


# ---------------------------------------------------------------------------- 9. which pairs matter

SCHEMES = {"full": N_("full RoPE"), "partial": N_("partial (GPT-NeoX, Phi)"), "p-rope": N_("p-RoPE (Barbero et al.)"),
           "decoupled": N_("decoupled (DeepSeek)")}
SHARES = {"0.125": "1/8", "0.25": "1/4 (GPT-NeoX rotary_pct)", "1/3": N_("1/3 (DeepSeek-V3: 64 of 192)"),
          "0.4": "0.4", "0.5": "1/2", "0.75": "3/4", "1": N_("all")}
SHARE_VALUES = {"0.125": 0.125, "0.25": 0.25, "1/3": 1 / 3, "0.4": 0.4, "0.5": 0.5, "0.75": 0.75, "1": 1.0}


@lesson.part("pairs", N_("9. Which pairs matter"), uses=("base", "d"),
             title=N_("9. Which pairs matter: partial RoPE, p-RoPE, DeepSeek's decoupled part"),
             controls=(
                 ui.Choice("scheme", N_("variant"), default="p-rope", options=SCHEMES, widget="radio"),
                 ui.Choice("share", N_("share of the head that rotates"), default="0.75", options=SHARES,
                           widget="select"),
                 ui.LogFloat("ctx", N_("context L (tokens)"), default=4096.0, lo=256.0, hi=131072.0,
                             extra=tuple(float(2**k) for k in range(8, 18))),
             ))
def part_pairs(p: ui.Values) -> None:
    pr = ui.controls(where="main", columns=3)
    pairs, fraction = rope_measures.rotated_pairs(p.d, SHARE_VALUES[pr.share])
    L = int(pr.ctx)
    num = pair_numbers(p.d, p.base, pr.scheme, fraction, L)
    roles = num["roles"]
    ui.numbers({_("pairs that turn"): roles["turns"], _("under a quarter turn within L"): roles["under a quarter turn"],
                _("not rotated"): roles["not rotated"], _("under a quarter turn with full RoPE"): num["full_quarter"]},
               fmt="{}")
    ui.figure_panel(
        rope_pair_roles, dict(dim=p.d, base=p.base, scheme=pr.scheme, fraction=fraction, context=L), key="pairs",
        live={"ctx": "context", "base": "base", "d": ui.Sets(rope_measures.pair_roles_settings,
                                                             share=SHARE_VALUES[pr.share])},
        caption=_("{what} Within L = {length:,} tokens, {turns} pairs turn at least a quarter turn, {quarter} turn "
                  "less and {still} do not turn at all. For a pair under a quarter turn, cos(Δθ_i) > 0 at every "
                  "distance |Δ| ≤ L: its share of the score, |h_i|·cos(Δθ_i + φ_i), is a cosine whose angle stays "
                  "less than a quarter turn from φ_i. The share itself can still change sign: it does so within L "
                  "exactly when φ_i, the angle between the pair of q and the pair of k, lies less than L·|θ_i| from "
                  "±π/2 (the two nearly perpendicular). With full RoPE at the same d and b (grey circles), {full} "
                  "pairs already turn less than a quarter turn. A pair that hardly turns is a channel for meaning "
                  "rather than position: Barbero et al. (2024) find Gemma puts semantic content in its slowest pairs "
                  "and positional patterns in its fastest, and p-RoPE makes the slowest ones exactly position-free.",
                  what=rope_prose.scheme_sentence(pr.scheme, p.d, pairs), length=L, turns=roles["turns"],
                  quarter=roles["under a quarter turn"], still=roles["not rotated"], full=num["full_quarter"]),
        latex=r"\text{turns within } L = \frac{L\,|\theta_i|}{2\pi};\qquad L\,|\theta_i| < \tfrac{\pi}{2}"
              r"\ \Rightarrow\ \cos(\Delta\theta_i) > 0 \text{ for } |\Delta| \le L;\qquad "
              r"\text{share}_i(\Delta) = |h_i|\cos(\Delta\theta_i + \varphi_i),\ h_i = z^q_i\,\overline{z^k_i}",
        code=[rope.pair_frequencies, rope.turns_within, rope.pair_roles],
    )


# ---------------------------------------------------------------------------- 10. choosing the base

@lesson.part("base", N_("10. Choosing the base"), uses=("base", "d"),
             title=N_("10. Choosing the base: the slowest pair against the training length"),
             controls=(
                 ui.LogFloat("L", N_("training length L (tokens)"), default=4096.0, lo=256.0, hi=131072.0,
                             extra=tuple(float(2**k) for k in range(8, 18))),
             ))
def part_base(p: ui.Values) -> None:
    bc = ui.controls(where="main", columns=1)
    L = int(bc.L)
    num = base_numbers(p.d, p.base, L)
    ui.numbers({_("slowest wavelength (tokens)"): f"{num['slowest']:,.0f}", _("turns of the slowest pair in L"):
                f"{num['turns']:.3g}", _("pairs with λ_i > L"): _("{longer} of {pairs}", longer=num["longer"],
                                                                   pairs=p.d // 2),
                _("b* (slowest λ = L)"): f"{num['b_star']:,.0f}" if num["b_star"] else _("none (d = 2)")},
               fmt="{}")
    ui.figure_panel(
        rope_base_choice, dict(dim=p.d, base=p.base, train_length=L), key="base",
        live={"d": "dim", "L": "train_length", "base": "base"},
        caption=rope_prose.base_caption(num, p.d, p.base, L),
        latex=r"\lambda_{d/2-1} = 2\pi\, b^{(d-2)/d},\qquad b^* = \Big(\frac{L}{2\pi}\Big)^{d/(d-2)},\qquad"
              r"\text{Men et al.: } \sum_i \cos(m\theta_i) \ge 0 \ \text{ for } 0 \le m \le L",
        code=[rope.slowest_wavelengths, rope.base_for_wavelength, rope.wavelengths, rope.first_negative_cos_sum],
    )
    if p.d >= 8:
        link = ui.href("context_extension", d=p.d, base=f"{p.base:g}", L=L, part="pairs")
        st.markdown(_("The same d, b and L in the Context extension lesson: [wavelengths against L]({link}).",
                      link=link))


# ---------------------------------------------------------------------------- 11. pitfalls

@lesson.part("pitfalls", N_("11. Pitfalls"), uses=("base", "c", "d", "kpos", "layout", "m", "n", "seed"))
def part_pitfalls(p: ui.Values) -> None:
    nums = numbers(p)
    grid = dict(dim=p.d, base=p.base, n_positions=min(p.n, 128), layout=p.layout, seed=p.seed)
    ui.pitfall(
        _("q and k swapped"),
        _("A function defined as `apply_rope(k, q, cis)` but called as `q, k = apply_rope(q, k, cis)` hands back "
          "the rotated query and key in each other's places, so the score at (m, n) is the true score at (n, m): "
          "the matrix is transposed and the model's sense of left and right is reversed. Weights trained with "
          "correct code then attend to the wrong side. Keep the order `(q, k)` in and out."),
        key="swap",
        wrong=lambda: (ui.numbers({_("score at (m, n)"): nums["s_swap"]}),
                       ui.figure_panel(rope_score_grid, dict(grid, swap=True), key="swap_wrong",
                       live={"d": "dim", "base": "base"},
                                       caption=_("Swapped: the transpose of the right grid."))),
        right=lambda: (ui.numbers({_("score at (m, n)"): nums["s"]}),
                       ui.figure_panel(rope_score_grid, grid, key="swap_right",
                       live={"d": "dim", "base": "base"},
                                       caption=_("Correct: query position on the rows."))),
    )
    ladder = dict(dim=p.d, base=p.base, n_positions=p.n)
    ui.pitfall(
        _("Frequency or angle? Which pairs are fast?"),
        _("Tutorials sometimes write θ_i = pos/10000^(2i/d) and call it a frequency. The frequency is "
          "θ_i = b^(−2i/d) (radians per token, no position in it); the angle is m·θ_i. Some also say low "
          "dimensions change slowly and high ones quickly. The opposite is true: pair 0 turns by 1 radian per "
          "token (local detail), the last pair is the slowest (long range)."),
        key="freq",
        wrong=lambda: ui.figure_panel(rope_frequency_ladder, dict(ladder, show_claim=True), key="freq_wrong",
        live={"d": "dim", "n": "n_positions", "base": "base"},
                                      caption=_("Dashed: the claimed ordering, reversed.")),
        right=lambda: ui.figure_panel(rope_frequency_ladder, ladder, key="freq_right",
        live={"d": "dim", "n": "n_positions", "base": "base"},
                                      caption=_("Pair 0 is the fastest; orange dots never complete a turn within N.")),
    )
    err = float32_numbers(p.d, p.base)
    ui.pitfall(
        _("float32 angles at large positions"),
        _("transformers computes m·θ_i in float32. A float32 number near 10^5 is only exact to about 0.008, so at "
          "d = {d}, b = {base:g} cos and sin are off by up to {error:.1e} at m = 10^5 (how far depends on d and b: "
          "the chart below), while float64 stays exact to ~1e-11 there. Compare against a float64 reference only "
          "at small positions, or in the same precision.", d=p.d, base=p.base, error=err[2]),
        key="f32",
        wrong=lambda: ui.numbers({_("error at m = 10³"): err[0], "m = 10⁴": err[1], "m = 10⁵": err[2],
                                  "m = 10⁶": err[3]}, fmt="{:.1e}"),
        right=lambda: ui.say(_("float64 angles: the rounding of m·θ_i stays near 1e-10 even at m = 10⁶.")),
    )
    ui.figure_panel(
        rope_float32_error, dict(dim=p.d, base=p.base), key="f32",
        live={"d": "dim", "base": "base"},
        caption=_("The float32 error at d = {d}, b = {base:g}: {e3:.1e} at m = 10³, {e4:.1e} at 10⁴, {e5:.1e} at "
                  "10⁵ and {e6:.1e} at 10⁶. Each angle m·θ_i (θ_i ≤ 1) is rounded twice, θ_i and then the product, "
                  "so the error stays below twice the dotted line, the float32 rounding step of m·θ_0 = m, plus the "
                  "~1e-7 of float32 cos and sin. How close it comes depends on d and b: with d = 2 the only pair has "
                  "θ_0 = 1, and every whole-number angle up to 10⁶ is exact in float32.", d=p.d, base=p.base,
                  e3=err[0], e4=err[1], e5=err[2], e6=err[3]),
        code=[rope.float32_error, rope.angles],
    )


lesson.run()
