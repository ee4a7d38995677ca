// A live posviz figure (Streamlit v2 component, no iframe: posviz/ui/live/component.py). It draws the exact
// figure with Plotly.js and, while one of the page's sliders named in `live` is dragged, shows the precomputed
// state nearest to the thumb (no server round trip). When the learner lets go, Streamlit reruns once and brings
// the exact figure at the new value: in the data, or as the name of a file the app serves.
// data: JSON text {plotly, files, config, chart, exactId, exact, exactFile, live: [{key, log, index, options,
// current, version}]}. `plotly`: the address of Plotly.js (the installed plotly's own bundle); `files`: the
// address of the exact figures the app serves (both behind the server's base path: posviz/ui/served.py).
// `exact` is the figure, or null when it is the served file `exactFile`; `exactId` names the figure either way.
// `options` are the slider's values in order (with `index`, the thumb reports a position).
// The states of a slider are fetched from its `states` address when the learner reaches for it (those of the
// chart's first sliders also once the page is quiet, until a hand reaches for another: fetchAhead), filed as
// window.__posvizStates[chart|key] = {version, values, files, common, states}; a set built for other settings
// (another version) is not used. A trace that is null in a state is the same in all of them: `common[its index]`.
// An animated figure (RoPE's clock) keeps its position: a state carries some of its frames, the one nearest
// to the position on screen is shown, and the exact figure opens at that position again.
// Prefetch: the exact figure at each state's value is also a served file (its name in the set's `files`), so
// when the learner lets go at such a value the chart fetches that figure and draws it while Streamlit's rerun
// is on its way; the rerun then names the same figure (same `exactId`: not redrawn) with the numbers and
// captions. A value without a file is fetched from the slider's `figure` address; a file that cannot be
// fetched makes the chart ask for one more run (its `missing` trigger), which sends the figure itself. The
// exact figures one step either side of the value are fetched when the learner reaches for the slider, so a
// key press draws the next one without waiting for its build; where all the states' files are small, they are
// all fetched then, in idle time, so a release at a state waits for no request. Where the thumb rests during a
// drag (a hand slowing before it lets go), the figure under it is fetched then.
// Stills: so that a drag never waits for Plotly.js, each state is drawn once beforehand, in idle time, by
// Plotly.js into an off-screen box at the chart's width, the state's height and the chart's position, and a copy
// of what it drew is kept; while the thumb moves, the copy of the nearest state is laid over the chart. A state
// without a still yet (a drag in the first seconds) is drawn on the chart with Plotly.react.

function loadPlotly(url) {
  if (!window.__posvizPlotly) {
    window.__posvizPlotly = new Promise((resolve, reject) => {
      if (window.Plotly) return resolve(window.Plotly);
      const tag = document.createElement("script");
      tag.src = url;
      tag.onload = () => resolve(window.Plotly);
      tag.onerror = reject;
      document.head.appendChild(tag);
    });
  }
  return window.__posvizPlotly;
}

// the slider's value from its range input: a value (st.slider) or an index into the options (st.select_slider)
export function sliderValue(input, live) {
  const now = Number(input.value);
  return live.index ? live.options[Math.round(now)] : now;
}

export function nearest(live, values, value) {
  const dist = (v) => (live.log ? Math.abs(Math.log(v) - Math.log(value)) : Math.abs(v - value));
  let best = 0;
  values.forEach((v, i) => { if (dist(v) < dist(values[best])) best = i; });
  return best;
}

// --- an animation's position -------------------------------------------------------------------------------
// A position is a frame's index. The figure's position slider stops at some of its frames (a long animation at
// every k-th), each step naming the frame it shows; plotly keeps the stop in layout.sliders[0].active. A state's
// frames are a few of the figure's, each with its `index` and `name`.

// the frame indices the slider's stops show (-1 for a frame not among `frames`)
function stopFrames(layout, frames) {
  const steps = (layout && layout.sliders && layout.sliders[0] && layout.sliders[0].steps) || [];
  const index = new Map(frames.map((f, i) => [String(f.name), f.index ?? i]));
  return steps.map((s) => index.get(String(s.args[0][0])) ?? -1);
}

// the frame the slider's stop shows
export function sliderFrame(layout, frames) {
  const stop = Number(layout && layout.sliders && layout.sliders[0] && layout.sliders[0].active) || 0;
  return Math.max(0, stopFrames(layout, frames)[stop] ?? 0);
}

// the stop nearest the position `at`: the layout with its slider there and the frame it shows
export function atStop(layout, frames, at) {
  const stops = stopFrames(layout, frames);
  let best = -1;
  stops.forEach((f, k) => { if (f >= 0 && (best < 0 || Math.abs(f - at) < Math.abs(stops[best] - at))) best = k; });
  if (best < 0) return { layout, frame: sliderFrame(layout, frames) };
  return { layout: withSliderAt(layout, best), frame: stops[best] };
}

// the frame the chart shows (the exact figure's slider)
function currentFrame(chart) {
  return chart.posvizExact ? sliderFrame(chart.layout, chart.posvizExact.frames || []) : 0;
}

export function merged(trace, change) {
  const out = { ...trace };
  for (const [k, v] of Object.entries(change)) {
    const nested = v && typeof v === "object" && !Array.isArray(v) && !("bdata" in v) && out[k];
    out[k] = nested ? { ...out[k], ...v } : v;
  }
  return out;
}

// an exact figure fetched from the app: a served file (posviz/ui/live/store.py, ServedFigureFiles) or a live
// slider's figure at a value (its `figure` route), as {text, id}; the few latest are kept, so a rerun that names
// the figure prefetched when the learner let go finds it here. A file is asked as a range (all of it), which
// Streamlit's server sends as it is: a whole-file answer it would first gzip at level 9, tens of ms of its time
// for a figure of a megabyte, while it runs the release's script
const KEPT_TEXTS = 8; // exact figures kept: the latest, and the steps either side of the sliders reached for

