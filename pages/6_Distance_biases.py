"""Distance biases: ALiBi, T5 buckets, KERPLE, NoPE and the two-scale Gaussian kernel as one family, against RoPE."""

import math

import numpy as np
import streamlit as st

from posviz import bias as b
from posviz import gaussian as gk
from posviz import intro, rope, ui
from posviz.figures.bias import (
    LOG_DECADES,
    bias_alibi_bloom,
    bias_alibi_slopes,
    bias_attention,
    bias_distance,
    bias_heatmap,
    bias_nope,
    bias_rotation_vs_bias,
    bias_t5_buckets,
    member_label,
)
from posviz.i18n import N_, _

# the member settings, each member's folded under its own heading in the sidebar
G_ALIBI, G_T5, G_KERPLE, G_GAUSS = N_("ALiBi: heads H, head h"), N_("T5: buckets and their values"), \
    N_("KERPLE: r1, r2"), N_("Gaussian kernel: α, σ")

lesson = ui.Lesson(
    "bias", N_("Distance biases"), icon="↔️", order=6, headline="bias_distance",
    summary=N_("The other big family: a number added to the attention logit that depends on the distance i − j. "
               "ALiBi's head slopes (as BLOOM builds them), T5's buckets, KERPLE's log and power kernels, NoPE (the "
               "causal mask alone, which still gives position away) and a two-scale Gaussian kernel as +log K, on "
               "one chart and one softmax; the (i, j) pattern with its mask; and how a bias differs from a "
               "rotation."),
    intro=N_("Instead of rotating queries and keys, many models add a penalty that grows with the distance between "
             "query and key. Drag the sliders to compare the members on the same attention logits, see how far "
             "each lets attention reach, and what RoPE's rotation does instead."),
    controls=(
        ui.Int("n_heads", N_("ALiBi heads H"), default=8, lo=1, hi=64,
               help=N_("Slopes 2^(−8(h+1)/H) for heads h = 0..H − 1 when H is a power of two; otherwise the first "
                       "P heads (P the largest power of two below H) take the P-head slopes and the others every "
                       "other slope of the 2P-head sequence."), group=G_ALIBI),
        ui.Int("head", N_("ALiBi head h"), default=0, lo=0, hi=lambda v: v["n_heads"] - 1, hi_max=63,
               widget="number",
               help=N_("Heads are numbered from 0. The steepest slope is head 0's when H is a power of two; "
                       "otherwise it is head P's, the first of the added slopes (P the largest power of two below "
                       "H)."), group=G_ALIBI),
        # a number box: with H = 1 its range is the single value 0
        ui.Int("num_buckets", N_("T5 buckets"), default=32, lo=2, hi=128,
               help=N_("Causal (decoder) buckets: the first half are exact distances, the rest logarithmic."),
               group=G_T5),
        ui.Int("max_distance", N_("T5 max_distance (tokens)"), default=128, lo="num_buckets", hi=4096,
               help=N_("Distances from here on share the last bucket."), group=G_T5),
        ui.Choice("t5_shape", N_("T5 value per bucket"), default="seeded",
                  options={"kerple_log": N_("KERPLE log at the bucket's start"),
                           "alibi": N_("ALiBi head h at the start"), "gaussian_log": N_("+log K at the start"),
                           "kerple_power": N_("KERPLE power at the start"),
                           "seeded": N_("seeded N(0, s²) (untrained)")},
                  help=N_("T5 learns one number per bucket and head; pick what those numbers are. By default "
                          "seeded random numbers, as before training: with any of the other members' curves T5 "
                          "would be drawn exactly on that member."), group=G_T5),
        ui.Float("t5_scale", N_("seeded table scale s"), default=1.0, lo=0.0, hi=5.0, step=0.1, group=G_T5),
        ui.Float("log_r1", N_("KERPLE log r1"), default=1.0, lo=0.05, hi=5.0, step=0.05, group=G_KERPLE),
        ui.Float("log_r2", N_("KERPLE log r2"), default=1.0, lo=0.05, hi=5.0, step=0.05, group=G_KERPLE),
        ui.Float("pow_r1", N_("KERPLE power r1"), default=0.5, lo=0.05, hi=5.0, step=0.05, group=G_KERPLE),
        ui.Float("pow_r2", N_("KERPLE power r2 (≤ 2)"), default=0.5, lo=0.05, hi=2.0, step=0.05, group=G_KERPLE),
        ui.Float("alpha1", N_("Gaussian local weight α1"), default=0.7, lo=0.05, hi=1.0, step=0.05, group=G_GAUSS),
        ui.Float("alpha2", N_("Gaussian global weight α2"), default=0.3, lo=0.0, hi=1.0, step=0.05, group=G_GAUSS),
        ui.Float("sigma1", N_("Gaussian local width σ1 (tokens)"), default=5.0, lo=0.5, hi=50.0, step=0.5,
                 group=G_GAUSS),
        ui.Float("sigma2", N_("Gaussian global width σ2 (tokens)"), default=20.0, lo=1.0, hi=500.0, step=1.0,
                 group=G_GAUSS),
        ui.Int("T", N_("keys T (query at i = T − 1)"), default=128, lo=8, hi=1024, step=8),
        ui.Float("content_scale", N_("content scale c (×q·k/√d)"), default=1.0, lo=0.0, hi=4.0, step=0.1,
                 help=N_("0 leaves only the position term; larger values let the content of q and k dominate.")),
        ui.Int("d", N_("head dim d"), default=64, lo=8, hi=256, step=2),
        ui.LogFloat("base", N_("RoPE base b"), default=10000.0, lo=10.0, hi=1e7),
        ui.Int("seed", N_("random seed (q, k; seeded T5 table)"), default=0, lo=0, hi=9999, widget="number"),
        ui.Int("span", N_("distances shown Δ ≤"), default=128, lo=16, hi=4096, step=16),
    ),
)

