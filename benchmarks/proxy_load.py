"""A class through nginx: the same students on 1 and on N app processes (deploy/serve_class.py's setup).

For each process count, deploy/serve_class.py starts that many ``posviz app`` processes behind nginx on
loopback, and S sessions run for T seconds each: open a random lesson, then every 1-2 s move one of its
sliders by one step (a rerun with the new value), switching lesson a quarter of the time. Reported per
process count: slider moves per second served, rerun p50/p95 (request -> the server's script_finished),
lesson opens p50/p95, errors (exception elements, failed runs, timeouts, dropped connections), the CPU
seconds the app processes used and per rerun (moves and opens; ws client only: a browser's reruns are
not all counted), and each process's memory. CPU per rerun depends far less than latency on what else
loads the machine, so it is what to scale from: one core serves about 1000 / (CPU ms) reruns a second.

    python -m benchmarks.proxy_load --processes 1 2 --sessions 20 --seconds 45
    python -m benchmarks.proxy_load --client browser --processes 1 2 --sessions 6 --seconds 45

``--client ws`` (default) is testkit/stream_client.py: a session is a websocket speaking Streamlit's protocol,
so a few hundred KB of Python stands in for a browser and the two cores go to the servers; a move is sent
as the lesson's query string, i.e. a full-page rerun (a slider in the browser reruns only the lesson's
fragment, a little less work). ``--client browser`` drives Debian's chromium (benchmarks/load.py's
sessions): real slider presses timed to the redrawn charts, but the browsers take most of the CPU.
Loopback only; every run stops by itself after ``--seconds`` plus the time to start the servers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
import urllib.parse
from pathlib import Path

from benchmarks.load import PAGES, pct, rss_mb
from deploy.serve_class import Classroom, free_ports
from testkit.stream_client import Session, sticky_cookie

HERE = Path(__file__).resolve().parent


MAX_SESSIONS, MAX_SECONDS = 200, 600


async def ws_student(url: str, seconds: float, rng: random.Random) -> dict:
    """One student over a websocket; reconnects (and counts an error) if the connection drops."""
    moves, opens, errors, end = [], [], 0, time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            cookie = await asyncio.to_thread(sticky_cookie, url)
            async with Session(url, cookie, timeout=60) as s:
                page, sliders, values, moved = None, {}, {}, {}
                while time.monotonic() < end:
                    if page is None or not sliders or rng.random() < 0.25:
                        page, moved = rng.choice(PAGES), {}
                        run = await s.rerun(page)
                        opens.append(run.seconds)
                        sliders = {x.name: x for x in run.sliders}
                        values = {x.name: x.value for x in run.sliders}
                    else:
                        name = rng.choice(sorted(sliders))
                        values[name] = moved[name] = rng.choice(sliders[name].neighbours(values[name]))
                        run = await s.rerun(page, urllib.parse.urlencode(moved))
                        moves.append(run.seconds)
                    errors += (run.status != 0) + len(run.exceptions)
                    await asyncio.sleep(rng.uniform(1.0, 2.0))
        except Exception:
            errors += 1
            await asyncio.sleep(1.0)
    return {"times": moves, "opens": opens, "errors": errors}


async def browser_students(url: str, sessions: int, seconds: float, seed: int) -> list[dict]:
    from load import session
    from playwright.async_api import async_playwright

    from benchmarks._browser import CHROMIUM_ARGS, chromium_path

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:  # browser.new_page() opens a fresh context: each session gets its own sticky cookie
            return await asyncio.gather(*[session(browser, url, seconds, random.Random(seed + i))
                                          for i in range(sessions)])
        finally:
            await browser.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (/proc/<pid>/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def report(n: int, sessions: int, seconds: float, results: list[dict], rss: list[float], cpu: float) -> str:
    moves = [t for r in results for t in r["times"]]
    opens = [t for r in results for t in r.get("opens", [])]
    errors = sum(r["errors"] for r in results)
    open_txt = f"{pct(opens, .5):7.0f} {pct(opens, .95):7.0f}" if opens else f"{'-':>7s} {'-':>7s}"
    runs = len(moves) + len(opens)
    cpu_txt = f"{1000 * cpu / runs:7.0f}" if runs and opens else f"{'-':>7s}"
    return (f"{n:9d} {sessions:8d} {len(moves):6d} {len(moves) / seconds:8.2f} {pct(moves, .5):7.0f} "
            f"{pct(moves, .95):7.0f} {open_txt} {errors:6d} {cpu:6.0f} {cpu_txt}   "
            f"{' + '.join(f'{x:.0f}' for x in rss)} MB")


async def main_async(args: argparse.Namespace) -> None:
    print(f"client {args.client}, {args.sessions} sessions x {args.seconds:.0f} s per process count; "
          f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print(f"{'processes':>9s} {'sessions':>8s} {'moves':>6s} {'moves/s':>8s} {'p50 ms':>7s} {'p95 ms':>7s} "
          f"{'open50':>7s} {'open95':>7s} {'errors':>6s} {'CPU s':>6s} {'CPU ms':>7s}   RSS per process")
    for n in args.processes:
        with Classroom(n, free_ports(1)[0]) as room:
            cpu0 = sum(cpu_seconds(pid) for pid in room.app_pids())
            if args.client == "ws":
                results = await asyncio.gather(*[ws_student(room.url, args.seconds, random.Random(100 + i))
                                                 for i in range(args.sessions)])
            else:
                results = await browser_students(room.url, args.sessions, args.seconds, 100)
            rss = [rss_mb(pid) for pid in room.app_pids()]
            cpu = sum(cpu_seconds(pid) for pid in room.app_pids()) - cpu0
        print(report(n, args.sessions, args.seconds, results, rss, cpu), flush=True)
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def main() -> None:
    ap = argparse.ArgumentParser(description="Classroom load through nginx, 1 vs N app processes")
    ap.add_argument("--processes", type=int, nargs="+", default=[1, os.cpu_count() or 2])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=45)
    ap.add_argument("--client", choices=["ws", "browser"], default="ws")
    args = ap.parse_args()
    if not (1 <= args.sessions <= MAX_SESSIONS and 1 <= args.seconds <= MAX_SECONDS):
        ap.error(f"--sessions must be in 1..{MAX_SESSIONS} and --seconds in 1..{MAX_SECONDS}")
    if not all(1 <= n <= 16 for n in args.processes):
        ap.error("--processes must be in 1..16")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
