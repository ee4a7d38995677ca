"""2D encodings: sin/cos on a grid of image patches, and RoPE in two (and three) dimensions."""

import numpy as np
import streamlit as st

from posviz import mrope, rope2d, ui
from posviz.figures import twod_prose as words
from posviz.figures.mrope import mrope_ids, mrope_pair_angles, sequence
from posviz.figures.twod import (
    flux_angles,
    flux_scores,
    mae_axis_response,
    mixed_rope_directions,
    patch_channel,
    patch_channels,
    patch_similarity_modes,
    resize_channel,
    resize_error_map,
    rope2d_two_queries,
)
from posviz.i18n import N_, _
from posviz.sinusoidal import sinusoidal_2d
from posviz.theme import compact_number

# what the parts quote, cached per arguments and shared by every session
offset_gap = ui.cached(rope2d.rope2d_offset_gap)
timm_gap = ui.cached(rope2d.antialias_gap)
section_spread = ui.cached(words.image_angle_spread)


MODES = {"mae": N_("MAE (column | row, what ViT code ships)"), "concat": N_("concat (row | column)"),
         "add": N_("add (row + column)")}

# Controls used by two parts of a pair (3a/3b, 4a/4b, 5a/5b, 6a/6b): both parts draw the same control, so its
# value (and its URL parameter) carries over from one part to the other.
RESIZED_HEIGHT = ui.Int("nh", N_("grid used: height H' (patches)"), default=20, lo=1, hi=64)
RESIZED_WIDTH = ui.Int("nw", N_("grid used: width W' (patches)"), default=20, lo=1, hi=64)
RECOMPUTE = ui.Choice("recompute", N_("compare with"), default="scaled",
                      options={"scaled": N_("formula at the same fractional positions"),
                               "integer": N_("formula on the new integer grid")})
HEAD_DIM = ui.Int("hd", N_("head dim d"), default=64, lo=4, hi=128, step=4,
                  help=N_("A multiple of 4, at most 128 (FLUX's head dim)."))
ROPE_BASE = ui.LogFloat("rbase", N_("RoPE base"), default=100.0, lo=2.0, hi=1e5, extra=(10.0, 100.0),
                        help=N_("100 for axial RoPE-ViT; 10 for RoPE-Mixed's initial magnitudes."))
SEED = ui.Int("seed", N_("random seed"), default=0, lo=0, hi=999)
TEXT_TOKENS = ui.Int("ntext", N_("text tokens shown"), default=8, lo=0, hi=64)
# The text + image + video sequence of parts 6a and 6b (grids in merged tokens, 2 × 2 patches each)
MROPE_SEQUENCE = (
    ui.Int("mt1", N_("text tokens before the image"), default=4, lo=1, hi=32),
    ui.Int("mih", N_("image rows h' (tokens)"), default=3, lo=1, hi=16),
    ui.Int("miw", N_("image columns w' (tokens)"), default=4, lo=1, hi=16),
    ui.Int("mt2", N_("text tokens after the image"), default=3, lo=1, hi=32),
    ui.Int("mvt", N_("video frames t (0: no video)"), default=2, lo=0, hi=16,
           help=N_("Temporal patches: two video frames each. 0 leaves the video and the text after it out.")),
    ui.Int("mvh", N_("video rows h' (tokens)"), default=3, lo=1, hi=16),
    ui.Int("mvw", N_("video columns w' (tokens)"), default=3, lo=1, hi=16),
    ui.Int("mt3", N_("text tokens after the video"), default=3, lo=1, hi=32),
)


# the sliders the figures of a grid of patches follow (control -> figure parameter), and of Qwen2-VL's sequence
GRID_LINKS = {"H": "height", "W": "width", "D": "d_model", "base": "base"}
MROPE_LINKS = {"mt1": "n_text_before", "mvt": "video_t", "mih": "image_h", "mvh": "video_h", "miw": "image_w",
               "mvw": "video_w", "mt2": "n_text_mid", "mt3": "n_text_after"}