FAMILY = ("n_heads", "head", "num_buckets", "max_distance", "t5_shape", "t5_scale", "log_r1", "log_r2",
          "pow_r1", "pow_r2", "alpha1", "alpha2", "sigma1", "sigma2", "seed")  # seed: the seeded T5 table too
KERNEL = ("alpha1", "alpha2", "sigma1", "sigma2", "seed")  # what the Gaussian part needs of the family
CONTENT = ("T", "content_scale", "d", "base")


def family(v: ui.Values) -> dict:
    """The family's settings this part uses (the same names as the builders' parameters; the rest default)."""
    return {name: v[name] for name in FAMILY if name in v}


def heads_link(v: ui.Values) -> ui.Sets:
    """The H slider's live link on a figure that draws head h: H, and h kept among the H heads."""
    return ui.Sets(b.alibi_head_settings, head=v.head)


def family_links(v: ui.Values, *names: str) -> dict:
    """The live links of a figure drawn with the family's settings (``heads_link`` for H)."""
    return {name: heads_link(v) if name == "n_heads" else name for name in names}


@ui.cached
def reaches(params: dict, T: int, mass: float, members: tuple[str, ...] = b.MEMBERS) -> dict[str, int]:
    fam = b.Family.of(**params)
    return {m: b.reach(b.attention_row(m, T, fam), mass) for m in members}


@ui.cached
def bias_at(params: dict, distance: float) -> dict[str, float]:
    fam = b.Family.of(**params)
    return {m: float(b.distance_bias(m, distance, fam)) for m in b.BIASES}


def fmt_bias(x: float) -> str:
    return f"{x:.3g}".replace("-", "−")


def t5_values(v: ui.Values) -> str:
    """What T5's per-bucket numbers are at the current setting, for a caption."""
    if v.t5_shape == "seeded":
        return _("here untrained: seeded N(0, {scale:g}²) numbers", scale=v.t5_scale)
    return _("here set to {member} at each bucket's start, so its steps sit on that curve",
             member=member_label(v.t5_shape))


def part_link(slug: str, part: str) -> str:
    """A markdown link to a part of another lesson, its text read from that lesson's declarations."""
    address = ui.href(slug, part=part)  # a ValueError naming the lesson's parts if ``part`` is not one of them
    lesson = ui.find(slug)
    return _("[{lesson}, part {part}]({address})", lesson=_(lesson.title), part=_(lesson.parts[part].label),
             address=address)


@lesson.part("family", N_("1. One family"), uses=FAMILY + ("span",),
             title=N_("1. One family: a penalty per distance"))
