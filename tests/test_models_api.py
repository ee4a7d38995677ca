"""posviz.models' public contract: the shipped weights and manifest, evaluate's shape and errors, RoPE
scaling at inference against an independent forward pass, and training steps that learn (CI never trains
the shipped models: a few steps on one batch must make the loss fall for every scheme)."""

import math
from pathlib import Path

import numpy as np
import pytest
import torch

import posviz.models as pm
from posviz.models.net import NetConfig, TinyLM
from posviz.models.task import MAX_LENGTH, sample_batch

# Reproducing the manifest: same code, data and weights; only float summation order (threads, BLAS
# kernels) may differ, which moves a mean of 16,384 losses by far less than this.
MANIFEST_TOLERANCE = 2e-3


@pytest.fixture(scope="module")
def models():
    return {s: pm.load(s) for s in pm.SCHEMES}


def test_schemes_and_train_length():
    assert set(pm.SCHEMES) >= {"nope", "learned", "sinusoidal", "rope", "alibi"}
    assert pm.train_length() == pm.manifest()["train_length"] == 64


def test_shipped_weights_fit_the_budget_and_the_manifest_records_the_run():
    files = list(pm.WEIGHTS.glob("*.pt"))
    assert sum(f.stat().st_size for f in files) <= 10 * 2**20
    man = pm.manifest()
    assert {f.stem for f in files} == set(man["models"])
    assert set(pm.SCHEMES) | {f"rope_{m}_ft" for m in pm.FINETUNED} == set(man["models"])
    assert len(man["git_revision"].split("+")[0]) == 40 and "period" in man["data"]
    assert len(man["code_sha256"]) == 64
    for name, rec in man["models"].items():
        assert rec["steps"] > 0 and rec["train_seconds"] > 0 and isinstance(rec["seed"], int), name
        assert rec["loss_log"][-1][0] == rec["steps"] - 1
        assert rec["recipe"]["steps"] == rec["steps"] and rec["recipe"]["periods"] == [8, 32], name
        assert len(rec["sha256"]) == 64 and rec["git_revision"] and len(rec["code_sha256"]) == 64


@pytest.mark.parametrize("scheme", pm.SCHEMES)
def test_load_reproduces_the_manifest_metric(models, scheme):
    model = models[scheme]
    assert not model.training and next(model.parameters()).device.type == "cpu"
    L = pm.train_length()
    losses = pm.evaluate(model, L, seed=0, n_sequences=256)
    recorded = pm.manifest()["models"][scheme]["metrics"][f"at_L_{L}"]["mean_loss"]
    assert abs(losses.mean() - recorded) <= MANIFEST_TOLERANCE


@pytest.mark.parametrize("method", pm.FINETUNED)
def test_finetuned_models_reproduce_their_metric(method):
    model = pm.load_finetuned(method)
    rec = pm.manifest()["models"][f"rope_{method}_ft"]
    assert model.meta["method"] == method and model.meta["factor"] == rec["factor"]
    Lp = rec["length"]
    losses = pm.evaluate(model, Lp, method, rec["factor"], seed=0, n_sequences=32)
    assert abs(losses.mean() - rec["metrics"][f"at_Lprime_{Lp}"]["mean_loss"]) <= MANIFEST_TOLERANCE


@pytest.mark.parametrize("scheme", pm.SCHEMES)
@pytest.mark.parametrize("length", [8, 100, MAX_LENGTH])
def test_evaluate_shape_and_values(models, scheme, length):
    out = pm.evaluate(models[scheme], length, n_sequences=1)
    assert out.shape == (length,) and out.dtype == np.float64
    assert np.all(np.isfinite(out)) and np.all(out >= 0)


LEARNED = 0.3   # nats above the Bayes floor at L within which a model has learned the task


@pytest.mark.parametrize("scheme", pm.SCHEMES)
def test_every_scheme_learned_the_task_at_L(models, scheme):
    """The evidence only means something if every model learned the task where it was trained: within 0.3 nats
    of the Bayes floor at L, on 256 fresh sequences (as the manifest records)."""
    from posviz.figures.models import LEARNED_MARGIN, learned_at_L

    L = pm.train_length()
    excess = pm.excess(pm.evaluate(models[scheme], L, n_sequences=256))
    assert LEARNED_MARGIN == LEARNED and learned_at_L(scheme) == pytest.approx(excess, abs=2e-3)
    assert excess <= LEARNED, (scheme, excess)


