"""Context extension: every RoPE scaling method, exact, per pair, with real models' configs."""

from dataclasses import dataclass

import streamlit as st

from posviz import presets as ps
from posviz import scaling as sc
from posviz import ui
from posviz.rope import inv_freq

ui.setup_page(
    "Context extension", icon="📏",
    intro="A model trained on L tokens is asked to read L' = s·L. Each method below rewrites RoPE's per-pair "
          "frequencies θ_i (and sometimes adds a temperature); drag the sliders to see which pairs each method "
          "touches, which pairs reach angles never seen in training, and what real models' config.json files do.",
)


@dataclass(frozen=True)
class Setting:
    """The sidebar's values, grouped as the figure builders take them."""

    p: ui.Values
    L: int  # original context L (tokens)
    high: float  # Llama 3 high_freq_factor, kept above low_freq_factor

    @property
    def common(self) -> dict:
        return dict(dim=self.p.d, base=self.p.base, factor=self.p.s, original_len=self.L)

    @property
    def yarn(self) -> dict:
        return dict(beta_fast=self.p.beta_fast, beta_slow=self.p.beta_slow, truncate=self.p.truncate)

    @property
    def every(self) -> dict:
        """Every method's parameters: what the per-pair figures take."""
        return dict(methods=",".join(self.p.methods), **self.common, **self.yarn,
                    low_freq_factor=self.p.low_freq_factor, high_freq_factor=self.high, mscale=self.p.mscale,
                    mscale_all_dim=self.p.mscale_all_dim)


def key_numbers(s: Setting) -> None:
    """The row of numbers every curve part shows for the sidebar's settings."""
    p = s.p
    low_i, high_i = sc.yarn_correction_range(p.d, p.base, s.L, p.beta_fast, p.beta_slow, p.truncate)
    A = sc.yarn_attention_factor(p.s, p.mscale or None, p.mscale_all_dim or None)
    b_ntk = sc.ntk_base(p.d, p.base, p.s)
    ui.numbers({"L' = s·L": f"{int(round(p.s * s.L)):,}",
                "pairs with λ > L": int((sc.rotations(p.d, p.base, s.L) < 1).sum()),
                "NTK base b'": f"{b_ntk:,.0f}" if b_ntk < 1e9 else f"{b_ntk:.3g}",
                "YaRN low, high": f"{low_i:g}, {high_i:g}", "YaRN cos/sin × A": f"{A:.4f}",
                "logits × A²": f"{A * A:.4f}"})
    st.caption("Numbers for the sidebar's settings. All curves are computed per pair (d/2 numbers), so the "
               "target length costs nothing: d = 256 at L' = 16.8 M tokens is as fast as d = 8 at L' = 256.")


def part_wavelengths(s: Setting) -> None:
    key_numbers(s)
    curve = ui.controls(ui.Choice("curve", "plot", default="wavelength", widget="radio",
                                  options={"wavelength": "wavelength λ'_i (tokens)",
                                           "frequency": "frequency θ'_i (rad/token)"}),
                        where="main", columns=1)["curve"]
    st.header("Wavelengths and frequencies: who finishes a turn inside L?")
    ui.figure_panel(
        "scaling_wavelengths", s.every | {"curve": curve}, key="wavelengths",
        caption="Read the shaded region first: those slow pairs have wavelengths longer than L, so in training "
                "they never completed a turn. PI moves every curve up by s; NTK leaves pair 0 alone and lifts the "
                "slowest pair by s; YaRN and Llama 3 leave the fast pairs alone and move only the slow ones. "
                "Frequency is the same story upside down (θ' = 2π/λ'): a pair below the 2π/L line is one that "
                "never finished a turn.",
        latex=r"\lambda'_i = \frac{2\pi}{\theta'_i},\qquad \theta_i = b^{-2i/d}",
        code=[sc.scaled_inv_freq, sc.linear_inv_freq, sc.ntk_inv_freq],
    )


