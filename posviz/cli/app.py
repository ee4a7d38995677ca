"""``posviz app`` and ``posviz lessons``: serve the lessons with Streamlit, or print the course they declare.

``posviz app`` runs the checkout's own app.py when posviz is imported from a source checkout (or an
editable install), else the copy a wheel ships in ``posviz/_app`` (setup.py copies it at build time).
Streamlit reads the ``.streamlit/config.toml`` beside the script it runs, so the project's settings
apply whatever the working directory is. ``--public-url`` is the address students open, for share links and
QR codes. Nothing here imports Streamlit or plotly: ``app`` execs Streamlit, ``lessons`` imports the pages lazily.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import urllib.parse

from posviz import PUBLIC_URL_ENV
from posviz._app_files import app_dir
from posviz.i18n import _


def run_app(args: list[str]) -> int:
    """Replace this process by ``python -m streamlit run <app dir>/app.py *args`` (same pid, same signals).

    An exec rather than an import keeps streamlit out of everything in posviz but posviz.ui; returns only
    on an error (2).
    """
    if importlib.util.find_spec("streamlit") is None:
        print(_('posviz: error: posviz app needs Streamlit: pip install "posviz[app]"'), file=sys.stderr)
        return 2
    try:
        args = _take_public_url(args)
    except ValueError as err:
        print(_("posviz: error: {error}", error=err), file=sys.stderr)
        return 2
    try:
        script = app_dir() / "app.py"
    except FileNotFoundError as err:
        print(_("posviz: error: {error}", error=err), file=sys.stderr)
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
            raise ValueError(_("--public-url must be an address like http://192.168.1.20:8501, got {url!r}", url=url))
        os.environ[PUBLIC_URL_ENV] = url
    return rest


def list_lessons(args: list[str]) -> int:
    """Print the course as declared by the pages (``--json``: as JSON); 2 on a usage error."""
    if args not in ([], ["--json"]):
        print(_("posviz: error: posviz lessons takes only --json, not {given!r}", given=" ".join(args)),
              file=sys.stderr)
        return 2
    if importlib.util.find_spec("streamlit") is None:
        print(_('posviz: error: posviz lessons reads the pages, which need Streamlit: pip install "posviz[app]"'),
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