def part_family(v: ui.Values) -> None:
    at = min(100, v.span)
    val = bias_at(family(v), at)
    slope = b.alibi_slopes(v.n_heads)[v.head]
    ui.figure_panel(
        bias_distance, {**family(v), "span": v.span}, key="distance",
        live=family_links(v, "n_heads", "num_buckets", "max_distance", "t5_scale", "log_r1", "log_r2", "pow_r1",
                             "pow_r2", "alpha1", "alpha2", "sigma1", "sigma2", "span"),
        caption=_("Every member adds a number that depends only on how far back the key is. At Δ = {at}: ALiBi "
                  "head {head} adds {alibi} (a straight line of slope −{slope:.4g}), KERPLE log {kerple_log} (it "
                  "flattens out), KERPLE power {kerple_power}, T5 {t5} (a staircase: one learned number per bucket, "
                  "{t5_values}), +log K {gaussian_log} (steepening like −Δ²/2σ2² far out, floored at log "
                  "{floor:.0e} ≈ {log_floor}), NoPE 0. The faint lines are ALiBi's other heads: each head looks at "
                  "its own range.", at=at, head=v.head, alibi=fmt_bias(val['alibi']), slope=slope,
                  kerple_log=fmt_bias(val['kerple_log']), kerple_power=fmt_bias(val['kerple_power']),
                  t5=fmt_bias(val['t5']), t5_values=t5_values(v), gaussian_log=fmt_bias(val['gaussian_log']),
                  floor=gk.KERNEL_FLOOR, log_floor=fmt_bias(math.log(gk.KERNEL_FLOOR))),
        latex=r"\begin{aligned}\ell_{ij} &= \frac{q_i^\top k_j}{\sqrt d} + b(i-j),\qquad "
              r"b_{\text{ALiBi}}(\Delta) = -m_h\Delta,\qquad b_{\text{Gauss}}(\Delta) = \log K(\Delta)\\ "
              r"b_{\text{KERPLE}}(\Delta) &= -r_1\log(1 + r_2\Delta)\ \text{ or }\ -r_1\Delta^{r_2},\qquad "
              r"b_{\text{T5}}(\Delta) = \beta_{\text{bucket}(\Delta)}\end{aligned}",
        code=[b.distance_bias, b.alibi_slopes, b.kerple, b.t5_bucket, b.t5_table, gk.apply_kernel],
    )


@lesson.part("attention", N_("2. One query's attention"), uses=FAMILY + CONTENT,
             title=N_("2. What each member does to one query's attention"),
             controls=(
                 ui.Bool("log_y", N_("log scale for the weights"), default=True),
                 ui.Float("mass", N_("share of the weight for 'reach'"), default=0.9, lo=0.5, hi=0.99, step=0.01),
             ))
def part_attention(v: ui.Values) -> None:
    opts = ui.controls(where="main", columns=2)
    params = {**family(v), "T": v.T, "content_scale": v.content_scale, "d": v.d, "base": v.base}
    r = reaches(params, v.T, opts.mass)
    ui.figure_panel(
        bias_attention, {**params, "log_y": opts.log_y, "mass": opts.mass}, key="attention",
        live=family_links(v, "mass", "n_heads", "num_buckets", "max_distance", "t5_scale", "log_r1", "log_r2",
                             "pow_r1", "pow_r2", "alpha1", "alpha2", "sigma1", "sigma2", "T", "content_scale", "d",
                             "base"),
        caption=_("Same seeded q and k, same content logits c·q·k/√d, one softmax per member; only the position "
                  "term differs. Reach = the smallest Δ holding {mass:.0%} of the weight: ALiBi head {head} {alibi}, "
                  "Gaussian +log K {gaussian_log}, KERPLE power {kerple_power}, KERPLE log {kerple_log}, T5 {t5} "
                  "({t5_values}), and with no bias at all (NoPE) {nope} of the {keys} keys. RoPE's rotation reaches "
                  "{rope} and ×K {gaussian_mul}: neither pulls far keys down whatever their content.",
                  mass=opts.mass, head=v.head, alibi=r['alibi'], gaussian_log=r['gaussian_log'],
                  kerple_power=r['kerple_power'], kerple_log=r['kerple_log'], t5=r['t5'], t5_values=t5_values(v),
                  nope=r['nope'], keys=v.T, rope=r['rope'], gaussian_mul=r['gaussian_mul'])
                + (_(" The log axis spans {decades} powers of ten below the largest weight; a member that falls "
                     "further is named at its bottom.", decades=LOG_DECADES) if opts.log_y else ""),
        latex=r"a_{ij} = \mathrm{softmax}_j\Big(c\,\frac{q_i^\top k_j}{\sqrt d} + b(i-j)\Big),\quad j \le i",
        code=[b.attention_row, b.content_logits, b.reach],
    )