function fetchText(url) {
  const id = (r) => r.headers.get("X-Posviz-Id") || url.split("/").pop().replace(/[.]json$/, "");
  return fetch(url, { headers: { Range: "bytes=0-" } }).then((r) => (
    r.ok ? r.text().then((text) => ({ text, id: id(r) })) : Promise.reject(new Error(r.status))));
}

function exactText(url) {
  window.__posvizExactTexts = window.__posvizExactTexts || new Map();
  const texts = window.__posvizExactTexts;
  const held = window.__posvizSetTexts && window.__posvizSetTexts.texts.get(url);
  if (held) return held;
  if (!texts.has(url)) {
    texts.set(url, fetchText(url));
    texts.get(url).catch(() => texts.delete(url));
    while (texts.size > KEPT_TEXTS) texts.delete(texts.keys().next().value);
  }
  return texts.get(url);
}

// the exact figure of a live slider at `value`: a state's served file, else the slider's figure route
export function exactUrl(payload, live, set, value) {
  const file = set && set.files ? set.files[set.values.indexOf(value)] : null;
  return file ? payload.files + file : live.figure + "/" + value;
}

// the slider's values one step either side of its value now
export function steps(live) {
  const i = nearest(live, live.options, live.current);
  return [live.options[i - 1], live.options[i + 1]].filter((v) => v !== undefined);
}

// the exact figures a key press on the slider draws next, fetched ahead
function fetchSteps(chart, live) {
  const set = statesOf(chart, live);
  for (const v of steps(live)) exactText(exactUrl(chart.posvizPayload, live, set, v)).catch(() => {});
}

// The exact figures of every state of the slider in hand, fetched in idle time where they are small (all of them
// within EXACT_SET_BYTES, as the size of the figure on screen says): a release at a state then waits for no
// network, only for Plotly.js to draw. One slider's at a time (the latest reached), kept apart from KEPT_TEXTS.
const EXACT_SET_BYTES = 1_000_000;

async function fetchExactSet(chart, live, set) {
  const bytes = (chart.posvizExactBytes || Infinity) * set.values.length;
  if (!set.files || bytes > EXACT_SET_BYTES) return;
  // every chart that follows the slider in hand fetches its own (one slider's at a time: the latest reached)
  if ((window.__posvizSetTexts || {}).slider !== live.key) {
    window.__posvizSetTexts = { slider: live.key, texts: new Map(), charts: new Set() };
  }
  const pinned = window.__posvizSetTexts;
  const key = chart.posvizPayload.chart + "|" + live.version;
  if (pinned.charts.has(key)) return;
  pinned.charts.add(key);
  const files = set.files.filter(Boolean).length;
  let done = 0;
  const count = () => { chart.dataset.exactSet = done + "/" + files; }; // benchmarks and tests: fetched ahead
  count();
  const at = set.values.indexOf(live.current);
  const near = set.values.map((v, i) => i).sort((a, b) => Math.abs(a - at) - Math.abs(b - at));
  // only when the page has nothing else to do: after the stills, never during a drag or beside a rerun's draw
  const idle = () => new Promise((go) => (window.requestIdleCallback ? requestIdleCallback(go) : setTimeout(go, 100)));
  for (const i of near.filter((k) => set.files[k])) {
    await idle();
    while (chart.isConnected && (sliderHeld() || chart.dataset.shown !== "exact" || chart.posvizPredrawing)) {
      await new Promise((go) => setTimeout(go, 200));
      await idle();
    }
    if (window.__posvizSetTexts !== pinned || !chart.isConnected) { // another slider reached for since
      delete chart.dataset.exactSet;
      return;
    }
    const url = chart.posvizPayload.files + set.files[i];
    // kept apart from KEPT_TEXTS (which holds the steps either side for the next key press)
    const text = (window.__posvizExactTexts || new Map()).get(url) || fetchText(url);
    pinned.texts.set(url, text);
    await text.catch(() => pinned.texts.delete(url));
    done += 1;
    count();
  }
}

// the states of a live slider, fetched from the app once per settings (the set's `version`) and filed where
// statesOf finds them; the chart then draws their stills in idle time. A fetch ahead of need (fetchAhead) passes
// `stopped`, what to do when a hand reaching for another slider stops it (stopAhead)
function fetchStates(chart, live, box, stopped) {
  const key = chart.posvizPayload.chart + "|" + live.key;
  window.__posvizStates = window.__posvizStates || {};
  window.__posvizAsked = window.__posvizAsked || new Set();
  if (statesOf(chart, live) || window.__posvizAsked.has(live.states)) return;
  window.__posvizAsked.add(live.states);
  const ahead = stopped ? { box, controller: new AbortController() } : null;
  if (ahead) aheadFetches().add(ahead);
  const asked = fetch(live.states, { signal: ahead?.controller.signal });
  asked.then((r) => (r.ok ? r.json() : Promise.reject(new Error(r.status)))).then((set) => {
    // a set asked for before a rerun changed its settings may come after the one asked for since: not filed
    const now = chart.posvizPayload.live.find((l) => l.key === live.key);
    if (now && now.version !== live.version) return;
    window.__posvizStates[key] = { ...set, version: live.version };
    if (box) box.dataset.posvizStates = String(set.values.length); // benchmarks: how fast a drag crosses states
    window.dispatchEvent(new Event("posviz-states"));
  }).catch((e) => {
    window.__posvizAsked.delete(live.states);
    if (ahead?.controller.signal.aborted) stopped();
    else console.warn("posviz states", e);
  }).finally(() => { if (ahead) aheadFetches().delete(ahead); });
}

// Ahead of need: the states of the page's first sliders, fetched once the page has been quiet PREFETCH_AFTER_MS,
// so that their first drag needs no wait. The server builds them (tens of figures at large settings, seconds of
// its time), on the computer that also draws the page when a lecturer runs the app on a laptop. A hand that
// reaches for another slider (over it, a press, focus, a key) stops those fetches, and the server stops
// building them: the CPU goes to the slider in hand, and its own states are not queued behind them. A stopped
// fetch is asked again once the page has been quiet as long again.
function aheadFetches() {
  window.__posvizAhead = window.__posvizAhead || new Set(); // {box, controller} of the fetches under way
  return window.__posvizAhead;
}

