"""The RoPE lesson's sentences that read measured numbers (pages/3_RoPE.py), in the student's language: which
additive terms depend on what, the decay curves' shape, what each variant rotates, and the base against the
training length. Each sentence is one message of the catalog with its numbers as placeholders, formatted from the
dicts ``posviz.rope_measures`` returns, so the words and the figures come from the same computation. No figure
is built here (``__all__`` is empty); no streamlit.
"""

from __future__ import annotations

from posviz import rope, rope_measures
from posviz.figures.rope_derive import TERM_NAMES
from posviz.i18n import N_, _

__all__: list[str] = []

# what rope.dependence found a term to depend on, as the caption of the additive part says it
DEPENDS = {"constant": N_("the same number in every cell"),
           "m − n": N_("a function of m − n alone (relative)"),
           "n": N_("a function of the key's position n alone (absolute)"),
           "m": N_("a function of the query's position m alone (absolute)"),
           "m and n": N_("changes with m and n, not with m − n alone")}


def additive_caption(num: dict) -> str:
    """The additive part's caption: what each of the four terms depends on (``rope_measures.additive_summary``)
    and whether the full score is a function of m − n."""
    said = _("; ").join(_("{term}: {dependence}", term=_(TERM_NAMES[name]), dependence=_(DEPENDS[num[name]["dep"]]))
                        for name in rope.ADDITIVE_TERMS)
    full = num["full"]
    verdict = (_("the full score depends on m − n alone") if full["dep"] in ("constant", "m − n") else
               _("the full score is not a function of m − n: its cells differ from their diagonal's mean by RMS "
                 "{residual:.3g} (its RMS is {rms:.3g})", residual=full["res"], rms=full["rms"]))
    return _("Read from the numbers below: {said}. So {verdict}. The cross terms tie the score to absolute "
             "positions whatever W is; even with W = I, where position·position becomes PE·PE (a function of "
             "m − n), they remain. A relative score needs q and k themselves to carry the position.",
             said=said, verdict=verdict)


def decay_caption(num: dict, max_delta: int, samples: int) -> str:
    """The decay part's caption from ``rope_measures.decay_shape``: whether B(Δ) is flat, rises somewhere or
    falls at every step up to ``max_delta``, and where Σcos(Δθ_i) is lowest."""
    shape = (_("; with a single pair (d = 2) it is flat, |e^{jΔθ_0}| = 1 at every Δ") if num["flat"] else
             _(", and it is not monotone: it rises on {share:.3g} % of the unit steps up to Δ = {delta:,}, so only "
               "its envelope can decay", share=100 * num["rises"], delta=max_delta) if num["rises"] > 0 else
             _("; up to Δ = {delta:,} it falls at every step", delta=max_delta))
    cos = (_("turns negative: its lowest value is {lowest:.2f}, at Δ = {at:,}", lowest=num["cos_min"],
             at=num["cos_at"]) if num["cos_min"] < 0 else
           _("stays positive up to Δ = {delta:,} (lowest {lowest:.2f}, at Δ = {at:,})", delta=max_delta,
             lowest=num["cos_min"], at=num["cos_at"]))
    return _("B(Δ) is RoFormer's upper bound on the score's size, not a score{shape}. Σcos(Δθ_i), half the score "
             "of all-ones q and k, {cos}. For independent random q and k the expected score is zero at every "
             "offset (the third curve averages {samples} such pairs: zero up to sampling noise). Decay is not why "
             "RoPE works (Barbero et al. 2024): in Gemma the fastest pairs carry positional attention patterns and "
             "the slowest pairs carry meaning, nearly independent of position.", shape=shape, cos=cos, samples=samples)


def scheme_sentence(scheme: str, d: int, pairs: int) -> str:
    """What a RoPE variant rotates when ``pairs`` of the head's d/2 pairs turn (``rope_measures.rotated_pairs``)."""
    if scheme == "full":
        return _("Full RoPE rotates all {pairs} pairs.", pairs=d // 2)
    if scheme == "partial":
        return _("Partial RoPE rotates the first {channels} of {d} channels ({pairs} pairs, with frequencies "
                 "b^(−2i/{channels}): the exponent uses the rotated width) and passes the rest untouched: "
                 "transformers' partial_rotary_factor (Phi models), GPT-NeoX's rotary_pct (0.25 in GPT-NeoX 20B).",
                 channels=2 * pairs, d=d, pairs=pairs)
    if scheme == "p-rope":
        return _("p-RoPE keeps the {pairs} fastest pairs at their full-RoPE frequencies b^(−2i/{d}) and sets the "
                 "{rest} slowest to frequency 0 (transformers' rope_type 'proportional').",
                 pairs=pairs, d=d, rest=d // 2 - pairs)
    return _("DeepSeek's MLA gives each head {plain} channels without position and a separate {channels}-channel "
             "part rotated with b^(−2i/{channels}) (DeepSeek-V3: 128 + 64, i.e. d = 192 with a third rotating). "
             "The rotated key part is shared by all heads, so the compressed keys stay free of position.",
             plain=d - 2 * pairs, channels=2 * pairs)


def base_caption(num: dict, d: int, base: float, length: int) -> str:
    """The base part's caption from ``rope_measures.base_summary``: the slowest pair at this base, b*, the real
    models' bases and whether this base meets Men et al.'s condition Σ_i cos(mθ_i) ≥ 0 up to L."""
    star = (_(" At b* = {star:,.0f} the slowest pair completes exactly one turn in L.", star=num["b_star"])
            if num["b_star"] else "")
    models = _("; ").join(_("{name} trains on {length:,} tokens with b = {base:,.0f}, where b* = {star:,.0f}",
                            name=name, length=trained, base=b, star=num["models"][name])
                          for name, b, trained in rope_measures.MODEL_BASES)
    bound = (_("At b = {base:g} and d = {d}, Σ_i cos(mθ_i) stays ≥ 0 for every m up to L = {length:,}: this base "
               "meets their condition for L.", base=base, d=d, length=length) if num["negative_at"] < 0 else
             _("At b = {base:g} and d = {d}, Σ_i cos(mθ_i) first turns negative at m = {at:,}, inside L = "
               "{length:,}: this base fails their condition for L.", base=base, d=d, at=num["negative_at"],
               length=length))
    return _("At b = {base:g} the slowest pair's wavelength is {slowest:,.0f} tokens: it makes {turns:.3g} turns "
             "within L = {length:,}, and {longer} of the {pairs} pairs never complete a turn during training.{star} "
             "A larger base stretches every wavelength but the fastest (θ_0 = 1 rad/token whatever b is), so more "
             "pairs see only part of a turn in training, and beyond L they reach angles they never saw: what the "
             "context-extension methods deal with. Real models (d = 128, from their config.json) choose bases far "
             "above the b* of their training length: {models}. Men et al. (2024, \"Base of RoPE Bounds Context "
             "Length\") give one argument for large bases, a lower bound on the base for each context length: when "
             "a key is the query plus noise, the query's expected score for it beats that for a random key by an "
             "amount proportional to Σ_i cos(mθ_i) at distance m, and they ask that sum to stay ≥ 0 for every m up "
             "to the context length. {bound}", base=base, slowest=num["slowest"], turns=num["turns"], length=length,
             longer=num["longer"], pairs=d // 2, star=star, models=models, bound=bound)
