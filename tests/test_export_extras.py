"""What an installation can export, found rather than assumed; the browser found where platforms install it; a
failed export that never destroys an existing file; progress while an animation renders.

Modules of the ``[export]`` extra are blocked the way a plain install lacks them (``sys.modules[name] = None``:
importing raises ImportError), in-process. The browser lookup runs on a fake file system (a set of executable
paths). Rendering goes through a fake renderer that answers each frame with a small PNG, so no browser runs.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import io
import os
import pkgutil
import stat
import sys

import numpy as np
import plotly.graph_objects as go
import pytest
from PIL import Image

import posviz
from posviz import cli, export
from posviz.export import availability, formats, scheduler

EXTRA = ("kaleido", "PIL", "imageio", "imageio_ffmpeg")
CHROMIUM = "/usr/bin/chromium"


def block(monkeypatch, *modules: str) -> None:
    """Make ``modules`` (and their submodules) unimportable, as on an install without them."""
    for name in [m for m in sys.modules if m.split(".")[0] in modules]:
        monkeypatch.delitem(sys.modules, name)
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


@pytest.fixture
def browser(monkeypatch):
    """A browser is installed (whatever this machine has): the tests decide what else is missing."""
    monkeypatch.setattr(availability, "find_browser", lambda *a, **k: CHROMIUM)


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("posviz: error:"), captured.err
    return lines[0]


# ------------------------------------------------------------------------------------ extras detected


def test_list_and_names_work_on_a_plain_install(monkeypatch, capsys):
    """posviz.export (every module of the package) and posviz.cli import afresh with every module of the extra
    blocked: the extra is imported only where a format needs it, never at module level."""
    monkeypatch.delattr(posviz, "export")  # else ``from posviz import export`` finds the loaded one; restored after
    monkeypatch.setattr(posviz, "cli", cli)  # restored afterwards: the fresh modules stay in this test
    names = ["posviz.export", "posviz.cli"]
    names += [f"{p.__name__}.{m.name}" for p in (export, cli) for m in pkgutil.iter_modules(p.__path__)]
    for name in names:  # set, then deleted: undone in reverse, each entry ends as it was (absent if it was)
        monkeypatch.setitem(sys.modules, name, None)
        monkeypatch.delitem(sys.modules, name)
    block(monkeypatch, *EXTRA)
    fresh = importlib.import_module("posviz.cli")
    assert fresh is not cli and fresh.main(["export", "--names"]) == 0
    assert sys.modules["posviz.export.formats"] is not export.formats  # the export package was imported afresh
    assert capsys.readouterr().out.split() == sorted(posviz.figures.FIGURES)
    assert fresh.main(["export", "--list", "sinusoidal_heatmap"]) == 0
    assert "--d_model INT" in capsys.readouterr().out


@pytest.mark.parametrize("blocked, lacking", [
    (("kaleido",), dict.fromkeys(("png", "svg", "pdf", "gif", "mp4"), ("kaleido",))),
    (("PIL",), {"gif": ("PIL",), "mp4": ("PIL",)}),
    (("imageio_ffmpeg",), {"mp4": ("imageio_ffmpeg",)}),
    ((), {}),
])
def test_each_format_names_the_modules_it_lacks(blocked, lacking, monkeypatch, browser):
    block(monkeypatch, *blocked)
    assert export.unavailable(export.FORMATS) == lacking
    for fmt in ("html", "csv", "json"):
        assert export.missing_for(fmt) == ()


def test_a_missing_browser_is_named_with_where_to_get_it(monkeypatch):
    monkeypatch.setattr(availability, "find_browser", lambda *a, **k: None)
    monkeypatch.delenv(export.BROWSER_ENV, raising=False)
    lacking = export.unavailable(["png", "gif", "csv"])
    assert lacking == {"png": (export.BROWSER,), "gif": (export.BROWSER,)}
    assert export.how_to_enable(lacking) == ("PNG and GIF need a Chromium or Chrome browser: apt-get install "
                                             "chromium, or install Google Chrome, or set BROWSER_PATH to the browser.")
    monkeypatch.setenv(export.BROWSER_ENV, "/opt/nowhere/chrome")
    assert "BROWSER_PATH='/opt/nowhere/chrome' is not an executable file" in export.how_to_enable(lacking)


def test_the_hint_names_the_packages_and_the_extra():
    hint = export.how_to_enable({"png": ("kaleido",), "mp4": ("kaleido", "PIL", "imageio_ffmpeg")})
    assert hint == 'PNG and MP4 need kaleido, pillow and imageio-ffmpeg: pip install "posviz[export]".'
    both = export.how_to_enable({"svg": ("kaleido", export.BROWSER)})
    assert both.startswith('SVG needs kaleido and a Chromium or Chrome browser: pip install "posviz[export]"; ')


@pytest.mark.parametrize("blocked, fmt, words", [
    ("kaleido", "png", 'PNG needs kaleido: pip install "posviz[export]".'),
    ("PIL", "gif", 'GIF needs pillow: pip install "posviz[export]".'),
    ("imageio_ffmpeg", "mp4", 'MP4 needs imageio-ffmpeg: pip install "posviz[export]".'),
])
def test_the_cli_refuses_a_format_it_cannot_make_in_one_line(blocked, fmt, words, tmp_path, monkeypatch, capsys,
                                                             browser):
    block(monkeypatch, blocked)
    out = tmp_path / f"clock.{fmt}"
    assert cli.main(["export", "rope_clock", "-o", str(out)]) == 2
    assert one_error_line(capsys) == f"posviz: error: {words}"
    assert not list(tmp_path.iterdir())


def test_csv_json_and_html_need_nothing_of_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(availability, "find_browser", lambda *a, **k: None)
    block(monkeypatch, *EXTRA)
    outs = [tmp_path / f"waves.{fmt}" for fmt in ("csv", "json", "html")]
    assert cli.main(["export", "sinusoidal_waves", "--dims", "0,3", *(a for o in outs for a in ("-o", str(o)))]) == 0
    assert outs[0].read_text().splitlines()[0] == "trace,x,y,z"
    assert b'"params": {"dims": [0, 3]}' in outs[1].read_bytes()
    assert b"<html>" in outs[2].read_bytes()[:200].lower()


def test_a_library_call_without_the_extra_says_how_to_enable_it(monkeypatch):
    block(monkeypatch, "kaleido")
    with pytest.raises(export.ExportUnavailableError, match=r'PNG needs kaleido: pip install "posviz\[export\]"'):
        export.export_figure("sinusoidal_waves", {}, "png")


# ------------------------------------------------------------------------------------- finding the browser


@pytest.fixture
def disk(monkeypatch, tmp_path):
    """A fake file system: the set of executable files; PATH holds nothing."""
    executables: set[str] = set()
    monkeypatch.setattr(availability, "_is_executable", executables.__contains__)
    return executables, {"PATH": str(tmp_path)}


def test_browser_path_is_honoured_and_only_it(disk):
    executables, env = disk
    executables.update({"/opt/chrome/chrome", "/Applications/Chromium.app/Contents/MacOS/Chromium"})
    assert export.find_browser("darwin", {**env, "BROWSER_PATH": "/opt/chrome/chrome"}) == "/opt/chrome/chrome"
    # set but wrong: kaleido would use it and fail, so nothing else is offered in its place
    assert export.find_browser("darwin", {**env, "BROWSER_PATH": "/opt/none/chrome"}) is None


def test_path_comes_before_the_platform_places(tmp_path, monkeypatch):
    chromium = tmp_path / "chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    monkeypatch.setattr(availability, "browser_candidates", lambda *a: pytest.fail("looked past PATH"))
    assert export.find_browser("linux", {"PATH": str(tmp_path)}) == str(chromium)


@pytest.mark.parametrize("platform, env, installed", [
    ("darwin", {}, "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"),
    ("darwin", {}, "/Applications/Chromium.app/Contents/MacOS/Chromium"),
    ("darwin", {"HOME": "/Users/ada"}, "/Users/ada/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"),
    ("win32", {"PROGRAMFILES": "C:\\Program Files"}, r"C:\Program Files\Google\Chrome\Application\chrome.exe"),
    ("win32", {"PROGRAMFILES(X86)": "C:\\Program Files (x86)"},
     r"C:\Program Files (x86)\Google\Chrome\Application\chrome.exe"),
    ("win32", {"LOCALAPPDATA": "C:\\Users\\ada\\AppData\\Local\\"},
     r"C:\Users\ada\AppData\Local\Google\Chrome\Application\chrome.exe"),
    ("win32", {"LOCALAPPDATA": "C:\\Users\\ada\\AppData\\Local"},
     r"C:\Users\ada\AppData\Local\Chromium\Application\chrome.exe"),
])
def test_the_browser_is_found_where_the_platform_installs_it(platform, env, installed, disk):
    executables, path_env = disk
    assert export.find_browser(platform, {**path_env, **env}) is None
    executables.add(installed)
    assert export.find_browser(platform, {**path_env, **env}) == installed
    assert export.find_browser("linux", {**path_env, **env}) is None  # Linux looks on PATH only


def test_the_renderer_drives_the_browser_that_was_found(monkeypatch):
    kaleido = pytest.importorskip("kaleido")
    seen = {}

    class FakeKaleido:
        def __init__(self, **kwargs):
            seen.update(kwargs)

        async def open(self):
            return None

        async def close(self):
            return None

    monkeypatch.setattr(kaleido, "Kaleido", FakeKaleido)
    monkeypatch.setattr(availability, "find_browser", lambda *a, **k: "/opt/chrome/chrome")
    renderer = scheduler.BrowserRenderer(tabs=1)
    renderer._start()
    renderer.close()
    assert seen["path"] == "/opt/chrome/chrome"
    monkeypatch.setattr(availability, "find_browser", lambda *a, **k: None)
    with pytest.raises(export.ExportUnavailableError, match="need a Chromium or Chrome browser"):
        scheduler.BrowserRenderer(tabs=1)._start()


# ------------------------------------------------------------------------- a failed write destroys nothing


def _png(shade: int, noise: bool = False) -> bytes:
    """A 160×120 PNG of one shade, or of seeded noise (which a GIF cannot compress: its bytes reach the disk
    past the file's buffer within the first frame)."""
    rgb = np.full((120, 160, 3), (shade, 255 - shade, 90), np.uint8)
    if noise:
        rgb = np.random.default_rng(shade).integers(0, 256, rgb.shape, dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


class FailingRenderer:
    """Answers frames with small PNGs and raises at frame ``fail_at``, noting how much of the new file was
    already written beside the target by then (the failure is midway, not before the file was begun)."""

    def __init__(self, folder, fail_at: int) -> None:
        self.folder, self.fail_at, self.frames, self.written = folder, fail_at, 0, -1

    def submit(self, fig, fmt, opts, priority=0.0):
        self.frames += 1
        if self.frames == self.fail_at:
            parts = [p for p in self.folder.iterdir() if p.name.endswith(".part")]
            self.written = sum(p.stat().st_size for p in parts)
            raise RuntimeError("the browser crashed")
        future = concurrent.futures.Future()
        future.set_result(_png(self.frames * 7 % 256, noise=True))
        return future


def test_an_export_failing_midway_leaves_the_existing_file_unchanged(tmp_path, monkeypatch, capsys, browser):
    target = tmp_path / "clock.gif"
    target.write_bytes(b"the GIF of yesterday")
    renderer = FailingRenderer(tmp_path, fail_at=export.PALETTE_SAMPLES + 4)
    monkeypatch.setattr(scheduler, "SHARED_RENDERER", renderer)
    argv = ["export", "rope_clock", "--n_frames", "30", "--width", "160", "--height", "120", "-q", "-o", str(target)]
    assert cli.main(argv) == 2
    assert "RuntimeError: the browser crashed" in one_error_line(capsys)
    assert renderer.written > 10_000  # the GIF's header and first frames were in the new file
    assert target.read_bytes() == b"the GIF of yesterday"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clock.gif"]


def test_a_full_disk_leaves_the_existing_file_unchanged_and_no_new_one(tmp_path, monkeypatch, capsys):
    def half_then_full(out, *args, **kwargs):
        out.write(b"trace,x,y,z\n0,1,")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(formats, "render_into", half_then_full)
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    old.write_bytes(b"trace,x,y,z\nkept,1,2,\n")
    for target in (old, new):
        assert cli.main(["export", "sinusoidal_waves", "-o", str(target)]) == 2
        assert one_error_line(capsys) == f"posviz: error: cannot write {str(target)!r}: No space left on device"
    assert old.read_bytes() == b"trace,x,y,z\nkept,1,2,\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.csv"]


def test_a_replaced_file_keeps_its_permissions_and_its_link(tmp_path):
    real, link = tmp_path / "real.csv", tmp_path / "link.csv"
    real.write_bytes(b"old")
    real.chmod(0o640)
    link.symlink_to(real)
    with export.atomic_write(link) as out:
        out.write(b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    umask = os.umask(0o022)
    os.umask(umask)
    with export.atomic_write(tmp_path / "fresh.csv") as out:
        out.write(b"x")
    assert stat.S_IMODE((tmp_path / "fresh.csv").stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.csv", "link.csv", "real.csv"]


# ------------------------------------------------------------------------------------------------ progress


class Frames:
    """A fake renderer answering each frame with a PNG of its own shade."""

    def submit(self, fig, fmt, opts, priority=0.0):
        future = concurrent.futures.Future()
        future.set_result(_png(fig["layout"]["meta"] * 20 % 256))
        return future


def test_an_animation_reports_every_frame_once_in_order(monkeypatch):
    monkeypatch.setattr(scheduler, "SHARED_RENDERER", Frames())
    n = 11  # more frames than the GIF's palette samples, which are rendered first and not again
    fig = go.Figure(go.Scatter(x=[0], y=[0]), frames=[go.Frame(layout=dict(meta=i), name=str(i)) for i in range(n)])
    seen: list[tuple[int, int]] = []
    gif = export.render(fig, "gif", export.ExportOptions(width=160, height=120), progress=lambda *a: seen.append(a))
    assert gif[:6] == b"GIF89a"
    assert seen == [(i, n) for i in range(1, n + 1)]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _fake_export(frames: int, fail: bool = False):
    def export_file(path, name, params, fmt, opts=None, *, progress=None, time_limit=None):
        for i in range(1, frames + 1):
            if progress is not None:
                progress(i, frames)
            if fail and i == 2:
                raise RuntimeError("the browser crashed")
        with open(path, "wb") as f:
            f.write(b"GIF89a")

    return export_file


@pytest.mark.parametrize("tty, quiet, shown", [(True, False, True), (True, True, False), (False, False, False)])
def test_the_cli_shows_frames_on_a_terminal_unless_quiet(tty, quiet, shown, tmp_path, monkeypatch, browser):
    stderr = Terminal() if tty else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(export, "export_file", _fake_export(3))
    out = str(tmp_path / "clock.gif")
    assert cli.main(["export", "rope_clock", "-o", out, *(["--quiet"] if quiet else [])]) == 0
    expected = f"\r{out}: frame 1 of 3\r{out}: frame 2 of 3\r{out}: frame 3 of 3\n"
    assert stderr.getvalue() == (expected if shown else "")


def test_an_error_after_progress_starts_on_its_own_line(tmp_path, monkeypatch, browser):
    stderr = Terminal()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(export, "export_file", _fake_export(5, fail=True))
    assert cli.main(["export", "rope_clock", "-o", str(tmp_path / "clock.gif")]) == 2
    assert stderr.getvalue().split("\n")[1:] == ["posviz: error: RuntimeError: the browser crashed", ""]
