"""Plotly templates and colour scales for posviz figures.

Three registered templates: ``posviz_light`` and ``posviz_dark`` match the app's Streamlit themes
(.streamlit/config.toml); ``posviz_blog`` is the light one with a white background and larger type for
figures exported into articles. ``style`` applies one to a figure, plus presenter mode (bigger fonts,
thicker lines, larger markers) and an optional transparent background. Every figure that leaves posviz
goes through ``style``: importing streamlit replaces plotly's default template with placeholder colours
(#000001...) that only the browser app understands, so we never rely on the default.
"""

from __future__ import annotations

import functools
import math
import re
import shutil
import subprocess

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from posviz._speed import set_template_fast

THEMES = ("light", "dark", "blog")
# Chinese text: the first font with CJK glyphs after the Latin ones (what fonts-noto-cjk installs); the browser
# takes each character from the first font of the list that has it, so English renders exactly as before.
CJK_FONT = "Noto Sans CJK SC"
FONT = f"Inter, 'Source Sans 3', 'Helvetica Neue', Arial, 'DejaVu Sans', '{CJK_FONT}', sans-serif"

# Okabe–Ito-inspired qualitative palette: distinguishable with the common colour-vision deficiencies.
COLORS = ["#4f46e5", "#e69f00", "#009e73", "#d55e00", "#56b4e9", "#cc79a7", "#8c8c00", "#0072b2",
          "#b2182b", "#6a3d9a"]
DIVERGING = [[0.0, "#2166ac"], [0.25, "#67a9cf"], [0.5, "#f7f7f7"], [0.75, "#ef8a62"], [1.0, "#b2182b"]]
DIVERGING_DARK = [[0.0, "#4393c3"], [0.25, "#2b4c6f"], [0.5, "#1b1e2b"], [0.75, "#7a3b2e"], [1.0, "#e0694f"]]
SEQUENTIAL = "Viridis"
# One colour per context-extension method everywhere in the app (figures, tables, legends): no two
# methods share a hue family, so two curves in one legend are never told apart by shade alone.
METHOD_COLORS = {"default": "#8a8f9c", "linear": COLORS[1], "ntk": COLORS[2], "dynamic": COLORS[4],
                 "yarn": COLORS[0], "llama3": COLORS[5], "longrope": COLORS[6]}
CYCLIC = "Twilight"  # for angles mod 2π: the colour at 0 equals the colour at 2π

_PALETTES = {
    "light": dict(bg="#ffffff", plot="#ffffff", text="#1f2330", grid="#e6e8f0", zero="#b8bccb", size=14,
                  diverging=DIVERGING),
    "dark": dict(bg="#0f1117", plot="#0f1117", text="#e8e9f0", grid="#2a2e3d", zero="#4a5068", size=14,
                 diverging=DIVERGING_DARK),
    "blog": dict(bg="#ffffff", plot="#ffffff", text="#111111", grid="#e9e9e9", zero="#bdbdbd", size=16,
                 diverging=DIVERGING),
}


def _template(bg: str, plot: str, text: str, grid: str, zero: str, size: int, diverging: list) -> go.layout.Template:
    # ticklabeloverflow "allow": plotly's default for numeric axes ("hide past div") re-measures every
    # tick label each time one is placed (quadratic in labels, 90 ms of a CoPE redraw); with fixed margins
    # a label cannot reach past the figure anyway.
    axis = dict(gridcolor=grid, zerolinecolor=zero, linecolor=zero, ticks="outside", tickcolor=zero,
                title=dict(standoff=8), ticklabeloverflow="allow",
                exponentformat="power")  # 1×10⁻⁴, never plotly's SI "100μ" on a dimensionless error
    return go.layout.Template(
        layout=dict(
            font=dict(family=FONT, size=size, color=text),
            title=dict(font=dict(size=size + 4), x=0.0, xanchor="left", xref="paper"),
            paper_bgcolor=bg, plot_bgcolor=plot, colorway=COLORS,
            xaxis=axis, yaxis=axis,
            colorscale=dict(diverging=diverging, sequential=SEQUENTIAL, sequentialminus=SEQUENTIAL),
            legend=dict(bgcolor="rgba(0,0,0,0)"),
            hoverlabel=dict(font=dict(family=FONT)),
            margin=dict(l=72, r=30, t=64, b=60),  # fixed margins: automargin costs extra redraw passes
            polar=dict(bgcolor=plot, angularaxis=dict(gridcolor=grid, linecolor=zero),
                       radialaxis=dict(gridcolor=grid, linecolor=zero)),
        ),
        data=dict(heatmap=[go.Heatmap(colorbar=dict(outlinewidth=0, ticklabeloverflow="allow",
                                                     exponentformat="power"))]),
    )


