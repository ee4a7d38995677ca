"""Regenerate the README's screenshots from a real ``streamlit run app.py`` in Debian's chromium.

    python scripts/readme_screenshot.py            # writes docs/img/home.png and docs/img/lesson.png

Both at 1280×1000: the home page once every lesson's thumbnail is drawn (the server builds them in the background
after the first visit), with the sidebar listing the whole course and the learning path beginning; a lesson part
scrolled to its figure, as a student sees it after reading the part's introduction. The server runs headless on a
free loopback port and stops at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from posviz import ui  # noqa: E402
from testkit.browser import CHART, CHROMIUM_ARGS, chromium_path, open_page, start_server, stop, wait_idle  # noqa: E402

WIDTH, HEIGHT = 1280, 1000
LESSON = ("Distance_biases", {"part": "family"})  # the lesson part the README shows: page address and query
THUMBNAILS = "[data-testid=stPlotlyChart]"


def home(page: object, url: str, lessons: int, seconds: float = 180) -> None:
    """Open the home page and reload it until every lesson's thumbnail is drawn (RuntimeError after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        open_page(page, url, "", charts=False)
        drawn = page.locator(THUMBNAILS).count()
        if drawn >= lessons:
            wait_idle(page)
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{drawn} of {lessons} thumbnails drawn after {seconds:.0f} s")
        time.sleep(2)


def take(out: Path) -> list[Path]:
    """Write home.png and lesson.png into ``out``; return their paths."""
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        raise SystemExit("Debian's chromium is not installed (apt-get install chromium)")
    out.mkdir(parents=True, exist_ok=True)
    lessons = len(ui.lessons(ROOT / "pages"))
    proc, url = start_server()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.set_default_timeout(90_000)
            home(page, url, lessons)
            page.screenshot(path=out / "home.png")
            open_page(page, url, LESSON[0], **LESSON[1])
            page.locator(CHART).first.scroll_into_view_if_needed()
            wait_idle(page, settle_ms=1000)
            page.screenshot(path=out / "lesson.png")
            browser.close()
    finally:
        stop(proc)
    return [out / "home.png", out / "lesson.png"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the README's screenshots (docs/img/).")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img", help="folder to write into")
    for path in take(parser.parse_args(argv).out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
