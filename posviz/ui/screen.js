// Presenter mode: how large the figures' text can be in this window (posviz.ui.page). Presenter mode makes
// every font 1.5 times larger; that needs a chart at least 1.5 times as wide as the 820 px a 1280 px window
// gives one (the width the figures are laid out for). In a narrower window (a 1280×800 projector, whose pixels
// are already 1.5 times larger on the wall than a 1920×1080 one's) the scale steps down, to 1 at 820 px.
// This component shows nothing: it measures the lesson's column and asks for a rerun when the scale the
// server drew with is not the one that fits (on load and when the window is resized).
// data: JSON text {chart: px a chart is laid out for, steps: scales per unit, max: largest scale, used: the
// scale the figures were drawn with}.

const MARGIN = 24; // px, more than a classic scrollbar

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const { chart, steps, max, used } = JSON.parse(data);
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
  return () => window.removeEventListener("resize", fit);
}
