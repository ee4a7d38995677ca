"""Where the app's files are: the checkout's root when posviz is imported from a source checkout (or an editable
install), else the copy a wheel ships in ``posviz/_app`` (setup.py copies it at build time). The command line
(``posviz app``, ``posviz lessons``) and the course reader (``posviz.ui.course``) both look here, so neither
imports the other.
"""

from __future__ import annotations

from pathlib import Path

import posviz


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
