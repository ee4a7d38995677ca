"""Figures of the shipped small models (``posviz.models``): loss and retrieval per position past the training
length.

Every curve is a ``posviz.models.curve``: ``posviz.models.evaluate_sequences`` on fresh task data (whose copy
distances are the training length's at every length), served from the shipped evidence grid for the lesson's
slider values and computed when the figure is built otherwise; the Bayes floor is ``posviz.models.floor``.
torch is imported on the first build only (``import posviz.figures`` stays torch-free).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import scaling as sc
from posviz._validate import check_float, check_int
from posviz.figures._common import TWO_LINE_TOP, Panels, subtitled
from posviz.figures._registry import figure
from posviz.figures.scaling import method_label
from posviz.i18n import N_, _
from posviz.theme import COLORS, METHOD_COLORS

__all__ = ["models_extension", "models_schemes", "models_retrieval", "models_training"]

SCHEME_LABELS = {"nope": "NoPE", "learned": N_("learned absolute"), "sinusoidal": N_("sinusoidal"), "rope": "RoPE",
                 "alibi": "ALiBi"}
SCHEME_WORDS = ("learned", "sinusoidal")  # the schemes whose label is words (translated); the others are names
SCHEME_COLORS = {"nope": COLORS[5], "learned": COLORS[3], "sinusoidal": COLORS[2], "rope": "#8a8f9c",
                 "alibi": COLORS[7]}
FINETUNE_LABEL = N_("{method}, fine-tuned {steps} steps at {length}")
LEARNED_MARGIN = 0.3      # nats above the floor at L within which a model counts as having learned the task
# under the plot, left-aligned: inside it the legend covered the curves where they differ most
LEGEND_BELOW = dict(orientation="h", x=0.0, xanchor="left", y=-0.22, yanchor="top")
BAND_OPACITY = 0.18


def binned(values: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of ``values`` over consecutive bins of ``width`` positions: (bin centres, means); the last bin
    may be shorter."""
    n = values.size
    starts = np.arange(0, n, width)
    sums = np.add.reduceat(values, starts)
    counts = np.diff(np.append(starts, n))
    return (starts + (counts - 1) / 2).astype(np.float32), (sums / counts).astype(np.float32)


def learned_at_L(name: str) -> float:
    """A shipped model's mean loss above the Bayes floor at L, from its training record (256 sequences)."""
    import posviz.models as pm

    return float(pm.record(name)["metrics"][f"at_L_{pm.train_length()}"]["excess_over_floor"])


def _marks(f: Panels, L: int, Lp: int, width: int, y_title: str) -> None:
    """Axis titles and the L / L' marks shared by the evidence figures."""
    f.marks.vline(L, _("L = {L} (trained)", L=L), color="#888")
    if Lp != L:
        f.marks.vline(Lp - 1, f"L' = {Lp}", color="#d55e00")
        f.marks.notes[-1]["xanchor"] = "right"  # the label sits inside the plot, left of the line, at the top
    f.axis("x", title=_("position t of the predicted token") if width == 1 else
           _("position t of the predicted token (bins of {width})", width=width), range=[0, Lp])
    f.axis("y", title=y_title)


def _loss_axes(f: Panels, L: int, Lp: int, width: int) -> None:
    """The Bayes floor of the fair task (periods of L at every length) and the shared marks."""
    import posviz.models as pm

    x, y = binned(pm.floor(Lp), width)
    f.scatter(1, x=x, y=y, name=_("Bayes floor (best possible)"), mode="lines",
              line=dict(color="#444", dash="dot", width=2),
              hovertemplate=_("Bayes floor<br>position %{x:.0f}<br>%{y:.3f} nats") + "<extra></extra>")
    _marks(f, L, Lp, width, _("mean loss over sequences (nats)"))
    f.axis("y", rangemode="tozero")


