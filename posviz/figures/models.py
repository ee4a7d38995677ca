"""Figures of the shipped small models (``posviz.models``): loss per position past the training length.

Every number is computed by ``posviz.models.evaluate`` on fresh task data when the figure is built;
the Bayes floor comes from ``posviz.models.task.bayes_floor``. torch is imported on the first build only
(``import posviz.figures`` stays torch-free).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import scaling as sc
from posviz._validate import check_float, check_int
from posviz.figures._common import Panels
from posviz.figures._registry import figure
from posviz.theme import COLORS, METHOD_COLORS

__all__ = ["models_extension", "models_schemes", "models_training"]

SCHEME_LABELS = {"nope": "NoPE", "learned": "learned absolute", "sinusoidal": "sinusoidal", "rope": "RoPE",
                 "alibi": "ALiBi"}
SCHEME_COLORS = {"nope": COLORS[5], "learned": COLORS[3], "sinusoidal": COLORS[2], "rope": "#8a8f9c",
                 "alibi": COLORS[7]}
FINETUNE_LABEL = "{method}, fine-tuned {steps} steps at {length}"
MAX_BINS = 128            # points per curve: a screen shows the shape, the payload stays small
# under the plot: inside it the legend covered the curves where they differ most (the repeat's start, low left)
LEGEND_BELOW = dict(orientation="h", x=0.0, xanchor="left", y=-0.2, yanchor="top")


def _bins(length: int, bin_width: int) -> int:
    """Positions per plotted point: ``bin_width``, or (0) the smallest that keeps <= MAX_BINS points."""
    if bin_width:
        return check_int("bin_width", bin_width, 1, 256)
    return max(1, -(-length // MAX_BINS))


def binned(values: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of ``values`` over consecutive bins of ``width`` positions: (bin centres, means); the last bin
    may be shorter."""
    n = values.size
    starts = np.arange(0, n, width)
    sums = np.add.reduceat(values, starts)
    counts = np.diff(np.append(starts, n))
    return (starts + (counts - 1) / 2).astype(np.float32), (sums / counts).astype(np.float32)


def _loss_axes(f: Panels, L: int, Lp: int, width: int) -> None:
    """Axis titles, the Bayes floor and the L / L' marks shared by both loss figures."""
    import posviz.models as pm

    x, y = binned(pm.bayes_floor(Lp), width)
    f.scatter(1, x=x, y=y, name="Bayes floor (best possible)", mode="lines",
              line=dict(color="#444", dash="dot", width=2),
              hovertemplate="Bayes floor<br>position %{x:.0f}<br>%{y:.3f} nats<extra></extra>")
    f.marks.vline(L, f"L = {L} (trained)", color="#888")
    if Lp != L:
        f.marks.vline(Lp - 1, f"L' = {Lp}", color="#d55e00")
        f.marks.notes[-1]["xanchor"] = "right"  # the label sits inside the plot, left of the line, at the top
    f.axis("x", title="position t of the predicted token" + ("" if width == 1 else f" (bins of {width})"),
           range=[0, Lp])
    f.axis("y", title="mean loss over sequences (nats)", rangemode="tozero")


def _curve(f: Panels, losses: np.ndarray, width: int, name: str, color: str, dash: str = "solid") -> None:
    x, y = binned(losses, width)
    f.scatter(1, x=x, y=y, name=name, mode="lines", line=dict(color=color, dash=dash, width=2.5),
          hovertemplate=f"{name}<br>position %{{x:.0f}}<br>%{{y:.3f}} nats<extra></extra>")


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