@lesson.part("matrix", N_("3. The (i, j) pattern"), uses=FAMILY, title=N_("3. The bias over every (query, key) pair"),
             controls=(
                 ui.Choice("member", N_("member"), default="alibi", options={m: b.LABELS[m] for m in b.BIASES}),
                 ui.Int("T_map", N_("positions T"), default=48, lo=8, hi=256, step=8),
             ))
def part_matrix(v: ui.Values) -> None:
    own = ui.controls(where="main", columns=2)
    T = own.T_map
    val = bias_at(family(v), T - 1)[own.member]
    one = bias_at(family(v), 1)[own.member]
    tokens_not_pairs = ui.term("pair_index", _("i and j are tokens here, not pairs"))
    ui.figure_panel(
        bias_heatmap, {**family(v), "member": own.member, "T": T}, key="matrix",
        live={"T_map": "T", "n_heads": heads_link(v), "num_buckets": "num_buckets", "max_distance": "max_distance",
              "t5_scale": "t5_scale", "log_r1": "log_r1", "log_r2": "log_r2", "pow_r1": "pow_r1", "pow_r2": "pow_r2",
              "alpha1": "alpha1", "alpha2": "alpha2", "sigma1": "sigma1", "sigma2": "sigma2"},
        caption=_("Row i is the query and column j the key ({tokens_not_pairs}). Each diagonal is one distance, so "
                  "each is one colour: the bias depends on i − j only, never on where the pair sits. Next to the "
                  "diagonal (Δ = 1) it is {one}; in the corner (i, j) = ({last}, 0), Δ = {last}, it is {corner}. The "
                  "grey triangle is the causal mask: keys after the query get −∞, so their softmax weight is exactly "
                  "0, whatever the member.",
                  tokens_not_pairs=tokens_not_pairs, one=fmt_bias(one),
                  last=T - 1, corner=fmt_bias(val)),
        latex=r"B_{ij} = \begin{cases} b(i-j) & j \le i \\ -\infty & j > i \end{cases}",
        code=[b.bias_matrix, b.alibi_bias],
    )


@lesson.part("t5", N_("4. T5's buckets"), uses=("num_buckets", "max_distance", "span"),
             title=N_("4. T5: buckets of distance"),
             controls=(
                 ui.Bool("bidirectional", N_("bidirectional (encoder)"), default=False,
                         help=N_("The encoder sees keys on both sides and spends half of the buckets on each.")),
             ))
def part_t5(v: ui.Values) -> None:
    own = ui.controls(where="main", columns=1)
    bidirectional = own.bidirectional and v.num_buckets >= 4
    if own.bidirectional and not bidirectional:
        st.info(_("A bidirectional T5 needs at least 4 buckets; showing the causal buckets instead."))
    n = v.num_buckets // 2 if bidirectional else v.num_buckets  # buckets of one side
    exact = n // 2
    delta = np.arange(-v.span, v.span + 1)  # Δ = i − j, as on the chart
    last = _("{left} and {right}", left=n - 1, right=2 * n - 1) if bidirectional else f"{n - 1}"
    used = np.unique(b.t5_bucket(-delta, bidirectional, v.num_buckets, v.max_distance)).size
    offset = ui.term("offset", _("offset Δ = i − j"))
    ui.figure_panel(
        bias_t5_buckets, dict(num_buckets=v.num_buckets, max_distance=v.max_distance, bidirectional=bidirectional,
                              span=v.span), key="t5",
                              live=("num_buckets", "max_distance", "span"),
        caption=_("The distance is the {offset} (T5's own code is given its opposite). Distances below max_exact = "
                  "{exact} get a bucket each; from {exact} to max_distance = {max_distance} the remaining {rest} "
                  "buckets widen logarithmically; everything further shares the last bucket of its side ({last}). "
                  "Here {used} of the {buckets} buckets occur for |i − j| ≤ {span}. T5 learns one number per bucket "
                  "(and per head), so its bias is a staircase (part 1).",
                  offset=offset, exact=exact, max_distance=v.max_distance,
                  rest=n - exact, last=last, used=used, buckets=v.num_buckets, span=v.span),
        latex=r"\text{bucket}(\Delta) = \begin{cases}\Delta & \Delta < n/2\\ \min\Big(n-1,\ \frac n2 + \Big\lfloor"
              r"\frac{\log(2\Delta/n)}{\log(2\,\text{max\_distance}/n)}\cdot\frac n2\Big\rfloor\Big) & \text{else}"
              r"\end{cases}",
        code=[b.t5_bucket, b.t5_bucket_edges],
    )


