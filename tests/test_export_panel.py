"""The app's export pane offers only what this installation can make, says in one line how to enable the rest,
and shows an animation's frames as they render.

AppTest runs the RoPE page (its clock is animated: every format) in-process, so blocking a module
(``sys.modules[name] = None``) or the browser is what the page sees. A download's callable is run the way the server
runs it (``MediaFileManager.execute_deferred``, in a worker thread), with the export itself faked.
"""

from __future__ import annotations

import html
import re
import sys
import threading

import pytest

from posviz import export
from posviz.export import availability
from testkit.apptest import assert_clean, run_page

pytestmark = pytest.mark.app

RENDERED = {"PNG", "SVG", "PDF", "GIF", "MP4"}
DATA = {"HTML", "CSV", "JSON"}


def export_pane():
    """The RoPE clock with its export pane open."""
    at = run_page("pages/3_RoPE.py", {"part": "clock"})
    [b for b in at.get("button_group") if str(b.key).endswith(".extras")][0].set_value("export")
    at.run()
    assert_clean(at)
    return at


def offered(at) -> set[str]:
    return {b.proto.label for b in at.get("download_button")}


def captions(at) -> list[str]:
    """The captions as the reader sees them (markdown escapes undone)."""
    return [html.unescape(re.sub(r"\\(.)", r"\1", c.value)) for c in at.caption]


def hint(at) -> str:
    (line,) = [c for c in captions(at) if " need" in c and ":" in c]
    return line


@pytest.fixture
def browser(monkeypatch):
    monkeypatch.setattr(availability, "find_browser", lambda *a, **k: "/usr/bin/chromium")


def test_everything_is_offered_when_everything_is_installed(browser):
    at = export_pane()
    assert offered(at) == RENDERED | DATA
    assert not [c for c in captions(at) if "pip install" in c or "BROWSER_PATH" in c]


@pytest.mark.parametrize("blocked, missing, line", [
    ("kaleido", RENDERED, 'PNG, SVG, PDF, GIF and MP4 need kaleido: pip install "posviz[export]". The camera icon on '
                          "the chart still saves an SVG from your browser."),
    ("PIL", {"GIF", "MP4"}, 'GIF and MP4 need pillow: pip install "posviz[export]".'),
    ("imageio_ffmpeg", {"MP4"}, 'MP4 needs imageio-ffmpeg: pip install "posviz[export]".'),
])
def test_no_dead_buttons_without_the_extra(blocked, missing, line, monkeypatch, browser):
    monkeypatch.setitem(sys.modules, blocked, None)
    at = export_pane()
    assert offered(at) == (RENDERED | DATA) - missing
    assert hint(at) == line


def test_no_dead_buttons_without_a_browser(monkeypatch):
    monkeypatch.setenv(export.BROWSER_ENV, "/opt/no/chrome")  # set but wrong: kaleido would fail on it
    at = export_pane()
    assert offered(at) == DATA
    assert hint(at) == ("PNG, SVG, PDF, GIF and MP4 need a Chromium or Chrome browser: BROWSER_PATH='/opt/no/chrome' "
                        "is not an executable file: point it at the browser. The camera icon on the chart still "
                        "saves an SVG from your browser.")


def test_an_animation_download_shows_its_frames_as_they_render(monkeypatch, deferred, browser):
    reached, release = threading.Event(), threading.Event()

    def slow_gif(name, params, fmt, opts=None, *, time_limit=None, progress=None):
        progress(3, 31)  # three frames of the clock rendered, then the test looks at the page
        reached.set()
        release.wait(60)
        progress(31, 31)
        return b"GIF89a;"

    monkeypatch.setattr(export, "export_figure", slow_gif)
    at = export_pane()
    (gif,) = [b.proto.deferred_file_id for b in at.get("download_button") if b.proto.label == "GIF"]
    press = threading.Thread(target=deferred[gif].execute_deferred, args=(gif,))
    press.start()
    try:
        assert reached.wait(60)
        at.run()
        bars = [(p.proto.value, p.proto.text) for p in at.get("progress")]
    finally:
        release.set()
        press.join(60)
    assert bars == [(9, "GIF: frame 3 of 31 rendered")]  # st.progress shows 3/31 as 9 %
    at.run()
    assert list(at.get("progress")) == []  # done: the bar is gone
