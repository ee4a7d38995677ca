"""The command line helps: usage under the name it was started by, a figure's parameters with their types and
defaults, the export options' defaults, filtered lists, and "did you mean" for a misspelt name. In-process, no
rendering (an export the CLI starts is recorded, not run)."""

from __future__ import annotations

import fnmatch
import re
import sys

import pytest

from posviz import cli, export
from posviz.export import availability
from posviz.figures import FIGURES


@pytest.fixture
def exports(monkeypatch):
    """Every export the CLI starts: (path, figure, params, format)."""
    calls = []
    monkeypatch.setattr(availability, "find_browser", lambda *a, **k: "/usr/bin/chromium")
    monkeypatch.setattr(export, "export_file", lambda path, name, params, fmt, *a, **k:
                        calls.append((path, name, params, fmt)))
    return calls


def out_of(argv, capsys, code: int = 0) -> str:
    assert cli.main(argv) == code
    captured = capsys.readouterr()
    return captured.out if code == 0 else captured.err


@pytest.mark.parametrize("argv0, prog", [
    ("/usr/local/bin/posviz", "posviz"),
    ("C:\\venv\\Scripts\\posviz.exe", "posviz"),
    ("/src/posviz/posviz/__main__.py", "python -m posviz"),
])
def test_usage_names_the_command_as_it_was_started(argv0, prog, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [argv0, "export", "--help"])
    help_text = out_of(["export", "--help"], capsys)
    assert help_text.startswith(f"usage: {prog} export NAME [--PARAMETER VALUE ...] -o FILE")
    err = out_of(["export", "rope_clock"], capsys, 2)
    assert err == "posviz: error: give an output file with -o FILE (its suffix chooses the format)\n"
    err = out_of(["export", "-o", "x.png"], capsys, 2)
    assert err == f"posviz: error: name a figure ({prog} export --names lists them)\n"


def test_the_size_options_show_their_ranges_and_defaults(capsys):
    help_text = " ".join(out_of(["export", "--help"], capsys).split())
    assert "--width PIXELS image width in pixels before --scale, 100 to 4000 (default: 1200)" in help_text
    assert "--height PIXELS image height in pixels before --scale, 100 to 4000 (default: 675)" in help_text
    assert "--scale FACTOR pixel density: the PNG is width·scale × height·scale pixels, 0.25 to 4 (default: 1)" \
        in help_text
    assert "--fps FPS frames per second of GIF/MP4, 1 to 60 (default: 12)" in help_text


def test_a_figures_help_lists_its_parameters_with_their_ranges_and_defaults(capsys):
    """NAME --help says what each parameter accepts in the words of the figure's own check (its range or its
    options), so a value typed from the help is never refused; --list keeps to type and default."""
    help_text = out_of(["export", "sinusoidal_waves", "--help"], capsys)
    assert help_text.startswith("usage: ")
    rows = {m[0]: (m[1], m[2]) for m in re.findall(r"^ {4}(--\S+) (\S+) +(.+)$", help_text, re.M)}
    assert rows == {
        "--n_positions": ("INT", "an integer in [1, 1,048,576], default 100"),
        "--d_model": ("INT", "an integer in [2, 4096], default 128"),
        "--base": ("NUMBER", "a finite number in (1, 1e+12], default 10000.0"),
        "--layout": ("TEXT", "one of 'interleaved', 'concat', default interleaved"),
        "--dims": ("INT,...", rows["--dims"][1]),
    }
    assert rows["--dims"][1].endswith("default 0,21")
    clock = out_of(["export", "rope_clock", "-h"], capsys)
    assert "--show_angles BOOL           true or false, default false" in clock
    assert "--seed INT                   an integer in [0, 4,294,967,295], default 0" in clock
    listed = out_of(["export", "--list", "sinusoidal_waves"], capsys)
    assert "--d_model INT                an integer, default 128" in listed


def test_every_figures_help_lists_every_parameter(capsys):
    for name, spec in FIGURES.items():
        text = out_of(["export", name, "--help"], capsys)
        for param in spec.defaults():
            assert re.search(rf"^ {{4}}--(figure-)?{param} \S", text, re.M), (name, param)


def test_a_parameter_named_like_an_export_option_is_given_with_figure_(capsys, exports, tmp_path):
    help_text = out_of(["export", "patch_channel", "--help"], capsys)
    assert "--figure-width INT" in help_text and "--figure-height INT" in help_text
    out = str(tmp_path / "p.csv")
    out_of(["export", "patch_channel", "--figure-width", "10", "--width", "300", "-o", out], capsys)
    assert exports == [(out, "patch_channel", {"width": 10}, "csv")]


def test_an_option_prefix_is_a_figure_parameter_not_an_abbreviation(capsys, exports, tmp_path):
    """``--p 3`` is sinusoidal_shift's p (argparse's abbreviations took it for --presenter)."""
    out_of(["export", "sinusoidal_shift", "--p", "3", "-o", str(tmp_path / "s.json")], capsys)
    assert exports[0][2] == {"p": 3}


def test_names_prints_one_name_per_line(capsys):
    assert out_of(["export", "--names"], capsys).splitlines() == sorted(FIGURES)


@pytest.mark.parametrize("pattern", ["rope_*", "*_heatmap", "sinusoidal_[hw]*", "clock", "ROPE", "shift"])
def test_list_and_names_filter_by_glob_or_substring(pattern, capsys):
    if any(c in pattern for c in "*?["):
        expected = sorted(n for n in FIGURES if fnmatch.fnmatchcase(n, pattern))
    else:
        expected = sorted(n for n in FIGURES if pattern.lower() in n.lower())
    assert expected  # every pattern here matches something
    assert out_of(["export", "--names", pattern], capsys).splitlines() == expected
    listed = out_of(["export", "--list", pattern], capsys)
    assert re.findall(r"^(\S+)  \(", listed, re.M) == expected


def test_a_pattern_matching_nothing_is_an_error(capsys):
    assert out_of(["export", "--names", "nothing_like_it"], capsys, 2) == \
        "posviz: error: no figure matches 'nothing_like_it'\n"


@pytest.mark.parametrize("typed, meant", [("rope_clok", "rope_clock"), ("sinusoidal_heatmp", "sinusoidal_heatmap"),
                                          ("clock", "rope_clock")])
def test_a_misspelt_figure_gets_did_you_mean(typed, meant, capsys, exports):
    err = out_of(["export", typed, "-o", "x.png"], capsys, 2)
    assert err.startswith(f"posviz: error: unknown figure {typed!r}; did you mean {meant}")
    assert len(err.splitlines()) == 1 and exports == []
    assert out_of(["export", typed, "--help"], capsys, 2).startswith(f"posviz: error: unknown figure {typed!r}")


def test_a_misspelt_parameter_gets_did_you_mean(capsys, exports):
    err = out_of(["export", "sinusoidal_waves", "--dmodel", "64", "-o", "x.csv"], capsys, 2)
    assert err.startswith("posviz: error: figure 'sinusoidal_waves' has no parameter 'dmodel'; did you mean d_model? "
                          "It has: n_positions, d_model,")
    assert exports == []
