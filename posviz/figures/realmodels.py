"""Figures of the lesson on position in real models: a learned position table's similarity, what the attention mask
does to position, where each encoding sits in a transformer block, and the atlas of released models. All numbers
come from ``posviz.realmodels``."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import i18n
from posviz import realmodels as rm
from posviz._validate import check_choice, check_int
from posviz.figures._common import TWO_LINE_TOP, Panels, f32, subtitled
from posviz.figures._registry import figure
from posviz.i18n import N_, _
from posviz.theme import COLORS, compact_number, diverging

__all__ = ["realmodels_learned", "realmodels_masks", "realmodels_places", "realmodels_atlas"]

TABLES = {"learned": N_("the trained table (the learned model)"),
          "sinusoidal": N_("a sinusoidal table of the same shape")}


def position_table(table: str) -> np.ndarray:
    """The learned model's position table, or the sinusoidal table of the same shape."""
    check_choice("table", table, TABLES)
    learned = rm.learned_table()
    return learned if table == "learned" else rm.sinusoidal_like(learned)


METHOD_NAMES = frozenset({"RoPE", "M-RoPE", "ALiBi", "KERPLE"})  # shown as they are in every language


def shown_name(text: str) -> str:
    """A scheme's label in the student's language; a method's own name (RoPE, ALiBi) stays as it is."""
    return text if text in METHOD_NAMES else _(text)


LEARNED_GAP = 0.28  # paper fraction between the panels: the colour bar and its ticks, then the right y title


@figure("realmodels_learned")
def realmodels_learned(*, table: str = "learned") -> go.Figure:
    """Left: cosine similarity of every pair of rows of the position table (L × L). Right: the mean similarity of
    rows k apart, for the trained table and for a sinusoidal table of the same shape; the table ends at row L − 1."""
    shown = position_table(table)
    learned = rm.learned_table()
    sim = rm.cosine_similarity(shown)
    L = shown.shape[0]
    k = np.arange(L)
    left = _("cos(row p, row q), learned table") if table == "learned" else _("cos(row p, row q), sinusoidal table")
    p = Panels.grid(1, 2, [left, _("mean similarity of rows k apart")],
                    widths=(0.45, 0.55), hspace=LEARNED_GAP)
    p.add(dict(type="heatmap", z=f32(sim), zmin=-1, zmax=1, colorscale=diverging(), meta="diverging",
               colorbar=dict(x=p.layout["xaxis"]["domain"][1] + 0.012, xanchor="left", len=0.8, thickness=12),
               hovertemplate="p=%{y}, q=%{x}<br>cos=%{z:.2f}<extra></extra>"))
    p.axis("x", 1, title=_("position q"), range=[-0.5, L - 0.5])
    p.axis("y", 1, title=_("position p"), autorange="reversed")
    for name, t, color, label in (("learned", learned, COLORS[0], _("learned table")),
                                  ("sinusoidal", rm.sinusoidal_like(learned), COLORS[1], _("sinusoidal table"))):
        p.scatter(2, x=f32(k), y=f32(rm.similarity_by_offset(t)), mode="lines+markers", name=label,
                  line=dict(color=color, width=3 if name == table else 1.5), marker=dict(size=4))
    p.marks.hline(0.0, "", panel=2, color="#888")
    p.axis("x", 2, title=_("offset k (rows; the last row is L − 1 = {last})", last=L - 1))
    p.axis("y", 2, title=_("mean cos"), range=[-1.05, 1.05])
    return p.figure(title=dict(text=subtitled(_("A learned position table: {rows} rows of {width}", rows=L,
                                                width=shown.shape[1]),
                                              _("no row exists for a position ≥ L"))),
                    margin=dict(t=TWO_LINE_TOP), height=430, legend=dict(orientation="h", y=-0.2, x=0.5))


