"""What the Context extension lesson says beside the shipped small models' curves, computed from the curves the
figures draw (``method_curves``, ``scheme_curves``: ``posviz.models.curve`` at the student's scale): each curve's
loss above the Bayes floor past L, the share of plain RoPE's loss each method recovers, where each curve leaves the
floor, retrieval and effective context, and which schemes learned the task at L. docs/MODELS.md records the run.
No figure is built here (``__all__`` is empty); no streamlit. A ``posviz.models.WeightsError`` reaches the caller,
except in ``loadable``, ``trained_at`` and ``held_fixed``, which keep the lesson loading without the weights.
"""

from __future__ import annotations

import numpy as np

import posviz.models as pm
from posviz import scaling as sc
from posviz.figures.models import LEARNED_MARGIN, SCHEME_LABELS, curve_label
from posviz.models.curves import NEAR_FLOOR, RETRIEVAL_THRESHOLD

__all__: list[str] = []

Drawn = list[tuple[str, str, object, str]]  # (key, colour, curve, dash) of method_curves / scheme_curves

NOPE_WHY = ("With no position signal, a model must first count positions from how its attention spreads over the "
            "tokens so far, then use the count to find the previous token, then match: a layer more than the "
            "other schemes need, and a count fine enough to tell t − 1 from t − 2 at t ≈ 60. ")
WHAT_DIFFERS = ("The learned table has no row past L, so positions ≥ L reuse its last row; the sinusoidal table and "
                "RoPE reach angles never seen in training; ALiBi's bias depends only on the distance, and its linear "
                "penalty makes the far tokens that past L become distractors cheap to ignore; NoPE has no position "
                "code at all")


def what_differs(schemes: list[str]) -> str:
    """What differs between the schemes past L, and NoPE's extra layer when its shipped model has one (read from
    the weights): without positions a model counts them under the causal mask before it can find a neighbour."""
    if "nope" not in schemes or layers("nope") == layers("rope"):
        return WHAT_DIFFERS + "."
    return (WHAT_DIFFERS + f": it counts positions from how its attention spreads under the causal mask, which "
            f"took it {layers('nope')} layers where the others have {layers('rope')}.")


