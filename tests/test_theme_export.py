"""Themes and exports: right colours (never Streamlit's placeholders), right sizes, valid files.

Every figure's SVG (size, theme colours, no placeholder colour) is checked by tests/test_figure_text_layout.py;
PDF, SVG, GIF and MP4 files through the command line by tests/test_cli.py.
"""

from __future__ import annotations

import json

import imageio.v3 as iio
import numpy as np
import plotly.graph_objects as go
import pytest

from posviz import export
from posviz.figures import FIGURES, build
from posviz.theme import PLAYER_GAP, PLAYER_ROW, PRESENTER_SCALE, style
from testkit.browser import need_browser

pytestmark = pytest.mark.render


def test_style_ignores_streamlit_default_template():
    import plotly.io as pio
    import streamlit  # noqa: F401  (sets pio.templates.default to its placeholder template)

    assert pio.templates.default == "streamlit"
    fig = style(build("sinusoidal_waves"), "light")
    html = export.html_bytes(fig)
    assert b"#000001" not in html and b"#ffffff" in html  # posviz's light paper colour, not a placeholder
    assert fig.layout.template.layout.paper_bgcolor == "#ffffff"
    assert style(build("sinusoidal_waves"), "dark").layout.template.layout.paper_bgcolor == "#0f1117"


@pytest.mark.parametrize("theme", ["light", "dark", "blog"])
def test_templates_never_hide_tick_labels(theme):
    # plotly's default for numeric axes re-measures every tick label as each one is placed (quadratic);
    # every axis and heatmap colour bar of every theme opts out
    tpl = style(build("sinusoidal_heatmap"), theme).layout.template
    assert tpl.layout.xaxis.ticklabeloverflow == tpl.layout.yaxis.ticklabeloverflow == "allow"
    assert tpl.data.heatmap[0].colorbar.ticklabeloverflow == "allow"


def test_presenter_mode_enlarges_fonts_and_lines():
    normal = style(build("sinusoidal_waves"), "light")
    big = style(build("sinusoidal_waves"), "light", presenter=True)
    assert big.layout.font.size > (normal.layout.font.size or normal.layout.template.layout.font.size)
    assert big.data[0].line.width >= 2 * (normal.data[0].line.width or 2)


def test_presenter_mode_takes_a_font_scale_for_narrower_windows():
    """``presenter=True`` is ×1.5; a number is the font scale itself (×1 in a 1280 px window keeps the fonts and
    margins and still thickens the lines for the projector); a scale outside [1, 3] is refused by name."""
    normal = style(build("sinusoidal_waves"), "light")
    base = normal.layout.template.layout.font.size
    sizes = [style(build("sinusoidal_waves"), "light", presenter=k).layout.font.size for k in (True, 1.5, 1.25, 1.0)]
    assert sizes == [round(base * 1.5), round(base * 1.5), round(base * 1.25), base]
    same = style(build("sinusoidal_waves"), "light", presenter=1.0)
    assert same.layout.margin.t == (normal.layout.margin.t or normal.layout.template.layout.margin.t)
    assert same.data[0].line.width >= 2 * (normal.data[0].line.width or 2)
    for bad in (0.5, 4.0, float("nan")):
        with pytest.raises(ValueError, match=r"presenter .*\[1, 3\]"):
            style(build("sinusoidal_waves"), "light", presenter=bad)


@pytest.mark.parametrize("name", ["rope_clock", "rope_qk_turn", "scaling_dynamic"])
def test_presenter_mode_moves_an_animation_slider_clear_of_its_larger_buttons(name):
    """The Play/Pause buttons grow with their font (×1.5): the slider on their row starts 1.5 times as far from
    the buttons' left edge and still ends where it ended (at 0.24 the larger buttons covered its first stops)."""
    normal, big = style(build(name), "light"), style(build(name), "light", presenter=True)
    menu, slider, wide = normal.layout.updatemenus[0], normal.layout.sliders[0], big.layout.sliders[0]
    assert wide.x - (menu.x or 0) == pytest.approx((slider.x - (menu.x or 0)) * PRESENTER_SCALE)
    assert wide.x + wide.len == pytest.approx(slider.x + slider.len)
    assert big.layout.updatemenus[0].y == wide.y  # still one row


