"""posviz.figures.realmodels: the plotted numbers are posviz.realmodels', the diagram lights the place the
encoding acts, and every figure is registered and styles cleanly."""

from __future__ import annotations

import numpy as np
import pytest

from posviz import realmodels
from posviz.figures import FIGURES, build
from posviz.figures import realmodels as fr
from posviz.theme import style


def test_every_figure_is_registered():
    assert set(fr.__all__) <= set(FIGURES)


def test_the_learned_figure_plots_the_tables_similarity():
    fig = fr.realmodels_learned()
    table = realmodels.learned_table()
    assert np.allclose(np.asarray(fig.data[0].z, dtype=float), realmodels.cosine_similarity(table), atol=1e-6)
    learned, fixed = fig.data[1], fig.data[2]
    assert np.allclose(np.asarray(learned.y, dtype=float), realmodels.similarity_by_offset(table), atol=1e-6)
    assert np.allclose(np.asarray(fixed.y, dtype=float),
                       realmodels.similarity_by_offset(realmodels.sinusoidal_like(table)), atol=1e-6)
    assert f"{table.shape[0]} rows" in fig.layout.title.text
    other = fr.realmodels_learned(table="sinusoidal")
    assert np.allclose(np.asarray(other.data[0].z, dtype=float),
                       realmodels.cosine_similarity(realmodels.sinusoidal_like(table)), atol=1e-6)
    with pytest.raises(ValueError, match="table"):
        fr.realmodels_learned(table="bogus")


def test_the_mask_figure_plots_the_start_weights():
    fig = fr.realmodels_masks(T=12, seed=3)
    c = realmodels.mask_checks(12, seed=3)
    assert np.allclose(np.asarray(fig.data[0].y, dtype=float), c.start_weight_causal, atol=1e-6)
    assert np.allclose(np.asarray(fig.data[1].y, dtype=float), c.start_weight_bidirectional, atol=1e-6)
    assert f"{c.perm_error_causal:.2f} causal" in fig.layout.title.text


@pytest.mark.parametrize(("scheme", "box"), [("sinusoidal", "input"), ("learned", "input"), ("rope", "qk"),
                                             ("alibi", "logits"), ("t5", "logits"), ("kerple", "logits")])
def test_the_diagram_lights_the_place_the_encoding_acts(scheme, box):
    fig = fr.realmodels_places(scheme=scheme, layers=6)
    lit = [i for i, s in enumerate(fig.layout.shapes) if s.line.width == 4]
    assert [fr._BOXES[i][0] for i in lit] == [box]
    subtitle = fig.layout.title.text
    if scheme == "t5":
        assert "computed once, shared by all 6 layers" in subtitle
    elif box == "qk":
        assert "in all 6 layers, q and k only (v is never rotated)" in subtitle
    elif box == "input":
        assert "added once, before layer 1" in subtitle


def test_the_atlas_has_a_row_a_model_in_its_column():
    fig = fr.realmodels_atlas()
    rows = realmodels.atlas()
    assert list(fig.layout.yaxis.ticktext) == [r.model for r in rows]
    points = list(zip(fig.data[0].x, fig.data[0].y))
    llama4 = [r.model for r in rows].index("Llama 4 Scout 17B-16E")
    assert (1, llama4) in points and (3, llama4) in points  # RoPE layers and NoPE layers
    bloom = [r.model for r in rows].index("BLOOM")
    assert (2, bloom) in points


@pytest.mark.parametrize("name", fr.__all__)
def test_each_figure_styles_in_every_theme(name):
    for theme in ("light", "dark"):
        fig = style(build(name), theme=theme, presenter=True)
        assert fig.layout.template is not None


def test_the_learned_figures_colour_bar_sits_between_the_panels():
    fig = fr.realmodels_learned()
    bar = fig.data[0].colorbar
    left, right = fig.layout.xaxis.domain, fig.layout.xaxis2.domain
    assert left[1] < bar.x and bar.xanchor == "left"
    assert right[0] - bar.x >= 0.2  # room for the bar, its ticks and the right panel's "mean cos" title


def test_the_atlas_fits_a_presenter_screen():
    fig = style(fr.realmodels_atlas(), "light", 1.5)
    rows = len(realmodels.atlas())
    assert fig.layout.height == round((fr.atlas_height(rows) - fr.ATLAS_TOP - fr.ATLAS_BOTTOM) * 1.5) + round(
        fr.ATLAS_TOP * 1.5) + round(fr.ATLAS_BOTTOM * 1.5)
    assert fig.layout.height <= 720  # 1080 px less the browser bar, the page title and the part heading
    assert len(fig.layout.yaxis.tickvals) == rows

