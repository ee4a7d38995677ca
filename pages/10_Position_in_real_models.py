"""Position in real models: a learned table, causal against bidirectional attention, where each encoding sits in a
transformer block, and which released models use what."""

import numpy as np
import streamlit as st

from posviz import models, realmodels, ui
from posviz.figures.realmodels import (
    TABLES,
    realmodels_atlas,
    realmodels_learned,
    realmodels_masks,
    realmodels_places,
    shown_name,
)
from posviz.i18n import N_, _
from posviz.theme import compact_number

lesson = ui.Lesson(
    "real_models", N_("Position in real models"), icon="🏛️", order=10, headline="realmodels_learned",
    summary=N_("A learned position table (GPT-2, BERT, OPT, ViT) and why it has no row past L, what a causal mask "
            "tells a model about position on its own, where each encoding acts in a transformer block, and an "
            "atlas of which released models use what, read from their configs."),
    intro=N_("The other lessons take one encoding at a time. This one puts them into real networks: the table a "
          "model learns when nothing is fixed, the position information the attention mask carries by itself, "
          "the place in the block where each encoding acts, and what released models ship."),
    controls=(ui.Int("p", N_("position p"), default=70, lo=0, hi=512,
                     help=N_("Which row the table gives position p; past L there is none.")),),
)


@ui.cached
def learned_numbers() -> dict:
    table = realmodels.learned_table()
    learned = realmodels.similarity_by_offset(table)
    fixed = realmodels.similarity_by_offset(realmodels.sinusoidal_like(table))
    return dict(L=table.shape[0], d=table.shape[1], learned=learned, fixed=fixed)


@lesson.part("learned", N_("1. A learned table"), uses=("p",),
             title=N_("1. Learned absolute positions: a table with L rows"),
             controls=(ui.Choice("table", N_("table on the left"), default="learned", options=TABLES),))
def part_learned(v: ui.Values) -> None:
    own = ui.controls(where="main", columns=1)
    n = learned_numbers()
    L, k_neg, k_min = n["L"], first_negative(n["learned"]), int(np.argmin(n["learned"]))
    row = realmodels.row_for_position(v.p, L)
    ui.figure_panel(
        realmodels_learned, dict(table=own.table), key="learned",
        caption=_("GPT-2, BERT, OPT and ViT add row p of a trained table to the token at position p. The model "
                  "trained here (the learned scheme, {rows} rows of {d}) learned a table whose neighbouring rows "
                  "have mean cosine {learned:.2f} (the sinusoidal table of the same shape: {fixed:.2f}); ", rows=L,
                  d=n["d"], learned=n["learned"][1], fixed=n["fixed"][1])
                + (_("the mean first turns negative at k = {k_neg} ({neg:.2f}) and is most negative at k = {k_min} "
                     "({low:.2f}). ", k_neg=k_neg, neg=n["learned"][k_neg], k_min=k_min, low=n["learned"][k_min])
                   if k_neg is not None else "")
                + _("Nothing forces the structure: each row is a free parameter trained only by the positions the "
                    "data reached."),
        latex=r"x_p = E[\mathrm{token}_p] + P[p],\qquad P \in \mathbb{R}^{L \times d_{model}}"
              r"\quad\text{(GPT-2, BERT; no }\sqrt{d_{model}}\text{ scaling)}",
        code=[realmodels.learned_table, realmodels.cosine_similarity, realmodels.similarity_by_offset])
    ui.numbers({_("rows L"): L, _("position p"): v.p, _("row it reads"): _("none (p ≥ L)") if row is None else row})
    lengths = ui.term("lengths", _("L, the training length"))
    dimensions = ui.term("dimensions", _("$d_{model}$ against $d$"))
    positions = ui.term("positions", _("positions from 0"))
    st.markdown(_("Symbols: {lengths} · {dimensions} · {positions}", lengths=lengths, dimensions=dimensions,
                  positions=positions))
    ui.check(_("the table has exactly L = {rows} rows: position p = {p} has its own row", rows=models.train_length(),
               p=v.p) if row is not None else
             _("the table has exactly L = {rows} rows: position p = {p} has no row to read",
               rows=models.train_length(), p=v.p),
             models.train_length() == L,
             _("a learned table stops at L − 1; GPT-2 raises an index error past it, and the model here repeats "
               "row L − 1, so it cannot tell positions past L apart. Sinusoidal codes and RoPE compute any row."))


