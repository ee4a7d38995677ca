"""Live figures: dragging a live slider moves the chart with no script rerun; release reruns once and the
address and the captions hold the released value (posviz.ui.live)."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import urllib.parse

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Error as PlaywrightError

from posviz.ui.live.component import script as component_script
from testkit.browser import (
    DRAWING,
    DRAWING_OF,
    IDLE,
    ON_SCREEN,
    REACTS,
    STILLS_READY,
    live_drag,
    move_slider,
    open_page,
    reach_for,
    wait_run_after,
)
from testkit.live_cases import CASES

pytestmark = pytest.mark.browser

# what the chart draws: per trace its coordinates, cells and labels, as plotly holds them after a draw
DRAWN = """() => JSON.stringify(document.querySelector('.posviz-live-chart')._fullData.map(
    t => [t.x, t.y, t.z, t.text].map(a => (a && a.length ? Array.from(a).map(String) : null))))"""
TIPS = "() => Array.from(document.querySelector('.posviz-live-chart')._fullData[3].x).map(Number)"
STATUS = "() => document.querySelector('.posviz-live-chart')._fullData[4].text[0]"
# the same two on screen, read from the drawing (a still while the drag shows one): the tips' points, the status line
TIPS_ON_SCREEN = "() => { " + ON_SCREEN + """
    const tips = plot.querySelectorAll('.scatterlayer .trace')[3].querySelectorAll('.point');
    return Array.from(tips).map(p => p.getAttribute('transform')).join(' '); }"""
STATUS_ON_SCREEN = "() => { " + ON_SCREEN + """
    return plot.querySelectorAll('.scatterlayer .trace')[4].textContent; }"""
SLIDER_AT = "() => document.querySelector('.posviz-live-chart')._fullLayout.sliders[0].active"
EXACT = "() => document.querySelector('.posviz-live-chart').dataset.shown === 'exact'"



@pytest.mark.parametrize("case", list(CASES))
def test_live_drag_moves_the_chart_without_a_rerun(page, app_url, case):
    """Every state shown during the drag is a still (drawn beforehand by Plotly.js), and the drawing on screen
    changes with it; release reruns once and the address and captions hold the released value."""
    check_drag(page, app_url, case, stills=True)


@pytest.mark.parametrize("case", ["RoPE clock, base", "gaussian kernel, σ2", "YaRN ramp, beta_fast"])
def test_live_drag_without_stills_draws_each_state(page, app_url, case):
    """A drag before the stills are drawn (here: never drawn) shows each state with Plotly.react instead."""
    page.add_init_script("window.__posvizNoStills = true")
    check_drag(page, app_url, case, stills=False)


def check_drag(page, app_url, case, stills):
    name, query, key, url_name, dx, caption = CASES[case]
    open_page(page, app_url, name, **query)
    before = page.evaluate("() => document.querySelector('.posviz-live-chart').dataset.shown")
    assert before == "exact"
    drawn, drawing = page.evaluate(DRAWN), page.evaluate(DRAWING)
    drag = live_drag(page, key, dx, stills=stills)
    assert len(set(drag["drawings"]) - {drawing}) >= 3  # the drawing on screen went through several states
    assert (drag["reacts"] == 0) if stills else (drag["reacts"] >= 3)  # ... from stills, or drawn one by one
    states = {shown for shown, _ in drag["shown"]} - {"exact"}
    assert len(states) >= 3, drag["shown"]  # the chart went through several states while the thumb moved
    assert drag["runs_during_drag"] == 0  # ... and not one script run started before the release
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function("() => document.querySelector('.posviz-live-chart').dataset.shown === 'exact'")
    assert page.evaluate(DRAWN) != drawn  # the exact figure of the released value, not the one before
    scene = page.evaluate(CHART_AND_FRESH, 0)  # drawn (patched in or by Plotly.react) as a fresh plot draws it
    assert scene["chart"] == scene["fresh"] and scene["hover"]
    released = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)[url_name][0]
    value = float(released)
    seen = sorted(float(s.split("=")[1]) for s in states)
    last = float(drag["shown"][-1][0].split("=")[1])
    assert abs(last - value) <= max(np.diff(seen))  # the last state shown is the one next to the released value
    if caption:
        assert caption(value) in " ".join(page.locator("[data-testid=stCaptionContainer]").all_inner_texts())


def test_a_still_draws_what_the_chart_draws(page, app_url):
    """CoPE's gate states are not thinned: the still of the state at the slider's value (a = 4) must draw the
    same lines, texts and cells as the chart drawing the exact figure, so a drag shows Plotly.js's own picture."""
    open_page(page, app_url, "CoPE")
    reach_for(page, "cope.scale")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    index, still, chart, neighbour = page.evaluate("() => { " + DRAWING_OF + """
        const c = document.querySelector('.posviz-live-chart');
        const set = Object.entries(window.__posvizStates).find(([k]) => k.endsWith('|cope.scale'))[1];
        const scale = c.posvizPayload.live.find((l) => l.key === 'cope.scale');
        const i = set.values.indexOf(scale.current), stills = c.posvizStills['cope.scale'].nodes;
        return [i, drawingOf(stills[i]), drawingOf(c), drawingOf(stills[i + 1])]; }""")
    assert index >= 0 and still == chart
    assert neighbour != chart  # the next state (a = 5) draws another picture: the comparison can fail


