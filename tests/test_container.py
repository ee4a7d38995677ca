"""The container recipe (Dockerfile) as a linter and a reader check it; tests/test_package.py runs its steps (its
CMD and ENV, a read-only install, an unprivileged user) where no container engine runs, as here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.test_package import dockerfile

ROOT = Path(__file__).resolve().parents[1]
RECIPE = (ROOT / "Dockerfile").read_text()


def test_hadolint_finds_nothing_in_the_dockerfile():
    hadolint = shutil.which("hadolint")
    assert hadolint, "hadolint is a dev requirement (pip install -r requirements-dev.txt)"
    done = subprocess.run([hadolint, "--no-color", str(ROOT / "Dockerfile")], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "")


def test_the_image_serves_posviz_as_a_non_root_user_writing_only_its_cache():
    recipe = dockerfile()
    assert recipe["cmd"] == ["posviz", "app"]
    users = [line.split()[1] for line in RECIPE.splitlines() if line.startswith("USER ")]
    assert users and users[-1].isdigit() and int(users[-1]) != 0  # numeric: resolvable without /etc/passwd
    assert recipe["env"]["POSVIZ_CACHE_DIR"].startswith("/tmp/")
    assert recipe["env"]["STREAMLIT_SERVER_ADDRESS"] == "0.0.0.0"
    assert f"EXPOSE {recipe['env']['STREAMLIT_SERVER_PORT']}" in RECIPE
    assert "/_stcore/health" in RECIPE.split("HEALTHCHECK", 1)[1]


def test_the_image_installs_the_cpu_torch_at_the_tested_versions():
    install = " ".join(line for line in RECIPE.replace("\\\n", " ").splitlines() if "pip install" in line)
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in install
    assert "-c /tmp/posviz/requirements.txt" in install and "[app,export]" in install
    assert "chromium" in RECIPE and "fonts-" in RECIPE
