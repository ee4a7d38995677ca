"""The figure kit: registry by reference, module discovery, and the one-of-each helpers of _common."""

from __future__ import annotations

import base64
import importlib
import inspect
import json
import pkgutil
import re
from collections.abc import Iterator

import numpy as np
import plotly.io as pio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plotly.subplots import make_subplots

import posviz.figures as figures
from posviz import export
from posviz.figures import FIGURES, build, spec_of
from posviz.figures._common import (
    MAX_CELLS,
    Panels,
    animation_controls,
    column_means,
    column_run,
    downsample,
    f32,
    grid_domains,
    sample_index,
    typed,
)
from posviz.theme import PRESENTER_MIN_FONT, compact_number, style, typeset, typeset_figure
from testkit.figures import trace_array

MODULES = [m.name for m in pkgutil.iter_modules(figures.__path__) if not m.name.startswith("_")]


# ------------------------------------------------------------------------------------------ registry

def test_builder_maps_back_to_its_spec():
    from posviz.figures import rope_clock, sinusoidal_heatmap

    assert spec_of(sinusoidal_heatmap).name == "sinusoidal_heatmap"
    assert spec_of(rope_clock).animated and not spec_of(sinusoidal_heatmap).animated
    assert spec_of("rope_clock") is spec_of(rope_clock)
    assert all(spec_of(spec.builder) is spec for spec in FIGURES.values())


def test_unregistered_function_or_name_is_a_value_error():
    def not_a_figure(*, n: int = 1):
        return n

    with pytest.raises(ValueError, match="not_a_figure.*not a registered figure"):
        spec_of(not_a_figure)
    with pytest.raises(ValueError, match="unknown figure 'sinusoidal_heatmapp'"):
        build("sinusoidal_heatmapp")


def test_build_by_reference_equals_build_by_name():
    from posviz.figures import sinusoidal_waves

    a = build(sinusoidal_waves, d_model=32, dims=(1, 5))
    b = build("sinusoidal_waves", d_model=32, dims=(1, 5))
    assert pio.to_json(a, validate=False) == pio.to_json(b, validate=False)
    assert [t.name for t in a.data][0].startswith("dim 1 (cos, pair 0)")
    with pytest.raises(ValueError, match="no parameter 'dmodel'"):
        build(sinusoidal_waves, dmodel=32)


def test_every_public_module_is_discovered_and_its_builders_exported():
    assert {"sinusoidal", "intro", "rope", "scaling", "twod", "gaussian", "cope"} <= set(MODULES)
    for name in MODULES:
        module = importlib.import_module(f"posviz.figures.{name}")
        registered = {s.builder.__name__ for s in FIGURES.values() if s.builder.__module__ == module.__name__}
        assert set(module.__all__) == registered, name
        for builder in registered:
            assert getattr(figures, builder) is getattr(module, builder)
            assert builder in figures.__all__
    assert len(figures.__all__) == len(set(figures.__all__))


def test_figure_modules_use_the_kits_panels_not_make_subplots():
    """Every figures module (discovered, the kit itself aside) lays out panels with the kit's ``Panels``."""
    names = sorted(m.name for m in pkgutil.iter_modules(figures.__path__) if m.name != "_common")
    assert {"rope", "rope_hands", "twod", "scaling"} <= set(names)
    for name in names:
        source = inspect.getsource(importlib.import_module(f"posviz.figures.{name}"))
        assert "make_subplots(" not in source and "plotly.subplots" not in source, name
        assert "def _f32" not in source and "_Fig" not in source, name


# ------------------------------------------------------------------------------------------ arrays

def test_f32_and_typed_arrays():
    a = f32([[1, 2], [3, 4.5]])
    assert a.dtype == np.float32 and a.flags.c_contiguous and a[1, 1] == 4.5
    strided = f32(np.arange(12.0).reshape(3, 4)[:, ::2])
    assert strided.flags.c_contiguous and strided.tolist() == [[0, 2], [4, 6], [8, 10]]
    t = typed(np.array([0.5, -1.25, 3.0]))
    assert t["dtype"] == "f4"
    assert np.frombuffer(base64.b64decode(t["bdata"]), dtype="<f4").tolist() == [0.5, -1.25, 3.0]


# ------------------------------------------------------------------------------------------ cell cap

@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3000), st.integers(1, 3000))
def test_sample_index_respects_the_one_cap(rows, cols):
    r, c, stride = sample_index(rows, cols)
    assert r.size * c.size <= MAX_CELLS
    assert r[0] == 0 and c[0] == 0 and stride >= 1
    if rows * cols <= MAX_CELLS:
        assert (r.size, c.size, stride) == (rows, cols, 1)