for _name, _pal in _PALETTES.items():
    pio.templates[f"posviz_{_name}"] = _template(**_pal)
_TEMPLATE_JSON = {name: pio.templates[f"posviz_{name}"].to_plotly_json() for name in _PALETTES}


def compact_number(v: float) -> str:
    """A tick label written out in full and short: 20, 0.05, 10k, 2.5M, 1B (never a lone "2" or "9")."""
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:g}{suffix}"
    if 0 < abs(v) < 1e-3:
        k = math.log10(abs(v))
        if abs(k - round(k)) < 1e-9:  # 10⁻⁶ rather than 1e-06
            return "10" + _superscript(round(k))
        mantissa, exponent = f"{v:.1e}".split("e")
        return f"{float(mantissa):g}×10{_superscript(int(exponent))}"  # 2.5×10⁻⁵ rather than 2.5e-05
    return f"{v:g}"


def log_ticks(lo: float, hi: float, most: int = 7) -> dict:
    """``tickvals``/``ticktext`` of a log axis showing [lo, hi]: the powers of ten inside (every k-th when
    there are more than ``most``), plus 2× and 5× them when fewer than three powers fit. plotly's own log
    ticks label the minor ones with a bare digit ("2 3 4 … 9" stacked under "10k", "9" just under "1")."""
    lo, hi = max(min(lo, hi), 1e-300), max(lo, hi, 1e-300)
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    powers = [10.0 ** k for k in range(k0, k1 + 1) if lo * (1 - 1e-9) <= 10.0 ** k <= hi * (1 + 1e-9)]
    if len(powers) >= 3:
        vals = powers[::math.ceil(len(powers) / most)]
    else:
        vals = [m * 10.0 ** k for k in range(k0, k1 + 1) for m in (1, 2, 5)
                if lo * (1 - 1e-9) <= m * 10.0 ** k <= hi * (1 + 1e-9)]
        if len(vals) < 2:  # less than a factor 2 shown: the ends themselves
            vals = sorted({float(f"{lo:.2g}"), float(f"{hi:.2g}")})
    return dict(tickmode="array", tickvals=vals, ticktext=[compact_number(v) for v in vals])


_TAG = re.compile(r"(<[^>]*>)")
# a one-symbol name (a letter, possibly primed, not part of a longer word) and its index: θ_i, λ'_i, p_ij, d_h,
# q_(m+c), λ_(d/2−1); a code name (max_distance, npos_max, emb_h) has a longer stem or index and stays as typed
_SUBSCRIPT = re.compile(r"((?<![^\WᵀΔ])(?<!\[)[^\W\d_]'?|\])_(\([^()<>]{1,12}\)|[^\W_ᵀ]{1,3}(?![^\Wᵀ]|\())")
_E_NOTATION = re.compile(r"(?<![\w.#])(\d+(?:\.\d+)?)e([+-]?)(\d+)(?![\w.])")


def _power(m: re.Match) -> str:
    mantissa, sign, exponent = m.group(1), m.group(2), int(m.group(3))
    power = "10" + _superscript(-exponent if sign == "-" else exponent)
    return power if float(mantissa) == 1 else f"{mantissa}×{power}"


def typeset(text: str) -> str:
    """``text`` as a figure shows it: a math index as a subscript (θ_i → θ<sub>i</sub>, q_(m+c) →
    q<sub>m+c</sub>) and e-notation as a power of ten (1.49e+03 → 1.49×10³); tags and code names untouched."""
    if "_" not in text and "e" not in text:
        return text
    parts = _TAG.split(text)
    for i in range(0, len(parts), 2):  # even items are text, odd items tags
        seg = _SUBSCRIPT.sub(lambda m: f"{m.group(1)}<sub>{m.group(2).strip('()')}</sub>", parts[i])
        parts[i] = _E_NOTATION.sub(_power, seg)
    return "".join(parts)