def test_a_still_shows_a_picture_of_what_the_chart_draws(page, app_url):
    """A drag shows each still as one bitmap painted from its drawing: the picture of the state at the slider's
    value (a = 4) has, pixel for pixel, what the browser paints for the chart at that value, texts and heatmap
    included; the picture of the next state (a = 5) does not."""
    open_page(page, app_url, "CoPE")
    reach_for(page, "cope.scale")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    pictures = page.evaluate("""() => {
        const c = document.querySelector('.posviz-live-chart');
        const set = Object.entries(window.__posvizStates).find(([k]) => k.endsWith('|cope.scale'))[1];
        const i = set.values.indexOf(c.posvizPayload.live.find((l) => l.key === 'cope.scale').current);
        const stills = c.posvizStills['cope.scale'].nodes;
        return [stills[i], stills[i + 1]].map((s) => s.posvizPicture.src); }""")
    chart = picture(page.locator(".posviz-live-chart .main-svg").first.screenshot())
    same, other = (picture(base64.b64decode(src.split(",", 1)[1])) for src in pictures)
    rows, cols = same.shape[:2]  # a plot at a fractional y covers one more row of the screen
    assert chart.shape[0] - rows in (0, 1) and chart.shape[1] == cols

    def differ(a):  # the share of pixels that differ, the picture laid on the rows where it matches best
        return min(float(np.mean(np.abs(a - chart[dy:dy + rows]).max(axis=2) > 48))
                   for dy in range(chart.shape[0] - rows + 1))
    assert differ(same) < 0.0002
    assert differ(other) > 0.001  # a = 5 moves the positions' numbers (0.2% of the pixels): the comparison can fail


def test_a_picture_paints_its_still_colour_bar_and_all(page, app_url):
    """The picture of a still is the browser's painting of the still's own drawing: the sinusoidal heatmap's
    colour bar (drawn in the plot's top layer with a gradient defined in its bottom one) included. The drawing and
    the picture are laid at the same place in turn and photographed."""
    open_page(page, app_url, "Sinusoidal")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    lay = """([i, picture]) => { const still = Object.values(document.querySelector('.posviz-live-chart')
            .posvizStills)[0].nodes[i];
        let box = document.getElementById('photo');
        if (!box) { box = document.createElement('div'); box.id = 'photo'; box.className = 'posviz-live-still';
                    box.style.cssText = 'position:fixed;left:0;top:0;z-index:999999;background:#fff';
                    document.body.appendChild(box); }
        box.replaceChildren(picture ? still.posvizPicture.cloneNode() : still.cloneNode(true));
        const shown = box.firstElementChild;
        return picture ? shown.decode() : null; }"""
    photos = {}
    for i, kind in [(0, False), (0, True), (1, True)]:
        page.evaluate(lay, [i, kind])
        photos[i, kind] = picture(page.locator("#photo").screenshot())
    drawing, same, other = photos[0, False], photos[0, True], photos[1, True]
    assert same.shape == drawing.shape
    share = lambda a: float(np.mean(np.abs(a - drawing).max(axis=2) > 48))  # noqa: E731
    bar = drawing[:, -90:]  # the colour bar, blue to red
    r, b = bar[..., 0], bar[..., 2]
    assert ((b > 150) & (r < 100)).any() and ((r > 150) & (b < 100)).any()
    assert share(same) < 0.0002
    assert share(other) > 0.01  # the next base paints another heatmap: the comparison can fail


def picture(png: bytes) -> np.ndarray:
    """The RGB pixels of a PNG, as signed integers."""
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def test_dense_markers_are_drawn_with_webgl_and_their_stills_copy_its_pixels(page, app_url):
    """PoSE's 1,024 position ids (up to 16,384) are one markers trace: the chart draws it with WebGL (an SVG
    element per marker took Plotly.js ~300 ms a draw at the largest settings), and so are the states' thinned
    copies. A still holds an image of the pixels in place of the canvas (a cloned canvas is blank): the same
    picture as a fresh plot of the state, markers and all."""
    open_page(page, app_url, "Long_context_methods", part="pose")
    reach_for(page, "long_context.chunk")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    out = page.evaluate("async () => { " + DRAWING_OF + """
        const c = document.querySelector('.posviz-live-chart');
        const set = Object.entries(window.__posvizStates).find(([k]) => k.endsWith('|long_context.chunk'))[1];
        const still = c.posvizStills['long_context.chunk'].nodes[3];
        const state = set.states[3], {width, height} = c._fullLayout;
        const data = state.data.map((t, k) => ({...(t || set.common[k]), type: c._fullData[k].type}));
        const box = document.createElement('div');
        box.style.cssText = `position:fixed;left:0;top:0;width:${width}px;height:${height}px`;
        document.body.appendChild(box);
        await Plotly.newPlot(box, data, {...state.layout, template: c.posvizTemplate, width, height},
                             {...c.posvizPayload.config, staticPlot: true});
        const fresh = drawingOf(box);
        Plotly.purge(box);
        box.remove();
        const img = still.querySelector('img.gl-canvas-context');
        const paint = document.createElement('canvas');
        paint.width = img.naturalWidth; paint.height = img.naturalHeight;
        const g = paint.getContext('2d');
        g.drawImage(img, 0, 0);
        const px = g.getImageData(0, 0, paint.width, paint.height).data;
        let marked = 0; // pixels of the markers' colour, #4f46e5
        for (let i = 0; i < px.length; i += 4) marked += px[i] === 79 && px[i + 1] === 70 && px[i + 2] === 229;
        return {types: c._fullData.map((t) => t.type), canvases: still.querySelectorAll('canvas').length,
                still: drawingOf(still), fresh, other: drawingOf(c.posvizStills['long_context.chunk'].nodes[4]),
                marked};
    }""")
    assert out["types"] == ["scattergl", "scatter"]  # the ids with WebGL, the coverage curve (a line) in SVG
    assert out["canvases"] == 0 and out["marked"] > 500  # an image of the markers, not a blank canvas
    assert out["still"] == out["fresh"]
    assert out["other"] != out["still"]  # the next state draws another picture: the comparison can fail


