"""A class arriving at a freshly started server: twelve sessions open the lessons at the same moment, while the
server is still importing what the pages import, and none of them sees an exception.

On a fresh process the first sessions import pandas, plotly, torch and the pages concurrently; plotly's array
checks read pandas from ``sys.modules`` without importing it, so a session drawing while another is still
importing pandas would show "partially initialized module 'pandas' has no attribute 'Series'" (posviz.ui imports
pandas whole before any page draws). A real server, loopback only.
"""

from __future__ import annotations

import asyncio

import pytest

from testkit.apptest import course
from testkit.browser import start_server, stop
from testkit.stream_client import Run, Session

pytestmark = pytest.mark.package  # serving: a real server process, like the deploy test

SESSIONS = 12


async def _open_together(url: str, pages: list[str]) -> list[Run]:
    async def one(page: str) -> Run:
        async with Session(url, timeout=180) as session:
            return await session.rerun(page)

    return await asyncio.gather(*(one(page) for page in pages))


def test_twelve_sessions_opening_the_lessons_at_once_on_a_fresh_server_see_no_exception():
    pages = [ls.url_path for ls in course()]
    wanted = [pages[i % len(pages)] for i in range(SESSIONS)]  # every lesson, some twice
    proc, url = start_server()
    try:
        runs = asyncio.run(_open_together(url, wanted))
    finally:
        stop(proc)
    problems = [(page, run.status, run.exceptions) for page, run in zip(wanted, runs)
                if run.exceptions or run.status != 0]
    assert not problems, problems
    assert len(runs) == SESSIONS and all(run.sliders for run in runs), "every lesson drew its sliders"
