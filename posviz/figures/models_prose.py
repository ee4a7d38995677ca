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
from posviz.figures.models import LEARNED_MARGIN, curve_label
from posviz.figures.scaling import method_label
from posviz.i18n import N_, _
from posviz.models.curves import NEAR_FLOOR, RETRIEVAL_THRESHOLD

__all__: list[str] = []

Drawn = list[tuple[str, str, object, str]]  # (key, colour, curve, dash) of method_curves / scheme_curves

NOPE_WHY = N_("With no position signal, a model must first count positions from how its attention spreads over the "
            "tokens so far, then use the count to find the previous token, then match: a layer more than the "
            "other schemes need, and a count fine enough to tell t − 1 from t − 2 at t ≈ 60. ")
WHAT_DIFFERS = N_("The learned table has no row past L, so positions ≥ L reuse its last row; the sinusoidal table and "
                "RoPE reach angles never seen in training; ALiBi's bias depends only on the distance, and its linear "
                "penalty makes the far tokens that past L become distractors cheap to ignore; NoPE has no position "
                "code at all")


def what_differs(schemes: list[str]) -> str:
    """What differs between the schemes past L, and NoPE's extra layer when its shipped model has one (read from
    the weights): without positions a model counts them under the causal mask before it can find a neighbour."""
    if "nope" not in schemes or layers("nope") == layers("rope"):
        return _("{differs}.", differs=_(WHAT_DIFFERS))
    return _("{differs}: it counts positions from how its attention spreads under the causal mask, which took it "
             "{nope} layers where the others have {rope}.", differs=_(WHAT_DIFFERS), nope=layers("nope"),
             rope=layers("rope"))


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
    return _("At every L' each sequence repeats with a period drawn from {lo}–{hi}, the training range, so the "
             "copy distance never leaves what training saw: only the positions are new, and any rise past L is "
             "the position code's doing. ", lo=lo, hi=hi)


def parameters(name: str) -> str:
    """A shipped model's parameter count, as "133 k"."""
    return f"{sum(t.numel() for t in pm.shared(name).parameters()) / 1000:.0f} k"


def layers(name: str) -> int:
    """A shipped model's number of transformer blocks."""
    return pm.shared(name).config.n_layers


def past_floor(drawn: Drawn) -> dict[str, float]:
    """Each drawn curve's mean loss above the Bayes floor past L (``pm.past_L``), by curve key."""
    return {key: pm.past_L(c.loss, pm.train_length()) for key, _color, c, _dash in drawn}


def recovered(excess: dict[str, float], s: float) -> str:
    """How much of plain RoPE's loss past L each method recovers without training, and their order, at scale
    ``s``, from the curves the figure draws (``excess``: mean loss above the floor past L by curve key of
    ``method_curves``; "default" included)."""
    plain = excess["default"]
    if s == 1.0:
        return _("At s = 1 nothing is read past L.")
    what = _("Past L at s = {s:g}, plain RoPE is +{plain:.2f} nats above the floor.", s=s, plain=plain)
    if plain <= 0:
        return what
    shares = []
    for m, x in excess.items():
        if m == "default" or m.startswith("ft:"):
            continue
        share = 1.0 - x / plain
        shares.append(_("{method} {share:.0%}", method=method_label(m), share=share) if share >= 0 else
                      _("{method} none (worse than no scaling: +{x:.2f})", method=method_label(m), x=x))
    if not shares:
        return _("{what} Pick methods above to compare.", what=what)
    order = " < ".join(f"{curve_label(k)} ({x:.2f})" for k, x in sorted(excess.items(), key=lambda kv: kv[1]))
    return _("{what} The share of that loss each method recovers without any training: {shares}. From closest to "
             "the floor past L to farthest: {order}.", what=what, shares=_("; ").join(shares), order=order)


