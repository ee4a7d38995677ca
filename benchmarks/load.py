"""A classroom: N concurrent browser sessions against one server, moving sliders on random pages.

Each session (a chromium page, i.e. its own Streamlit session) repeatedly opens a random lesson, waits
until it is drawn, then presses an arrow key on a random slider every 1-2 s, timing each rerun (key
press -> script finished and charts drawn). After each round it reports per-session rerun p50/p95, the
errors seen (error elements on the page or timeouts) and the server's resident memory, so a second
round shows whether memory keeps growing (it must not: every cache is bounded).

    python -m benchmarks.load --sessions 10 --seconds 60 --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from pathlib import Path

from benchmarks._browser import CHROMIUM_ARGS, IDLE, ROOT, chromium_path, start_server

PAGES = [p.stem.split("_", 1)[1] for p in sorted((ROOT / "pages").glob("*.py"))]
DRAWN = ("() => { const c = [...document.querySelectorAll('[data-testid=stPlotlyChart], .posviz-live-chart')];"
         " return c.length > 0 && c.every(x => x.querySelector('.main-svg')); }")
ERRORS = "[data-testid=stException], [data-testid=stAlertContentError]"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def settle(page) -> None:
    await page.wait_for_timeout(120)
    await page.wait_for_selector(IDLE, state="attached", timeout=30_000)
    await page.wait_for_function(DRAWN, timeout=30_000)


async def session(browser, url: str, seconds: float, rng: random.Random) -> dict:
    page = await browser.new_page(viewport={"width": 1280, "height": 900})
    times, errors, end = [], 0, time.monotonic() + seconds
    current = None
    while time.monotonic() < end:
        try:
            if current is None or rng.random() < 0.25:
                current = rng.choice(PAGES)
                await page.goto(f"{url}/{current}")
                await settle(page)
            sliders = page.get_by_role("slider")
            n = await sliders.count()
            if n:
                slider = sliders.nth(rng.randrange(min(n, 6)))
                await slider.focus()
                t0 = time.perf_counter()
                await slider.press(rng.choice(["ArrowRight", "ArrowLeft"]))
                await settle(page)
                times.append(time.perf_counter() - t0)
            errors += await page.locator(ERRORS).count()
        except Exception:
            errors += 1
            current = None
        await asyncio.sleep(rng.uniform(1.0, 2.0))
    await page.close()
    return {"times": times, "errors": errors}


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return 1000 * xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


async def run(args: argparse.Namespace) -> None:
    from playwright.async_api import async_playwright

    proc, url = start_server("app.py")
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            print(f"server RSS at start: {rss_mb(proc.pid):.0f} MB")
            for rnd in range(1, args.rounds + 1):
                before = rss_mb(proc.pid)
                results = await asyncio.gather(*[session(browser, url, args.seconds, random.Random(rnd * 100 + i))
                                                 for i in range(args.sessions)])
                after = rss_mb(proc.pid)
                print(f"\nround {rnd}: {args.sessions} sessions x {args.seconds:.0f} s")
                print(f"{'session':>8s} {'reruns':>7s} {'p50 ms':>8s} {'p95 ms':>8s} {'errors':>7s}")
                for i, r in enumerate(results):
                    print(f"{i:8d} {len(r['times']):7d} {pct(r['times'], .5):8.0f} {pct(r['times'], .95):8.0f} "
                          f"{r['errors']:7d}")
                every = [t for r in results for t in r["times"]]
                print(f"{'all':>8s} {len(every):7d} {pct(every, .5):8.0f} {pct(every, .95):8.0f} "
                      f"{sum(r['errors'] for r in results):7d}")
                print(f"server RSS: {before:.0f} MB before, {after:.0f} MB after round {rnd}")
            await browser.close()
    finally:
        proc.terminate()


def main() -> None:
    ap = argparse.ArgumentParser(description="Classroom load benchmark")
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--rounds", type=int, default=2)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