def test_stills_are_drawn_again_when_a_release_takes_a_trace_below_the_webgl_threshold(page, app_url):
    """PoSE at L_c = 64 draws 16 × 64 = 1,024 ids with WebGL, at 56 (896 ids) as SVG markers: after the release
    the stills of the same slider (the same states) are drawn again the way the chart now draws, so a drag does
    not switch between the two looks."""
    open_page(page, app_url, "Long_context_methods", part="pose")
    reach_for(page, "long_context.chunk")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    looks = """() => { const c = document.querySelector('.posviz-live-chart');
        const nodes = c.posvizStills['long_context.chunk'].nodes;
        return [c._fullData[0].type, nodes.filter((n) => n && n.querySelector('img.gl-canvas-context')).length,
                nodes.length]; }"""
    before = page.evaluate(looks)
    assert before[0] == "scattergl" and before[1] == before[2] > 2
    move_slider(page, "window", -1)
    page.wait_for_function(STILLS_READY, timeout=60_000)
    after = page.evaluate(looks)
    assert after[0] == "scatter" and after[1] == 0 and after[2] == before[2]


def test_stills_follow_the_chart_when_the_window_is_resized(page, app_url):
    """A narrower window redraws the chart narrower; the stills are drawn again at its new size, so a drag still
    shows stills (no state drawn by Plotly.react) and they cover the chart exactly."""
    open_page(page, app_url, "Sinusoidal")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    wide = page.evaluate("() => document.querySelector('.posviz-live-chart')._fullLayout.width")
    page.set_viewport_size({"width": 1000, "height": 900})
    page.wait_for_function(f"() => document.querySelector('.posviz-live-chart')._fullLayout.width < {wide}")
    drag = live_drag(page, "sinusoidal.base", -5, moves=12)
    assert drag["reacts"] == 0 and len(set(drag["drawings"])) >= 3
    sizes = page.evaluate("""() => { const c = document.querySelector('.posviz-live-chart');
        const svg = Object.values(c.posvizStills)[0].nodes[0].querySelector('.main-svg');
        return [c._fullLayout.width, Number(svg.getAttribute('width'))]; }""")
    assert sizes[0] < wide and sizes[1] == sizes[0]


def test_a_release_that_makes_the_chart_taller_keeps_its_stills(page, app_url):
    """FLUX.1's angle map is 14 px taller for each text token: a still is drawn at its own state's height, so a key
    press to another count (the chart grows) keeps every still, and the drag after it shows stills only, the chart
    as tall as the state on screen (the page below moves as the released figure will move it)."""
    open_page(page, app_url, "2D_encodings", part="flux")
    reach_for(page, "2d.ntext")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    stills = "Object.values(document.querySelector('.posviz-live-chart').posvizStills)[0].nodes"
    page.evaluate(f"() => {stills}.forEach((n) => {{ n.dataset.kept = 'yes'; }})")
    height = "() => document.querySelector('.posviz-live-chart').getBoundingClientRect().height"
    before = page.evaluate(height)
    page.locator(".st-key-2d-ntext input[type=range]").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => ({height})() > {before}")  # one more text token: a taller figure
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(EXACT)
    page.wait_for_function(STILLS_READY, timeout=60_000)
    kept = page.evaluate(f"() => {stills}.map((n) => n.dataset.kept)")
    assert len(kept) > 2 and set(kept) == {"yes"}
    box = reach_for(page, "2d.ntext")
    thumb = box.locator("[data-testid=stSliderThumbValue]").bounding_box()
    x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] + 8
    reacts = page.evaluate(REACTS)
    page.mouse.move(x, y)
    page.mouse.down()
    seen = []
    for _ in range(10):
        x += 8
        page.mouse.move(x, y)
        page.wait_for_timeout(60)
        seen.append(page.evaluate("""() => { const c = document.querySelector('.posviz-live-chart');
            const shown = document.querySelector('.posviz-live-still .posviz-live-picture');
            return [c.getBoundingClientRect().height, shown && shown.getBoundingClientRect().height]; }"""))
    page.mouse.up()
    assert page.evaluate(REACTS) == reacts
    assert all(chart == still for chart, still in seen) and len({chart for chart, _ in seen}) >= 3


