"""2D encodings: sin/cos on a grid of image patches, and RoPE in two (and three) dimensions."""

import streamlit as st

from posviz import rope2d, ui
from posviz.sinusoidal import sinusoidal_2d


@st.cache_data(max_entries=32, show_spinner=False)
def offset_gap(h: int, w: int, dim: int, a: tuple, b: tuple, kind: str, base: float, seed: int, head: int,
               content: str) -> float:
    return rope2d.rope2d_offset_gap(h, w, dim, a, b, kind, base, seed, head, content)


ui.setup_page(
    "2D encodings", icon="🖼️",
    intro="A vision transformer cuts an image into an H × W grid of patches, and each patch needs a position "
          "with two coordinates. You will see how sin/cos codes for the row and the column are combined, which "
          "patches end up looking alike, what happens when the grid is resized, and how RoPE rotates by a "
          "row and a column at once (including FLUX, where text tokens get no rotation at all).",
)

MODES = {"mae": "MAE (column | row, what ViT code ships)", "concat": "concat (row | column, seed 003)",
         "add": "add (row + column, seed 003)"}
LATEX_2D = {
    "mae": r"\mathrm{MAE:}\ PE(r,c) = \big[\sin c\,\omega \,\big|\, \cos c\,\omega \,\big|\, \sin r\,\omega "
           r"\,\big|\, \cos r\,\omega\big],\quad \omega_k = b^{-4k/D},\ k < D/4",
    "concat": r"\mathrm{concat:}\ PE(r,c) = \big[\,\sin r\omega_0, \cos r\omega_0, \ldots \,\big|\, "
              r"\sin c\omega_0, \cos c\omega_0, \ldots\big],\quad \omega_k = b^{-4k/D},\ k < D/4",
    "add": r"\mathrm{add:}\ PE(r,c)_{2i} = \sin r\omega_i + \sin c\omega_i,\ "
           r"PE(r,c)_{2i+1} = \cos r\omega_i + \cos c\omega_i,\quad \omega_i = b^{-2i/D}",
}

# Controls used by two parts of a pair (4a/4b, 5a/5b, 6a/6b): both parts draw the same control, so its
# value (and its URL parameter) carries over from one part to the other.
RESIZED_HEIGHT = ui.Int("nh", "grid used: height H' (patches)", default=20, lo=1, hi=64)
RESIZED_WIDTH = ui.Int("nw", "grid used: width W' (patches)", default=20, lo=1, hi=64)
RECOMPUTE = ui.Choice("recompute", "compare with", default="scaled",
                      options={"scaled": "formula at the same fractional positions",
                               "integer": "formula on the new integer grid"})
HEAD_DIM = ui.Int("hd", "head dim d", default=64, lo=4, hi=128, step=4,
                  help="A multiple of 4; capped at 128 (FLUX's head dim) to keep a 64 × 64 grid fast.")
ROPE_BASE = ui.LogFloat("rbase", "RoPE base", default=100.0, lo=2.0, hi=1e5, extra=(10.0, 100.0),
                        help="100 for axial RoPE-ViT; 10 for RoPE-Mixed's initial magnitudes.")
SEED = ui.Int("seed", "random seed", default=0, lo=0, hi=999)
TEXT_TOKENS = ui.Int("ntext", "text tokens shown", default=8, lo=0, hi=64)


def capped(value: int, hi: int, what: str) -> int:
    """Clamp a control to what the current grid allows, and say so."""
    if value > hi:
        st.caption(f"ℹ️ {what} is capped at {hi} for the current settings (asked for {value}).")
        return hi
    return value


# ---------------------------------------------------------------------------- 1. the patch grid