lesson = ui.Lesson(
    "2d", N_("2D encodings"), icon="🖼️", order=5, headline="patch_channels",
    summary=N_("Sin/cos codes for an H×W grid of image patches (MAE, concat, add), which patches look alike (add mode "
            "gives PE(r, c) = PE(c, r)), MAE's `emb_h` that really encodes the column, bicubic resizing against the "
            "formula; axial and RoPE-Mixed 2-D RoPE whose scores depend only on (dx, dy), FLUX.1's three axes "
            "where text tokens at (0, 0, 0) are not rotated at all, and Qwen2-VL's M-RoPE: three position ids per "
            "token and the rotary pairs split between them."),
    intro=N_("A vision transformer cuts an image into an H × W grid of patches, and each patch needs a position "
          "with two coordinates. You will see how sin/cos codes for the row and the column are combined, which "
          "patches end up looking alike, what happens when the grid is resized, and how RoPE rotates by a "
          "row and a column at once (including FLUX, where text tokens get no rotation at all, and Qwen2-VL, "
          "where text, image and video tokens each get three position ids)."),
    controls=(
        ui.Int("H", N_("grid height H (patches)"), default=14, lo=1, hi=64,
               help=N_("Rows of patches. Non-square grids are fine; at most 64.")),
        ui.Int("W", N_("grid width W (patches)"), default=14, lo=1, hi=64,
               help=N_("Columns of patches (at most 64).")),
        ui.Int("D", N_("encoding width D"), default=64, lo=4, hi=1024, step=4,
               help=N_("Channels of the position code, a multiple of 4: two axes × (sin, cos) pairs. At most "
                       "1024.")),
        ui.LogFloat("base", N_("base b"), default=10000.0, lo=10.0, hi=1e6),
        ui.Choice("combine", N_("combine the two axes"), default="mae", options=MODES, widget="radio"),
    ),
)
GRID = ("H", "W", "D", "base")
LAST_ROW, LAST_COL, LAST_CHANNEL = (lambda v: v["H"] - 1), (lambda v: v["W"] - 1), (lambda v: v["D"] - 1)


def grid_of(v: ui.Values) -> dict:
    return dict(height=v.H, width=v.W, d_model=v.D, base=v.base)


def part_number(key: str) -> str:
    """The number a part's label gives it ("3a" for "3a. Resolution change"), for prose that points at it."""
    return lesson.parts[key].label.split(". ", 1)[0]


# ---------------------------------------------------------------------------- 1. the patch grid

@lesson.part("grid", N_("1a. Patch grid"), uses=(*GRID, "combine"), title=N_("1a. The patch grid"),
             controls=(
                 ui.Int("ch", N_("channel k"), default=1, lo=0, hi=LAST_CHANNEL, hi_max=1023),
             ))
def part_grid(v: ui.Values) -> None:
    ui.prose(_(
        "Each channel of the code is a function of **one** coordinate (or, in the add mode, the sum of one "
        "function of each). Drawn over the grid, a channel that follows the column makes vertical stripes and "
        "one that follows the row makes horizontal stripes. Row 0 is at the top, as in the image."))
    c = ui.controls(where="main", columns=1)
    ui.figure_panel(
        patch_channel, {**grid_of(v), "combine": v.combine, "channel": c.ch},
        key="channel", live=GRID_LINKS | {"ch": "channel"},
        caption=_("What to notice: stripes run across the axis the channel ignores. Here {channel}. Step through "
                  "the channels: the wavelength grows from channel to channel within each block of sines or "
                  "cosines, so every block has fast (local) channels at its start and slow (global) ones at its end.",
                  channel=words.channel_words(v.D, v.base, v.combine, c.ch)),
        latex=words.LATEX_2D[v.combine],
        code=[sinusoidal_2d, rope2d.sincos_2d_channel_info],
    )


@lesson.part("multiples", N_("1b. Small multiples"), uses=(*GRID, "combine"),
             title=N_("1b. Sixteen channels at a glance"),
             controls=(
                 ui.Int("first", N_("first channel of the small multiples"), default=0, lo=0, hi=LAST_CHANNEL,
                        hi_max=1023),
                 ui.Bool("spread", N_("spread the 16 small multiples over all D channels"), default=True),
             ))
def part_multiples(v: ui.Values) -> None:
    c = ui.controls(where="main", columns=2)
    still = words.still_channels(v.H, v.W, v.D, v.base, v.combine)
    ui.figure_panel(
        patch_channels, {**grid_of(v), "combine": v.combine, "first": c.first, "n_channels": 16, "spread": c.spread},
        key="multiples", live=GRID_LINKS | {"first": "first"},
        caption=_("What to notice: in MAE's layout the top two rows (the first half of the channels) are vertical "
                  "stripes, they follow the column, and the bottom two rows horizontal ones; concat is the other "
                  "way round. Within each block the stripes widen channel after channel (slower waves). In the add "
                  "mode every channel mixes both axes into a pattern that is symmetric about the diagonal. On this "
                  "{height} × {width} grid at b = {base:g}, {still} of the {channels} channels ({share:.0%}) turn "
                  "by less than a quarter radian (14°) from one edge to the other: nearly constant, they carry "
                  "almost no position. That is why image RoPE uses a small base (100 in RoPE-ViT, 10 in "
                  "RoPE-Mixed); lower b and watch them come alive.",
                  height=v.H, width=v.W, base=v.base, still=still[0], channels=v.D, share=still[1]),
        latex=words.LATEX_2D[v.combine],
        code=[rope2d.sincos_2d_channel_info],
    )


# ---------------------------------------------------------------------------- 2. similar patches

@lesson.part("similarity", N_("2. Similar patches"), uses=GRID, title=N_("2. Which patches look alike?"),
             controls=(
                 ui.Int("row", N_("patch row r"), default=2, lo=0, hi=LAST_ROW, hi_max=63),
                 ui.Int("col", N_("patch column c"), default=9, lo=0, hi=LAST_COL, hi_max=63),
             ))
