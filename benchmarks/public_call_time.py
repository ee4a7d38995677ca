"""The 2-second half of the public API contract: every public math call, timed.

Runs (1) every call of tests/test_fuzz_public.py (each public function's valid call and its hostile
variants) and (2) the heaviest calls the size caps still accept, and prints every call above LIMIT
seconds of CPU time (process_time: on a shared machine wall time measures the neighbours), then the
slowest ten with their peak memory (tracemalloc for numpy buffers; torch tensors are not traced, so the
cap cases print the growth of the process's peak RSS). Exit status 1 if any call is over the limit.
Time is measured here, not asserted in tests (a loaded CI machine is not a failing program).

    python -m benchmarks.public_call_time
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Callable

LIMIT = 2.0


def at_the_caps() -> dict[str, Callable[[], object]]:
    """The largest inputs the caps accept, one per expensive function."""
    import numpy as np
    import torch

    from posviz import cope, gaussian, intro, rope, scaling, sinusoidal

    return {
        "sinusoidal_table at the cell cap (2^19 x 8)": lambda: sinusoidal.sinusoidal_table(1 << 19, 8),
        "sinusoidal_table at the cell cap (4096 x 1024)": lambda: sinusoidal.sinusoidal_table(4096, 1024),
        "similarity 2048 x 2048, d 1024, fractional": lambda: sinusoidal.similarity(
            np.arange(2048) + 0.5, np.arange(2048.0), 1024),
        "apply_rope at MAX_TABLE (8192 x 256, float64)": lambda: rope.apply_rope(
            torch.randn(8192, 256, dtype=torch.float64), torch.arange(8192.0), rope.inv_freq(256)),
        "rope_scores at the cap (2048 pairs x 2048 distances)": lambda: scaling.rope_scores(
            rope.inv_freq(4096), np.arange(2048.0)),
        "attention_entropy at the caps": lambda: scaling.attention_entropy(
            rope.inv_freq(256), np.linspace(10, 1e6, 32), n_keys=1024),
        "gaussian attention T = 1024, d = 128": lambda: gaussian.attention(1024, 128, mode="relative_log"),
        "cope_positions 2048 x 2048": lambda: cope.cope_positions(np.zeros((2048, 2048))),
        "CoPE module block 1024, d 64": lambda: cope.CoPE(64, 1024)(*(torch.randn(1024, 64),) * 3),
        "intro distance_profile at MAX_OFFSET, d 64": lambda: intro.distance_profile(intro.MAX_OFFSET, 64),
        "dynamic_ntk_bases over 10^5 calls": lambda: scaling.dynamic_ntk_bases(
            np.arange(1, 100_001), 128, 1e4, 4.0, 4096),
    }


def _time(fn: Callable[[], object]) -> tuple[float, str]:
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.process_time()
    try:
        fn()
        status = "ok"
    except ValueError as e:
        status = f"ValueError: {str(e)[:60]}"
    dt = time.process_time() - t0
    grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024
    return dt, f"{status}; peak RSS grew {grew:.0f} MB"


def main() -> int:
    from testkit.public_calls import FUNCTIONS, HOSTILE, measured_call, valid_args

    rows: list[tuple[float, str, str]] = []
    for qual, fn in sorted(FUNCTIONS.items()):
        base = valid_args(qual, fn)
        calls = [("valid", base)] + [(f"{p}={label}", dict(base, **{p: v})) for p in base for label, v in HOSTILE]
        for label, args in calls:
            got = measured_call(fn, args)
            rows.append((got.seconds, f"{qual}({label})", f"peak {got.peak / 2**20:.1f} MB (tracemalloc)"))
    for name, fn in at_the_caps().items():
        dt, info = _time(fn)
        rows.append((dt, name, info))
    rows.sort(reverse=True)
    over = [r for r in rows if r[0] > LIMIT]
    print(f"{len(rows)} calls; {len(over)} over {LIMIT:g} s")
    for dt, name, info in over + rows[:10]:
        print(f"{dt:8.3f} s  {name}  [{info}]")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
