"""posviz/ui/live/chart.js's pure functions under node's own test runner (tests/js/*.test.mjs): picking the state
nearest the thumb, merging a frame into a trace, a state as a figure, and when a new exact figure can be patched in."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_live_js_unit_tests_pass_under_node():
    node = shutil.which("node") or shutil.which("nodejs")
    assert node, "node runs live.js's unit tests: apt-get install nodejs (.ci/run does)"
    done = subprocess.run([node, "--test", *sorted(str(p) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout


def test_live_js_passes_the_linter():
    """biome lint (tests/js/biome.json: its recommended rules) finds no error in the live chart's scripts and
    their tests. ``npm ci --prefix tests/js`` installs it (.ci/run does)."""
    biome = ROOT / "tests" / "js" / "node_modules" / ".bin" / "biome"
    assert biome.is_file(), "the JS linter is not installed: npm ci --prefix tests/js"
    done = subprocess.run([str(biome), "lint", "--diagnostic-level=error", "../../posviz/ui/live/chart.js",
                           "live.test.mjs"],
                          cwd=ROOT / "tests" / "js", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Checked 2 files" in done.stdout + done.stderr