def test_the_clock_keeps_its_position_while_the_base_is_dragged_and_after_release(page, app_url):
    """At position m = 12 (the chart's own slider), dragging the base turns the hands at m ≈ 12, not at
    m = 0 where every hand points the same way; the release draws the exact clock at m = 12 again."""
    open_page(page, app_url, "RoPE", part="clock")
    page.wait_for_function(EXACT)
    page.evaluate("() => Plotly.animate(document.querySelector('.posviz-live-chart'), ['12'], {mode: 'immediate',"
                  " frame: {duration: 0, redraw: false}, transition: {duration: 0}})")
    page.wait_for_function("() => document.querySelector('.posviz-live-chart')._fullLayout.sliders[0].active === 12")
    at_12 = page.evaluate(TIPS)
    reach_for(page, "rope.base")
    page.wait_for_function(STILLS_READY, timeout=60_000)  # the stills, drawn again at the new position
    reacts = page.evaluate(REACTS)
    box = page.locator(".st-key-rope-base [data-testid=stSliderThumbValue]").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] + 8
    page.mouse.move(x, y)
    page.mouse.down()
    tips, positions = [], []
    for _ in range(12):
        x -= 6
        page.mouse.move(x, y)
        page.wait_for_timeout(60)
        tips.append(page.evaluate(TIPS_ON_SCREEN))
        positions.append(page.evaluate(STATUS_ON_SCREEN).split(":")[0])
    page.mouse.up()
    assert page.evaluate(REACTS) == reacts  # every state on screen was a still ...
    assert len(set(tips)) >= 3  # ... and the hands on screen moved as the base changed
    assert all(abs(float(p.split("=")[1]) - 12) <= 3 for p in positions), positions  # near m = 12, not m = 0
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(EXACT)
    assert page.evaluate(SLIDER_AT) == 12 and page.evaluate(STATUS).startswith("m = 12:")
    base = float(urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)["base"][0])
    assert base < 10000 and page.evaluate(TIPS) != at_12  # the exact clock of the released base, at m = 12


def test_a_drag_that_ends_where_it_started_shows_the_exact_figure_again(page, app_url):
    """σ1 at its largest, dragged further right: the thumb may leave 50 under the pointer and come back, and a
    release at the old value starts no run. The chart must not stay on a (thinned) state."""
    open_page(page, app_url, "Gaussian_kernel_RoPE", sigma1="50")
    page.wait_for_function(EXACT)
    started = page.posviz_started  # script runs the server has begun (testkit.browser.count_runs)
    drag = live_drag(page, "gaussian_kernel_rope.sigma1", 6, moves=12)
    page.wait_for_timeout(500)
    assert page.posviz_started == started and drag["runs_during_drag"] == 0  # no run at all, even after release
    assert page.evaluate("() => document.querySelector('.posviz-live-chart').dataset.shown") == "exact"
    assert "sigma1=50" in page.url


# what a plot draws, element by element: lines, points (with their colours), texts and images, in drawing order
SCENE_OF = """const sceneOf = (plot) => Array.from(plot.querySelectorAll(
    '.main-svg path, .main-svg text, .main-svg image, .main-svg .point')).map((e) => [e.tagName,
    e.getAttribute('d'), e.getAttribute('transform'), e.textContent, e.getAttribute('style')].join(' '));"""
# the live chart's scene, and the scene of a fresh Plotly.newPlot of the exact figure it was sent, at frame `at`
CHART_AND_FRESH = "async (at) => { " + SCENE_OF + """
    const c = document.querySelector('.posviz-live-chart'), exact = c.posvizPayload.exact;
    const step = {mode: 'immediate', transition: {duration: 0}, frame: {duration: 0, redraw: false}};
    const box = document.createElement('div');
    box.style.cssText = `position:fixed;left:0;top:0;width:${c._fullLayout.width}px;height:${c._fullLayout.height}px`;
    document.body.appendChild(box);
    const copy = JSON.parse(JSON.stringify(exact));
    copy.data.forEach((t, k) => { t.type = c._fullData[k].type; }); // a dense scatter as the chart draws it: WebGL
    await Plotly.newPlot(box, copy.data, {...copy.layout, width: c._fullLayout.width,
                                          height: c._fullLayout.height}, c.posvizPayload.config);
    if (copy.frames) await Plotly.addFrames(box, copy.frames);
    if (at > 0) { await Plotly.animate(box, [String(at)], step); await Plotly.animate(c, [String(at)], step); }
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const hover = (g) => JSON.stringify(g._fullData.map((t) => [t.hovertext, t.text, Array.from(t.customdata || [])]));
    const out = {chart: sceneOf(c), fresh: sceneOf(box), hover: hover(c) === hover(box),
                 patches: Number(c.dataset.patches || 0)};
    Plotly.purge(box);
    box.remove();
    return out; }"""


def let_go_at_exact(page, slider: str, dx: float, moves: int) -> dict:
    """Drag ``slider`` ``moves`` times by ``dx`` px and let go, then wait for the run the release starts and for
    the chart to show the exact figure. Waiting only for an idle page could read it before that run began."""
    drag = live_drag(page, slider, dx, moves=moves)
    wait_run_after(page, drag["released_at"])
    page.wait_for_function(EXACT)
    return drag


def _patched_release(page, app_url, name: str, part: str, slider: str, dx: float, moves: int) -> dict:
    """Open ``part`` of page ``name``, check the chart draws what a fresh plot draws, drag ``slider`` ``moves``
    times by ``dx`` px and let go; the chart and a fresh plot after the release (CHART_AND_FRESH at frame 0), and
    the chart's scene before it."""
    open_page(page, app_url, name, part=part)
    page.wait_for_function(EXACT)
    before = page.evaluate(CHART_AND_FRESH, 0)
    assert before["chart"] == before["fresh"] and before["patches"] == 0
    let_go_at_exact(page, slider, dx, moves=moves)
    return {**page.evaluate(CHART_AND_FRESH, 0), "before": before["chart"]}