function stopAhead(target) {
  for (const ahead of aheadFetches()) {
    if (ahead.box.contains(target)) continue; // the slider reached for: its states are wanted now
    ahead.controller.abort();
    window.__posvizAheadStopped = (window.__posvizAheadStopped || 0) + 1; // tests: fetches a hand stopped
  }
}

function fetchAhead(chart, live, box, signal) {
  const wait = () => {
    if (signal.aborted || !chart.isConnected) return;
    const timer = setTimeout(() => later(go), PREFETCH_AFTER_MS);
    signal.addEventListener("abort", () => clearTimeout(timer));
  };
  const go = () => {
    if (signal.aborted || !chart.isConnected) return;
    if (sliderHeld()) return wait();
    fetchStates(chart, live, box, wait);
  };
  wait();
}

export function withSliderAt(layout, index) {
  if (!layout.sliders || !layout.sliders.length) return layout;
  return { ...layout, sliders: layout.sliders.map((s, i) => (i ? s : { ...s, active: index })) };
}

// a state as a figure: its own traces, the shared ones, and its frame at the stop nearest to the position `at`
export function stateFigure(set, state, template, at) {
  const data = state.data.map((t, k) => t || set.common[k]);
  let layout = { ...state.layout, template };
  if (state.frames && state.frames.length) {
    const stop = atStop(layout, state.frames, at);
    const frame = state.frames.find((f) => f.index === stop.frame) || state.frames[0];
    frame.traces.forEach((k, j) => { data[k] = merged(data[k], frame.data[j]); });
    layout = stop.layout;
  }
  return { data, layout };
}

function statesOf(chart, live) {
  const set = (window.__posvizStates || {})[chart.posvizPayload.chart + "|" + live.key];
  return set && set.version === live.version && set.values.length >= 2 ? set : null;
}

// --- dense markers: drawn with WebGL ------------------------------------------------------------------------
// Plotly.js draws each marker of an SVG scatter as an element of its own: some thousands take it hundreds of ms
// a draw (PoSE's 16,384 position ids about 300 ms), too slow to follow a slider; its WebGL scatter draws the same
// markers in tens of ms. The figures stay SVG scatters (an export is vector art); the chart draws a markers-only
// trace of more than DENSE points with WebGL, where the browser has it.
export const DENSE = 1000;
const ITEM_BYTES = { i1: 1, u1: 1, i2: 2, u2: 2, i4: 4, u4: 4, f4: 4, f8: 8 };

// how many values an array of a figure holds: a list, or plotly's base64 typed array {dtype, bdata}
export function lengthOf(values) {
  if (!values) return 0;
  if (Array.isArray(values)) return values.length;
  if (typeof values.bdata !== "string") return 0;
  const b64 = values.bdata;
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.floor((b64.length * 3) / 4 - pad) / (ITEM_BYTES[values.dtype] || 1);
}

export function isDense(trace) {
  return (trace.type || "scatter") === "scatter" && trace.mode === "markers" && (!trace.fill || trace.fill === "none")
    && Math.max(lengthOf(trace.x), lengthOf(trace.y)) > DENSE;
}

function webglWorks() {
  if (window.__posvizWebgl === undefined) {
    const canvas = document.createElement("canvas");
    const gl = canvas.getContext("webgl");
    window.__posvizWebgl = !!gl;
    if (gl) { const lose = gl.getExtension("WEBGL_lose_context"); if (lose) lose.loseContext(); } // one less context
  }
  return window.__posvizWebgl;
}

// the traces as the chart draws them: with WebGL those that are dense in the exact figure (`dense`, by index;
// a state's thinned copy too, so a drag shows them as the release will), where the browser has it (`gl`)
export function drawnData(data, dense, gl) {
  return gl && dense.some(Boolean) ? data.map((t, k) => (dense[k] ? { ...t, type: "scattergl" } : t)) : data;
}

const drawn = (chart, data) => drawnData(data, chart.posvizDense || [], webglWorks());

// Plotly.react rebuilds a chart's settings from a config it is handed and measures the chart again: a chart drawn
// once already has a height, so its plot is then sized to 100 % of a box whose height is that plot's, 0 px, and
// the figure spills over the caption and buttons below it. A config goes to Plotly.react only when it is new
// (the first draw, or settings that changed); otherwise the chart keeps the settings it was drawn with.
export function newConfig(chart, config) {
  const text = JSON.stringify(config);
  if (chart._context && chart.posvizConfigText === text) return undefined;
  chart.posvizConfigText = text;
  return config;
}

// --- let go: the exact figure patched in ------------------------------------------------------------------
// What a new exact figure changed from the one the chart holds, if Plotly.js can patch it in: the same layout but
// for the title and the position slider's stops (its frames may differ), and only what Plotly.animate redraws changed (RoPE's clock at a new base: its
// tips' hover and the wavelength labels). Then Plotly.animate redraws just those traces, as the clock's own
// frames do, instead of Plotly.react redrawing all (at d = 256, 256 labels of which half did not change).
// Anything else (a legend name, a style, an axis that ranges itself over the data) draws with Plotly.react. A
// trace filled to the one before it (a band between a low and a high curve) is redrawn with that one, and with the
// one after it when that one is filled to it. Both are signatures taken as the payload arrives (Plotly.js changes
// the objects it draws).
const ANIMATED = ["x", "y", "text", "hovertext", "customdata"]; // and marker.color on a fixed colour scale