def _band(f: Panels, x: np.ndarray, band: np.ndarray, color: str, group: str) -> None:
    """The ±2-standard-error band of one curve, behind it, in its colour, toggled with it from the legend."""
    ok = np.isfinite(band).all(axis=0)
    xs, lo, hi = x[ok], band[0, ok], band[1, ok]
    f.scatter(1, x=np.concatenate([xs, xs[::-1]]), y=np.concatenate([hi, lo[::-1]]).astype(np.float32),
              fill="toself", fillcolor=color, opacity=BAND_OPACITY, line=dict(width=0), mode="lines",
              hoverinfo="skip", showlegend=False, legendgroup=group, name=_("{curve} band", curve=group))


def _curve(f: Panels, c: object, name: str, color: str, dash: str = "solid", retrieval: bool = False) -> None:
    """One model's binned curve (loss, or with ``retrieval`` the copy-exactness rate) and its band."""
    y, band = (c.retrieval_bin, c.retrieval_band) if retrieval else (c.loss_bin, c.loss_band)
    _band(f, c.x, band, color, name)
    unit = _("%{y:.1%} exact") if retrieval else _("%{y:.3f} nats")
    f.scatter(1, x=c.x, y=np.asarray(y, dtype=np.float32), name=name, mode="lines", legendgroup=name,
              line=dict(color=color, dash=dash, width=2.5),
              hovertemplate=_("{name}<br>position %{{x:.0f}}<br>{unit}", name=name, unit=unit) + "<extra></extra>")


