"""The command line exports every registered figure in every format it supports, as valid files."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import imageio.v3 as iio
import numpy as np
import pytest

from posviz import export
from posviz.cli import main
from posviz.figures import FIGURES
from tests.browser.conftest import ROOT, _need_browser

W, H = 480, 320


@pytest.fixture(scope="module", autouse=True)
def kaleido_ready():
    _need_browser()


def check_file(path, fmt: str, name: str) -> None:
    data = path.read_bytes()
    if fmt == "png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        img = iio.imread(data, extension=".png")[..., :3].astype(float)
        assert img.shape[:2] == (H, W)
        assert img.std() > 5 and img.mean() > 60, "blank or black image"
    elif fmt == "svg":
        assert data.lstrip().startswith(b"<svg") and b"#000001" not in data
    elif fmt == "pdf":
        assert data.startswith(b"%PDF-")
    elif fmt == "html":
        assert b"<html" in data[:200].lower() and b"#000001" not in data
    elif fmt == "csv":
        lines = data.decode().splitlines()
        assert lines[0] == "trace,x,y,z" and len(lines) > 1
    elif fmt == "json":
        payload = json.loads(data)
        assert payload["figure"] == name and payload["traces"]
    elif fmt == "gif":
        frames = iio.imread(io.BytesIO(data), extension=".gif", index=None)
        expected = len(FIGURES[name].builder().frames)
        assert frames.shape[0] == expected >= 2
        assert not np.array_equal(frames[0], frames[-1]), "the animation does not move"
    elif fmt == "mp4":
        assert data[4:8] == b"ftyp"


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_export_every_figure_in_every_format(name, tmp_path):
    fmts = export.formats_for(name)
    outs = [str(tmp_path / f"{name}.{fmt}") for fmt in fmts]
    args = ["export", name, "--width", str(W), "--height", str(H), "--fps", "10"]
    for out in outs:
        args += ["-o", out]
    assert main(args) == 0
    for fmt in fmts:
        check_file(tmp_path / f"{name}.{fmt}", fmt, name)


def test_list_names_every_figure_with_defaults(capsys):
    assert main(["export", "--list"]) == 0
    out = capsys.readouterr().out
    for name, spec in FIGURES.items():
        assert name in out
        for pname in spec.defaults():
            assert f"--{pname} " in out


@pytest.mark.parametrize("argv", [
    ["export", "no_such_figure", "-o", "x.png"],
    ["export", "sinusoidal_waves", "--bogus", "1", "-o", "x.png"],
    ["export", "sinusoidal_waves", "--d_model", "seven", "-o", "x.png"],
    ["export", "sinusoidal_waves", "--d_model", "7", "-o", "x.png"],
    ["export", "sinusoidal_waves", "-o", "x.bmp"],
    ["export", "sinusoidal_waves", "-o", "x.gif"],
    ["export", "sinusoidal_waves"],
    ["export", "sinusoidal_waves", "--width", "5", "-o", "x.png"],
    ["export", "--theme", "neon", "sinusoidal_waves", "-o", "x.png"],
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(argv, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "posviz", *argv], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("posviz: error:")
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------------ failures are found before rendering

@pytest.fixture
def no_render(monkeypatch):
    """Record every export the CLI starts (none may start when a check fails)."""
    calls = []
    monkeypatch.setattr(export, "export_figure", lambda *a, **k: calls.append(a) or b"")
    return calls


def one_line_exit_2(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("posviz: error:"), err
    assert "Traceback" not in err
    return err


def test_missing_directory_is_refused_before_rendering(tmp_path, capsys, no_render):
    out = tmp_path / "no_such_dir" / "clock.gif"
    err = one_line_exit_2(["export", "rope_clock", "-o", str(tmp_path / "ok.png"), "-o", str(out)], capsys)
    assert "does not exist" in err and str(out.parent) in err
    assert no_render == [] and not list(tmp_path.iterdir())  # the valid first output was not written either


def test_existing_directory_is_refused(tmp_path, capsys, no_render):
    (tmp_path / "clock.gif").mkdir()
    err = one_line_exit_2(["export", "rope_clock", "-o", str(tmp_path / "clock.gif")], capsys)
    assert "is a directory" in err and no_render == []


def test_dev_full_and_other_devices_are_refused(tmp_path, capsys, no_render):
    link = tmp_path / "full.png"
    link.symlink_to("/dev/full")  # the suffix chooses PNG; the target is a character device
    err = one_line_exit_2(["export", "sinusoidal_waves", "-o", str(link)], capsys)
    assert "not a regular file" in err and "None" not in err and no_render == []


def _immutable(path, on: bool) -> bool:
    return subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True).returncode == 0


def test_unwritable_directory_is_refused(tmp_path, capsys, no_render):
    locked = tmp_path / "locked"
    locked.mkdir()
    import os

    if os.geteuid() == 0:  # root writes through permission bits: make the directory immutable instead
        if not _immutable(locked, True):
            pytest.skip("running as root without chattr +i")
    else:
        locked.chmod(0o555)
    try:
        err = one_line_exit_2(["export", "sinusoidal_waves", "-o", str(locked / "w.csv")], capsys)
    finally:
        if os.geteuid() == 0:
            _immutable(locked, False)
        else:
            locked.chmod(0o755)
    assert "not writable" in err and no_render == [] and not list(locked.iterdir())


def test_a_fifo_is_refused_without_blocking(tmp_path):
    import os

    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "posviz", "export", "sinusoidal_waves", "-o", str(fifo)],
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                          timeout=120)  # opening a FIFO for writing would block here forever
    assert proc.returncode == 2 and "not a regular file" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, words", [
    (["rope_clock", "--width", "4000", "--height", "4000", "--scale", "4", "-o", "x.gif"], "36 megapixels per image"),
    (["rope_clock", "--dim", "256", "--pairs", "all", "--n_frames", "72", "--width", "4000", "--height", "4000",
      "--scale", "3", "-o", "x.gif"], "36 megapixels per image"),
    (["rope_clock", "--dim", "256", "--pairs", "all", "--n_frames", "72", "--width", "4000", "--height", "4000",
      "-o", "x.mp4"], "260 megapixels per animation"),
    (["rope_clock", "--n_frames", "72", "--width", "1920", "--height", "1080", "--scale", "2", "-o", "x.gif"],
     "at most 31 frames"),
    (["sinusoidal_waves", "--dims", ",", "-o", "w.csv"], "dims"),
    (["sinusoidal_waves", "--dims", " , ", "-o", "w.csv"], "selects nothing"),
])
def test_over_budget_and_empty_selections_exit_2_before_rendering(argv, words, tmp_path, capsys, no_render,
                                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = one_line_exit_2(["export", *argv], capsys)
    assert words in err and no_render == [] and not list(tmp_path.iterdir())


def test_any_error_during_export_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    from PIL import Image

    def bomb(*args, **kwargs):
        raise Image.DecompressionBombError("Image size (256000000 pixels) exceeds limit\nof 178956970 pixels")

    monkeypatch.setattr(export, "export_figure", bomb)
    err = one_line_exit_2(["export", "sinusoidal_waves", "-o", str(tmp_path / "w.png")], capsys)
    assert "DecompressionBombError" in err and not list(tmp_path.iterdir())


def test_a_failed_write_names_the_file_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    import io

    monkeypatch.setattr(export, "export_figure", lambda *a, **k: b"x" * 10)
    target = tmp_path / "w.csv"

    class Full(io.FileIO):  # the file is created, then the disk is full (what /dev/full does to a write)
        def write(self, data):
            raise OSError(28, "No space left on device")

    real_open = open
    monkeypatch.setattr("builtins.open", lambda f, m="r", *a, **k: Full(f, "wb") if str(f) == str(target)
                        else real_open(f, m, *a, **k))
    err = one_line_exit_2(["export", "sinusoidal_waves", "-o", str(target)], capsys)
    assert "No space left on device" in err and str(target) in err and "None" not in err
    assert not target.exists()  # the partly written file was removed