def test_a_release_patches_in_the_exact_clock_as_a_fresh_plot_draws_it(page, app_url):
    """At a new base only some of the clock's scatter traces and its title change: the release patches those into
    the chart (Plotly.animate, as the clock's own frames do) instead of redrawing it all. The chart must then draw,
    element by element and in the same order, what a fresh Plotly.newPlot of the exact figure draws, with the
    same hover texts, at m = 0 and, through its new frames, at m = 12."""
    after = _patched_release(page, app_url, "RoPE", "clock", "rope.base", -6, 10)
    assert after["patches"] == 1  # patched in, not redrawn by Plotly.react
    assert after["chart"] != after["before"]  # another base, another picture: the comparison can fail
    assert after["chart"] == after["fresh"] and after["hover"]
    at_12 = page.evaluate(CHART_AND_FRESH, 12)
    assert at_12["chart"] != after["chart"] and at_12["chart"] == at_12["fresh"] and at_12["hover"]


# the frame the chart's position slider stops at (a long clock stops at every other frame), its frames' names in the
# order Play shows them, and the status line the exact figure has at that frame
CLOCK_POSITION = """() => { const c = document.querySelector('.posviz-live-chart'), s = c._fullLayout.sliders[0];
    const frame = Number(s.steps[s.active].args[0][0]), exact = c.posvizPayload.exact;
    return {frame, frames: c._transitionData._frames.map((f) => f.name), exact: exact.frames.map((f) => f.name),
            status: exact.frames[frame].data[exact.frames[frame].traces.indexOf(4)].text[0]}; }"""


def test_a_clock_with_fewer_frames_is_patched_in_at_the_stop_it_was_at(page, app_url):
    """72 frames, held at the clock's own still: the position slider stops at every other frame, so its stop 12
    shows frame 24, not frame 12. Dragging the number of frames down and letting go patches in the exact clock
    (its other frames and the stops of its slider) at the stop nearest where it was; the hands and the status
    line are those of the frame that stop shows, element by element as a fresh plot draws them, and Play has the
    new frames, in order."""
    open_page(page, app_url, "RoPE", part="clock", frames="72")
    page.wait_for_function(EXACT)
    held = page.evaluate(CLOCK_POSITION)
    assert held["frame"] == 24 and page.evaluate(STATUS) == held["status"]
    let_go_at_exact(page, "rope.frames", -8, moves=6)
    n = int(urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)["frames"][0])
    now = page.evaluate(CLOCK_POSITION)
    assert 37 < n < 72 and now["exact"] == [str(f) for f in range(n)]  # fewer frames, still stopping at some
    assert now["frames"] == now["exact"]  # the old ones past the new last frame gone, the rest in order
    assert abs(now["frame"] - 24) <= 1 and page.evaluate(STATUS) == now["status"]
    after = page.evaluate(CHART_AND_FRESH, now["frame"])
    assert after["patches"] == 1 and after["chart"] == after["fresh"] and after["hover"]


def test_a_release_patches_in_the_exact_bands_of_the_scores_past_l_as_a_fresh_plot_draws_them(page, app_url):
    """At a new d the scores past L change only their curves and their bands (each filled from a lowest-in-bin
    curve to a highest), over axes that hold still: the release patches them in with Plotly.animate, each band with
    the curve it is filled to, and the chart must draw, element by element, what a fresh Plotly.newPlot of the
    exact figure draws, with the same hover."""
    after = _patched_release(page, app_url, "Context_extension", "scores", "context_extension.d", -6, 6)
    d = int(urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)["d"][0])
    assert d < 128 and after["patches"] == 1  # another d, patched in rather than redrawn by Plotly.react
    assert after["chart"] != after["before"]  # other curves, other bands: the comparison can fail
    assert after["chart"] == after["fresh"] and after["hover"]


# how the live chart came by its exact figures: drawn in all, prefetched before a rerun, and what the last rerun sent
EXACTS = """() => { const c = document.querySelector('.posviz-live-chart');
    return {exacts: Number(c.dataset.exacts || 0), prefetched: Number(c.dataset.prefetched || 0), id: c.posvizExactId,
            file: c.posvizPayload.exactFile || null}; }"""


def _release_on_the_heatmap(page, app_url) -> dict:
    """Open the Sinusoidal heatmap, drag its base 8 moves to the left and release; what the chart did."""
    open_page(page, app_url, "Sinusoidal")
    page.wait_for_function(EXACT)
    started, before = page.posviz_started, page.evaluate(EXACTS)  # a drag draws states, not exact figures
    let_go_at_exact(page, "sinusoidal.base", -5, moves=8)  # once the states (and their files) are there
    page.wait_for_timeout(300)
    after = page.evaluate(EXACTS)
    return {"before": before, "after": after, "runs": page.posviz_started - started, "drawn": page.evaluate(DRAWN),
            "base": urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["base"][0]}