def part_similarity(v: ui.Values) -> None:
    ui.prose(_("Pick a patch: each map shows the cosine similarity of its code to the code of every patch, for "
               "the three ways of combining the axes. The white star is your patch; the red circle sits on the "
               "transposed patch (row and column swapped)."))
    q = ui.controls(where="main", columns=2)
    row, col = q.row, q.col
    ui.figure_panel(
        patch_similarity_modes, {**grid_of(v), "row": row, "col": col}, key="similarity",
        live=GRID_LINKS | {"row": "row", "col": "col"},
        caption=_("What to notice: concat and MAE give the same picture (the same numbers, reordered), a cross "
                  "along the patch's row and column. The add mode also lights up the transposed patch at "
                  "exactly 1.000: patch (r, c) and patch (c, r) get identical codes."),
        latex=r"\mathrm{sim}(p, p') = \frac{PE(p)\cdot PE(p')}{\lVert PE(p)\rVert\,\lVert PE(p')\rVert}",
        code=[rope2d.patch_similarity],
    )
    gaps = {m: rope2d.transpose_gap(v.D, v.base, m, row, col) for m in ("add", "concat", "mae")}
    ui.numbers({f"|PE({row},{col}) − PE({col},{row})|, {m}": g for m, g in gaps.items()}, fmt="{:.4f}")
    ui.check(_("add mode: PE({row}, {col}) = PE({col}, {row}), transposed patches collide", row=row, col=col),
             ok=gaps["add"] == 0.0 and (row == col or gaps["concat"] > 0),
             detail=_("difference {add:.1e} in add, {concat:.3f} in concat", add=gaps["add"], concat=gaps["concat"]))


# ---------------------------------------------------------------------------- 3. resolution change

def resize_settings(v: ui.Values, rz: ui.Values) -> dict:
    """The resize figures' parameters: the sidebar's grid is the trained one, H' × W' the one used."""
    return dict(old_height=v.H, old_width=v.W, new_height=rz.nh, new_width=rz.nw, d_model=v.D, base=v.base,
                combine=v.combine, recompute=rz.recompute)


@lesson.part("resize", N_("3a. Resolution change"), uses=(*GRID, "combine"), title=N_("3a. Changing the resolution"),
             controls=(
                 RESIZED_HEIGHT,
                 RESIZED_WIDTH,
                 RECOMPUTE,
                 ui.Int("rch", N_("channel shown"), default=0, lo=0, hi=LAST_CHANNEL, hi_max=1023),
             ))
def part_resize(v: ui.Values) -> None:
    ui.prose(_(
        "A ViT trained on 224-pixel images with 16-pixel patches has a 14 × 14 grid. Fed 320-pixel images it "
        "sees 20 × 20 patches, so the stored position table is resized with bicubic interpolation, as DeiT does "
        "to fine-tune at a higher resolution (`torch.nn.functional.interpolate(mode=\"bicubic\", "
        "align_corners=False)`, no antialias). For a fixed sin/cos table we can compare that with the formula "
        "itself. The trained grid is the sidebar's H × W."))
    rz = ui.controls(where="main", columns=4)
    timm = timm_gap(v.H, v.W, rz.nh, rz.nw, v.D, v.base, v.combine)
    ui.prose(_("timm's `resample_abs_pos_embed` resizes with `antialias=True` by default, a different bicubic "
               "kernel: from {height} × {width} to {new_height} × {new_width} its table differs from this one by up "
               "to {gap:.3g} (the largest difference over every patch and channel).",
               height=v.H, width=v.W, new_height=rz.nh, new_width=rz.nw, gap=timm))
    ui.figure_panel(
        resize_channel, {**resize_settings(v, rz), "channel": rz.rch},
        key="resize",
        live={"nh": "new_height", "nw": "new_width", "rch": "channel", "H": "old_height", "W": "old_width",
              "D": "d_model", "base": "base"},
        caption=_("What to notice: slow channels survive interpolation almost exactly; the fastest ones "
                  "(wavelength about 6 patches) are smoothed and err most at the borders, where bicubic has no "
                  "neighbours. 'Integer grid' instead shows that the resized table is a stretched copy, not the code "
                  "of the new positions."),
        latex=r"\text{new patch } j \mapsto \text{old coordinate } (j + \tfrac12)\,\tfrac{H}{H'} - \tfrac12",
        code=[rope2d.resize_sincos_2d, rope2d.antialias_gap],
    )


@lesson.part("resize_error", N_("3b. Resize error"), uses=(*GRID, "combine"),
             title=N_("3b. Where the resized table errs"),
             controls=(
                 RESIZED_HEIGHT,
                 RESIZED_WIDTH,
                 RECOMPUTE,
             ))
