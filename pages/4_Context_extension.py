"""Context extension: every RoPE scaling method, exact, per pair, with real models' configs."""

import numpy as np
import streamlit as st

import posviz.models as pm
from posviz import presets as ps
from posviz import scaling as sc
from posviz import ui
from posviz.figures.configs import config_blocks, config_source
from posviz.figures.models import (
    LEARNED_MARGIN,
    SCHEME_LABELS,
    curve_label,
    learned_at_L,
    method_curves,
    models_extension,
    models_retrieval,
    models_schemes,
    scheme_curves,
)
from posviz.figures.scaling import (
    ENVELOPE_BINS,
    scaling_dynamic,
    scaling_entropy,
    scaling_pitfall,
    scaling_ratio,
    scaling_score,
    scaling_temperature,
    scaling_unseen,
    scaling_wavelengths,
    scaling_yarn_ramp,
)
from posviz.models.curves import GRID_FACTORS, NEAR_FLOOR, RETRIEVAL_THRESHOLD, SCHEME_FACTORS
from posviz.rope import inv_freq

lesson = ui.Lesson(
    "context_extension", "Context extension", icon="📏", order=4, headline="scaling_wavelengths",
    summary="How PI, NTK-aware, dynamic NTK, YaRN and Llama 3 rewrite RoPE's per-pair frequencies to read past the "
            "training length: which pairs each method touches, which reach angles never seen in training, YaRN's "
            "ramp and temperature, and what real models' config.json files compute.",
    intro="A model trained on L tokens is asked to read L' = s·L. Each method below rewrites RoPE's per-pair "
          "frequencies θ_i (and sometimes adds a temperature); drag the sliders to see which pairs each method "
          "touches, which pairs reach angles never seen in training, and what real models' config.json files do.",
    controls=(
        ui.Multi("methods", "methods", default=("default", "linear", "ntk", "yarn", "llama3"),
                 options={k: m.label for k, m in sc.METHODS.items()}),
        ui.Int("d", "rotary dim d", default=128, lo=8, hi=256, step=2, help="Pairs i = 0 .. d/2 − 1."),
        ui.LogFloat("base", "base b (rope_theta)", default=10000.0, lo=10.0, hi=1e7, extra=(500000.0,)),
        ui.LogFloat("s", "scale s = L'/L (factor)", default=8.0, lo=1.0, hi=128.0,
                    extra=(4.0, 8.0, 16.0, 32.0, 40.0, 64.0, 128.0)),
        ui.LogFloat("L", "original context L (tokens)", default=4096.0, lo=256.0, hi=131072.0,
                    extra=tuple(float(2**k) for k in range(8, 18))),
        ui.Float("beta_fast", "YaRN beta_fast (β)", default=32.0, lo=1.0, hi=128.0, step=1.0),
        ui.Float("beta_slow", "YaRN beta_slow (α)", default=1.0, lo=0.25, hi=8.0, step=0.25),
        ui.Bool("truncate", "YaRN truncate (floor/ceil the ramp ends)", default=True,
                help="transformers' default; gpt-oss sets truncate: false and ramps between the unrounded ends."),
        ui.Float("mscale", "YaRN mscale (0 = unset)", default=0.0, lo=0.0, hi=2.0, step=0.001, widget="number"),
        ui.Float("mscale_all_dim", "YaRN mscale_all_dim (0 = unset)", default=0.0, lo=0.0, hi=2.0, step=0.001,
                 widget="number"),
        ui.Float("high_freq_factor", "Llama 3 high_freq_factor", default=4.0, lo=1.0, hi=32.0, step=0.5),
        ui.Float("low_freq_factor", "Llama 3 low_freq_factor (< high_freq_factor)", default=1.0, lo=0.25,
                 hi=lambda v: min(4.0, v["high_freq_factor"] - 0.25), hi_max=4.0, step=0.25,
                 help="Llama 3 divides by high_freq_factor − low_freq_factor, so it stays below high_freq_factor."),
    ),
)

SIZE = ("d", "base", "s", "L")
YARN = ("beta_fast", "beta_slow", "truncate")
LLAMA3 = ("low_freq_factor", "high_freq_factor")
TEMPERATURE = ("mscale", "mscale_all_dim")
EVERY_METHOD = ("methods", *SIZE, *YARN, *LLAMA3)


def size(v: ui.Values) -> dict:
    return dict(dim=v.d, base=v.base, factor=v.s, original_len=int(v.L))


def yarn(v: ui.Values) -> dict:
    return dict(beta_fast=v.beta_fast, beta_slow=v.beta_slow, truncate=v.truncate)


def every_method(v: ui.Values) -> dict:
    """The parameters of every method of the sidebar, as the per-pair figures take them."""
    return dict(methods=",".join(v.methods), **size(v), **yarn(v), low_freq_factor=v.low_freq_factor,
                high_freq_factor=v.high_freq_factor)


def unset(x: float) -> float | None:
    """A 0 on the mscale controls means "not set", as transformers reads a missing or 0 value."""
    return float(x) if x else None


def short(x: float) -> str:
    return f"{x:,.0f}" if x < 1e9 else f"{x:.3g}"


def key_numbers(v: ui.Values) -> None:
    """The numbers that the part's sidebar settings determine, in one row."""
    shown = {}
    if "s" in v and "L" in v:
        shown["L' = s·L"] = f"{int(round(v.s * v.L)):,}"
    if "d" in v:
        shown["pairs with λ > L"] = int((sc.rotations(v.d, v.base, int(v.L)) < 1).sum())
    if "d" in v and "s" in v:
        shown["NTK base b'"] = short(sc.ntk_base(v.d, v.base, v.s))
    if "beta_fast" in v:
        low, high = sc.yarn_correction_range(v.d, v.base, int(v.L), v.beta_fast, v.beta_slow, v.truncate)
        shown["YaRN low, high"] = f"{low:g}, {high:g}"
    if "mscale" in v:
        factor = sc.yarn_attention_factor(v.s, unset(v.mscale), unset(v.mscale_all_dim))
        shown |= {"YaRN cos/sin × A": f"{factor:.4f}", "logits × A²": f"{factor * factor:.4f}"}
    ui.numbers(shown)