def test_letting_go_draws_the_prefetched_exact_figure_before_its_rerun_or_else_the_rerun_s(page, app_url):
    """When the learner lets go, the chart fetches the exact figure at the new value (the file the app serves for a
    state's value, or the figure it builds for any other) and draws it while Streamlit's rerun is on its way; the
    rerun names the same figure and does not draw it again. With both unreachable the rerun's figure is drawn instead
    (one more run sends it in the data): the same drawing."""
    prefetched = _release_on_the_heatmap(page, app_url)
    assert prefetched["after"]["prefetched"] == prefetched["before"]["prefetched"] + 1  # drawn before the rerun
    assert prefetched["after"]["exacts"] == prefetched["before"]["exacts"] + 1  # ... and not drawn again by it
    # the rerun names the file, or (its figure no longer kept: the other sliders' states took the store's room)
    # sends the same figure, which the chart already holds
    assert prefetched["after"]["file"] in (None, prefetched["after"]["id"] + ".json") and prefetched["runs"] == 1
    assert prefetched["base"] != "10000"  # the drag moved the base: the figures compared below are another base's

    for blocked in ("**/posviz/exact/**", "**/posviz/figure/**"):  # neither the state's file nor the value's figure
        page.route(blocked, lambda route: route.fulfill(status=404, body=""))
    fallback = _release_on_the_heatmap(page, app_url)
    assert fallback["base"] == prefetched["base"]
    assert fallback["after"]["prefetched"] == 0 and fallback["after"]["file"] is None  # sent in the data at last
    # one more run only where the release's run named a file the page could not fetch (not where it sent the figure)
    assert fallback["after"]["exacts"] == fallback["before"]["exacts"] + 1 and fallback["runs"] in (1, 2)
    assert fallback["drawn"] == prefetched["drawn"] and fallback["after"]["id"] == prefetched["after"]["id"]


# the requests the page made for an address ending in `tail` (a value's figure route or a served file)
REQUESTS_FOR = """(tail) => performance.getEntriesByType('resource').filter((e) => e.name.endsWith(tail)).length"""
# the addresses of the exact figures the page fetched ahead and keeps
KEPT = "() => [...(window.__posvizExactTexts || new Map()).keys()]"


def test_a_slider_reached_for_has_its_next_steps_fetched_so_a_key_press_draws_without_a_request(page, app_url):
    """Reaching for a slider (here: keyboard focus) fetches the exact figures one step either side of its value;
    an arrow key then draws the next one from what was fetched (no request after the press), and its rerun does
    not draw it again."""
    open_page(page, app_url, "RoPE", part="together")
    page.wait_for_function(EXACT)
    slider = page.locator(".st-key-rope-c_max input[type=range]")
    slider.focus()  # c = 24 of 1 … 512: its steps, 23 and 25, are between the 40 states
    page.wait_for_function(f"() => ({KEPT})().filter((u) => /\\/(23|25)$/.test(u)).length === 2")
    page.wait_for_function(f"() => ({REQUESTS_FOR})('/25') === 1")
    started, before = page.posviz_started, page.evaluate(EXACTS)
    slider.press("ArrowRight")
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(EXACT)
    page.wait_for_timeout(300)
    after = page.evaluate(EXACTS)
    assert page.evaluate(REQUESTS_FOR, "/25") == 1  # fetched ahead, once
    assert after["prefetched"] == before["prefetched"] + 1 and after["exacts"] == before["exacts"] + 1
    assert page.posviz_started - started == 1
    assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["c_max"][0] in ("25", "25.0")


# the exact figures of the slider in hand fetched ahead: [fetched, of], and the addresses kept
EXACT_SET = """() => { const c = document.querySelector('.posviz-live-chart');
    const s = (c.dataset.exactSet || '').split('/');
    return {counts: s.length === 2 ? s.map(Number) : null,
            kept: [...((window.__posvizSetTexts || {}).texts || new Map()).keys()]}; }"""


def test_a_slider_with_small_exact_figures_has_all_of_them_fetched_so_a_release_waits_for_no_request(page, app_url):
    """Reaching for a slider whose exact figures are small (NoPE's channels: tens of KB each) fetches the exact
    figure of every state in idle time; a release at a state then draws it from what was fetched (no request for it
    after the release) before the rerun. A slider whose figures are large (the Sinusoidal heatmap's base) fetches
    none of them ahead."""
    open_page(page, app_url, "Distance_biases", part="nope")
    page.wait_for_function(EXACT)
    reach_for(page, "bias.channels")
    page.wait_for_function(f"() => {{ const c = ({EXACT_SET})().counts; return c && c[0] === c[1] && c[1] > 1; }}",
                           timeout=60_000)
    ahead = page.evaluate(EXACT_SET)
    assert ahead["counts"][1] == len(ahead["kept"]) and all("/exact/" in u for u in ahead["kept"])
    before = page.evaluate(EXACTS)
    let_go_at_exact(page, "bias.channels", 12, moves=6)
    page.wait_for_timeout(300)
    after = page.evaluate(EXACTS)
    assert after["prefetched"] == before["prefetched"] + 1 and after["exacts"] == before["exacts"] + 1
    drawn = next(u for u in ahead["kept"] if u.endswith(after["id"] + ".json"))  # a state's file, fetched ahead
    assert page.evaluate(REQUESTS_FOR, drawn.rsplit("/", 1)[1]) == 1  # once, before the drag: not at release

    open_page(page, app_url, "Sinusoidal")
    page.wait_for_function(EXACT)
    reach_for(page, "sinusoidal.base")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    page.wait_for_timeout(500)
    large = page.evaluate("""() => { const c = document.querySelector('.posviz-live-chart');
        const set = window.__posvizStates[c.posvizPayload.chart + '|sinusoidal.base'];
        return c.posvizExactBytes * set.values.length; }""")
    assert large > 1_000_000 and page.evaluate(EXACT_SET)["counts"] is None


