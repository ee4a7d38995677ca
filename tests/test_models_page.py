"""AppTest of the Context extension parts that run the shipped models ("What a real model does" and the
scheme comparison): the chart holds posviz.models' curves and the caption quotes the same numbers; a damaged
weights file or manifest is one warning line naming it and how to restore it, and the rest still draws."""

from __future__ import annotations

import re

import numpy as np
import pytest

import posviz.models as pm
from posviz.figures.models import LEARNED_MARGIN, SCHEME_LABELS
from posviz.scaling import METHODS
from testkit.apptest import assert_clean, chart_specs, run_page, warnings_text

pytestmark = pytest.mark.app

PAGE = "pages/4_Context_extension.py"


def captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


def curve(spec: dict, label: str) -> dict:
    """The drawn curve named ``label`` (not its band)."""
    return next(t for t in spec["data"] if t["name"].startswith(label) and t.get("showlegend", True) is not False)


def _y(trace: dict) -> np.ndarray:
    y = trace["y"]
    if isinstance(y, dict):  # plotly's binary encoding of float32 arrays
        import base64

        return np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
    return np.asarray(y, dtype=np.float64)


def _drawn(spec: dict) -> list[dict]:
    """The drawn curves of a chart (no floor, no bands)."""
    return [t for t in spec["data"] if not t["name"].startswith("Bayes") and t.get("showlegend", True) is not False]


def _prose(at) -> str:
    return " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("s", ["4", "16"])
def test_evidence_draws_each_method_and_quotes_its_loss_past_L(s):
    at = run_page(PAGE, {"part": "evidence", "model_s": s, "methods": "default,linear,yarn"})
    assert_clean(at)
    factor = float(s)
    L = pm.train_length()
    Lp = int(round(factor * L))
    loss_spec, retrieval_spec = chart_specs(at)
    text = captions(at)
    assert f"read at L' = {Lp}" in text and "period drawn from 8–32, the training range" in text
    for m in ("default", "linear", "yarn"):
        c = pm.curve("rope", Lp, m, factor)
        assert f"{METHODS[m].label} +{pm.past_L(c.loss, L):.2f}" in text
        np.testing.assert_allclose(_y(curve(loss_spec, METHODS[m].label)), c.loss_bin, rtol=1e-5)
        np.testing.assert_allclose(_y(curve(retrieval_spec, METHODS[m].label)), c.retrieval_bin, rtol=1e-5,
                                   equal_nan=True)
        assert f"effective context {pm.effective_context(c):,}" in curve(retrieval_spec, METHODS[m].label)["name"]
    dashed = [t for t in _drawn(loss_spec) if "fine-tuned" in t["name"]]
    assert len(dashed) == (2 if factor == 4.0 else 0)


@pytest.mark.parametrize("s", ["4", "16"])
def test_evidence_prose_names_the_fractions_and_the_order_the_curves_have(s):
    """The sentences under the figure are computed from its curves at the student's s: each method's share of
    plain RoPE's loss past L, the order from closest to the floor to farthest, where each leaves the floor."""
    at = run_page(PAGE, {"part": "evidence", "model_s": s, "methods": "default,linear,ntk,yarn,llama3"})
    assert_clean(at)
    prose = _prose(at)
    factor, L = float(s), pm.train_length()
    Lp = int(round(factor * L))
    curves = {m: pm.curve("rope", Lp, m, factor) for m in ("default", "linear", "ntk", "yarn", "llama3")}
    past = {m: pm.past_L(c.loss, L) for m, c in curves.items()}
    drawn = {t["name"].split(":")[0]: float(re.search(r"\+(\d+\.\d+) past L", t["name"]).group(1))
             for t in _drawn(chart_specs(at)[0]) if "fine-tuned" not in t["name"]}
    assert drawn == {METHODS[m].label: round(x, 2) for m, x in past.items()}
    assert f"Past L at s = {factor:g}, plain RoPE is +{past['default']:.2f} nats above the floor." in prose
    for m in ("linear", "ntk", "yarn", "llama3"):
        share = 1 - past[m] / past["default"]
        said = f"{METHODS[m].label} {share:.0%}" if share >= 0 else f"{METHODS[m].label} none (worse than no scaling"
        assert said in prose, (m, share)
    keys = {"default", "linear", "ntk", "yarn", "llama3"}
    if factor == 4.0:
        keys |= {"ft:linear", "ft:yarn"}
    ordered = re.search(r"From closest to the floor past L to farthest: (.*?)\.( |$)", prose).group(1)
    named = [part.rsplit(" (", 1)[0] for part in ordered.split(" < ")]
    values = [float(part.rsplit(" (", 1)[1].rstrip(")")) for part in ordered.split(" < ")]
    assert len(named) == len(keys) and values == sorted(values)
    for label, value in zip(named, values):
        if label in drawn:
            assert value == pytest.approx(drawn[label], abs=0.006)
    for m, c in curves.items():
        t = pm.leaves_floor(c)
        said = "stays within it to the end" if t is None else f"leaves it at t ≈ {t:,}" + (" (inside L)" * (t < L))
        assert f"{METHODS[m].label} {said}" in prose
    params = sum(t.numel() for t in pm.shared("rope").parameters())
    assert f"one {params / 1000:.0f} k-parameter model" in prose