// a trace without what Plotly.animate redraws, and whether it can be patched at all
export function restOf(trace, layout) {
  const axis = (id, letter) => layout[letter + "axis" + (id || letter).slice(1)]; // "x2" -> xaxis2
  const fixed = [axis(trace.xaxis, "x"), axis(trace.yaxis, "y")].every((a) => a && Array.isArray(a.range) &&
                                                                        !a.autorange);
  const ok = trace.type === "scatter" && !isDense(trace) && fixed;
  if (!ok) return null;
  const rest = { ...trace };
  for (const k of ANIMATED) delete rest[k];
  const m = trace.marker;
  if (m && m.cmin !== undefined && m.cmax !== undefined) rest.marker = { ...m, color: null };
  return JSON.stringify(rest);
}

// A figure none of whose traces Plotly.animate could redraw is always drawn with Plotly.react: its traces are not
// written out to be compared (for a heatmap of a megabyte, some ms of the release's time)
export function signature(fig) {
  const rests = fig.data.map((t) => restOf(t, fig.layout));
  return {
    traces: rests.some((r) => r !== null) ? fig.data.map((t) => JSON.stringify(t)) : null,
    rests,
    toNext: fig.data.map((t) => String(t.fill || "").startsWith("tonext")), // filled to the trace before it
    layout: JSON.stringify({ ...fig.layout, title: null, sliders: null }),
    title: JSON.stringify(fig.layout.title),
    // the position slider, wherever it stands (the figure's own still differs with its frames), and its stops
    sliders: JSON.stringify((fig.layout.sliders || []).map((sl) => ({ ...sl, active: null, steps: null }))),
    stops: JSON.stringify((fig.layout.sliders || []).map((sl) => sl.steps)),
    frames: JSON.stringify((fig.frames || []).map((f) => f.name)),
  };
}

export function patchOf(held, next) {
  if (!held?.traces || !next.traces || held.traces.length !== next.traces.length ||
      held.layout !== next.layout || held.sliders !== next.sliders) return null;
  const changed = next.traces.map((t, k) => k).filter((k) => held.traces[k] !== next.traces[k]);
  // every trace from the first changed to the last: Plotly.js keeps the ones it redraws in the order given,
  // so a run of traces keeps the figure's order (what is drawn over what); a fill runs to the trace before it,
  // so a trace filled to a redrawn one, or to which a redrawn one is filled, is redrawn too
  let [first, last] = changed.length ? [changed[0], changed.at(-1)] : [0, -1];
  while (first > 0 && first <= last && next.toNext[first]) first -= 1;
  while (last >= first && last + 1 < next.traces.length && next.toNext[last + 1]) last += 1;
  const traces = next.traces.map((t, k) => k).slice(first, last + 1);
  if (traces.some((k) => next.rests[k] === null || held.rests[k] !== next.rests[k])) return null;
  const frames = held.frames === next.frames ? null : framesSwap(JSON.parse(held.frames), JSON.parse(next.frames));
  if (frames === undefined) return null;
  return { traces, title: held.title !== next.title, frames, stops: held.stops !== next.stops };
}

// How the chart's frames (named `held`) become `next`: the indices of those to delete, last first (Plotly.js sorts
// a list of indices as text, so one at a time), before the new ones are added: same names are replaced in place,
// others appended. Undefined where that would not leave them in next's order (Play plays them in the chart's).
function framesSwap(held, next) {
  const keep = new Set(next);
  const kept = held.filter((n) => keep.has(n));
  const had = new Set(kept);
  if (JSON.stringify(kept.concat(next.filter((n) => !had.has(n)))) !== JSON.stringify(next)) return undefined;
  return held.map((n, i) => (keep.has(n) ? -1 : i)).filter((i) => i >= 0).reverse();
}

// The chart patched to the exact figure `next`, its slider as in `layout`, at frame `at` (see patchOf); `still` is
// the frame next's own traces show. Other frames (RoPE's clock at a new number of frames) come with a new slider,
// relaid out on its own (Plotly.react would redraw every trace: it decodes each array anew, so all look changed).
function patchIn(Plotly, chart, next, patch, { layout, at, still }) {
  for (const i of patch.frames || []) Plotly.deleteFrames(chart, [i]);
  if (next.frames && next.frames.length) Plotly.addFrames(chart, next.frames); // same names: replaced
  const edits = patch.title ? { title: next.layout.title } : {};
  if (patch.stops) {
    layout.sliders.forEach((sl, i) => { edits[`sliders[${i}].steps`] = sl.steps; edits[`sliders[${i}].active`] = sl.active; });
  }
  if (Object.keys(edits).length) Plotly.relayout(chart, edits);
  // the frame at `at` in the same step (each step of Plotly.animate costs a transition), where the traces between
  // it and the patched ones can all be patched too
  const moved = at === still ? [] : (next.frames[at].traces || next.data.map((t, k) => k));
  const all = patch.traces.concat(moved);
  const run = all.length ? next.data.map((t, k) => k).slice(Math.min(...all), Math.max(...all) + 1) : [];
  const together = run.every((k) => next.signature.rests[k] !== null);
  const traces = together ? run : patch.traces;
  const data = together ? dataAt(next, at, still) : next.data;
  const steps = [{ data: traces.map((k) => data[k]), traces }];
  if (!together) steps.push(next.frames[at].name);
  Plotly.animate(chart, steps, { mode: "immediate", transition: { duration: 0 }, frame: { duration: 0, redraw: false } });
}

// the figure's traces at frame `at`, its own traces showing frame `still`
export function dataAt(fig, at, still) {
  if (at === still || !fig.frames || !fig.frames[at]) return fig.data;
  const frame = fig.frames[at], data = fig.data.slice();
  (frame.traces || data.map((t, k) => k)).forEach((k, j) => { data[k] = merged(data[k], frame.data[j]); });
  return data;
}

// --- stills -----------------------------------------------------------------------------------------------
// the position the states are shown at: the exact figure's frame, or the one kept when the drag began
function position(chart) {
  return chart.dataset.holds === "exact" ? currentFrame(chart) : chart.posvizFrame || 0;
}

