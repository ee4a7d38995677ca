"""The command line exports every registered figure as JSON and CSV, and in every other format it supports (PNG,
SVG, PDF, HTML; GIF and MP4 of an animation) a few figures that stand for the rest, as valid files.

Kaleido draws every figure the same way, so PNG/SVG/PDF/HTML are checked on one figure of each kind (``SHOWN``)
and GIF/MP4 on one short animation. Every figure's SVG is checked (valid, its size, its theme's colours, no
placeholder colour, no overlapping or cut-off text) by tests/test_figure_text_layout.py, which renders it anyway.
"""

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
from posviz.figures import FIGURES, build
from testkit.browser import ROOT, need_browser

pytestmark = pytest.mark.render

W, H = 480, 320
# one figure of each kind kaleido draws, with every format it has (PNG, SVG, PDF, HTML, CSV, JSON; GIF and MP4)
SHOWN = {
    "sinusoidal_heatmap": {},  # a heatmap with its colour bar
    "sinusoidal_waves": {},  # line charts
    "rope_cos_sin_tables": {},  # four heatmap panels with their titles (annotations)
    "scaling_yarn_ramp": {},  # line panels with six annotations
    "cope_gqa_shapes": {},  # a table
    "rope_qk_turn": {"n_frames": 6, "c_max": 3.0},  # an animation (6 frames: a short GIF and MP4), two panels
}


@pytest.fixture(scope="module", autouse=True)
def kaleido_ready():
    need_browser()


def check_file(path, fmt: str, name: str, params: dict | None = None) -> None:
    data = path.read_bytes()
    if fmt == "png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        img = iio.imread(data, extension=".png")[..., :3].astype(float)
        assert img.shape[:2] == (H, W)
        assert img.std() > 5 and img.mean() > 60, "blank or black image"
    elif fmt == "svg":
        assert data.lstrip().startswith(b"<svg") and b"#000001" not in data
        assert f'width="{W}"'.encode() in data[:300] and f'height="{H}"'.encode() in data[:300]
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
        assert payload["params"] == (params or {})
    elif fmt == "gif":
        assert data[:6] in (b"GIF89a", b"GIF87a")
        frames = iio.imread(io.BytesIO(data), extension=".gif", index=None)
        expected = len(build(name, **(params or {})).frames)
        assert frames.shape[0] == expected >= 2
        assert frames.shape[1:3] == (H, W)
        assert not np.array_equal(frames[0], frames[-1]), "the animation does not move"
    elif fmt == "mp4":
        assert data[4:8] == b"ftyp" and len(data) > 2000
        frames = iio.imread(data, extension=".mp4", plugin="FFMPEG", index=None)
        assert frames.shape[0] == len(build(name, **(params or {})).frames)
        assert frames.shape[1:3] == (H // 16 * 16, W // 16 * 16)  # H.264: sizes divisible by 16
    else:
        raise AssertionError(fmt)


def _export(name: str, params: dict, fmts: tuple[str, ...], tmp_path) -> None:
    """``posviz export name --param value ... -o name.fmt ...``, then every file checked."""
    args = ["export", name, "--width", str(W), "--height", str(H), "--fps", "4"]
    for key, value in params.items():
        args += [f"--{key}", str(value)]
    for fmt in fmts:
        args += ["-o", str(tmp_path / f"{name}.{fmt}")]
    assert main(args) == 0
    for fmt in fmts:
        check_file(tmp_path / f"{name}.{fmt}", fmt, name, params)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_figure_exports_its_numbers_as_json_and_csv(name, tmp_path):
    _export(name, {}, ("json", "csv"), tmp_path)


def test_the_figures_shown_stand_for_every_kind_of_figure():
    kinds = {t.type for name in SHOWN for t in build(name, **SHOWN[name]).data}
    assert {"heatmap", "scatter", "table"} <= kinds
    assert any(len(build(name).layout.annotations) >= 4 for name in SHOWN)
    assert any("xaxis2" in build(name).layout for name in SHOWN)
    assert any(FIGURES[name].animated for name in SHOWN)


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_a_figure_of_each_kind_exports_in_every_format(name, tmp_path):
    """Every format of the figure in one command; for the animation, GIF and MP4 too: every frame, and it moves."""
    _export(name, SHOWN[name], export.formats_for(name), tmp_path)


def test_list_names_every_figure_with_defaults(capsys):
    assert main(["export", "--list"]) == 0
    out = capsys.readouterr().out
    for name, spec in FIGURES.items():
        assert name in out
        for pname in spec.defaults():
            assert f"--{pname} " in out or f"--figure-{pname} " in out  # --figure-width: --width is the image's


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
    monkeypatch.setattr(export, "export_file", lambda *a, **k: calls.append(a))
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

    monkeypatch.setattr(export, "export_file", bomb)
    err = one_line_exit_2(["export", "sinusoidal_waves", "-o", str(tmp_path / "w.png")], capsys)
    assert "DecompressionBombError" in err and not list(tmp_path.iterdir())


# ------------------------------------------------------------------ python -m posviz.models

MODELS_OPTIONS = {  # every subcommand of the models' command line, with the options its help must list
    "train": ("--out", "--steps", "--finetune-steps", "--seed", "--threads", "--jobs", "--schemes"),
    "grid": ("--models",),
    "docs": (),
    "merge": ("src", "--into"),
    "report": (),
    "figures": ("--out", "--n-sequences"),
}


def test_models_help_lists_every_subcommand():
    proc = subprocess.run([sys.executable, "-m", "posviz.models", "--help"], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("usage: python -m posviz.models [-h] {" + ",".join(MODELS_OPTIONS) + "}")


@pytest.mark.parametrize("command", sorted(MODELS_OPTIONS))
def test_models_subcommand_help_lists_its_options(command, capsys):
    from posviz.models.__main__ import main as models_main

    with pytest.raises(SystemExit) as done:
        models_main([command, "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith(f"usage: python -m posviz.models {command} [-h]")
    assert all(option in out for option in MODELS_OPTIONS[command])


def test_models_without_a_subcommand_is_a_usage_error(capsys):
    from posviz.models.__main__ import main as models_main

    with pytest.raises(SystemExit) as done:
        models_main([])
    assert done.value.code == 2 and "required: command" in capsys.readouterr().err