def part_grid(p: ui.Values, grid: dict) -> None:
    st.header("1a. The patch grid")
    st.markdown(
        "Each channel of the code is a function of **one** coordinate (or, in the add mode, the sum of one "
        "function of each). Drawn over the grid, a channel that follows the column makes vertical stripes and "
        "one that follows the row makes horizontal stripes. Row 0 is at the top, as in the image.")
    c = ui.controls(ui.Int("ch", "channel k", default=0, lo=0, hi=1023), where="main", columns=1)
    ui.figure_panel(
        "patch_channel", {**grid, "combine": p.combine, "channel": capped(c.ch, p.D - 1, "channel k")},
        key="channel",
        caption="What to notice: stripes run across the axis the channel ignores. Low channel numbers inside "
                "each half change every few patches (fast, local); high ones barely change across the whole "
                "grid (slow, global).",
        latex=LATEX_2D[p.combine],
        code=[sinusoidal_2d, rope2d.sincos_2d_channel_info],
    )


def part_multiples(p: ui.Values, grid: dict) -> None:
    st.header("1b. Sixteen channels at a glance")
    c = ui.controls(ui.Int("first", "first channel of the small multiples", default=0, lo=0, hi=1023, step=1),
                    ui.Bool("spread", "spread the 16 small multiples over all D channels", default=True),
                    where="main", columns=2)
    ui.figure_panel(
        "patch_channels", {**grid, "combine": p.combine, "first": capped(c.first, p.D - 1, "first channel"),
                           "n_channels": 16, "spread": c.spread},
        key="multiples",
        caption="What to notice: in MAE's layout the top two rows (the first half of the channels) are vertical "
                "stripes, they follow the column, and the bottom two rows horizontal ones; concat is the other way "
                "round. Within each block the stripes widen channel after channel (slower waves). In the add mode "
                "every channel mixes both axes into a pattern that is symmetric about the diagonal.",
        latex=LATEX_2D[p.combine],
        code=[rope2d.sincos_2d_channel_info],
    )


# ---------------------------------------------------------------------------- 2. similar patches

def part_similarity(p: ui.Values, grid: dict) -> None:
    st.header("2. Which patches look alike?")
    st.markdown("Pick a patch: each map shows the cosine similarity of its code to the code of every patch, for "
                "the three ways of combining the axes. The white star is your patch; the red circle sits on the "
                "transposed patch (row and column swapped).")
    q = ui.controls(ui.Int("row", "patch row r", default=2, lo=0, hi=63),
                    ui.Int("col", "patch column c", default=9, lo=0, hi=63), where="main", columns=2)
    row, col = capped(q.row, p.H - 1, "patch row"), capped(q.col, p.W - 1, "patch column")
    ui.figure_panel(
        "patch_similarity_modes", {**grid, "row": row, "col": col}, key="similarity",
        caption="What to notice: concat and MAE give the same picture (the same numbers, reordered), a cross "
                "along the patch's row and column. The add mode also lights up the transposed patch at "
                "exactly 1.000: patch (r, c) and patch (c, r) get identical codes.",
        latex=r"\mathrm{sim}(p, p') = \frac{PE(p)\cdot PE(p')}{\lVert PE(p)\rVert\,\lVert PE(p')\rVert}",
        code=[rope2d.patch_similarity],
    )
    gaps = {m: rope2d.transpose_gap(p.D, p.base, m, row, col) for m in ("add", "concat", "mae")}
    ui.numbers({f"|PE({row},{col}) − PE({col},{row})|, {m}": g for m, g in gaps.items()}, fmt="{:.4f}")
    ui.check(f"add mode: PE({row}, {col}) = PE({col}, {row}), transposed patches collide",
             ok=gaps["add"] == 0.0 and (row == col or gaps["concat"] > 0),
             detail=f"difference {gaps['add']:.1e} in add, {gaps['concat']:.3f} in concat")


# ---------------------------------------------------------------------------- 3. MAE's halves