// what a still depends on besides its state: the set's settings, the chart's width and position, the screen's
// pixels per CSS px (its picture's resolution), and which traces are drawn with WebGL (a release at a value where
// a trace crosses DENSE redraws the stills the new way). Not the chart's height: a state is drawn at its own
// (FLUX.1's grows with its text tokens), so a release that changes the height keeps the stills
function stillKey(chart, set) {
  const full = chart._fullLayout || {};
  const gl = (chart.posvizDense || []).map(Number).join("");
  return [set.version, full.width, position(chart), window.devicePixelRatio || 1, gl].join("|");
}

function stillsFor(chart, live, set) {
  chart.posvizStills = chart.posvizStills || {};
  const all = chart.posvizStills;
  const key = stillKey(chart, set);
  if (!all[live.key] || all[live.key].key !== key) all[live.key] = { key, nodes: [] };
  return all[live.key];
}

// the still of state i, if it is drawn for the chart as it is now (else null: Plotly.react draws the state)
function stillOf(chart, live, set, i) {
  const stills = (chart.posvizStills || {})[live.key];
  return (stills && stills.key === stillKey(chart, set) && stills.nodes[i]) || null;
}

// Plotly.js draws state i in an off-screen box of the chart's width and the state's height (as Plotly.react
// would draw it on the chart); the copy of its plot is the still, and its picture (`posvizPicture`) what a drag
// shows of it
async function drawStill(Plotly, chart, set, i) {
  const { data, layout } = stateFigure(set, set.states[i], chart.posvizTemplate, position(chart));
  const width = chart._fullLayout.width, height = layout.height || chart._fullLayout.height;
  const box = document.createElement("div");
  box.style.cssText = `position:fixed;left:-${width + 100}px;top:0;width:${width}px;height:${height}px;` +
    "visibility:hidden;pointer-events:none";
  document.body.appendChild(box);
  let plot, background;
  try {
    await Plotly.newPlot(box, drawn(chart, data), { ...layout, width, height },
                         { ...chart.posvizPayload.config, responsive: false, staticPlot: true });
    plot = box.querySelector(".plot-container").cloneNode(true); // its SVG layers, text and images
    for (const m of plot.querySelectorAll(".modebar-container")) m.remove();
    await copyCanvases(box, plot);
    plot.dataset.height = String(height);
    background = box._fullLayout.paper_bgcolor;
  } finally {
    const canvases = [...box.querySelectorAll("canvas")];
    Plotly.purge(box);
    box.remove();
    for (const c of canvases) loseContext(c); // the browser keeps few WebGL contexts: the chart's must stay
  }
  // painted from the copy once the box has left the page (the page holds one plot per chart)
  plot.posvizPicture = await pictureOf(plot, width, height, background).catch((e) => {
    console.warn("posviz picture", e); // the still itself is shown instead
    return null;
  });
  return plot;
}

// a copy of a plot drawn with WebGL: its canvases (a clone of a canvas is blank) as images in their place, and
// only the one drawn on (the others are for picking and selections)
async function copyCanvases(box, plot) {
  const from = box.querySelectorAll("canvas");
  const copies = [...plot.querySelectorAll("canvas")];
  await Promise.all(copies.map(async (copy, k) => {
    if (!from[k].classList.contains("gl-canvas-context")) return copy.remove();
    const img = new Image(); // a bitmap for its pixels; the rest of the still stays vector
    img.src = from[k].toDataURL("image/png");
    img.style.cssText = from[k].style.cssText;
    img.className = from[k].className;
    await img.decode();
    copy.replaceWith(img);
  }));
}

// A still as one decoded bitmap: its SVG layers and WebGL images painted in page order onto a canvas at the
// screen's resolution. Showing a state then swaps one image: the SVG subtree of a still (a heatmap's embedded PNG
// decoded again on every insertion, its styles and layout computed again) took a drag down to 35-45 frames a
// second on the heaviest parts. The text keeps the chart's fonts: the figures name installed fonts only.
async function pictureOf(plot, width, height, background) {
  const ratio = window.devicePixelRatio || 1;
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const g = canvas.getContext("2d");
  g.scale(ratio, ratio);
  g.fillStyle = background || "#fff";
  g.fillRect(0, 0, width, height);
  const defs = [...plot.querySelectorAll("svg.main-svg > defs")];
  for (const layer of plot.querySelectorAll("svg.main-svg, img.gl-canvas-context")) {
    const image = layer.tagName === "IMG" ? layer : await svgImage(layer, defs, width, height);
    g.drawImage(image, parseFloat(layer.style.left) || 0, parseFloat(layer.style.top) || 0,
                parseFloat(layer.style.width) || width, parseFloat(layer.style.height) || height);
  }
  const picture = new Image(width, height);
  picture.src = canvas.toDataURL("image/png"); // a string the page frees with the still, unlike a blob's URL
  picture.className = "posviz-live-picture";
  await picture.decode();
  picture.posvizPlot = plot; // the drawing it shows (tests read its lines and texts)
  return picture;
}

// one SVG layer of a plot as an image. An image is a document of its own: the layer takes the plot's
// definitions (a colour bar, drawn in the top layer, fills with a gradient defined in the bottom one), and
// Plotly.js's one style rule that changes the drawing (crisp grid lines) is written on the elements it applies to
async function svgImage(svg, defs, width, height) {
  const copy = svg.cloneNode(true);
  for (const d of defs) if (!svg.contains(d)) copy.prepend(d.cloneNode(true));
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  Object.assign(copy.style, { position: "", top: "", left: "" });
  copy.setAttribute("width", String(width));
  copy.setAttribute("height", String(height));
  for (const e of copy.querySelectorAll(".crisp")) e.setAttribute("shape-rendering", "crispEdges");
  const image = new Image();
  image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(new XMLSerializer().serializeToString(copy));
  await image.decode();
  return image;
}

