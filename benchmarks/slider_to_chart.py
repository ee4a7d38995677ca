"""Slider-to-chart latency of every page against the trivial reference page, measured side by side.

For each page in pages/ (or those named with --pages), this opens the page and the reference page
(benchmarks/trivial_app.py, one slider and a 10-point chart) in headless chromium, then alternates
A B A B: press an arrow key on the page's first slider (the sidebar's first control), wait until the
charts have redrawn, then the same on the reference. It prints each page's median, the reference's
median over the same interleaved run, and their ratio. --largest opens every page with all its
controls at their largest values first.

    python benchmarks/slider_to_chart.py                 # every page, 9 moves each
    python benchmarks/slider_to_chart.py --moves 15 --pages Sinusoidal RoPE --largest
    python benchmarks/slider_to_chart.py --pages Gaussian_kernel_RoPE --set T=512   # an issue's setting
"""

from __future__ import annotations

import argparse
import urllib.parse

from _browser import ROOT, launch, median_ms, start_server, timed_move, wait_idle


def largest_query(page_file: str) -> dict[str, str]:
    from tests.test_pages_all import extreme, page_params

    # every control at its largest value, except the lesson part: the default part is the one measured
    return {n: v for n, p in page_params(page_file).items()
            if (v := extreme(p, True)) is not None and n != "part"}


def measure(page, ref_page, args: argparse.Namespace, ours: list[float], theirs: list[float]) -> None:
    """Alternate a move on the page's first slider with one on the reference page, ``args.moves`` times."""
    for i in range(args.moves):
        # at the largest settings every slider sits at its maximum: start by moving left
        first, second = ("ArrowLeft", "ArrowRight") if args.largest else ("ArrowRight", "ArrowLeft")
        ours.append(timed_move(page, 0, first if i % 2 == 0 else second))
        theirs.append(timed_move(ref_page, 0, "ArrowRight" if i % 2 == 0 else "ArrowLeft"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=9, help="slider moves per page (>= 7)")
    ap.add_argument("--pages", nargs="*", help="page names (URL paths), default: every page in pages/")
    ap.add_argument("--largest", action="store_true", help="start every page at its largest settings")
    ap.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE",
                    help="URL values to open the pages with (after --largest), e.g. T=512 d=256")
    args = ap.parse_args()
    files = sorted((ROOT / "pages").glob("*.py"))
    names = {f.stem.split("_", 1)[1]: f for f in files}
    chosen = args.pages or list(names)

    from playwright.sync_api import sync_playwright

    app, app_url = start_server("app.py")
    ref, ref_url = start_server("benchmarks/trivial_app.py")
    rows = []
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            ref_page = browser.new_page(viewport={"width": 1280, "height": 900})
            ref_page.goto(ref_url)
            wait_idle(ref_page)
            for name in chosen:
                query = largest_query(str(names[name].relative_to(ROOT))) if args.largest else {}
                query.update(item.split("=", 1) for item in args.set)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(f"{app_url}/{name}" + ("?" + urllib.parse.urlencode(query) if query else ""))
                wait_idle(page)
                if page.locator("[data-testid=stAlert]").count():  # a --set value the page rejected
                    print(f"{name}: warning on the page: {page.locator('[data-testid=stAlert]').first.inner_text()}")
                ours, theirs = [], []
                try:
                    measure(page, ref_page, args, ours, theirs)
                except TimeoutError as err:
                    print(f"{name}: {err}", flush=True)
                page.close()
                if not ours:
                    continue
                rows.append((name, median_ms(ours), median_ms(theirs)))
                print(f"{name:28s} page {rows[-1][1]:7.0f} ms   reference {rows[-1][2]:7.0f} ms   "
                      f"ratio {rows[-1][1] / rows[-1][2]:.2f}", flush=True)

            browser.close()
    finally:
        app.terminate()
        ref.terminate()
    label = ("largest settings" if args.largest else "defaults") + (f", {' '.join(args.set)}" if args.set else "")
    print(f"\nslider-to-chart, median of {args.moves} moves, {label} (interleaved with the reference page)")
    print(f"{'page':28s} {'page ms':>8s} {'ref ms':>8s} {'ratio':>6s}")
    for name, a, b in rows:
        print(f"{name:28s} {a:8.0f} {b:8.0f} {a / b:6.2f}")


if __name__ == "__main__":
    main()
