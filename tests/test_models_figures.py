"""Figures of posviz.figures.models: the plotted numbers are posviz.models' curves (evaluate_sequences, binned,
with ±2 s.e. bands), recomputed here independently; L and L' are marked where they belong; every legend number is
recomputed from the plotted curve's source; the retrieval figure scores exact copies where the token is
determined."""

import json
import re

import numpy as np
import pytest

import posviz.models as pm
from posviz.figures import FIGURES, build
from posviz.figures.models import binned
from posviz.models.curves import RETRIEVAL_THRESHOLD, band_stats, bin_width
from posviz.scaling import METHODS


def _lines(fig):
    return {s["x0"]: s for s in fig.layout.shapes if s["type"] == "line" and s["x0"] == s["x1"]}


def _curves(fig):
    """The drawn curves (no floor, no bands)."""
    return [t for t in fig.data if not t.name.startswith("Bayes floor") and t.showlegend is not False]


def _bands(fig):
    return [t for t in fig.data if t.showlegend is False]


def test_registered():
    assert {"models_extension", "models_schemes", "models_retrieval", "models_training"} <= set(FIGURES)


def test_band_stats_against_a_direct_computation():
    rng = np.random.default_rng(0)
    values, mask = rng.random((5, 10)), rng.random((5, 10)) > 0.3
    x, mean, band = band_stats(values, mask, 4)
    np.testing.assert_allclose(x, [1.5, 5.5, 8.5])
    for b, (lo, hi) in enumerate([(0, 4), (4, 8), (8, 10)]):
        v, m = values[:, lo:hi], mask[:, lo:hi]
        assert mean[b] == pytest.approx(v[m].mean())
        per = np.array([row[k].mean() for row, k in zip(v, m) if k.any()])
        half = 2 * per.std(ddof=1) / np.sqrt(per.size)
        np.testing.assert_allclose(band[:, b], [v[m].mean() - half, v[m].mean() + half])


@pytest.mark.parametrize("factor", [1.0, 4.0])
def test_extension_curves_are_the_models_losses_binned(factor):
    L = pm.train_length()
    Lp = int(round(factor * L))
    fig = build("models_extension", methods="default,linear,yarn", factor=factor, n_sequences=3, seed=2)
    curves = _curves(fig)
    assert [c.name.split(":")[0] for c in curves] == [METHODS[m].label for m in ("default", "linear", "yarn")]
    width = bin_width(Lp)
    floor = pm.floor(Lp)
    for c, m in zip(curves, ("default", "linear", "yarn")):
        losses = pm.evaluate(pm.load("rope"), Lp, m, factor, seed=2, n_sequences=3)
        np.testing.assert_allclose(np.asarray(c.y), binned(losses, width)[1], rtol=1e-5)
        np.testing.assert_allclose(np.asarray(c.x), binned(losses, width)[0])
        if Lp > L:
            assert f"+{np.mean(losses[L:] - floor[L:]):.2f} past L" in c.name
    assert len(_bands(fig)) == len(curves)
    fl = next(t for t in fig.data if t.name.startswith("Bayes floor"))
    np.testing.assert_allclose(np.asarray(fl.y), binned(floor, width)[1], rtol=1e-6)
    lines = _lines(fig)
    assert L in lines and (Lp - 1 in lines) == (Lp != L)
    assert f"L' = {Lp}" in json.dumps(fig.layout.to_plotly_json()) or Lp == L
    assert fig.layout.xaxis.range == (0, Lp)
    assert f"s = {factor:g}" in fig.layout.title.text and "3 sequences" in fig.layout.title.text


def test_default_curves_average_32_sequences_from_the_shipped_grid():
    """The lesson's curves: 32 sequences each; at a slider value the grid holds, the same numbers as live."""
    from posviz.models import curves

    L = pm.train_length()
    fig = build("models_extension", methods="yarn", factor=4.0)
    assert "32 sequences" in fig.layout.title.text
    grid = curves.grid_curve("rope", 4 * L, "yarn", 4.0)
    assert grid is not None, "the shipped evidence grid is stale: run `python -m posviz.models grid`"
    live = curves.from_sequences(*pm.evaluate_sequences(pm.load("rope"), 4 * L, "yarn", 4.0, 0, 32))
    np.testing.assert_allclose(grid.loss, live.loss, atol=2e-3)
    np.testing.assert_allclose(grid.retrieval_bin, live.retrieval_bin, atol=1e-6)
    np.testing.assert_allclose(np.asarray(_curves(fig)[0].y), grid.loss_bin, rtol=1e-6)


def test_bands_surround_their_curves():
    fig = build("models_schemes", factor=2.0, n_sequences=8)
    for c, b in zip(_curves(fig), _bands(fig)):
        y, by = np.asarray(c.y, dtype=float), np.asarray(b.y, dtype=float)
        hi, lo = by[: y.size], by[y.size:][::-1]
        assert np.all(lo <= y + 1e-6) and np.all(y <= hi + 1e-6) and b.legendgroup == c.legendgroup


