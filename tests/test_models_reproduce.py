"""Retraining reproduces the shipped run: the first steps of the recorded recipe (the same code, seed, batches
and schedule) give the losses the manifest logged for them, for every shipped model. Training is deterministic
on the CPU; only float summation order (thread count) may differ, which moves a loss of ~6 nats after 11 AdamW
steps by far less than ``TOLERANCE``. The full run is ``python -m posviz.models train`` (docs/MODELS.md)."""

import pytest
import torch

import posviz.models as pm
from posviz.models.train import Recipe, new_model, train_steps

SHORT = 11          # steps run here: the log has an entry every 10 steps, so steps 0 and 10 are compared
TOLERANCE = 1e-3    # nats


def recorded_recipe() -> Recipe:
    """The manifest's recipe as a ``Recipe`` (JSON lists back to tuples)."""
    raw = dict(pm.manifest()["recipe"])
    for table in ("scheme_steps", "scheme_layers"):
        raw[table] = tuple(tuple(pair) for pair in raw.get(table, ()))
    return Recipe(**raw)


@pytest.fixture
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # as the recorded run (--threads 1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("name", pm.NAMES)
def test_the_first_steps_of_the_recipe_reproduce_the_logged_losses(name, one_thread):
    recipe, rec = recorded_recipe(), pm.record(name)
    L = recipe.train_length
    if rec.get("finetuned"):      # a fine-tune starts from the shipped RoPE model, as in the run
        model = pm.load("rope")
        log = train_steps(model, recipe.finetune_steps, rec["length"], recipe.finetune_batch, recipe.finetune_lr,
                          recipe.warmup // 4, recipe.seed + 1, rec["method"], rec["factor"], stop=SHORT)
    else:
        model = new_model(rec["scheme"], recipe)
        log = train_steps(model, recipe.steps_of(rec["scheme"]), L, recipe.batch, recipe.lr, recipe.warmup,
                          recipe.seed, stop=SHORT)
    logged = {step: loss for step, loss in rec["loss_log"] if step < SHORT}
    assert set(logged) == {step for step, _ in log} == {0, 10}
    for step, loss in log:
        assert abs(loss - logged[step]) <= TOLERANCE, (name, step, loss, logged[step])


def test_the_recipe_in_the_manifest_is_the_default_recipe():
    """``python -m posviz.models train`` (no options) runs the recipe the shipped models record."""
    assert recorded_recipe() == Recipe()
