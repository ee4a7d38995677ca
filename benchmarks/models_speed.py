"""Model time of the "What a real model does" part: the shipped RoPE model at L' up to 1,024.

A rerun of the live part evaluates the RoPE model once per selected method at L' = s·L with the
figure's default number of sequences (``posviz.models.default_n_sequences``). Budget: all selected
methods together <= 150 ms of model time. Also times the scheme comparison (five models) and the whole
figure builds. Prints the median of 5 runs per case (after one warm-up run), with torch's thread count.

    python benchmarks/models_speed.py [--threads N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import _browser  # noqa: F401  (puts the repository on sys.path)

METHODS = ("default", "linear", "ntk", "dynamic", "yarn", "llama3")


def cases() -> dict[str, Callable[[], object]]:
    import posviz.models as pm
    from posviz.figures import build
    from posviz.figures.models import _model

    L = pm.train_length()
    rope = _model("rope")
    out: dict[str, Callable[[], object]] = {}
    for Lp in (256, 512, 1024):
        s = Lp / L
        n = pm.default_n_sequences(Lp)
        out[f"evaluate RoPE, 1 method, L'={Lp}, n={n}"] = lambda Lp=Lp, s=s: pm.evaluate(rope, Lp, "yarn", s)
        out[f"evaluate RoPE, all {len(METHODS)} methods, L'={Lp}, n={n}"] = (
            lambda Lp=Lp, s=s: [pm.evaluate(rope, Lp, m, s) for m in METHODS])
    out["evaluate 4 methods at L'=1024, n=1"] = lambda: [pm.evaluate(rope, 1024, m, 16.0, n_sequences=1)
                                                        for m in METHODS[:4]]
    out["figure models_extension (4 methods, s=16)"] = lambda: build("models_extension", factor=16.0)
    out["figure models_extension (4 methods + 2 fine-tunes, s=4)"] = lambda: build("models_extension",
                                                                                  finetuned=True)
    out["figure models_schemes (5 schemes, s=4)"] = lambda: build("models_schemes")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s)")
    for name, fn in cases().items():
        fn()
        runs = []
        for _ in range(5):
            t0 = time.perf_counter()
            fn()
            runs.append(time.perf_counter() - t0)
        print(f"{name:60s} {1000 * statistics.median(runs):8.1f} ms")


if __name__ == "__main__":
    main()
