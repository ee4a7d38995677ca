// A live posviz figure (Streamlit v2 component, no iframe). It draws the exact figure with Plotly.js and,
// while one of the page's sliders named in `live` is dragged, shows the precomputed state nearest to the
// thumb (no server round trip). On release Streamlit reruns once and sends the exact figure again.
// data: JSON text {plotly: url of plotly.min.js, config, chart, exact: figure, live: [{key, log, index, options,
// current, version}]}; `options` are the slider's values in order (with `index`, the thumb reports a position).
// The states come from live_states.js once the part is drawn, filed as window.__posvizStates[chart|key] =
// {version, values, common, states}; a set built for other settings (another version) is not used. A trace
// that is null in a state is the same in all of them: `common[its index]`.
// An animated figure (RoPE's clock) keeps its position: a state carries some of its frames, the one nearest
// to the position on screen is shown, and on release the exact figure opens at that position again.

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
function sliderValue(input, live) {
  const now = Number(input.value);
  return live.index ? live.options[Math.round(now)] : now;
}

function nearest(live, values, value) {
  const dist = (v) => (live.log ? Math.abs(Math.log(v) - Math.log(value)) : Math.abs(v - value));
  let best = 0;
  values.forEach((v, i) => { if (dist(v) < dist(values[best])) best = i; });
  return best;
}

// the frame an animated figure shows: its position slider's step (plotly keeps it in layout.sliders[0].active)
function currentFrame(chart) {
  const slider = chart.layout && chart.layout.sliders && chart.layout.sliders[0];
  return slider && slider.active ? Number(slider.active) : 0;
}

function merged(trace, change) {
  const out = { ...trace };
  for (const [k, v] of Object.entries(change)) {
    const nested = v && typeof v === "object" && !Array.isArray(v) && !("bdata" in v) && out[k];
    out[k] = nested ? { ...out[k], ...v } : v;
  }
  return out;
}

function withSliderAt(layout, index) {
  if (!layout.sliders || !layout.sliders.length) return layout;
  return { ...layout, sliders: layout.sliders.map((s, i) => (i ? s : { ...s, active: index })) };
}

// a state as a figure: its own traces, the shared ones, and the frame nearest to the position `at`
function stateFigure(set, state, template, at) {
  const data = state.data.map((t, k) => t || set.common[k]);
  let layout = { ...state.layout, template };
  if (state.frames && state.frames.length) {
    let frame = state.frames[0];
    for (const f of state.frames) if (Math.abs(f.index - at) < Math.abs(frame.index - at)) frame = f;
    frame.traces.forEach((k, j) => { data[k] = merged(data[k], frame.data[j]); });
    layout = withSliderAt(layout, frame.index);
  }
  return { data, layout };
}

export default function (component) {
  const { data, parentElement } = component;
  const payload = JSON.parse(data);
  let chart = parentElement.querySelector(".posviz-live-chart");
  if (!chart) {
    chart = document.createElement("div");
    chart.className = "posviz-live-chart";
    parentElement.appendChild(chart);
  }
  const template = payload.exact.layout.template;
  (chart.posvizObservers || []).forEach((o) => o.disconnect()); // a rerun calls this again: one set of watchers
  const observers = (chart.posvizObservers = []);
  let frame = 0;

  loadPlotly(payload.plotly).then((Plotly) => {
    const exact = payload.exact;
    if (chart.dataset.shown === "exact" && chart.layout) chart.posvizFrame = currentFrame(chart);
    const drawExact = () => {
      const at = (exact.frames || []).length ? Math.min(chart.posvizFrame || 0, exact.frames.length - 1) : 0;
      // with its frames (an animated figure), at the position the learner had before the drag
      Plotly.react(chart, { ...exact, layout: withSliderAt(exact.layout, at), config: payload.config });
      if (at > 0) Plotly.animate(chart, [exact.frames[at].name], { mode: "immediate", transition: { duration: 0 },
                                                                   frame: { duration: 0, redraw: false } });
      chart.dataset.shown = "exact";
      chart.dataset.draws = String(Number(chart.dataset.draws || 0) + 1);
    };
    drawExact();
    for (const live of payload.live) {
      const box = document.querySelector(".st-key-" + live.key.replace(/[^a-zA-Z0-9_-]/g, "-"));
      if (!box) continue;
      let shown = null; // the state on screen; the exact figure is at (the state nearest) the control's value
      const show = () => {
        frame = 0;
        const input = box.querySelector("input[type=range]");
        const set = (window.__posvizStates || {})[payload.chart + "|" + live.key];
        if (!input || !set || set.version !== live.version || set.values.length < 2) return;
        if (shown === null) shown = nearest(live, set.values, live.current);
        const value = sliderValue(input, live);
        const i = nearest(live, set.values, value);
        if (value === live.current) { // back where the drag started: no rerun will follow, so the exact figure
          shown = i;
          if (chart.dataset.shown !== "exact") drawExact();
          return;
        }
        if (i === shown) return;
        shown = i;
        if (chart.dataset.shown === "exact") chart.posvizFrame = currentFrame(chart);
        const { data, layout } = stateFigure(set, set.states[i], template, chart.posvizFrame || 0);
        const t0 = performance.now();
        Plotly.react(chart, data, layout, payload.config);
        chart.dataset.drawMs = String(Number(chart.dataset.drawMs || 0) + performance.now() - t0); // benchmarks
        chart.dataset.shown = live.key + "=" + set.values[i];
        chart.dataset.draws = String(Number(chart.dataset.draws || 0) + 1);
      };
      const observer = new MutationObserver(() => { if (!frame) frame = requestAnimationFrame(show); });
      // the thumb moves (its style) and its text changes as it is dragged; the input holds the value
      observer.observe(box, { attributes: true, characterData: true, subtree: true,
        attributeFilter: ["style", "value", "aria-valuetext"] });
      observers.push(observer);
    }
  });
  return () => {
    observers.forEach((o) => o.disconnect());
    if (frame) cancelAnimationFrame(frame);
  };
}