def test_plain_rope_at_4L_stays_at_the_floor_inside_L_and_rises_past_it(models):
    """The fair experiment: with the copy distances of training at every length, plain RoPE read at 4L is at
    the floor inside L (no hump from longer periods) and clearly above it past L (position alone)."""
    L = pm.train_length()
    losses = pm.evaluate(models["rope"], 4 * L, n_sequences=32)
    excess = losses - pm.floor(4 * L)
    assert float(np.mean(excess[:L])) <= LEARNED
    assert pm.past_L(losses, L) >= 1.0


def test_evaluate_is_deterministic_and_seeded(models):
    a = pm.evaluate(models["rope"], 128, "yarn", 2.0, seed=3, n_sequences=4)
    np.testing.assert_array_equal(a, pm.evaluate(models["rope"], 128, "yarn", 2.0, seed=3, n_sequences=4))
    assert not np.array_equal(a, pm.evaluate(models["rope"], 128, "yarn", 2.0, seed=4, n_sequences=4))


@pytest.mark.parametrize("kwargs, name", [
    (dict(length=7), "length"), (dict(length=MAX_LENGTH + 1), "length"), (dict(length="64"), "length"),
    (dict(length=64, method="pi"), "method"), (dict(length=64, factor=0.5), "factor"),
    (dict(length=64, factor=float("nan")), "factor"), (dict(length=64, factor=1e9), "factor"),
    (dict(length=64, seed=-1), "seed"), (dict(length=64, n_sequences=0), "n_sequences"),
    (dict(length=1024, n_sequences=33), "n_sequences"), (dict(length=16, n_sequences=4096), "n_sequences"),
])
def test_evaluate_rejects_bad_arguments(models, kwargs, name):
    with pytest.raises(ValueError, match=name):
        pm.evaluate(models["rope"], **kwargs)


@pytest.mark.parametrize("scheme", ["nope", "learned", "sinusoidal", "alibi"])
def test_scaling_methods_are_for_rope_only(models, scheme):
    with pytest.raises(ValueError, match="method"):
        pm.evaluate(models[scheme], 64, method="yarn", factor=2.0)
    with pytest.raises(ValueError, match="factor"):
        pm.evaluate(models[scheme], 64, factor=2.0)


def test_evaluate_and_load_reject_bad_names():
    with pytest.raises(ValueError, match="scheme"):
        pm.load("t5")
    with pytest.raises(ValueError, match="method"):
        pm.load_finetuned("ntk")
    with pytest.raises(ValueError, match="model"):
        pm.evaluate(torch.nn.Linear(2, 2), 64)


def _loss_numpy(logits: torch.Tensor, targets: np.ndarray) -> np.ndarray:
    """Mean over sequences of -log softmax(logits)[target], in float64 numpy (independent of F.cross_entropy)."""
    z = logits.double().numpy()
    z = z - z.max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    picked = np.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]  # (n, T)
    return -picked.mean(axis=0)


@pytest.mark.parametrize("s", [2.0, 4.0, 7.5])
def test_linear_scaling_equals_dividing_the_positions(models, s):
    """PI's claim (Chen et al. 2023): theta_i/s at position m is theta_i at position m/s."""
    model, T, n = models["rope"], 96, 3
    inputs, targets, _ = sample_batch(n, T, 11, pm.period_range(pm.train_length()))
    with torch.inference_mode():
        logits = model(torch.as_tensor(inputs), positions=np.arange(T) / s)
    np.testing.assert_allclose(pm.evaluate(model, T, "linear", s, seed=11, n_sequences=n),
                               _loss_numpy(logits, targets), rtol=1e-5, atol=1e-5)


def test_attention_factor_multiplies_the_logits_by_its_square():
    """A on q and k is A² on q·k: the same as rotating q·A² against k (checked on one layer's scores)."""
    model = pm.load("rope")
    theta, A = pm.rope_inv_freq(model, 256, "yarn", 4.0)
    assert pytest.approx(0.1 * math.log(4.0) + 1) == A
    plain = pm.evaluate(model, 256, "yarn", 4.0, n_sequences=2)
    inputs, targets, _ = sample_batch(2, 256, 0, pm.period_range(pm.train_length()))
    with torch.inference_mode():
        logits = model(torch.as_tensor(inputs), theta, A)
    np.testing.assert_allclose(plain, _loss_numpy(logits, targets), rtol=1e-5, atol=1e-5)
    with torch.inference_mode():
        other = model(torch.as_tensor(inputs), theta, 1.0)
    assert not torch.allclose(logits, other)