@lesson.part("pairs", "1. Wavelengths", uses=EVERY_METHOD,
             title="Wavelengths and frequencies: who finishes a turn inside L?",
             controls=(
                 ui.Choice("curve", "plot", default="wavelength", widget="radio",
                           options={"wavelength": "wavelength λ'_i (tokens)",
                                    "frequency": "frequency θ'_i (rad/token)"}),
             ))
def part_wavelengths(v: ui.Values) -> None:
    key_numbers(v)
    curve = ui.controls(where="main", columns=1).curve
    ui.figure_panel(
        scaling_wavelengths, every_method(v) | {"curve": curve}, key="wavelengths", live={"s": "factor"},
        caption="Read the shaded region first: those slow pairs have wavelengths longer than L, so in training "
                "they never completed a turn. PI moves every curve up by s; NTK leaves pair 0 alone and lifts the "
                "slowest pair by s; YaRN and Llama 3 leave the fast pairs alone and move only the slow ones. "
                "Frequency is the same story upside down (θ' = 2π/λ'): a pair below the 2π/L line is one that "
                "never finished a turn.",
        latex=r"\lambda'_i = \frac{2\pi}{\theta'_i},\qquad \theta_i = b^{-2i/d}",
        code=[sc.scaled_inv_freq, sc.linear_inv_freq, sc.ntk_inv_freq],
    )


@lesson.part("ratio", "2. Per-pair scale", uses=EVERY_METHOD, title="The per-pair scale θ_i / θ'_i")
def part_ratio(v: ui.Values) -> None:
    key_numbers(v)
    low, high = sc.yarn_correction_range(v.d, v.base, int(v.L), v.beta_fast, v.beta_slow, v.truncate)
    ui.figure_panel(
        scaling_ratio, every_method(v), key="ratio", live={"s": "factor"},
        caption=f"1 means the pair is untouched (extrapolated), s = {v.s:g} means fully interpolated. PI is flat "
                f"at s; NTK rises smoothly from 1 to s; YaRN is 1 up to pair {low:g} ('low'), s from pair "
                f"{high:g} ('high') on, with a ramp between; Llama 3 has three bands by wavelength (kept, blended, "
                "divided by s).",
        latex=r"\text{YaRN: } \theta'_i = w_i\,\theta_i + (1-w_i)\,\frac{\theta_i}{s}",
        code=[sc.yarn_inv_freq, sc.llama3_inv_freq, sc.yarn_correction_range],
    )


def unseen_counts(v: ui.Values) -> dict[str, int]:
    """Per chosen method, how many pairs reach angles never seen in training (what the figure marks with ×)."""
    counts = {}
    for method in v.methods:
        theta, _ = sc.scaled_inv_freq(method, v.d, v.base, v.s, int(v.L), beta_fast=v.beta_fast,
                                      beta_slow=v.beta_slow, low_freq_factor=v.low_freq_factor,
                                      high_freq_factor=v.high_freq_factor, truncate=v.truncate)
        counts[method] = int(sc.unseen_angles(v.d, v.base, v.s, int(v.L), theta)[2].sum())
    return counts


@lesson.part("unseen", "3. Unseen angles", uses=EVERY_METHOD,
             title="Unseen angles: which pairs go out of distribution")
def part_unseen(v: ui.Values) -> None:
    key_numbers(v)
    counts = unseen_counts(v)
    tally = "; ".join(f"{sc.METHODS[m].label}: {n} of {v.d // 2}" for m, n in counts.items())
    on_pi = (" PI's line lies exactly on the grey one (L'·θ_i/s = L·θ_i): it never turns further than in "
             "training." if "linear" in counts else "")
    ui.figure_panel(
        scaling_unseen, every_method(v), key="unseen",
        caption="The grey dashed line is the largest angle each pair reached in training (L·θ_i). Fast pairs went "
                "round many times, so any angle is familiar. A slow pair (below the dotted 2π line) only saw an "
                f"arc; if a method lets it turn further at L' (×), the model meets angles it never saw.{on_pi} "
                f"Pairs marked × at these settings: {tally}. NTK-aware divides only the last pair by the full s, "
                "so the slow pairs before it can still overshoot; lower beta_slow (try 0.25) to see YaRN leave "
                "some unfixed.",
        latex=r"\text{unseen} \iff L\theta_i < 2\pi \ \text{and}\ L'\theta'_i > L\theta_i",
        code=[sc.unseen_angles],
    )
    ui.prose("What unseen angles do to a trained model, and which methods repair it: "
             f"[part 10, What a real model does]({ui.href('context_extension', part='evidence')}).")


@lesson.part("yarn", "4. YaRN ramp", uses=("d", "base", "L", *YARN),
             title="YaRN's ramp: against i and against r = L/λ",
             controls=(
                 ui.Choice("ramp", "YaRN ramp", default="code", widget="radio",
                           options={"code": "code (linear in i)", "paper": "paper γ(r) (linear in r)"}),
             ))
