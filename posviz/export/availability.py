"""What this installation can export, found rather than assumed: the Python modules of the ``[export]`` extra each
rendered format imports (kaleido, Pillow, imageio-ffmpeg, imported only when a format needs them, so a plain
install still makes HTML, CSV and JSON) and the Chromium or Chrome kaleido drives (``BROWSER_PATH``, then PATH,
then where macOS and Windows install them; nothing here downloads a browser). ``missing_for`` says what a format
lacks and ``how_to_enable`` how to get it."""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from collections.abc import Iterable, Mapping

from posviz._validate import check_choice
from posviz.export.options import FORMATS

BROWSER = "chromium"  # the need that is a program, not a Python module
# the Python modules each rendered format imports, and the distribution of the [export] extra that ships each
FORMAT_NEEDS: dict[str, tuple[str, ...]] = {
    "png": ("kaleido", BROWSER), "svg": ("kaleido", BROWSER), "pdf": ("kaleido", BROWSER),
    "gif": ("kaleido", BROWSER, "PIL"), "mp4": ("kaleido", BROWSER, "PIL", "imageio_ffmpeg"),
}
DISTRIBUTIONS = {"kaleido": "kaleido", "PIL": "pillow", "imageio_ffmpeg": "imageio-ffmpeg"}
BROWSER_ENV = "BROWSER_PATH"  # the variable kaleido (through choreographer) itself reads for the browser
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
MAC_APPS = ("Google Chrome.app/Contents/MacOS/Google Chrome", "Chromium.app/Contents/MacOS/Chromium")
WINDOWS_APPS = (r"Google\Chrome\Application\chrome.exe", r"Chromium\Application\chrome.exe")
WINDOWS_ROOTS = ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA")


class ExportUnavailableError(RuntimeError):
    """A format this installation cannot make (a module of the [export] extra, or the browser, is missing)."""


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def browser_candidates(platform: str | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """The places a Chrome or Chromium is installed on ``platform`` (``sys.platform``: "darwin", "win32",
    "linux"), outside PATH: /Applications (and ~/Applications) on macOS, Program Files and LOCALAPPDATA on
    Windows; nothing on Linux, whose packages put the browser on PATH."""
    platform = sys.platform if platform is None else platform
    environ = os.environ if environ is None else environ
    if platform == "darwin":
        roots = ["/Applications"] + ([environ["HOME"] + "/Applications"] if environ.get("HOME") else [])
        return [f"{root}/{app}" for root in roots for app in MAC_APPS]
    if platform == "win32":
        roots = [environ[name].rstrip("\\") for name in WINDOWS_ROOTS if environ.get(name)]
        return [f"{root}\\{app}" for root in roots for app in WINDOWS_APPS]
    return []


def find_browser(platform: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The browser kaleido will drive, or None: ``BROWSER_PATH`` if set (only that one, as kaleido does; None if
    it is not an executable file), else the first of PATH_NAMES on PATH, else the platform's usual places
    (``browser_candidates``)."""
    environ = os.environ if environ is None else environ
    chosen = environ.get(BROWSER_ENV)
    if chosen:
        return chosen if _is_executable(chosen) else None
    for name in PATH_NAMES:
        found = shutil.which(name, path=environ.get("PATH"))
        if found:
            return found
    return next((path for path in browser_candidates(platform, environ) if _is_executable(path)), None)


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:  # absent, or blocked (sys.modules[module] is None)
        return False
    return True


def _unmet_needs(fmt: str, has_browser: bool) -> tuple[str, ...]:
    """The needs of ``fmt`` (FORMAT_NEEDS) this installation does not meet, given whether it has a browser."""
    return tuple(need for need in FORMAT_NEEDS.get(fmt, ())
                 if not (has_browser if need == BROWSER else _importable(need)))


def missing_for(fmt: str, *, browser: bool = True) -> tuple[str, ...]:
    """What format ``fmt`` needs that this installation lacks: module names of the [export] extra ("kaleido",
    "PIL", "imageio_ffmpeg") and, unless ``browser`` is False, BROWSER for the browser; empty when the format
    can be made (HTML, CSV and JSON need nothing)."""
    fmt = check_choice("fmt", fmt, FORMATS)
    return _unmet_needs(fmt, not browser or find_browser() is not None)


def unavailable(fmts: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each format of ``fmts`` that cannot be made here, with what it lacks (``missing_for``); the browser is
    looked for once."""
    fmts = [check_choice("fmt", fmt, FORMATS) for fmt in fmts]
    has_browser = find_browser() is not None
    lacking = {fmt: _unmet_needs(fmt, has_browser) for fmt in fmts}
    return {fmt: needs for fmt, needs in lacking.items() if needs}


def _joined_with_and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def how_to_enable(lacking: Mapping[str, Iterable[str]]) -> str:
    """One line saying which formats cannot be made and how to enable them, from ``unavailable(...)``: e.g.
    'PNG, SVG and PDF need kaleido: pip install "posviz[export]".' A missing browser adds where to get one."""
    named = {need for why in lacking.values() for need in why}
    needs = [need for need in FORMAT_NEEDS["mp4"] if need in named]  # mp4 needs all of them, in a fixed order
    packages = [DISTRIBUTIONS[n] for n in needs if n != BROWSER]
    names = _joined_with_and([fmt.upper() for fmt in lacking])
    what = packages + (["a Chromium or Chrome browser"] if BROWSER in needs else [])
    fixes = ['pip install "posviz[export]"'] if packages else []
    if BROWSER in needs:
        chosen = os.environ.get(BROWSER_ENV)
        fixes.append(f"{BROWSER_ENV}={chosen!r} is not an executable file: point it at the browser" if chosen else
                     f"apt-get install chromium, or install Google Chrome, or set {BROWSER_ENV} to the browser")
    return f"{names} {'needs' if len(lacking) == 1 else 'need'} {_joined_with_and(what)}: {'; '.join(fixes)}."


def require(fmt: str, *, browser: bool = True) -> None:
    """ExportUnavailableError (saying how to enable it) unless format ``fmt`` can be made here (its modules, and
    unless ``browser`` is False, the browser: see ``missing_for``)."""
    lacking = missing_for(fmt, browser=browser)
    if lacking:
        raise ExportUnavailableError(how_to_enable({fmt: lacking}))
