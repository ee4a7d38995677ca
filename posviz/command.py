"""The ``posviz`` command: ``posviz app`` serves the lessons, ``posviz lessons`` lists them, ``posviz export …``
is posviz.cli.

    posviz app                          # same as `streamlit run app.py` in the repository, from any directory
    posviz app --server.port 8600       # any further arguments go to `streamlit run`
    posviz app --public-url http://192.168.1.20:8501 --server.address 0.0.0.0   # the address share links give
    posviz lessons                      # the course: lessons, parts and their controls
    posviz lessons --json               # the same as JSON (title, page, slug, order; each part's controls)
    posviz export --list                # every figure (see posviz.cli)
    posviz export sinusoidal_heatmap -o pe.svg

``posviz app`` runs the checkout's own app.py when posviz is imported from a source checkout (or an
editable install), else the copy a wheel ships in ``posviz/_app`` (setup.py copies it at build time).
Streamlit reads the ``.streamlit/config.toml`` beside the script it runs, so the project's settings
apply whatever the working directory is.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import urllib.parse
from pathlib import Path

import posviz
from posviz import PUBLIC_URL_ENV

USAGE = """usage: posviz {app,lessons,export} ...

  posviz app [--public-url URL] [streamlit run options]
                                       serve the lessons (e.g. --server.port 8600 --server.address 0.0.0.0);
                                       URL: the address students open, for share links and QR codes
  posviz lessons [--json]              the course: every lesson, part and control, as an outline or as JSON
  posviz export --list                 list every figure and its parameters
  posviz export NAME [--param value ...] -o FILE [-o FILE ...]
  posviz --version
"""


def app_dir() -> Path:
    """Directory holding the app's app.py, pages/ and .streamlit/: the checkout's root, else the wheel's copy."""
    package = Path(posviz.__file__).resolve().parent
    checkout = package.parent
    if all((checkout / name).exists() for name in ("app.py", "pages", "pyproject.toml")):
        return checkout
    shipped = package / "_app"
    if (shipped / "app.py").is_file():
        return shipped
    raise FileNotFoundError(f"posviz app: no app.py in {checkout} or {shipped}; reinstall posviz")


def run_app(args: list[str]) -> int:
    """Replace this process by ``python -m streamlit run <app dir>/app.py *args`` (same pid, same signals).

    An exec rather than an import keeps streamlit out of everything in posviz but posviz.ui; returns only
    on an error (2).
    """
    if importlib.util.find_spec("streamlit") is None:
        print('posviz: error: posviz app needs Streamlit: pip install "posviz[app]"', file=sys.stderr)
        return 2
    try:
        args = _take_public_url(args)
    except ValueError as err:
        print(f"posviz: error: {err}", file=sys.stderr)
        return 2
    try:
        script = app_dir() / "app.py"
    except FileNotFoundError as err:
        print(f"posviz: error: {err}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", "streamlit", "run", str(script), *args])
    return 2  # not reached: execv only returns by raising OSError


def _take_public_url(args: list[str]) -> list[str]:
    """Remove ``--public-url URL`` (or ``--public-url=URL``) from ``args`` and hand URL to the app in the
    environment (the share link and QR code of every page use it); ValueError for a URL that is not http(s)."""
    rest, url = [], None
    items = iter(args)
    for arg in items:
        if arg == "--public-url":
            url = next(items, "")
        elif arg.startswith("--public-url="):
            url = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    if url is not None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise ValueError(f"--public-url must be an address like http://192.168.1.20:8501, got {url!r}")
        os.environ[PUBLIC_URL_ENV] = url
    return rest


def list_lessons(args: list[str]) -> int:
    """Print the course as declared by the pages (``--json``: as JSON); 2 on a usage error."""
    if args not in ([], ["--json"]):
        print(f"posviz: error: posviz lessons takes only --json, not {' '.join(args)!r}", file=sys.stderr)
        return 2
    if importlib.util.find_spec("streamlit") is None:
        print('posviz: error: posviz lessons reads the pages, which need Streamlit: pip install "posviz[app]"',
              file=sys.stderr)
        return 2
    from posviz.ui import course  # the pages' declarations (posviz.ui is the layer that imports streamlit)

    course.quiet_outside_a_server()

    found = course.lessons(app_dir() / "pages")
    if args:
        print(json.dumps(course.outline(found), indent=2, ensure_ascii=False))
    else:
        print(course.outline_text(found))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``posviz app …`` and ``posviz export …``; return the exit code (2 on a usage error)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, end="", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] == "--version":
        print(f"posviz {posviz.__version__}")
        return 0
    if argv[0] == "app":
        return run_app(argv[1:])
    if argv[0] == "lessons":
        return list_lessons(argv[1:])
    if argv[0] == "export":
        from posviz.cli import main as export_main  # imports plotly and the figures: only when exporting

        return export_main(argv)
    print(f"posviz: error: unknown command {argv[0]!r}\n{USAGE}", end="", file=sys.stderr)
    return 2
