// Presenter mode: how large the figures' text can be in this window (posviz.ui.page). Presenter mode makes
// every font 1.5 times larger; that needs a chart at least 1.5 times as wide as the 820 px a 1280 px window
// gives one (the width the figures are laid out for). In a narrower window (a 1280×800 projector, whose pixels
// are already 1.5 times larger on the wall than a 1920×1080 one's) the scale steps down, to 1 at 820 px.
// This component shows nothing: it measures the lesson's column and asks for a rerun when the scale the
// server drew with is not the one that fits (on load and when the window is resized).
// It also takes the step keys before anything focused can: a slider dragged a moment ago keeps the focus, and
// Shift + → then moved the slider instead of the part. PageDown / PageUp (what a presenter's clicker sends) and
// Shift + → / ← press the part's Next / Previous button, whatever has the focus, except in a text box.
// data: JSON text {chart: px a chart is laid out for, steps: scales per unit, max: largest scale, used: the
// scale the figures were drawn with, next / previous: selectors of the part's step buttons}.

const MARGIN = 24; // px, more than a classic scrollbar

const STEPS = { PageDown: "next", PageUp: "previous", ArrowRight: "next", ArrowLeft: "previous" };

function stepKeys(buttons) {
  return (event) => {
    const side = STEPS[event.key];
    const arrow = event.key.startsWith("Arrow");
    if (!side || (arrow && !event.shiftKey) || event.altKey || event.ctrlKey || event.metaKey) return;
    const focused = document.activeElement;
    const role = focused ? focused.getAttribute("role") : null;
    const slider = role === "slider" || (focused && focused.type === "range"); // a slider's thumb is a range input
    if (focused && !slider && role !== "combobox"
        && (focused.isContentEditable || /^(TEXTAREA|INPUT)$/.test(focused.tagName))) {
      return; // in a text or number box Shift + arrows select text and PageDown scrolls it
    }
    event.preventDefault();
    event.stopImmediatePropagation(); // neither the slider nor Streamlit's own shortcut sees it
    const button = document.querySelector(buttons[side]);
    if (focused && focused !== document.body) focused.blur();
    if (button) button.click();
  };
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const { chart, steps, max, used, next, previous } = JSON.parse(data);
  const onKey = stepKeys({ next, previous });
  window.addEventListener("keydown", onKey, true); // capture: before the focused element
  const hidden = parentElement.closest("[data-testid=stElementContainer]") || parentElement;
  hidden.style.display = "none";
  const fit = () => {
    const column = document.querySelector("[data-testid=stMainBlockContainer]");
    if (!column) return;
    const pad = getComputedStyle(column);
    const width = column.clientWidth - parseFloat(pad.paddingLeft) - parseFloat(pad.paddingRight);
    const fits = (w) => Math.max(1, Math.min(max, Math.floor((w / chart) * steps) / steps));
    // a larger scale only once the column is wider than it needs by a scrollbar's width: a page that grows a
    // scrollbar at the larger scale and loses it at the smaller must not switch back and forth
    const scale = fits(width) > used && fits(width - MARGIN) <= used ? used : fits(width);
    document.documentElement.dataset.posvizScale = scale + "/" + used; // tests: wanted/drawn with
    if (scale !== used && window.__posvizScaleAsked !== scale) {
      window.__posvizScaleAsked = scale; // once per scale: the rerun brings `used` up to it
      setStateValue("scale", scale);
    }
  };
  fit();
  window.addEventListener("resize", fit);
  return () => {
    window.removeEventListener("resize", fit);
    window.removeEventListener("keydown", onKey, true);
  };
}