def part_resize_error(v: ui.Values) -> None:
    ui.prose(_("The same bicubic resize as in part {part}, from the sidebar's H × W to H' × W', now over every "
               "patch and every channel at once.", part=part_number("resize")))
    rz = ui.controls(where="main", columns=3)
    ui.figure_panel(
        resize_error_map, resize_settings(v, rz), key="resize_err",
        live={"nh": "new_height", "nw": "new_width", "H": "old_height", "W": "old_width", "D": "d_model",
              "base": "base"},
        caption=_("What to notice: the error is concentrated on the grid's edges and in the fastest channels (the "
                  "first of each block of sines or cosines). A fixed sin/cos table can simply be recomputed at the "
                  "new size; a learned one has no formula to fall back on, so interpolation is all there is."),
        code=[rope2d.resize_error],
    )


# ---------------------------------------------------------------------------- 4. 2-D RoPE

@lesson.part("rope", N_("4a. 2-D RoPE"), uses=("H", "W"), title=N_("4a. RoPE in two dimensions"),
             controls=(
                 ui.Choice("kind", N_("2-D RoPE variant"), default="axial",
                           options={"axial": N_("axial (RoPE-ViT)"), "mixed": N_("mixed (RoPE-Mixed init)")}),
                 HEAD_DIM,
                 ROPE_BASE,
                 ui.Choice("content", N_("query and key vectors"), default="ones",
                           options={"ones": N_("q = k = all ones"), "random": N_("random q, k (seeded)")}),
                 SEED,
                 ui.Int("head", N_("head"), default=0, lo=0, hi=15),
                 ui.Int("ra", N_("query A row"), default=3, lo=0, hi=LAST_ROW, hi_max=63),
                 ui.Int("ca", N_("query A column"), default=3, lo=0, hi=LAST_COL, hi_max=63),
                 ui.Int("rb", N_("query B row"), default=9, lo=0, hi=LAST_ROW, hi_max=63),
                 ui.Int("cb", N_("query B column"), default=10, lo=0, hi=LAST_COL, hi_max=63),
                 ui.Bool("by_offset", N_("offsets dx, dy"), default=False),
             ))
def part_rope(v: ui.Values) -> None:
    ui.prose(_(
        "Instead of adding a code, RoPE rotates each (query, key) channel pair by an angle. In 2-D the angle "
        "depends on the column x and the row y. **Axial** RoPE (RoPE-ViT) gives half the pairs to x and half to "
        "y, base 100. **RoPE-Mixed** lets every pair turn along a direction in the plane: at initialisation each "
        "head draws a random angle φ and its pairs turn along φ and φ + 90° (base 10), then the directions are "
        "trained."))
    r = ui.controls("kind", HEAD_DIM, ROPE_BASE, "content", SEED, "head", where="main", columns=3)
    qq = ui.controls("ra", "ca", "rb", "cb", "by_offset", where="main", columns=5)
    qa, qb = (qq.ra, qq.ca), (qq.rb, qq.cb)
    ui.figure_panel(
        rope2d_two_queries, dict(height=v.H, width=v.W, dim=r.hd, kind=r.kind, base=r.rbase, seed=r.seed,
                                   head=r.head, content=r.content, row_a=qa[0], col_a=qa[1], row_b=qb[0],
                                   col_b=qb[1], by_offset=qq.by_offset),
        key="rope2d",
        live={"hd": "dim", "seed": "seed", "head": "head", "ra": "row_a", "ca": "col_a", "rb": "row_b", "cb": "col_b",
              "H": "height", "W": "width", "rbase": "base"},
        caption=_("What to notice: the two maps are the same picture shifted so each is centred on its own query; "
                  "turn on 'offsets dx, dy' and they line up cell for cell. Axial RoPE makes a plus-shaped pattern "
                  "(x and y are scored separately); a mixed head makes an oblique one along its random direction."),
        latex=r"a_k(x, y) = f^x_k\,x + f^y_k\,y,\qquad "
              r"\big(R_{a(p)}q\big)^{\!\top} R_{a(p')}k = q^{\top} R_{a(p') - a(p)}\,k",
        code=[rope2d.rope2d_scores, rope2d.rope_nd_rotate, rope2d.axial_rope_freqs, rope2d.mixed_rope_freqs],
    )
    gap = offset_gap(v.H, v.W, r.hd, qa, qb, r.kind, r.rbase, r.seed, r.head, r.content)
    ui.check(_("the score depends only on the offset (dx, dy): query A and query B agree at every shared offset"),
             ok=gap < 1e-9, detail=_("largest difference {gap:.1e}", gap=gap))
    if r.kind == "mixed":
        st.markdown(_("The directions the mixed heads turn along are drawn in part {part}.",
                      part=part_number("mixed")))


@lesson.part("mixed", N_("4b. RoPE-Mixed directions"), title=N_("4b. RoPE-Mixed: a random direction per head"),
             controls=(
                 HEAD_DIM,
                 ROPE_BASE,
                 SEED,
             ))
