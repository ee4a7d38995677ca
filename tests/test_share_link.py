"""The share link and its QR code send students where they can go: the server's public address when it has one,
never presenter mode, and a warning when the link names this computer only."""

from __future__ import annotations

import os

import pytest

import posviz
from posviz.cli import app as command
from posviz.ui.page import is_loopback, student_address
from testkit.apptest import assert_clean, run_page


@pytest.mark.parametrize(("browser", "base", "public", "expected"), [
    ("http://127.0.0.1:8501/RoPE", "", None, "http://127.0.0.1:8501/RoPE"),
    ("http://127.0.0.1:8501/RoPE", "", "http://192.168.1.20:8501", "http://192.168.1.20:8501/RoPE"),
    ("http://127.0.0.1:8501/", "", "http://192.168.1.20:8501/", "http://192.168.1.20:8501"),
    ("http://localhost:8080/class/CoPE", "class", None, "http://localhost:8080/class/CoPE"),
    ("http://localhost:8080/class/CoPE", "class", "https://posviz.example.org/class", "https://posviz.example.org/class/CoPE"),
    ("http://localhost:8080/class", "class", "https://posviz.example.org/class", "https://posviz.example.org/class"),
    # st.context.url trims the browser's page name before appending the current page's (see _page_address)
    ("http://127.0.0.1:8501/Gaussian_kernel_/Gaussian_kernel_RoPE", "", None,
     "http://127.0.0.1:8501/Gaussian_kernel_RoPE"),
])
def test_the_student_address_is_the_page_on_the_public_root(browser, base, public, expected):
    assert student_address(browser, base, public) == expected


@pytest.mark.parametrize(("url", "loopback"), [
    ("http://127.0.0.1:8501/RoPE?d=64", True), ("http://localhost:8501", True), ("http://[::1]:8501/", True),
    ("http://127.8.9.10/", True), ("http://192.168.1.20:8501/RoPE", False), ("https://posviz.example.org/", False),
    ("http://10.0.0.5:8080", False),
])
def test_a_link_to_this_computer_only_is_recognised(url, loopback):
    assert is_loopback(url) is loopback


def test_posviz_app_takes_the_public_url_and_passes_the_rest_on(monkeypatch):
    monkeypatch.delenv(posviz.PUBLIC_URL_ENV, raising=False)
    rest = command._take_public_url(["--server.port", "8600", "--public-url", "http://192.168.1.20:8600"])
    assert rest == ["--server.port", "8600"]
    assert os.environ[posviz.PUBLIC_URL_ENV] == "http://192.168.1.20:8600"
    assert command._take_public_url(["--public-url=https://a.example/x"]) == []
    for bad in ("192.168.1.20:8600", "ftp://a.example", "http://a.example/?q=1", ""):
        with pytest.raises(ValueError, match="--public-url"):
            command._take_public_url(["--public-url", bad])


@pytest.mark.app
def test_the_share_box_leaves_presenter_mode_to_the_lecturer():
    at = run_page("pages/2_Sinusoidal.py", {"present": "1", "d": "64", "part": "waves"})
    assert_clean(at)
    (link,) = [c.value for c in at.sidebar.get("code")]
    assert "d=64" in link and "part=waves" in link
    assert "present" not in link
