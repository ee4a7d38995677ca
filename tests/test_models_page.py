"""AppTest of the Context extension parts that run the shipped models ("What a real model does" and the
scheme comparison): the chart holds posviz.models' curves and the caption quotes the same numbers; a damaged
weights file or manifest is one warning line naming it and how to restore it, and the rest still draws."""

from __future__ import annotations

import re

import numpy as np
import pytest

import posviz.models as pm
from posviz.figures.models import binned
from posviz.scaling import METHODS
from testkit.apptest import assert_clean, chart_specs, run_page, warnings_text

pytestmark = pytest.mark.app

PAGE = "pages/4_Context_extension.py"


def captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


def curve(spec: dict, label: str) -> dict:
    return next(t for t in spec["data"] if t["name"].startswith(label))


def _y(trace: dict) -> np.ndarray:
    y = trace["y"]
    if isinstance(y, dict):  # plotly's binary encoding of float32 arrays
        import base64

        return np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
    return np.asarray(y, dtype=np.float64)


@pytest.mark.parametrize("s", ["4", "2.5"])
def test_evidence_draws_each_method_and_quotes_its_loss_past_L(s):
    at = run_page(PAGE, {"part": "evidence", "model_s": s, "methods": "default,linear,yarn"})
    assert_clean(at)
    factor = float(s)
    L = pm.train_length()
    Lp = int(round(factor * L))
    spec = chart_specs(at)[0]
    text = captions(at)
    assert f"read at L' = {Lp}" in text
    n = pm.live_n_sequences(Lp)
    width = max(1, -(-Lp // 128))
    for m in ("default", "linear", "yarn"):
        losses = pm.evaluate(pm.load("rope"), Lp, m, factor, seed=0, n_sequences=n)
        excess = pm.past_L(losses, L)
        assert f"{METHODS[m].label} +{excess:.2f}" in text
        np.testing.assert_allclose(_y(curve(spec, METHODS[m].label)), binned(losses, width)[1], rtol=1e-5)
    dashed = [t for t in spec["data"] if "fine-tuned" in t["name"]]
    assert len(dashed) == (2 if factor == 4.0 else 0)
    assert ("Dashed, fine-tuned" in text) == (factor == 4.0)


@pytest.mark.parametrize("s", ["2", "4", "16"])
def test_evidence_prose_says_how_much_each_method_recovers_at_the_scale_shown(s):
    """The sentence under the figure is computed from its curves at the student's s (at s = 4 NTK-aware
    recovers about half, at 16 far less; PI can be worse than no scaling), never a fixed "most of the loss"."""
    at = run_page(PAGE, {"part": "evidence", "model_s": s, "methods": "default,linear,ntk,yarn,llama3"})
    assert_clean(at)
    prose = " ".join(m.value for m in at.markdown)
    Lp = int(round(float(s) * pm.train_length()))
    past = {m: pm.past_L(pm.losses("rope", Lp, m, float(s), 0, pm.live_n_sequences(Lp)), pm.train_length())
            for m in ("default", "linear", "ntk", "yarn", "llama3")}
    assert f"Past L at s = {float(s):g}, plain RoPE is +{past['default']:.2f} nats above the floor." in prose
    for m in ("linear", "ntk", "yarn", "llama3"):
        share = 1 - past[m] / past["default"]
        said = f"{METHODS[m].label} {share:.0%}" if share >= 0 else f"{METHODS[m].label} none (worse than no scaling"
        assert said in prose, (m, share)
    assert "recover most of the loss" not in prose and "ordering of the methods is the papers'" not in prose
    params = sum(t.numel() for t in pm.shared("rope").parameters())
    assert f"one {params / 1000:.0f} k-parameter model" in prose


def test_evidence_without_finetunes_and_a_bad_scale_falls_back_with_a_warning():
    at = run_page(PAGE, {"part": "evidence", "finetuned": "false", "model_s": "99"})
    assert_clean(at)
    assert "model_s" in warnings_text(at)
    spec = chart_specs(at)[0]
    assert not [t for t in spec["data"] if "fine-tuned" in t["name"]]
    assert "read at L' = 256" in captions(at)


def test_schemes_part_quotes_the_training_record_and_the_live_curves():
    at = run_page(PAGE, {"part": "schemes", "schemes_s": "2"})
    assert_clean(at)
    L = pm.train_length()
    text = captions(at)
    spec = chart_specs(at)[0]
    assert len([t for t in spec["data"] if not t["name"].startswith("Bayes")]) == len(pm.SCHEMES)
    for s in pm.SCHEMES:
        rec = pm.manifest()["models"][s]["metrics"][f"at_L_{L}"]["excess_over_floor"]
        assert f"+{rec:.2f}" in text
        live = pm.past_L(pm.evaluate(pm.load(s), 2 * L, n_sequences=pm.live_n_sequences(2 * L)), L)
        assert re.search(rf"\+{live:.2f}", text.split("Past L")[1])


@pytest.fixture
def damaged(tmp_path, monkeypatch):
    """A copy of the shipped weights that the page reads instead; the test damages it."""
    import shutil

    folder = tmp_path / "weights"
    shutil.copytree(pm.WEIGHTS, folder)
    monkeypatch.setattr(pm, "WEIGHTS", folder)
    return folder


def _flip_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _one_restore_line(at, file) -> str:
    """The page's only warning: one line naming ``file`` and how to restore it, none of torch's text."""
    (warning,) = [str(w.value) for w in at.warning]
    plain = re.sub(r"\\(.)", r"\1", warning)  # the page escapes markdown in it
    assert "\n" not in plain and plain.startswith(str(file)), plain
    assert "reinstall posviz" in plain and "python -m posviz.models train" in plain, plain
    assert "weights_only" not in plain and "Traceback" not in plain and "Error" not in plain, plain
    return plain


def test_schemes_part_warns_of_a_damaged_file_and_draws_the_other_schemes(damaged):
    _flip_byte(damaged / "alibi.pt")
    at = run_page(PAGE, {"part": "schemes", "schemes_s": "2"})
    assert_clean(at)
    assert "sha256" in _one_restore_line(at, damaged / "alibi.pt")
    names = [t["name"] for t in chart_specs(at)[0]["data"] if not t["name"].startswith("Bayes")]
    assert [n.split(":")[0] for n in names] == ["NoPE", "learned absolute", "sinusoidal", "RoPE"]
    text = captions(at)
    assert "ALiBi" not in text and "RoPE +" in text


def test_evidence_part_warns_of_a_damaged_finetune_and_draws_the_rest(damaged):
    path = damaged / "rope_yarn_ft.pt"
    path.write_bytes(path.read_bytes()[:1000])
    at = run_page(PAGE, {"part": "evidence", "model_s": "4", "methods": "default,yarn"})
    assert_clean(at)
    assert "truncated" in _one_restore_line(at, path)
    names = [t["name"] for t in chart_specs(at)[0]["data"]]
    assert [n.split(":")[0].split(",")[0] for n in names if not n.startswith("Bayes")] == \
        [METHODS["default"].label, METHODS["yarn"].label, METHODS["linear"].label]
    assert "fine-tuned" in names[-1] and "Dashed, fine-tuned at L' with the method in place: PI" in captions(at)


@pytest.mark.parametrize("part", ["evidence", "schemes"])
def test_a_garbage_manifest_is_one_warning_and_the_lesson_still_loads(damaged, part):
    (damaged / "manifest.json").write_bytes(b"\x00\xff garbage")
    at = run_page(PAGE, {"part": part})
    assert_clean(at)
    assert "not valid JSON" in _one_restore_line(at, damaged / "manifest.json")
    assert chart_specs(at) == []
    assert at.header[0].value.startswith({"evidence": "What a real model does", "schemes": "Position schemes"}[part])


def test_the_other_parts_draw_without_the_manifest(damaged):
    (damaged / "manifest.json").unlink()
    at = run_page(PAGE, {"part": "pairs"})
    assert_clean(at)
    assert warnings_text(at) == "" and len(chart_specs(at)) == 1