function loseContext(canvas) {
  // Plotly.js gives these two a context (asking a canvas without one would make one)
  if (!canvas.matches(".gl-canvas-context, .gl-canvas-focus")) return;
  const gl = canvas.getContext("webgl");
  const lose = gl?.getExtension("WEBGL_lose_context");
  if (lose) lose.loseContext();
}

// the first sliders' states are fetched once the page has been quiet this long (a rerun draws the chart again
// and starts the wait over): building them takes the server's time, which the next move of the slider in hand
// (its states already here) would otherwise share
const PREFETCH_AFTER_MS = 3000;
// a thumb that stays on one value this long during a drag is resting there (a fast drag moves it every frame)
const REST_MS = 120;
const later = (f) => (window.requestIdleCallback ? requestIdleCallback(f, { timeout: 300 }) : setTimeout(f, 30));

// A slider held anywhere on the page (its pointer down): work done ahead waits for the hand to let go. Drawing a
// still takes Plotly.js tens of ms, longer than a frame, and a chart that does not follow the slider in hand (on a
// page of many parts) would take those frames from the charts that do.
function watchHands() {
  if (window.__posvizHands) return;
  const hands = { down: false };
  window.__posvizHands = hands;
  const slider = (e) => e.target instanceof Element && e.target.closest("[data-testid=stSlider]");
  document.addEventListener("pointerdown", (e) => { if (slider(e)) hands.down = true; }, true);
  for (const type of ["pointerover", "pointerdown", "focusin", "keydown"]) {
    document.addEventListener(type, (e) => { if (slider(e) && aheadFetches().size) stopAhead(e.target); }, true);
  }
  for (const type of ["pointerup", "pointercancel"]) document.addEventListener(type, () => { hands.down = false; }, true);
}

const sliderHeld = () => !!(window.__posvizHands && window.__posvizHands.down);

// draw the missing stills of every live slider, one per idle moment, never during a drag
function predraw(Plotly, chart) {
  if (chart.posvizPredrawing || window.__posvizNoStills) return;
  chart.posvizPredrawing = true;
  const step = async () => {
    if (sliderHeld() || chart.dataset.shown !== "exact" || chart.dataset.holds !== "exact") return later(step);
    let todo = null, count = 0, total = 0;
    for (const live of chart.posvizPayload.live) {
      const set = statesOf(chart, live);
      if (!set) continue;
      const stills = stillsFor(chart, live, set);
      total += set.states.length;
      for (let i = 0; i < set.states.length; i++) {
        if (stills.nodes[i] !== undefined) count++; // drawn (or failed: false, and drawn by Plotly.react if shown)
        else if (!todo) todo = { stills, set, i };
      }
    }
    chart.dataset.stills = count + "/" + total; // benchmarks and tests: how many states have a still
    if (!todo || !chart.isConnected) { chart.posvizPredrawing = false; return; }
    let plot = false;
    try { plot = await drawStill(Plotly, chart, todo.set, todo.i); } catch (e) { console.warn("posviz still", e); }
    if (todo.stills.key === stillKey(chart, todo.set)) todo.stills.nodes[todo.i] = plot;
    later(step);
  };
  later(step);
}

// Plotly.js's own rules for a drawn plot (scoped to its charts, .js-plotly-plot .plotly), for the copies: the
// layer is not a chart, so it does not carry that class
const STILL_CSS = ".posviz-live-still .plotly, .posviz-live-still .plotly div { direction: ltr; margin: 0; " +
  "padding: 0; border: 0; } .posviz-live-still .main-svg { position: absolute; top: 0; left: 0; " +
  "pointer-events: none; } .posviz-live-still .crisp { shape-rendering: crispEdges; } " +
  ".posviz-live-still svg a { fill: #447adb; } .posviz-live-still .posviz-live-picture { display: block; }";

// the layer over the chart that shows a still: a layer of its own for the compositor (will-change), so that a
// new still repaints that picture alone, not the page and the hidden chart beneath it
function overlayOf(parent) {
  let layer = parent.querySelector(".posviz-live-still");
  if (!document.getElementById("posviz-live-still-css")) {
    const style = document.createElement("style");
    style.id = "posviz-live-still-css";
    style.textContent = STILL_CSS;
    document.head.appendChild(style);
  }
  if (!layer) {
    layer = document.createElement("div");
    layer.className = "posviz-live-still";
    layer.style.cssText = "position:absolute;top:0;left:0;pointer-events:none;display:none;will-change:transform";
    parent.style.position = "relative";
    parent.appendChild(layer);
  }
  return layer;
}

// the still over the chart, which takes the still's height (the page below moves as it would for the state). The
// layer is placed where the chart is when a drag first shows it, and stays there while the stills change: reading
// the chart's place at every state would make the browser lay out the whole page once per chart per frame
function showStill(chart, layer, plot) {
  const height = plot.dataset.height + "px";
  if (layer.style.display !== "block") {
    layer.style.top = chart.offsetTop + "px";
    layer.style.left = chart.offsetLeft + "px";
  }
  if (chart.style.height !== height) Object.assign(chart.style, { height, overflow: "hidden" });
  layer.replaceChildren(plot.posvizPicture || plot);
  layer.style.display = "block";
  chart.style.visibility = "hidden";
}

function hideStill(chart, layer) {
  layer.style.display = "none";
  layer.replaceChildren(); // the still stays in its cache; the page holds one drawing of the chart
  Object.assign(chart.style, { visibility: "", height: "", overflow: "" });
}