def first_negative(mean_cos: np.ndarray) -> int | None:
    """The smallest offset k whose mean cosine is below 0, or None if none is."""
    below = np.flatnonzero(np.asarray(mean_cos) < 0)
    return int(below[0]) if below.size else None


@lesson.part("masks", N_("2. Causal or bidirectional"),
             title=N_("2. Causal against bidirectional: position from the mask"),
             controls=(ui.Int("T", N_("tokens T"), default=16, lo=3, hi=64),
                       ui.Int("seed", N_("seed"), default=0, lo=0, hi=999)))
def part_masks(v: ui.Values) -> None:
    own = ui.controls(where="main", columns=2)
    c = realmodels.mask_checks(own.T, seed=own.seed)
    w = c.start_weight_causal
    ui.figure_panel(
        realmodels_masks, dict(T=own.T, seed=own.seed), key="masks",
        live=("T", "seed"),
        caption=_("No position code at all. Bidirectional: every query sees the same {T} tokens, so every copy of "
                  "the word (t ≥ 1) puts {copy:.3f} on the start token wherever it stands (the start token itself, "
                  "t = 0, puts {start:.3f} on itself), and shuffling the input only shuffles the output "
                  "(error {error}): lesson 1's permutation argument. Causal: the query at t sees t + 1 tokens, so its "
                  "weight on the start token falls from {first:.2f} at t = 0 to {last:.3f} at t = {final}: a later "
                  "layer can read the position from it. That is why a decoder without any code (NoPE) still works.",
                  T=own.T, copy=c.start_weight_bidirectional[-1], start=c.start_weight_bidirectional[0],
                  error=compact_number(c.perm_error_bidirectional), first=w[0], last=w[-1], final=own.T - 1),
        latex=r"a_t = \frac{e^{s_0}}{e^{s_0} + t\,e^{s_w}}\ \text{(causal)},\qquad "
              r"a = \frac{e^{s_0}}{e^{s_0} + (T-1)\,e^{s_w}}\ \text{(bidirectional)}",
        code=[realmodels.mask_checks, realmodels.attend])
    falling = bool(np.all(np.diff(w) < 0))
    ui.check(_("causal: the start token's weight falls strictly with t (position is readable)"), falling,
             f"{w[0]:.3f} → {w[-1]:.4f}")
    ui.check(_("bidirectional: shuffled input gives shuffled output (no order at all)"),
             c.perm_error_bidirectional < 1e-9,
             _("max error {error}; causal: {causal:.2f}", error=compact_number(c.perm_error_bidirectional),
               causal=c.perm_error_causal))
    glossary = ui.term("causal", _("glossary: causal and bidirectional"))
    st.markdown(_("See also: [Distance biases, part 6: NoPE]({nope}) · [From integers to sinusoids, part 1b: "
                  "shuffle the words]({shuffle}) · {glossary}", nope=ui.href("bias", part="nope"),
                  shuffle=ui.href("intro", part="shuffle"), glossary=glossary))


@lesson.part("places", N_("3. Where it sits"), title=N_("3. Where each encoding sits in the network"),
             controls=(ui.Choice("scheme", N_("encoding"), default="rope",
                                 options={k: p.label for k, p in realmodels.PLACES.items()}),
                       ui.Int("layers", N_("layers N"), default=4, lo=1, hi=12),
                       ui.Int("shift", N_("shift c (both tokens)"), default=5, lo=1, hi=100)))