def test_a_release_keeps_the_size_of_the_figure_it_drew_so_large_figures_are_still_not_all_fetched(page, app_url):
    """After a release whose rerun names the file the chart already drew (the Sinusoidal heatmap's base), the chart
    still knows that figure's size, not the size of the short message naming it: reaching for the slider again
    fetches none of its large exact figures ahead (tens of MB for a slider of 40 states)."""
    released = _release_on_the_heatmap(page, app_url)
    assert released["after"]["prefetched"] == released["before"]["prefetched"] + 1  # held: not drawn again
    reach_for(page, "sinusoidal.base")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    page.wait_for_timeout(500)
    drawn, fetched = page.evaluate("""(tail) => { const c = document.querySelector('.posviz-live-chart');
        const file = performance.getEntriesByType('resource').find((e) => e.name.endsWith(tail));
        return [c.posvizExactBytes, file.decodedBodySize]; }""", "/" + released["after"]["id"] + ".json")
    assert drawn == fetched  # the figure's size (where the rerun named its file: not the short message's)
    assert page.evaluate(EXACT_SET)["counts"] is None


def test_a_thumb_resting_during_a_drag_has_the_figure_under_it_fetched_before_the_hand_lets_go(page, app_url):
    """A hand slows before it lets go: where the thumb rests during a drag (the Sinusoidal heatmap's base, whose
    exact figures are too large to fetch all ahead), the chart fetches the exact figure under it while the pointer
    is still down; letting go there draws that figure, with no request for it after the release."""
    open_page(page, app_url, "Sinusoidal")
    page.wait_for_function(EXACT)
    box = reach_for(page, "sinusoidal.base")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    page.wait_for_timeout(500)  # the steps either side, fetched on reaching for it
    kept = set(page.evaluate(KEPT))
    thumb = box.locator("[data-testid=stSliderThumbValue]").bounding_box()
    x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] + 8
    before = page.evaluate(EXACTS)
    page.mouse.move(x, y)
    page.mouse.down()
    for _ in range(8):  # some steps from where it was: not a step either side, fetched already
        x -= 8
        page.mouse.move(x, y)
        page.wait_for_timeout(16)
    value = box.locator("input[type=range]").input_value()
    page.wait_for_timeout(400)  # the hand rests (a slow move may have rested on the way too)
    rested = [u for u in page.evaluate(KEPT) if u not in kept]  # asked for while the pointer is down
    assert box.locator("input[type=range]").input_value() == value
    page.mouse.up()
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(EXACT)
    page.wait_for_timeout(300)
    after = page.evaluate(EXACTS)
    assert after["prefetched"] == before["prefetched"] + 1 and after["exacts"] == before["exacts"] + 1
    drawn = [u for u in rested if u.endswith("/" + after["id"] + ".json")]  # a state's file, fetched at the rest
    assert len(drawn) == 1 and page.evaluate(REQUESTS_FOR, drawn[0].rsplit("/", 1)[1]) == 1


def test_the_chart_keeps_its_height_after_a_key_press_and_a_release(page, app_url):
    """The exact figure drawn again after a key press or a release keeps its height on the page: its plot was sized
    to 100 % of a box whose height was the plot's own, 0 px, and the figure spilled over the caption below it."""
    height = """() => { const c = document.querySelector('.posviz-live-chart');
        return [c.getBoundingClientRect().height, c._fullLayout.height, Number(c.dataset.exacts || 0)]; }"""
    open_page(page, app_url, "Sinusoidal", part="table")
    page.wait_for_function(EXACT)
    before = page.evaluate(height)
    assert before[0] == before[1] > 300
    slider = page.locator(".st-key-sinusoidal-n input[type=range]")
    slider.focus()
    page.wait_for_timeout(500)
    slider.press("ArrowRight")
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(EXACT)
    page.wait_for_timeout(300)
    after = page.evaluate(height)
    assert after[2] > before[2] and after[0] == after[1] == before[1]  # drawn again, as tall as before
    let_go_at_exact(page, "sinusoidal.n", -5, moves=6)
    page.wait_for_timeout(300)
    released = page.evaluate(height)
    assert released[2] > after[2] and released[0] == released[1] == before[1]


def test_a_rerun_s_payload_handed_over_after_a_newer_one_is_not_drawn(page, app_url):
    """Streamlit hands chart.js a rerun's data once the module has loaded, and two reruns' data that came while it
    loaded can arrive in either order (a page's first run, then the rerun presenter mode's scale asks for: the
    figure stayed at the old scale's font). Here the chart module is handed a newer payload, then an older one."""
    open_page(page, app_url, "Sinusoidal", part="table")
    page.wait_for_function(EXACT)
    data = "() => document.querySelector('.posviz-live-chart').posvizData"
    older = page.evaluate(data)
    page.locator(".st-key-sinusoidal-n input[type=range]").focus()
    page.locator(".st-key-sinusoidal-n input[type=range]").press("ArrowRight")
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(f"(older) => ({data})() !== older", arg=older)
    newer = page.evaluate(data)
    drawn = page.evaluate("""async ([source, newer, older]) => {
        const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
        const chartModule = await import(url);
        const box = document.createElement("div");
        document.body.appendChild(box);
        for (const data of [newer, older]) chartModule.default({ data, parentElement: box, setTriggerValue: () => {} });
        const chart = box.querySelector(".posviz-live-chart");
        for (let i = 0; i < 200 && chart.dataset.shown !== "exact"; i++) await new Promise((r) => setTimeout(r, 50));
        await new Promise((r) => setTimeout(r, 500)); // the older payload's draw would have come by now
        return [chart.posvizExactId, Number(chart.dataset.draws)];
    }""", [component_script(), newer, older])
    assert drawn == [json.loads(newer)["exactId"], 1] and json.loads(older)["exactId"] != drawn[0]


