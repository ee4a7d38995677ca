"""Beyond scaling: long-context methods that raise the base, add a decay, cap or group relative positions, roll
the KV cache, or train on skipped positions, each exact against its authors' code."""

import numpy as np

from posviz import longctx as lc
from posviz import streams as sm
from posviz import ui
from posviz.figures import longctx as flc
from posviz.figures.longctx import (
    base_bound_presets,
    base_cosine_sum,
    base_text,
    pose_coverage,
    rerope_matrix,
    rerope_score_matrix,
    self_extend_angle_plot,
    self_extend_matrix,
    sink_cache_map,
    sink_stream_positions,
    xpos_decay_profile,
)
from posviz.i18n import N_, _
from posviz.theme import compact_number

lesson = ui.Lesson(
    "long_context", N_("Beyond scaling: long-context methods"), icon="🧵", order=9, headline="base_bound_presets",
    summary=N_("Raising the base and the lower bound it must meet (Men et al. 2024) for every preset, the critical "
            "dimension, xPos's decay, ReRoPE's capped and Self-Extend's grouped relative positions, attention "
            "sinks with a rolling cache, and PoSE's skipped position ids: each exact against its authors' code."),
    intro=N_("Scaling the frequencies is one way to reach a longer context. Others raise the base and fine-tune, "
          "change the relative positions attention sees, keep a small cache, or train on short windows with long "
          "position ids. Each part shows one of them with a live check beside the claim."),
    controls=(
        ui.Int("d", N_("head dim d (rotary)"), default=128, lo=8, hi=256, step=2),
        ui.LogFloat("base", N_("base b"), default=10000.0, lo=100.0, hi=1e9),
    ),
)


@ui.cached
def bound_numbers(d: int, base: float, length: int) -> dict:
    try:  # a small d can need a base beyond the grid's 1e12 for a long context: no bound then
        bound: float | None = lc.base_lower_bound(d, length)
    except ValueError:
        bound = None
    return dict(bound=bound, bisection=lc.base_bound_bisection(d, length),
                first=lc.first_negative_position(d, base, length), d_extra=lc.critical_dimension(d, base, length),
                t_extra=lc.extrapolation_limit(d, base, length))


def bound_text(bound: float | None) -> str:
    return _("none up to 10¹²") if bound is None else base_text(bound)


ABF_PRESETS = ("Code Llama 7B", "Llama 3 8B")  # released models that raised the base (Code Llama by fine-tuning)
MAX_SLOT_STEPS = 1024  # the cache map draws at most this many steps (one column each)


@ui.cached
def preset_rows() -> list[dict]:
    return flc.preset_bounds()


@lesson.part("base", N_("1. Raising the base"), uses=("d", "base"),
             title=N_("1. Raising the base: how large must it be?"),
             controls=(ui.Int("length", N_("context length L (tokens)"), default=8192, lo=256, hi=lc.MAX_BOUND_LENGTH,
                              step=256),))
