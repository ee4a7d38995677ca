"""Class capacity: N students move real sliders of every lesson through nginx and ``serve_class``'s processes.

Each student is a browser tab without drawing (benchmarks/students.py: Streamlit's websocket protocol as the
browser speaks it). It opens a random lesson, then every 1-2 s does one of: move a random slider of the page to
a random value anywhere in its range (most actions), choose another part of the lesson, open another lesson,
or, with ``--exports`` probability, open a figure's export pane and click one of its download buttons (the file
is made on the server and fetched). A move is the widget change the browser sends: the new widget state and
the lesson fragment's rerun, timed until the server's ``script_finished``.

Reported: moves, moves/s, p50/p95 of the move reruns (ms), exports and their p50, errors (exceptions on the
page, failed runs, timeouts, dropped connections), and each app process's RSS (now and the largest sampled,
every 2 s). ``--kill-at S`` SIGKILLs the first app process S seconds into the run and reports the share of
moves still served and the seconds until the killed process answered nginx again (targets: >= 95 %, <= 15 s).

    python -m benchmarks.class_load --students 10 --seconds 120
    python -m benchmarks.class_load --students 10 --seconds 120 --kill-at 40
    nice -n 5 python -m benchmarks.class_load --students 10 --minutes 30   # the RSS bound: max RSS per process

Loopback only (nginx on 127.0.0.1 and a free port); the run stops by itself after its time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import sys
import time
from dataclasses import dataclass, field

from benchmarks.load import PAGES, pct, rss_mb
from benchmarks.students import EXTRAS_EXPORT, Reply, Tab
from deploy.serve_class import Classroom, _healthy, free_ports

MAX_STUDENTS, MAX_SECONDS = 200, 3600
THINK = (1.0, 2.0)  # seconds a student waits between actions


@dataclass
class Tally:
    """What the students did and met, shared by all of them."""

    moves: list[tuple[float, float, bool]] = field(default_factory=list)  # (time since start, seconds, served)
    opens: list[float] = field(default_factory=list)
    exports: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    start: float = field(default_factory=time.monotonic)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


def _why(reply: Reply) -> str:
    """A failed run in a few words: its first exception, or its status."""
    return reply.exceptions[0][:60] if reply.exceptions else f"status {reply.status}"


async def _move(tab: Tab, rng: random.Random, tally: Tally) -> None:
    """One slider of the page to a random value of its whole range."""
    sliders = tab.controls("slider") + tab.controls("select_slider")
    if not sliders:
        return await _open(tab, rng, tally)
    slider = rng.choice(sliders)
    value = rng.choice(slider.values())
    reply = await tab.change(slider, value)  # a dropped connection: counted by ``student`` as a failed move
    tally.moves.append((time.monotonic() - tally.start, reply.seconds, reply.ok))
    if not reply.ok:
        tally.error(f"move on {tab.page}: {_why(reply)}")


async def _open(tab: Tab, rng: random.Random, tally: Tally) -> None:
    reply = await tab.open(rng.choice(PAGES))
    tally.opens.append(reply.seconds)
    if not reply.ok:
        tally.error(f"open {tab.page}: {_why(reply)}")


async def _part(tab: Tab, rng: random.Random, tally: Tally) -> None:
    parts = [w for w in tab.controls("radio") if w.name == "part" and len(w.options) > 1]
    if not parts:
        return await _move(tab, rng, tally)
    reply = await tab.change(parts[0], rng.choice(parts[0].options))
    tally.opens.append(reply.seconds)
    if not reply.ok:
        tally.error(f"part on {tab.page}: {_why(reply)}")


async def _export(tab: Tab, rng: random.Random, tally: Tally) -> None:
    """Open a figure's export pane and download one of the files it offers."""
    panes = [w for w in tab.controls("pills") if EXTRAS_EXPORT in w.options]
    if not panes:
        return await _move(tab, rng, tally)
    before = {w.id for w in tab.controls("download")}
    reply = await tab.change(rng.choice(panes), EXTRAS_EXPORT)
    buttons = [w for w in tab.controls("download") if w.id not in before] or tab.controls("download")
    if not reply.ok or not buttons:
        return tally.error("export pane: " + (reply.exceptions[0][:60] if reply.exceptions else "no button"))
    button = rng.choice(buttons)
    try:
        seconds, _ = await tab.download(button)
        tally.exports.append(seconds)
    except TimeoutError:
        tally.error(f"export {button.options[0]}: no file within {tab.timeout:g} s")
    except (RuntimeError, OSError) as err:
        tally.error(f"export {button.options[0]}: {str(err)[:60]}")


