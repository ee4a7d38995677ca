"""Files the app serves beside its pages, read from where they already are: posviz never writes into its own
package or checkout, so an install nobody may write to (a system-wide pip, a Docker image run as another
user, a read-only checkout) serves every lesson.

- **Plotly.js** (live charts draw with it): plotly's own bundle, read from the installed plotly package.
- **Exact figures of live sliders' states** (``posviz.ui.live.store.ServedFigureFiles``): files in a per-user cache
  folder (the platform's: ``~/.cache/posviz`` under XDG on Linux, ``~/Library/Caches/posviz`` on macOS,
  ``%LOCALAPPDATA%\\posviz\\Cache`` on Windows; or ``$POSVIZ_CACHE_DIR``), shared by one machine's app
  processes. Where that folder cannot be written the files are simply not made: letting go of a slider
  then waits for the rerun's figure, and nothing is said to the student.

``routes()`` gives app.py's ``st.App`` these routes under ``/posviz/`` (beside Streamlit's own, behind the
configured ``server.baseUrlPath``), and ``posviz.ui.live.routes`` those of the live sliders' states and exact
figures; ``url()`` is the address a page asks for.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import platformdirs
import plotly
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

CACHE_ENV = "POSVIZ_CACHE_DIR"  # a folder of the user's choosing for generated files (else the platform's)
PREFIX = "posviz"  # the routes' first path segment (not one of Streamlit's reserved ones)
PLOTLY_JS = f"plotly-{plotly.__version__}.min.js"  # versioned: a browser may keep it for good
_EXACT_NAME = re.compile(r"[0-9a-f]{24}\.json")  # posviz.ui.live.store.content_id + ".json": nothing else is served
_KEEP_FOR_GOOD = {"Cache-Control": "public, max-age=31536000, immutable"}


def plotly_js_file() -> Path:
    """Plotly.js as the installed plotly package ships it (the bundle ``plotly.io`` writes into HTML files)."""
    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def cache_dir() -> Path:
    """The folder for files posviz generates: ``$POSVIZ_CACHE_DIR`` if set, else the platform's per-user cache
    folder for posviz (``platformdirs.user_cache_path``). It may not exist yet, or not be writable."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    return Path(chosen).expanduser() if chosen else platformdirs.user_cache_path("posviz", appauthor=False)


def exact_dir() -> Path:
    """Where ``posviz.ui.live.store.ServedFigureFiles`` writes exact figures and the ``exact/`` route reads them."""
    return cache_dir() / "exact-figures"


def url(base: str, name: str) -> str:
    """The address of a served file (``name``: ``PLOTLY_JS``, or ``"exact/"`` + a file) behind the app's
    ``server.baseUrlPath`` ``base``."""
    return "/" + "/".join(filter(None, (base.strip("/"), PREFIX, name)))


async def _plotly_js(request: Request) -> Response:
    return FileResponse(plotly_js_file(), media_type="text/javascript", headers=_KEEP_FOR_GOOD)


async def _exact(request: Request) -> Response:
    """One exact figure by its content name (so it never changes: kept for good too); 404 once trimmed."""
    name = request.path_params["name"]
    path = exact_dir() / name
    try:
        body = path.read_bytes() if _EXACT_NAME.fullmatch(name) else None
    except OSError:  # trimmed meanwhile, or never there
        body = None
    if body is None:
        return PlainTextResponse("not found", status_code=404)
    # one body, not a file streamed in chunks: each chunk waits its turn beside a running script (tens of ms
    # for a figure of 100 KB). Asked as a range (all of it, "bytes=0-"), it is answered as one, which Streamlit's
    # server sends as it is rather than gzip it while the release's script runs
    whole = bool(body) and request.headers.get("range", "").strip() == "bytes=0-"
    headers = {**_KEEP_FOR_GOOD, **({"Content-Range": f"bytes 0-{len(body) - 1}/{len(body)}"} if whole else {})}
    return Response(body, status_code=206 if whole else 200, media_type="application/json", headers=headers)


def routes(base: str = "") -> list[Route]:
    """The routes app.py adds to Streamlit's (``st.App(..., routes=...)``), behind ``base``
    (``server.baseUrlPath``)."""
    return [Route(url(base, PLOTLY_JS), _plotly_js, methods=["GET"]),
            Route(url(base, "exact/{name}"), _exact, methods=["GET"])]