@figure("realmodels_masks")
def realmodels_masks(*, T: int = 16, seed: int = 0) -> go.Figure:
    """The weight each query puts on the start token of a sequence whose other T − 1 tokens are one repeated word,
    under a causal and a bidirectional mask (one attention head, no position code)."""
    checks = rm.mask_checks(T, seed=seed)
    t = np.arange(T)
    p = Panels()
    p.scatter(x=f32(t), y=f32(checks.start_weight_causal), mode="lines+markers", name=_("causal mask"),
              line=dict(color=COLORS[0], width=3))
    p.scatter(x=f32(t), y=f32(checks.start_weight_bidirectional), mode="lines+markers", name=_("bidirectional"),
              line=dict(color=COLORS[1], width=3, dash="dash"))
    p.axis("x", title=_("query position t"))
    p.axis("y", title=_("attention weight on the start token"), range=[0, 1.05])
    note = _("shuffle check: max |f(Px) − P f(x)| = {bidirectional} bidirectional, {causal:.2f} causal",
             bidirectional=compact_number(checks.perm_error_bidirectional), causal=checks.perm_error_causal)
    return p.figure(title=dict(text=subtitled(_("No position code: what the mask alone tells a query"), note)),
                    margin=dict(t=TWO_LINE_TOP), height=400, legend=dict(orientation="h", y=-0.22, x=0))


# the block as boxes: (key, label, x0, x1, y0, y1); y runs bottom (input) to top (output)
_BOXES = (
    ("tokens", N_("token embedding (× √d<sub>model</sub> in the original Transformer)"), 0.05, 0.95, 0.0, 0.08),
    ("input", N_("+ position table (sinusoidal, learned)"), 0.05, 0.95, 0.12, 0.2),
    ("norm", N_("layer norm"), 0.05, 0.95, 0.26, 0.32),
    ("q", "q = x W<sub>q</sub>", 0.05, 0.32, 0.38, 0.46),
    ("k", "k = x W<sub>k</sub>", 0.365, 0.635, 0.38, 0.46),
    ("v", "v = x W<sub>v</sub>", 0.68, 0.95, 0.38, 0.46),
    ("qk", N_("rotate q, k by R<sub>m</sub>, R<sub>n</sub>"), 0.05, 0.635, 0.5, 0.58),
    ("logits", N_("q·kᵀ/√d<sub>h</sub> + bias(m − n)"), 0.05, 0.635, 0.62, 0.7),
    ("softmax", "softmax, × v", 0.05, 0.95, 0.74, 0.8),
    ("out", N_("W<sub>o</sub>, + residual, MLP"), 0.05, 0.95, 0.84, 0.9),
)
_WHERE = {"input": "input", "qk": "qk", "logits": "logits"}


@figure("realmodels_places")
def realmodels_places(*, scheme: str = "rope", layers: int = 4) -> go.Figure:
    """One transformer block (repeated ``layers`` times) as boxes, the place where ``scheme`` acts highlighted:
    added once to the input, q and k rotated in every layer (v untouched), or a bias on every layer's logits
    (T5's computed once and shared)."""
    place = rm.PLACES[check_choice("scheme", scheme, rm.PLACES)]
    layers = check_int("layers", layers, 1, 12)
    shapes, notes = [], []
    for key, label, x0, x1, y0, y1 in _BOXES:
        lit = key == _WHERE[place.where]
        shapes.append(dict(type="rect", xref="x", yref="y", x0=x0, x1=x1, y0=y0, y1=y1,
                           line=dict(color=COLORS[3] if lit else "#9aa0aa", width=4 if lit else 1),
                           fillcolor="rgba(213,94,0,0.18)" if lit else "rgba(140,140,140,0.06)"))
        notes.append(dict(x=(x0 + x1) / 2, y=(y0 + y1) / 2, xref="x", yref="y", text=f"<b>{_(label)}</b>" if lit
                          else _(label), showarrow=False))
    shapes.append(dict(type="rect", xref="x", yref="y", x0=0.0, x1=1.0, y0=0.23, y1=0.93,
                       line=dict(color="#666", dash="dot", width=1.5)))
    every = {"input": _("added once, before layer 1"),
             "qk": _("in all {layers} layers, q and k only (v is never rotated)", layers=layers),
             "logits": (_("computed once, shared by all {layers} layers", layers=layers) if place.shared
                        else _("in all {layers} layers, on every head's logits", layers=layers))}[place.where]
    notes.append(dict(x=1.0, y=0.95, xref="x", yref="y", text=_("block × {layers}", layers=layers), showarrow=False,
                      xanchor="right", yanchor="bottom"))
    p = Panels()
    p.scatter(x=[0, 1], y=[0, 1], mode="markers", marker=dict(opacity=0), hoverinfo="skip", showlegend=False)
    p.axis("x", visible=False, range=[-0.02, 1.02], fixedrange=True)
    p.axis("y", visible=False, range=[-0.02, 1.0], fixedrange=True)
    title = subtitled(_("Where {label} acts", label=shown_name(place.label)), every)
    return p.figure(title=dict(text=title), shapes=shapes,
                    annotations=notes, margin=dict(t=TWO_LINE_TOP, l=10, r=10, b=10), height=520)