@given(rows=st.integers(1, 5000), cols=st.integers(1, 2000))
def test_an_odd_stride_stays_odd_and_under_the_cap(rows, cols):
    r, c, stride = sample_index(rows, cols, odd=True)
    step = int(c[1] - c[0]) if c.size > 1 else 1
    assert r.size * c.size <= MAX_CELLS and step % 2 == 1  # every column, or every k-th with k odd
    assert stride - sample_index(rows, cols)[2] in (0, 1)  # at most one more than the even stride it replaces


def test_downsample_keeps_the_sampled_values():
    z = np.arange(1000 * 400, dtype=np.float64).reshape(1000, 400)
    small, r, c, stride = downsample(z)
    assert small.size <= MAX_CELLS and stride > 1 and small.dtype == np.float32
    assert np.array_equal(small, z[np.ix_(r, c)].astype(np.float32))


@given(rows=st.integers(1, 4), cols=st.integers(1, 3000), most=st.integers(1, 600))
@settings(max_examples=60, deadline=None)
def test_column_means_average_runs_of_a_power_of_two(rows, cols, most):
    """Each column of column_means is the plain mean of its run of columns (a loop over the runs, the reference);
    the runs are k = a power of two long, the least that leaves at most ``most`` columns, the last one shorter."""
    z = np.random.default_rng(cols).random((rows, cols))
    means, edges, k = column_means(z, most)
    assert k == column_run(cols, most) and k & (k - 1) == 0 and means.shape[1] <= most
    assert k == 1 or -(-cols // (k // 2)) > most  # half as long a run would leave too many columns
    assert edges[0] == -0.5 and edges[-1] == cols - 0.5 and np.all(np.diff(edges)[:-1] == k)
    for i in range(means.shape[1]):
        run = z[:, i * k:min(cols, (i + 1) * k)]
        np.testing.assert_allclose(means[:, i], run.mean(axis=1), rtol=1e-6)


def test_column_means_show_a_row_alternating_at_every_column_as_one_half():
    """Drawn a column per position in fewer pixels, a row flipping at every position shows slow false stripes;
    averaged in runs of 2, 4, 8 ... it is ½ everywhere, and a row flipping every k columns keeps its 0s and 1s."""
    z = np.stack([np.arange(1024) % 2, (np.arange(1024) // 4) % 2])
    means, _edges, k = column_means(z, 256)
    assert k == 4
    np.testing.assert_array_equal(means[0], np.full(256, 0.5))
    np.testing.assert_array_equal(means[1], np.arange(256) % 2)


def test_rope_heatmaps_use_the_same_cap():
    from posviz.figures import rope as fr

    assert fr.MAX_HEATMAP_CELLS == MAX_CELLS


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_no_default_heatmap_exceeds_the_cap(name):
    fig = json.loads(pio.to_json(build(name), validate=False))
    for trace in fig["data"]:
        if trace.get("type") == "heatmap":
            assert trace_array(trace["z"]).size <= MAX_CELLS if isinstance(trace["z"], dict) else \
                sum(len(row) for row in trace["z"]) <= MAX_CELLS


# ------------------------------------------------------------------------------------------ panels

@pytest.mark.parametrize("rows, cols, widths, heights, hs, vs", [
    (1, 2, (), (), 0.1, 0.1), (2, 2, (), (0.62, 0.38), 0.08, 0.16), (1, 3, (0.3, 0.3, 0.4), (), 0.09, 0.1),
    (3, 1, (), (), 0.2, 0.05)])
def test_grid_domains_match_make_subplots(rows, cols, widths, heights, hs, vs):
    ref = make_subplots(rows=rows, cols=cols, column_widths=list(widths) or None, row_heights=list(heights) or None,
                        horizontal_spacing=hs, vertical_spacing=vs)
    ours = grid_domains(rows, cols, widths=widths, heights=heights, hspace=hs, vspace=vs)
    for n, ((x0, x1), (y0, y1)) in enumerate(ours, start=1):
        sfx = "" if n == 1 else str(n)
        np.testing.assert_allclose(ref.layout[f"xaxis{sfx}"].domain, (x0, x1), atol=1e-9)
        np.testing.assert_allclose(ref.layout[f"yaxis{sfx}"].domain, (y0, y1), atol=1e-9)


def test_panels_place_traces_titles_and_marks():
    g = Panels.grid(1, 2, ("left", "right"), hspace=0.2)
    g.scatter(1, x=[1, 2], y=[3, 4], name="a")
    g.add(dict(type="heatmap", z=[[1.0]]), 2)
    g.axis("y", 2, title="λ", log=True)
    g.marks.hline(1000.0, "L", panel=2, log=True)
    g.marks.vline(5.0, "x = 5", panel=1)
    fig = g.figure(title="t", height=300)
    assert [(t.xaxis, t.yaxis) for t in fig.data] == [("x", "y"), ("x2", "y2")]
    assert fig.layout.yaxis2.type == "log" and fig.layout.yaxis2.title.text == "λ"
    assert fig.layout.xaxis2.domain == pytest.approx((0.6, 1.0))
    notes = {a.text: a for a in fig.layout.annotations}
    assert notes["left"].x == pytest.approx(0.2) and notes["right"].x == pytest.approx(0.8)
    assert notes["L"].y == pytest.approx(3.0) and notes["L"].yref == "y2"  # log10 on a log axis
    assert fig.layout.shapes[0].y0 == 1000.0 and fig.layout.shapes[1].xref == "x"


# ------------------------------------------------------------------------------------------ animation

def test_animation_controls_point_at_frames():
    ctl = animation_controls(["0", "1", "2"], ["a", "", "c"], duration=70, y=-0.1)
    (menu,), (slider,) = ctl["updatemenus"], ctl["sliders"]
    play, pause = menu["buttons"]
    assert play["args"][1]["frame"] == dict(duration=70, redraw=False) and pause["args"][0] == [None]
    assert [s["args"][0] for s in slider["steps"]] == [["0"], ["1"], ["2"]]
    assert [s["label"] for s in slider["steps"]] == ["a", "", "c"]
    assert menu["y"] == slider["y"] == -0.1 and slider["x"] + slider["len"] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        animation_controls(["0", "1"], ["a"])


@pytest.mark.parametrize("name", [n for n, s in FIGURES.items() if s.animated])
def test_animated_figures_slider_steps_name_real_frames(name):
    fig = build(name)
    frames = {f.name for f in fig.frames}
    steps = fig.layout.sliders[0].steps
    assert len(steps) >= 2 and all(s.args[0][0] in frames for s in steps)
    assert [b.label for b in fig.layout.updatemenus[0].buttons] == ["▶ Play", "❚❚ Pause"]


# ------------------------------------------------------------------------------------------ presenter text

def _font_sizes(obj: object, path: str = "") -> Iterator[tuple[str, float]]:
    """Every explicit font size in the plain-JSON ``obj``, with where it is."""
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            yield from _font_sizes(item, f"{path}[{i}]")
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if key == "template":
                continue
            if key.endswith("font") and isinstance(value, dict) and isinstance(value.get("size"), (int, float)):
                yield f"{path}.{key}", float(value["size"])
            else:
                yield from _font_sizes(value, f"{path}.{key}")


def _texts(obj: object) -> Iterator[str]:
    if isinstance(obj, list):
        for item in obj:
            yield from _texts(item)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if key == "text" and isinstance(value, str):
                yield value
            elif key != "template":
                yield from _texts(value)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_presenter_text_is_never_smaller_than_the_floor_at_1280(name):
    """Presenter mode in a 1280×800 window (font scale ×1, ``posviz.ui.page._figure_scale``), where prose is
    ~21 px: every text of the figure (base font, ticks, titles, notes, chips, clock labels, table cells, text
    traces, also inside animation frames) is at least PRESENTER_MIN_FONT px, and no subtitle line is drawn as a
    <sup> (plotly shrinks it to 70 %)."""
    fig = style(build(name), "light", presenter=1.0)
    data = json.loads(fig.to_json())
    assert data["layout"]["font"]["size"] >= PRESENTER_MIN_FONT
    small = [(where, size) for where, size in _font_sizes({"layout": data["layout"], "data": data["data"],
                                                            "frames": data.get("frames", [])})
             if size < PRESENTER_MIN_FONT]
    assert not small, small[:5]
    assert not [t for t in _texts(data) if "<br><sup>" in t]


def test_presenter_figures_grow_in_height_with_the_scale():
    """At 1920×1080 (×1.5) a figure is the 1280 px one magnified: the plot's height as well as its width and
    its fonts grow ×1.5, so the chart keeps its shape."""
    def plot_height(fig):
        return fig.layout.height - fig.layout.margin.t - fig.layout.margin.b

    normal = style(build("cope_tokens"), "light")
    tpl = normal.layout.template.layout
    normal_plot = (normal.layout.height or 450) - (normal.layout.margin.t or tpl.margin.t) - \
        (normal.layout.margin.b or tpl.margin.b)
    one, big = style(build("cope_tokens"), "light", presenter=1.0), style(build("cope_tokens"), "light", presenter=1.5)
    assert plot_height(one) == normal_plot
    assert plot_height(big) == pytest.approx(1.5 * normal_plot, abs=1)
    assert big.layout.height > 1.4 * one.layout.height


# ------------------------------------------------------------------------------------------ export typography

def test_typeset_writes_indices_as_subscripts_and_powers_of_ten():
    cases = {"θ_i / θ'_i": "θ<sub>i</sub> / θ'<sub>i</sub>", "q_(m+c)·k_(n+c)": "q<sub>m+c</sub>·k<sub>n+c</sub>",
             "p_mᵀ W_qᵀW_k p_n": "p<sub>m</sub>ᵀ W<sub>q</sub>ᵀW<sub>k</sub> p<sub>n</sub>",
             "e[p]_c": "e[p]<sub>c</sub>",
             "i=5, λ=1.99e+03": "i=5, λ=1.99×10³", "base 1e+06": "base 10⁶", "error 1.4e-14": "error 1.4×10⁻¹⁴",
             # code names and tags stay as typed
             "max_distance = 128": "max_distance = 128", "npos_max − 1": "npos_max − 1", "rope_theta": "rope_theta",
             "<span style='color:#4f46e5'>q</span>": "<span style='color:#4f46e5'>q</span>"}
    assert {s: typeset(s) for s in cases} == cases
    assert [compact_number(v) for v in (2.5e-5, 1e-6, 0.05, 20, 1e4)] == ["2.5×10⁻⁵", "10⁻⁶", "0.05", "20", "10k"]


# θ_i, λ'_i, q_m, k_(n+c); not a code name such as d_model or max_distance
_MATH_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])[A-Za-zα-ωΑ-Ω]'?_(\(|[A-Za-z0-9]{1,3}(?![A-Za-z0-9]))")
_E_NOTATION = re.compile(r"\d(?:\.\d+)?e[+-]?\d")


def _shown(fig_json: dict) -> Iterator[str]:
    """The strings a reader sees in a figure's JSON (no hover templates), without their tags."""
    def walk(obj: object, key: str = "") -> Iterator[str]:
        if isinstance(obj, list):
            for item in obj:
                yield from walk(item, key)
        elif isinstance(obj, dict):
            for k, v in obj.items():
                if k not in ("template", "hovertemplate", "meta", "customdata", "args"):
                    yield from walk(v, k)
        elif isinstance(obj, str) and key in ("text", "name", "ticktext", "label", "prefix"):
            yield re.sub(r"<[^>]*>", "", obj)
    yield from walk(fig_json)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figures_as_shown_have_no_literal_underscores_e_notation_or_plotly_log_digits(name):
    """What an export shows: θ_i drawn as θ with a subscript i (not a literal underscore), 1.49e+03 as 1.49×10³,
    no SI prefix on a dimensionless axis, and log axes labelled at full size (plotly's own log labels set the 2s
    and 5s between powers of ten in a smaller font, crowded)."""
    fig = typeset_figure(style(build(name), "light"))  # as posviz.export renders it
    data = json.loads(fig.to_json())
    shown = list(_shown({"layout": data["layout"], "data": data["data"], "frames": data.get("frames", [])}))
    assert not [s for s in shown if _MATH_UNDERSCORE.search(s) or _E_NOTATION.search(s)]
    axes = [ax for key, ax in data["layout"].items() if key.startswith(("xaxis", "yaxis"))]
    assert all(ax.get("tickvals") is not None or ax.get("dtick") not in (None, "D1", "D2") for ax in axes
               if ax.get("type") == "log")
    assert fig.layout.template.layout.xaxis.exponentformat == "power"


def test_exports_are_typeset_and_the_apps_figure_is_left_alone():
    """An export (SVG/PNG/PDF/GIF/MP4/HTML) draws θ_i as θ<sub>i</sub>; the figure the app cached and passed in is
    not changed by exporting it."""
    fig = style(build("scaling_ratio"), "light")
    before = fig.to_json()
    html = export.render(fig, "html").decode()
    assert "θ<sub>i</sub> / θ'<sub>i</sub>" in html or "θ\\u003csub\\u003ei" in html
    assert fig.to_json() == before