def part_ratio(s: Setting) -> None:
    key_numbers(s)
    st.header("The per-pair scale θ_i / θ'_i")
    ui.figure_panel(
        "scaling_ratio", s.every, key="ratio",
        caption="1 means the pair is untouched (extrapolated), s means fully interpolated. PI is flat at s; "
                "NTK rises smoothly from 1 to s; YaRN is 1 up to its 'low' pair, s after 'high', with a ramp "
                "between; Llama 3 has three bands by wavelength (kept, blended, divided by s).",
        latex=r"\text{YaRN: } \theta'_i = w_i\,\theta_i + (1-w_i)\,\frac{\theta_i}{s}",
        code=[sc.yarn_inv_freq, sc.llama3_inv_freq, sc.yarn_correction_range],
    )


def part_unseen(s: Setting) -> None:
    key_numbers(s)
    st.header("Unseen angles: which pairs go out of distribution")
    ui.figure_panel(
        "scaling_unseen", s.every, key="unseen",
        caption="The dashed black line is the largest angle each pair reached in training (L·θ_i). Fast pairs "
                "went round many times, so any angle is familiar. A slow pair (below the 2π line) only saw an "
                "arc; if the method lets it turn further at L' (crosses), the model meets angles it never saw. "
                "Without scaling every slow pair is flagged. PI brings all of them back; NTK-aware divides only "
                "the "
                "last pair by the full s, so the pairs just before it still overshoot (one reason its α is set "
                "above s in practice); YaRN fixes all of them as long as beta_slow ≥ 1 (try beta_slow = 0.25).",
        latex=r"\text{unseen} \iff L\theta_i < 2\pi \ \text{and}\ L'\theta'_i > L\theta_i",
        code=[sc.unseen_angles],
    )


def part_yarn_ramp(s: Setting) -> None:
    key_numbers(s)
    ramp = ui.controls(ui.Choice("ramp", "YaRN ramp", default="code", widget="radio",
                                 options={"code": "code (linear in i)", "paper": "paper γ(r) (linear in r)"}),
                       where="main", columns=1)["ramp"]
    st.header("YaRN's ramp: against i and against r = L/λ")
    ui.figure_panel(
        "scaling_yarn_ramp", dict(dim=s.p.d, base=s.p.base, original_len=s.L, **s.yarn, ramp=ramp), key="ramp",
        caption="Every implementation (jquesnelle/yarn, transformers, vLLM, DeepSeek) ramps linearly in the "
                "pair index between floor(low) and ceil(high), i.e. linear in log r; the paper's γ is linear in "
                "r itself. The code's curve lies above the paper's: it keeps the middle pairs closer to their "
                "original frequencies (at d = 64, L = 2048, pair 10 keeps weight 0.85, not 0.56).",
        latex=r"\gamma(r) = \mathrm{clamp}\!\left(\frac{r-\alpha}{\beta-\alpha}, 0, 1\right),\quad "
              r"r_i = \frac{L}{\lambda_i},\quad D(\rho) = \frac{d\,\ln\!\big(L/(2\pi\rho)\big)}{2\ln b}",
        code=[sc.yarn_extrapolation_weight, sc.yarn_correction_dim],
    )


def part_temperature(s: Setting) -> None:
    key_numbers(s)
    st.header("Attention temperature")
    ui.figure_panel(
        "scaling_temperature", dict(factor=s.p.s, mscale=s.p.mscale, mscale_all_dim=s.p.mscale_all_dim),
        key="temperature",
        caption="YaRN multiplies cos and sin by A = 0.1 ln s + 1, so attention logits grow by A². DeepSeek sets "
                "mscale and mscale_all_dim: cos/sin get their ratio (1.0 when they are equal) and the softmax "
                "scale gets (0.1·mscale_all_dim·ln s + 1)² instead. Try mscale = mscale_all_dim = 0.707.",
        latex=r"A = 0.1\ln s + 1,\qquad A_{\mathrm{DS}} = \frac{0.1\,\mu\ln s + 1}{0.1\,\mu_{\mathrm{all}}\ln s + "
               "1}",
        code=[sc.get_mscale, sc.yarn_attention_factor, sc.deepseek_softmax_multiplier],
    )