def part_mixed(v: ui.Values) -> None:
    r = ui.controls(where="main", columns=3)
    ui.prose(_("At initialisation each RoPE-Mixed head draws a random angle φ; half of its pairs turn along φ and "
               "half along φ + 90°, with the usual geometric ladder of speeds (the paper initialises with base 10; "
               "the control above is at {base:g}). Training then moves the directions.", base=r.rbase))
    ui.figure_panel(
        mixed_rope_directions, {"dim": r.hd, "num_heads": 4, "base": r.rbase, "seed": r.seed}, key="dirs",
        live={"hd": "dim", "seed": "seed", "rbase": "base"},
        caption=_("What to notice: each head's pairs lie on two perpendicular lines through the origin: one "
                  "random direction φ per head and its right angle. Axial RoPE is the special case φ = 0 "
                  "(the two coordinate axes)."),
        code=[rope2d.mixed_rope_freqs],
    )


# ---------------------------------------------------------------------------- 5. FLUX.1

@lesson.part("flux", N_("5a. FLUX.1 angles"), uses=("H", "W"),
             title=N_("5a. FLUX.1: three axes, and text at (0, 0, 0)"),
             controls=(
                 TEXT_TOKENS,
             ))
def part_flux(v: ui.Values) -> None:
    ui.prose(_(
        "FLUX.1 gives each token three ids and splits its 128-channel heads into axes of 16, 56 and 56 channels, "
        "each with its own RoPE frequencies (base 10000, normalised by the axis' width). Image patches get ids "
        "(0, row, column). Text tokens are all (0, 0, 0): their rotation angle is zero on every pair, so RoPE "
        "leaves them untouched, and their order comes only from the text encoder."))
    fx = ui.controls(where="main", columns=1)
    ui.figure_panel(
        flux_angles, {"height": v.H, "width": v.W, "n_text": fx.ntext, "patch_rows": 3}, key="flux_angles",
        live={"ntext": "n_text", "H": "height", "W": "width"},
        caption=_("What to notice: the text rows (above the red line) and patch (0, 0) are all zero, i.e. no "
                  "rotation. Patch rows change only in the blocks of their own axis: the row block steps once per "
                  "grid row, the column block once per patch."),
        latex=r"\omega_{a,k} = \theta^{-2k/d_a},\quad d = (16, 56, 56),\quad "
              r"\mathrm{ids}_{\mathrm{text}} = (0,0,0),\ \mathrm{ids}_{\mathrm{patch}} = (0, r, c)",
        code=[rope2d.flux_ids, rope2d.flux_rope_freqs, rope2d.flux_rope_angles],
    )


@lesson.part("flux_scores", N_("5b. FLUX.1 scores"), uses=("H", "W"),
             title=N_("5b. FLUX.1: every text token scores the same"),
             controls=(
                 TEXT_TOKENS,
                 ui.Choice("fq", N_("query token"), default="patch",
                           options={"patch": N_("an image patch"), "text": N_("text token 0")}),
                 ui.Int("fr", N_("query patch row"), default=2, lo=0, hi=LAST_ROW, hi_max=63),
                 ui.Int("fc", N_("query patch column"), default=3, lo=0, hi=LAST_COL, hi_max=63),
             ))
def part_flux_scores(v: ui.Values) -> None:
    ui.prose(_("With the ids of part {part}, score one query token against every text token and every image "
               "patch (q = k = all ones).", part=part_number("flux")))
    fx = ui.controls(where="main", columns=4)
    ui.figure_panel(
        flux_scores, {"height": v.H, "width": v.W, "n_text": fx.ntext, "query": fx.fq, "row": fx.fr, "col": fx.fc},
        key="flux_scores", live={"ntext": "n_text", "fr": "row", "fc": "col", "H": "height", "W": "width"},
        caption=_("What to notice: every text token scores exactly the same against the query, and so does patch "
                  "(0, 0), which shares their ids: RoPE cannot tell the text tokens apart or tell them from the "
                  "top-left patch."),
        code=[rope2d.flux_rope_scores, rope2d.rope_nd_scores],
    )


# ---------------------------------------------------------------------------- 6. M-RoPE (Qwen2-VL)

def sequence_of(q: ui.Values) -> tuple:
    """The segments the sequence controls describe (grids before the 2 × 2 merge, as transformers reads them)."""
    return sequence(**sequence_params(q))


def sequence_params(q: ui.Values) -> dict:
    return dict(n_text_before=q.mt1, image_h=q.mih, image_w=q.miw, n_text_mid=q.mt2, video_t=q.mvt, video_h=q.mvh,
                video_w=q.mvw, n_text_after=q.mt3)


@ui.cached
def mrope_ids_of(segments: tuple, variant: str, spg: float, text_after: str) -> np.ndarray:
    return mrope.mrope_position_ids(segments, variant=variant, second_per_grid_t=spg, text_after=text_after)


