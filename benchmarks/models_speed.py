"""Model time of the "What a real model does" part: the shipped RoPE model at L' up to 1,024.

A rerun of the live part evaluates the RoPE model once per selected method at L' = s·L with the
figure's default number of sequences (``posviz.models.live_n_sequences``). Budget: all selected
methods together <= 150 ms of model time. Also times the scheme comparison (five models) and whole figure
builds. Prints the median of 5 runs per case (after a warm-up run) as wall time and as this process's
CPU time: on a machine shared with other jobs the wall time measures the queue, the CPU time the model.

    python -m benchmarks.models_speed [--threads N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

METHODS = ("default", "linear", "ntk", "yarn")           # the figure's default selection
ALL_METHODS = ("default", "linear", "ntk", "dynamic", "yarn", "llama3")


def _methods(model: object, length: int, factor: float, n: int, methods: tuple[str, ...]) -> None:
    import posviz.models as pm

    for m in methods:
        pm.evaluate(model, length, m, factor, n_sequences=n)


def _cold_build(name: str, **params: object) -> object:
    """A figure build that runs the models (posviz.models remembers recent curves; forget them first)."""
    import posviz.models as pm
    from posviz.figures import build

    pm._losses.cache_clear()
    return build(name, **params)


def cases() -> dict[str, Callable[[], object]]:
    import posviz.figures.models  # noqa: F401  (registers the builders)
    import posviz.models as pm

    L = pm.train_length()
    rope = pm.shared("rope")
    out: dict[str, Callable[[], object]] = {}
    for Lp in (256, 512, 1024):
        n = pm.live_n_sequences(Lp)
        out[f"evaluate RoPE, 1 method, L'={Lp}, n={n}"] = partial(_methods, rope, Lp, Lp / L, n, ("yarn",))
        out[f"evaluate RoPE, {len(METHODS)} methods, L'={Lp}, n={n}"] = partial(_methods, rope, Lp, Lp / L, n,
                                                                               METHODS)
        out[f"evaluate RoPE, {len(ALL_METHODS)} methods, L'={Lp}, n={n}"] = partial(_methods, rope, Lp, Lp / L, n,
                                                                                   ALL_METHODS)
    out["figure models_extension (4 methods, s=16)"] = partial(_cold_build, "models_extension", factor=16.0)
    out["figure models_extension (4 methods + 2 fine-tunes, s=4)"] = partial(_cold_build, "models_extension",
                                                                             finetuned=True)
    out["figure models_schemes (5 schemes, s=4)"] = partial(_cold_build, "models_schemes")
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
