"""Training of the shipped models: ``python -m posviz.models train`` (deterministic, CPU).

Every scheme sees the same batches: step k of a run with seed S draws its batch from seed
``10^9 + S·10^6 + k`` of ``posviz.models.task.sample_batch``, far from the evaluation seeds (< 10^6).
AdamW with a linear warm-up and a cosine decay to a tenth of the peak; gradient norm clipped at 1.
The PI and YaRN fine-tunes continue the RoPE model at L' = s·L with the method's frequencies and
attention factor in the forward pass, as PI (Chen et al. 2023 §3) and YaRN (Peng et al. 2023 §4) do.
"""

from __future__ import annotations

import math
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional

from posviz.models import (
    FINETUNED,
    SCHEMES,
    WeightsError,
    excess,
    fingerprint,
    past_L,
    read_manifest,
    rope_inv_freq,
)
from posviz.models.net import NetConfig, TinyLM
from posviz.models.task import period_range, sample_batch

TRAIN_SEED_OFFSET = 10**9


@dataclass(frozen=True)
class Recipe:
    """Everything that determines a run, recorded in the manifest. ``scheme_steps`` gives a scheme its own
    number of steps (("nope", 9000),): a scheme that learns the task more slowly trains longer, on the same
    batches as far as the others go. ``scheme_layers`` gives a scheme its own depth: without positions a model
    needs one more layer to find the previous token (its position comes from counting under the causal mask)
    before it can copy."""

    train_length: int = 64
    steps: int = 3000
    batch: int = 32
    lr: float = 3e-3
    warmup: int = 100
    seed: int = 0
    n_layers: int = 2
    d_model: int = 64
    scheme_steps: tuple[tuple[str, int], ...] = (("nope", 9000), ("sinusoidal", 1500), ("alibi", 4500))
    scheme_layers: tuple[tuple[str, int], ...] = (("nope", 3),)
    finetune_factor: float = 4.0
    finetune_steps: int = 300
    finetune_batch: int = 8
    finetune_lr: float = 2e-3

    def steps_of(self, scheme: str) -> int:
        """The training steps of ``scheme`` at L."""
        return dict(self.scheme_steps).get(scheme, self.steps)

    def layers_of(self, scheme: str) -> int:
        """The number of layers of ``scheme``'s model."""
        return dict(self.scheme_layers).get(scheme, self.n_layers)


def learning_rate(step: int, steps: int, peak: float, warmup: int) -> float:
    """Linear warm-up over ``warmup`` steps, then cosine decay from ``peak`` to ``peak/10`` at ``steps``."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.45 * (1 + math.cos(math.pi * min(1.0, progress))))


def train_steps(model: TinyLM, steps: int, length: int, batch: int, lr: float, warmup: int, seed: int,
                method: str = "default", factor: float = 1.0, log_every: int = 10,
                stop: int | None = None) -> list[tuple[int, float]]:
    """Train ``model`` in place for ``steps`` AdamW steps on fresh task batches; returns (step, loss) pairs.

    The periods are the model's training length's (``period_range(L)``) at any ``length``, as in evaluation:
    a fine-tune at L' learns the new positions, not longer copies. RoPE models use ``posviz.scaling``'s
    ``method``/``factor`` frequencies and attention factor in every forward pass (the fine-tunes); other
    schemes need ``method="default"``. ``stop`` ends the run after that many steps of the same schedule: the
    first ``stop`` steps of a recipe, which reproduce the start of its loss log (tests/test_models_reproduce.py).
    """
    theta, A = rope_inv_freq(model, length, method, factor) if model.config.scheme == "rope" else (None, 1.0)
    periods = period_range(model.config.train_length)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.98), weight_decay=0.01)
    model.train()
    log = []
    for step in range(steps if stop is None else min(stop, steps)):
        for group in opt.param_groups:
            group["lr"] = learning_rate(step, steps, lr, warmup)
        inputs, targets, _ = sample_batch(batch, length, TRAIN_SEED_OFFSET + seed * 10**6 + step, periods)
        logits = model(torch.as_tensor(inputs), theta, A)  # (B, T, V)
        loss = functional.cross_entropy(logits.flatten(0, 1), torch.as_tensor(targets).flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % log_every == 0 or step == steps - 1:
            log.append((step, float(loss.detach())))
    return log


def new_model(scheme: str, recipe: Recipe) -> TinyLM:
    """A freshly initialised model of ``scheme``; the initial weights depend on the recipe's seed only."""
    torch.manual_seed(recipe.seed)
    return TinyLM(NetConfig(scheme, train_length=recipe.train_length, n_layers=recipe.layers_of(scheme),
                            d_model=recipe.d_model))


