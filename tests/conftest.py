"""What every test shares: the app server of the browser tests (one for the whole run), and the test tiers.

Tiers (markers, declared in pyproject.toml): ``app`` (Streamlit AppTest runs of the pages), ``render`` (kaleido
exports), ``browser`` (a real server and Debian's chromium), ``package`` (a wheel in a fresh virtual
environment, the nginx deploy). A test carries its tier as a marker (a module's ``pytestmark``); every test
without one of them is marked ``quick`` here, so ``pytest -m quick`` is the suite a contributor runs first.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

from posviz.ui.served import CACHE_ENV
from testkit.browser import served

# the files the app generates (exact figures written ahead for live sliders) go to a folder of the run's own, not
# to the user's cache; the servers the tests start inherit it
if not os.environ.get(CACHE_ENV):
    os.environ[CACHE_ENV] = tempfile.mkdtemp(prefix="posviz-test-cache-")
    atexit.register(shutil.rmtree, os.environ[CACHE_ENV], True)

# the suite reads English text: a contributor's Chinese locale must not switch the commands it runs to Chinese
# (posviz.i18n.environment_language reads LANGUAGE first); tests of the Chinese set the language themselves
os.environ["LANGUAGE"] = "en"

TIERS = ("app", "render", "browser", "package")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not any(item.get_closest_marker(tier) for tier in TIERS):
            item.add_marker(pytest.mark.quick)


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """A real ``streamlit run app.py``, shared by the whole test session."""
    with served() as url:
        yield url


@pytest.fixture
def deferred(monkeypatch: pytest.MonkeyPatch) -> dict:
    """The file id of every download button a page draws -> the MediaFileManager that will run its callable (so
    a test can run an export as the click would)."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    managers: dict[str, MediaFileManager] = {}
    real = MediaFileManager.add_deferred

    def add(self: MediaFileManager, *args: object, **kwargs: object) -> str:
        file_id = real(self, *args, **kwargs)
        managers[file_id] = self
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", add)
    return managers