def typeset_figure(fig: go.Figure) -> go.Figure:
    """``typeset`` every text a reader sees (in place, and returned): titles, axis titles and tick labels, notes,
    legend entries, colour bar titles, slider labels, text traces (also in animation frames); hover templates are
    left alone. ``posviz.export`` applies it to every exported image, animation and page."""
    layouts = [fig.layout, *(fr.layout for fr in (fig.frames or ()) if fr.layout is not None)]
    for layout in layouts:
        if layout.title.text:
            layout.title.text = typeset(layout.title.text)
        for key in [k for k in layout if k.startswith(("xaxis", "yaxis"))]:
            ax = layout[key]
            if ax.title.text:
                ax.title.text = typeset(ax.title.text)
            if ax.ticktext is not None:
                ax.ticktext = [typeset(str(s)) for s in ax.ticktext]
        for note in layout.annotations or ():
            if note.text:
                note.text = typeset(note.text)
        if layout.legend.title.text:
            layout.legend.title.text = typeset(layout.legend.title.text)
    for slider in fig.layout.sliders:
        for step in slider.steps:
            if step.label:
                step.label = typeset(step.label)
    for trace in [*fig.data, *(t for fr in (fig.frames or ()) for t in fr.data)]:
        if getattr(trace, "name", None):
            trace.name = typeset(trace.name)
        text = getattr(trace, "text", None)
        if isinstance(text, str):
            trace.text = typeset(text)
        elif isinstance(text, (tuple, list)) and len(text) <= 512 and all(isinstance(s, str) for s in text):
            trace.text = [typeset(s) for s in text]
        for bar in (getattr(trace, "colorbar", None), getattr(getattr(trace, "marker", None), "colorbar", None)):
            if bar is not None and bar.title.text:
                bar.title.text = typeset(bar.title.text)
    return fig


def _superscript(n: int) -> str:
    return str(n).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _axis_data(fig: go.Figure, letter: str, ref: str) -> np.ndarray:
    """The finite positive values the traces on axis ``ref`` ("x", "y2", ...) plot along ``letter``."""
    vals = []
    for trace in fig.data:
        if (getattr(trace, f"{letter}axis", None) or letter) != ref:
            continue
        data = getattr(trace, letter, None)
        if data is not None:
            arr = np.asarray(data, dtype=float).ravel() if np.asarray(data).dtype.kind in "fiu" else np.zeros(0)
            vals.append(arr)
    data = np.concatenate(vals) if vals else np.zeros(0)
    return data[np.isfinite(data) & (data > 0)]


def _readable_log_axes(fig: go.Figure) -> None:
    """Every log axis without ticks of its own gets ``log_ticks`` over its range (else its data): plotly's own
    label the 2s and 5s between powers of ten in a font a quarter smaller, crowded and too small to read."""
    layout = fig.layout
    for key in [k for k in layout if k.startswith(("xaxis", "yaxis"))]:
        ax = layout[key]
        own = ax.dtick is not None and ax.dtick not in ("D1", "D2")  # "D1"/"D2": plotly's small digits
        if ax.type != "log" or ax.tickvals is not None or own or ax.tickmode == "array":
            continue
        if ax.range is not None:
            lo, hi = 10.0 ** np.asarray(ax.range, dtype=float)
        else:
            data = _axis_data(fig, key[0], key[0] + key[5:])
            if not data.size:
                continue
            lo, hi = float(data.min()), float(data.max())
        ax.update(log_ticks(lo, hi), dtick=None)


def _set_template(fig: go.Figure, theme: str) -> None:
    """Put the theme's template on ``fig`` (the fast path of posviz._speed)."""
    set_template_fast(fig, _TEMPLATE_JSON[theme], f"posviz_{theme}")


def background(theme: str = "light") -> str:
    """The page and figure background colour of ``theme`` (the app's .streamlit/config.toml uses the same)."""
    return _PALETTES[theme]["bg"]


def diverging(theme: str = "light") -> list:
    """The diverging colour scale for values centred at 0 (sin/cos, scores) in ``theme``."""
    return _PALETTES.get(theme, _PALETTES["light"])["diverging"]