PLACE_COLUMNS = (N_("input (once)"), N_("q, k (every layer)"), N_("logits (every layer)"), N_("none (NoPE layers)"))
_SCHEME_COLUMN = {"learned absolute": 0, "learned absolute (1-D over patches)": 0, "fixed 2-D sin-cos": 0,
                  "RoPE": 1, "M-RoPE": 1, "ALiBi": 2, "T5 relative buckets": 2}


@figure("realmodels_atlas")
def realmodels_atlas() -> go.Figure:
    """Released models against the place their position encoding acts; Llama 4 also marked at "none" for its NoPE
    layers. Rows come from the presets' configs (read with the config reader) and the atlas table."""
    rows = rm.atlas()
    with i18n.using(i18n.DEFAULT):  # the config reader's facts in English, to find the NoPE layers by their words
        nope = ["no RoPE in" in row.facts for row in rm.atlas()]
    xs, ys, texts = [], [], []
    for y, row in enumerate(rows):
        xs.append(_SCHEME_COLUMN[row.scheme])
        ys.append(y)
        texts.append(shown_name(row.scheme))
        if nope[y]:
            xs.append(3)
            ys.append(y)
            texts.append(_("NoPE layers"))
    p = Panels()
    p.scatter(x=xs, y=ys, mode="markers+text", text=texts, textposition="middle right",
              marker=dict(size=11, color=[COLORS[c] for c in xs]), hoverinfo="skip", showlegend=False)
    p.axis("x", tickmode="array", tickvals=list(range(4)), ticktext=[_(c) for c in PLACE_COLUMNS], range=[-0.3, 4.2],
           side="top", zeroline=False)
    p.axis("y", tickmode="array", tickvals=list(range(len(rows))), ticktext=[r.model for r in rows],
           autorange="reversed", automargin=True, zeroline=False)
    n_rope = sum(r.scheme in ("RoPE", "M-RoPE") for r in rows)
    return p.figure(title=dict(text=subtitled(_("Which released models use what"),
                                              _("{rope} of {total} rows rotate q and k", rope=n_rope,
                                                total=len(rows)))),
                    margin=dict(t=ATLAS_TOP, l=10, b=ATLAS_BOTTOM), height=atlas_height(len(rows)))


ATLAS_TOP, ATLAS_BOTTOM = TWO_LINE_TOP + 30, 30  # px: title and column labels above, nothing below
ATLAS_PITCH = 19  # px per model row: presenter mode (×1.5) keeps every row on a 1920×1080 screen


def atlas_height(n_rows: int) -> int:
    """The atlas's height for ``n_rows`` models: margins plus ATLAS_PITCH px a row, so that ×1.5 in presenter
    mode (17 rows: 718 px) fits under a 1920×1080 screen's browser bar, page title and part heading."""
    return ATLAS_TOP + ATLAS_BOTTOM + ATLAS_PITCH * n_rows