async def student(url: str, seconds: float, rng: random.Random, tally: Tally, exports: float) -> None:
    """One student until ``seconds`` have passed; a dropped connection is an error, then a reconnect."""
    end = time.monotonic() + seconds
    tab = Tab(url)
    while time.monotonic() < end:
        try:
            await tab.connect()
            await (_open(tab, rng, tally) if not tab.page else tab.resume())
            while time.monotonic() < end:
                await asyncio.sleep(rng.uniform(*THINK))
                roll = rng.random()
                action = _export if roll < exports else _open if roll < exports + 0.05 else \
                    _part if roll < exports + 0.15 else _move
                await action(tab, rng, tally)
        except Exception as err:  # as a move the student could not make (a browser shows "Connecting")
            tally.moves.append((time.monotonic() - tally.start, float("nan"), False))
            tally.error(f"connection: {type(err).__name__}")
            await asyncio.sleep(1.0)
        finally:
            await tab.close()


async def watch_rss(room: Classroom, done: asyncio.Event, peaks: list[float], every: float = 2.0) -> None:
    """Sample each app process's RSS every ``every`` seconds until ``done``; keep the largest per process."""
    while not done.is_set():
        for i, pid in enumerate(room.app_pids()):
            with contextlib.suppress(OSError):  # the process is being restarted
                peaks[i] = max(peaks[i], rss_mb(pid))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), every)


async def kill_one(room: Classroom, at: float) -> float:
    """SIGKILL the first app process ``at`` seconds from now; seconds until nginx sends to it again."""
    await asyncio.sleep(at)
    child = room.apps[0]
    os.kill(child.proc.pid, signal.SIGKILL)
    t0 = time.monotonic()
    while not (child.serving and child.proc.poll() is None and
               await asyncio.to_thread(_healthy, f"http://127.0.0.1:{child.port}")):
        await asyncio.sleep(0.2)
        if time.monotonic() - t0 > 300:
            return float("inf")
    return time.monotonic() - t0


def report(args: argparse.Namespace, tally: Tally, peaks: list[float], now: list[float],
           back: float | None) -> str:
    times = [s for _, s, ok in tally.moves if ok]
    served = sum(ok for _, _, ok in tally.moves)
    lines = [f"students {args.students}, {args.seconds:.0f} s, {args.processes} app processes, exports "
             f"{args.exports:.0%} of actions; load average now {' '.join(f'{x:.1f}' for x in os.getloadavg())}",
             f"{'moves':>6s} {'moves/s':>8s} {'p50 ms':>7s} {'p95 ms':>7s} {'opens':>6s} {'exports':>7s} "
             f"{'exp p50 s':>9s} {'errors':>6s}   RSS now / max per process (MB)",
             f"{len(tally.moves):6d} {served / args.seconds:8.2f} {pct(times, .5):7.0f} {pct(times, .95):7.0f} "
             f"{len(tally.opens):6d} {len(tally.exports):7d} {pct(tally.exports, .5) / 1000:9.1f} "
             f"{sum(tally.errors.values()):6d}   "
             + ", ".join(f"{a:.0f} / {b:.0f}" for a, b in zip(now, peaks, strict=True))]
    if back is not None:
        share = served / max(1, len(tally.moves))
        lines.append(f"kill at {args.kill_at:.0f} s: {share:.1%} of moves served (target >= 95 %), the killed "
                     f"process served again after {back:.1f} s (target <= 15 s)")
    lines += [f"  {n:5d}  {kind}" for kind, n in sorted(tally.errors.items(), key=lambda e: -e[1])]
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> str:
    tally = Tally()
    with Classroom(args.processes, free_ports(1)[0]) as room:
        peaks = [0.0] * args.processes
        done = asyncio.Event()
        watcher = asyncio.create_task(watch_rss(room, done, peaks))
        killer = asyncio.create_task(kill_one(room, args.kill_at)) if args.kill_at is not None else None
        tally.start = time.monotonic()
        await asyncio.gather(*[student(room.url, args.seconds, random.Random(args.seed + i), tally, args.exports)
                               for i in range(args.students)])
        back = await killer if killer else None
        done.set()
        await watcher
        now = [rss_mb(pid) for pid in room.app_pids()]
    return report(args, tally, peaks, now, back)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--minutes", type=float, help="run this many minutes instead (the RSS bound run)")
    ap.add_argument("--processes", type=int, default=2, help="app processes behind nginx")
    ap.add_argument("--exports", type=float, default=0.05, help="share of actions that are a download")
    ap.add_argument("--kill-at", type=float, help="SIGKILL the first app process this many seconds in")
    ap.add_argument("--seed", type=int, default=100)
    args = ap.parse_args(argv)
    if args.minutes:
        args.seconds = 60 * args.minutes
    if not (1 <= args.students <= MAX_STUDENTS and 1 <= args.seconds <= MAX_SECONDS):
        ap.error(f"--students must be in 1..{MAX_STUDENTS} and the run 1..{MAX_SECONDS} s")
    if args.kill_at is not None and not 0 < args.kill_at < args.seconds:
        ap.error("--kill-at must fall inside the run")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # a stopped run still stops nginx and the apps
    print(asyncio.run(run(args)), flush=True)


if __name__ == "__main__":
    main()