def part_yarn_ramp(v: ui.Values) -> None:
    key_numbers(v)
    ramp = ui.controls(where="main", columns=1).ramp
    L = int(v.L)
    low, high = sc.yarn_correction_range(v.d, v.base, L, v.beta_fast, v.beta_slow, v.truncate)
    # truncate on is the default of transformers, jquesnelle/yarn, vLLM and DeepSeek's code
    ends = (f"between floor(low) = {low:g} and ceil(high) = {high:g}, the ramp's ends rounded outwards to whole "
            "pairs (truncate on, the usual default)" if v.truncate else
            f"between the unrounded ends low = {low:.3f} and high = {high:.3f} (truncate off, as gpt-oss sets it)")
    ui.figure_panel(
        scaling_yarn_ramp, dict(dim=v.d, base=v.base, original_len=L, **yarn(v), ramp=ramp), key="ramp",
        live=("beta_fast", "beta_slow"),
        caption=f"The code ramps linearly in the pair index {ends}, i.e. linearly in log r; the paper's γ is "
                f"linear in r itself. {ramp_comparison(v, low, high)}",
        latex=r"\gamma(r) = \mathrm{clamp}\!\left(\frac{r-\alpha}{\beta-\alpha}, 0, 1\right),\quad "
              r"r_i = \frac{L}{\lambda_i},\quad D(\rho) = \frac{d\,\ln\!\big(L/(2\pi\rho)\big)}{2\ln b}",
        code=[sc.yarn_extrapolation_weight, sc.yarn_correction_dim],
    )