GAP_T = 64  # sequence length of the BLOOM-form check


@ui.cached
def forms_gap(n_heads: int, causal: bool) -> float:
    return b.alibi_forms_gap(n_heads, GAP_T, causal)


def bloom_check(n_heads: int, causal: bool) -> None:
    """The pitfall's check that BLOOM's m·j attends like the distance form (computed only when the pitfall is open)."""
    gap = forms_gap(n_heads, causal)
    label = (_("m·j under the causal mask attends like −m·(i − j)") if causal
             else _("m·j without a mask attends like −m·|i − j|"))
    ui.check(label, gap < 1e-9, _("largest weight difference {gap:.2g} (H = {heads}, T = {T})", gap=gap,
                                  heads=n_heads, T=GAP_T))


@lesson.part("alibi", N_("5. ALiBi's slopes"), uses=("n_heads", "head"), title=N_("5. ALiBi: one slope per head"))
def part_alibi(v: ui.Values) -> None:
    slopes = b.alibi_slopes(v.n_heads)
    p = b.alibi_base_heads(v.n_heads)
    mh = slopes[v.head]
    first = (_("Slopes run from {top:.4g} down to {bottom:.4g}, each {ratio:.4g}× the one before within the "
               "{p}-head sequence.", top=slopes.max(), bottom=slopes.min(), ratio=slopes[1] / slopes[0], p=p)
             if p > 1 else _("One head: the slope 2^−8 = {slope:.4g}.", slope=mh))
    extra = ("" if p == v.n_heads else
             _(" {heads} is not a power of two: the first {p} heads take the {p}-head slopes and the other {others} "
               "take every other slope of the {twice}-head sequence, as BLOOM does.", heads=v.n_heads, p=p,
               others=v.n_heads - p, twice=2 * p))
    steep = b.alibi_steepest_head(v.n_heads)
    steepest = (_(" The steepest is head {head} (m = {slope:.4g}).", head=steep, slope=slopes[steep]) if steep == 0
                else _(" The steepest is head {head} (m = {slope:.4g}), the first of the added slopes, steeper than "
                       "head 0's {first:.4g}.", head=steep, slope=slopes[steep], first=slopes[0]))
    head_index = ui.term("head_index", _("head index h"))
    ui.figure_panel(
        bias_alibi_slopes, dict(n_heads=v.n_heads), key="slopes",
        live=("n_heads",),
        caption=first + extra + steepest
        + _(" Head {head} (m = {slope:.4g}) halves a key's weight, against an equally similar key at Δ = 0, every "
            "ln 2 / m = {half:.3g} tokens. Heads count from 0 ({head_index}); the ALiBi paper counts from 1.",
            head=v.head, slope=mh, half=math.log(2) / mh, head_index=head_index),
        latex=r"m_h = 2^{-8(h+1)/H},\ h = 0..H-1\quad (H = 2^k)",
        code=[b.alibi_slopes],
    )
    view = dict(n_heads=v.n_heads, head=v.head)
    ui.pitfall(
        _("BLOOM's ALiBi is m·j, and it needs the causal mask"),
        _("transformers' `build_alibi_tensor` (BLOOM) adds m_h·j for key j, the same for every query, instead of "
          "−m_h·(i − j). Under the causal mask both give the same attention: they differ by −m_h·i, a constant "
          "per query row, which softmax cancels. Copied into a model without the mask (an encoder), the key-only "
          "form is no distance bias at all: it favours the last keys of the sequence, wherever the query is."),
        key="bloom",
        wrong=lambda: (ui.figure_panel(bias_alibi_bloom, {**view, "masked": False}, key="bloom_wrong",
                                       live=("n_heads",), caption=_("No mask: m·j keeps growing past the query.")),
                       bloom_check(v.n_heads, False)),
        right=lambda: (ui.figure_panel(bias_alibi_bloom, {**view, "masked": True}, key="bloom_right",
                                       live=("n_heads",), caption=_("Causal mask: the same line shifted by m·i.")),
                       bloom_check(v.n_heads, True)),
    )


