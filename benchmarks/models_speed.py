"""Model time of the evidence parts of Context extension: the shipped models at L' up to 1,024.

A lesson slider value is served from the shipped evidence grid (``weights/curves.npz``: every curve the sliders
can ask for, 32 sequences each), so a rerun pays for reading it, not for the models; any other setting (a figure
exported at s = 2.5, another seed) runs the models live: ``posviz.models.evaluate_sequences`` on 32 sequences per
curve. Times both, and whole figure builds with the models' caches cleared. Prints the median of 5 runs per case
(after a warm-up run) as wall time and as this process's CPU time: on a machine shared with other jobs the wall
time measures the queue, the CPU time the model.

    python -m benchmarks.models_speed [--threads N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

METHODS = ("default", "linear", "ntk", "yarn")           # the figure's default selection


def _live(length: int, factor: float, methods: tuple[str, ...]) -> None:
    import posviz.models as pm

    for m in methods:
        pm.evaluate_sequences(pm.shared("rope"), length, m, factor, 0, 32)


def _cold_build(name: str, **params: object) -> object:
    """A figure build with every remembered curve and grid read forgotten first."""
    from posviz.figures import build
    from posviz.models import curves

    curves._live.cache_clear()
    curves._grid.cache_clear()
    return build(name, **params)


def cases() -> dict[str, Callable[[], object]]:
    import posviz.figures.models  # noqa: F401  (registers the builders)
    import posviz.models as pm

    L = pm.train_length()
    out: dict[str, Callable[[], object]] = {}
    for Lp in (160, 256, 1024):
        out[f"live: RoPE, {len(METHODS)} methods, L'={Lp}, 32 sequences each"] = partial(_live, Lp, Lp / L, METHODS)
    out["grid: figure models_extension (4 methods + 2 fine-tunes, s=4)"] = partial(
        _cold_build, "models_extension", finetuned=True)
    out["grid: figure models_extension (4 methods, s=16)"] = partial(_cold_build, "models_extension", factor=16.0)
    out["grid: figure models_schemes (5 schemes, s=8)"] = partial(_cold_build, "models_schemes", factor=8.0)
    out["grid: figure models_retrieval (5 schemes, s=8)"] = partial(_cold_build, "models_retrieval",
                                                                    kind="schemes", factor=8.0)
    out["live: figure models_extension (4 methods, s=2.5)"] = partial(_cold_build, "models_extension", factor=2.5)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's default)")
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s); median of 5: wall ms, CPU ms")
    for name, fn in cases().items():
        fn()
        wall, cpu = [], []
        for _ in range(5):
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        print(f"{name:60s} {1000 * statistics.median(wall):8.1f} {1000 * statistics.median(cpu):8.1f}")


if __name__ == "__main__":
    main()
