// Unit tests of posviz/ui/live/chart.js's pure functions (node's own test runner: node --test tests/js/). What needs a page
// (stills, overlays, the prefetch of a figure) is tested in a browser by tests/browser/test_live.py.
import assert from "node:assert/strict";
import test from "node:test";

import {
  DENSE, atStop, dataAt, drawnData, exactUrl, isDense, lengthOf, merged, nearest, newConfig, olderThanDrawn, patchOf, restOf, signature, sliderFrame,
  sliderValue, stateFigure, steps, withSliderAt,
} from "../../posviz/ui/live/chart.js";

test("a slider's value: its position, or the option at it for an index slider", () => {
  assert.equal(sliderValue({ value: "2.5" }, { index: false }), 2.5);
  assert.equal(sliderValue({ value: "1.6" }, { index: true, options: [10, 100, 1000] }), 1000);
});

test("the nearest state: by value on a linear slider, by ratio on a log one", () => {
  assert.equal(nearest({ log: false }, [1, 10, 20], 14), 1);
  assert.equal(nearest({ log: false }, [1, 10, 20], 16), 2);
  // 3.5 is nearer 1 than 10 in value, but nearer 10 in ratio (3.5 / 1 > 10 / 3.5)
  assert.equal(nearest({ log: true }, [1, 10], 3.5), 1);
  assert.equal(nearest({ log: false }, [1, 10], 3.5), 0);
});

test("a frame's change merges into a trace: nested objects key by key, arrays and encoded arrays whole", () => {
  const trace = { x: [1, 2], marker: { color: "red", size: 3 }, y: { bdata: "AA==", dtype: "f4" } };
  const out = merged(trace, { marker: { size: 5 }, x: [3], y: { bdata: "AQ==", dtype: "f4" } });
  assert.deepEqual(out, { x: [3], marker: { color: "red", size: 5 }, y: { bdata: "AQ==", dtype: "f4" } });
  assert.deepEqual(trace.marker, { color: "red", size: 3 }); // the held trace is not changed
});

// a position slider stopping at every 4th of 13 frames, as a long animation's does: stop k shows frame 4k
const stops = (active) => ({ sliders: [{ active, steps: ["0", "4", "8", "12"].map((n) => ({ args: [[n], {}] })) }] });
const thirteen = Array.from({ length: 13 }, (_, i) => ({ name: String(i) }));

test("an animation's position is a frame: the slider's stop names the frame it shows", () => {
  assert.equal(sliderFrame(stops(2), thirteen), 8);
  assert.equal(sliderFrame(stops(0), thirteen), 0);
  assert.equal(sliderFrame({ title: "t" }, thirteen), 0); // no slider: the first frame
  // the stop nearest a position, and the frame it shows (a position between stops goes to the nearer)
  const at = atStop(stops(0), thirteen, 7);
  assert.equal(at.frame, 8);
  assert.equal(at.layout.sliders[0].active, 2);
  assert.equal(atStop(stops(0), thirteen, 100).frame, 12);
  assert.deepEqual(withSliderAt({ title: "t" }, 3), { title: "t" }); // no slider: the layout as it was
});

test("an animated figure's traces at a frame: the frame's changes merged into the traces it names", () => {
  const fig = { data: [{ y: [0] }, { y: [0], name: "n" }], frames: [0, 1, 2].map((i) => ({ traces: [1], data: [{ y: [i] }] })) };
  assert.deepEqual(dataAt(fig, 2, 0), [{ y: [0] }, { y: [2], name: "n" }]);
  assert.equal(dataAt(fig, 1, 1), fig.data); // the frame its own traces show: as they are
  assert.deepEqual(fig.data[1], { y: [0], name: "n" }); // the figure is not changed
});

test("a state's figure: its own traces, the shared ones where it has none, its frame at the nearest stop", () => {
  const set = { common: [{ name: "shared" }, null] };
  const state = {
    data: [null, { name: "own", y: [0] }],
    layout: stops(0),
    frames: [0, 8, 12].map((index) => ({ index, name: String(index), traces: [1], data: [{ y: [index] }] })),
  };
  const fig = stateFigure(set, state, "tpl", 9);
  assert.deepEqual(fig.data, [{ name: "shared" }, { name: "own", y: [8] }]);
  assert.equal(fig.layout.template, "tpl");
  assert.equal(fig.layout.sliders[0].active, 2); // the stop showing frame 8, not stop 8
  assert.equal(stateFigure(set, state, "tpl", 11).layout.sliders[0].active, 3);
});

const axes = { xaxis: { range: [0, 1] }, yaxis: { range: [0, 1] } };