def test_finetuned_curves_appear_only_at_their_factor():
    at4 = build("models_extension", methods="default", factor=4.0, finetuned=True, n_sequences=1)
    names = [c.name for c in _curves(at4)]
    assert len(names) == 3 and all("fine-tuned" in n for n in names[1:])
    steps = {pm.manifest()["models"][f"rope_{m}_ft"]["steps"] for m in pm.FINETUNED}
    assert all(re.search(r"fine-tuned (\d+) steps", n).group(1) in {str(s) for s in steps} for n in names[1:])
    at2 = build("models_extension", methods="default", factor=2.0, finetuned=True, n_sequences=1)
    assert len(_curves(at2)) == 1


@pytest.mark.parametrize("finetunes, drawn", [("linear", ["linear"]), ("yarn", ["yarn"]), ("", []),
                                               ("yarn,linear", ["linear", "yarn"])])
def test_finetunes_chooses_which_finetuned_curves_are_drawn(finetunes, drawn):
    """The page leaves out a fine-tune whose weights are damaged, and draws the other."""
    fig = build("models_extension", methods="default", factor=4.0, finetuned=True, finetunes=finetunes,
                n_sequences=1)
    dashed = [c.name for c in _curves(fig) if "fine-tuned" in c.name]
    assert [n.split(", fine-tuned")[0] for n in dashed] == [METHODS[m].label for m in drawn]


def test_schemes_figure_has_one_curve_per_scheme_with_recomputed_numbers():
    fig = build("models_schemes", factor=2.0, n_sequences=2)
    curves = _curves(fig)
    assert len(curves) == len(pm.SCHEMES)
    L, Lp = pm.train_length(), 2 * pm.train_length()
    floor = pm.floor(Lp)
    for c, s in zip(curves, pm.SCHEMES):
        losses = pm.evaluate(pm.load(s), Lp, n_sequences=2)
        assert f"+{np.mean(losses[L:] - floor[L:]):.2f} past L" in c.name
        np.testing.assert_allclose(np.asarray(c.y), binned(losses, 1)[1], rtol=1e-5)  # 128 points: no binning
    assert L in _lines(fig)


@pytest.mark.parametrize("kind", ["methods", "schemes"])
def test_retrieval_is_exact_copies_among_determined_tokens(kind):
    L = pm.train_length()
    Lp = 2 * L
    fig = build("models_retrieval", kind=kind, methods="default,yarn", schemes="alibi,learned", factor=2.0,
                n_sequences=4, seed=1)
    curves = _curves(fig)
    cases = [("rope", "default", 2.0), ("rope", "yarn", 2.0)] if kind == "methods" else \
        [("alibi", "default", 1.0), ("learned", "default", 1.0)]
    assert len(curves) == 2
    for c, (name, method, factor) in zip(curves, cases):
        _, exact, determined = pm.evaluate_sequences(pm.load(name), Lp, method, factor, seed=1, n_sequences=4)
        rate = [exact[:, t][determined[:, t]].mean() if determined[:, t].any() else np.nan for t in range(Lp)]
        np.testing.assert_allclose(np.asarray(c.y, dtype=float), rate, rtol=1e-6)   # width 1 at 128
        windows = range(L // 2 + 1, Lp, L // 4)      # windows of L/4 positions where every token is determined
        first_miss = next((t for t in windows if np.mean(rate[t:t + L // 4]) < RETRIEVAL_THRESHOLD), Lp)
        assert c.name.endswith(f"effective context {first_miss:,}")
    assert fig.layout.yaxis.tickformat == ".0%"
    assert any(s["y0"] == RETRIEVAL_THRESHOLD for s in fig.layout.shapes)


@pytest.mark.parametrize("name, kwargs, param", [
    ("models_extension", dict(factor=0.5), "factor"), ("models_extension", dict(factor=17.0), "factor"),
    ("models_extension", dict(methods="pi"), "methods"), ("models_extension", dict(n_sequences=-1), "n_sequences"),
    ("models_schemes", dict(schemes="rope,t5"), "schemes"), ("models_schemes", dict(schemes=""), "schemes"),
    ("models_extension", dict(finetunes="ntk"), "finetunes"), ("models_extension", dict(finetunes=3), "finetunes"),
    ("models_retrieval", dict(kind="loss"), "kind"), ("models_retrieval", dict(factor=0.0), "factor"),
])
def test_bad_parameters_name_themselves(name, kwargs, param):
    with pytest.raises(ValueError, match=param):
        build(name, **kwargs)


def test_training_figure_reads_the_manifest():
    fig = build("models_training")
    man = pm.manifest()["models"]
    assert len(fig.data) == len(man)
    for trace, rec in zip(fig.data, man.values()):
        assert float(trace.y[-1]) == pytest.approx(rec["loss_log"][-1][1], rel=1e-4)


@pytest.mark.parametrize("name, kwargs", [("models_extension", dict(factor=16.0, finetuned=True)),
                                          ("models_schemes", dict(factor=16.0)), ("models_training", {}),
                                          ("models_retrieval", dict(factor=16.0, kind="schemes"))])
def test_json_payload_is_small(name, kwargs):
    assert len(build(name, **kwargs).to_json()) < 500_000