@ui.cached
def intro_gaps() -> tuple[float, float]:
    """How far apart the first lesson's two copies of its repeated word come out: causal mask and no position,
    then bidirectional with sinusoidal PE (``posviz.intro`` on its example sentence)."""
    pair = intro.repeated_pair(intro.attention_demo().tokens)
    causal = intro.attention_demo(causal=True).out
    with_pe = intro.attention_demo(positions="sinusoidal").out
    return intro.row_gap(causal, *pair), intro.row_gap(with_pe, *pair)


@lesson.part("nope", N_("6. NoPE"), uses=("T", "seed"), title=N_("6. NoPE: no position, only the causal mask"),
             controls=(
                 ui.Int("channels", N_("value channels"), default=256, lo=16, hi=1024, step=16),
             ))
def part_nope(v: ui.Values) -> None:
    own = ui.controls(where="main", columns=1)
    sig = b.nope_signals(v.T, own.channels, v.seed)
    last = v.T - 1
    err = float(np.abs(sig["recovered"] - np.arange(v.T)).max())
    causal_mask = ui.term("causal", _("causal mask"))
    ui.figure_panel(
        bias_nope, dict(T=v.T, d=own.channels, seed=v.seed), key="nope",
        live={"channels": "d", "T": "T"},
        caption=_("With every logit equal, query i averages its i + 1 visible values, and i + 1 is position "
                  "information. A marker on the first token comes out as 1/(i + 1): {marker:.4g} at i = {last}, so "
                  "1/output − 1 gives i back (largest error {err:.1e}). Even random values give it away: the "
                  "variance of the average shrinks like 1/(i + 1) ({variance:.4g} measured at i = {last}, 1/{T} = "
                  "{expected:.4g}). This is why models under a {causal_mask} trained without position encodings "
                  "({nope}) still learn where they are (Haviv et al. 2022; Kazemnejad et al. 2023).",
                  marker=sig['first_token'][last], last=last, err=err, variance=sig['variance'][last], T=v.T,
                  expected=1 / v.T, causal_mask=causal_mask, nope=ui.term('nope', 'NoPE')),
        latex=r"o_i = \frac{1}{i+1}\sum_{j \le i} v_j,\qquad v_j = [j = 0] \ \Rightarrow\ o_i = \frac{1}{i+1}",
        code=[b.nope_signals],
    )
    causal, with_pe = intro_gaps()
    ui.prose(_("The first lesson starts from the layer without the mask: a bidirectional layer with no position "
               "gives the two copies of a repeated word identical outputs, while under the causal mask the same "
               "layer tells them apart (in its example sentence by up to {causal:.2g}, against {with_pe:.2g} for "
               "the bidirectional layer given sinusoidal PE): {link}.", causal=causal, with_pe=with_pe,
               link=part_link('intro', 'blind')))


@lesson.part("gaussian", N_("7. Case study: Gaussian kernel"), uses=KERNEL + CONTENT,
             title=N_("7. Case study: a Gaussian kernel joins the family"))
