"""The ``posviz`` command line, one subcommand per job: ``app`` serves the lessons, ``lessons`` lists them,
``export`` writes any figure to a file (``python -m posviz`` runs the same ``main``).

    posviz app                          # same as `streamlit run app.py` in the repository, from any directory
    posviz app --server.port 8600       # any further arguments go to `streamlit run`
    posviz app --public-url http://192.168.1.20:8501 --server.address 0.0.0.0   # the address share links give
    posviz lessons                      # the course: lessons, parts and their controls
    posviz lessons --json               # the same as JSON (title, page, slug, order; each part's controls)
    posviz export --list                # every figure (see posviz.cli.export)
    posviz export sinusoidal_heatmap -o pe.svg

``posviz.cli.app`` holds ``app`` and ``lessons``, ``posviz.cli.export`` the figure export. Each is imported
when its subcommand runs, so ``posviz app`` starts without plotly and the figures, and the course reader
(``posviz.ui.course``, which ``lessons`` imports) never finds this package on an import cycle.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import posviz
from posviz import i18n
from posviz.i18n import N_, _

USAGE = N_("""usage: posviz {app,lessons,export} ...

  posviz app [--public-url URL] [streamlit run options]
                                       serve the lessons (e.g. --server.port 8600 --server.address 0.0.0.0);
                                       URL: the address students open, for share links and QR codes
  posviz lessons [--json]              the course: every lesson, part and control, as an outline or as JSON
  posviz export --list                 list every figure and its parameters
  posviz export NAME [--param value ...] -o FILE [-o FILE ...] [--lang zh]
  posviz --version
""")


def _app(args: list[str]) -> int:
    """``posviz app …`` (``posviz.cli.app.run_app``)."""
    from posviz.cli.app import run_app

    return run_app(args)


def _lessons(args: list[str]) -> int:
    """``posviz lessons [--json]`` (``posviz.cli.app.list_lessons``)."""
    from posviz.cli.app import list_lessons

    return list_lessons(args)


def _export(args: list[str]) -> int:
    """``posviz export …``: imports plotly and the figures, so only when exporting."""
    from posviz.cli.export import main as export_main

    return export_main(["export", *args])


# each subcommand: the function that runs it on the arguments after its name and returns the exit code
SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {"app": _app, "lessons": _lessons, "export": _export}


def main(argv: list[str] | None = None) -> int:
    """Run ``posviz <subcommand> …`` in the environment's language (``i18n.environment_language``: Chinese for a
    ``zh`` locale); return the exit code (2 on a usage error)."""
    with i18n.using(i18n.environment_language()):
        return _main(sys.argv[1:] if argv is None else list(argv))


def _main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_(USAGE), end="", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] == "--version":
        print(f"posviz {posviz.__version__}")
        return 0
    if argv[0] not in SUBCOMMANDS:
        print(_("posviz: error: unknown command {command!r}", command=argv[0]) + "\n" + _(USAGE), end="",
              file=sys.stderr)
        return 2
    return SUBCOMMANDS[argv[0]](argv[1:])