def part_entropy(s: Setting) -> None:
    key_numbers(s)
    st.header("Attention entropy against length")
    ui.figure_panel(
        "scaling_entropy", dict(**s.common, **s.yarn, mscale=s.p.mscale, mscale_all_dim=s.p.mscale_all_dim),
        key="entropy",
        caption="Longer contexts spread attention over more keys, so entropy creeps towards ln n. The temperature "
                "sharpens the softmax back: the solid YaRN curve sits below the dashed one at every length. "
                "(One seeded query; keys are sampled, 512 per length, so the curve costs the same at any L'.)",
        code=[sc.attention_entropy],
    )


def part_dynamic(s: Setting) -> None:
    key_numbers(s)
    st.header("Dynamic NTK: the base follows the sequence")
    ui.figure_panel(
        "scaling_dynamic", s.common, key="dynamic",
        caption="Press Play or drag the length slider under the chart (it runs in your browser). Up to "
                "max_position_embeddings nothing changes; beyond it transformers' 'dynamic' uses "
                "α = s·l/L − (s − 1), which overshoots the plain α = l/L by a lot at large s. Every change of the "
                "base re-rotates all cached keys, so a KV cache must hold keys before RoPE.",
        latex=r"b' = b\,\alpha^{d/(d-2)},\qquad \alpha = \frac{s\,l}{L} - (s-1),\ \ l = \max(\text{seq\_len}, L)",
        code=[sc.dynamic_alpha, sc.dynamic_base, sc.dynamic_inv_freq],
    )


def part_scores(s: Setting) -> None:
    key_numbers(s)
    qk = ui.controls(ui.Choice("qk", "query and key", default="ones", widget="radio",
                               options={"ones": "q = k = all ones", "random": "seeded random q, k"}),
                     where="main", columns=1)["qk"]
    st.header("Attention score against distance, past L")
    methods = ",".join(m for m in s.p.methods if m != "dynamic") or "default"
    ui.figure_panel(
        "scaling_score",
        {k: v for k, v in s.every.items() if k not in ("mscale", "mscale_all_dim")} | {"methods": methods, "qk": qk},
        key="score",
        caption="Left, every token: PI stretches the curve s times (neighbours 1 and 2 apart look almost the "
                "same), while NTK, YaRN and Llama 3 keep the fast wiggles that tell close tokens apart. Right, "
                "sampled out to L': beyond the dashed L line plain RoPE keeps producing patterns never seen in "
                "training. (Far view is sampled, so its fine oscillations alias.)",
        latex=r"q^\top R_{\Delta} k = \sum_i \mathrm{Re}\big[h_i\, e^{\,i\Delta\theta'_i}\big]",
        code=[sc.rope_scores],
    )