def part_base(v: ui.Values) -> None:
    own = ui.controls(where="main", columns=1)
    n = bound_numbers(v.d, v.base, own.length)
    ui.numbers({_("lower bound on b for L"): bound_text(n["bound"]), _("first m with B < 0 at this b"):
                _("none ≤ L") if n["first"] < 0 else f"{n['first']:,}", _("critical dimension dₑₓₜᵣₐ"): n["d_extra"],
                _("extrapolation limit Tₑₓₜᵣₐ"): f"{n['t_extra']:,.0f}"})
    ui.figure_panel(
        base_cosine_sum, dict(dim=v.d, base=v.base, length=own.length), key="cosine_sum",
        live={"length": "length", "d": "dim", "base": "base"},
        caption=(_("Bₘ is the score RoPE gives a key identical to the query at distance m. Men et al. 2024 ask it "
                   "to stay ≥ 0 up to the context length. At d = {d} and L = {length:,} the smallest base on a grid "
                   "of 100 per decade that keeps it is {bound}; b = {base} meets it.", d=v.d, length=own.length,
                   bound=bound_text(n["bound"]), base=base_text(v.base)) if n["first"] < 0 else
                 _("Bₘ is the score RoPE gives a key identical to the query at distance m. Men et al. 2024 ask it "
                   "to stay ≥ 0 up to the context length. At d = {d} and L = {length:,} the smallest base on a grid "
                   "of 100 per decade that keeps it is {bound}; b = {base} does not (B first dips below 0 at "
                   "m = {first:,}).", d=v.d, length=own.length, bound=bound_text(n["bound"]),
                   base=base_text(v.base), first=n["first"])),
        latex=r"B_{m,\theta} = \sum_{i=0}^{d/2-1} \cos(m\,b^{-2i/d}) \ge 0\quad \forall\, m \le L",
        code=[lc.cosine_sum, lc.first_negative_position, lc.base_lower_bound])
    ui.check(_("Bₘ ≥ 0 for every m ≤ L at this base"), n["first"] < 0,
             _("first negative at m = {first:,}", first=n["first"]) if n["first"] >= 0 else
             _("checked all {count:,} m", count=own.length + 1))
    ui.prose(_("**The critical dimension** (Liu et al. 2023): pairs whose wavelength $2\\pi\\, b^{{2i/d}}$ is "
               "shorter than the training length saw a full turn in training. At b = {base} and L = {length:,} those "
               "are the first dₑₓₜᵣₐ = {d_extra} dimensions; fine-tuning at L with this base extrapolates to about "
               "Tₑₓₜᵣₐ = {t_extra:,.0f} tokens, the wavelength of the first pair that never turned fully.",
               base=base_text(v.base), length=own.length, d_extra=n["d_extra"], t_extra=n["t_extra"]))
    rows = preset_rows()
    by = {r["name"]: r for r in rows}
    above = [r for r in rows if not r["holds"] and r["base"] >= r["bound"]]
    ui.figure_panel(
        base_bound_presets, {}, key="presets",
        caption=_("Every preset's shipped base (dot: Bₘ ≥ 0 holds up to L, ×: it does not) against the lower "
                  "bound for the context its base serves (the length before any scaling block; for linear scaling, "
                  "positions are divided by the factor). {holding} of {total} hold. ",
                  holding=sum(r["holds"] for r in rows), total=len(rows))
                + _("{models} raised the base well past the bound: that is ABF, raising the base and fine-tuning. ",
                    models=_(" and ").join(
                        _("{name} ({base} against {bound} for {k}k tokens)", name=n, base=base_text(by[n]["base"]),
                          bound=base_text(by[n]["bound"]), k=by[n]["length"] // 1024)
                        for n in ABF_PRESETS if n in by))
                + (_("{count} shipped bases lie above the bound yet fail ({names}): the bases that pass do not "
                     "form one interval.", count=len(above), names=", ".join(r["name"] for r in above))
                   if above else ""),
        code=[flc.served_length, flc.preset_bounds])
    ui.pitfall(
        _("bisecting for the bound"),
        _("Whether B stays ≥ 0 is *not* monotone in the base: windows of passing bases open and close. Bisection "
          "assumes it is; on the same grid it returns {bisection} for d = {d}, L = {length:,}, against {bound} from "
          "scanning upwards.", bisection=base_text(n["bisection"]), d=v.d, length=own.length,
          bound=bound_text(n["bound"])),
        key="bisection")


@lesson.part("xpos", N_("2. xPos"), uses=("d", "base"), title=N_("2. xPos: a decay built into the rotation"),
             controls=(ui.Float("gamma", "γ", default=0.4, lo=0.05, hi=2.0, step=0.05),
                       ui.Int("scale_base", N_("scale base B (tokens)"), default=512, lo=64, hi=4096, step=64),
                       ui.Int("max_distance", N_("largest distance Δ"), default=4096, lo=256, hi=16384, step=256)))
def part_xpos(v: ui.Values) -> None:
    own = ui.controls(where="main", columns=3)
    prof = lc.xpos_score_profile(own.max_distance, v.d, v.base, own.gamma, float(own.scale_base))
    zeta = lc.xpos_zeta(v.d, own.gamma)
    ui.figure_panel(
        xpos_decay_profile, dict(dim=v.d, base=v.base, gamma=own.gamma, scale_base=float(own.scale_base),
                                 max_distance=own.max_distance), key="xpos",
                                 live={"gamma": "gamma", "scale_base": "scale_base", "max_distance": "max_distance",
                                       "d": "dim", "base": "base"},
        caption=_("RoPE's own 'decay' (grey) is an oscillation that never settles: at Δ = {distance:,} it is "
                  "{rope:.3f}. xPos multiplies pair i by ζᵢ to the power Δ/B, from ζ₀ = {first:.3f} (fast pairs, "
                  "strongest decay) to the last pair's ζ = {last:.3f}, so its score (blue) is {xpos:.3g} there.",
                  distance=own.max_distance, rope=prof["rope"][-1], first=zeta[0], last=zeta[-1],
                  xpos=prof["xpos"][-1]),
        latex=r"\zeta_i = \frac{2i/d + \gamma}{1+\gamma},\quad q_m \mapsto \zeta^{m/B} R_m q_m,\ "
              r"k_n \mapsto \zeta^{-n/B} R_n k_n \Rightarrow \zeta_i^{(m-n)/B}",
        code=[lc.xpos_zeta, lc.xpos_decay, lc.xpos_score_profile])
    ui.prose(_("The grey curve is the same Bₘ as in part 1, divided by d/2: the score of a key equal to the query. "
               "[The RoPE lesson]({href}) shows why that is not a real decay for random q and k; xPos adds one that "
               "is, the factor $\\zeta^{{\\Delta/B}}$ on every pair, at the price of the key scale $\\zeta^{{-n/B}}$ "
               "that grows with position.", href=ui.href("rope", part="decay")))
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((16, v.d)), rng.standard_normal((16, v.d))
    a = lc.xpos_scores(q, k, v.d, v.base, own.gamma, float(own.scale_base), 0)
    b = lc.xpos_scores(q, k, v.d, v.base, own.gamma, float(own.scale_base), 300)
    err = float(np.max(np.abs(a - b)) / np.max(np.abs(a)))
    ui.check(_("xPos logits depend on m − n only (all positions moved by 300)"), err < 1e-9,
             _("largest relative change {err}", err=compact_number(err)))
    centred = lc.xpos_key_scale_overflow(v.d, own.gamma, float(own.scale_base), centred=True)
    plain = lc.xpos_key_scale_overflow(v.d, own.gamma, float(own.scale_base), centred=False)
    ui.pitfall(
        _("positions from 0 in half precision"),
        _("The key is scaled by $\\zeta^{{-n/B}}$, which grows without bound. In float16 (largest 65504) pair 0's "
          "key scale overflows from a sequence of {plain:,} tokens when positions run 0..T−1. torchscale centres them "
          "(n from −T/2), which moves the overflow to {centred:,} tokens; only the difference m − n matters, so "
          "centring changes no logit.", plain=plain, centred=centred),
        key="xpos_fp16")


@lesson.part("rerope", N_("3. ReRoPE"), uses=("d",),
             title=N_("3. ReRoPE and leaky ReRoPE: capped relative positions"),
             controls=(ui.Int("T", N_("tokens T"), default=64, lo=16, hi=256, step=8),
                       ui.Int("window", N_("window w"), default=16, lo=1, hi=128),
                       ui.Int("leaky_k", N_("leak k (0: plain)"), default=0, lo=0, hi=16,
                              help=N_("0: plain ReRoPE, every pair past the window turned by exactly w. k ≥ 1: leaky "
                                   "ReRoPE, past w the relative position grows at 1/k the rate (k = 1: as RoPE).")),
                       ui.Bool("scores", N_("show the logits instead of the relative positions"), default=False)))
def part_rerope(v: ui.Values) -> None:
    own = ui.controls("T", "window", "leaky_k", where="main", columns=3)
    k = float(own.leaky_k)
    rule = _("compresses farther pairs to w + (m − n − w)/{k:g}", k=k) if k else \
        _("turns every farther pair by exactly w")
    if ui.controls("scores", where="main", columns=1).scores:  # one chart at a time
        ui.figure_panel(
            rerope_score_matrix, dict(T=own.T, window=own.window, leaky_k=k, dim=v.d, seed=0), key="rerope_scores",
            live={"T": "T", "window": "window", "leaky_k": "leaky_k", "d": "dim"},
            caption=(_("One seeded Gaussian q and one k (d = {d}) put at every position, so each diagonal is one "
                       "distance. Inside the window w = {window} ReRoPE is plain RoPE; beyond it ReRoPE {rule}: the "
                       "far logits repeat the logit of distance w.", d=v.d, window=own.window, rule=rule) if not k else
                     _("One seeded Gaussian q and one k (d = {d}) put at every position, so each diagonal is one "
                       "distance. Inside the window w = {window} ReRoPE is plain RoPE; beyond it ReRoPE {rule}: the "
                       "far diagonals change k times more slowly than RoPE's.", d=v.d, window=own.window, rule=rule)),
            code=[lc.rerope_two_pass_scores, lc.relative_scores])
    else:
        ui.figure_panel(
            rerope_matrix, dict(T=own.T, window=own.window, leaky_k=k), key="rerope",
            live=("T", "window", "leaky_k"),
            caption=_("Left: plain RoPE turns a pair by its distance m − n, up to {last}. Right: ReRoPE keeps "
                      "m − n inside the window w = {window} and {rule}, so no pair sees a relative position it was "
                      "not trained on. Leak k = 0 is plain ReRoPE; k ≥ 1 is leaky ReRoPE, slope 1/k past w.",
                      last=own.T - 1, window=own.window, rule=rule),
            latex=r"r_{mn} = \begin{cases} m-n & m-n < w\\ w + (m-n-w)/k & \text{otherwise (plain: } k=\infty)"
                  r"\end{cases}",
            code=[lc.rerope_relative, lc.rerope_two_pass_scores])
    rng = np.random.default_rng(0)
    q, kk = rng.standard_normal((own.T, 16)), rng.standard_normal((own.T, 16))
    two = lc.rerope_two_pass_scores(q, kk, own.window, k)
    one = lc.relative_scores(q, kk, lc.rerope_relative(own.T, own.window, k))
    err = float(np.max(np.abs(two - one)))
    ui.check(_("two-pass prefill (as bojone/rerope) = one rotation by rₘₙ per pair"), err < 1e-9,
             _("largest difference {err} over all {pairs:,} pairs, before the causal mask", err=compact_number(err),
               pairs=own.T * own.T))
    cost = lc.rerope_cost(own.T, v.d, own.window)
    ui.numbers({_("QK multiply-adds at d = {d}, RoPE", d=v.d): f"{cost['rope_prefill_macs']:,.0f}",
                _("ReRoPE (two passes)"): f"{cost['rerope_prefill_macs']:,.0f}",
                _("pairs served by pass 2"): f"{cost['far_fraction']:.0%}"})
    ui.prose(_("**Why two passes.** No per-token rotation of q and k gives min(m − n, w): a rotation by position makes "
             "every logit depend on m − n itself. So the prefill computes the logits twice (once ordinary RoPE, "
             "once with every query turned to w and keys left unturned) and picks one per pair: twice the QK "
             "work, and no fused attention kernel as-is."))
    ui.pitfall(
        _("caching rotated keys while decoding"),
        _("With RoPE a key is rotated once and cached. With ReRoPE the rotation a cached key needs is min(t − n, w), "
        "which changes with every new query t for the last w keys; the reference caches keys *unrotated* and turns "
        "all t of them again at every step (t·d extra multiply-adds a step)."),
        key="rerope_cache")


@lesson.part("self_extend", N_("4. Self-Extend"), uses=("d", "base"),
             title=N_("4. Self-Extend: grouped positions beyond a neighbour window"),
             controls=(ui.Int("se_T", N_("tokens T"), default=64, lo=16, hi=256, step=8),
                       ui.Int("group", N_("group size G"), default=4, lo=1, hi=16),
                       ui.Int("se_window", N_("neighbour window W"), default=16, lo=1, hi=128),
                       ui.Int("se_pair", N_("pair i (angles)"), default=8, lo=0, hi=lambda v: v["d"] // 2 - 1,
                              hi_max=127),
                       ui.Bool("angles", N_("show the angles of pair i"), default=False)))
def part_self_extend(v: ui.Values) -> None:
    own = ui.controls("se_T", "group", "se_window", "se_pair", where="main", columns=4)
    rel = sm.self_extend_relative(own.se_T, own.group, own.se_window)
    ui.figure_panel(
        self_extend_matrix, dict(T=own.se_T, group=own.group, window=own.se_window, shift=True), key="self_extend",
        live={"se_T": "T", "group": "group", "se_window": "window"},
        caption=_("Within W = {window} tokens a pair keeps m − n; farther pairs use ⌊m/G⌋ − ⌊n/G⌋ + W − W/G with "
                  "G = {group}, as datamllab/LongLM computes it. The largest relative position is {largest:.4g} "
                  "instead of {plain}; the shift W − W/G makes the grouped part start near W instead of dropping "
                  "back to about W/G.", window=own.se_window, group=own.group, largest=lc.causal_part(rel).max(),
                  plain=own.se_T - 1),
        latex=r"r_{mn} = \begin{cases} m-n & m-n < W\\ \lfloor m/G\rfloor - \lfloor n/G\rfloor + W - W/G "
              r"& \text{otherwise}\end{cases}",
        code=[sm.self_extend_relative])
    ang = sm.self_extend_angles(own.se_T, own.group, own.se_window, v.d, v.base, own.se_pair)
    if ui.controls("angles", where="main", columns=1).angles:
        ui.figure_panel(
            self_extend_angle_plot, dict(T=own.se_T, group=own.group, window=own.se_window, dim=v.d, base=v.base,
                                         pair=own.se_pair), key="se_angles",
            live={"se_T": "T", "group": "group", "se_window": "window", "d": "dim", "base": "base", "se_pair": "pair"},
            caption=_("Pair {pair} turns {step:.3g} rad a token. Inside W the angles are RoPE's; beyond it they "
                      "grow about G = {group} times more slowly, so the farthest key is {grouped:.4g} rad away "
                      "instead of {plain:.4g}: an angle plain RoPE already reaches at a shorter distance, one a model "
                      "trained on shorter texts has seen.", pair=own.se_pair, step=ang["rope"][-2], group=own.group,
                      grouped=ang["self_extend"][0], plain=ang["rope"][0]),
            code=[sm.self_extend_angles])
    ui.numbers({_("pair {pair}: angle to key 0, RoPE (rad)", pair=own.se_pair): f"{ang['rope'][0]:.4g}",
                _("Self-Extend (rad)"): f"{ang['self_extend'][0]:.4g}",
                _("Llama 2 (L = 4096) reach (L − W)·G + W"):
                    f"{sm.self_extend_reach(4096, own.group, own.se_window):,}"})
    ui.check(_("no pair sees a relative position beyond plain RoPE's"),
             bool(lc.causal_part(rel).max() <= own.se_T - 1),
             _("largest {largest:.4g} ≤ {plain}", largest=lc.causal_part(rel).max(), plain=own.se_T - 1))
    ui.pitfall(
        _("grouping without the shift"),
        _("Grouping both positions (⌊m/G⌋ − ⌊n/G⌋) without adding W − W/G to the query makes the relative position "
        "fall from W − 1 to about W/G at the window's edge: distant keys then look closer than neighbours."),
        key="self_extend_shift",
        wrong=lambda: ui.figure_panel(self_extend_matrix, dict(T=own.se_T, group=own.group, window=own.se_window,
                                                               shift=False), key="se_wrong",
                                                               live={"se_T": "T", "group": "group",
                                                                     "se_window": "window"},
                                      caption=_("No shift: the right panel's line drops at W.")),
        right=lambda: ui.figure_panel(self_extend_matrix, dict(T=own.se_T, group=own.group, window=own.se_window,
                                                               shift=True), key="se_right",
                                                               live={"se_T": "T", "group": "group",
                                                                     "se_window": "window"},
                                      caption=_("With W − W/G: the grouped part continues from W.")))


def recent_count(cache: dict, n_sink: int) -> int:
    """How many tokens of the cache are not sinks: the recent window and the current token."""
    return int(cache["token"].size) - n_sink


@lesson.part("sinks", N_("5. Attention sinks"), title=N_("5. Attention sinks: a rolling cache with its own positions"),
             controls=(ui.Int("steps", N_("stream length (tokens)"), default=400, lo=50, hi=4000, step=50),
                       ui.Int("n_sink", N_("sink tokens s"), default=4, lo=0, hi=16),
                       ui.Int("recent", N_("recent window"), default=60, lo=8, hi=1024, step=4),
                       ui.Int("train_length", N_("training length"), default=256, lo=64, hi=4096, step=64),
                       ui.Bool("slots", N_("show the cache slot by slot"), default=False)))
def part_sinks(v: ui.Values) -> None:
    own = ui.controls("steps", "n_sink", "recent", "train_length", where="main", columns=4)
    cache = sm.sink_cache(own.steps - 1, own.n_sink, own.recent)
    ui.figure_panel(
        sink_stream_positions, dict(steps=own.steps, n_sink=own.n_sink, window=own.recent,
                                    train_length=own.train_length), key="sinks",
                                    live={"steps": "steps", "n_sink": "n_sink", "recent": "window",
                                          "train_length": "train_length"},
        caption=_("StreamingLLM keeps the first {sinks} tokens (the sinks), the {recent} most recent and the "
                  "current token, and gives RoPE their slots in the cache as positions. At the last step (the query "
                  "is token {query}) the cache holds tokens {sink_tokens} and {first}..{last}, at positions "
                  "0..{top}: the largest position never grows past s + window.", sinks=own.n_sink,
                  recent=recent_count(cache, own.n_sink) - 1, query=own.steps - 1,
                  sink_tokens=cache["token"][:own.n_sink].tolist() if own.n_sink else "[]",
                  first=int(cache["token"][own.n_sink]), last=int(cache["token"][-1]),
                  top=int(cache["position"][-1])),
        latex=r"\text{cache} = [x_0..x_{s-1}] \cup [x_{t-w}..x_t],\quad \text{positions } 0..s+w",
        code=[sm.sink_cache, sm.sink_positions_over_stream])
    ui.check(_("positions stay within the cache"), int(cache["position"][-1]) <= own.n_sink + own.recent,
             _("largest {top} ≤ s + window = {cap}", top=int(cache["position"][-1]), cap=own.n_sink + own.recent))
    if ui.controls("slots", where="main", columns=1).slots:
        ui.figure_panel(
            sink_cache_map, dict(steps=min(own.steps, MAX_SLOT_STEPS), n_sink=own.n_sink, window=own.recent),
            key="slots", live={"steps": ui.AtMost("steps", MAX_SLOT_STEPS), "n_sink": "n_sink", "recent": "window"},
            caption=_("Each column is one step; each row a cache slot, which is the position RoPE rotates that "
                      "token by. The colour is the token's place in the text: the sink rows never change, the other "
                      "rows slide by one token a step, so a token's RoPE position drops as it ages."),
            code=[sm.sink_cache])
    ui.pitfall(
        _("rotating keys before caching them"),
        _("The usual cache stores keys already rotated at their text positions. Evicting the middle of such a cache "
          "leaves the sinks at distance t from the query: {distance:,} at the last step here, against a training "
          "length of {train:,} (the dashed line). The reference caches keys unrotated and rotates them at their "
          "cache slots at every step.", distance=own.steps - 1, train=own.train_length),
        key="sinks_rotated")


@lesson.part("pose", N_("6. PoSE"), title=N_("6. PoSE and randomised positions: long ids from short windows"),
             controls=(ui.Int("chunk", N_("window $L_c$ (tokens)"), default=64, lo=8, hi=256, step=8),
                       ui.Int("target", N_("target length $L_t$"), default=512, lo=256, hi=4096, step=64),
                       ui.Int("batch", N_("windows in the batch"), default=16, lo=1, hi=64),
                       ui.Int("seed", N_("seed"), default=0, lo=0, hi=9999, widget="number"),
                       ui.Choice("method", N_("position ids"), default="pose",
                                 options={"pose": N_("PoSE: two chunks, skip"), "random": N_("random sorted ids")})))
def part_pose(v: ui.Values) -> None:
    own = ui.controls(where="main", columns=3)
    ids = sm.pose_batch(own.chunk, own.target, own.batch, own.seed, own.method)
    cover = sm.relative_coverage(ids, own.target)
    ui.figure_panel(
        pose_coverage, dict(train_length=own.chunk, target_length=own.target, batch=own.batch, seed=own.seed,
                            method=own.method), key="pose",
                            live={"chunk": "train_length", "target": "target_length", "batch": "batch"},
        caption=_("Each window has only {chunk} tokens, but its ids reach up to {top:,}: the batch shows the model "
                  "{covered:,} of the {target:,} relative distances of the target context. PoSE splits a window in "
                  "two chunks and skips ahead in the second; randomised ids sample sorted ids from the whole target "
                  "range.", chunk=own.chunk, top=int(ids.max()), covered=int((cover > 0).sum()), target=own.target),
        latex=r"\text{PoSE: } [0..s-1,\ s+u..L_c-1+u],\ s\sim U\{1..\lceil L_c/2\rceil\},\ u\sim U\{0..L_t-L_c\}",
        code=[sm.pose_batch, sm.pose_position_ids, sm.relative_coverage])
    ok = bool(np.all(np.diff(ids, axis=1) > 0) and ids.max() < own.target)
    ui.check(_("ids increase within every window and stay below Lₜ"), ok, _("largest id {top:,}", top=int(ids.max())))
    backwards = sm.unsorted_order_errors(own.chunk, own.target, own.batch, own.seed)
    ui.pitfall(
        _("unsorted random ids"),
        _("Randomised positions must be sorted: a causal model then still sees every key at a positive distance. "
          "Left unsorted, {backwards:.0%} of the causal pairs in this batch ({batch} windows of {chunk}) get a key "
          "whose id is ahead of its query's, a negative relative position no causal model was trained on.",
          backwards=backwards, batch=own.batch, chunk=own.chunk),
        key="pose_sorted")


lesson.run()