def part_places(v: ui.Values) -> None:
    own = ui.controls(where="main", columns=3)
    place = realmodels.PLACES[own.scheme]
    before, after = realmodels.shift_check(own.scheme, c=own.shift)
    label = shown_name(place.label)
    ui.figure_panel(
        realmodels_places, dict(scheme=own.scheme, layers=own.layers), key="places",
        live=("layers",),
        caption=(_("{label}: {source}. Where it acts decides what a logit can depend on: the same query and key at "
                   "positions (9, 4) give {before:.4f}, moved by c = {c} to ({m}, {n}) they give {after:.4f}: the "
                   "input code leaks absolute position into the logit.", label=label, source=_(place.source),
                   before=before, c=own.shift, m=9 + own.shift, n=4 + own.shift, after=after)
                 if place.where == "input" else
                 _("{label}: {source}. Where it acts decides what a logit can depend on: the same query and key at "
                   "positions (9, 4) give {before:.4f}, moved by c = {c} to ({m}, {n}) they give {after:.4f}: only "
                   "m − n reaches the logit.", label=label, source=_(place.source), before=before,
                   c=own.shift, m=9 + own.shift, n=4 + own.shift, after=after)),
        code=[realmodels.shift_check])
    same = abs(before - after) <= 1e-9 * max(1.0, abs(before))
    why = (_("the code is added to the token before $W_q$ and $W_k$ mix it, so absolute positions reach the logit")
           if place.where == "input" else _("the encoding enters through m − n alone"))
    ui.check(_("the logit depends on m − n only (both tokens moved by c)"), same,
             _("{before:.6f} → {after:.6f}: {why}", before=before, after=after, why=why))
    offset, layout = ui.term("offset", _("m, n and Δ = m − n")), ui.term("layout", _("pair layouts"))
    st.markdown(_("Symbols: {offset} · {layout}", offset=offset, layout=layout))


@lesson.part("atlas", N_("4. Model atlas"), title=N_("4. Which released models use what"),
             controls=(ui.Choice("row", N_("model"), default="Gemma 3 27B",
                                 options={r.model: r.model for r in realmodels.atlas()}),))
def part_atlas(v: ui.Values) -> None:
    rows = atlas_rows()
    ui.figure_panel(
        realmodels_atlas, {}, key="atlas",
        caption=_("{count} released models by where their position code acts. The RoPE rows are read live from "
                  "posviz's presets (their config.json) by the same config reader as Context extension's part 9; the "
                  "rest from each model's config or paper. Every source is in the table below.", count=len(rows)),
        code=[realmodels.atlas, realmodels.config_facts])
    own = ui.controls(where="main", columns=1)
    chosen = next(r for r in rows if r.model == own.row)
    st.markdown(_("**{model}** · {scheme} · {facts}  \nSource: {source}", model=chosen.model,
                  scheme=shown_name(chosen.scheme), facts=_(chosen.facts), source=_(chosen.source)))
    ui.check(_("every atlas row links a part of the course that exists"), all(link(r) for r in rows))
    table = [_("| model | scheme | what the config says | explained in |"), "|---|---|---|---|"]
    table += [f"| {r.model} | {shown_name(r.scheme)} | {ui.escape_md(_(r.facts))} | {explained_link(r)} |"
              for r in rows]
    st.markdown("\n".join(table))
    with st.expander(_("Sources")):
        st.markdown("\n".join(f"- **{r.model}**: {ui.escape_md(_(r.source))}" for r in rows))


@ui.cached
def atlas_rows() -> tuple:
    return realmodels.atlas()


def explained_link(row: realmodels.AtlasRow) -> str:
    """A link to the part that explains ``row``, labelled with that part's own heading (its declared title)."""
    slug, key = row.explained_by
    target = ui.find(slug)
    part = next(p for p in target.parts.values() if key in (p.key, *p.aliases))
    return ui.link(slug, key, text=_("{lesson}: {part}", lesson=_(target.title), part=_(part.title or part.label)))


def link(row: realmodels.AtlasRow) -> str:
    slug, part = row.explained_by
    return ui.href(slug, part=part)


lesson.run()