def part_gaussian(v: ui.Values) -> None:
    params = {**family(v), "T": v.T, "content_scale": v.content_scale, "d": v.d, "base": v.base}
    r = reaches(params, v.T, 0.9, ("nope", "gaussian_log", "gaussian_mul"))
    case_study = ui.find("gaussian_kernel_rope")
    ui.prose(_(
        "A two-scale Gaussian kernel weighs a key at distance Δ by a narrow bump of width σ1 plus a wide one of "
        "width σ2, $K(\\Delta) = \\alpha_1 e^{{-\\Delta^2/2\\sigma_1^2}} + \\alpha_2 e^{{-\\Delta^2/2\\sigma_2^2}}$ "
        "(here α1 = {alpha1:g}, σ1 = {sigma1:g}, α2 = {alpha2:g}, σ2 = {sigma2:g} tokens). It comes from "
        "one source article, the blog post “Gaussian Kernel-enhanced Rotary Position Embedding”, with no paper or "
        "reference implementation behind it, so this part is a case study. Added as + log K(|Δ|), it is a "
        "distance bias like ALiBi and KERPLE: it multiplies each softmax weight by K before renormalising. "
        "Multiplied onto the logit, × K(Δ), it is not: it shrinks far logits towards 0 instead of pushing them "
        "down. Here both act on the same plain content logit c·q·k/√d. The optional case-study lesson "
        "[{lesson}]({address}) goes further: it applies K to the RoPE logit three ways, among them the article's "
        "own K(m)·K(n) on absolute positions.", alpha1=v.alpha1, sigma1=v.sigma1, alpha2=v.alpha2, sigma2=v.sigma2,
        lesson=_(case_study.title), address=ui.href(case_study.slug, part='modes')))
    ui.figure_panel(
        bias_attention, {**params, "group": "gaussian", "log_y": True}, key="gaussian",
        live=("alpha1", "alpha2", "sigma1", "sigma2", "T", "content_scale", "d", "base"),
        caption=_("90% of the weight lies within Δ ≤ {gaussian_log} with + log K, within Δ ≤ {gaussian_mul} with "
                  "× K, and within Δ ≤ {nope} with no position at all. The multiplier moves far keys' logits towards "
                  "0, not towards −∞: a far key keeps the weight of a key whose content logit is 0, so × K cannot "
                  "make attention local the way a bias does.", gaussian_log=r['gaussian_log'],
                  gaussian_mul=r['gaussian_mul'], nope=r['nope']),
        latex=r"\text{bias: } \ell_{ij} + \log K(i-j) \qquad \text{factor: } K(i-j)\,\ell_{ij}",
        code=[gk.apply_kernel, gk.gaussian_kernel],
    )


@ui.cached
def profile(span: int, d: int, base: float, seed: int) -> dict[str, np.ndarray]:
    return b.rope_profile(span, d, base, seed)


@lesson.part("rotation", N_("8. Rotation vs bias"), uses=FAMILY + ("d", "base", "span"),
             title=N_("8. Rotation against bias"))
def part_rotation(v: ui.Values) -> None:
    prof = profile(v.span, v.d, v.base, v.seed)
    seeded, ones, mean = prof["seeded"], prof["ones"], prof["mean"]
    flips = int(np.count_nonzero(np.diff(np.sign(seeded))))
    ui.figure_panel(
        bias_rotation_vs_bias, {**family(v), "span": v.span, "d": v.d, "base": v.base},
        key="rotation",
        live=family_links(v, "n_heads", "num_buckets", "max_distance", "t5_scale", "log_r1", "log_r2", "pow_r1",
                             "pow_r2", "alpha1", "alpha2", "sigma1", "sigma2", "d", "span", "base"),
        caption=_("A rotation changes which keys look alike: the seeded pair's logit swings between {low:.3g} and "
                  "{high:.3g} and changes sign {flips} times for Δ ≤ {span}; the all-ones curve falls from "
                  "{ones_start:.3g} to {ones_low:.3g}, a property of that one aligned pair; averaged over {samples} "
                  "random pairs the logit stays within ±{mean:.2g} at every Δ. A bias changes how far attention can "
                  "reach: the same curve for every q and k (ALiBi, KERPLE and +log K always downhill).",
                  low=seeded.min(), high=seeded.max(), flips=flips, span=v.span, ones_start=ones[0],
                  ones_low=ones.min(), samples=b.ROPE_SAMPLES, mean=np.abs(mean).max()),
        latex=r"(R_i q)^\top (R_j k) = \sum_p \mathrm{Re}\big[z^q_p\,\overline{z^k_p}\,e^{\,i(i-j)\theta_p}\big]"
              r"\quad\text{vs}\quad q^\top k + b(i-j)",
        code=[b.rope_profile, rope.relative_scores, rope.mean_random_score],
    )
    ui.prose(_("More on RoPE's distance profile: {link}.", link=part_link('rope', 'decay')))


lesson.run()