// Streamlit hands a component its data once the component's module has loaded; when a second rerun's data comes
// while it is still loading (a page's first run, then the rerun presenter mode's scale asks for), the two can
// reach this function in either order. Each payload carries its rerun's order (posviz.ui.live.component.ordered):
// an older one, handed over last, must not replace the newer figure and the watchers set up for it.
export function olderThanDrawn(chart, payload) {
  return chart.posvizOrder !== undefined && payload.order < chart.posvizOrder;
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let chart = parentElement.querySelector(".posviz-live-chart");
  if (!chart) {
    chart = document.createElement("div");
    chart.className = "posviz-live-chart";
    parentElement.appendChild(chart);
  }
  // Streamlit calls this again with the same data on a rerun that did not change the figure (and a slider
  // paused mid-drag starts one): the chart already shows it, or the drag's state, which stays
  const same = chart.posvizData === data;
  const payload = same ? chart.posvizPayload : JSON.parse(data);
  if (!same && olderThanDrawn(chart, payload)) return () => {};
  chart.posvizOrder = payload.order;
  // WebGL at the screen's own pixels: Plotly.js draws at twice them by default, which a computer without a
  // graphics card (software WebGL) takes ~190 ms a frame to paint for 13,000 markers, against ~65 ms
  const pixels = Math.min(4, Math.max(1, window.devicePixelRatio || 1));
  if (!same) payload.config = { ...payload.config, plotGlPixelRatio: pixels };
  const held = !same && chart.dataset.holds === "exact" && chart.posvizExactId === payload.exactId; // drawn
  if (held) Object.assign(payload, { exact: chart.posvizExact, signature: chart.posvizHeld });
  else if (!same && payload.exact) payload.signature = signature(payload.exact);
  const layer = overlayOf(parentElement);
  watchHands();
  chart.posvizData = data;
  chart.posvizPayload = payload;
  for (const o of chart.posvizObservers || []) o.disconnect(); // a rerun calls this again: one set of watchers
  if (chart.posvizListeners) chart.posvizListeners.abort();
  const listeners = new AbortController();
  const observers = [];
  chart.posvizListeners = listeners;
  chart.posvizObservers = observers;
  let frame = 0;

  // the exact figure: in the payload, or its served file (often prefetched already, before this rerun)
  // the size of the exact figure drawn (which decides whether a slider's exact figures are all fetched ahead): a
  // figure held from a release keeps the size it was fetched at, not that of the short payload naming its file
  if (payload.exact && !held) chart.posvizExactBytes = data.length; // the figure and what comes with it: at most that
  const loaded = payload.exact ? Promise.resolve() : exactText(payload.files + payload.exactFile).then(({ text }) => {
    chart.posvizExactBytes = text.length;
    payload.exact = JSON.parse(text);
    payload.signature = signature(payload.exact);
  }, (e) => { // the file is gone (removed meanwhile): a rerun sends the figure itself
    setTriggerValue("missing", payload.exactFile);
    throw e;
  });
  Promise.all([loadPlotly(payload.plotly), loaded]).then(([Plotly]) => {
    if (chart.posvizPayload !== payload) return; // a newer rerun's payload came meanwhile
    chart.posvizTemplate = payload.exact.layout.template;
    if (chart.dataset.holds === "exact" && chart.layout) chart.posvizFrame = currentFrame(chart);
    const drawExact = () => { // payload.exact: the rerun's figure, or the one prefetched before it
      const exact = payload.exact;
      // a first draw starts at the figure's own still (its slider's `active`), later ones where the learner was
      const frames = exact.frames || [];
      const still = sliderFrame(exact.layout, frames); // the frame the figure's own traces show
      const { layout, frame: at } = atStop(exact.layout, frames, chart.posvizFrame ?? still);
      // with its frames (an animated figure), at the position the learner had before the drag
      const patch = chart.dataset.holds === "exact" ? patchOf(chart.posvizHeld, payload.signature) : null;
      // Plotly.react and Plotly.animate draw before the page is next painted (a second step of Plotly.animate, in
      // the next animation frame's callbacks; their own promises settle frames later, so nothing waits for them);
      // the still can go now
      if (patch) {
        patchIn(Plotly, chart, { ...exact, signature: payload.signature }, patch, { layout, at, still });
        chart.dataset.patches = String(Number(chart.dataset.patches || 0) + 1); // tests: exact figures patched in
      } else {
        chart.posvizDense = exact.data.map(isDense);
        Plotly.react(chart, { ...exact, data: drawn(chart, dataAt(exact, at, still)), layout,
                              config: newConfig(chart, payload.config) });
      }
      chart.posvizHeld = payload.signature;
      chart.posvizExact = exact; // tests: the rerun's figure is drawn when this is payload.exact
      chart.posvizExactId = payload.exactId;
      hideStill(chart, layer);
      chart.dataset.holds = chart.dataset.shown = "exact";
      chart.dataset.draws = String(Number(chart.dataset.draws || 0) + 1);
      chart.dataset.exacts = String(Number(chart.dataset.exacts || 0) + 1); // tests: exact figures drawn
    };
    const showExact = () => { // back where the drag started: no rerun will follow
      if (chart.dataset.holds !== "exact") return drawExact();
      hideStill(chart, layer);
      chart.dataset.shown = "exact";
    };
    if (!same && !held) drawExact();
    // let go (or a key pressed): fetch the exact figure at the new value, a state's served file or the slider's
    // figure route, and draw it before the rerun's comes
    const drawPrefetched = async (live, input, value, url) => {
      chart.posvizFetching = url;
      const { text, id } = await exactText(url);
      // a new drag, a value moved on, or the rerun's figure here first: nothing to do
      if (chart.posvizFetching !== url || sliderValue(input, live) !== value || chart.posvizPayload !== payload ||
          !chart.isConnected) return;
      const exact = JSON.parse(text);
      Object.assign(payload, { exact, exactId: id, signature: signature(exact) });
      chart.posvizExactBytes = text.length;
      live.current = value;
      drawExact();
      chart.dataset.prefetched = String(Number(chart.dataset.prefetched || 0) + 1); // tests: prefetched figures drawn
    };
    // the slider's input, the value under its thumb and the address of the exact figure there
    const underThumb = (live, box) => {
      const input = box.querySelector("input[type=range]");
      if (!input) return null;
      const value = sliderValue(input, live);
      return { input, value, url: exactUrl(payload, live, statesOf(chart, live), value) };
    };
    const released = (live, box) => {
      const at = underThumb(live, box);
      if (at && at.value !== live.current && chart.posvizFetching !== at.url) {
        drawPrefetched(live, at.input, at.value, at.url).catch((e) => console.warn("posviz prefetch", e));
      }
    };
    if (!chart.posvizWatch) { // states filed (state_sets.js), the clock moved, the chart resized: stills to draw
      chart.posvizWatch = () => { chart.dataset.stills = ""; predraw(Plotly, chart); }; // not ready until counted
      window.addEventListener("posviz-states", chart.posvizWatch);
      chart.on("plotly_animated", chart.posvizWatch);
      chart.on("plotly_relayout", chart.posvizWatch); // e.g. the window resized the chart: stills at the new size
    }
    predraw(Plotly, chart);
    // a slider drawn after the chart (below it, or in a sidebar slot filled once the part is drawn) is found when
    // it appears
    const follow = (live, tries) => {
      const box = document.querySelector(".st-key-" + live.key.replace(/[^a-zA-Z0-9_-]/g, "-"));
      if (!box) {
        if (tries > 0 && chart.posvizPayload === payload && !listeners.signal.aborted) {
          setTimeout(() => follow(live, tries - 1), 100);
        }
        return;
      }
      let shown = null; // the state on screen; the exact figure is at (the state nearest) the control's value
      const show = () => {
        frame = 0;
        const input = box.querySelector("input[type=range]");
        const set = statesOf(chart, live);
        if (!input || !set) return;
        if (shown === null) shown = nearest(live, set.values, live.current);
        const value = sliderValue(input, live);
        const i = nearest(live, set.values, value);
        if (value === live.current) { shown = i; if (chart.dataset.shown !== "exact") showExact(); return; }
        if (i === shown) return;
        shown = i;
        if (chart.dataset.holds === "exact") chart.posvizFrame = currentFrame(chart);
        const t0 = performance.now();
        const still = stillOf(chart, live, set, i);
        if (still) {
          showStill(chart, layer, still);
        } else {
          chart.dataset.reacts = String(Number(chart.dataset.reacts || 0) + 1); // benchmarks: states without a still
          const { data, layout } = stateFigure(set, set.states[i], chart.posvizTemplate, chart.posvizFrame || 0);
          Plotly.react(chart, drawn(chart, data), layout, newConfig(chart, payload.config));
          hideStill(chart, layer);
          chart.dataset.holds = live.key + "=" + set.values[i];
        }
        chart.dataset.drawMs = String(Number(chart.dataset.drawMs || 0) + performance.now() - t0); // benchmarks
        chart.dataset.shown = live.key + "=" + set.values[i];
        chart.dataset.draws = String(Number(chart.dataset.draws || 0) + 1);
      };
      let dragging = false;
      // a hand slows before it lets go: where the thumb rests during a drag, the exact figure under it is fetched
      // then, so letting go there waits for no request (a fast drag fetches nothing: the thumb never rests)
      let resting = 0;
      const rest = () => {
        const at = underThumb(live, box);
        if (dragging && at && at.value !== live.current) exactText(at.url).catch(() => {});
      };
      const observer = new MutationObserver(() => {
        if (!frame) frame = requestAnimationFrame(show);
        if (dragging) { clearTimeout(resting); resting = setTimeout(rest, REST_MS); }
      });
      // the thumb moves (its style) and its text changes as it is dragged; the input holds the value
      observer.observe(box, { attributes: true, characterData: true, subtree: true,
        attributeFilter: ["style", "value", "aria-valuetext"] });
      observers.push(observer);
      listeners.signal.addEventListener("abort", () => clearTimeout(resting));
      // the slider takes its value on release (a drag may end off the slider) or on a key
      const opts = { capture: true, signal: listeners.signal };
      const release = () => requestAnimationFrame(() => released(live, box));
      box.addEventListener("pointerdown", () => { dragging = true; chart.posvizFetching = null; }, opts);
      // at once: the thumb shows the value it is let go at (this listener runs before the slider's own); and
      // again a frame later, in case the last move's value was drawn only then
      const letGo = () => {
        if (!dragging) return;
        dragging = false;
        clearTimeout(resting);
        released(live, box);
        release();
      };
      for (const type of ["pointerup", "mouseup", "touchend"]) document.addEventListener(type, letGo, opts);
      // a key moves the thumb as it goes down (the slider's own handler, before this one's next task): the figure
      // at the new value is fetched then, not when the key comes up; and again on keyup for a value drawn later.
      // A key held down repeats: only its first press, the rest wait for keyup (not a build per value passed)
      box.addEventListener("keydown", (e) => {
        if (e.repeat) return;
        chart.posvizFetching = null; // a new move: a figure fetched for an earlier one may be asked again
        setTimeout(() => released(live, box));
      }, opts);
      box.addEventListener("keyup", release, opts);
      // the states of a slider the learner reaches for (pointer over it, keyboard focus), and the exact figures a
      // step either side; the states of the first few in idle time
      const want = () => fetchStates(chart, live, box);
      const exactSet = () => { const set = statesOf(chart, live); if (set) fetchExactSet(chart, live, set).catch(() => {}); };
      const reach = () => { want(); fetchSteps(chart, live); exactSet(); };
      window.addEventListener("posviz-states", () => { if (box.matches(":hover") || box.contains(document.activeElement)) exactSet(); }, opts);
      for (const type of ["pointerenter", "pointerdown", "focusin"]) box.addEventListener(type, reach, opts);
      // still in hand after a rerun (a key press, another slider clamped): its new value's steps, its states
      if (box.matches(":hover") || box.contains(document.activeElement)) reach();
      if (live.prefetch) fetchAhead(chart, live, box, listeners.signal);
    };
    for (const live of payload.live) follow(live, 50);
  }).catch((e) => console.warn("posviz live chart", e));
  return () => {
    for (const o of observers) o.disconnect();
    listeners.abort();
    if (frame) cancelAnimationFrame(frame);
  };
}
