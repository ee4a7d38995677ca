"""Plotly templates and colour scales for posviz figures.

Three registered templates: ``posviz_light`` and ``posviz_dark`` match the app's Streamlit themes
(.streamlit/config.toml); ``posviz_blog`` is the light one with a white background and larger type for
figures exported into articles. ``style`` applies one to a figure, plus presenter mode (bigger fonts,
thicker lines, larger markers) and an optional transparent background. Every figure that leaves posviz
goes through ``style``: importing streamlit replaces plotly's default template with placeholder colours
(#000001...) that only the browser app understands, so we never rely on the default.
"""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

from posviz._speed import set_template_fast

THEMES = ("light", "dark", "blog")
FONT = "Inter, 'Source Sans 3', 'Helvetica Neue', Arial, 'DejaVu Sans', sans-serif"

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
                title=dict(standoff=8), ticklabeloverflow="allow")
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
        data=dict(heatmap=[go.Heatmap(colorbar=dict(outlinewidth=0, ticklabeloverflow="allow"))]),
    )


for _name, _pal in _PALETTES.items():
    pio.templates[f"posviz_{_name}"] = _template(**_pal)
_TEMPLATE_JSON = {name: pio.templates[f"posviz_{name}"].to_plotly_json() for name in _PALETTES}


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


def _scaled_fonts(obj: object, factor: float, default: float) -> object:
    """A copy of the plain-JSON ``obj`` keeping only font sizes, each multiplied by ``factor`` (a font
    without a size gets ``default`` × factor). Paths without fonts are dropped, so the result is a small
    patch for ``update_layout`` / ``trace.update``."""
    if isinstance(obj, list):
        items = [_scaled_fonts(x, factor, default) for x in obj]
        return items if any(items) else None
    if not isinstance(obj, dict):
        return None
    out = {}
    for key, value in obj.items():
        if key == "template":
            continue
        if key.endswith("font") and isinstance(value, dict):
            out[key] = {"size": round((value.get("size") or default) * factor, 1)}
        else:
            sub = _scaled_fonts(value, factor, default)
            if sub:
                out[key] = sub
    return out or None


def _enlarge(fig: go.Figure, base_size: int, k: float = PRESENTER_SCALE) -> None:
    """Presenter mode, readable from the back of a room: every font ×k (the base font, titles, ticks,
    annotations, legends, colour bars, hover labels, text traces, table cells, slider and buttons; k = 1.5
    unless the window is narrow), the margins ×k so the larger labels still fit, line widths ×2, marker
    sizes ×1.6."""
    tpl = fig.layout.template.layout
    layout = fig.layout.to_plotly_json()
    patch = _scaled_fonts(layout, k, base_size) or {}
    old = {side: getattr(fig.layout.margin, side) or getattr(tpl.margin, side) or 0 for side in ("l", "r", "t", "b")}
    margin = {side: round(v * k) for side, v in old.items()}
    title_size = fig.layout.title.font.size or tpl.title.font.size or base_size + 4
    # the plot keeps its height: the figure grows by what the top and bottom margins grew
    height = (fig.layout.height or 450) + margin["t"] + margin["b"] - old["t"] - old["b"]
    fig.update_layout(patch, font_size=round(base_size * k), margin=margin, title_font_size=round(title_size * k),
                      hoverlabel_font_size=round(13 * k), height=height)
    # legends, buttons and sliders placed in the margins (paper y < 0 or > 1) move out with the larger text
    for item in [fig.layout.legend, *fig.layout.updatemenus, *fig.layout.sliders]:
        if item.y is not None and (getattr(item, "yref", None) or "paper") == "paper" and not 0 <= item.y <= 1:
            item.y = item.y * k if item.y < 0 else 1 + (item.y - 1) * k
    _widen_player(fig, k)
    _player_on_top(fig, k)
    traces = list(fig.data) + [t for fr in (fig.frames or ()) for t in fr.data]
    for trace in fig.data:
        fonts = {key: trace[key] for key in ("textfont", "header", "cells", "marker", "colorbar") if key in trace}
        scaled = _scaled_fonts({k2: v.to_plotly_json() for k2, v in fonts.items()}, k, base_size)
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