@figure("models_extension")
def models_extension(*, methods: str = "default,linear,ntk,yarn", factor: float = 4.0, finetuned: bool = False,
                     finetunes: str = "linear,yarn", n_sequences: int = 0, bin_width: int = 0,
                     seed: int = 0) -> go.Figure:
    """Loss per position of the shipped RoPE model read at L' = s·L, one curve per scaling method applied at
    inference (with its attention factor), the Bayes floor, and L and L' marked; ``finetuned`` adds the
    models fine-tuned at L' named in ``finetunes`` (PI, YaRN: their own curves at their own factor, shown
    only when s matches). Legends give each curve's mean loss above the floor past L."""
    import posviz.models as pm

    L = pm.train_length()
    factor = check_float("factor", factor, 1.0, pm.MAX_LENGTH / L)
    Lp = int(round(factor * L))
    keys = sc.parse_methods(methods)
    tuned = _finetunes(finetunes)
    n = pm.live_n_sequences(Lp) if not n_sequences else check_int("n_sequences", n_sequences, 1, 4096)
    width = _bins(Lp, bin_width)
    f = Panels()
    _loss_axes(f, L, Lp, width)
    for m in keys:
        losses = pm.losses("rope", Lp, m, factor, seed, n)
        _curve(f, losses, width, f"{sc.METHODS[m].label}: +{pm.past_L(losses, L):.2f} past L", METHOD_COLORS[m])
    for m in finetuned_at(factor, tuned) if finetuned else ():
        rec = pm.record(f"rope_{m}_ft")
        losses = pm.losses(f"rope_{m}_ft", Lp, m, factor, seed, n)
        label = FINETUNE_LABEL.format(method=sc.METHODS[m].label, steps=rec["steps"], length=rec["length"])
        _curve(f, losses, width, f"{label}: +{pm.past_L(losses, L):.2f}", METHOD_COLORS[m], "dash")
    return f.figure(title=dict(text=f"RoPE model trained at L = {L}, read at L' = {Lp} (s = {factor:g}); "
                                   f"{n} sequences"),
                   legend=LEGEND_BELOW, height=560, hovermode="x unified")


@figure("models_schemes")
def models_schemes(*, schemes: str = "nope,learned,sinusoidal,rope,alibi", factor: float = 4.0,
                   n_sequences: int = 0, bin_width: int = 0, seed: int = 0) -> go.Figure:
    """Loss per position of every position scheme on the same task at L' = s·L (no scaling method), the Bayes
    floor, and L and L' marked; legends give each scheme's mean loss above the floor past L."""
    import posviz.models as pm

    L = pm.train_length()
    factor = check_float("factor", factor, 1.0, pm.MAX_LENGTH / L)
    Lp = int(round(factor * L))
    chosen = [s.strip() for s in schemes.split(",") if s.strip()] if isinstance(schemes, str) else []
    bad = [s for s in chosen if s not in pm.SCHEMES]
    if bad or not chosen:
        raise ValueError(f"schemes must be a comma-separated list of {', '.join(pm.SCHEMES)}; got {schemes!r}")
    n = pm.live_n_sequences(Lp) if not n_sequences else check_int("n_sequences", n_sequences, 1, 4096)
    width = _bins(Lp, bin_width)
    f = Panels()
    _loss_axes(f, L, Lp, width)
    for s in dict.fromkeys(chosen):
        losses = pm.losses(s, Lp, seed=seed, n_sequences=n)
        _curve(f, losses, width, f"{SCHEME_LABELS[s]}: +{pm.past_L(losses, L):.2f} past L", SCHEME_COLORS[s])
    return f.figure(title=dict(text=f"Position schemes trained at L = {L}, read at L' = {Lp}; {n} sequences"),
                   legend=LEGEND_BELOW, height=560, hovermode="x unified")


@figure("models_training")
def models_training() -> go.Figure:
    """Training loss of every shipped model against the step, from the manifest (no torch)."""
    import posviz.models as pm

    f = Panels()
    for rec in pm.manifest()["models"].values():
        steps, loss = np.asarray(rec["loss_log"], dtype=np.float32).T
        ft = rec.get("finetuned", False)
        color = METHOD_COLORS[rec["method"]] if ft else SCHEME_COLORS[rec["scheme"]]
        label = (FINETUNE_LABEL.format(method=sc.METHODS[rec["method"]].label, steps=rec["steps"],
                                       length=rec["length"]) if ft else SCHEME_LABELS[rec["scheme"]])
        f.scatter(1, x=steps, y=loss, name=label, mode="lines", line=dict(color=color, dash="dash" if ft else "solid"),
              hovertemplate=f"{label}<br>step %{{x}}<br>loss %{{y:.3f}}<extra></extra>")
    f.axis("x", title="training step")
    f.axis("y", title="training loss (nats)", rangemode="tozero")
    return f.figure(title=dict(text=f"Training at L = {pm.train_length()}"))
