"""What the 2-D encodings lesson says beside its figures, computed: which axis a channel follows and how fast, the
channels too slow to carry position, how MAE's two halves respond to a one-patch move, and the M-RoPE sequence's
ids in words with the numbers its checks and pitfalls quote. Every number comes from ``posviz.rope2d`` and
``posviz.mrope`` at the student's settings, the calls the figures draw from (docs/FORMULAS.md §3 and §4), so a
caption never says what the chart does not show. No figure is built here (``__all__`` is empty); no streamlit.
"""

from __future__ import annotations

import numpy as np

from posviz import mrope, rope2d
from posviz.figures.mrope import segment_spans, sequence
from posviz.figures.twod import axis_words
from posviz.i18n import N_, _
from posviz.rope import inv_freq
from posviz.scaling import mrope_axis

__all__: list[str] = []

# The formula each way of combining the axes draws (docs/FORMULAS.md §3.1-§3.2)
LATEX_2D = {
    "mae": r"\mathrm{MAE:}\ PE(r,c) = \big[\sin c\,\omega \,\big|\, \cos c\,\omega \,\big|\, \sin r\,\omega "
           r"\,\big|\, \cos r\,\omega\big],\quad \omega_k = b^{-4k/D},\ k < D/4",
    "concat": r"\mathrm{concat:}\ PE(r,c) = \big[\,\sin r\omega_0, \cos r\omega_0, \ldots \,\big|\, "
              r"\sin c\omega_0, \cos c\omega_0, \ldots\big],\quad \omega_k = b^{-4k/D},\ k < D/4",
    "add": r"\mathrm{add:}\ PE(r,c)_{2i} = \sin r\omega_i + \sin c\omega_i,\ "
           r"PE(r,c)_{2i+1} = \cos r\omega_i + \cos c\omega_i,\quad \omega_i = b^{-2i/D}",
}
QWEN3_VL_SECTION = (24, 20, 20)  # Qwen3-VL's mrope_section, read interleaved (mrope_interleaved: true)
AXIS_WAVELENGTHS = {"temporal": N_("temporal λ (ids)"), "height": N_("height λ (ids)"), "width": N_("width λ (ids)")}


def channel_words(d_model: int, base: float, combine: str, channel: int) -> str:
    """What one channel of the 2-D code follows, and how fast (wavelength 2π/ω patches), in words computed from
    the layout (``rope2d.sincos_2d_channel_info``)."""
    info = rope2d.sincos_2d_channel_info(d_model, base, combine)
    omega = float(info["omega"][channel])
    wave = (_("a wavelength of {wavelength:,.3g} patches", wavelength=2 * np.pi / omega) if omega > 0 else
            _("no change at all"))
    fixed = omega == float(rope2d.sincos_2d_channel_info(d_model, 2 * base, combine)["omega"][channel])
    values = dict(channel=channel, fn=info["fn"][channel], axis=axis_words(info["axis"][channel]), wave=wave)
    if fixed:
        return _("channel {channel} is {fn} of the {axis}, with {wave} whatever the base (its frequency is b⁰ = 1: "
                 "pick another channel to watch the base stretch the stripes)", **values)
    return _("channel {channel} is {fn} of the {axis}, with {wave}", **values)


def still_channels(height: int, width: int, d_model: int, base: float, combine: str) -> tuple[int, float]:
    """Channels whose angle ω·span changes by less than a quarter radian across the whole grid (span: the grid's
    extent along the channel's axis), and their share of D."""
    info = rope2d.sincos_2d_channel_info(d_model, base, combine)
    span = np.where(info["axis"] == "row", height - 1,
                    np.where(info["axis"] == "column", width - 1, max(height, width) - 1))
    still = int((info["omega"] * span < 0.25).sum())
    return still, still / d_model


def mae_halves(height: int, width: int, d_model: int, base: float) -> dict[str, float]:
    """MAE's two halves against a one-patch move: the RMS change per step (``rope2d.axis_response``) averaged over
    each half's channels, along a row and down a column."""
    resp = rope2d.axis_response(height, width, d_model, base, "mae")  # (2 moves, D)
    half = d_model // 2
    return {_("emb_h (1st half), along a row"): float(resp[0, :half].mean()),
            _("emb_h (1st half), down a column"): float(resp[1, :half].mean()),
            _("emb_w (2nd half), along a row"): float(resp[0, half:].mean()),
            _("emb_w (2nd half), down a column"): float(resp[1, half:].mean())}


def mae_halves_apart(height: int, width: int, d_model: int, base: float) -> tuple[bool, str]:
    """Whether MAE's ``emb_h`` ignores a step down a column and ``emb_w`` a step along a row, with the largest
    change each shows there."""
    resp = rope2d.axis_response(height, width, d_model, base, "mae")
    half = d_model // 2
    h_down, w_along = float(resp[1, :half].max()), float(resp[0, half:].max())
    return h_down == 0.0 and w_along == 0.0, _("largest change: emb_h down a column {down:.3g}, emb_w along a row "
                                               "{along:.3g}", down=h_down, along=w_along)


def flux_text_spread(n_text: int = 4) -> float:
    """The largest difference between the RoPE angles FLUX.1 gives its first ``n_text`` text tokens (ids
    (0, 0, 0) each: 0)."""
    angles = rope2d.flux_rope_angles(rope2d.flux_ids(1, 1, n_text))
    return float(abs(angles[:n_text] - angles[0]).max())


def section_axes(interleaved: bool, n_pairs: int = 6) -> str:
    """Which id ("t", "h", "w") the first ``n_pairs`` pairs of Qwen3-VL's section turn with, read interleaved or as
    chunked blocks (``posviz.scaling.mrope_axis``)."""
    return " ".join("thw"[a] for a in mrope_axis(QWEN3_VL_SECTION, interleaved)[:n_pairs])


