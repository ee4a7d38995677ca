"""Export memory and time under the budget: the largest allowed exports, and five students at once.

    python -m benchmarks.export_budget [--no-trim] [--skip-largest] [--concurrent N]

This process plays the server: it starts the shared browser with one warm PNG, then measures its RSS
(sampled every 50 ms) and the browser's (proportional set size of the chromium processes it started,
summed, so pages they share count once) during

1. the largest allowed single image: a 36-megapixel PNG (4000×4000 at scale 1.5);
2. the largest allowed animations: the RoPE clock at d = 256, all 128 pairs, 72 frames, as GIF and MP4
   at the app's default export size (blog 1200×675 ×2, 233 megapixels; MP4 renders at scale 1), and
   the 31-frame clock at slide 1920×1080 ×2 (257 megapixels, just under the 260 cap);
3. N (default 5) concurrent GIFs at the default export size (blog ×2), started together through
   ``export.export_figure`` with the app's time limit (what the download callable runs), each timed
   against Streamlit's 180 s download timeout: of the RoPE page's default clock (d = 64, 16 pairs,
   31 frames), then of that 72-frame clock at d = 256;

and the server's RSS at idle, right after, and 30 s after. ``--no-trim`` skips glibc's malloc_trim after
each animation, to see what it is worth.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from collections.abc import Callable

from posviz import export
from posviz.export import animation

CLOCK = dict(dim=256, pairs="all", n_frames=72)
BLOG2 = export.ExportOptions(width=1200, height=675, scale=2)
DOWNLOAD_TIMEOUT_S = 180


def _field_mb(path: str, field: str) -> float:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def rss_mb() -> float:
    return _field_mb("/proc/self/status", "VmRSS:")


def children(pid: int) -> list[int]:
    """Every descendant process of ``pid`` (the browser and its helpers)."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for kid in kids.get(todo.pop(), []):
            out.append(kid)
            todo.append(kid)
    return out


def browser_mb() -> float:
    return sum(_field_mb(f"/proc/{p}/smaps_rollup", "Pss:") for p in children(os.getpid()))


class Peak:
    """Sample this process's RSS and the browser's every 50 ms while the block runs."""

    def __enter__(self) -> Peak:
        self.server = self.browser = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.server = max(self.server, rss_mb())
            self.browser = max(self.browser, browser_mb())
            self._stop.wait(0.05)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def measure(label: str, job: Callable[[], bytes]) -> None:
    before = rss_mb()
    t0 = time.perf_counter()
    with Peak() as peak:
        data = job()
    took = time.perf_counter() - t0
    print(f"{label}: {took:.1f} s, {len(data) / 1e6:.1f} MB file; server RSS {before:.0f} -> peak "
          f"{peak.server:.0f} -> {rss_mb():.0f} MB; browser peak {peak.browser:.0f} MB", flush=True)


def concurrent_gifs(n: int, label: str, params: dict) -> None:
    done: dict[int, tuple[float, int | str]] = {}
    start = threading.Barrier(n + 1)

    def student(i: int) -> None:
        start.wait()
        t0 = time.perf_counter()
        try:
            size: int | str = len(export.export_figure("rope_clock", params, "gif", BLOG2,
                                                       time_limit=export.DOWNLOAD_TIME_LIMIT_S))
        except Exception as err:  # reported below
            size = f"{type(err).__name__}: {err}"
        done[i] = (time.perf_counter() - t0, size)

    before = rss_mb()
    threads = [threading.Thread(target=student, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    with Peak() as peak:
        start.wait()
        for t in threads:
            t.join()
    times = sorted(t for t, _ in done.values())
    ok = sum(isinstance(s, int) and t <= DOWNLOAD_TIMEOUT_S for t, s in done.values())
    print(f"{n} concurrent GIFs ({label}, blog ×2): finished after "
          + ", ".join(f"{t:.0f}" for t in times) + f" s; {ok} of {n} within {DOWNLOAD_TIMEOUT_S} s; "
          f"server RSS {before:.0f} -> peak {peak.server:.0f} -> {rss_mb():.0f} MB; "
          f"browser peak {peak.browser:.0f} MB", flush=True)
    for t, s in done.values():
        if not isinstance(s, int):
            print(f"  failed after {t:.0f} s: {s}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-trim", action="store_true", help="skip malloc_trim after each animation")
    ap.add_argument("--skip-largest", action="store_true", help="only the concurrent GIFs")
    ap.add_argument("--concurrent", type=int, default=5)
    args = ap.parse_args()
    if args.no_trim:
        animation._release_memory = lambda: None
    t0 = time.perf_counter()
    export.export_figure("sinusoidal_waves", {}, "png", BLOG2)
    idle = rss_mb()
    print(f"browser started and one warm PNG in {time.perf_counter() - t0:.1f} s; idle server RSS {idle:.0f} MB, "
          f"browser {browser_mb():.0f} MB (slots {export.EXPORT_SLOTS}, budget {export.MAX_IMAGE_PIXELS / 1e6:g} MP "
          f"per image, {export.MAX_ANIMATION_PIXELS / 1e6:g} MP per animation; malloc_trim "
          f"{'off' if args.no_trim else 'on'})", flush=True)
    if not args.skip_largest:
        measure("PNG 4000×4000 ×1.5 (36 MP, the largest image)", lambda: export.export_figure(
            "sinusoidal_heatmap", {}, "png", export.ExportOptions(width=4000, height=4000, scale=1.5)))
        measure("GIF clock 72 frames, blog ×2 (233 MP)", lambda: export.export_figure("rope_clock", CLOCK, "gif",
                                                                                     BLOG2))
        measure("MP4 clock 72 frames, blog (scale 1)", lambda: export.export_figure("rope_clock", CLOCK, "mp4",
                                                                                    BLOG2))
        measure("GIF clock 31 frames, slide ×2 (257 MP)", lambda: export.export_figure(
            "rope_clock", dict(CLOCK, n_frames=31), "gif", export.ExportOptions(width=1920, height=1080, scale=2)))
    concurrent_gifs(args.concurrent, "page-default clock, d = 64, 31 frames", dict(dim=64))
    concurrent_gifs(args.concurrent, "clock d = 256, all pairs, 72 frames", CLOCK)
    time.sleep(30)
    print(f"idle {idle:.0f} MB; 30 s after the last export: server RSS {rss_mb():.0f} MB "
          f"({rss_mb() - idle:+.0f} MB), browser {browser_mb():.0f} MB", flush=True)


if __name__ == "__main__":
    main()
