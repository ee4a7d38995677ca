"""Compute at scale: the math behind each lesson at L' = 1,048,576 positions and d = 256.

Curves are per pair (d/2 values) and heatmaps are computed only for the cells shown, so none of this
may grow with the number of positions beyond O(L') work. Prints the median of 5 runs per case.

    python -m benchmarks.compute
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

L_PRIME, D = 1_048_576, 256


def cases() -> dict[str, Callable[[], object]]:
    """Each lesson's heaviest math at L' = 2^20 (factor 128 over L = 8192) and d = 256, figure included."""
    from posviz import rope, scaling
    from posviz.figures import build

    big = dict(methods="default,linear,ntk,yarn,llama3", dim=D, base=1e6, factor=128.0, original_len=8192)
    yarn = {"rope_type": "yarn", "factor": 128.0, "original_max_position_embeddings": 8192}
    config = {"rope_theta": 1e6, "head_dim": D, "hidden_size": 4096, "num_attention_heads": 16,
              "max_position_embeddings": L_PRIME, "rope_scaling": yarn}
    return {
        "inv_freq_from_config (YaRN), d=256, L'=2^20": lambda: scaling.inv_freq_from_config(config),
        "dynamic NTK at seq_len = 2^20": lambda: scaling.inv_freq_from_config(
            {**config, "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}, seq_len=L_PRIME),
        "figure scaling_wavelengths (5 methods)": lambda: build("scaling_wavelengths", **big),
        "figure scaling_unseen (angles up to L')": lambda: build("scaling_unseen", **big),
        "figure scaling_score (distance up to L')": lambda: build("scaling_score", **{**big, "methods":
                                                                                     "default,linear,ntk,yarn"}),
        "figure scaling_entropy": lambda: build("scaling_entropy", dim=D, base=1e6, factor=128.0,
                                                original_len=8192),
        "RoPE angle heatmap, 8192 positions, d=256": lambda: build("rope_angle_heatmap", dim=D,
                                                                   n_positions=8192),
        "RoPE wavelengths, d=256": lambda: rope.wavelengths(D),
    }


def main() -> None:
    for name, fn in cases().items():
        fn()
        runs = []
        for _ in range(5):
            t0 = time.perf_counter()
            fn()
            runs.append(time.perf_counter() - t0)
        print(f"{name:55s} {1000 * statistics.median(runs):8.1f} ms")


if __name__ == "__main__":
    main()