@pytest.mark.parametrize("s", ["4", "8"])
def test_schemes_part_quotes_the_training_record_and_the_drawn_curves(s):
    at = run_page(PAGE, {"part": "schemes", "schemes_s": s})
    assert_clean(at)
    L, factor = pm.train_length(), float(s)
    Lp = int(round(factor * L))
    text, prose = captions(at), _prose(at)
    loss_spec, retrieval_spec = chart_specs(at)
    assert len(_drawn(loss_spec)) == len(_drawn(retrieval_spec)) == len(pm.SCHEMES)
    past = {}
    for sch in pm.SCHEMES:
        rec = pm.manifest()["models"][sch]["metrics"][f"at_L_{L}"]["excess_over_floor"]
        assert f"+{rec:.2f}" in text.split("Past L")[0]
        c = pm.curve(sch, Lp)
        past[sch] = pm.past_L(c.loss, L)
        assert re.search(rf"\+{past[sch]:.2f}", text.split("Past L")[1])
        assert f"effective context {pm.effective_context(c):,}" in curve(retrieval_spec, SCHEME_LABELS[sch])["name"]
    learned = [sch for sch in pm.SCHEMES if pm.manifest()["models"][sch]["metrics"][f"at_L_{L}"]
               ["excess_over_floor"] <= LEARNED_MARGIN]
    for sch in set(pm.SCHEMES) - set(learned):     # drawn dotted, labelled, said, and left out of the order
        assert "did not learn the task" in curve(loss_spec, SCHEME_LABELS[sch])["name"]
        assert curve(loss_spec, SCHEME_LABELS[sch])["line"]["dash"] == "dot"
    missed = [SCHEME_LABELS[sch] for sch in pm.SCHEMES if sch not in learned]
    assert (f"{', '.join(missed)} did not learn the task at L" in prose) == bool(missed)
    order = " < ".join(f"{SCHEME_LABELS[sch]} ({past[sch]:.2f})" for sch in sorted(learned, key=past.get))
    assert f"Past L, from closest to the floor to farthest: {order}." in prose
    depth = {sch: pm.shared(sch).config.n_layers for sch in ("nope", "rope")}
    assert (f"took it {depth['nope']} layers where the others have {depth['rope']}" in prose) == \
        (depth["nope"] != depth["rope"])


def test_a_scheme_that_missed_the_task_is_named_and_left_out_of_the_order():
    """The prose's rule for a model more than LEARNED_MARGIN above the floor at L (none of the shipped ones)."""
    from posviz.figures.models_prose import NOPE_WHY, schemes_prose

    at_L = {"nope": LEARNED_MARGIN + 1.5, "rope": 0.09, "alibi": 0.27}
    past = {"nope": 3.6, "rope": 4.0, "alibi": 0.02}
    prose = schemes_prose(at_L, past, 64, 256)
    assert "NoPE did not learn the task at L" in prose and NOPE_WHY in prose
    assert "Past L, from closest to the floor to farthest: ALiBi (0.02) < RoPE (4.00)." in prose
    assert "did not learn" not in schemes_prose({"rope": 0.09}, {"rope": 4.0}, 64, 256)


def test_evidence_without_finetunes_and_a_bad_scale_falls_back_with_a_warning():
    at = run_page(PAGE, {"part": "evidence", "finetuned": "false", "model_s": "99"})
    assert_clean(at)
    assert "model_s" in warnings_text(at)
    spec = chart_specs(at)[0]
    assert not [t for t in spec["data"] if "fine-tuned" in t["name"]]
    assert "read at L' = 256" in captions(at)


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
    names = [t["name"] for t in _drawn(chart_specs(at)[0])]
    assert [n.split(":")[0] for n in names] == ["NoPE", "learned absolute", "sinusoidal", "RoPE"]
    text = captions(at)
    assert "ALiBi" not in text and "RoPE +" in text


def test_evidence_part_warns_of_a_damaged_finetune_and_draws_the_rest(damaged):
    path = damaged / "rope_yarn_ft.pt"
    path.write_bytes(path.read_bytes()[:1000])
    at = run_page(PAGE, {"part": "evidence", "model_s": "4", "methods": "default,yarn"})
    assert_clean(at)
    assert "truncated" in _one_restore_line(at, path)
    names = [t["name"] for t in _drawn(chart_specs(at)[0])]
    assert [n.split(":")[0].split(",")[0] for n in names] == \
        [METHODS["default"].label, METHODS["yarn"].label, METHODS["linear"].label]
    assert "fine-tuned" in names[-1] and "PI / linear, fine-tuned" in captions(at)


@pytest.mark.parametrize("part", ["evidence", "schemes"])
def test_a_garbage_manifest_is_one_warning_and_the_lesson_still_loads(damaged, part):
    (damaged / "manifest.json").write_bytes(b"\x00\xff garbage")
    at = run_page(PAGE, {"part": part})
    assert_clean(at)
    assert "not valid JSON" in _one_restore_line(at, damaged / "manifest.json")
    assert chart_specs(at) == []
    assert at.header[0].value.startswith({"evidence": "10. What a real model does",
                                          "schemes": "11. Position schemes"}[part])


def test_the_other_parts_draw_without_the_manifest(damaged):
    (damaged / "manifest.json").unlink()
    at = run_page(PAGE, {"part": "pairs"})
    assert_clean(at)
    assert warnings_text(at) == "" and len(chart_specs(at)) == 1
