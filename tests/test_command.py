"""The ``posviz`` command's dispatch (``app`` / ``lessons`` / ``export``) and where ``posviz app`` finds the app."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import posviz
from posviz import cli
from posviz.cli import app as app_command

ROOT = Path(__file__).resolve().parents[1]


def test_app_dir_is_the_checkout_in_a_source_tree():
    assert app_command.app_dir() == ROOT


def test_app_dir_falls_back_to_the_copy_a_wheel_ships(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    (site / "posviz" / "_app").mkdir(parents=True)
    (site / "posviz" / "__init__.py").write_text("")
    (site / "posviz" / "_app" / "app.py").write_text("")
    (site / "app.py").write_text("")  # a stray app.py beside the package is not a checkout (no pages/, pyproject)
    monkeypatch.setattr(posviz, "__file__", str(site / "posviz" / "__init__.py"))
    assert app_command.app_dir() == site / "posviz" / "_app"
    (site / "posviz" / "_app" / "app.py").unlink()
    with pytest.raises(FileNotFoundError, match="_app"):
        app_command.app_dir()


def test_app_execs_streamlit_on_the_found_script(monkeypatch):
    seen = []
    monkeypatch.setattr(app_command.os, "execv", lambda path, argv: seen.append((path, argv)))
    cli.main(["app", "--server.port", "9"])
    assert seen == [(sys.executable, [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
                                      "--server.port", "9"])]


def test_app_without_streamlit_says_which_extra(monkeypatch, capsys):
    monkeypatch.setattr(app_command.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(app_command.os, "execv", lambda *a: pytest.fail("must not exec without streamlit"))
    assert cli.main(["app"]) == 2
    assert 'pip install "posviz[app]"' in capsys.readouterr().err


def test_usage_errors_exit_2_and_name_the_command(capsys):
    assert cli.main([]) == 2
    assert "posviz app" in capsys.readouterr().err
    assert cli.main(["serve"]) == 2
    assert "unknown command 'serve'" in capsys.readouterr().err
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"posviz {posviz.__version__}"


def test_export_is_the_cli(capsys):
    from posviz.figures import FIGURES

    assert cli.main(["export", "--list"]) == 0
    listed = {line.split()[0] for line in capsys.readouterr().out.splitlines() if line and not line[0].isspace()}
    assert listed == set(FIGURES)
    assert cli.main(["export", "sinusoidal_heatmap", "--d_model", "7", "-o", "x.svg"]) == 2
    assert "d_model" in capsys.readouterr().err


def test_python_dash_m_posviz_dispatches_too():
    done = subprocess.run([sys.executable, "-m", "posviz", "export", "no_such_figure", "-o", "x.svg"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "no_such_figure" in done.stderr


def test_the_dispatcher_loads_no_figures_until_export_runs():
    """``posviz app`` and ``posviz lessons`` start without plotly: only ``export`` imports the figures."""
    code = "import sys, posviz.cli; print(sorted(m for m in ('plotly', 'posviz.figures', 'posviz.cli.export') " \
           "if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_console_script_is_the_same_main():
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts == {"posviz": "posviz.cli:main"}
    assert set(cli.SUBCOMMANDS) == {"app", "lessons", "export"}
