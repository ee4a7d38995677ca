"""posviz home page: what it is, the lesson map, and how to export and share."""

import streamlit as st

from posviz import ui

LESSONS = [
    ("pages/1_From_integers_to_sinusoids.py", "From integers to sinusoids",
     "Why attention needs positions at all, and how integer, binary and sinusoidal codes compare."),
    ("pages/2_Sinusoidal.py", "Sinusoidal",
     "The PE heatmap, single-dimension waves, PE·PE similarity and PE(p+k) = M_k PE(p)."),
    ("pages/3_2D_encodings.py", "2D encodings",
     "2-D sin/cos for image patches, concat vs add vs MAE, patch similarity, axial and mixed 2-D RoPE."),
    ("pages/4_RoPE.py", "RoPE",
     "Pairs rotating as position grows, why q·k depends only on m − n, pair layouts, the decay bound."),
    ("pages/5_Context_extension.py", "Context extension",
     "PI, NTK-aware, dynamic NTK, YaRN, Llama 3 and LongRoPE on one plot, with real models' configs."),
    ("pages/6_Gaussian_kernel_RoPE.py", "Gaussian-kernel RoPE",
     "A multi-scale Gaussian kernel on top of RoPE: three ways to apply it and what each does to attention."),
    ("pages/7_CoPE.py", "CoPE",
     "Contextual positions: gates decide what counts, and fractional positions interpolate embeddings."),
]

ui.setup_page(
    "posviz: how transformers encode position", icon="📐",
    intro="Interactive lessons on positional encodings, computed from the exact math and checked against the "
          "implementations models ship. Drag a slider and every figure redraws; every view has a link you "
          "can share and every figure can be exported for a slide or a blog post.",
)

def home() -> None:
    """The lesson map, then how to export and share."""
    st.header("Lessons")
    for path, title, line in LESSONS:
        st.page_link(path, label=f"**{title}**", icon="➡️")
        st.caption(line)

    st.header("Export and share")
    st.markdown(
        "- **Share a view**: every control lives in the page address. Copy the link from the sidebar's "
        "*Share this view* box and whoever opens it sees exactly your settings.\n"
        "- **Export a figure**: under each figure, *Export / copy as code* downloads PNG, SVG, PDF, "
        "self-contained HTML, CSV or JSON of the plotted numbers (GIF and MP4 for animations). Size (blog "
        "1200×675, square, slide, custom), theme and transparency are in the sidebar's *Export settings*. "
        "The camera icon on a chart saves an SVG at 2× straight from the browser.\n"
        "- **Notebook**: *Copy as code* gives a snippet that rebuilds the figure with `posviz`.\n"
        "- **Command line**: `python -m posviz export --list`, then e.g. "
        "`python -m posviz export sinusoidal_heatmap --d_model 64 -o pe.png`.\n"
        "- **Presenter mode** (sidebar) enlarges fonts, lines and markers for projectors."
    )


ui.lesson(home)
