"""Cold start: ``streamlit run app.py`` until the home page is drawn in chromium, and which pages import torch.

    python -m benchmarks.cold_start
"""

from __future__ import annotations

import subprocess
import sys
import time

from benchmarks._browser import ROOT, launch, start_server

TORCH_CHECK = """
import sys, runpy
sys.argv = ["x"]
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({path!r}, default_timeout=120).run()
print("torch" in sys.modules)
"""


def main() -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        t0 = time.perf_counter()
        proc, url = start_server("app.py")
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", state="attached")
        page.get_by_text("Lessons").first.wait_for()
        cold = time.perf_counter() - t0
        proc.terminate()
        browser.close()
    print(f"cold start (server start -> home page drawn): {cold:.2f} s")
    for path in ["app.py", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))]:
        out = subprocess.run([sys.executable, "-c", TORCH_CHECK.format(path=str(ROOT / path))], cwd=ROOT,
                             capture_output=True, text=True, timeout=300).stdout.strip().splitlines()
        print(f"{path:40s} imports torch: {out[-1] if out else '?'}")


if __name__ == "__main__":
    main()