def part_mae(p: ui.Values, grid: dict) -> None:
    st.header("3. MAE's naming quirk: the first half is the column")
    st.markdown(
        "MAE's `get_2d_sincos_pos_embed` builds the grid with `meshgrid(grid_w, grid_h)`, so its first "
        "coordinate is the **column**; the half it encodes is then stored in a variable called `emb_h`. Kaiming He "
        "confirmed the names are swapped (facebookresearch/mae issue 18) and kept the code so checkpoints stay "
        "valid. The chart moves one patch along a row and one patch down a column and shows which channels "
        "respond.")
    ui.figure_panel(
        "mae_axis_response", {**grid, "combine": "mae"}, key="mae",
        caption="What to notice: moving along a row (column index +1) changes only the first half, the one the "
                "code calls emb_h; moving down a column changes only the second half. Fast channels (left end of "
                "each half) change most.",
        code=[rope2d.axis_response],
    )
    resp = rope2d.axis_response(p.H, p.W, p.D, p.base, "mae")
    half = p.D // 2
    ui.numbers({"emb_h (1st half), along a row": float(resp[0, :half].mean()),
                "emb_h (1st half), down a column": float(resp[1, :half].mean()),
                "emb_w (2nd half), along a row": float(resp[0, half:].mean()),
                "emb_w (2nd half), down a column": float(resp[1, half:].mean())}, fmt="{:.3f}")
    st.caption("Each number: the RMS change per one-patch step, averaged over that half's channels.")


# ---------------------------------------------------------------------------- 4. resolution change

def resize_settings(p: ui.Values, rz: ui.Values) -> dict:
    return dict(old_height=p.H, old_width=p.W, new_height=rz.nh, new_width=rz.nw, d_model=p.D, base=p.base,
                combine=p.combine, recompute=rz.recompute)


def part_resize(p: ui.Values, grid: dict) -> None:
    st.header("4a. Changing the resolution")
    st.markdown(
        "A ViT trained on 224-pixel images with 16-pixel patches has a 14 × 14 grid. Fed 320-pixel images it "
        "sees 20 × 20 patches, so the stored position table is resized with bicubic interpolation "
        "(`torch.nn.functional.interpolate(mode=\"bicubic\", align_corners=False)`). For a fixed sin/cos table "
        "we can compare that with the formula itself. The trained grid is the sidebar's H × W.")
    rz = ui.controls(RESIZED_HEIGHT, RESIZED_WIDTH, RECOMPUTE,
                     ui.Int("rch", "channel shown", default=0, lo=0, hi=1023), where="main", columns=4)
    ui.figure_panel(
        "resize_channel", {**resize_settings(p, rz), "channel": capped(rz.rch, p.D - 1, "channel shown")},
        key="resize",
        caption="What to notice: slow channels survive interpolation almost exactly; the fastest ones (wavelength "
                "about 6 patches) are smoothed and err most at the borders, where bicubic has no neighbours. "
                "'Integer grid' instead shows that the resized table is a stretched copy, not the code of the "
                "new positions.",
        latex=r"\text{new patch } j \mapsto \text{old coordinate } (j + \tfrac12)\,\tfrac{H}{H'} - \tfrac12",
        code=[rope2d.resize_sincos_2d],
    )


def part_resize_error(p: ui.Values, grid: dict) -> None:
    st.header("4b. Where the resized table errs")
    st.markdown("The same bicubic resize as in part 4a, from the sidebar's H × W to H' × W', now over every "
                "patch and every channel at once.")
    rz = ui.controls(RESIZED_HEIGHT, RESIZED_WIDTH, RECOMPUTE, where="main", columns=3)
    ui.figure_panel(
        "resize_error_map", resize_settings(p, rz), key="resize_err",
        caption="What to notice: the error is concentrated on the grid's edges and in the first channels of each "
                "half (the fast ones). A fixed sin/cos table can simply be recomputed at the new size; a learned "
                "one has no formula to fall back on, so interpolation is all there is.",
        code=[rope2d.resize_error],
    )


# ---------------------------------------------------------------------------- 5. 2-D RoPE