@lesson.part("mrope", N_("6a. M-RoPE ids"), title=N_("6a. M-RoPE (Qwen2-VL): three position ids per token"),
             controls=(
                 *MROPE_SEQUENCE,
                 ui.Choice("mvariant", N_("model"), default="qwen2_vl",
                           options={"qwen2_vl": N_("Qwen2-VL: a frame grid is one temporal step"),
                                    "qwen2_5_vl": N_("Qwen2.5-VL: temporal ids in seconds")}),
                 ui.Float("spg", N_("seconds per frame grid (Qwen2.5-VL)"), default=1.0, lo=0.25, hi=4.0, step=0.25,
                          help=N_("`second_per_grid_t` in the processor's output: two frames per grid, so 1 s "
                                  "at 2 frames per second.")),
                 ui.Choice("mafter", N_("the next segment starts at"), default="max_id",
                           options={"max_id": N_("largest id so far + 1 (as released; transformers 4.x)"),
                                    "spatial": N_("start + max(h', w') (transformers 5.x)")}),
             ))
def part_mrope(v: ui.Values) -> None:
    ui.prose(_(
        "Qwen2-VL reads text, images and videos in one sequence, and M-RoPE gives every token three position ids "
        "(temporal, height, width). A text token gets its index three times, so on text M-RoPE is plain RoPE. An "
        "image becomes a grid of tokens (2 × 2 patches merged into one): all its tokens share one temporal id, "
        "and their height and width ids count rows and columns from the same start. A video adds one temporal "
        "id per frame grid. Ids as transformers' `get_rope_index` computes them."))
    q = ui.controls(*MROPE_SEQUENCE, where="main", columns=4)
    m = ui.controls("mvariant", "spg", "mafter", where="main", columns=3)
    segs = sequence_of(q)
    ids = mrope_ids_of(segs, m.mvariant, m.spg, m.mafter)
    ui.numbers({_("tokens N"): ids.shape[1], _("largest id"): int(ids.max()), _("next generated token's id"):
                int(ids.max()) + 1, _("rope delta (max id + 1 − N)"): mrope.rope_delta(ids)}, fmt="{:,}")
    ui.figure_panel(
        mrope_ids, {**sequence_params(q), "variant": m.mvariant, "second_per_grid_t": m.spg, "text_after": m.mafter},
        key="mrope_ids", live=MROPE_LINKS | {"spg": "second_per_grid_t"},
        caption=_("What to notice: {image} {video} In all, {tokens} tokens use ids 0 … {largest}, so generation "
                  "continues at {next}, not at {tokens}.", image=words.image_words(segs, ids),
                  video=words.video_words(segs, ids, m.mvariant, m.spg), tokens=f"{ids.shape[1]:,}",
                  largest=f"{int(ids.max()):,}", next=f"{int(ids.max()) + 1:,}"),
        latex=r"\text{text at } s{+}j:\ (s{+}j,\, s{+}j,\, s{+}j) \qquad \text{grid token } (k, r, c):\ "
              r"(s + \lfloor k\,\Delta \rfloor,\ s + r,\ s + c)",
        code=[mrope.mrope_position_ids, mrope.rope_delta],
    )
    ok, detail = words.starts_after_largest(segs, ids)
    ui.check(_("no segment reuses an id: each starts one past the largest id before it"), ok=ok, detail=detail)
    plain, gap, n_text = words.text_is_plain_rope(segs, ids)
    ui.check(_("on text tokens M-RoPE is 1-D RoPE: the three ids agree and pair k turns by p·θₖ"), ok=plain,
             detail=_("largest angle difference from plain RoPE {gap} rad over {tokens} text tokens",
                      gap=compact_number(gap), tokens=n_text))
    if m.mafter == "spatial" and not ok:
        st.markdown(_("transformers 5.x starts the next segment at start + max(h', w'), which ignores the frames: "
                      "after a video with more frames than rows and columns, text ids repeat the video's temporal "
                      "ids. The code Qwen released with the models uses the largest id + 1 rule."))


@lesson.part("mrope_pairs", N_("6b. M-RoPE pairs"), title=N_("6b. M-RoPE: which pairs turn with which id"),
             controls=(
                 *MROPE_SEQUENCE,
                 ui.LogFloat("mbase", N_("base b (`rope_theta`)"), default=1e6, lo=100.0, hi=1e7,
                             help=N_("Qwen2-VL and Qwen2.5-VL ship 1000000.")),
                 ui.Bool("minter", N_("interleaved sections (Qwen3-VL)"), default=False),
             ))