def part_models(s: Setting) -> None:
    st.header("Real models' config.json")
    names = ps.preset_names()
    chosen = ui.controls(ui.Choice("preset", "model preset", default="Llama 3.1 8B", widget="select",
                                   options={n: n for n in names}), where="main", columns=1)["preset"]
    text = st.text_area(
        "Paste your config.json (optional; it overrides the preset)", key="context_extension.config_text",
        height=180, placeholder='{"head_dim": 128, "rope_theta": 500000.0, "rope_scaling": {...}, ...}',
        help=f"Read locally, never stored. At most {sc.MAX_CONFIG_CHARS:,} characters.")
    config = None
    source = None
    if text and text.strip():
        try:
            config = sc.parse_config_text(text)
            rc = sc.read_rope_config(config)
            sc.inv_freq_from_config(config)
            sc.inv_freq_from_config(config, sc.config_target_length(rc))
        except ValueError as err:
            st.warning("This config.json could not be read; showing the preset instead. The reason:", icon="⚠️")
            ui.say(str(err))
            config = None
    if config is None:
        preset = ps.get_preset(chosen)
        config, source = preset.config, preset.source
        rc = sc.read_rope_config(config)
        text = ""
    left, right = st.columns([3, 2])
    with left:
        st.markdown("**What was read**" + (" (pasted config)" if source is None else f" ({chosen})"))
        st.dataframe({"key": list(rc.summary()), "value": [str(v) for v in rc.summary().values()]},
                     hide_index=True, width="stretch")
    with right:
        temps = sc.config_temperature(config)
        ui.numbers({k: f"{v:.4f}" for k, v in temps.items()})
        if "softmax scale × (DeepSeek)" in temps:
            st.caption("DeepSeek models multiply the softmax scale by (0.1·mscale_all_dim·ln s + 1)² on top of "
                       "cos/sin × A, so A = 1 here does not mean 'no temperature'.")
        for note in rc.notes:
            ui.say("Note: " + note)
        if source:
            st.caption("Source: " + source)
    ui.figure_panel(
        "scaling_config", {"preset": chosen, "config_json": text}, key="config",
        caption="Dashed: plain RoPE with this base. Solid: the frequencies transformers computes from the "
                "config at the model's target length (dotted on the right: at short lengths, where LongRoPE "
                "and dynamic NTK differ). The title gives the cos/sin factor.",
        code=[sc.inv_freq_from_config, sc.read_rope_config],
    )
    target = sc.config_target_length(rc)
    scaled, att = sc.inv_freq_from_config(config, target)
    faster = int((scaled > inv_freq(rc.dim, rc.base) * (1 + 1e-12)).sum())
    ui.check(f"no pair turns faster than plain RoPE at {target:,} tokens (θ'_i ≤ θ_i)", faster == 0,
             f"{faster} of {scaled.size} pairs are faster; cos/sin × {att:.6g}")


def part_pitfalls(s: Setting) -> None:
    st.header("Pitfalls")
    pit = dict(dim=64, base=10000.0, factor=16.0, original_len=2048)

    def pair(case: str, wrong_caption: str, right_caption: str) -> dict:
        return dict(
            wrong=lambda: ui.figure_panel("scaling_pitfall", dict(pit, case=case, variant="wrong"),
                                          key=f"{case}_wrong", caption=wrong_caption),
            right=lambda: ui.figure_panel("scaling_pitfall", dict(pit, case=case, variant="right"),
                                          key=f"{case}_right", caption=right_caption))

    st.caption("Drawn at d = 64, b = 10000, s = 16, L = 2048 (the setting of seed 000's YaRN code).")
    ui.pitfall(
        "YaRN's floor/ceil applied before the division (seed 000)",
        "Seed 000 writes `floor(d·ln(L/(2π·β))) / (2 ln b)`: the rounding happens to the numerator, so the ramp "
        "ends are not integers (8.034 and 20.140 instead of 8 and 21) and the middle pairs' frequencies are off "
        "by up to 45 %. Round the whole quotient.",
        key="floor_ceil",
        **pair("floor_ceil", "The ramp starts and ends at fractional pairs.", "Integer ramp ends 8 and 21."))
    ui.pitfall(
        "mscale = 0.707 used as a cos/sin multiplier (seed 000)",
        "Seed 000 multiplies `0.1 ln s + 1` by 0.707 and applies it to cos and sin, which *cools* attention "
        "(logits × 0.815 at s = 16) instead of warming it (× 1.631). 0.707 is DeepSeek's coefficient inside "
        "`0.1·mscale·ln s + 1`, used with `mscale_all_dim`.",
        key="mscale",
        **pair("mscale", "Below 1: the softmax gets flatter as s grows.", "YaRN and DeepSeek both sharpen."))
    ui.pitfall(
        "the 'linear' function that never scales (seed 000)",
        "Seed 000's `precompute_freqs_cis_linear` has no scale parameter: it is plain RoPE under another name. "
        "Position Interpolation divides every frequency (or every position) by s.",
        key="linear",
        **pair("linear", "Every pair at 1: nothing was interpolated.", "Every pair at s."))
    ui.pitfall(
        "inverted high/low frequency bands",
        "High frequency means short wavelength means small pair index. YaRN and Llama 3 keep those and "
        "interpolate the slow pairs whose wavelength exceeds L; several write-ups say the opposite.",
        key="inverted",
        **pair("inverted_bands", "Fast pairs interpolated: local order blurs, and the slow pairs still go out of "
               "distribution.", "Fast pairs kept, slow pairs divided by s."))
    ui.pitfall(
        "beta_fast = 0 silently means 32 in transformers",
        "transformers reads `beta_fast` and `beta_slow` with `or 32` / `or 1`, so a 0 (or null) in a config is "
        "replaced by the default without a warning. Write the value you mean.",
        key="beta_fast_zero",
        **pair("beta_fast_zero", "A config with beta_fast 0 and one with 32 give the same frequencies.",
               "An explicit beta_fast moves the ramp."))
    ui.pitfall(
        "Llama 3 is NTK-by-parts without temperature",
        "Llama 3's bands are YaRN's *paper* ramp (linear in r = L/λ) with α = low_freq_factor and β = "
        "high_freq_factor, and no attention temperature: cos/sin stay × 1. Calling it YaRN suggests the code "
        "ramp, β = 32 and a logit multiplier it does not have.",
        key="llama3",
        **pair("llama3_temperature", "YaRN with its defaults is a different curve and adds a temperature.",
               "The two curves coincide; only YaRN would add A."))
    p = s.p
    l3, _ = sc.llama3_inv_freq(p.d, p.base, p.s, s.L, p.low_freq_factor, s.high)
    ya, _ = sc.yarn_inv_freq(p.d, p.base, p.s, s.L, s.high, p.low_freq_factor, ramp="paper")
    err = float(abs(l3 / ya - 1).max())
    ui.check("Llama 3 = YaRN paper ramp with α = low_freq_factor, β = high_freq_factor "
             "(at the sidebar's d, b, s, L)", err < 1e-12,
             f"max relative difference {err:.1e} over {p.d // 2} pairs")


