"""Context extension: every RoPE scaling method, exact, per pair, with real models' configs."""

import streamlit as st

import posviz.models as pm
from posviz import presets as ps
from posviz import scaling as sc
from posviz import ui
from posviz.figures import config_prose as cp
from posviz.figures import models_prose as mp
from posviz.figures import scaling_prose as sp
from posviz.figures.configs import config_blocks, config_source
from posviz.figures.models import (
    learned_at_L,
    method_curves,
    models_extension,
    models_retrieval,
    models_schemes,
    scheme_curves,
)
from posviz.figures.scaling import (
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
from posviz.i18n import N_, _
from posviz.models.curves import GRID_FACTORS, SCHEME_FACTORS

lesson = ui.Lesson(
    "context_extension", N_("Context extension"), icon="📏", order=4, headline="scaling_wavelengths",
    summary=N_("How PI, NTK-aware, dynamic NTK, YaRN and Llama 3 rewrite RoPE's per-pair frequencies to read past the "
            "training length: which pairs each method touches, which reach angles never seen in training, YaRN's "
            "ramp and temperature, and what real models' config.json files compute."),
    intro=N_("A model trained on L tokens is asked to read L' = s·L. Each method below rewrites RoPE's per-pair "
          "frequencies θ_i (and sometimes adds a temperature); drag the sliders to see which pairs each method "
          "touches, which pairs reach angles never seen in training, and what real models' config.json files do."),
    controls=(
        ui.Multi("methods", N_("methods"), default=("default", "linear", "ntk", "yarn", "llama3"),
                 options={k: m.label for k, m in sc.METHODS.items()}),
        ui.Int("d", N_("rotary dim d"), default=128, lo=8, hi=256, step=2, help=N_("Pairs i = 0 .. d/2 − 1.")),
        ui.LogFloat("base", N_("base b (rope_theta)"), default=10000.0, lo=10.0, hi=1e7, extra=(500000.0,)),
        ui.LogFloat("s", N_("scale s = L'/L (factor)"), default=8.0, lo=1.0, hi=128.0,
                    extra=(4.0, 8.0, 16.0, 32.0, 40.0, 64.0, 128.0)),
        ui.LogFloat("L", N_("original context L (tokens)"), default=4096.0, lo=256.0, hi=131072.0,
                    extra=tuple(float(2**k) for k in range(8, 18))),
        ui.Float("beta_fast", N_("YaRN beta_fast (β)"), default=32.0, lo=1.0, hi=128.0, step=1.0),
        ui.Float("beta_slow", N_("YaRN beta_slow (α)"), default=1.0, lo=0.25, hi=8.0, step=0.25),
        ui.Bool("truncate", N_("YaRN truncate (floor/ceil the ramp ends)"), default=True,
                help=N_("transformers' default; gpt-oss sets truncate: false and ramps between the unrounded ends.")),
        ui.Float("mscale", N_("YaRN mscale (0 = unset)"), default=0.0, lo=0.0, hi=2.0, step=0.001, widget="number"),
        ui.Float("mscale_all_dim", N_("YaRN mscale_all_dim (0 = unset)"), default=0.0, lo=0.0, hi=2.0, step=0.001,
                 widget="number"),
        ui.Float("high_freq_factor", N_("Llama 3 high_freq_factor"), default=4.0, lo=1.0, hi=32.0, step=0.5),
        ui.Float("low_freq_factor", N_("Llama 3 low_freq_factor (< high_freq_factor)"), default=1.0, lo=0.25,
                 hi=lambda v: min(4.0, v["high_freq_factor"] - 0.25), hi_max=4.0, step=0.25,
                 help=N_("Llama 3 divides by high_freq_factor − low_freq_factor, so it stays below high_freq_factor.")),
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


def key_numbers(v: ui.Values) -> None:
    """The numbers that the part's sidebar settings determine, in one row."""
    ui.numbers(sp.key_numbers(v))


def evidence_link() -> str:
    """A markdown link to the part that runs a trained model, its text read from the part's declaration."""
    return _("[part {label}]({url})", label=_(lesson.parts["evidence"].label),
             url=ui.href(lesson.slug, part="evidence"))


@lesson.part("pairs", N_("1. Wavelengths"), uses=EVERY_METHOD,
             title=N_("1. Wavelengths and frequencies: who finishes a turn inside L?"),
             controls=(
                 ui.Choice("curve", N_("plot"), default="wavelength", widget="radio",
                           options={"wavelength": N_("wavelength λ'_i (tokens)"),
                                    "frequency": N_("frequency θ'_i (rad/token)")}),
             ))
def part_wavelengths(v: ui.Values) -> None:
    key_numbers(v)
    curve = ui.controls(where="main", columns=1).curve
    ui.figure_panel(
        scaling_wavelengths, every_method(v) | {"curve": curve}, key="wavelengths",
        live={"d": "dim", "beta_fast": "beta_fast", "beta_slow": "beta_slow", "high_freq_factor": "high_freq_factor",
              "low_freq_factor": "low_freq_factor", "base": "base", "s": "factor", "L": "original_len"},
        caption=_("Read the shaded region first: those slow pairs have wavelengths longer than L, so in training "
                "they never completed a turn. PI moves every curve up by s; NTK leaves pair 0 alone and lifts the "
                "slowest pair by s; YaRN and Llama 3 leave the fast pairs alone and move only the slow ones. "
                "Frequency is the same story upside down (θ' = 2π/λ'): a pair below the 2π/L line is one that "
                "never finished a turn."),
        latex=r"\lambda'_i = \frac{2\pi}{\theta'_i},\qquad \theta_i = b^{-2i/d}",
        code=[sc.scaled_inv_freq, sc.linear_inv_freq, sc.ntk_inv_freq],
    )


@lesson.part("ratio", N_("2. Per-pair scale"), uses=EVERY_METHOD, title=N_("2. The per-pair scale θ_i / θ'_i"))
def part_ratio(v: ui.Values) -> None:
    key_numbers(v)
    low, high = sc.yarn_correction_range(v.d, v.base, int(v.L), v.beta_fast, v.beta_slow, v.truncate)
    ui.figure_panel(
        scaling_ratio, every_method(v), key="ratio",
        live={"d": "dim", "beta_fast": "beta_fast", "beta_slow": "beta_slow", "high_freq_factor": "high_freq_factor",
              "low_freq_factor": "low_freq_factor", "base": "base", "s": "factor", "L": "original_len"},
        caption=_("1 means the pair is untouched (extrapolated), s = {s:g} means fully interpolated. PI is flat "
                  "at s; NTK rises smoothly from 1 to s; YaRN is 1 up to pair {low:g} ('low'), s from pair "
                  "{high:g} ('high') on, with a ramp between; Llama 3 has three bands by wavelength (kept, blended, "
                  "divided by s).", s=v.s, low=low, high=high),
        latex=r"\text{YaRN: } \theta'_i = w_i\,\theta_i + (1-w_i)\,\frac{\theta_i}{s}",
        code=[sc.yarn_inv_freq, sc.llama3_inv_freq, sc.yarn_correction_range],
    )


@lesson.part("unseen", N_("3. Unseen angles"), uses=EVERY_METHOD,
             title=N_("3. Unseen angles: which pairs go out of distribution"))
def part_unseen(v: ui.Values) -> None:
    key_numbers(v)
    counts = sp.unseen_counts(**every_method(v))
    on_pi = (_(" PI's line lies exactly on the grey one (L'·θ_i/s = L·θ_i): it never turns further than in "
               "training.") if "linear" in counts else "")
    ui.figure_panel(
        scaling_unseen, every_method(v), key="unseen",
        live={"d": "dim", "beta_fast": "beta_fast", "beta_slow": "beta_slow", "high_freq_factor": "high_freq_factor",
              "low_freq_factor": "low_freq_factor", "base": "base", "s": "factor", "L": "original_len"},
        caption=_("The grey dashed line is the largest angle each pair reached in training (L·θ_i). Fast pairs "
                  "went round many times, so any angle is familiar. A slow pair (below the dotted 2π line) only saw "
                  "an arc; if a method lets it turn further at L' (×), the model meets angles it never saw.{on_pi} "
                  "Pairs marked × at these settings: {tally}. NTK-aware divides only the last pair by the full s, "
                  "so the slow pairs before it can still overshoot; lower beta_slow (try 0.25) to see YaRN leave "
                  "some unfixed.", on_pi=on_pi, tally=sp.unseen_tally(counts, v.d)),
        latex=r"\text{unseen} \iff L\theta_i < 2\pi \ \text{and}\ L'\theta'_i > L\theta_i",
        code=[sc.unseen_angles],
    )
    ui.prose(_("What unseen angles do to a trained model, and which methods repair it: {link}.",
               link=evidence_link()))


@lesson.part("yarn", N_("4. YaRN ramp"), uses=("d", "base", "L", *YARN),
             title=N_("4. YaRN's ramp: against i and against r = L/λ"),
             controls=(
                 ui.Choice("ramp", N_("YaRN ramp"), default="code", widget="radio",
                           options={"code": N_("code (linear in i)"), "paper": N_("paper γ(r) (linear in r)")}),
             ))
def part_yarn_ramp(v: ui.Values) -> None:
    key_numbers(v)
    ramp = ui.controls(where="main", columns=1).ramp
    params = dict(dim=v.d, base=v.base, original_len=int(v.L), **yarn(v))
    low, high = sc.yarn_correction_range(v.d, v.base, int(v.L), v.beta_fast, v.beta_slow, v.truncate)
    ui.figure_panel(
        scaling_yarn_ramp, params | {"ramp": ramp}, key="ramp",
        live={"d": "dim", "beta_fast": "beta_fast", "beta_slow": "beta_slow", "base": "base", "L": "original_len"},
        caption=_("The code ramps linearly in the pair index {ends}, i.e. linearly in log r; the paper's γ is "
                  "linear in r itself. {comparison}", ends=sp.ramp_ends(low, high, v.truncate),
                  comparison=sp.ramp_comparison(**params)),
        latex=r"\gamma(r) = \mathrm{clamp}\!\left(\frac{r-\alpha}{\beta-\alpha}, 0, 1\right),\quad "
              r"r_i = \frac{L}{\lambda_i},\quad D(\rho) = \frac{d\,\ln\!\big(L/(2\pi\rho)\big)}{2\ln b}",
        code=[sc.yarn_extrapolation_weight, sc.yarn_correction_dim],
    )


@lesson.part("temperature", N_("5. Temperature"), uses=("s", *TEMPERATURE), title=N_("5. Attention temperature"))
def part_temperature(v: ui.Values) -> None:
    key_numbers(v)
    ui.figure_panel(
        scaling_temperature, dict(factor=v.s, mscale=v.mscale, mscale_all_dim=v.mscale_all_dim), key="temperature",
        live={"s": "factor"},
        caption=_("YaRN multiplies cos and sin by A = 0.1 ln s + 1 ({A:.4f} at s = {s:g}), so attention logits "
                  "grow by A². DeepSeek sets mscale and mscale_all_dim: cos/sin get their ratio (1.0 when they are "
                  "equal) and the softmax scale gets (0.1·mscale_all_dim·ln s + 1)² instead. Try "
                  "mscale = mscale_all_dim = 0.707.", A=sc.get_mscale(v.s), s=v.s),
        latex=r"A = 0.1\ln s + 1,\qquad A_{\mathrm{DS}} = \frac{0.1\,\mu\ln s + 1}{0.1\,\mu_{\mathrm{all}}\ln s + "
               "1}",
        code=[sc.get_mscale, sc.yarn_attention_factor, sc.deepseek_softmax_multiplier],
    )


@lesson.part("entropy", N_("6. Entropy vs length"), uses=(*SIZE, *YARN, *TEMPERATURE),
             title=N_("6. Attention entropy against length"))
def part_entropy(v: ui.Values) -> None:
    key_numbers(v)
    factor = sc.yarn_attention_factor(v.s, sp.unset(v.mscale), sp.unset(v.mscale_all_dim))
    ui.figure_panel(
        scaling_entropy, size(v) | yarn(v) | dict(mscale=v.mscale, mscale_all_dim=v.mscale_all_dim), key="entropy",
        live={"d": "dim", "beta_fast": "beta_fast", "beta_slow": "beta_slow", "base": "base", "s": "factor",
              "L": "original_len"},
        caption=_("Longer contexts spread attention over more keys, so entropy creeps towards ln n. {effect} "
                  "(One seeded query; 512 sampled keys per length.)",
                  effect=sp.entropy_effect(factor)),
        code=[sc.attention_entropy],
    )
    ui.prose(_("How a trained model fares past L under each method (YaRN with its temperature): {link}.",
               link=evidence_link()))


@lesson.part("dynamic", N_("7. Dynamic NTK"), uses=SIZE, title=N_("7. Dynamic NTK: the base follows the sequence"))
def part_dynamic(v: ui.Values) -> None:
    key_numbers(v)
    rows, calls = sp.dynamic_calls(**size(v))
    ui.numbers(rows)
    ui.figure_panel(
        scaling_dynamic, size(v), key="dynamic",
        live={"d": "dim", "base": "base", "s": "factor", "L": "original_len"},
        caption=_("Press Play or drag the length slider under the chart. Up to max_position_embeddings nothing "
                "changes; beyond it transformers' 'dynamic' uses α = s·l/L − (s − 1), which overshoots the plain "
                "α = l/L by a lot at large s. The chart draws each length's base as if it were computed afresh "
                "for that length. transformers does not go back down step by step: it keeps the base of the "
                "longest length seen so far and returns to the original base only once a call is shorter than L, "
                "as the calls below show ({calls}). The KV cache holds keys after RoPE, and transformers never "
                "rotates them again: when the base changes, the keys already cached keep the angles of the old "
                "base while new queries turn with the new one, so their scores are no longer a function of m − n "
                "alone. This mismatch is known and left in place (caching keys before RoPE would avoid it, at the "
                "cost of rotating every cached key at each step).", calls=calls),
        latex=r"b' = b\,\alpha^{d/(d-2)},\qquad \alpha = \frac{s\,l}{L} - (s-1),\ \ l = \max(\text{seq\_len}, L)",
        code=[sc.dynamic_alpha, sc.dynamic_base, sc.dynamic_ntk_schedule, sc.dynamic_ntk_bases],
    )


@lesson.part("scores", N_("8. Scores past L"), uses=EVERY_METHOD,
             title=N_("8. Attention score against distance, past L"),
             controls=(
                 ui.Choice("qk", N_("query and key"), default="random", widget="radio",
                           options={"ones": N_("q = k = all ones"), "random": N_("seeded random q, k")}),
             ))
def part_scores(v: ui.Values) -> None:
    key_numbers(v)
    qk = ui.controls(where="main", columns=1).qk
    methods = ",".join(m for m in v.methods if m != "dynamic") or "default"
    target = int(round(v.s * v.L))
    ui.figure_panel(
        scaling_score, every_method(v) | {"methods": methods, "qk": qk}, key="score",
        live={"d": "dim", "beta_fast": "beta_fast", "beta_slow": "beta_slow", "high_freq_factor": "high_freq_factor",
              "low_freq_factor": "low_freq_factor", "base": "base", "s": "factor", "L": "original_len"},
        caption=_("Left, every token: PI stretches the curve s times (neighbours 1 and 2 apart look almost the "
                  "same), while NTK, YaRN and Llama 3 keep the fast wiggles that tell close tokens apart. Right, out "
                  "to L' = {target:,}, one strip per method: beyond the dashed L line plain RoPE keeps producing "
                  "patterns never seen in training; {far}.", target=target, far=sp.far_panel(target)),
        latex=r"q^\top R_{\Delta} k = \sum_i \mathrm{Re}\big[h_i\, e^{\,j\Delta\theta'_i}\big],\quad "
              r"h_i = z^q_i\,\overline{z^k_i},\ j^2 = -1",
        code=[sc.rope_scores],
    )


def config_text_box() -> str:
    """The expander where a student pastes a config.json; its text ("" when empty)."""
    key = f"{lesson.slug}.config_text"
    with st.expander(_("Paste your own config.json"), expanded=bool(st.session_state.get(key))):
        return st.text_area(
            _("config.json (optional; it overrides the preset)"), key=key,
            height=180, placeholder='{"head_dim": 128, "rope_theta": 500000.0, "rope_scaling": {...}, ...}',
            help=_("Read locally, never stored. At most {chars:,} characters. Both spellings "
                   "(rope_scaling, rope_parameters) and a nested text_config are read.",
                   chars=sc.MAX_CONFIG_CHARS)) or ""


def what_was_read(report: sc.ConfigReport, temperatures: list[dict[str, float]], preset: str, pasted: bool) -> None:
    """The table of every value read, where the target length comes from, the source, the layers, the notes."""
    left, right = st.columns([3, 2])
    with left:
        st.markdown(_("**What was read** (pasted config.json, not the preset)") if pasted else
                    _("**What was read** ({preset})", preset=preset))
        st.dataframe(cp.config_table(report, temperatures), hide_index=True, width="stretch")
    with right:
        st.caption(_("Target length from {source}.", source=report.target_source))
        if any("softmax scale × (DeepSeek)" in t for t in temperatures):
            st.caption(_("DeepSeek models multiply the softmax scale by (0.1·mscale_all_dim·ln s + 1)² on top of "
                         "cos/sin × A, so A = 1 here does not mean 'no temperature'."))
        if not pasted:
            st.caption(_("Source: {source}", source=_(ps.get_preset(preset).source)))
    for sentence in cp.layer_sentences(report, ui.escape_md):
        st.markdown(sentence)
    for note in report.notes:
        ui.say(_("Note: {note}", note=note))


@lesson.part("models", N_("9. Real models' configs"), title=N_("9. Real models' config.json"),
             controls=(
                 ui.Choice("preset", N_("model preset"), default="Llama 3.1 8B", widget="select",
                           options={n: n for n in ps.preset_names()}),
             ))
def part_models(v: ui.Values) -> None:
    preset = ui.controls(where="main", columns=1).preset
    text = config_text_box()
    try:
        config, _name = config_source(preset, text)
        report = sc.describe_config(config)
        temperatures = cp.temperatures(config, report)
    except ValueError as err:
        st.warning(_("This pasted config.json could not be read, so nothing is shown for it (the preset is not "
                     "used while the box holds text). The reason:"), icon="⚠️")
        ui.say(str(err))
        return
    pasted, target = bool(text.strip()), report.target_length
    ui.numbers(cp.config_numbers(report, temperatures))
    blocks = _("; ").join(_("{block}: {kind}", block=cp.block_label(b, ui.escape_md), kind=cp.block_kind(b.rope))
                          for b in report.blocks)
    ui.figure_panel(
        config_blocks, {"preset": preset, "config_json": text if pasted else ""}, key="config",
        caption=_("Dashed: plain RoPE with each block's own base. Solid: the frequencies transformers computes "
                  "from the config at the model's target length, {target:,} tokens ({blocks}). Dotted on the right: "
                  "at short lengths, where LongRoPE and dynamic NTK differ. The legend gives each block's cos/sin "
                  "factor.", target=target, blocks=blocks),
        code=[sc.describe_config, sc.inv_freq_from_rope_config, sc.config_target_length],
    )
    what_was_read(report, temperatures, preset, pasted)
    for b in report.blocks:
        faster = cp.faster_pairs(b)
        label = _("no pair turns faster than plain RoPE at {target:,} tokens (θ'_i ≤ θ_i)", target=target)
        if len(report.blocks) > 1:
            label = _("{block}: {check}", block=cp.block_label(b, ui.escape_md), check=label)
        ui.check(label, faster == 0, _("{faster} of {pairs} pairs are faster; cos/sin × {factor:.6g}",
                                       faster=faster, pairs=b.inv_freq.size, factor=b.attention_factor))


def usable(names: tuple[str, ...]) -> tuple[str, ...]:
    """The shipped models among ``names`` whose weights load, in order. A file that does not gets one warning
    line (``pm.WeightsError``: the file and how to restore it; a damaged manifest once for all of them), so the
    part draws the other models and the rest of the lesson is untouched."""
    ok, problems = mp.loadable(names)
    for problem in problems:  # the problem may quote the file's own bytes (a config key): escaped
        st.warning(f"{ui.escape_md(problem)}; {pm.RESTORE}", icon="⚠️")
    return ok


def scale_control(name: str, label: str, factors: tuple[float, ...]) -> ui.LogFloat:
    """A model part's scale slider: the values the shipped evidence grid holds for it (``factors``)."""
    return ui.LogFloat(name, label, default=4.0, lo=1.0, hi=max(factors), extra=factors,
                       help=N_("The shipped models were trained at {trained}; L' = s·L, up to s = {most:g} (the "
                               "curves shipped precomputed, 32 sequences each)."),
                       help_values=(("trained", mp.trained_at()), ("most", max(factors))))


def evidence_params(methods: tuple[str, ...], s: float, finetuned: bool) -> dict:
    """The evidence figures' parameters: the chosen methods (plain RoPE when none) and, with ``finetuned``, the
    fine-tuned models whose weights load (the others are warned about and left out)."""
    params = dict(methods=",".join(methods or ("default",)), factor=s, finetuned=finetuned)
    loads = usable(tuple(f"rope_{m}_ft" for m in pm.FINETUNED)) if finetuned else ()
    ready = tuple(m for m in pm.FINETUNED if f"rope_{m}_ft" in loads)
    if finetuned and ready != pm.FINETUNED:  # a fine-tune's file is damaged (warned above): draw the others
        params["finetunes"] = ",".join(ready)
    return params


@lesson.part("evidence", N_("10. What a real model does"), uses=("methods",),
             title=N_("10. What a real model does: RoPE trained at L = 64, read at L' = s·L"),
             controls=(
                 scale_control("model_s", N_("scale s = L'/L for the model"), GRID_FACTORS),
                 ui.Bool("finetuned", N_("add the PI and YaRN models fine-tuned at L' = 4L (drawn at s = 4)"),
                         default=True),
             ))
def part_evidence(v: ui.Values) -> None:
    c = ui.controls(where="main", columns=2)
    if not usable(("rope",)):
        return
    L = pm.train_length()
    Lp = int(round(c.model_s * L))
    params = evidence_params(v.methods, c.model_s, c.finetuned)
    drawn = method_curves(params["methods"], c.model_s, c.finetuned, params.get("finetunes", "linear,yarn"),
                          pm.CURVE_SEQUENCES, 0)
    ui.figure_panel(models_extension, params, key="evidence",
    live={"model_s": "factor"}, caption=mp.evidence_caption(drawn, Lp),
                    code=[pm.evaluate, pm.rope_inv_freq])
    ui.prose(mp.evidence_prose(drawn, c.model_s))
    ui.figure_panel(
        models_retrieval, dict(params, kind="methods"), key="evidence_retrieval",
        live={"model_s": "factor"},
        caption=_("Retrieval beside the loss: the share of tokens the model copies exactly (its most likely token "
                  "is the one the repeat determines), per position, over the same sequences. {retrieval}",
                  retrieval=mp.retrieval_sentence(drawn, L, Lp)),
        code=[pm.evaluate_sequences, pm.effective_context],
    )


@lesson.part("schemes", N_("11. Schemes past L"), title=N_("11. Position schemes past L: one task, five schemes"),
             controls=(scale_control("schemes_s", N_("scale s = L'/L"), SCHEME_FACTORS),))
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
    past = mp.past_floor(drawn)
    ui.figure_panel(models_schemes, params, key="schemes",
    live={"schemes_s": "factor"}, caption=mp.schemes_caption(at_L, past, Lp),
                    code=[pm.evaluate])
    ui.prose(mp.schemes_prose(at_L, past, L, Lp))
    ui.figure_panel(
        models_retrieval, dict(params, kind="schemes"), key="schemes_retrieval",
        live={"schemes_s": "factor"},
        caption=_("Retrieval beside the loss, per scheme, over the same sequences. {retrieval}",
                  retrieval=mp.retrieval_sentence(drawn, L, Lp)),
        code=[pm.evaluate_sequences, pm.effective_context],
    )


def wrong_and_right(case: str, wrong_caption: str, right_caption: str) -> dict:
    """The pitfall's two figures at ``sp.PITFALL_SETTING``, the wrong version and the right one."""
    def draw(variant: str, caption: str) -> None:
        ui.figure_panel(scaling_pitfall, dict(sp.PITFALL_SETTING, case=case, variant=variant), key=f"{case}_{variant}",
                        caption=caption)

    return dict(wrong=lambda: draw("wrong", wrong_caption), right=lambda: draw("right", right_caption))


PITFALLS = (  # key, title, explanation, figure case, wrong caption, right caption
    ("floor_ceil", N_("YaRN's floor/ceil applied before the division"),
     N_("Code that writes `floor(d·ln(L/(2π·β))) / (2 ln b)` rounds the numerator, so the ramp ends "
        "are not integers ({wrong_low:.3f} and {wrong_high:.3f} instead of {low:g} and {high:g}) and the middle "
        "pairs' frequencies are off by up to {off:.0%}. Round the whole quotient."),
     "floor_ceil", N_("The ramp starts and ends at fractional pairs."), N_("Integer ramp ends {low:g} and {high:g}.")),
    ("mscale", N_("mscale = 0.707 used as a cos/sin multiplier"),
     N_("Multiplying `0.1 ln s + 1` by 0.707 and applying it to cos and sin *cools* attention (logits "
        "× {wrong_logits:.3f} at s = 16) instead of warming it (× {logits:.3f}). 0.707 is DeepSeek's coefficient "
        "inside `0.1·mscale·ln s + 1`, used with `mscale_all_dim`."),
     "mscale", N_("Below 1: the softmax gets flatter as s grows."), N_("YaRN and DeepSeek both sharpen.")),
    ("linear", N_("the 'linear' function that never scales"),
     N_("A `precompute_freqs_cis_linear` without a scale parameter is plain RoPE under another name. "
        "Position Interpolation divides every frequency (or every position) by s."),
     "linear", N_("Every pair at 1: nothing was interpolated."), N_("Every pair at s.")),
    ("inverted", N_("inverted high/low frequency bands"),
     N_("High frequency means short wavelength means small pair index. YaRN and Llama 3 keep those and interpolate "
        "the slow pairs whose wavelength exceeds L; several write-ups say the opposite."),
     "inverted_bands", N_("Fast pairs interpolated: local order blurs, and the slow pairs still go out of "
                          "distribution."), N_("Fast pairs kept, slow pairs divided by s.")),
    ("beta_fast_zero", N_("beta_fast = 0 silently means 32 in transformers"),
     N_("transformers reads `beta_fast` and `beta_slow` with `or 32` / `or 1`, so a 0 (or null) in a config is "
        "replaced by the default without a warning. Write the value you mean."),
     "beta_fast_zero", N_("A config with beta_fast 0 and one with 32 give the same frequencies."),
     N_("An explicit beta_fast moves the ramp.")),
    ("llama3", N_("Llama 3 is NTK-by-parts without temperature"),
     N_("Llama 3's bands are YaRN's *paper* ramp (linear in r = L/λ) with α = low_freq_factor and β = "
        "high_freq_factor, and no attention temperature: cos/sin stay × 1. Calling it YaRN suggests the code ramp, "
        "β = 32 and a logit multiplier it does not have."),
     "llama3_temperature", N_("YaRN with its defaults is a different curve and adds a temperature."),
     N_("The two curves coincide; only YaRN would add A.")),
)




@lesson.part("pitfalls", N_("12. Pitfalls"), uses=(*SIZE, *LLAMA3), title=N_("12. Pitfalls"))
def part_pitfalls(v: ui.Values) -> None:
    st.caption(_("Drawn at d = {dim}, b = {base:g}, s = {factor:g}, L = {original_len}.", **sp.PITFALL_SETTING))
    quoted = sp.pitfall_numbers(**sp.PITFALL_SETTING)
    for key, title, explanation, case, wrong_caption, right_caption in PITFALLS:
        ui.pitfall(_(title), _(explanation, **quoted), key=key,
                   **wrong_and_right(case, _(wrong_caption, **quoted), _(right_caption, **quoted)))
    err = sp.llama3_against_paper_yarn(**size(v), low_freq_factor=v.low_freq_factor,
                                       high_freq_factor=v.high_freq_factor)
    ui.check(_("Llama 3 = YaRN paper ramp with α = low_freq_factor, β = high_freq_factor (at the sidebar's d, b, s, "
               "L)"), err < 1e-12, _("max relative difference {err:.1e} over {pairs} pairs", err=err, pairs=v.d // 2))


lesson.run()