@pytest.mark.parametrize("name", ["rope_clock", "rope_qk_turn"])
def test_presenter_mode_puts_a_player_hanging_under_the_plot_above_it(name):
    """On a projector the Play button must be on the screen with the top of the figure: a player row under the
    plot (paper y < 0) moves to its top edge, the top margin takes the row and the bottom margin gives back what
    it can, so the plot keeps its height. A player inside the plot's paper (Context extension's dynamic NTK, whose
    axes leave it room) stays where it is."""
    normal, big = style(build(name), "light"), style(build(name), "light", presenter=1.0)
    assert normal.layout.updatemenus[0].y < 0
    row = [*big.layout.updatemenus, *big.layout.sliders]
    assert {(item.y, item.yanchor) for item in row} == {(1.0, "bottom")}
    assert big.layout.margin.t == normal.layout.margin.t + PLAYER_ROW + PLAYER_GAP
    def plot_height(fig):
        return fig.layout.height - fig.layout.margin.t - fig.layout.margin.b

    assert plot_height(big) == plot_height(normal)
    inside = style(build("scaling_dynamic"), "light", presenter=1.0)
    assert inside.layout.updatemenus[0].y == build("scaling_dynamic").layout.updatemenus[0].y > 0


def test_csv_and_json_hold_the_plotted_numbers():
    fig = build("sinusoidal_heatmap", n_positions=8, d_model=4)
    rows = export.csv_bytes(fig).decode().splitlines()
    assert rows[0] == "trace,x,y,z" and len(rows) == 1 + 8 * 4
    assert rows[2].endswith(",1.0")  # PE(0, 1) = cos 0
    data = json.loads(export.json_bytes(fig, "sinusoidal_heatmap", {"d_model": 4}))
    assert data["params"] == {"d_model": 4}
    assert np.asarray(data["traces"][0]["z"]).shape == (8, 4)


def test_html_is_self_contained():
    html = export.html_bytes(style(build("sinusoidal_dot_by_offset"), "light")).decode()
    assert '<script src="https://cdn.plot.ly' not in html and "<script src=" not in html
    assert len(html) > 1_000_000  # plotly.js is inline


def test_unknown_format_and_bad_options_raise():
    with pytest.raises(ValueError, match="format"):
        export.export_figure("sinusoidal_waves", {}, "bmp")
    with pytest.raises(ValueError, match="width"):
        export.ExportOptions(width=5)
    with pytest.raises(ValueError, match="gif"):
        export.export_figure("sinusoidal_waves", {}, "gif")


@pytest.fixture(scope="module")
def kaleido_ready():
    need_browser()


def _not_blank_not_black(png: bytes) -> np.ndarray:
    img = iio.imread(png, extension=".png")[..., :3].astype(float)
    assert img.std() > 5, "blank image"
    assert img.mean() > 60, "black image"
    return img


def test_png_has_requested_size_and_colours(kaleido_ready):
    opts = export.ExportOptions(width=1200, height=675, scale=2)
    png = export.export_figure("sinusoidal_waves", {}, "png", opts)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = _not_blank_not_black(png)
    assert img.shape[:2] == (1350, 2400)
    # the first trace's colour (posviz indigo #4f46e5) is present, not Streamlit's placeholder black
    indigo = np.all(np.abs(img - np.array([79, 70, 229])) < 30, axis=2)
    assert indigo.sum() > 500


def test_dark_and_transparent_exports(kaleido_ready):
    dark = export.export_figure("sinusoidal_waves", {}, "png", export.ExportOptions(theme="dark", width=400,
                                                                                    height=300))
    img = iio.imread(dark, extension=".png")[..., :3]
    assert img[5, 5].tolist() == [15, 17, 23]  # the dark background
    clear = export.export_figure("sinusoidal_waves", {}, "png", export.ExportOptions(transparent=True, width=400,
                                                                                     height=300))
    assert iio.imread(clear, extension=".png")[5, 5, 3] == 0  # alpha 0 in a corner


def test_every_registered_figure_builds_at_defaults_under_budget():
    for name, spec in FIGURES.items():
        fig = spec.builder()
        assert isinstance(fig, go.Figure), name
        assert len(fig.to_json()) < 1_000_000, name