def style(fig: go.Figure, theme: str = "light", presenter: bool | float = False,
          transparent: bool = False) -> go.Figure:
    """Apply a posviz template to ``fig`` (in place, and returned), optionally in presenter mode: ``True`` for
    fonts ×PRESENTER_SCALE, or the font scale itself (a number ≥ 1; 0 is off)."""
    if theme not in THEMES:
        raise ValueError(f"theme must be one of {', '.join(THEMES)}; got {theme!r}")
    _set_template(fig, theme)
    _readable_log_axes(fig)
    if theme == "dark":  # heatmaps built with the light diverging scale follow the theme
        for trace in fig.data:
            if getattr(trace, "colorscale", None) is not None and trace.meta == "diverging":
                trace.colorscale = diverging("dark")
    k = PRESENTER_SCALE if presenter is True else float(presenter or 0)
    if k:
        if not 1.0 <= k <= 3.0:
            raise ValueError(f"presenter must be True, False or a font scale in [1, 3]; got {presenter!r}")
        _enlarge(fig, _PALETTES[theme]["size"], k)
    if transparent:
        fig.update_layout(paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)")
    return fig


PRESENTER_SCALE = 1.5  # presenter mode: every font and every margin grows by this factor


def _widen_player(fig: go.Figure, k: float) -> None:
    """Presenter mode: Play/Pause buttons on the row of an animation slider grow with their font, so the slider
    starts ``k`` times as far from the buttons' left edge (it ends where it ended); else the larger buttons
    cover the slider's first stops and its thumb."""
    for menu in fig.layout.updatemenus:
        for slider in fig.layout.sliders:
            if menu.type != "buttons" or menu.y != slider.y or slider.x is None or (menu.x or 0) >= slider.x:
                continue
            end = slider.x + (slider.len if slider.len is not None else 1.0)
            slider.x = (menu.x or 0) + (slider.x - (menu.x or 0)) * k
            slider.len = max(end - slider.x, 0.1)


PLAYER_ROW = 60  # px at the base font: an animation's Play/Pause buttons and frame slider with its tick labels
PLAYER_GAP = 28  # px at the base font between that row, moved above the plot, and the plot's top edge


def _player_on_top(fig: go.Figure, k: float) -> None:
    """Presenter mode: an animation's Play/Pause buttons and frame slider, where they hang under the plot, move
    above it, so that on a projector they are on the screen with the top of the figure rather than below the
    fold, and playing moves nothing on the page. The top margin takes the row and the bottom margin gives back
    what it can: the plot keeps its height."""
    row = [*fig.layout.updatemenus, *fig.layout.sliders]
    if not fig.frames or not row or any(item.y is None or item.y >= 0 for item in row):
        return
    gap = round(PLAYER_GAP * k)  # status text at the plot's top edge (a frame's caption) reaches above it
    height = round(PLAYER_ROW * k) + gap
    for item in row:
        item.update(y=1.0, yanchor="bottom", pad_b=gap)
    top, bottom = fig.layout.margin.t or 0, fig.layout.margin.b or 0
    kept = max(bottom - height, round(20 * k))  # the bottom margin keeps room for what else hangs there
    fig.update_layout(margin_t=top + height, margin_b=kept, height=fig.layout.height + height - (bottom - kept))


def _scaled_fonts(obj: object, factor: float, default: float, floor: float = 0.0) -> object:
    """A copy of the plain-JSON ``obj`` keeping only font sizes, each multiplied by ``factor`` and raised to at
    least ``floor`` px (a font without a size gets ``default`` × factor). Paths without fonts are dropped, so the
    result is a small patch for ``update_layout`` / ``trace.update``."""
    if isinstance(obj, list):
        items = [_scaled_fonts(x, factor, default, floor) for x in obj]
        return items if any(items) else None
    if not isinstance(obj, dict):
        return None
    out = {}
    for key, value in obj.items():
        if key == "template":
            continue
        if key.endswith("font") and isinstance(value, dict):
            out[key] = {"size": max(round((value.get("size") or default) * factor, 1), floor)}
        else:
            sub = _scaled_fonts(value, factor, default, floor)
            if sub:
                out[key] = sub
    return out or None