test("a trace can be patched in only if Plotly.animate redraws all that changed, over fixed axes", () => {
  assert.notEqual(restOf({ type: "scatter", x: [1] }, axes), null);
  assert.equal(restOf({ type: "scatter", x: [1] }, { ...axes, yaxis: { autorange: true } }), null);
  assert.equal(restOf({ type: "heatmap", z: [[1]] }, axes), null);
  assert.notEqual(restOf({ type: "scatter", fill: "tonexty" }, axes), null); // a band: redrawn with its partner
  // a marker colour on a fixed colour scale is redrawn by animate: it is not part of what must stay
  const a = restOf({ type: "scatter", marker: { color: [1], cmin: 0, cmax: 1 } }, axes);
  const b = restOf({ type: "scatter", marker: { color: [0], cmin: 0, cmax: 1 } }, axes);
  assert.equal(a, b);
});

test("the patch from one exact figure to the next: the run of changed traces, or none if anything else moved", () => {
  const fig = (ys, title = "a", name = "n") => ({
    data: ys.map((y) => ({ type: "scatter", y: [y], name })), layout: { ...axes, title }, frames: [],
  });
  const held = signature(fig([1, 2, 3]));
  const same = { title: false, frames: null, stops: false };
  assert.deepEqual(patchOf(held, signature(fig([1, 9, 8]))), { ...same, traces: [1, 2] });
  assert.deepEqual(patchOf(held, signature(fig([7, 2, 8]))), { ...same, traces: [0, 1, 2] });
  assert.deepEqual(patchOf(held, signature(fig([1, 2, 3], "b"))), { ...same, traces: [], title: true });
  assert.equal(patchOf(held, signature(fig([1, 9, 3], "a", "m"))), null); // a legend name: Plotly.react
  assert.equal(patchOf(held, signature(fig([1, 2]))), null);
  assert.equal(patchOf(null, held), null);
});

test("an animation with other frames is patched in with its slider; one with another layout is not", () => {
  const clip = (n, active, ys, height = 300) => ({
    data: ys.map((y) => ({ type: "scatter", y: [y] })),
    layout: { ...axes, height, sliders: [{ active, steps: thirteen.slice(0, n).map((f) => ({ args: [[f.name], {}] })) }] },
    frames: thirteen.slice(0, n).map((f) => ({ ...f, data: [{ y: [Number(f.name)] }] })),
  });
  const held = signature(clip(10, 3, [1, 2]));
  // the same stops, the slider elsewhere: nothing but the traces
  assert.deepEqual(patchOf(held, signature(clip(10, 5, [1, 9]))), { traces: [1], title: false, frames: null, stops: false });
  // more frames: none deleted, three added; fewer: the last three deleted, last first
  assert.deepEqual(patchOf(held, signature(clip(13, 4, [1, 9]))), { traces: [1], title: false, frames: [], stops: true });
  assert.deepEqual(patchOf(signature(clip(13, 4, [1, 2])), signature(clip(10, 4, [1, 2]))).frames, [12, 11, 10]);
  // frames that adding could not put in order (a new one before a kept one): Plotly.react
  const shifted = clip(10, 3, [1, 9]);
  shifted.frames = thirteen.slice(3, 13).map((f) => ({ ...f, data: [] }));
  shifted.layout.sliders[0].steps = shifted.frames.map((f) => ({ args: [[f.name], {}] }));
  assert.deepEqual(patchOf(held, signature(shifted)).frames, [2, 1, 0]); // 0-2 go, 10-12 come after 3-9: in order
  shifted.frames.reverse();
  assert.equal(patchOf(held, signature(shifted)), null);
  assert.equal(patchOf(held, signature(clip(13, 4, [1, 9], 400))), null); // a new height: Plotly.react
  const moved = clip(10, 3, [1, 2]);
  moved.layout.sliders[0].x = 0.5;
  assert.equal(patchOf(held, signature(moved)), null); // the slider moved: Plotly.react
});

test("a band filled to the trace before it is redrawn with that trace, whichever of the two changed", () => {
  // low edge, high edge filled to it, a mean line; then a second band
  const fills = ["none", "tonexty", "none", "none", "tonexty"];
  const fig = (ys) => ({
    data: ys.map((y, k) => ({ type: "scatter", y: [y], fill: fills[k] })), layout: axes, frames: [],
  });
  const held = signature(fig([1, 2, 3, 4, 5]));
  assert.deepEqual(patchOf(held, signature(fig([1, 9, 3, 4, 5]))).traces, [0, 1]); // the high edge: with the low
  assert.deepEqual(patchOf(held, signature(fig([9, 2, 3, 4, 5]))).traces, [0, 1]); // the low edge: and the band on it
  assert.deepEqual(patchOf(held, signature(fig([1, 2, 9, 4, 5]))).traces, [2]); // the mean line alone
  assert.deepEqual(patchOf(held, signature(fig([1, 2, 9, 9, 5]))).traces, [2, 3, 4]);
});

test("a figure no trace of which could be patched is not written out trace by trace, and is drawn with react", () => {
  const grid = (z, title) => ({ data: [{ type: "heatmap", z: [[z]] }], layout: { ...axes, title }, frames: [] });
  const held = signature(grid(1, "a"));
  assert.equal(held.traces, null);
  assert.deepEqual(held.rests, [null]);
  assert.equal(patchOf(held, signature(grid(1, "b"))), null); // only the title moved: still Plotly.react
  assert.notEqual(signature({ ...grid(1, "a"), data: [{ type: "scatter", y: [1] }] }).traces, null);
});