CODE_FILES = ("models/net.py", "models/task.py", "models/train.py", "models/schemes.py", "rope.py", "rotary.py",
              "scaling", "bias.py", "sinusoidal.py")   # under posviz/; a folder stands for its .py files


def git_revision() -> str:
    """The commit the training code was run from (``git rev-parse HEAD``), "+dirty" when the training code
    (``CODE_FILES``) differs from it, or "unknown"."""
    root = Path(__file__).parents[1]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10,
                              cwd=root.parent, check=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--", *(f"posviz/{c}" for c in CODE_FILES)],
                                 capture_output=True,
                                 text=True, timeout=10, cwd=root.parent, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+dirty" if changed else "")


def code_digest() -> str:
    """sha256 of the training code (``CODE_FILES``, in order): identifies the code a run used even when it
    was not committed yet."""
    import hashlib

    root = Path(__file__).parents[1]
    digest = hashlib.sha256()
    for entry in CODE_FILES:
        path = root / entry
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]:
            if file.exists():   # a module may become a package (scaling.py -> scaling/): hash what is there
                digest.update(str(file.relative_to(root)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def setup_torch(threads: int) -> None:
    """Deterministic CPU torch with ``threads`` intra-op threads (1 is fastest on a busy 2-core machine)."""
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)


def summary(loss: np.ndarray, exact: np.ndarray, determined: np.ndarray, L: int) -> dict[str, float]:
    """The manifest's metrics of one evaluation (``posviz.models.evaluate_sequences``' arrays) of a model trained
    at ``L``: mean loss, mean excess over the Bayes floor and the retrieval rate (exact copies among the
    determined tokens); past L (when the evaluation is longer than L) the excess and retrieval there."""
    curve = loss.mean(axis=0)
    out = {"mean_loss": round(float(np.mean(curve)), 5), "excess_over_floor": round(excess(curve, L), 5),
           "retrieval": round(float(exact[determined].mean()), 5)}
    if curve.size > L:
        out["excess_past_L"] = round(past_L(curve, L), 5)
        out["retrieval_past_L"] = round(float(exact[:, L:][determined[:, L:]].mean()), 5)
    return out


def evaluation(model: TinyLM, recipe: Recipe, method: str = "default", factor: float = 1.0) -> dict[str, dict]:
    """Metrics at L (in distribution, 256 sequences of evaluation seed 0) and at L' = s·L (32 sequences)."""
    from posviz.models import evaluate_sequences

    L = recipe.train_length
    Lp = int(round(recipe.finetune_factor * L))
    at_L = evaluate_sequences(model, L, method, factor, seed=0, n_sequences=256)
    at_Lp = evaluate_sequences(model, Lp, method, factor, seed=0, n_sequences=32)
    return {f"at_L_{L}": summary(*at_L, L), f"at_Lprime_{Lp}": summary(*at_Lp, L)}


def _train_one(out_dir: Path, recipe: Recipe, threads: int, scheme: str, method: str | None = None) -> dict:
    """Train one model (a scheme at L, or with ``method`` the RoPE fine-tune at L' from ``rope.pt``), save it
    to ``out_dir`` and return its manifest record, with the file's sha256 and size that every load verifies.
    Runs in a worker process."""
    from posviz.models.net import load_file, save

    setup_torch(threads)
    L = recipe.train_length
    cpu0, t0 = time.process_time(), time.perf_counter()
    if method is None:
        name = scheme
        model = new_model(scheme, recipe)
        steps = recipe.steps_of(scheme)
        log = train_steps(model, steps, L, recipe.batch, recipe.lr, recipe.warmup, recipe.seed)
        meta = {"scheme": scheme, "seed": recipe.seed, "steps": steps, "length": L,
                "recipe": {"steps": steps, "batch": recipe.batch, "lr": recipe.lr, "warmup": recipe.warmup,
                           "length": L, "periods": list(period_range(L)), "n_layers": recipe.layers_of(scheme),
                           "d_model": recipe.d_model}}
        factor = 1.0
    else:
        name = f"rope_{method}_ft"
        model = load_file(str(out_dir / "rope.pt"), "rope")
        Lp = int(round(recipe.finetune_factor * L))
        factor = recipe.finetune_factor
        log = train_steps(model, recipe.finetune_steps, Lp, recipe.finetune_batch, recipe.finetune_lr,
                          recipe.warmup // 4, recipe.seed + 1, method, factor)
        meta = {"scheme": "rope", "finetuned": True, "method": method, "factor": factor, "seed": recipe.seed + 1,
                "steps": recipe.finetune_steps, "length": Lp,
                "from": f"rope.pt after {recipe.steps_of('rope')} steps at L = {L}",
                "recipe": {"steps": recipe.finetune_steps, "batch": recipe.finetune_batch, "lr": recipe.finetune_lr,
                           "warmup": recipe.warmup // 4, "length": Lp, "periods": list(period_range(L)),
                           "method": method, "factor": factor}}
    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    model.eval()
    metrics = evaluation(model, recipe, method or "default", factor)
    save(model, str(out_dir / f"{name}.pt"), meta)
    return {name: {**meta, "train_seconds": round(seconds, 1), "train_cpu_seconds": round(cpu, 1),
                   "final_train_loss": round(log[-1][1], 5), "loss_log": [[s, round(x, 4)] for s, x in log],
                   "metrics": metrics, **fingerprint(out_dir / f"{name}.pt")}}


def run(out_dir: Path, recipe: Recipe, threads: int = 1, schemes: tuple[str, ...] = SCHEMES,
        finetune: bool = True, jobs: int = 1, echo: bool = True) -> dict:
    """Train every scheme (and the PI/YaRN fine-tunes once RoPE is done) in ``jobs`` worker processes of
    ``threads`` torch threads each; write ``<name>.pt`` and ``manifest.json`` to ``out_dir``. With no schemes,
    only the fine-tunes, from ``out_dir/rope.pt`` (merge them into the run of that model with ``merge_into``)."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    out_dir.mkdir(parents=True, exist_ok=True)
    order = sorted(schemes, key=lambda s: s != "rope")       # RoPE first: the fine-tunes start from it
    models: dict[str, dict] = {}
    start = time.perf_counter()
    revision = git_revision()
    queue = [(s, None) for s in order] or ([("rope", m) for m in FINETUNED] if finetune else [])
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        pending: set = set()
        while queue or pending:
            while queue and len(pending) < jobs:     # at most `jobs` tasks at once, so the fine-tunes can jump in
                pending.add(pool.submit(_train_one, out_dir, recipe, threads, *queue.pop(0)))
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                record = fut.result()
                record[next(iter(record))].update(git_revision=revision, code_sha256=code_digest())
                models.update(record)
                name = next(iter(record))
                if echo:
                    r = record[name]
                    print(f"{name}: {r['train_seconds']:.0f} s ({r['train_cpu_seconds']:.0f} s CPU), "
                          f"train loss {r['final_train_loss']:.4f}, {r['metrics']}", flush=True)
                if name == "rope" and finetune:
                    queue[:0] = [("rope", m) for m in FINETUNED]
    seconds = time.perf_counter() - start
    return _write_manifest(out_dir, recipe, threads, jobs, models, seconds, revision)


def _write_manifest(out_dir: Path, recipe: Recipe, threads: int, jobs: int, models: dict, seconds: float,
                    revision: str) -> dict:
    import json

    from posviz.models.task import MAX_LENGTH, VOCAB

    manifest = {
        "train_length": recipe.train_length,
        "recipe": asdict(recipe),
        "data": (f"repeat-with-unknown-period task (posviz.models.task): vocabulary {VOCAB} + BOS, period "
                 f"P ~ U{{ceil(L/8)..floor(L/2)}} of the training length L at every length (training, fine-tuning "
                 f"and evaluation), first period distinct, generated on the fly; training batch k from seed "
                 f"10^9 + seed·10^6 + k; evaluation seed 0"),
        "model": {k: v for k, v in asdict(new_model("rope", recipe).config).items() if k != "scheme"},
        "max_eval_length": MAX_LENGTH,
        "torch": torch.__version__,
        "threads": threads,
        "jobs": jobs,
        "total_cpu_seconds": round(sum(m["train_cpu_seconds"] for m in models.values()), 1),
        "total_seconds": round(seconds, 1),
        "git_revision": revision,
        "code_sha256": code_digest(),
        "models": {k: models[k] for k in sorted(models, key=_order)},
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def _order(name: str) -> tuple[int, str]:
    return (SCHEMES.index(name), "") if name in SCHEMES else (len(SCHEMES), name)


def _recorded_training(recipe: dict, scheme: str) -> tuple[int | None, int | None]:
    """A recorded recipe's training steps and layers of ``scheme`` (``Recipe.steps_of`` and ``layers_of`` on the
    JSON form)."""
    steps = dict(map(tuple, recipe.get("scheme_steps", []))).get(scheme, recipe.get("steps"))
    return steps, dict(map(tuple, recipe.get("scheme_layers", []))).get(scheme, recipe.get("n_layers"))


def merge_into(src: Path, dst: Path) -> dict:
    """Copy the models of the run in ``src`` (weights and manifest records) into the run in ``dst``, which
    keeps its other models: how a subset retrained with ``--schemes`` joins the shipped set. The recipes must
    agree on every shared field and on the models kept (a retrained scheme may change its own steps and layers,
    which the merged run then records); each record keeps its own ``git_revision``. A copied file must match
    the sha256 its run recorded (``WeightsError`` otherwise, before anything is copied)."""
    import json
    import shutil

    new, old = (read_manifest(d / "manifest.json") for d in (src, dst))
    tunes_only = all(r.get("finetuned") for r in new["models"].values())
    # a model depends on the shared fields and its own scheme's steps and layers (a fine-tune: the RoPE model's
    # steps and, when it is retrained, its own fine-tuning fields); the models kept must keep their recipe
    same = [k for k in set(new["recipe"]) | set(old["recipe"])
            if k not in ("scheme_steps", "scheme_layers") and not (tunes_only and k.startswith("finetune_"))]
    retrained = {r.get("scheme") for r in new["models"].values()}
    kept = {"rope"} if tunes_only else set(SCHEMES) - retrained   # models whose recipe must not change
    if any(new["recipe"].get(k) != old["recipe"].get(k) for k in same) \
            or any(_recorded_training(new["recipe"], sch) != _recorded_training(old["recipe"], sch) for sch in kept):
        raise ValueError(f"the recipes differ: {src} was trained with {new['recipe']}, {dst} with {old['recipe']}")
    if tunes_only:   # fine-tunes retrained with a new fine-tuning recipe: the run now records that one
        old["recipe"] = {**old["recipe"], **{k: v for k, v in new["recipe"].items() if k.startswith("finetune_")}}
    else:            # a retrained scheme may have new steps or layers: the run now records the new tables
        old["recipe"] = {**old["recipe"], **{k: new["recipe"][k] for k in ("scheme_steps", "scheme_layers")
                                            if k in new["recipe"]}}
    for name, record in new["models"].items():
        if fingerprint(src / f"{name}.pt") != {k: record.get(k) for k in ("sha256", "bytes")}:
            raise WeightsError(src / f"{name}.pt", f"does not match the sha256 and size {src}/manifest.json "
                                                   f"records for it (damaged)")
    for name in new["models"]:
        shutil.copyfile(src / f"{name}.pt", dst / f"{name}.pt")
    old["models"] = {k: {**old["models"], **new["models"]}[k]
                     for k in sorted({**old["models"], **new["models"]}, key=_order)}
    old["total_cpu_seconds"] = round(sum(m["train_cpu_seconds"] for m in old["models"].values()), 1)
    old["merged"] = old.get("merged", []) + [{"models": sorted(new["models"]), "git_revision": new["git_revision"],
                                               "total_seconds": new["total_seconds"]}]
    (dst / "manifest.json").write_text(json.dumps(old, indent=1) + "\n")
    return old
