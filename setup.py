"""Build hook: ship the Streamlit app (app.py, Home.py, pages/*.py, .streamlit/config.toml) inside the wheel.

The app's files live at the repository root, where ``streamlit run app.py`` expects them. A wheel has no
repository root, so the build copies them to ``posviz/_app/`` (globs, so renamed or new pages ship without
touching this file) and ``posviz app`` runs that copy when it is not inside a source checkout. Everything
else (name, dependencies, package data) is declared in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
APP_GLOBS = ("app.py", "Home.py", "pages/*.py", ".streamlit/config.toml")


class BuildPyWithApp(build_py):
    """build_py that also copies the app's files into ``<build_lib>/posviz/_app``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install runs the checkout's own app.py (posviz._app_files.app_dir finds it)
        target = Path(self.build_lib) / "posviz" / "_app"
        for pattern in APP_GLOBS:
            for src in sorted(ROOT.glob(pattern)):
                dst = target / src.relative_to(ROOT)
                self.mkpath(str(dst.parent))
                self.copy_file(str(src), str(dst))


setup(cmdclass={"build_py": BuildPyWithApp})
