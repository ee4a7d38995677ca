"""Export speed: cold and warm PNG through the shared kaleido browser, and a 60-frame GIF at 800×800.

    python -m benchmarks.export_speed
"""

from __future__ import annotations

import statistics
import time

import plotly.graph_objects as go

from posviz import export
from posviz.figures import FIGURES
from posviz.theme import style


def main() -> None:
    opts = export.ExportOptions(width=1200, height=675, scale=2)
    t0 = time.perf_counter()
    export.export_figure("sinusoidal_heatmap", {}, "png", opts)
    print(f"first PNG (starts the browser): {time.perf_counter() - t0:.2f} s")
    warm = []
    for name in ["sinusoidal_heatmap", "sinusoidal_waves", "sinusoidal_similarity"] * 3:
        t0 = time.perf_counter()
        export.export_figure(name, {}, "png", opts)
        warm.append(time.perf_counter() - t0)
    print(f"warm PNG 1200x675 @2x: median {statistics.median(warm):.3f} s, max {max(warm):.3f} s")
    animated = [n for n, s in FIGURES.items() if s.animated]
    fig = style(FIGURES[animated[0]].builder(), "light") if animated else None
    if fig is None or len(fig.frames) < 60:  # make a 60-frame figure of the same kind for the target
        base = fig or go.Figure(go.Scatter(x=[0, 1], y=[0, 1]))
        frames = list(base.frames) or [go.Frame(data=base.data)]
        fig = go.Figure(base)
        fig.frames = [frames[i % len(frames)] for i in range(60)]
    t0 = time.perf_counter()
    gif = export.render(fig, "gif", export.ExportOptions(width=800, height=800, fps=15))
    print(f"GIF of {len(fig.frames)} frames at 800x800 ({animated[0] if animated else 'synthetic'}): "
          f"{time.perf_counter() - t0:.1f} s, {len(gif) / 1e3:.0f} KB")


if __name__ == "__main__":
    main()