def misread_pairs() -> int:
    """How many of the 64 pairs of Qwen3-VL's section turn with another id when the interleaved flag is ignored."""
    return int((mrope_axis(QWEN3_VL_SECTION, False) != mrope_axis(QWEN3_VL_SECTION, True)).sum())


def text_after_image() -> tuple[int, int, int]:
    """The default sequence's image size and where the text after it starts, with M-RoPE and with 0 … N−1."""
    segs = sequence()
    (_kind, a, b, _label), (_next, c, _last, _next_label) = segment_spans(segs)[1:3]
    return b - a + 1, int(mrope.mrope_position_ids(segs)[0, c]), int(mrope.sequential_position_ids(segs)[0, c])


def starts_after_largest(segments: tuple, ids: np.ndarray) -> tuple[bool, str]:
    """Whether every segment starts one past the largest id before it, and the first one that does not."""
    for _kind, a, _last, label in segment_spans(segments):
        if a and int(ids[:, a].min()) != int(ids[:, :a].max()) + 1:
            return False, _("{segment} starts at {start}, the ids before it reach {largest}", segment=label,
                            start=int(ids[:, a].min()), largest=int(ids[:, :a].max()))
    return True, _("{segments} segments, each starting one past the largest id before it",
                   segments=len(segment_spans(segments)))


def text_is_plain_rope(segments: tuple, ids: np.ndarray) -> tuple[bool, float, int]:
    """Whether M-RoPE acts on the text tokens as 1-D RoPE: their three ids agree and pair k turns by p·θ_k
    (θ_k = b^(−2k/128), Qwen2-VL's base); with the largest angle difference and the number of text tokens."""
    text = mrope.token_types(segments) == 0
    plain = ids[0, text][:, None] * inv_freq(128, mrope.QWEN2_VL_THETA)[None, :]  # (text tokens, 64): 1-D RoPE
    gap = float(np.abs(mrope.mrope_angles(ids)[text] - plain).max())
    return bool((ids[:, text] == ids[0, text]).all()) and gap == 0.0, gap, int(text.sum())


def image_angle_spread(segments: tuple, base: float, interleaved: bool) -> dict[str, float]:
    """For each axis, how far its pairs' angles spread across the image's tokens (``mrope.axis_angle_spread``)."""
    _kind, a, b, _label = segment_spans(segments)[1]
    ids = mrope.mrope_position_ids(segments)[:, a:b + 1]
    section = QWEN3_VL_SECTION if interleaved else mrope.MROPE_SECTION
    return mrope.axis_angle_spread(ids, 128, base, section, interleaved)


def image_words(segments: tuple, ids: np.ndarray) -> str:
    """The image's ids and where the text after it resumes, in words from the ids themselves."""
    (_kind, a, b, _label), (_next, c, _last, _next_label) = segment_spans(segments)[1:3]
    _image, _t, h, w = mrope.check_segments(segments)[1]
    img, start = ids[:, a:b + 1], int(ids[0, a])
    return _("The {h}×{w} image's {tokens} tokens all keep temporal id {temporal}; their height ids run "
             "{top}–{bottom} and their width ids {left}–{right}. The text after it resumes at {resume} = {start} + "
             "{step}: the image moves the position on by {step}, its larger side, although it holds {tokens} tokens.",
             h=h, w=w, tokens=b - a + 1, temporal=img[0, 0], top=img[1].min(), bottom=img[1].max(), left=img[2].min(),
             right=img[2].max(), resume=ids[0, c], start=start, step=ids[0, c] - start)


def video_words(segments: tuple, ids: np.ndarray, variant: str, spg: float) -> str:
    """The video's frame grids' temporal offsets, and the rule that gives them, in words from the ids."""
    spans = segment_spans(segments)
    if len(spans) < 5:
        return _("Set the video frames above 0 to add a video.")
    _kind, a, b, _label = spans[3]
    _video, t, h, w = mrope.check_segments(segments)[3]
    frames = ids[0, a:b + 1:h * w] - ids[0, a]  # the first token of every frame grid
    step = (_("one temporal id per frame grid (Qwen2-VL)") if variant == "qwen2_vl" else
            _("floor(k · {rate:g} tokens per second · {seconds:g} s) for frame grid k (Qwen2.5-VL)",
              rate=mrope.TOKENS_PER_SECOND, seconds=spg))
    shown = ", ".join(map(str, frames[:8])) + (", …" if frames.size > 8 else "")
    return _("The {t}×{h}×{w} video's frame grids get temporal offsets {offsets}: {rule}.", t=t, h=h, w=w,
             offsets=shown, rule=step)


def axis_wavelength_label(axis: str) -> str:
    """The label of an axis' range of wavelengths ("temporal λ (ids)"), ``axis`` a key of
    ``mrope.axis_wavelengths``."""
    return _(AXIS_WAVELENGTHS[axis])


def section_layout_words(waves: dict[str, tuple[float, float]], interleaved: bool) -> str:
    """What the section layout means for a small image: chunked, the width id gets only the slowest pairs (its
    wavelengths from ``mrope.axis_wavelengths``); interleaved, every axis has fast and slow pairs."""
    if interleaved:
        return _("Interleaved, every axis has fast and slow pairs, so the rows and columns of even a small image "
                 "turn the fast pairs by visible angles.")
    return _("Chunked, the temporal id gets only the fastest pairs and the width id only the slowest (wavelengths "
             "{shortest:,.3g} – {longest:,.3g} ids), so across a small image they barely turn; interleaving gives "
             "every axis fast and slow pairs.", shortest=waves["width"][0], longest=waves["width"][1])