def finetuned_at(factor: float, methods: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The fine-tuned methods (of ``methods``, default every one; in ``FINETUNED``'s order) whose fine-tune
    factor is ``factor`` (their curves are drawn only there); a missing or incomplete record of one of them is
    ``posviz.models.WeightsError``."""
    import posviz.models as pm

    return tuple(m for m in pm.FINETUNED if (methods is None or m in methods)   # drawn in one order, any asked
                 and abs(pm.record(f"rope_{m}_ft")["factor"] - factor) < 1e-9)


def _finetunes(finetunes: str) -> tuple[str, ...]:
    """The fine-tuned methods named in ``finetunes`` ("linear,yarn"; "" for none); ValueError names it."""
    import posviz.models as pm

    chosen = [m.strip() for m in finetunes.split(",") if m.strip()] if isinstance(finetunes, str) else [None]
    if any(m not in pm.FINETUNED for m in chosen):
        raise ValueError(f"finetunes must be a comma-separated list of {', '.join(pm.FINETUNED)} (or empty); "
                         f"got {finetunes!r}")
    return tuple(dict.fromkeys(chosen))


def _schemes(schemes: str) -> tuple[str, ...]:
    """The schemes named in ``schemes`` ("nope,rope"); ValueError names it."""
    import posviz.models as pm

    chosen = [s.strip() for s in schemes.split(",") if s.strip()] if isinstance(schemes, str) else []
    if not chosen or any(s not in pm.SCHEMES for s in chosen):
        raise ValueError(f"schemes must be a comma-separated list of {', '.join(pm.SCHEMES)}; got {schemes!r}")
    return tuple(dict.fromkeys(chosen))


def method_curves(methods: str, factor: float, finetuned: bool, finetunes: str, n: int,
                  seed: int) -> list[tuple[str, str, object, str]]:
    """(key, colour, curve, dash) of the RoPE model under each method of ``methods`` at L' = s·L and, with
    ``finetuned``, of the fine-tunes of ``finetunes`` whose factor is s (dashed); keys "yarn", "ft:yarn"."""
    import posviz.models as pm

    L = pm.train_length()
    Lp = int(round(factor * L))
    out = [(m, METHOD_COLORS[m], pm.curve("rope", Lp, m, factor, seed, n), "solid") for m in sc.parse_methods(methods)]
    tuned = _finetunes(finetunes)
    for m in finetuned_at(factor, tuned) if finetuned else ():
        out.append((f"ft:{m}", METHOD_COLORS[m], pm.curve(f"rope_{m}_ft", Lp, m, factor, seed, n), "dash"))
    return out


def scheme_curves(schemes: str, factor: float, n: int, seed: int) -> list[tuple[str, str, object, str]]:
    """(scheme, colour, curve, dash) of every scheme of ``schemes`` read plain at L' = s·L; a scheme that did
    not learn the task at L (more than ``LEARNED_MARGIN`` above the floor there) is dotted."""
    import posviz.models as pm

    Lp = int(round(factor * pm.train_length()))
    return [(s, SCHEME_COLORS[s], pm.curve(s, Lp, seed=seed, n_sequences=n),
             "solid" if learned_at_L(s) <= LEARNED_MARGIN else "dot") for s in _schemes(schemes)]


def curve_label(key: str) -> str:
    """The legend name of a curve key of ``method_curves`` / ``scheme_curves``."""
    import posviz.models as pm

    if key.startswith("ft:"):
        rec = pm.record(f"rope_{key[3:]}_ft")
        return _(FINETUNE_LABEL, method=method_label(key[3:]), steps=rec["steps"], length=rec["length"])
    if key in SCHEME_LABELS:
        return _(SCHEME_LABELS[key]) if key in SCHEME_WORDS else SCHEME_LABELS[key]
    return method_label(key)


def _setup(factor: float, n_sequences: int) -> tuple[int, int, int]:
    """(L, L', sequences per curve) of an evidence figure, its arguments checked."""
    import posviz.models as pm

    L = pm.train_length()
    factor = check_float("factor", factor, 1.0, pm.MAX_LENGTH / L)
    n = pm.CURVE_SEQUENCES if not n_sequences else check_int("n_sequences", n_sequences, 1, 4096)
    return L, int(round(factor * L)), n


def _subtitle(n: int) -> str:
    return _("{n} sequences per curve; bands: ±2 standard errors of the mean", n=n)


@figure("models_extension")
def models_extension(*, methods: str = "default,linear,ntk,yarn", factor: float = 4.0, finetuned: bool = False,
                     finetunes: str = "linear,yarn", n_sequences: int = 0, seed: int = 0) -> go.Figure:
    """Loss per position of the shipped RoPE model read at L' = s·L, one curve per scaling method applied at
    inference (with its attention factor), with its ±2 s.e. band, the Bayes floor, and L and L' marked;
    ``finetuned`` adds the models fine-tuned at L' named in ``finetunes`` (PI, YaRN: only when s matches their
    factor). The copy distances are the training length's at every L' (``posviz.models.evaluate``). Legends
    give each curve's mean loss above the floor past L."""
    import posviz.models as pm

    L, Lp, n = _setup(factor, n_sequences)
    curves = method_curves(methods, factor, finetuned, finetunes, n, seed)
    f = Panels()
    _loss_axes(f, L, Lp, curves[0][2].width)
    for key, color, c, dash in curves:
        _curve(f, c, _("{curve}: +{excess:.2f} past L", curve=curve_label(key), excess=pm.past_L(c.loss, L)),
               color, dash)
    return f.figure(title=dict(text=subtitled(_("RoPE model trained at L = {L}, read at L' = {Lp} (s = {factor:g})",
                                                L=L, Lp=Lp, factor=factor),
                                              _subtitle(n))),
                    legend=LEGEND_BELOW, height=600, hovermode="x unified", margin=dict(t=TWO_LINE_TOP))


@figure("models_schemes")
def models_schemes(*, schemes: str = "nope,learned,sinusoidal,rope,alibi", factor: float = 4.0,
                   n_sequences: int = 0, seed: int = 0) -> go.Figure:
    """Loss per position of every position scheme on the same task at L' = s·L (no scaling method), with its
    ±2 s.e. band, the Bayes floor, and L and L' marked; legends give each scheme's mean loss above the floor
    past L (a scheme that did not learn the task at L is dotted and says so)."""
    import posviz.models as pm

    L, Lp, n = _setup(factor, n_sequences)
    curves = scheme_curves(schemes, factor, n, seed)
    f = Panels()
    _loss_axes(f, L, Lp, curves[0][2].width)
    for key, color, c, dash in curves:
        values = dict(curve=curve_label(key), excess=pm.past_L(c.loss, L))
        name = (_("{curve}: +{excess:.2f} past L", **values) if dash == "solid" else
                _("{curve}: +{excess:.2f} past L (did not learn the task: +{at_L:.2f} at L)", at_L=learned_at_L(key),
                  **values))
        _curve(f, c, name, color, dash)
    return f.figure(title=dict(text=subtitled(_("Position schemes trained at L = {L}, read at L' = {Lp}", L=L, Lp=Lp),
                                              _subtitle(n))),
                    legend=LEGEND_BELOW, height=600, hovermode="x unified", margin=dict(t=TWO_LINE_TOP))


@figure("models_retrieval")
def models_retrieval(*, kind: str = "methods", methods: str = "default,linear,ntk,yarn",
                     schemes: str = "nope,learned,sinusoidal,rope,alibi", factor: float = 4.0,
                     finetuned: bool = False, finetunes: str = "linear,yarn", n_sequences: int = 0,
                     seed: int = 0) -> go.Figure:
    """Retrieval beside the loss: the share of positions where the model's most likely token is exactly the
    one the repeat determines (copy-exactness; positions whose token is not yet determined are left out), per
    position at L' = s·L with its ±2 s.e. band, for the RoPE model under ``methods`` (``kind="methods"``, plus
    fine-tunes as ``models_extension``) or for every scheme of ``schemes`` (``kind="schemes"``). The dotted
    line is the ``RETRIEVAL_THRESHOLD`` that defines each curve's effective context, given in its legend."""
    import posviz.models as pm
    from posviz.models.curves import RETRIEVAL_THRESHOLD

    if kind not in ("methods", "schemes"):
        raise ValueError(f"kind must be 'methods' or 'schemes'; got {kind!r}")
    L, Lp, n = _setup(factor, n_sequences)
    curves = (method_curves(methods, factor, finetuned, finetunes, n, seed) if kind == "methods"
              else scheme_curves(schemes, factor, n, seed))
    f = Panels()
    _marks(f, L, Lp, curves[0][2].width, _("exact copies among determined tokens"))
    f.marks.hline(RETRIEVAL_THRESHOLD,
                  _("{threshold:.0%}: effective context ends below", threshold=RETRIEVAL_THRESHOLD),
                  dash="dot", color="#444", below=True)
    for key, color, c, dash in curves:
        _curve(f, c, _("{curve}: effective context {context:,}", curve=curve_label(key),
                       context=pm.effective_context(c)), color, dash, True)
    # headroom above 100 % for the L and L' labels, which would otherwise sit on the curves that retrieve
    f.axis("y", range=[0, 1.14], tickformat=".0%", tickvals=[0, 0.2, 0.4, 0.6, 0.8, 1.0])
    title = (_("Retrieval: RoPE model trained at L = {L}, read at L' = {Lp}", L=L, Lp=Lp) if kind == "methods" else
             _("Retrieval: Position schemes trained at L = {L}, read at L' = {Lp}", L=L, Lp=Lp))
    return f.figure(title=dict(text=subtitled(title,
                                              _subtitle(n))),
                    legend=LEGEND_BELOW, height=600, hovermode="x unified", margin=dict(t=TWO_LINE_TOP))


@figure("models_training")
def models_training() -> go.Figure:
    """Training loss of every shipped model against the step, from the manifest (no torch)."""
    import posviz.models as pm

    f = Panels()
    for rec in pm.manifest()["models"].values():
        steps, loss = np.asarray(rec["loss_log"], dtype=np.float32).T
        ft = rec.get("finetuned", False)
        color = METHOD_COLORS[rec["method"]] if ft else SCHEME_COLORS[rec["scheme"]]
        label = (_(FINETUNE_LABEL, method=method_label(rec["method"]), steps=rec["steps"],
                   length=rec["length"]) if ft else curve_label(rec["scheme"]))
        f.scatter(1, x=steps, y=loss, name=label, mode="lines", line=dict(color=color, dash="dash" if ft else "solid"),
              hovertemplate=_("{label}<br>step %{{x}}<br>loss %{{y:.3f}}", label=label) + "<extra></extra>")
    f.axis("x", title=_("training step"))
    f.axis("y", title=_("training loss (nats)"), rangemode="tozero")
    return f.figure(title=dict(text=_("Training at L = {L}", L=pm.train_length())))
