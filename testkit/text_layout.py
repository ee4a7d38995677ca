"""Text layout check for plotly charts in a real browser: overlapping or cut-off text.

Works on anything chromium can show: a live page (each chart is a ``.js-plotly-plot`` div holding its
``.main-svg`` layers) or an exported SVG opened with ``open_svg``. The JS snippet ``COLLECT_JS`` gathers
every visible ``<text>`` of a chart (titles, axis titles, tick labels, annotations, legend, colorbar,
buttons, slider labels, text traces) with its box in the chart's pixel coordinates (the box follows
rotations: a -90° tick label is a tall box); ``problems`` reports pairs of texts that overlap and texts
that reach past the chart's box.

    from testkit.text_layout import chart_problems
    for index, issues in chart_problems(page).items():   # every chart on a live page
        assert not issues, (index, issues)

    open_svg(page, svg_bytes); assert not problems(collect(page, "body > svg")[0])

A text box is the font's line box (ascent to descent), shrunk by ``V_SHRINK`` of its height at the top
and bottom, so two labels on adjacent lines whose glyphs do not touch are not reported; two boxes
overlap when they intersect by more than ``TOL`` pixels along every separating axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

TOL = 1.0  # pixels: two boxes must intersect by more than this, a text must reach this far outside
V_SHRINK = 0.14  # fraction of the line-box height dropped at the top and at the bottom (leading)

COLLECT_JS = r"""
(root) => {
  const svg = root.tagName.toLowerCase() === 'svg' ? root : root.querySelector('.main-svg');
  const frame = (root.tagName.toLowerCase() === 'svg' ? root : root).getBoundingClientRect();
  const kindOf = (el) => {
    const cls = el.getAttribute('class') || '';
    if (/(^|\s)g?[xy]\d*title(\s|$)/.test(cls)) return 'axis title';
    if (el.closest('.g-gtitle')) return 'title';
    if (el.closest('.updatemenu-container')) return 'button';
    if (el.closest('.slider-container')) return 'slider';
    if (el.closest('.legend')) return 'legend';
    if (el.closest('.colorbar')) return 'colorbar';
    if (el.closest('.annotation')) return 'annotation';
    for (let n = el; n && n !== root; n = n.parentElement) {
      if (/(^|\s)[xy]\d*tick(\s|$)/.test(n.getAttribute('class') || '')) return 'tick';
    }
    if (el.closest('.textpoint')) return 'trace text';
    if (el.closest('.table')) return 'table';
    return 'other';
  };
  const hidden = (el) => {
    for (let n = el; n && n !== root.parentElement; n = n.parentElement) {
      const cs = getComputedStyle(n);
      if (cs.display === 'none' || cs.visibility === 'hidden' || parseFloat(cs.opacity) === 0) return true;
    }
    return false;
  };
  const out = [];
  for (const el of root.querySelectorAll('text')) {
    const text = (el.textContent || '').replace(/\s+/g, ' ').trim();
    if (!text || el.closest('.hoverlayer, .modebar, .zoomlayer, .selectionlayer')) continue;
    if (hidden(el)) continue;
    const bb = el.getBBox();
    if (bb.width < 0.5 || bb.height < 0.5) continue;
    const m = el.getScreenCTM();
    const corners = [[bb.x, bb.y], [bb.x + bb.width, bb.y], [bb.x + bb.width, bb.y + bb.height],
                     [bb.x, bb.y + bb.height]];
    const pts = corners.map(([x, y]) => [m.a * x + m.c * y + m.e - frame.left, m.b * x + m.d * y + m.f - frame.top]);
    out.push({text, kind: kindOf(el), pts, size: parseFloat(getComputedStyle(el).fontSize) || 0});
  }
  return {width: frame.width, height: frame.height, texts: out};
}
"""


@dataclass(frozen=True)
class Text:
    """One text element: what it says, what it is, its four corners (chart pixels), its font size."""

    text: str
    kind: str
    pts: tuple[tuple[float, float], ...]
    size: float

    def __str__(self) -> str:
        x0, y0 = min(p[0] for p in self.pts), min(p[1] for p in self.pts)
        x1, y1 = max(p[0] for p in self.pts), max(p[1] for p in self.pts)
        shown = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return f"{self.kind} {shown!r} at ({x0:.0f}, {y0:.0f})-({x1:.0f}, {y1:.0f})"


@dataclass(frozen=True)
class Chart:
    width: float
    height: float
    texts: tuple[Text, ...]


def _shrunk(pts: tuple[tuple[float, float], ...]) -> list[tuple[float, float]]:
    """The box without its leading: corners 0-1 are the top edge, 3-2 the bottom edge (in text space)."""
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = pts
    vx, vy = dx - ax, dy - ay  # top-left -> bottom-left: the text's "down"
    t = V_SHRINK
    return [(ax + t * vx, ay + t * vy), (bx + t * vx, by + t * vy), (cx - t * vx, cy - t * vy),
            (dx - t * vx, dy - t * vy)]


def _penetration(p: list[tuple[float, float]], q: list[tuple[float, float]]) -> float:
    """Smallest overlap of two convex quads over their edge normals (separating axis theorem); <= 0: apart."""
    depth = math.inf
    for poly in (p, q):
        for i in range(4):
            (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % 4]
            nx, ny = y0 - y1, x1 - x0
            norm = math.hypot(nx, ny)
            if norm == 0:
                continue
            nx, ny = nx / norm, ny / norm
            a = [x * nx + y * ny for x, y in p]
            b = [x * nx + y * ny for x, y in q]
            depth = min(depth, min(max(a), max(b)) - max(min(a), min(b)))
    return depth


def overlaps(chart: Chart, tol: float = TOL) -> list[tuple[Text, Text]]:
    """Pairs of texts whose (shrunk) boxes intersect by more than ``tol`` pixels."""
    boxes = [(t, _shrunk(t.pts)) for t in chart.texts]
    found = []
    for i, (a, pa) in enumerate(boxes):
        for b, pb in boxes[i + 1:]:
            if _penetration(pa, pb) > tol:
                found.append((a, b))
    return found


def cut_off(chart: Chart, tol: float = TOL) -> list[Text]:
    """Texts that reach more than ``tol`` pixels past the chart's box."""
    return [t for t in chart.texts
            if any(x < -tol or y < -tol or x > chart.width + tol or y > chart.height + tol
                   for x, y in _shrunk(t.pts))]


