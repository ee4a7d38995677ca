"""The files hosted services read are what docs/DEPLOY.md says they are.

Hosted Streamlit builds a repository from its root: the first dependency file it finds (uv.lock, Pipfile,
environment.yml, then requirements.txt), Debian packages from packages.txt, the Python version chosen in its
deploy dialog. A Hugging Face Space of the Docker kind builds the Dockerfile and sends visitors to the port its
README's metadata names (deploy/huggingface/README.md). Neither service can be reached from the test machine;
these tests check that the files agree with each other, with the docs, and (packages.txt) with Debian.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
DEPLOY = (ROOT / "docs" / "DEPLOY.md").read_text()
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
SPACE_COLORS = {"red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray"}


def _section(title: str) -> str:
    """The text of docs/DEPLOY.md's ``## title`` section, up to the next ``## `` heading."""
    start = DEPLOY.index(f"\n## {title}\n")
    end = DEPLOY.find("\n## ", start + 1)
    return DEPLOY[start:end if end != -1 else None]


def _packages() -> list[str]:
    return (ROOT / "packages.txt").read_text().split()


def _front_matter(text: str) -> dict[str, str]:
    """The ``key: value`` lines between a README's opening ``---`` lines (the flat YAML a Space reads)."""
    assert text.startswith("---\n"), "a Space's README starts with its metadata block"
    block = text[4:text.index("\n---\n")]
    pairs = [line.split(":", 1) for line in block.splitlines()]
    assert all(len(p) == 2 for p in pairs), block
    return {k.strip(): v.strip() for k, v in pairs}


def _env(name: str) -> str:
    """The value the Dockerfile's ENV gives ``name`` (comments skipped)."""
    code = "\n".join(line for line in DOCKERFILE.splitlines() if not line.lstrip().startswith("#"))
    found = re.search(rf"^(?:ENV)?\s+{name}=(\S+)", code, re.MULTILINE)
    assert found, f"the Dockerfile sets no {name}"
    return found.group(1)


def test_deploy_has_one_section_per_route():
    headings = re.findall(r"^## (.+)$", DEPLOY, re.MULTILINE)
    for route in ("laptop", "lecture hall", "Hosted Streamlit", "Hugging Face Space", "container",
                  "several machines"):
        assert any(route.lower() in h.lower() for h in headings), f"no section for {route!r} in {headings}"


def test_hosted_streamlit_reads_requirements_txt_at_the_root_beside_app_py():
    assert (ROOT / "app.py").is_file() and (ROOT / "requirements.txt").is_file()
    # these come before requirements.txt in the service's order: one of them would be installed instead
    assert [f for f in ("uv.lock", "Pipfile", "environment.yml") if (ROOT / f).exists()] == []


def test_requirements_txt_takes_torch_from_the_cpu_index_and_otherwise_only_pins():
    lines = [line.split("#", 1)[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    lines = [line for line in lines if line]
    assert [line for line in lines if line.startswith("-")] == [f"--extra-index-url {TORCH_CPU_INDEX}"]
    assert lines.index(f"--extra-index-url {TORCH_CPU_INDEX}") < lines.index("torch==2.13.0")
    assert f"--extra-index-url {TORCH_CPU_INDEX}" in DOCKERFILE  # the image looks in the same index


def test_packages_txt_is_the_images_browser_and_fonts_and_what_the_docs_list():
    packages = _packages()
    assert packages == sorted(set(packages)) and "chromium" in packages
    install = DOCKERFILE.split("apt-get install", 1)[1].split("&&", 1)[0].split()
    assert set(packages) == set(install) - {"-y", "--no-install-recommends", "curl", "\\"}
    shown = _section("Hosted Streamlit").split("```\n", 2)[1]  # the section's first code block
    assert shown.split() == packages, "the section shows packages.txt as it stands"


def test_packages_txt_names_debian_packages():
    apt_cache = shutil.which("apt-cache")
    if apt_cache is None:
        pytest.skip("apt-cache: not a Debian system")
    shown = subprocess.run([apt_cache, "show", *_packages()], capture_output=True, text=True, timeout=60)
    assert {line.split(": ", 1)[1] for line in shown.stdout.splitlines() if line.startswith("Package: ")} == \
        set(_packages()), shown.stderr


def test_the_python_version_the_docs_name_is_the_images_and_a_supported_one():
    version = re.search(r"FROM python:(\d+\.\d+)-", DOCKERFILE).group(1)
    assert f"**Python version** {version}" in _section("Hosted Streamlit")
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert SpecifierSet(requires).contains(f"{version}.0")


def test_the_space_readme_points_the_space_at_the_images_port():
    meta = _front_matter((ROOT / "deploy" / "huggingface" / "README.md").read_text())
    assert meta["sdk"] == "docker" and meta["title"] and meta["emoji"]
    assert {meta["colorFrom"], meta["colorTo"]} <= SPACE_COLORS
    assert 0 < len(meta["short_description"]) <= 60  # the Hub's limit
    port = _env("STREAMLIT_SERVER_PORT")
    assert meta["app_port"] == port and f"\nEXPOSE {port}\n" in DOCKERFILE
    assert _env("STREAMLIT_SERVER_ADDRESS") == "0.0.0.0"  # the Space's proxy reaches it from outside


def test_the_image_runs_as_the_uid_a_space_uses():
    users = [line.split()[1] for line in DOCKERFILE.splitlines() if line.startswith("USER ")]
    assert users[-1] == "1000" and "--uid 1000" in DOCKERFILE