def ramp_comparison(v: ui.Values, low: float, high: float) -> str:
    """One sentence comparing the code's and the paper's weight on the pair in the middle of the ramp."""
    if v.beta_fast <= v.beta_slow or high - low < 2:
        return ""
    pair = int((low + high) // 2)
    weights = {k: sc.yarn_extrapolation_weight(v.d, v.base, int(v.L), v.beta_fast, v.beta_slow, v.truncate, k)[pair]
               for k in sc.RAMPS}
    closer = "closer to" if weights["code"] > weights["paper"] else "further from"
    return (f"Mid-ramp, pair {pair} keeps weight {weights['code']:.2f} on its original frequency with the code and "
            f"{weights['paper']:.2f} with the paper: the code keeps it {closer} the original.")


@lesson.part("temperature", "5. Temperature", uses=("s", *TEMPERATURE), title="Attention temperature")
def part_temperature(v: ui.Values) -> None:
    key_numbers(v)
    ui.figure_panel(
        scaling_temperature, dict(factor=v.s, mscale=v.mscale, mscale_all_dim=v.mscale_all_dim), key="temperature",
        caption=f"YaRN multiplies cos and sin by A = 0.1 ln s + 1 ({sc.get_mscale(v.s):.4f} at s = {v.s:g}), so "
                "attention logits grow by A². DeepSeek sets mscale and mscale_all_dim: cos/sin get their ratio "
                "(1.0 when they are equal) and the softmax scale gets (0.1·mscale_all_dim·ln s + 1)² instead. Try "
                "mscale = mscale_all_dim = 0.707.",
        latex=r"A = 0.1\ln s + 1,\qquad A_{\mathrm{DS}} = \frac{0.1\,\mu\ln s + 1}{0.1\,\mu_{\mathrm{all}}\ln s + "
               "1}",
        code=[sc.get_mscale, sc.yarn_attention_factor, sc.deepseek_softmax_multiplier],
    )


@lesson.part("entropy", "6. Entropy vs length", uses=(*SIZE, *YARN, *TEMPERATURE),
             title="Attention entropy against length")
def part_entropy(v: ui.Values) -> None:
    key_numbers(v)
    factor = sc.yarn_attention_factor(v.s, unset(v.mscale), unset(v.mscale_all_dim))
    effect = ("sharpens the softmax back: the solid YaRN curve lies below the dashed one at every length" if
              factor > 1 else "is 1 here, so both YaRN curves coincide" if factor == 1 else
              "is below 1 here, so it flattens the softmax: the solid curve lies above the dashed one")
    ui.figure_panel(
        scaling_entropy, size(v) | yarn(v) | dict(mscale=v.mscale, mscale_all_dim=v.mscale_all_dim), key="entropy",
        caption="Longer contexts spread attention over more keys, so entropy creeps towards ln n. The temperature "
                f"(logits × A² = {factor * factor:.3f}) {effect}. (One seeded query; 512 sampled keys per length.)",
        code=[sc.attention_entropy],
    )
    ui.prose("How a trained model fares past L under each method (YaRN with its temperature): "
             f"[part 10, What a real model does]({ui.href('context_extension', part='evidence')}).")


@lesson.part("dynamic", "7. Dynamic NTK", uses=SIZE, title="Dynamic NTK: the base follows the sequence")
def part_dynamic(v: ui.Values) -> None:
    key_numbers(v)
    calls = dynamic_calls(v)
    ui.figure_panel(
        scaling_dynamic, size(v), key="dynamic",
        caption="Press Play or drag the length slider under the chart. Up to max_position_embeddings nothing "
                "changes; beyond it transformers' 'dynamic' uses α = s·l/L − (s − 1), which overshoots the plain "
                "α = l/L by a lot at large s. The chart draws each length's base as if it were computed afresh "
                "for that length. transformers does not go back down step by step: it keeps the base of the "
                "longest length seen so far and returns to the original base only once a call is shorter than L, "
                f"as the calls below show ({calls}). The KV cache holds keys after RoPE, and transformers never "
                "rotates them again: when the base changes, the keys already cached keep the angles of the old "
                "base while new queries turn with the new one, so their scores are no longer a function of m − n "
                "alone. This mismatch is known and left in place (caching keys before RoPE would avoid it, at the "
                "cost of rotating every cached key at each step).",
        latex=r"b' = b\,\alpha^{d/(d-2)},\qquad \alpha = \frac{s\,l}{L} - (s-1),\ \ l = \max(\text{seq\_len}, L)",
        code=[sc.dynamic_alpha, sc.dynamic_base, sc.dynamic_ntk_schedule, sc.dynamic_ntk_bases],
    )


def dynamic_calls(v: ui.Values) -> str:
    """Three calls in a row (l = L', then halfway back to L, then L/2): the base transformers uses for each,
    beside the base computed afresh for that length; returns how many of them differ, in words."""
    L = int(v.L)
    lengths = np.array([int(round(v.s * L)), (L + int(round(v.s * L))) // 2, max(1, L // 2)])
    kept = sc.dynamic_ntk_bases(lengths, v.d, v.base, v.s, L)
    fresh = [sc.dynamic_base(v.d, v.base, v.s, L, int(n)) for n in lengths]
    ui.numbers({f"call {k}: l = {n:,}": f"b' = {short(b)}" + ("" if np.isclose(b, f) else f" (afresh: {short(f)})")
                for k, (n, b, f) in enumerate(zip(lengths, kept, fresh, strict=True), start=1)})
    differ = int(sum(not np.isclose(b, f) for b, f in zip(kept, fresh, strict=True)))
    return f"calls whose base differs from the chart's: {differ} of 3" if differ else \
        "here all three agree with the chart"


@lesson.part("scores", "8. Scores past L", uses=EVERY_METHOD, title="Attention score against distance, past L",
             controls=(
                 ui.Choice("qk", "query and key", default="random", widget="radio",
                           options={"ones": "q = k = all ones", "random": "seeded random q, k"}),
             ))
def part_scores(v: ui.Values) -> None:
    key_numbers(v)
    qk = ui.controls(where="main", columns=1).qk
    methods = ",".join(m for m in v.methods if m != "dynamic") or "default"
    target = int(round(v.s * v.L))
    width = (target + 1) / min(ENVELOPE_BINS, target + 1)  # the far panel's bins, as the figure draws them
    far = ("every token is drawn there" if width <= 1 else
           f"each bin of {width:,.3g} tokens is drawn as its mean score (line) and the band from its lowest to "
           "its highest score, so the fast pairs' wiggles show as the band's width instead of aliased noise")
    ui.figure_panel(
        scaling_score, every_method(v) | {"methods": methods, "qk": qk}, key="score",
        caption="Left, every token: PI stretches the curve s times (neighbours 1 and 2 apart look almost the "
                "same), while NTK, YaRN and Llama 3 keep the fast wiggles that tell close tokens apart. Right, out "
                f"to L' = {target:,}, one strip per method: beyond the dashed L line plain RoPE keeps producing "
                f"patterns never seen in training; {far}.",
        latex=r"q^\top R_{\Delta} k = \sum_i \mathrm{Re}\big[h_i\, e^{\,j\Delta\theta'_i}\big],\quad "
              r"h_i = z^q_i\,\overline{z^k_i},\ j^2 = -1",
        code=[sc.rope_scores],
    )


def spans(layers: tuple[int, ...], most: int = 6) -> str:
    """Layer indices as runs ("0–4, 6–10, …"), at most ``most`` runs, with the count."""
    runs: list[list[int]] = []
    for i in layers:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    text = ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs[:most])
    return text + (", …" if len(runs) > most else "")


def block_label(block: sc.RopeBlock) -> str:
    """A block's name for prose: its layer type (escaped: it is the config's own text) or 'every RoPE layer'."""
    return "every RoPE layer" if block.layer_type == "all" else ui.escape_md(block.layer_type[:40])


def config_table(report: sc.ConfigReport, temperatures: list[dict[str, float]]) -> None:
    """What was read, one column per RoPE block: every value that enters the computation."""
    rows: dict[str, list[str]] = {}
    for k, (block, temp) in enumerate(zip(report.blocks, temperatures, strict=True)):
        for key, value in (block.rope.summary() | temp).items():
            rows.setdefault(key, [""] * len(report.blocks))[k] = \
                f"{value:.4f}" if key in temp else str(value)
    names = ["value"] if len(report.blocks) == 1 else [b.layer_type for b in report.blocks]
    st.dataframe({"key": list(rows)} | {n: [r[k] for r in rows.values()] for k, n in enumerate(names)},
                 hide_index=True, width="stretch")


def _pair_set(idx: np.ndarray) -> str:
    """'pairs 16–39' for one run of pairs, '24 pairs, interleaved' for pairs spread over the spectrum."""
    if idx.size and idx[-1] - idx[0] + 1 == idx.size:
        return f"pairs {idx[0]}–{idx[-1]}"
    return f"{idx.size} pairs, interleaved"


def layer_sentences(report: sc.ConfigReport) -> list[str]:
    """Markdown sentences: which layers use which RoPE block, which use none, how M-RoPE splits the pairs and
    how many channels rotate, all from ``describe_config``'s report."""
    n = report.num_hidden_layers
    out = []
    if len(report.blocks) > 1 or report.nope_layers:
        for b in report.blocks:
            what = block_kind(b.rope)
            where = (f"{len(b.layers)} of {n} layers ({spans(b.layers)})" if b.layers else
                     "the config does not say which layers" if n is None else "no layer")
            out.append(f"{block_label(b)} ({what}): {where}.")
    if report.nope_layers:
        out.append(f"**No rotation (NoPE)** in {len(report.nope_layers)} of {n} layers "
                   f"({spans(report.nope_layers)}): queries and keys there carry no position from RoPE.")
    axes = report.mrope_pairs()
    if axes:
        pairs = report.blocks[0].rope.dim // 2
        lam = 2 * np.pi / report.blocks[0].inv_freq                     # (d/2,) wavelengths, tokens
        split = ", ".join(f"{_pair_set(idx)} (λ {short(lam[idx].min())}–{short(lam[idx].max())} tokens) turn with "
                          f"the {axis} position id" for axis, idx in axes)
        out.append(f"**M-RoPE** splits the {pairs} pairs by mrope_section {list(report.mrope_section)}: {split} "
                   "(the coloured squares on the chart).")
    dims = {(b.rope.dim, b.rope.head_dim, b.rope.head_dim_source, b.rope.partial_rotary_factor): b
             for b in report.blocks}
    for (dim, head_dim, source, prf), b in dims.items():
        whole = "all" if dim == head_dim else f"{dim} of"
        who = "Every head" if len(dims) == 1 else f"{block_label(b)}: every head"
        out.append(f"**Rotary dims.** {who} rotates {whole} its {head_dim} channels (d = {dim}, {dim // 2} pairs; "
                   f"head_dim {head_dim} read from {source}, partial_rotary_factor {prf:g}).")
    return out


def block_kind(rc: sc.RopeConfig) -> str:
    """'linear ×8, b = 1e+06': a block's type, factor and base, for prose."""
    factor = rc.params.get("factor")
    return f"{rc.rope_type}" + (f" ×{factor:g}" if factor else "") + f", b = {rc.base:g}"


@lesson.part("models", "9. Real models' configs", title="Real models' config.json",
             controls=(
                 ui.Choice("preset", "model preset", default="Llama 3.1 8B", widget="select",
                           options={n: n for n in ps.preset_names()}),
             ))
def part_models(v: ui.Values) -> None:
    preset = ui.controls(where="main", columns=1).preset
    key = f"{lesson.slug}.config_text"
    with st.expander("Paste your own config.json", expanded=bool(st.session_state.get(key))):
        text = st.text_area(
            "config.json (optional; it overrides the preset)", key=key,
            height=180, placeholder='{"head_dim": 128, "rope_theta": 500000.0, "rope_scaling": {...}, ...}',
            help=f"Read locally, never stored. At most {sc.MAX_CONFIG_CHARS:,} characters. Both spellings "
                 "(rope_scaling, rope_parameters) and a nested text_config are read.") or ""
    try:
        config, _ = config_source(preset, text)
        report = sc.describe_config(config)
        temperatures = [sc.config_temperature(config, None if b.layer_type == "all" else b.layer_type)
                        for b in report.blocks]
    except ValueError as err:
        st.warning("This pasted config.json could not be read, so nothing is shown for it (the preset is not "
                   "used while the box holds text). The reason:", icon="⚠️")
        ui.say(str(err))
        return
    pasted = bool(text.strip())
    target = report.target_length
    numbers = {"target length": f"{target:,}"}
    for b, temp in zip(report.blocks, temperatures, strict=True):
        prefix = "" if len(report.blocks) == 1 else f"{b.layer_type[:40]}: "
        numbers |= {prefix + k: f"{x:.4f}" for k, x in temp.items()}
    ui.numbers(numbers)
    blocks = "; ".join(f"{block_label(b)}: {block_kind(b.rope)}" for b in report.blocks)
    ui.figure_panel(
        config_blocks, {"preset": preset, "config_json": text if pasted else ""}, key="config",
        caption=f"Dashed: plain RoPE with each block's own base. Solid: the frequencies transformers computes from "
                f"the config at the model's target length, {target:,} tokens ({blocks}). Dotted on the right: at "
                "short lengths, where LongRoPE and dynamic NTK differ. The legend gives each block's cos/sin factor.",
        code=[sc.describe_config, sc.inv_freq_from_rope_config, sc.config_target_length],
    )
    left, right = st.columns([3, 2])
    with left:
        st.markdown("**What was read**" + (" (pasted config.json, not the preset)" if pasted else f" ({preset})"))
        config_table(report, temperatures)
    with right:
        st.caption(f"Target length from {report.target_source}.")
        if any("softmax scale × (DeepSeek)" in t for t in temperatures):
            st.caption("DeepSeek models multiply the softmax scale by (0.1·mscale_all_dim·ln s + 1)² on top of "
                       "cos/sin × A, so A = 1 here does not mean 'no temperature'.")
        if not pasted:
            st.caption("Source: " + ps.get_preset(preset).source)
    for sentence in layer_sentences(report):
        st.markdown(sentence)
    for note in report.notes:
        ui.say("Note: " + note)
    for b in report.blocks:
        faster = int((b.inv_freq > inv_freq(b.rope.dim, b.rope.base) * (1 + 1e-12)).sum())
        where = "" if len(report.blocks) == 1 else f"{block_label(b)}: "
        ui.check(f"{where}no pair turns faster than plain RoPE at {target:,} tokens (θ'_i ≤ θ_i)", faster == 0,
                 f"{faster} of {b.inv_freq.size} pairs are faster; cos/sin × {b.attention_factor:.6g}")


PITFALL_SETTING = dict(dim=64, base=10000.0, factor=16.0, original_len=2048)


def wrong_and_right(case: str, wrong_caption: str, right_caption: str) -> dict:
    """The pitfall's two figures at ``PITFALL_SETTING``, the wrong version and the right one."""
    def draw(variant: str, caption: str) -> None:
        ui.figure_panel(scaling_pitfall, dict(PITFALL_SETTING, case=case, variant=variant), key=f"{case}_{variant}",
                        caption=caption)

    return dict(wrong=lambda: draw("wrong", wrong_caption), right=lambda: draw("right", right_caption))


PITFALLS = (  # key, title, explanation, figure case, wrong caption, right caption
    ("floor_ceil", "YaRN's floor/ceil applied before the division",
     "Code that writes `floor(d·ln(L/(2π·β))) / (2 ln b)` rounds the numerator, so the ramp ends "
     "are not integers ({wrong_low:.3f} and {wrong_high:.3f} instead of {low:g} and {high:g}) and the middle pairs' "
     "frequencies are off by up to {off:.0%}. Round the whole quotient.",
     "floor_ceil", "The ramp starts and ends at fractional pairs.", "Integer ramp ends {low:g} and {high:g}."),
    ("mscale", "mscale = 0.707 used as a cos/sin multiplier",
     "Multiplying `0.1 ln s + 1` by 0.707 and applying it to cos and sin *cools* attention (logits "
     "× {wrong_logits:.3f} at s = 16) instead of warming it (× {logits:.3f}). 0.707 is DeepSeek's coefficient inside "
     "`0.1·mscale·ln s + 1`, used with `mscale_all_dim`.",
     "mscale", "Below 1: the softmax gets flatter as s grows.", "YaRN and DeepSeek both sharpen."),
    ("linear", "the 'linear' function that never scales",
     "A `precompute_freqs_cis_linear` without a scale parameter is plain RoPE under another name. "
     "Position Interpolation divides every frequency (or every position) by s.",
     "linear", "Every pair at 1: nothing was interpolated.", "Every pair at s."),
    ("inverted", "inverted high/low frequency bands",
     "High frequency means short wavelength means small pair index. YaRN and Llama 3 keep those and interpolate "
     "the slow pairs whose wavelength exceeds L; several write-ups say the opposite.",
     "inverted_bands", "Fast pairs interpolated: local order blurs, and the slow pairs still go out of "
     "distribution.", "Fast pairs kept, slow pairs divided by s."),
    ("beta_fast_zero", "beta_fast = 0 silently means 32 in transformers",
     "transformers reads `beta_fast` and `beta_slow` with `or 32` / `or 1`, so a 0 (or null) in a config is "
     "replaced by the default without a warning. Write the value you mean.",
     "beta_fast_zero", "A config with beta_fast 0 and one with 32 give the same frequencies.",
     "An explicit beta_fast moves the ramp."),
    ("llama3", "Llama 3 is NTK-by-parts without temperature",
     "Llama 3's bands are YaRN's *paper* ramp (linear in r = L/λ) with α = low_freq_factor and β = "
     "high_freq_factor, and no attention temperature: cos/sin stay × 1. Calling it YaRN suggests the code ramp, "
     "β = 32 and a logit multiplier it does not have.",
     "llama3_temperature", "YaRN with its defaults is a different curve and adds a temperature.",
     "The two curves coincide; only YaRN would add A."),
)


def pitfall_numbers() -> dict[str, float]:
    """The numbers the pitfalls quote, at ``PITFALL_SETTING``: the wrong ramp ends and logit multiplier beside the
    right ones, and how far the wrong frequencies are off."""
    dim, base, factor, L = (PITFALL_SETTING[k] for k in ("dim", "base", "factor", "original_len"))
    wrong_low, wrong_high = sc.numerator_rounded_yarn_bounds(dim, base, L)
    low, high = sc.yarn_correction_range(dim, base, L)
    wrong = sc.numerator_rounded_yarn_inv_freq(dim, base, factor, L)
    off = np.abs(wrong / sc.yarn_inv_freq(dim, base, factor, L)[0] - 1)
    return dict(wrong_low=wrong_low, wrong_high=wrong_high, low=low, high=high, off=float(off.max()),
                wrong_logits=sc.scaled_cos_sin_logit_multiplier(factor), logits=sc.get_mscale(factor) ** 2)


def model_curve(name: str, Lp: int, method: str = "default", factor: float = 1.0) -> pm.Curve:
    """A shipped model's evidence curve at L' (the one the figures draw: 32 sequences, the shipped grid at the
    slider's values)."""
    return pm.curve(name, Lp, method, factor if name.startswith("rope") else 1.0)


def model_excess(name: str, Lp: int, method: str, factor: float) -> float:
    """A shipped model's mean loss above the Bayes floor past L at L' (the curve the figure draws)."""
    return pm.past_L(model_curve(name, Lp, method, factor).loss, pm.train_length())


def usable(names: tuple[str, ...]) -> tuple[str, ...]:
    """The shipped models among ``names`` whose weights load, in order. A file that does not gets one warning
    line (``pm.WeightsError``: the file and how to restore it; a damaged manifest once for all of them), so the
    part draws the other models and the rest of the lesson is untouched."""
    ok, problems = [], {}
    for name in names:
        try:
            pm.shared(name)  # verified and loaded once per version of the file, so a rerun costs a stat
        except pm.WeightsError as err:  # the problem may quote the file's own bytes (a config key): escaped
            problems[f"{ui.escape_md(f'{err.file} {err.problem}')}; {pm.RESTORE}"] = None
        else:
            ok.append(name)
    for text in problems:
        st.warning(text, icon="⚠️")
    return tuple(ok)


def trained_at() -> str:
    """"L = 64" from the training record for the scale's help text; "L" when the record cannot be read, so the
    lesson still loads (the model parts say what is wrong)."""
    try:
        return f"L = {pm.train_length()}"
    except pm.WeightsError:
        return "L"


def held_fixed() -> str:
    """The one sentence that says what the experiment holds fixed as L' grows."""
    try:
        lo, hi = pm.period_range(pm.train_length())
    except pm.WeightsError:
        return ""
    return (f"At every L' each sequence repeats with a period drawn from {lo}–{hi}, the training range, so the "
            "copy distance never leaves what training saw: only the positions are new, and any rise past L is "
            "the position code's doing. ")


def scale_control(name: str, label: str, factors: tuple[float, ...]) -> ui.LogFloat:
    """A model part's scale slider: the values the shipped evidence grid holds for it (``factors``)."""
    return ui.LogFloat(name, label, default=4.0, lo=1.0, hi=max(factors), extra=factors,
                       help=f"The shipped models were trained at {trained_at()}; L' = s·L, up to s = "
                            f"{max(factors):g} (the curves shipped precomputed, 32 sequences each).")


@lesson.part("evidence", "10. What a real model does", uses=("methods",),
             title="What a real model does: RoPE trained at L = 64, read at L' = s·L",
             controls=(
                 scale_control("model_s", "scale s = L'/L for the model", GRID_FACTORS),
                 ui.Bool("finetuned", "add the PI and YaRN models fine-tuned at L' = 4L (drawn at s = 4)",
                         default=True),
             ))
def part_evidence(v: ui.Values) -> None:
    c = ui.controls(where="main", columns=2)
    if not usable(("rope",)):
        return
    L = pm.train_length()
    Lp = int(round(c.model_s * L))
    methods = v.methods or ("default",)
    loads = usable(tuple(f"rope_{m}_ft" for m in pm.FINETUNED)) if c.finetuned else ()
    ready = tuple(m for m in pm.FINETUNED if f"rope_{m}_ft" in loads)
    params = dict(methods=",".join(methods), factor=c.model_s, finetuned=c.finetuned)
    if c.finetuned and ready != pm.FINETUNED:  # a fine-tune's file is damaged (warned above): draw the others
        params["finetunes"] = ",".join(ready)
    drawn = method_curves(params["methods"], c.model_s, c.finetuned, params.get("finetunes", "linear,yarn"),
                          pm.CURVE_SEQUENCES, 0)
    tally = "; ".join(f"{curve_label(k)} +{pm.past_L(cv.loss, L):.2f}" for k, _, cv, _ in drawn)
    ui.figure_panel(
        models_extension, params,
        key="evidence",
        caption=f"A {layers('rope')}-layer transformer trained here at L = {L} to continue sequences that repeat "
                f"with an unknown period, read at L' = {Lp}. {held_fixed()}Each curve averages "
                f"{pm.CURVE_SEQUENCES} fresh sequences (band: ±2 standard errors); the dotted curve is the best "
                f"loss any model can reach. Mean loss above it past L, in nats: {tally}.",
        code=[pm.evaluate, pm.rope_inv_freq],
    )
    ui.prose(
        "Before the repeat starts nothing can be predicted, so the floor is high on the left; once every period "
        "has shown itself it is 0. Finding the next token needs the fast pairs (the previous token, one step "
        "back) and the slow pairs (content up to half the training length back). "
        + recovered({k: pm.past_L(cv.loss, L) for k, _, cv, _ in drawn}
                    | {"default": model_excess("rope", Lp, "default", c.model_s)}, c.model_s)
        + " " + floor_exits(drawn, L)
        + f" This is one {parameters('rope')}-parameter model on a synthetic task: docs/MODELS.md records the run "
          "and where it differs from the 7B models of the papers, which rank the methods on their own tasks.")
    ui.figure_panel(
        models_retrieval, dict(params, kind="methods"), key="evidence_retrieval",
        caption="Retrieval beside the loss: the share of tokens the model copies exactly (its most likely token "
                "is the one the repeat determines), per position, over the same sequences. "
                + retrieval_sentence(drawn, L, Lp),
        code=[pm.evaluate_sequences, pm.effective_context],
    )


def recovered(excess: dict[str, float], s: float) -> str:
    """How much of plain RoPE's loss past L each method recovers without training, and their order, at scale
    ``s``, from the curves the figure draws (``excess``: mean loss above the floor past L by curve key of
    ``method_curves``; "default" included)."""
    plain = excess["default"]
    if s == 1.0:
        return "At s = 1 nothing is read past L."
    what = f"Past L at s = {s:g}, plain RoPE is +{plain:.2f} nats above the floor."
    if plain <= 0:
        return what
    shares = []
    for m, x in excess.items():
        if m == "default" or m.startswith("ft:"):
            continue
        share = 1.0 - x / plain
        shares.append(f"{sc.METHODS[m].label} {share:.0%}" if share >= 0 else
                      f"{sc.METHODS[m].label} none (worse than no scaling: +{x:.2f})")
    if not shares:
        return what + " Pick methods above to compare."
    order = " < ".join(f"{curve_label(k)} ({x:.2f})" for k, x in sorted(excess.items(), key=lambda kv: kv[1]))
    return (what + " The share of that loss each method recovers without any training: " + "; ".join(shares)
            + f". From closest to the floor past L to farthest: {order}.")


def floor_exits(drawn: list, L: int) -> str:
    """Where each drawn curve leaves the floor (``pm.leaves_floor``: the first window of L/4 positions from L/2 on
    more than ``NEAR_FLOOR`` nats above it), said to be inside L when it is."""
    parts = []
    for key, _, cv, _ in drawn:
        t = pm.leaves_floor(cv)
        parts.append(f"{curve_label(key)} " + ("stays within it to the end" if t is None else
                                               f"leaves it at t ≈ {t:,}" + (" (inside L)" if t < L else "")))
    return (f"Where each curve first rises more than {NEAR_FLOOR:g} nats above the floor (in windows of "
            f"{L // 4} positions): " + "; ".join(parts) + ".")


def retrieval_sentence(drawn: list, L: int, Lp: int) -> str:
    """Each drawn curve's retrieval past L and effective context, and what loss alone would hide."""
    if Lp <= L:
        return "At s = 1 nothing is read past L."
    parts = [f"{curve_label(k)} {np.nanmean(cv.retrieval[L:]):.0%} (effective context {pm.effective_context(cv):,})"
             for k, _, cv, _ in drawn]
    return (f"Exact copies past L, and the effective context (positions read before retrieval first falls below "
            f"{RETRIEVAL_THRESHOLD:.0%}): " + "; ".join(parts) + ". Long-context evaluations report both: a "
            "perplexity that does not blow up says the model is not confused on average, an effective context "
            "says how far it still finds the one token that matters.")


def parameters(name: str) -> str:
    """A shipped model's parameter count, as "133 k"."""
    return f"{sum(t.numel() for t in pm.shared(name).parameters()) / 1000:.0f} k"


def layers(name: str) -> int:
    """A shipped model's number of transformer blocks."""
    return pm.shared(name).config.n_layers


@lesson.part("schemes", "11. Schemes past L", title="Position schemes past L: one task, five schemes",
             controls=(scale_control("schemes_s", "scale s = L'/L", SCHEME_FACTORS),))
def part_schemes(v: ui.Values) -> None:
    c = ui.controls(where="main", columns=1)
    schemes = usable(pm.SCHEMES)
    if not schemes:
        return
    L = pm.train_length()
    Lp = int(round(c.schemes_s * L))
    at_L = {s: learned_at_L(s) for s in schemes}
    params = dict(factor=c.schemes_s) | ({} if schemes == pm.SCHEMES else {"schemes": ",".join(schemes)})
    drawn = scheme_curves(params.get("schemes", ",".join(pm.SCHEMES)), c.schemes_s, pm.CURVE_SEQUENCES, 0)
    past = {k: pm.past_L(cv.loss, L) for k, _, cv, _ in drawn}
    ui.figure_panel(
        models_schemes, params, key="schemes",
        caption="The same model, task and training with each position scheme. " + held_fixed()
                + "Above the floor at L, where they were trained (256 sequences, from the training record): "
                + "; ".join(f"{SCHEME_LABELS[s]} +{x:.2f}" for s, x in at_L.items())
                + f". Past L at L' = {Lp}: " + "; ".join(f"{SCHEME_LABELS[s]} +{x:.2f}" for s, x in past.items())
                + ".",
        code=[pm.evaluate],
    )
    ui.prose(schemes_prose(drawn, at_L, past, L, Lp))
    ui.figure_panel(
        models_retrieval, dict(params, kind="schemes"), key="schemes_retrieval",
        caption="Retrieval beside the loss, per scheme, over the same sequences. " + retrieval_sentence(drawn, L, Lp),
        code=[pm.evaluate_sequences, pm.effective_context],
    )


NOPE_WHY = ("With no position signal, a model must first count positions from how its attention spreads over the "
            "tokens so far, then use the count to find the previous token, then match: a layer more than the "
            "other schemes need, and a count fine enough to tell t − 1 from t − 2 at t ≈ 60. ")


def schemes_prose(drawn: list, at_L: dict[str, float], past: dict[str, float], L: int, Lp: int) -> str:
    """What the scheme curves show, every number from them: who learned the task at L, the order past L."""
    learned = [s for s in at_L if at_L[s] <= LEARNED_MARGIN]
    missed = [s for s in at_L if at_L[s] > LEARNED_MARGIN]
    text = (f"Every scheme is within {LEARNED_MARGIN:g} nats of the floor at L, so each learned the task and the "
            "comparison past L is fair. " if not missed else
            f"{', '.join(SCHEME_LABELS[s] for s in missed)} did not learn the task at L (more than "
            f"{LEARNED_MARGIN:g} nats above the floor there, dotted): "
            + ("it has nothing to extrapolate, so its curve is not compared. " if len(missed) == 1 else
               "they have nothing to extrapolate, so their curves are not compared. ")
            + (NOPE_WHY if "nope" in missed else ""))
    if Lp <= L:
        return text + "At s = 1 nothing is read past L."
    ranked = sorted((s for s in learned if s in past), key=past.get)
    text += ("Past L, from closest to the floor to farthest: "
             + " < ".join(f"{SCHEME_LABELS[s]} ({past[s]:.2f})" for s in ranked) + ". ")
    return text + ("The learned table has no row past L, so positions ≥ L reuse its last row; the sinusoidal "
                   "table and RoPE reach angles never seen in training; ALiBi's bias depends only on the distance, "
                   "and its linear penalty makes the far tokens that past L become distractors cheap to ignore; "
                   "NoPE has no position code at all.")


@lesson.part("pitfalls", "Pitfalls", uses=(*SIZE, *LLAMA3))
def part_pitfalls(v: ui.Values) -> None:
    st.caption("Drawn at d = {dim}, b = {base:g}, s = {factor:g}, L = {original_len}.".format(**PITFALL_SETTING))
    quoted = pitfall_numbers()
    for key, title, explanation, case, wrong_caption, right_caption in PITFALLS:
        ui.pitfall(title, explanation.format(**quoted), key=key,
                   **wrong_and_right(case, wrong_caption.format(**quoted), right_caption.format(**quoted)))
    llama3, _ = sc.llama3_inv_freq(v.d, v.base, v.s, int(v.L), v.low_freq_factor, v.high_freq_factor)
    paper_yarn, _ = sc.yarn_inv_freq(v.d, v.base, v.s, int(v.L), v.high_freq_factor, v.low_freq_factor, ramp="paper")
    err = float(np.abs(llama3 / paper_yarn - 1).max())
    ui.check("Llama 3 = YaRN paper ramp with α = low_freq_factor, β = high_freq_factor (at the sidebar's d, b, s, "
             "L)", err < 1e-12, f"max relative difference {err:.1e} over {v.d // 2} pairs")


lesson.run()