test("the steps a key press reaches: one option either side of the value, one at the ends of the track", () => {
  const live = { options: [1, 2, 3, 4], current: 2, log: false };
  assert.deepEqual(steps(live), [1, 3]);
  assert.deepEqual(steps({ ...live, current: 1 }), [2]);
  assert.deepEqual(steps({ ...live, current: 4 }), [3]);
  assert.deepEqual(steps({ ...live, current: 2.0000000001 }), [1, 3]); // a float slider's value, as the page has it
  assert.deepEqual(steps({ options: [100, 1000, 10000], current: 1000, log: true }), [100, 10000]);
});

test("an exact figure's address: a state's served file at its value, else the slider's figure route", () => {
  const payload = { files: "/posviz/exact/" };
  const live = { figure: "/posviz/figure/abc" };
  const set = { values: [1, 3], files: ["one.json", null] };
  assert.equal(exactUrl(payload, live, set, 1), "/posviz/exact/one.json");
  assert.equal(exactUrl(payload, live, set, 3), "/posviz/figure/abc/3"); // a state with no file written
  assert.equal(exactUrl(payload, live, set, 2), "/posviz/figure/abc/2");
  assert.equal(exactUrl(payload, live, null, 0.5), "/posviz/figure/abc/0.5"); // no states yet
});

test("an array's length: a list, or plotly's base64 typed array by its bytes and item size", () => {
  assert.equal(lengthOf([1, 2, 3]), 3);
  assert.equal(lengthOf(null), 0);
  const f4 = Buffer.from(new Float32Array([1, 2, 3]).buffer).toString("base64"); // 12 bytes, no padding
  const u1 = Buffer.from(new Uint8Array([1, 2, 3, 4]).buffer).toString("base64"); // 4 bytes, "==" padding
  const f8 = Buffer.from(new Float64Array([1, 2]).buffer).toString("base64"); // 16 bytes, "=" padding
  assert.equal(lengthOf({ dtype: "f4", bdata: f4 }), 3);
  assert.equal(lengthOf({ dtype: "u1", bdata: u1 }), 4);
  assert.equal(lengthOf({ dtype: "f8", bdata: f8 }), 2);
});

test("dense markers are drawn with WebGL where the browser has it; lines, fills and small traces stay SVG", () => {
  const many = Array.from({ length: DENSE + 1 }, (_, i) => i);
  const few = many.slice(0, DENSE);
  const dense = { type: "scatter", mode: "markers", x: many, y: many };
  assert.ok(isDense(dense));
  assert.ok(isDense({ mode: "markers", y: many })); // plotly's default type is scatter
  assert.ok(!isDense({ ...dense, x: few, y: few }));
  assert.ok(!isDense({ ...dense, mode: "lines" }));
  assert.ok(!isDense({ ...dense, fill: "tozeroy" }));
  assert.ok(!isDense({ ...dense, type: "heatmap" }));
  const line = { type: "scatter", mode: "lines", x: many, y: many };
  const data = [line, dense];
  const which = data.map(isDense);
  assert.deepEqual(drawnData(data, which, true).map((t) => t.type), ["scatter", "scattergl"]);
  assert.equal(dense.type, "scatter"); // the figure itself is not changed
  // a state's thinned copy of a dense trace is drawn as the exact figure's is
  const thinned = [line, { ...dense, x: few.slice(0, 10), y: few.slice(0, 10) }];
  assert.deepEqual(drawnData(thinned, which, true).map((t) => t.type), ["scatter", "scattergl"]);
  assert.equal(drawnData(data, which, false), data); // no WebGL: as the figure is
  assert.equal(restOf(dense, { xaxis: { range: [0, 1] }, yaxis: { range: [0, 1] } }), null); // redrawn, not patched
});

test("a config goes to Plotly.react only when it is new, so a drawn chart keeps the settings it was sized with", () => {
  const chart = {};
  const config = { displaylogo: false, responsive: true };
  assert.equal(newConfig(chart, config), config); // not drawn yet
  chart._context = {}; // drawn: Plotly.js keeps its settings here
  assert.equal(newConfig(chart, { ...config }), undefined);
  const other = { ...config, displaylogo: true };
  assert.equal(newConfig(chart, other), other);
});

test("a payload older than the one the chart drew is not drawn; the first one and newer ones are", () => {
  const chart = {};
  assert.equal(olderThanDrawn(chart, { order: 5 }), false); // nothing drawn yet
  chart.posvizOrder = 5;
  assert.equal(olderThanDrawn(chart, { order: 4 }), true);
  assert.equal(olderThanDrawn(chart, { order: 5 }), false); // the same rerun's payload, handed again
  assert.equal(olderThanDrawn(chart, { order: 6 }), false);
});