def part_rope(p: ui.Values, grid: dict) -> None:
    st.header("5a. RoPE in two dimensions")
    st.markdown(
        "Instead of adding a code, RoPE rotates each (query, key) channel pair by an angle. In 2-D the angle "
        "depends on the column x and the row y. **Axial** RoPE (RoPE-ViT) gives half the pairs to x and half to "
        "y, base 100. **RoPE-Mixed** lets every pair turn along a direction in the plane: at initialisation each "
        "head draws a random angle φ and its pairs turn along φ and φ + 90° (base 10), then the directions are "
        "trained.")
    r = ui.controls(
        ui.Choice("kind", "2-D RoPE variant", default="axial",
                  options={"axial": "axial (RoPE-ViT)", "mixed": "mixed (RoPE-Mixed init)"}),
        HEAD_DIM, ROPE_BASE,
        ui.Choice("content", "query and key vectors", default="ones",
                  options={"ones": "q = k = all ones", "random": "random q, k (seeded)"}),
        SEED,
        ui.Int("head", "head", default=0, lo=0, hi=15),
        where="main", columns=3,
    )
    qq = ui.controls(
        ui.Int("ra", "query A row", default=3, lo=0, hi=63),
        ui.Int("ca", "query A column", default=3, lo=0, hi=63),
        ui.Int("rb", "query B row", default=9, lo=0, hi=63),
        ui.Int("cb", "query B column", default=10, lo=0, hi=63),
        ui.Bool("by_offset", "axes as offsets (dx, dy)", default=False),
        where="main", columns=5,
    )
    qa = (capped(qq.ra, p.H - 1, "query A row"), capped(qq.ca, p.W - 1, "query A column"))
    qb = (capped(qq.rb, p.H - 1, "query B row"), capped(qq.cb, p.W - 1, "query B column"))
    ui.figure_panel(
        "rope2d_two_queries", dict(height=p.H, width=p.W, dim=r.hd, kind=r.kind, base=r.rbase, seed=r.seed,
                                   head=r.head, content=r.content, row_a=qa[0], col_a=qa[1], row_b=qb[0],
                                   col_b=qb[1], by_offset=qq.by_offset),
        key="rope2d",
        caption="What to notice: the two maps are the same picture shifted so each is centred on its own query; "
                "turn on 'axes as offsets' and they line up cell for cell. Axial RoPE makes a plus-shaped pattern "
                "(x and y are scored separately); a mixed head makes an oblique one along its random direction.",
        latex=r"a_k(x, y) = f^x_k\,x + f^y_k\,y,\qquad "
              r"\big(R_{a(p)}q\big)^{\!\top} R_{a(p')}k = q^{\top} R_{a(p') - a(p)}\,k",
        code=[rope2d.rope2d_scores, rope2d.rope_nd_rotate, rope2d.axial_rope_freqs, rope2d.mixed_rope_freqs],
    )
    gap = offset_gap(p.H, p.W, r.hd, qa, qb, r.kind, r.rbase, r.seed, r.head, r.content)
    ui.check("the score depends only on the offset (dx, dy): query A and query B agree at every shared offset",
             ok=gap < 1e-9, detail=f"largest difference {gap:.1e}")
    if r.kind == "mixed":
        st.markdown("The directions the mixed heads turn along are drawn in part 5b.")


def part_mixed(p: ui.Values, grid: dict) -> None:
    st.header("5b. RoPE-Mixed: a random direction per head")
    st.markdown("At initialisation each RoPE-Mixed head draws a random angle φ; half of its pairs turn along φ "
                "and half along φ + 90°, with the usual geometric ladder of speeds (base 10). Training then moves "
                "the directions.")
    r = ui.controls(HEAD_DIM, ROPE_BASE, SEED, where="main", columns=3)
    ui.figure_panel(
        "mixed_rope_directions", {"dim": r.hd, "num_heads": 4, "base": r.rbase, "seed": r.seed}, key="dirs",
        caption="What to notice: each head's pairs lie on two perpendicular lines through the origin: one "
                "random direction φ per head and its right angle. Axial RoPE is the special case φ = 0 "
                "(the two coordinate axes).",
        code=[rope2d.mixed_rope_freqs],
    )