def train_on_batch(model: TinyLM, inputs: np.ndarray, targets: np.ndarray, steps: int, lr: float) -> list[float]:
    """``steps`` AdamW steps on one fixed batch; the losses."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    x, y = torch.as_tensor(inputs), torch.as_tensor(targets)
    model.train()
    out = []
    for _ in range(steps):
        loss = torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        out.append(float(loss.detach()))
    return out


@pytest.mark.parametrize("scheme", pm.SCHEMES)
def test_a_few_training_steps_make_the_loss_fall(scheme):
    """Every scheme's gradients flow: 25 steps on one batch bring its loss down."""
    torch.manual_seed(0)
    model = TinyLM(NetConfig(scheme, train_length=32))
    inputs, targets, _ = sample_batch(8, 32, 5)
    losses = train_on_batch(model, inputs, targets, steps=25, lr=1e-2)
    assert losses[-1] < 0.8 * losses[0], losses


def test_learned_positions_past_L_reuse_the_last_row(models):
    model = models["learned"]
    L = model.config.train_length
    seen = []
    handle = model.pos.register_forward_hook(lambda mod, args, out: seen.append(args[0].clone()))
    try:
        pm.evaluate(model, L + 40, n_sequences=1)
    finally:
        handle.remove()
    np.testing.assert_array_equal(seen[0].numpy(), np.minimum(np.arange(L + 40), L - 1))


@pytest.mark.parametrize("scheme", pm.SCHEMES)
def test_every_scheme_is_causal(models, scheme):
    """Changing the last input token changes no earlier position's logits."""
    inputs, _, _ = sample_batch(1, 80, 0)
    changed = inputs.copy()
    changed[0, -1] = (changed[0, -1] + 1) % 512
    with torch.inference_mode():
        a, b = models[scheme](torch.as_tensor(inputs)), models[scheme](torch.as_tensor(changed))
    torch.testing.assert_close(a[:, :-1], b[:, :-1], rtol=1e-5, atol=1e-5)
    assert not torch.allclose(a[:, -1], b[:, -1])


def test_alibi_model_uses_posviz_bias():
    from posviz.bias import alibi_bias
    from posviz.models.net import position_bias

    model = pm.load("alibi")
    np.testing.assert_array_equal(position_bias(model.config, 50).numpy(), alibi_bias(2, 50).astype(np.float32))
    assert position_bias(pm.load("rope").config, 50) is None


def test_package_import_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys, posviz, posviz.models, posviz.figures, posviz.figures.models; "
            "print(posviz.models.train_length(), 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).parents[1], check=True)
    assert out.stdout.split() == ["64", "False"]


def test_losses_remembers_evaluate_read_only():
    a = pm.losses("alibi", 96, n_sequences=3)
    np.testing.assert_array_equal(a, pm.evaluate(pm.load("alibi"), 96, n_sequences=3))
    assert pm.losses("alibi", 96, n_sequences=3) is a and not a.flags.writeable
    with pytest.raises(ValueError, match="name"):
        pm.losses("rope_ntk_ft", 96)


