"""The package as a new user gets it: sdist -> wheel -> a fresh virtual environment outside the repository.

The wheel is built from an sdist of the working tree (so MANIFEST.in and setup.py's build hook are both
exercised), installed into a venv that cannot see this environment's packages (torch==2.13.0 first, from
the machine's local CPU wheel, then ``posviz[app,export]`` constrained to requirements.txt), and used from
a directory outside the repository: the public API, ``posviz export``, and ``posviz app`` until its health
endpoint answers and a session gets the project's theme and a lesson's charts over the websocket.

Slow (minutes: it installs torch, streamlit and their dependencies into the venv), so it is marked:
``python -m pytest -m package`` runs only this, ``-m "not package"`` skips it. Everything it creates
lives in one temporary directory, removed at the end (the pip cache included).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from posviz.ui import served
from testkit.browser import _free_port, need_browser, stop
from testkit.stream_client import Session

pytestmark = pytest.mark.package

ROOT = Path(__file__).resolve().parents[1]
APP_FILES = ("app.py", "Home.py", ".streamlit/config.toml")


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    output = f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"{' '.join(cmd)} exited {done.returncode}:\n{output}"
    return done


def source_files() -> list[str]:
    """The working tree's files as a clone would have them: tracked plus untracked-but-not-ignored."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return sorted(f for f in out.splitlines() if (ROOT / f).is_file())


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="posviz-package-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def env(workdir: Path) -> dict[str, str]:
    """Subprocess environment: no PYTHONPATH into the repository, pip's cache inside the temporary directory."""
    e = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    e.update(PIP_CACHE_DIR=str(workdir / "pip-cache"), PYTHONNOUSERSITE="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return e


@pytest.fixture(scope="module")
def wheel(workdir: Path, env: dict[str, str]) -> Path:
    """sdist of a copy of the working tree, then a wheel built from that sdist (as pip builds a download)."""
    src = workdir / "src"
    for rel in source_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    sdist = _run([sys.executable, "-c", "from setuptools import build_meta as b; print(b.build_sdist('sdist'))"],
                 cwd=src, env=env).stdout.split()[-1]
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
          str(workdir / "wheels"), str(src / "sdist" / sdist)], cwd=workdir, env=env)
    (found,) = (workdir / "wheels").glob("posviz-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(workdir: Path, wheel: Path, env: dict[str, str]) -> Path:
    """A fresh venv (no system site-packages) with torch==2.13.0, then posviz[app,export] at the pinned set."""
    root = workdir / "venv"
    # this interpreter's pip installs into the venv (--python): no ensurepip copy of pip in it, and no .pyc
    # compilation of torch's thousands of modules (they compile on first import): both only cost time here
    _run([sys.executable, "-m", "venv", "--without-pip", str(root)], cwd=workdir, env=env)
    pip = [sys.executable, "-m", "pip", "--python", str(root / "bin" / "python"), "install", "-q", "--no-compile"]
    _run([*pip, "torch==2.13.0"], cwd=workdir, env=env)
    pins = workdir / "pins.txt"  # requirements.txt without its index line: torch is installed already
    pins.write_text("".join(line for line in (ROOT / "requirements.txt").read_text().splitlines(keepends=True)
                            if not line.startswith("--")))
    _run([*pip, f"{wheel}[app,export]", "-c", str(pins)], cwd=workdir, env=env)
    return root


@pytest.fixture(scope="module")
def outside(workdir: Path) -> Path:
    """A working directory with no posviz, app.py or .streamlit in it or above it."""
    cwd = workdir / "elsewhere"
    cwd.mkdir()
    return cwd


def test_wheel_ships_the_app_and_every_data_file(wheel: Path):
    """app.py, Home.py, .streamlit/config.toml and every pages/*.py go to posviz/_app; every non-Python file of
    posviz/."""
    files = source_files()
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        app = {rel for rel in files if rel in APP_FILES or (rel.startswith("pages/") and rel.endswith(".py")
                                                           and rel.count("/") == 1)}
        shipped_app = {n.removeprefix("posviz/_app/") for n in names if n.startswith("posviz/_app/")}
        assert shipped_app == app
        for rel in app:
            assert zf.read(f"posviz/_app/{rel}") == (ROOT / rel).read_bytes(), rel
        package = [rel for rel in files if rel.startswith("posviz/")]
        data = [rel for rel in package if Path(rel).suffix not in (".py", ".md", "")]
        assert sorted(set(data) - names) == [], "package data missing from the wheel (pyproject package-data)"
        assert sorted({rel for rel in package if rel.endswith(".py")} - names) == []
        entry_points = zf.read(f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info/entry_points.txt")
    assert "posviz = posviz.cli:main" in entry_points.decode()


def test_public_api_and_export_from_the_wheel(venv: Path, outside: Path, env: dict[str, str]):
    """Import the public API from the venv (not the repository) and compare with values computed here."""
    from posviz.figures import FIGURES

    snippet = (
        "import json, posviz\n"
        "from posviz.sinusoidal import sinusoidal_table\n"
        "from posviz.rope import inv_freq\n"
        "from posviz.figures import FIGURES\n"
        "print(json.dumps({'file': posviz.__file__, 'pe': sinusoidal_table(3, 4)[2].tolist(),\n"
        "                  'theta': inv_freq(8, base=100.0).tolist(), 'figures': sorted(FIGURES)}))\n"
    )
    got = json.loads(_run([str(venv / "bin" / "python"), "-c", snippet], cwd=outside, env=env).stdout)
    assert Path(got["file"]).is_relative_to(venv)
    # interleaved table, w_i = 10000^(-2i/4): PE(2) = [sin 2, cos 2, sin 0.02, cos 0.02]
    assert got["pe"] == pytest.approx([math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)], abs=1e-6)
    assert got["theta"] == pytest.approx([100.0 ** (-2 * i / 8) for i in range(4)], rel=1e-6)
    assert got["figures"] == sorted(FIGURES)

    posviz = str(venv / "bin" / "posviz")
    bad = subprocess.run([posviz, "export", "no_such_figure", "-o", "x.svg"], cwd=outside, env=env,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "no_such_figure" in bad.stderr
    need_browser()  # kaleido draws with Debian's chromium
    _run([posviz, "export", "sinusoidal_heatmap", "--d_model", "32", "-o", "x.svg"], cwd=outside, env=env)
    svg = (outside / "x.svg").read_text()
    assert svg.startswith("<svg") and 'width="1200" height="675"' in svg[:400]


def _wait_healthy(url: str, proc: subprocess.Popen, seconds: float = 90) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"posviz app exited with {proc.returncode}"
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                return resp.read().decode()
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"posviz app did not answer {url}/_stcore/health within {seconds:.0f} s")


async def _home_and_first_lesson(url: str, lesson: str) -> tuple:
    async with Session(url) as s:
        home = await s.rerun("")
        page = await s.rerun(lesson)
        live = await s.rerun("Sinusoidal")
    sliders = [slider["states"] for slider in live.live]
    assert sliders, "the Sinusoidal heatmap follows its sliders"
    # the pointer over a slider: its states are built, and their exact figures go to the cache folder
    assert _served(url + sliders[0])[0] == 200
    return home, page


def _served(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, b""


def _as_another_user() -> tuple[list[str], int]:
    """The command prefix that runs a program as an unprivileged user, and that user's id: ``nobody`` (through
    util-linux's setpriv) when the tests run as root, else the tests' own user, who is not root already."""
    if os.geteuid() != 0:
        return [], os.geteuid()
    nobody = pwd.getpwnam("nobody")
    return ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"], nobody.pw_uid


@contextlib.contextmanager
def _reachable_by_others(*paths: Path) -> Iterator[None]:
    """Let another user reach ``paths`` (the search bit on each folder above them that lacks it, such as root's
    home holding this interpreter), as a teacher's account reaches a system-wide install; the folders' modes are
    put back afterwards."""
    changed: dict[Path, int] = {}
    for path in paths:
        for folder in reversed(path.resolve().parents):
            mode = folder.stat().st_mode
            if not mode & stat.S_IXOTH:
                changed.setdefault(folder, stat.S_IMODE(mode))
                folder.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)
    try:
        yield
    finally:
        for folder, mode in changed.items():
            folder.chmod(mode)


@contextlib.contextmanager
def _read_only(tree: Path) -> Iterator[None]:
    """Every file and folder of ``tree`` without write permission for anyone, for the duration of the block."""
    def chmod_all(change: Callable[[int], int]) -> None:
        for path in [tree, *tree.rglob("*")]:
            if not path.is_symlink():
                path.chmod(change(stat.S_IMODE(path.stat().st_mode)))

    chmod_all(lambda mode: mode & ~0o222)
    try:
        yield
    finally:
        chmod_all(lambda mode: mode | stat.S_IWUSR)


def _serve(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> tuple[subprocess.Popen, str]:
    """Start an app server on a free loopback port (given as Streamlit reads it from the environment, as the
    container recipe does) and wait for its health endpoint."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**env, "STREAMLIT_SERVER_PORT": str(port), "STREAMLIT_SERVER_ADDRESS": "127.0.0.1"}
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        assert _wait_healthy(url, proc) == "ok", log.read_text()[-2000:]
    except BaseException:
        stop(proc, 20)
        raise
    return proc, url


def test_the_container_recipe_serves_a_read_only_wheel_as_an_unprivileged_user(venv: Path, outside: Path,
                                                                               env: dict[str, str]):
    """The Dockerfile's steps where no container engine runs: its CMD (``posviz app``) from a foreign directory,
    with its ENV, run by another user than the one who installed posviz, the whole venv read-only. The shipped
    app has the project's .streamlit settings, Plotly.js comes from the installed plotly, and the exact figures
    live charts fetch ahead go to that user's cache folder (POSVIZ_CACHE_DIR), not beside the app."""
    recipe = dockerfile()
    prefix, uid = _as_another_user()
    cache = outside / "cache-of-the-teacher"
    cache.mkdir()
    os.chown(cache, uid, -1)
    user_env = {**env, **recipe["env"], "HOME": str(cache), "POSVIZ_CACHE_DIR": str(cache)}
    command = [str(venv / "bin" / recipe["cmd"][0]), *recipe["cmd"][1:]]
    with _reachable_by_others(venv, Path(sys.base_prefix), outside), _read_only(venv):
        proc, url = _serve([*prefix, *command], outside, user_env, outside / "app.log")
        try:
            lesson = sorted((ROOT / "pages").glob("*.py"))[0].stem.split("_", 1)[1]
            home, page = asyncio.run(_home_and_first_lesson(url, lesson))
            plotly_js = _served(f"{url}/posviz/plotly-{_plotly_version(venv)}.min.js")
            exact = sorted((cache / "exact-figures").glob("*.json"))
            ahead = _served(f"{url}/posviz/exact/{exact[0].name}", {"Range": "bytes=0-"}) if exact else (0, b"")
        finally:
            stop(proc, 20)
    log = (outside / "app.log").read_text()
    theme = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]["primaryColor"]
    assert home.primary_color == theme, log[-2000:]
    assert (home.status, home.exceptions) == (0, [])
    assert (page.status, page.exceptions) == (0, []) and page.charts >= 1
    assert plotly_js[0] == 200 and b"plotly" in plotly_js[1][:2000].lower()
    assert ahead[0] == 206 and ahead[1] == exact[0].read_bytes()  # as written, not gzipped
    assert {p.stat().st_uid for p in exact} == {uid}
    assert "Traceback" not in log and "PermissionError" not in log, log[-2000:]


def dockerfile() -> dict:
    """What the container recipe sets: its ENV (``key=value`` pairs, continued lines joined) and its CMD."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    env: dict[str, str] = {}
    cmd: list[str] = []
    for line in text.splitlines():
        if line.startswith("ENV "):
            env.update(pair.split("=", 1) for pair in line[4:].split())
        elif line.startswith("CMD "):
            cmd = json.loads(line[4:])
    return {"env": env, "cmd": cmd}


def _plotly_version(venv: Path) -> str:
    (found,) = venv.glob("lib/python3*/site-packages/plotly-*.dist-info")
    return found.name.removeprefix("plotly-").removesuffix(".dist-info")


def _every_part() -> list[tuple[str, str]]:
    """(page URL name, part key) of every part of every lesson, from the lessons' declarations."""
    from posviz.ui.course import lessons

    return [(lesson.url_path, key) for lesson in lessons(ROOT / "pages") for key in lesson.parts]


async def _every_part_run(url: str) -> dict[tuple[str, str], object]:
    """Each part opened from its address in a session of its own (a session reads the address only once)."""
    runs = {}
    for page, part in _every_part():
        async with Session(url, timeout=120) as s:
            runs[page, part] = await s.rerun(page, f"part={part}")
    return runs


def test_a_read_only_checkout_served_by_an_unprivileged_user_draws_every_part(workdir: Path,
                                                                               env: dict[str, str]):
    """The checkout copied as a clone has it, every file and folder read-only, served with `streamlit run app.py`
    by another user whose home and cache cannot be written either: every part of every lesson runs to its end
    with no exception and no alarm on the page (live charts send their figures instead of files ahead), and
    nothing is written anywhere in the checkout."""
    checkout = workdir / "read-only-checkout"
    for rel in source_files():
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, checkout / rel)
    before = sorted(p.relative_to(checkout) for p in checkout.rglob("*"))
    prefix, uid = _as_another_user()
    user_env = {k: v for k, v in env.items() if k not in ("POSVIZ_CACHE_DIR", "XDG_CACHE_HOME")}
    user_env["HOME"] = "/nonexistent"  # nobody's: no cache folder can be made
    with _reachable_by_others(checkout, Path(sys.base_prefix)), _read_only(checkout):
        proc, url = _serve([*prefix, sys.executable, "-m", "streamlit", "run", "app.py"], checkout, user_env,
                           workdir / "read-only.log")
        try:
            assert Path(f"/proc/{proc.pid}").stat().st_uid == uid  # the server runs as that user
            runs = asyncio.run(_every_part_run(url))
            plotly_js = _served(f"{url}/posviz/{served.PLOTLY_JS}")
        finally:
            stop(proc, 20)
    log = (workdir / "read-only.log").read_text()
    assert len(runs) == len(_every_part()) >= 71
    assert len({run.nbytes for run in runs.values()}) > 60  # each run drew its own part, not one page again
    failed = {key: (run.status, run.exceptions) for key, run in runs.items() if run.status or run.exceptions}
    assert failed == {}, log[-2000:]
    alarms = {key: run.alerts for key, run in runs.items()
              if any(word in alert for alert in run.alerts for word in ALARMS)}
    assert alarms == {}
    assert plotly_js[0] == 200 and plotly_js[1] == served.plotly_js_file().read_bytes()
    assert sorted(p.relative_to(checkout) for p in checkout.rglob("*")) == before
    assert "Traceback" not in log and "PermissionError" not in log, log[-2000:]


ALARMS = ("Error", "error:", "Errno", "ermission", "read-only", "Read-only", "cache", "could not be written")
