"""Figures of posviz.figures.models: the plotted numbers are posviz.models.evaluate's, binned; L and L' are
marked where they belong; every legend number is recomputed here from the plotted curve's source."""

import json
import re

import numpy as np
import pytest

import posviz.models as pm
from posviz.figures import FIGURES, build
from posviz.figures.models import binned
from posviz.scaling import METHODS


def _lines(fig):
    return {s["x0"]: s for s in fig.layout.shapes if s["type"] == "line"}


def _curves(fig):
    return [t for t in fig.data if not t.name.startswith("Bayes floor")]


def test_registered():
    assert {"models_extension", "models_schemes", "models_training"} <= set(FIGURES)


@pytest.mark.parametrize("factor", [1.0, 4.0, 16.0])
def test_extension_curves_are_evaluate_binned(factor):
    L = pm.train_length()
    Lp = int(round(factor * L))
    fig = build("models_extension", methods="default,linear,yarn", factor=factor, n_sequences=1)
    curves = _curves(fig)
    assert [c.name.split(":")[0] for c in curves] == [METHODS[m].label for m in ("default", "linear", "yarn")]
    width = max(1, -(-Lp // 128))
    floor = pm.bayes_floor(Lp)
    for c, m in zip(curves, ("default", "linear", "yarn")):
        losses = pm.evaluate(pm.load("rope"), Lp, m, factor, n_sequences=1)
        x, y = binned(losses, width)
        np.testing.assert_allclose(np.asarray(c.y), y, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(c.x), x)
        if Lp > L:
            assert f"+{np.mean(losses[L:] - floor[L:]):.2f} past L" in c.name
    fl = next(t for t in fig.data if t.name.startswith("Bayes floor"))
    np.testing.assert_allclose(np.asarray(fl.y), binned(floor, width)[1], rtol=1e-6)
    lines = _lines(fig)
    assert L in lines and (Lp - 1 in lines) == (Lp != L)
    assert f"L' = {Lp}" in json.dumps(fig.layout.to_plotly_json()) or Lp == L
    assert fig.layout.xaxis.range == (0, Lp)
    assert f"s = {factor:g}" in fig.layout.title.text


def test_binning_keeps_every_position_once():
    v = np.arange(10, dtype=np.float64)
    x, y = binned(v, 4)
    np.testing.assert_allclose(y, [1.5, 5.5, 8.5])
    np.testing.assert_allclose(x, [1.5, 5.5, 8.5])


def test_past_L_is_the_mean_excess_beyond_L():
    floor = pm.bayes_floor(128)
    losses = floor + np.where(np.arange(128) >= 64, 2.0, 0.5)
    assert pm.past_L(losses, 64) == pytest.approx(2.0)
    assert np.isnan(pm.past_L(losses[:64], 64))


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
    floor = pm.bayes_floor(Lp)
    for c, s in zip(curves, pm.SCHEMES):
        losses = pm.evaluate(pm.load(s), Lp, n_sequences=2)
        assert c.name.endswith(f"+{np.mean(losses[L:] - floor[L:]):.2f} past L")
        np.testing.assert_allclose(np.asarray(c.y), binned(losses, 1)[1], rtol=1e-6)  # 128 points: no binning
    assert L in _lines(fig)


@pytest.mark.parametrize("name, kwargs, param", [
    ("models_extension", dict(factor=0.5), "factor"), ("models_extension", dict(factor=17.0), "factor"),
    ("models_extension", dict(methods="pi"), "methods"), ("models_extension", dict(n_sequences=-1), "n_sequences"),
    ("models_schemes", dict(schemes="rope,t5"), "schemes"), ("models_schemes", dict(schemes=""), "schemes"),
    ("models_schemes", dict(bin_width=1000), "bin_width"), ("models_extension", dict(finetunes="ntk"), "finetunes"),
    ("models_extension", dict(finetunes=3), "finetunes"),
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
                                          ("models_schemes", dict(factor=16.0)), ("models_training", {})])
def test_json_payload_is_small(name, kwargs):
    assert len(build(name, **kwargs).to_json()) < 500_000