def problems(chart: Chart, tol: float = TOL) -> list[str]:
    """Human-readable list of every overlap and cut-off in ``chart`` (empty when the layout is clean)."""
    out = [f"overlap: {a} / {b}" for a, b in overlaps(chart, tol)]
    out += [f"cut off: {t} (chart {chart.width:.0f}×{chart.height:.0f})" for t in cut_off(chart, tol)]
    return out


def _chart(raw: dict) -> Chart:
    texts = tuple(Text(t["text"], t["kind"], tuple(tuple(p) for p in t["pts"]), t["size"]) for t in raw["texts"])
    return Chart(raw["width"], raw["height"], texts)


def collect(page: object, selector: str = ".js-plotly-plot") -> list[Chart]:
    """Every chart matching ``selector`` on a Playwright ``page``, with its texts."""
    return [_chart(handle.evaluate(COLLECT_JS)) for handle in page.query_selector_all(selector)]


def chart_problems(page: object, selector: str = ".js-plotly-plot", tol: float = TOL) -> dict[int, list[str]]:
    """Problems of every chart on a live page, by chart index (charts without problems are left out)."""
    found = {i: problems(c, tol) for i, c in enumerate(collect(page, selector))}
    return {i: p for i, p in found.items() if p}


def open_svg(page: object, svg: bytes | str) -> None:
    """Show an exported SVG alone in ``page`` (top left, no margin) so ``collect(page, "body > svg")`` reads it."""
    body = svg.decode() if isinstance(svg, bytes) else svg
    page.set_content(f"<!doctype html><html><body style='margin:0'>{body}</body></html>")