def floor_exits(drawn: Drawn, L: int) -> str:
    """Where each drawn curve leaves the floor (``pm.leaves_floor``: the first window of L/4 positions from L/2 on
    more than ``NEAR_FLOOR`` nats above it), said to be inside L when it is."""
    parts = []
    for key, _color, cv, _dash in drawn:
        t = pm.leaves_floor(cv)
        parts.append(_("{curve} stays within it to the end", curve=curve_label(key)) if t is None else
                     _("{curve} leaves it at t ≈ {t:,} (inside L)", curve=curve_label(key), t=t) if t < L else
                     _("{curve} leaves it at t ≈ {t:,}", curve=curve_label(key), t=t))
    return _("Where each curve first rises more than {near:g} nats above the floor (in windows of {window} "
             "positions): {parts}.", near=NEAR_FLOOR, window=L // 4, parts=_("; ").join(parts))


def retrieval_sentence(drawn: Drawn, L: int, Lp: int) -> str:
    """Each drawn curve's retrieval past L and effective context, and what loss alone would hide."""
    if Lp <= L:
        return _("At s = 1 nothing is read past L.")
    parts = [_("{curve} {share:.0%} (effective context {context:,})", curve=curve_label(k),
               share=np.nanmean(cv.retrieval[L:]), context=pm.effective_context(cv)) for k, _c, cv, _d in drawn]
    return _("Exact copies past L, and the effective context (positions read before retrieval first falls below "
             "{threshold:.0%}): {parts}. Long-context evaluations report both: a perplexity that does not blow up "
             "says the model is not confused on average, an effective context says how far it still finds the one "
             "token that matters.", threshold=RETRIEVAL_THRESHOLD, parts=_("; ").join(parts))


def evidence_caption(drawn: Drawn, Lp: int) -> str:
    """The caption of the RoPE model's loss past L: the model, the task, and each drawn curve's loss past L."""
    L = pm.train_length()
    tally = _("; ").join(f"{curve_label(k)} +{x:.2f}" for k, x in past_floor(drawn).items())
    return _("A {layers}-layer transformer trained here at L = {L} to continue sequences that repeat with an "
             "unknown period, read at L' = {Lp}. {held}Each curve averages {n} fresh sequences (band: ±2 standard "
             "errors); the dotted curve is the best loss any model can reach. Mean loss above it past L, in nats: "
             "{tally}.", layers=layers("rope"), L=L, Lp=Lp, held=held_fixed(), n=pm.CURVE_SEQUENCES, tally=tally)


def evidence_prose(drawn: Drawn, s: float) -> str:
    """What the RoPE model's curves show at scale ``s``: the shares of plain RoPE's loss each method recovers (plain
    RoPE's curve read even when it is not drawn), the order, where each leaves the floor, and what the run is."""
    L = pm.train_length()
    Lp = int(round(s * L))
    plain = pm.past_L(pm.curve("rope", Lp, "default", s).loss, L)
    return _("Before the repeat starts nothing can be predicted, so the floor is high on the left; once every "
             "period has shown itself it is 0. Finding the next token needs the fast pairs (the previous token, one "
             "step back) and the slow pairs (content up to half the training length back). {recovered} {exits} "
             "This is one {parameters}-parameter model on a synthetic task: docs/MODELS.md records the run and "
             "where it differs from the 7B models of the papers, which rank the methods on their own tasks.",
             recovered=recovered(past_floor(drawn) | {"default": plain}, s), exits=floor_exits(drawn, L),
             parameters=parameters("rope"))


def schemes_caption(at_L: dict[str, float], past: dict[str, float], Lp: int) -> str:
    """The caption of the schemes' loss: each scheme above the floor at L (training record) and past L (drawn)."""
    values = dict(held=held_fixed(), Lp=Lp, nope=layers("nope"),
                  at_L=_("; ").join(f"{curve_label(s)} +{x:.2f}" for s, x in at_L.items()),
                  past=_("; ").join(f"{curve_label(s)} +{x:.2f}" for s, x in past.items()))
    if layers("nope") == layers("rope"):
        return _("Each position scheme on the same task and schedule, trained until it learned the task (the steps "
                 "each needed: docs/MODELS.md). {held}Above the floor at L, where they were trained (256 sequences, "
                 "from the training record): {at_L}. Past L at L' = {Lp}: {past}.", **values)
    return _("Each position scheme on the same task and schedule, trained until it learned the task (the steps each "
             "needed, and NoPE with {nope} layers: docs/MODELS.md). {held}Above the floor at L, where they were "
             "trained (256 sequences, from the training record): {at_L}. Past L at L' = {Lp}: {past}.", **values)


def schemes_prose(at_L: dict[str, float], past: dict[str, float], L: int, Lp: int) -> str:
    """What the scheme curves show, every number from them: who learned the task at L (within ``LEARNED_MARGIN``
    nats of the floor), the order past L of those that did."""
    learned = [s for s in at_L if at_L[s] <= LEARNED_MARGIN]
    missed = [s for s in at_L if at_L[s] > LEARNED_MARGIN]
    names = _(", ").join(curve_label(s) for s in missed)
    text = (_("Every scheme is within {margin:g} nats of the floor at L, so each learned the task and the "
              "comparison past L is fair. ", margin=LEARNED_MARGIN) if not missed else
            _("{schemes} did not learn the task at L (more than {margin:g} nats above the floor there, dotted): it "
              "has nothing to extrapolate, so its curve is not compared. ", schemes=names, margin=LEARNED_MARGIN)
            if len(missed) == 1 else
            _("{schemes} did not learn the task at L (more than {margin:g} nats above the floor there, dotted): they "
              "have nothing to extrapolate, so their curves are not compared. ", schemes=names, margin=LEARNED_MARGIN))
    text += _(NOPE_WHY) if "nope" in missed else ""
    if Lp <= L:
        return text + _("At s = 1 nothing is read past L.")
    ranked = sorted((s for s in learned if s in past), key=past.get)
    text += _("Past L, from closest to the floor to farthest: {order}. ",
              order=" < ".join(f"{curve_label(s)} ({past[s]:.2f})" for s in ranked))
    return text + what_differs(ranked)