PRESENTER_MIN_FONT = 14  # px: presenter mode's smallest figure text, whatever the scale (a chip, a tick, a note)
SUP_SHRINK = 0.7  # plotly.js draws <sup>/<sub> text at this fraction of its line's font
_SUBTITLE = re.compile(r"<br><sup>(.*?)</sup>", re.S)


def _readable_subtitle(text: object, size: float, floor: float) -> object:
    """A title's or note's ``<br><sup>`` second line (``posviz.figures._common.subtitled``) as a line of at least
    ``floor`` px: plotly.js draws <sup> at SUP_SHRINK of the font, 12.6 px under an 18 px title."""
    if not isinstance(text, str) or "<sup>" not in text or size * SUP_SHRINK >= floor:
        return text
    return _SUBTITLE.sub(lambda m: f'<br><span style="font-size:{floor:g}px">{m.group(1)}</span>', text)


def _enlarge(fig: go.Figure, base_size: int, k: float = PRESENTER_SCALE) -> None:
    """Presenter mode, readable from the back of a room: the whole figure magnified ×k (k = 1.5 where the window
    gives the chart 1.5 times its width, less in a narrower one): every font (the base font, titles, ticks,
    annotations, legends, colour bars, hover labels, text traces, table cells, slider and buttons), the margins
    and the plot's height, so that a chart k times as wide keeps its shape; no text under PRESENTER_MIN_FONT px
    even at ×1 (a token chip, a clock's label, a subtitle line); line widths ×2, marker sizes ×1.6."""
    tpl = fig.layout.template.layout
    layout = fig.layout.to_plotly_json()
    floor = PRESENTER_MIN_FONT
    patch = _scaled_fonts(layout, k, base_size, floor) or {}
    old = {side: getattr(fig.layout.margin, side) or getattr(tpl.margin, side) or 0 for side in ("l", "r", "t", "b")}
    margin = {side: round(v * k) for side, v in old.items()}
    title_size = max(round((fig.layout.title.font.size or tpl.title.font.size or base_size + 4) * k), floor)
    plot = (fig.layout.height or 450) - old["t"] - old["b"]
    fig.update_layout(patch, font_size=max(round(base_size * k), floor), margin=margin, title_font_size=title_size,
                      hoverlabel_font_size=max(round(13 * k), floor),
                      height=round(plot * k) + margin["t"] + margin["b"])
    fig.layout.title.text = _readable_subtitle(fig.layout.title.text, title_size, floor)
    for note in fig.layout.annotations:
        note.text = _readable_subtitle(note.text, note.font.size or fig.layout.font.size, floor)
    _widen_player(fig, k)
    _player_on_top(fig, k)
    traces = list(fig.data) + [t for fr in (fig.frames or ()) for t in fr.data]
    # a frame's own text font would undo the larger one as it plays: those are scaled too
    own_font = [t for fr in (fig.frames or ()) for t in fr.data if getattr(t, "textfont", None) and t.textfont.size]
    for trace in [*fig.data, *own_font]:
        fonts = {key: trace[key] for key in ("textfont", "header", "cells", "marker", "colorbar") if key in trace}
        scaled = _scaled_fonts({k2: v.to_plotly_json() for k2, v in fonts.items()}, k, base_size, floor)
        if scaled:
            trace.update(scaled)
    for trace in traces:
        line = getattr(trace, "line", None)
        if line is not None and trace.type in ("scatter", "scatterpolar", "scattergl"):
            line.width = (line.width or 2) * 2
        marker = getattr(trace, "marker", None)
        if marker is not None and trace.type in ("scatter", "scatterpolar", "scattergl"):
            size = marker.size
            if isinstance(size, (int, float)):
                marker.size = size * 1.6
            elif size is None:
                marker.size = 10


@functools.cache
def cjk_font_installed() -> bool:
    """Whether fontconfig knows a font with Chinese glyphs (``fc-list :lang=zh``), which exports of figures with
    Chinese text need (:data:`CJK_FONT` or any other); True where fontconfig cannot be asked (not Linux: the
    system's own fonts cover Chinese)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return True
    try:
        found = subprocess.run([fc_list, ":lang=zh", "family"], capture_output=True, text=True, timeout=10,
                               check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return True
    return bool(found.strip())