# ---------------------------------------------------------------------------- 6. FLUX.1

def part_flux(p: ui.Values, grid: dict) -> None:
    st.header("6a. FLUX.1: three axes, and text at (0, 0, 0)")
    st.markdown(
        "FLUX.1 gives each token three ids and splits its 128-channel heads into axes of 16, 56 and 56 channels, "
        "each with its own RoPE frequencies (base 10000, normalised by the axis' width). Image patches get ids "
        "(0, row, column). Text tokens are all (0, 0, 0): their rotation angle is zero on every pair, so RoPE "
        "leaves them untouched, and their order comes only from the text encoder.")
    fx = ui.controls(TEXT_TOKENS, where="main", columns=1)
    ui.figure_panel(
        "flux_angles", {"height": p.H, "width": p.W, "n_text": fx.ntext, "patch_rows": 3}, key="flux_angles",
        caption="What to notice: the text rows (above the red line) and patch (0, 0) are all zero, i.e. no "
                "rotation. Patch rows change only in the blocks of their own axis: the row block steps once per "
                "grid row, the column block once per patch.",
        latex=r"\omega_{a,k} = \theta^{-2k/d_a},\quad d = (16, 56, 56),\quad "
              r"\mathrm{ids}_{\mathrm{text}} = (0,0,0),\ \mathrm{ids}_{\mathrm{patch}} = (0, r, c)",
        code=[rope2d.flux_ids, rope2d.flux_rope_freqs, rope2d.flux_rope_angles],
    )


def part_flux_scores(p: ui.Values, grid: dict) -> None:
    st.header("6b. FLUX.1: every text token scores the same")
    st.markdown("With the ids of part 6a, score one query token against every text token and every image patch "
                "(q = k = all ones).")
    fx = ui.controls(
        TEXT_TOKENS,
        ui.Choice("fq", "query token", default="patch", options={"patch": "an image patch", "text": "text token 0"}),
        ui.Int("fr", "query patch row", default=2, lo=0, hi=63),
        ui.Int("fc", "query patch column", default=3, lo=0, hi=63),
        where="main", columns=4,
    )
    ui.figure_panel(
        "flux_scores", {"height": p.H, "width": p.W, "n_text": fx.ntext, "query": fx.fq,
                        "row": capped(fx.fr, p.H - 1, "query patch row"),
                        "col": capped(fx.fc, p.W - 1, "query patch column")},
        key="flux_scores",
        caption="What to notice: every text token scores exactly the same against the query, and so does patch "
                "(0, 0), which shares their ids: RoPE cannot tell the text tokens apart or tell them from the "
                "top-left patch.",
        code=[rope2d.flux_rope_scores, rope2d.rope_nd_scores],
    )


# ---------------------------------------------------------------------------- pitfalls, under every part

def collision(p: ui.Values, mode: str) -> None:
    g = rope2d.transpose_gap(p.D, p.base, mode, 2, 5)
    ui.check(f"{mode} mode tells patch (2, 5) from patch (5, 2)", ok=g > 0, detail=f"|PE(2,5) − PE(5,2)| = {g:.4f}")


def flux_claim() -> None:
    ids = rope2d.flux_ids(1, 1, 4)
    angles = rope2d.flux_rope_angles(ids)
    spread = float(abs(angles[:4] - angles[0]).max())
    ui.check("FLUX.1 RoPE gives text tokens 0–3 different rotations", ok=spread > 0,
             detail=f"largest angle difference between text tokens = {spread:g} rad")