def part_mrope_pairs(v: ui.Values) -> None:
    ui.prose(_(
        "A head of 128 channels has 64 rotary pairs, and Qwen2-VL's `mrope_section` (16, 24, 24) splits them: "
        "pairs 0–15 turn with the temporal id, 16–39 with the height id, 40–63 with the width id. The section "
        "counts pairs (frequencies), not channels: transformers splits the 64 frequencies with it and copies "
        "them to both halves of `rotate_half`. Qwen3-VL interleaves the axes instead (t, h, w, t, h, w, …)."))
    q = ui.controls(*MROPE_SEQUENCE, where="main", columns=4)
    c = ui.controls("mbase", "minter", where="main", columns=2)
    segs = sequence_of(q)
    section = words.QWEN3_VL_SECTION if c.minter else mrope.MROPE_SECTION
    waves = mrope.axis_wavelengths(128, c.mbase, section, c.minter)
    ui.numbers({words.axis_wavelength_label(axis): f"{lo:,.3g} – {hi:,.3g}" for axis, (lo, hi) in waves.items()})
    spread = section_spread(segs, c.mbase, c.minter)
    ui.figure_panel(
        mrope_pair_angles, {**sequence_params(q), "base": c.mbase, "interleaved": c.minter}, key="mrope_pairs",
        live=MROPE_LINKS | {"mbase": "base"},
        caption=_("What to notice: inside the image the temporal pairs do not move at all (spread {temporal:.3g} "
                  "rad: one temporal id), while the height pairs spread by up to {height:.3g} rad and the width "
                  "pairs by up to {width:.3g} rad. {layout}", temporal=spread["temporal"], height=spread["height"],
                  width=spread["width"], layout=words.section_layout_words(waves, c.minter)),
        latex=r"\text{angle}_k = \mathrm{id}_{\mathrm{axis}(k)}\,\theta_k,\quad \theta_k = b^{-2k/128},\quad "
              r"\mathrm{axis}(k) = t,\ h,\ w \text{ for } k < 16,\ < 40,\ < 64",
        code=[mrope.mrope_angles, mrope.mrope_freqs, mrope.axis_wavelengths, mrope.axis_angle_spread],
    )


# ---------------------------------------------------------------------------- 7. pitfalls

def collision(v: ui.Values, mode: str) -> None:
    g = rope2d.transpose_gap(v.D, v.base, mode, 2, 5)
    ui.check(_("{mode} mode tells patch (2, 5) from patch (5, 2)", mode=mode), ok=g > 0,
             detail=f"|PE(2,5) − PE(5,2)| = {g:.4f}")


def flux_claim() -> None:
    spread = words.flux_text_spread(4)
    ui.check(_("FLUX.1 RoPE gives text tokens 0–3 different rotations"), ok=spread > 0,
             detail=_("largest angle difference between text tokens = {spread:g} rad", spread=spread))


def section_order(interleaved: bool) -> None:
    """Which id the first six pairs of Qwen3-VL's section [24, 20, 20] turn with, read chunked or interleaved."""
    got = words.section_axes(interleaved)
    claim = (_("read interleaved, pairs 0–5 turn with t h w t h w, as transformers' Qwen3-VL applies them")
             if interleaved else
             _("read as chunked blocks, pairs 0–5 turn with t h w t h w, as transformers' Qwen3-VL applies them"))
    ui.check(claim, ok=got == "t h w t h w", detail=_("they turn with {axes}", axes=got))