PARTS = {"pairs": part_wavelengths, "ratio": part_ratio, "unseen": part_unseen, "yarn": part_yarn_ramp,
         "temperature": part_temperature, "entropy": part_entropy, "dynamic": part_dynamic, "scores": part_scores,
         "models": part_models, "pitfalls": part_pitfalls}


def lesson() -> None:
    """The model and scaling settings, the choice of part, and that part."""
    p = ui.controls(
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
        ui.Bool("truncate", "YaRN truncate (floor/ceil the ramp ends)", default=True),
        ui.Float("mscale", "YaRN mscale (0 = unset)", default=0.0, lo=0.0, hi=2.0, step=0.001, widget="number"),
        ui.Float("mscale_all_dim", "YaRN mscale_all_dim (0 = unset)", default=0.0, lo=0.0, hi=2.0, step=0.001,
                 widget="number"),
        ui.Float("low_freq_factor", "Llama 3 low_freq_factor", default=1.0, lo=0.25, hi=4.0, step=0.25),
        ui.Float("high_freq_factor", "Llama 3 high_freq_factor", default=4.0, lo=1.0, hi=32.0, step=0.5),
    )
    high = p.high_freq_factor
    if high <= p.low_freq_factor:
        high = p.low_freq_factor + 1.0
        st.warning("Llama 3 needs high_freq_factor > low_freq_factor (equal values divide by zero): it is drawn "
                   "with high_freq_factor = low_freq_factor + 1.", icon="⚠️")
    part = ui.choose_part({
        "pairs": "1. Wavelengths", "ratio": "2. Per-pair scale", "unseen": "3. Unseen angles",
        "yarn": "4. YaRN ramp", "temperature": "5. Temperature", "entropy": "6. Entropy vs length",
        "dynamic": "7. Dynamic NTK", "scores": "8. Scores past L", "models": "9. Real models' configs",
        "pitfalls": "Pitfalls"}, default="pairs")
    PARTS[part](Setting(p, L=int(p.L), high=high))


ui.lesson(lesson)