def test_no_still_is_drawn_while_a_slider_is_held(page, app_url):
    """Drawing a still takes Plotly.js longer than a frame, so while a slider is held (here pressed and not yet
    moved, its states already fetched) no chart draws one; they are drawn once the hand lets go."""
    open_page(page, app_url, "Sinusoidal")
    page.wait_for_function(EXACT)
    box = page.locator(".st-key-sinusoidal-base").first
    box.scroll_into_view_if_needed()
    thumb = box.locator("[data-testid=stSliderThumbValue]").bounding_box()
    page.mouse.move(thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] + 8)
    page.mouse.down()  # the press reaches for the slider too: its states are fetched
    page.wait_for_function("() => !!document.querySelector('.st-key-sinusoidal-base').dataset.posvizStates",
                           timeout=60_000)
    page.wait_for_timeout(1500)
    held = page.evaluate("() => document.querySelector('.posviz-live-chart').dataset.stills || ''")
    page.mouse.up()
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(STILLS_READY, timeout=60_000)
    assert held == "" or held.startswith("0/")


def test_a_key_going_down_draws_the_figure_at_the_new_value_before_the_key_comes_up(page, app_url):
    """An arrow key moves the thumb as it goes down; the chart draws the exact figure at the new value then (here
    one fetched ahead), not when the key comes up; the key's rerun, after it comes up, does not draw it again."""
    open_page(page, app_url, "RoPE", part="together")
    page.wait_for_function(EXACT)
    slider = page.locator(".st-key-rope-c_max input[type=range]")
    slider.focus()
    page.wait_for_function(f"() => ({KEPT})().filter((u) => /\\/(23|25)$/.test(u)).length === 2")
    before = page.evaluate(EXACTS)
    page.keyboard.down("ArrowRight")
    page.wait_for_function(f"(n) => ({EXACTS})().prefetched > n", arg=before["prefetched"], timeout=10_000)
    held = page.evaluate(EXACTS)  # the key is still down
    page.keyboard.up("ArrowRight")
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_timeout(300)
    after = page.evaluate(EXACTS)
    assert held["exacts"] == before["exacts"] + 1 and after["exacts"] == held["exacts"]
    assert after["id"] == held["id"] and slider.input_value() in ("25", "25.0")


def test_after_a_drag_a_key_press_ends_on_the_exact_figure_not_a_still(page, app_url):
    """A drag and release, then arrow keys back and forth on the same slider (Distance biases' head count, whose
    figure is the same at neighbouring counts): after each press the chart shows the exact figure again, never
    the still it showed while the key was down."""
    open_page(page, app_url, "Distance_biases", part="rotation")
    page.wait_for_function(EXACT)
    box = page.locator(".st-key-bias-n_heads").first
    if not box.is_visible():  # in a folded sidebar group: opened, as a lecturer would
        box.locator("xpath=ancestor::details[1]/summary").click()
    let_go_at_exact(page, "bias.n_heads", -14, moves=4)
    slider = page.locator(".st-key-bias-n_heads input[type=range]")
    shown = []
    for key in ("ArrowRight", "ArrowLeft", "ArrowRight", "ArrowRight"):
        slider.focus()
        slider.press(key)
        page.wait_for_selector(IDLE, state="attached")
        page.wait_for_timeout(400)
        shown.append(page.evaluate("() => document.querySelector('.posviz-live-chart').dataset.shown"))
    assert shown == ["exact"] * 4


# the sliders whose states the page is fetching ahead of need (the st-key class of each slider's box)
AHEAD = """() => [...(window.__posvizAhead || [])]
    .map((a) => [...a.box.classList].find((c) => c.startsWith('st-key-')))"""


def test_states_fetched_ahead_stop_when_the_hand_reaches_for_another_slider_and_are_asked_again(page, app_url):
    """Once the page is quiet, the chart fetches the states of its first sliders ahead of need. The learner reaching
    for one of them stops the fetch of the other (the server then stops building it, and the CPU and the states
    route are the slider in hand's); the stopped one is asked again once the page has been quiet again."""
    held = []
    page.route("**/states/*", lambda route: held.append(route))  # both fetches stay under way until let through
    open_page(page, app_url, "Sinusoidal")
    page.wait_for_function(f"() => ({AHEAD})().length === 2", timeout=30_000)
    first, second = page.evaluate(AHEAD)
    box = page.locator("." + second).first
    box.scroll_into_view_if_needed()
    box.hover()  # reaching for the second slider
    page.wait_for_function(f"(k) => ({AHEAD})().join() === k", arg=second, timeout=10_000)
    assert page.evaluate("() => window.__posvizAheadStopped") == 1  # the first's fetch, and only it
    page.unroute("**/states/*")
    for route in held:
        with contextlib.suppress(PlaywrightError):  # the stopped fetch's request is gone
            route.continue_()
    page.mouse.move(5, 5)  # the hand leaves; the page is quiet again
    page.wait_for_function("(k) => !!document.querySelector('.' + k).dataset.posvizStates", arg=first,
                           timeout=30_000)
    page.wait_for_function("(k) => !!document.querySelector('.' + k).dataset.posvizStates", arg=second,
                           timeout=30_000)
    assert page.evaluate(AHEAD) == [] and len(held) == 2
