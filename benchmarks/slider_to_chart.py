"""Slider-to-chart latency of every page against the trivial reference page, measured side by side.

For each page in pages/ (or those named with --pages), this opens the page and the reference page
(benchmarks/trivial_app.py, one slider and a 10-point chart) in headless chromium, then alternates
A B C A B C: press an arrow key on the page's first slider (the sidebar's first control), wait until
the charts have redrawn, then the same on the reference. It prints each page's median, the reference's
median over the same interleaved run, and their ratio. --largest opens every page with all its
controls at their largest values first.

The reference runs twice. B runs on Streamlit's default settings: the trivial page as Streamlit serves
it out of the box, the yardstick of the targets (docs/BENCHMARKS.md). Its default `runner.postScriptGC` runs a
full `gc.collect(2)` after every script run, about a third of that page's time on the reference machine; the app
turns it off (.streamlit/config.toml). C runs with the app's own settings (no per-run collection): the stricter
comparison, printed beside the first.

    python -m benchmarks.slider_to_chart                 # every page, 9 moves each
    python -m benchmarks.slider_to_chart --moves 15 --pages Sinusoidal RoPE --largest
    python -m benchmarks.slider_to_chart --pages Gaussian_kernel_RoPE --set T=512   # a target's setting
"""

from __future__ import annotations

import argparse
import urllib.parse

from benchmarks._browser import ROOT, launch, median_ms, start_server, timed_move, wait_idle


def largest_query(page_file: str) -> dict[str, str]:
    """Every control of the page's first part at its largest value (the default part is the one measured)."""
    from testkit.apptest import course, extreme_query

    lesson = next(ls for ls in course() if ls.script.name == page_file.rsplit("/", 1)[-1])
    return extreme_query(lesson, next(iter(lesson.parts.values())), True)


STOCK = {"runner.postScriptGC": "true"}  # Streamlit's default, over the app's config.toml


def measure(page, refs: list, args: argparse.Namespace, ours: list[float], theirs: list[list[float]]) -> None:
    """Alternate a move on the page's first slider with one on each reference page, ``args.moves`` times."""
    for i in range(args.moves):
        # at the largest settings every slider sits at its maximum: start by moving left
        first, second = ("ArrowLeft", "ArrowRight") if args.largest else ("ArrowRight", "ArrowLeft")
        ours.append(timed_move(page, 0, first if i % 2 == 0 else second))
        for ref_page, times in zip(refs, theirs, strict=True):
            times.append(timed_move(ref_page, 0, "ArrowRight" if i % 2 == 0 else "ArrowLeft"))


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
    servers = [start_server("benchmarks/trivial_app.py", options=STOCK), start_server("benchmarks/trivial_app.py")]
    rows = []
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            refs = []
            for _, ref_url in servers:
                refs.append(browser.new_page(viewport={"width": 1280, "height": 900}))
                refs[-1].goto(ref_url)
                wait_idle(refs[-1])
            for name in chosen:
                query = largest_query(str(names[name].relative_to(ROOT))) if args.largest else {}
                query.update(item.split("=", 1) for item in args.set)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(f"{app_url}/{name}" + ("?" + urllib.parse.urlencode(query) if query else ""))
                wait_idle(page)
                if page.locator("[data-testid=stAlert]").count():  # a --set value the page rejected
                    print(f"{name}: warning on the page: {page.locator('[data-testid=stAlert]').first.inner_text()}")
                ours, theirs = [], [[], []]
                try:
                    measure(page, refs, args, ours, theirs)
                except TimeoutError as err:
                    print(f"{name}: {err}", flush=True)
                page.close()
                if not ours:
                    continue
                rows.append((name, median_ms(ours), median_ms(theirs[0]), median_ms(theirs[1])))
                print(_row(*rows[-1]), flush=True)

            browser.close()
    finally:
        app.terminate()
        for proc, _ in servers:
            proc.terminate()
    label = ("largest settings" if args.largest else "defaults") + (f", {' '.join(args.set)}" if args.set else "")
    print(f"\nslider-to-chart, median of {args.moves} moves, {label} (interleaved with the reference pages)")
    print(f"{'page':28s} {'page ms':>8s} {'ref ms':>8s} {'ratio':>6s}   {'ref, no gc':>10s} {'ratio':>6s}")
    for row in rows:
        print(_row(*row))


def _row(name: str, page: float, stock: float, no_gc: float) -> str:
    return f"{name:28s} {page:8.0f} {stock:8.0f} {page / stock:6.2f}   {no_gc:10.0f} {page / no_gc:6.2f}"


if __name__ == "__main__":
    main()