def loadable(names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The shipped models among ``names`` whose weights load, in order, and each distinct problem with the others
    ("<file> <problem>" of ``pm.WeightsError``; a damaged manifest once for all of them)."""
    ok, problems = [], {}
    for name in names:
        try:
            pm.shared(name)  # verified and loaded once per version of the file, so a rerun costs a stat
        except pm.WeightsError as err:
            problems[f"{err.file} {err.problem}"] = None
        else:
            ok.append(name)
    return tuple(ok), tuple(problems)


def trained_at() -> str:
    """"L = 64" from the training record, for a scale's help text; "L" when the record cannot be read, so the
    lesson still loads (the model parts say what is wrong)."""
    try:
        return f"L = {pm.train_length()}"
    except pm.WeightsError:
        return "L"


def held_fixed() -> str:
    """The one sentence that says what the experiment holds fixed as L' grows (empty without the record)."""
    try:
        lo, hi = pm.period_range(pm.train_length())
    except pm.WeightsError:
        return ""
    return (f"At every L' each sequence repeats with a period drawn from {lo}–{hi}, the training range, so the "
            "copy distance never leaves what training saw: only the positions are new, and any rise past L is "
            "the position code's doing. ")


def parameters(name: str) -> str:
    """A shipped model's parameter count, as "133 k"."""
    return f"{sum(t.numel() for t in pm.shared(name).parameters()) / 1000:.0f} k"


def layers(name: str) -> int:
    """A shipped model's number of transformer blocks."""
    return pm.shared(name).config.n_layers


def past_floor(drawn: Drawn) -> dict[str, float]:
    """Each drawn curve's mean loss above the Bayes floor past L (``pm.past_L``), by curve key."""
    return {key: pm.past_L(c.loss, pm.train_length()) for key, _, c, _ in drawn}


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


def floor_exits(drawn: Drawn, L: int) -> str:
    """Where each drawn curve leaves the floor (``pm.leaves_floor``: the first window of L/4 positions from L/2 on
    more than ``NEAR_FLOOR`` nats above it), said to be inside L when it is."""
    parts = []
    for key, _, cv, _ in drawn:
        t = pm.leaves_floor(cv)
        parts.append(f"{curve_label(key)} " + ("stays within it to the end" if t is None else
                                               f"leaves it at t ≈ {t:,}" + (" (inside L)" if t < L else "")))
    return (f"Where each curve first rises more than {NEAR_FLOOR:g} nats above the floor (in windows of "
            f"{L // 4} positions): " + "; ".join(parts) + ".")


def retrieval_sentence(drawn: Drawn, L: int, Lp: int) -> str:
    """Each drawn curve's retrieval past L and effective context, and what loss alone would hide."""
    if Lp <= L:
        return "At s = 1 nothing is read past L."
    parts = [f"{curve_label(k)} {np.nanmean(cv.retrieval[L:]):.0%} (effective context {pm.effective_context(cv):,})"
             for k, _, cv, _ in drawn]
    return (f"Exact copies past L, and the effective context (positions read before retrieval first falls below "
            f"{RETRIEVAL_THRESHOLD:.0%}): " + "; ".join(parts) + ". Long-context evaluations report both: a "
            "perplexity that does not blow up says the model is not confused on average, an effective context "
            "says how far it still finds the one token that matters.")


def evidence_caption(drawn: Drawn, Lp: int) -> str:
    """The caption of the RoPE model's loss past L: the model, the task, and each drawn curve's loss past L."""
    L = pm.train_length()
    tally = "; ".join(f"{curve_label(k)} +{x:.2f}" for k, x in past_floor(drawn).items())
    return (f"A {layers('rope')}-layer transformer trained here at L = {L} to continue sequences that repeat with an "
            f"unknown period, read at L' = {Lp}. {held_fixed()}Each curve averages {pm.CURVE_SEQUENCES} fresh "
            "sequences (band: ±2 standard errors); the dotted curve is the best loss any model can reach. Mean loss "
            f"above it past L, in nats: {tally}.")


def evidence_prose(drawn: Drawn, s: float) -> str:
    """What the RoPE model's curves show at scale ``s``: the shares of plain RoPE's loss each method recovers (plain
    RoPE's curve read even when it is not drawn), the order, where each leaves the floor, and what the run is."""
    L = pm.train_length()
    Lp = int(round(s * L))
    plain = pm.past_L(pm.curve("rope", Lp, "default", s).loss, L)
    return ("Before the repeat starts nothing can be predicted, so the floor is high on the left; once every period "
            "has shown itself it is 0. Finding the next token needs the fast pairs (the previous token, one step "
            "back) and the slow pairs (content up to half the training length back). "
            + recovered(past_floor(drawn) | {"default": plain}, s) + " " + floor_exits(drawn, L)
            + f" This is one {parameters('rope')}-parameter model on a synthetic task: docs/MODELS.md records the "
              "run and where it differs from the 7B models of the papers, which rank the methods on their own tasks.")


def schemes_caption(at_L: dict[str, float], past: dict[str, float], Lp: int) -> str:
    """The caption of the schemes' loss: each scheme above the floor at L (training record) and past L (drawn)."""
    deeper = "" if layers("nope") == layers("rope") else f", and NoPE with {layers('nope')} layers"
    return (f"Each position scheme on the same task and schedule, trained until it learned the task (the steps each "
            f"needed{deeper}: docs/MODELS.md). " + held_fixed()
            + "Above the floor at L, where they were trained (256 sequences, from the training record): "
            + "; ".join(f"{SCHEME_LABELS[s]} +{x:.2f}" for s, x in at_L.items())
            + f". Past L at L' = {Lp}: " + "; ".join(f"{SCHEME_LABELS[s]} +{x:.2f}" for s, x in past.items()) + ".")


def schemes_prose(at_L: dict[str, float], past: dict[str, float], L: int, Lp: int) -> str:
    """What the scheme curves show, every number from them: who learned the task at L (within ``LEARNED_MARGIN``
    nats of the floor), the order past L of those that did."""
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
    return text + what_differs(ranked)
