"""The live figures a lesson has, one case per live slider: the browser tests drag each, and
benchmarks/live_drag.py times each drag and release."""

from __future__ import annotations

import numpy as np

# page, query, widget key, URL name, px per move, the caption text the released value must produce
CASES = {
    "sinusoidal heatmap, base": ("Sinusoidal", {}, "sinusoidal.base", "base", -5, None),
    "sinusoidal waves, base": ("Sinusoidal", {"part": "waves"}, "sinusoidal.base", "base", -5,
                               lambda b: f"2π·b = {2 * np.pi * b:,.0f}"),
    "gaussian kernel, σ1": ("Gaussian_kernel_RoPE", {}, "gaussian_kernel_rope.sigma1", "sigma1", 6, None),
    "gaussian kernel, σ2": ("Gaussian_kernel_RoPE", {}, "gaussian_kernel_rope.sigma2", "sigma2", 6,
                            lambda s: f"at σ2 = {s:g} tokens"),
    "2D channel map, base": ("2D_encodings", {}, "2d.base", "base", -6, None),
    "RoPE clock, base": ("RoPE", {"part": "clock"}, "rope.base", "base", -5, None),
    "context wavelengths, s": ("Context_extension", {}, "context_extension.s", "s", 5, None),
    "context per-pair scale, s": ("Context_extension", {"part": "ratio"}, "context_extension.s", "s", 5,
                                  lambda s: f"s = {s:g} means fully interpolated"),
    "YaRN ramp, beta_fast": ("Context_extension", {"part": "yarn"}, "context_extension.beta_fast", "beta_fast", 5,
                             None),
    "YaRN ramp, beta_slow": ("Context_extension", {"part": "yarn"}, "context_extension.beta_slow", "beta_slow", 5,
                             None),
    "CoPE gates, a": ("CoPE", {}, "cope.scale", "scale", -3, None),  # towards soft gates: above a ≈ 7 they are 0 or 1
    # 1,024 position ids and more: drawn with WebGL, and the stills hold a copy of its canvas
    "PoSE windows, L_c": ("Long_context_methods", {"part": "pose"}, "long_context.chunk", "chunk", 5,
                          lambda c: f"Each window has only {c:.0f} tokens"),
}