def pitfalls(p: ui.Values, grid: dict) -> None:
    st.header("Pitfalls")
    ui.pitfall(
        "the original ViT did not use 2-D sin/cos (seed 003)",
        "Seed 003 says the standard ViT applies two 1-D sin/cos codes to rows and columns. The original ViT "
        "(Dosovitskiy et al. 2020) **learned** a 1-D position embedding per patch; its authors found 2-D variants "
        "no better. Fixed 2-D sin/cos codes came later, with MoCo v3 and MAE, and that is the layout (part 3) "
        "most ViT code ships today.",
        key="vit",
    )
    ui.pitfall(
        "seed 003 calls the row index x",
        "Seed 003 names the row (height) index x and the column y. RoPE-ViT, FLUX and most image code use x for "
        "the column (horizontal) and y for the row, and MAE's first half is the column. Mixing the conventions "
        "silently transposes a position table.",
        key="x",
        wrong=lambda: ui.figure_panel(
            "mae_axis_response", {**grid, "combine": "concat"}, key="x_wrong",
            caption="Seed 003's concat: the row (its x) comes first, so the first half ignores moves along a row."),
        right=lambda: ui.figure_panel(
            "mae_axis_response", {**grid, "combine": "mae"}, key="x_right",
            caption="MAE / RoPE-ViT convention: x is the column, and it comes first."),
    )
    ui.pitfall(
        "the add mode collides transposed patches",
        "Adding a row code and a column code built from the **same** frequencies is symmetric: PE(r, c) = PE(c, r) "
        "for every pair, so the model cannot tell a patch from its mirror image across the diagonal. Concatenating "
        "(concat or MAE) keeps the axes in separate channels.",
        key="add",
        wrong=lambda: collision(p, "add"),
        right=lambda: collision(p, "mae"),
    )
    ui.pitfall(
        "FLUX.1 text positions (seed 003)",
        "Seed 003 says FLUX.1 encodes text positions as sequence information. In FLUX.1 every text token has "
        "ids (0, 0, 0), so RoPE rotates none of them: all order information in the text comes from the T5 "
        "encoder's own embeddings, not from RoPE (part 6 draws it).",
        key="flux",
        wrong=flux_claim,
        right=lambda: ui.figure_panel("flux_angles", {"height": 4, "width": 4, "n_text": 8}, key="flux_right",
                                      caption="The text rows are all zero: no rotation, whatever their order."),
    )


# One chart per part, so that a slider move redraws one chart. The parts split in two keep their old key
# for the first half, so links shared before the split still open the same chart.
PARTS = {"grid": ("1a · patch grid", part_grid), "multiples": ("1b · small multiples", part_multiples),
         "similarity": ("2 · similar patches", part_similarity), "mae": ("3 · MAE's halves", part_mae),
         "resize": ("4a · resolution change", part_resize), "resize_error": ("4b · resize error", part_resize_error),
         "rope": ("5a · 2-D RoPE", part_rope), "mixed": ("5b · RoPE-Mixed directions", part_mixed),
         "flux": ("6a · FLUX.1 angles", part_flux), "flux_scores": ("6b · FLUX.1 scores", part_flux_scores)}


def lesson() -> None:
    """The grid settings, the choice of part, that part, and the pitfalls."""
    p = ui.controls(
        ui.Int("H", "grid height H (patches)", default=14, lo=1, hi=64,
               help="Rows of patches. Non-square grids are fine; capped at 64 so every redraw stays fast."),
        ui.Int("W", "grid width W (patches)", default=14, lo=1, hi=64, help="Columns of patches (capped at 64)."),
        ui.Int("D", "encoding width D", default=64, lo=4, hi=1024, step=4,
               help="Channels of the position code, a multiple of 4: two axes × (sin, cos) pairs. Capped at 1024."),
        ui.LogFloat("base", "base b", default=10000.0, lo=10.0, hi=1e6),
        ui.Choice("combine", "combine the two axes", default="mae", options=MODES, widget="radio"),
    )
    grid = dict(height=p.H, width=p.W, d_model=p.D, base=p.base)
    part = ui.choose_part({key: label for key, (label, _) in PARTS.items()}, default="grid",
                          help="The pitfalls are at the bottom of every part.")
    PARTS[part][1](p, grid)
    pitfalls(p, grid)


ui.lesson(lesson)
