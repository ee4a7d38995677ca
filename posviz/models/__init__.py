"""Small transformers trained here, shipped with posviz: what a real model does past its training length.

Every model is the same causal transformer (``posviz.models.net``) with a different position scheme,
trained at length L on the task of ``posviz.models.task`` (continue a sequence that repeats with an
unknown period). ``evaluate`` runs one at any length up to ``MAX_LENGTH`` on fresh task data and returns
the mean loss per position; for the RoPE models any scaling method of ``posviz.scaling`` can be applied at
inference (``method``, ``factor``), with its attention factor. docs/MODELS.md records the training run.

torch is imported on first use of ``load``/``evaluate`` only: ``SCHEMES``, ``train_length`` and the task
helpers are cheap.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from posviz import scaling
from posviz._validate import check_choice, check_float, check_int
from posviz.models.task import MAX_LENGTH, MIN_LENGTH, bayes_floor, period_range, sample_batch

if TYPE_CHECKING:
    import torch

SCHEMES = ("nope", "learned", "sinusoidal", "rope", "alibi")
METHODS = tuple(scaling.METHODS)            # default, linear, ntk, dynamic, yarn, llama3
FINETUNED = ("linear", "yarn")               # RoPE models fine-tuned at L' with a scaling method baked in
NAMES = SCHEMES + tuple(f"rope_{m}_ft" for m in FINETUNED)   # every shipped model, by file stem
MAX_FACTOR = 64.0
MAX_SCORE_CELLS = 1 << 22                    # n_sequences · length² (attention scores per head and layer)
MAX_TOKENS = 1 << 15                         # n_sequences · length (q and k stacked: 2·32768·64 values)
WEIGHTS = Path(__file__).with_name("weights")

__all__ = ["SCHEMES", "METHODS", "FINETUNED", "MAX_LENGTH", "load", "load_finetuned", "train_length",
           "manifest", "evaluate", "default_n_sequences", "live_n_sequences", "excess", "bayes_floor",
           "period_range", "sample_batch", "rope_inv_freq", "NAMES", "shared", "losses", "past_L"]


@cache
def manifest() -> dict:
    """The training record shipped with the weights (weights/manifest.json)."""
    return json.loads((WEIGHTS / "manifest.json").read_text())


def train_length() -> int:
    """L, the sequence length every shipped model was trained at."""
    return int(manifest()["train_length"])


def load(scheme: str) -> torch.nn.Module:
    """The shipped model of position scheme ``scheme`` (one of ``SCHEMES``), in eval mode on the CPU."""
    scheme = check_choice("scheme", scheme, SCHEMES)
    return _load_file(f"{scheme}.pt")


def load_finetuned(method: str) -> torch.nn.Module:
    """The RoPE model fine-tuned at L' with scaling ``method`` ("linear" = PI, "yarn"); its ``meta`` holds
    the method, factor and steps. Evaluate it with that method and factor."""
    method = check_choice("method", method, FINETUNED)
    return _load_file(f"rope_{method}_ft.pt")


def _load_file(name: str) -> torch.nn.Module:
    from posviz.models.net import load_file

    return load_file(str(WEIGHTS / name))


@cache
def shared(name: str) -> torch.nn.Module:
    """A shipped model by file stem (``NAMES``), loaded once per process; evaluation never changes it."""
    name = check_choice("name", name, NAMES)
    return load_finetuned(name[5:-3]) if name.endswith("_ft") else load(name)


def losses(name: str, length: int, method: str = "default", factor: float = 1.0, seed: int = 0,
           n_sequences: int | None = None) -> np.ndarray:
    """``evaluate(shared(name), ...)``, remembered for the 256 latest arguments (read-only array), so a
    figure and the caption beside it pay for one forward pass."""
    name = check_choice("name", name, NAMES)
    return _losses(name, length, method, factor, seed, n_sequences)


@lru_cache(maxsize=256)
def _losses(name: str, length: int, method: str, factor: float, seed: int, n_sequences: int | None) -> np.ndarray:
    out = evaluate(shared(name), length, method, factor, seed, n_sequences)
    out.flags.writeable = False
    return out


def past_L(losses: np.ndarray, L: int) -> float:
    """Mean loss above the Bayes floor at positions t >= L (nats; 0 = as good as possible there), NaN if
    the curve ends at or before L."""
    losses = np.asarray(losses, dtype=np.float64)
    if losses.size <= L:
        return float("nan")
    return float(np.mean(losses[L:] - bayes_floor(losses.size)[L:]))


def default_n_sequences(length: int) -> int:
    """How many sequences ``evaluate`` averages by default: as many as keep n·T² <= 2^22 (and n·T <= 2^15),
    at most 64."""
    length = check_int("length", length, MIN_LENGTH, MAX_LENGTH)
    return max(1, min(64, MAX_SCORE_CELLS // (length * length), MAX_TOKENS // length))


def live_n_sequences(length: int) -> int:
    """Sequences per curve for a live rerun: ``max(1, 1024 // length)``, about one 1,024-token forward pass per
    curve, so six curves at any L' <= 1,024 cost <= 150 ms of model time on one core (benchmarks/models_speed.py)."""
    length = check_int("length", length, MIN_LENGTH, MAX_LENGTH)
    return max(1, 1024 // length)


def rope_inv_freq(model: torch.nn.Module, length: int, method: str = "default",
                  factor: float = 1.0) -> tuple[np.ndarray, float]:
    """``(inv_freq, attention_factor)`` a RoPE model uses at ``length`` under a ``posviz.scaling`` method,
    with L = the model's training length as ``original_max_position_embeddings`` (dynamic NTK: seq_len =
    length)."""
    c = model.config
    return scaling.scaled_inv_freq(method, c.head_dim, c.rope_base, factor, c.train_length, seq_len=length)


def evaluate(model: torch.nn.Module, length: int, method: str = "default", factor: float = 1.0, seed: int = 0,
             n_sequences: int | None = None) -> np.ndarray:
    """Mean cross-entropy (nats) at each position of ``n_sequences`` fresh task sequences, shape (length,).

    Position t is the loss of predicting x_t (``posviz.models.task``). ``method``/``factor``: a RoPE
    scaling method of ``posviz.scaling`` applied at inference (RoPE models only; others take "default"
    and 1). ``n_sequences`` defaults to ``default_n_sequences(length)``; n·length² is capped at 2^22 and
    n·length at 2^15.
    Seeds below 10^6 never overlap the training data (training uses seeds from 10^9 on).
    """
    import torch

    from posviz.models.net import TinyLM

    if not isinstance(model, TinyLM):
        raise ValueError(f"model must be a posviz.models model (from load); got {type(model).__name__}")
    length = check_int("length", length, MIN_LENGTH, MAX_LENGTH)
    method = check_choice("method", method, METHODS)
    factor = check_float("factor", factor, 1.0, MAX_FACTOR)
    seed = check_int("seed", seed, 0, 2**31 - 1)
    n = default_n_sequences(length) if n_sequences is None else check_int("n_sequences", n_sequences, 1, 4096)
    if n * length > MAX_TOKENS:
        raise ValueError(f"n_sequences · length must be at most {MAX_TOKENS:,} tokens; got {n} · {length} = "
                         f"{n * length:,}")
    if n * length * length > MAX_SCORE_CELLS:
        raise ValueError(f"n_sequences · length² must be at most {MAX_SCORE_CELLS:,} (memory cap); got "
                         f"{n} · {length}² = {n * length * length:,}; use n_sequences <= "
                         f"{default_n_sequences(length)} at length {length}")
    scheme = model.config.scheme
    if scheme != "rope" and method != "default":
        raise ValueError(f"method must be 'default' for a {scheme!r} model (scaling methods act on RoPE); "
                         f"got {method!r}")
    if scheme != "rope" and factor != 1.0:
        raise ValueError(f"factor must be 1 for a {scheme!r} model (scaling methods act on RoPE); got {factor:g}")
    theta, A = rope_inv_freq(model, length, method, factor) if scheme == "rope" else (None, 1.0)
    inputs, targets, _ = sample_batch(n, length, seed)
    with torch.inference_mode():
        logits = model(torch.as_tensor(inputs), theta, A)  # (n, T, V)
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), torch.as_tensor(targets),
                                                 reduction="none")  # (n, T)
    out = loss.mean(dim=0).double().numpy()
    if not np.all(np.isfinite(out)):
        raise ValueError(f"the model's loss is not finite at length {length} (method {method!r}, factor "
                         f"{factor:g})")
    return out


def excess(losses: np.ndarray) -> float:
    """Mean loss above the Bayes floor of ``posviz.models.task`` over all positions (0 = perfect)."""
    losses = np.asarray(losses, dtype=np.float64)
    return float(np.mean(losses - bayes_floor(losses.size)))

