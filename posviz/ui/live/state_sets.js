// The states of a live chart's sliders (posviz/ui/live/component.py), sent once the lesson part is drawn. This
// component shows nothing: it files the states where the chart (chart.js) looks for them, by chart and slider key,
// each with the version of the settings it was built for, and tells the chart they are there.
// data: JSON text {chart, sets: [{key, version, values, files, common, states}]} (`files`: each value's served
// exact figure, a file name, or null where none was written).

export default function (component) {
  const { data, parentElement } = component;
  const payload = JSON.parse(data);
  const hidden = parentElement.closest("[data-testid=stElementContainer]") || parentElement;
  hidden.style.display = "none"; // no gap under the part for an element with nothing to show
  window.__posvizStates = window.__posvizStates || {};
  const filed = window.__posvizStates;
  for (const set of payload.sets) {
    filed[payload.chart + "|" + set.key] = set;
    const box = document.querySelector(".st-key-" + set.key.replace(/[^a-zA-Z0-9_-]/g, "-"));
    if (box) box.dataset.posvizStates = String(set.values.length); // benchmarks: how fast a drag crosses states
  }
  window.dispatchEvent(new Event("posviz-states")); // the chart draws its stills (live.js)
}
