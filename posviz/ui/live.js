// A live posviz figure (Streamlit v2 component, no iframe). It draws the exact figure with Plotly.js and,
// while one of the page's sliders named in `live` is dragged, shows the precomputed state nearest to the
// thumb (no server round trip). On release Streamlit reruns once and sends the exact figure again.
// data: JSON text {plotly: url of plotly.min.js, config, exact: figure, live: [{key, log, index, options,
// values, current, states}]}; `options` are the slider's values in order (with `index`, the thumb reports a position).

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

function nearest(live, value) {
  const dist = (v) => (live.log ? Math.abs(Math.log(v) - Math.log(value)) : Math.abs(v - value));
  let best = 0;
  live.values.forEach((v, i) => { if (dist(v) < dist(live.values[best])) best = i; });
  return best;
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
    Plotly.react(chart, { ...payload.exact, config: payload.config }); // with its frames (an animated figure)
    chart.dataset.shown = "exact";
    chart.dataset.draws = String(Number(chart.dataset.draws || 0) + 1);
    for (const live of payload.live) {
      const box = document.querySelector(".st-key-" + live.key.replace(/[^a-zA-Z0-9_-]/g, "-"));
      if (!box) continue;
      let shown = nearest(live, live.current); // the exact figure is at the control's value
      const show = () => {
        frame = 0;
        const input = box.querySelector("input[type=range]");
        if (!input) return;
        const i = nearest(live, sliderValue(input, live));
        if (i === shown) return;
        shown = i;
        const state = live.states[i];
        const t0 = performance.now();
        Plotly.react(chart, state.data, { ...state.layout, template }, payload.config);
        chart.dataset.drawMs = String(Number(chart.dataset.drawMs || 0) + performance.now() - t0); // benchmarks
        chart.dataset.shown = live.key + "=" + live.values[i];
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
