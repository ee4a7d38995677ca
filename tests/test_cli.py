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