def test_an_evaluation_at_its_caps_grows_memory_far_less_than_256_mb():
    """The largest calls ``evaluate`` accepts (n·T at the token cap, n·T² at the score cap, the longest T), each
    in a fresh process after a small warm-up call: its peak RSS grows by under 128 MB (forward passes in
    batches, ``BATCH_TOKENS``), and batching leaves the curve as one pass over all sequences gives it."""
    import subprocess
    import sys

    code = """
import resource, sys, numpy as np, torch, posviz.models as pm
model = pm.shared("rope")
length, n = int(sys.argv[1]), int(sys.argv[2])
pm.evaluate(model, 64, n_sequences=1)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
pm.evaluate(model, length, n_sequences=n)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
"""
    grown = {}
    for length, n in ((64, pm.MAX_TOKENS // 64), (256, pm.MAX_TOKENS // 256), (1024, 32)):
        out = subprocess.run([sys.executable, "-c", code, str(length), str(n)], capture_output=True, text=True,
                             timeout=120, cwd=Path(__file__).parents[1], check=True)
        grown[length, n] = float(out.stdout.split()[-1])
    assert all(mb < 128 for mb in grown.values()), grown

    model = pm.shared("rope")
    inputs, targets, _ = sample_batch(40, 96, 5, pm.period_range(pm.train_length()))
    with torch.inference_mode():
        logits = model(torch.as_tensor(inputs), None, 1.0)
        one_pass = torch.nn.functional.cross_entropy(logits.transpose(1, 2), torch.as_tensor(targets),
                                                     reduction="none").double().mean(dim=0).numpy()
    np.testing.assert_allclose(pm.evaluate(model, 96, seed=5, n_sequences=40), one_pass, rtol=1e-6, atol=1e-7)


def test_live_sequence_budget():
    assert [pm.live_n_sequences(T) for T in (64, 256, 512, 1000, 1024)] == [16, 4, 2, 1, 1]


def test_merge_into_replaces_only_the_retrained_records(tmp_path):
    import json

    from posviz.models.train import merge_into

    def run_dir(name, models, revision):
        d = tmp_path / name
        d.mkdir()
        for m in models:
            (d / f"{m}.pt").write_bytes(name.encode())
        recs = {m: {"train_cpu_seconds": 1.0, "marker": name, **pm.fingerprint(d / f"{m}.pt")} for m in models}
        (d / "manifest.json").write_text(json.dumps({"train_length": 64, "recipe": {"steps": 3}, "models": recs,
                                                     "git_revision": revision, "total_seconds": 5.0}))
        return d

    dst = run_dir("old", ["nope", "sinusoidal", "rope"], "a" * 40)
    src = run_dir("new", ["sinusoidal"], "b" * 40)
    merged = merge_into(src, dst)
    assert list(merged["models"]) == ["nope", "sinusoidal", "rope"]
    assert merged["models"]["sinusoidal"]["marker"] == "new" and merged["models"]["nope"]["marker"] == "old"
    assert (dst / "sinusoidal.pt").read_bytes() == b"new" and (dst / "rope.pt").read_bytes() == b"old"
    assert merged["models"]["sinusoidal"]["sha256"] == pm.fingerprint(dst / "sinusoidal.pt")["sha256"]
    assert merged["merged"][-1] == {"models": ["sinusoidal"], "git_revision": "b" * 40, "total_seconds": 5.0}
    other = run_dir("other", ["alibi"], "c" * 40)
    (other / "manifest.json").write_text(json.dumps({"train_length": 64, "recipe": {"steps": 4}, "models": {},
                                                     "git_revision": "c", "total_seconds": 1.0}))
    with pytest.raises(ValueError, match="recipes differ"):
        merge_into(other, dst)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: pm.losses("rope", [64]), "length"),            # unhashable: was the cache's TypeError
    (lambda: pm.losses("rope", 64, method=["yarn"]), "method"),
    (lambda: pm.losses("rope", 64, factor={"s": 2}), "factor"),
    (lambda: pm.rope_inv_freq(None, 64), "model"),         # was AttributeError on None.config
    (lambda: pm.past_L(np.zeros(128), -5), "L"),           # silently averaged the last 5 positions
    (lambda: pm.past_L(np.zeros(128), 2.5), "L"),          # was a TypeError from slicing
])
def test_bad_arguments_are_a_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()


def test_past_L_at_valid_lengths_is_unchanged():
    curve = np.linspace(8.0, 6.0, 128)
    assert pm.past_L(curve, 64) == pytest.approx(float(np.mean(curve[64:] - pm.floor(128, 64)[64:])))
    assert np.isnan(pm.past_L(curve, 128))


def test_evaluate_sequences_scores_retrieval_where_the_token_is_determined(models):
    """``exact`` is the argmax against the target, ``determined`` is t > P; evaluate is the mean of ``loss``."""
    L = pm.train_length()
    loss, exact, determined = pm.evaluate_sequences(models["rope"], 2 * L, seed=4, n_sequences=6)
    _, targets, periods = sample_batch(6, 2 * L, 4, pm.period_range(L))
    np.testing.assert_array_equal(determined, np.arange(2 * L)[None, :] > periods[:, None])
    with torch.inference_mode():
        logits = models["rope"](torch.as_tensor(sample_batch(6, 2 * L, 4, pm.period_range(L))[0]))
    np.testing.assert_array_equal(exact, logits.argmax(-1).numpy() == targets)
    np.testing.assert_allclose(loss.mean(axis=0), pm.evaluate(models["rope"], 2 * L, seed=4, n_sequences=6))
    assert exact[:, L:][determined[:, L:]].mean() > 0.0


def test_floor_is_the_training_lengths_floor_then_zero():
    L = pm.train_length()
    floor = pm.floor(4 * L)
    np.testing.assert_allclose(floor[:L], pm.bayes_floor(L))
    assert np.all(floor[L // 2 + 1:] == 0)
    assert pm.excess(floor) == pytest.approx(0.0)