def mae_pitfall(v: ui.Values) -> None:
    """MAE's naming quirk, then the chart that shows it, the numbers it rests on and a check of the claim."""
    ui.pitfall(
        _("MAE's `emb_h` holds the column, not the row"),
        _("MAE's `get_2d_sincos_pos_embed` builds the grid with `meshgrid(grid_w, grid_h)`, so its first "
          "coordinate is the **column**; the half it encodes is then stored in a variable called `emb_h`. Asked "
          "about it [on the MAE repository](https://github.com/facebookresearch/mae/issues/18), Kaiming He "
          "replied that the naming of `emb_h` and `emb_w` looks \"not ideal (need to verify)\" and that renaming "
          "the two variables would give exactly the same table, while swapping the grid coordinates instead would "
          "change it and break the released checkpoints. The chart below moves one patch along a row and one patch "
          "down a column and shows which channels respond."),
        key="mae",
    )
    ui.figure_panel(
        mae_axis_response, {**grid_of(v), "combine": "mae"}, key="mae", live=GRID_LINKS,
        caption=_("What to notice: moving along a row (column index +1) changes only the first half, the one the "
                  "code calls emb_h; moving down a column changes only the second half. Each half is [sines | "
                  "cosines] of the same {quarter} frequencies, so the fast channels that change most sit at the "
                  "start of each quarter: channels 0 and {quarter} of the first half, {half} and {three_quarters} "
                  "of the second.", quarter=v.D // 4, half=v.D // 2, three_quarters=3 * v.D // 4),
        code=[rope2d.axis_response],
    )
    ui.numbers(words.mae_halves(v.H, v.W, v.D, v.base), fmt="{:.3f}")
    st.caption(_("Each number: the RMS change per one-patch step, averaged over that half's channels."))
    ok, detail = words.mae_halves_apart(v.H, v.W, v.D, v.base)
    ui.check(_("MAE's emb_h ignores a step down a column and emb_w a step along a row"), ok=ok, detail=detail)


def axis_pitfalls(v: ui.Values) -> None:
    """The pitfalls of the sin/cos codes: which half is which axis, where the codes came from, the add mode."""
    grid = grid_of(v)
    mae_pitfall(v)
    ui.pitfall(
        _("calling the row index x"),
        _("Some tutorials name the row (height) index x and the column y. RoPE-ViT, FLUX and most image code use x for "
          "the column (horizontal) and y for the row, and MAE's first half is the column, as the pitfall above shows. "
          "Mixing the conventions silently transposes a position table."),
        key="x",
        wrong=lambda: ui.figure_panel(
            mae_axis_response, {**grid, "combine": "concat"}, key="x_wrong", live=GRID_LINKS,
            caption=_("Row first, as code that calls the row x orders its axes: the first half ignores moves "
                      "along a row.")),
        right=lambda: ui.figure_panel(
            mae_axis_response, {**grid, "combine": "mae"}, key="x_right", live=GRID_LINKS,
            caption=_("MAE / RoPE-ViT convention: x is the column, and it comes first.")),
    )
    ui.pitfall(
        _("the original ViT did not use 2-D sin/cos"),
        _("It is sometimes said that the standard ViT applies two 1-D sin/cos codes to rows and columns. The "
          "original ViT (Dosovitskiy et al. 2020) **learned** a 1-D position embedding per patch; its authors found "
          "2-D variants no better. Fixed 2-D sin/cos codes came later, with MoCo v3 and MAE, and MAE's layout "
          "(part {part}) is the one most ViT code ships today.", part=part_number("grid")),
        key="vit",
    )
    ui.pitfall(
        _("the add mode collides transposed patches"),
        _("Adding a row code and a column code built from the **same** frequencies is symmetric: PE(r, c) = PE(c, r) "
          "for every pair, so the model cannot tell a patch from its mirror image across the diagonal. Concatenating "
          "(concat or MAE) keeps the axes in separate channels."),
        key="add",
        wrong=lambda: collision(v, "add"),
        right=lambda: collision(v, "mae"),
    )


def model_pitfalls() -> None:
    """The pitfalls of the models' own position ids: FLUX.1's text, Qwen2-VL's ids, Qwen3-VL's sections."""
    ui.pitfall(
        _("FLUX.1 text positions"),
        _("It is sometimes said that FLUX.1 encodes text positions as sequence information. In FLUX.1 every text "
          "token has ids (0, 0, 0), so RoPE rotates none of them: all order information in the text comes from the T5 "
          "encoder's own embeddings, not from RoPE (part {part} draws it).", part=part_number("flux")),
        key="flux",
        wrong=flux_claim,
        right=lambda: ui.figure_panel(flux_angles, {"height": 4, "width": 4, "n_text": 8}, key="flux_right",
                                      caption=_("The text rows are all zero: no rotation, whatever their order.")),
    )
    n_image, mrope_at, count_at = words.text_after_image()
    ui.pitfall(
        _("position ids 0 … N−1 for a Qwen2-VL sequence"),
        _("Code that builds position ids itself (sequence packing, a custom attention kernel, a port to another "
          "framework) can hand a Qwen2-VL model the ids a text model uses, 0 … N−1 on every axis. Then an image's "
          "tokens no longer share a temporal id or count rows and columns, and every text token after the image "
          "sits too far on: after the {tokens}-token image of part {part} the text starts at {counted} instead of "
          "{mrope}. On text alone the two agree, so a text-only test does not catch it.",
          tokens=n_image, part=part_number("mrope"), counted=count_at, mrope=mrope_at),
        key="mrope_ids",
        wrong=lambda: ui.figure_panel(mrope_ids, {"ids": "sequential"}, key="mrope_wrong",
                                      caption=_("0 … N−1 on every axis: the image is flattened into a line of text.")),
        right=lambda: ui.figure_panel(mrope_ids, {}, key="mrope_right",
                                      caption=_("M-RoPE: one temporal id per image, rows and columns from the "
                                                "same start, text resuming after the largest id.")),
    )
    ui.pitfall(
        _("reading mrope_section as chunked when the config says interleaved"),
        _("Qwen2-VL and Qwen2.5-VL give each axis one block of pairs (16 temporal, then 24 height, then 24 width). "
          "Qwen3-VL's config keeps an mrope_section ([24, 20, 20]) but adds `mrope_interleaved: true`: the axes "
          "take turns, pair by pair. Code that ignores the flag rotates {pairs} of the 64 pairs by the wrong id. "
          "Part {part} draws both layouts.", pairs=words.misread_pairs(), part=part_number("mrope_pairs")),
        key="mrope_sections",
        wrong=lambda: section_order(False),
        right=lambda: section_order(True),
    )


@lesson.part("pitfalls", N_("7. Pitfalls"), uses=GRID, aliases=("mae",), title=N_("7. Pitfalls"))
def pitfalls(v: ui.Values) -> None:
    axis_pitfalls(v)
    model_pitfalls()


lesson.run()
