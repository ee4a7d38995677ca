"""Small transformers trained here, shipped with posviz: what a real model does past its training length.

Every model is the same causal transformer (``posviz.models.net``) with a different position scheme,
trained at length L on the task of ``posviz.models.task`` (continue a sequence that repeats with an
unknown period). ``evaluate`` runs one at any length up to ``MAX_LENGTH`` on fresh task data and returns
the mean loss per position; for the RoPE models any scaling method of ``posviz.scaling`` can be applied at
inference (``method``, ``factor``), with its attention factor. docs/MODELS.md records the training run.

torch is imported on first use of ``load``/``evaluate`` only: ``SCHEMES``, ``train_length`` and the task
helpers are cheap. The manifest records the sha256 of every weights file; a file that is missing, damaged or
not posviz's raises ``WeightsError``, whose one-line message names it and how to restore it.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from posviz import scaling
from posviz._validate import check_choice, check_float, check_int
from posviz.models.schemes import RESTORE, SCHEMES, WeightsError
from posviz.models.task import MAX_LENGTH, MIN_LENGTH, bayes_floor, period_range, sample_batch

if TYPE_CHECKING:
    import torch

METHODS = tuple(scaling.METHODS)            # default, linear, ntk, dynamic, yarn, llama3
FINETUNED = ("linear", "yarn")               # RoPE models fine-tuned at L' with a scaling method baked in
NAMES = SCHEMES + tuple(f"rope_{m}_ft" for m in FINETUNED)   # every shipped model, by file stem
MAX_FACTOR = 64.0
MAX_SCORE_CELLS = 1 << 25                    # n_sequences · length²: 32 sequences at 1,024 (evaluated in batches)
DEFAULT_SCORE_CELLS = 1 << 22                # evaluate's default n_sequences keeps n·length² under this
MAX_TOKENS = 1 << 15                         # n_sequences · length (q and k stacked: 2·32768·64 values)
BATCH_TOKENS = 1 << 12                       # tokens per forward pass of evaluate (logits: 4096·512 floats)
BATCH_SCORE_CELLS = 1 << 20                  # attention scores per head and layer in one forward pass
WEIGHTS = Path(__file__).with_name("weights")   # read at every call, so a test may point it at a copy
SHA256 = re.compile(r"[0-9a-f]{64}")

__all__ = ["SCHEMES", "METHODS", "FINETUNED", "MAX_LENGTH", "load", "load_finetuned", "train_length",
           "manifest", "evaluate", "default_n_sequences", "live_n_sequences", "excess", "bayes_floor",
           "period_range", "sample_batch", "rope_inv_freq", "NAMES", "shared", "losses", "past_L", "floor",
           "evaluate_sequences",
           "WeightsError", "RESTORE", "fingerprint", "read_manifest", "record"]


def fingerprint(path: Path) -> dict[str, object]:
    """What the manifest records of a weights file to verify it on load: its sha256 and size in bytes."""
    data = Path(path).read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def _stamp(path: Path) -> tuple[int, int] | None:
    """(size, mtime in ns) of ``path``, None if it is missing: the caches below key on it, so a file that is
    replaced (restored, or damaged while the app runs) is verified again."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def manifest() -> dict:
    """The training record shipped with the weights (weights/manifest.json), read once per version of the
    file; ``WeightsError`` if it is missing or is not a posviz training record."""
    path = WEIGHTS / "manifest.json"
    return _manifest(str(path), _stamp(path))


@lru_cache(maxsize=8)
def _manifest(path: str, stamp: tuple[int, int] | None) -> dict:
    """``read_manifest`` once per version of the file (``stamp``): a page rerun does not parse it again."""
    if stamp is None:
        raise WeightsError(path, "is missing")
    return read_manifest(Path(path))


def read_manifest(path: Path) -> dict:
    """A training record read from ``path`` (a fresh dict), checked to be one: ``WeightsError`` if the file is
    missing, unreadable, not JSON or lacks ``train_length``, the recipe or the per-model records (each model's
    own record is checked by ``record``)."""
    try:
        data = json.loads(Path(path).read_bytes())
    except FileNotFoundError:
        raise WeightsError(path, "is missing") from None
    except OSError as err:
        raise WeightsError(path, f"cannot be read ({err.strerror})") from None
    except ValueError:  # JSON and UTF-8 decoding errors both are
        raise WeightsError(path, "is not valid JSON (damaged)") from None
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict) or not all(isinstance(r, dict) for r in models.values()) \
            or type(data.get("train_length")) is not int or not isinstance(data.get("recipe"), dict):
        raise WeightsError(path, "is not a posviz training record (no train_length, recipe or models)")
    return data


def record(name: str) -> dict:
    """The manifest's record of shipped model ``name`` (a file stem of ``NAMES``), checked to hold everything
    posviz reads from it (scheme, steps, length, metrics at L, the file's sha256 and size; a fine-tune's method
    and factor); ``WeightsError`` naming the manifest otherwise."""
    name = check_choice("name", name, NAMES)
    man = manifest()
    rec = man["models"].get(name)
    if rec is None:
        raise WeightsError(WEIGHTS / "manifest.json", f"has no record of {name}.pt")
    bad = _bad_field(rec, man["train_length"])
    if bad:
        raise WeightsError(WEIGHTS / "manifest.json", f"has no valid {bad!r} in its record of {name}.pt")
    return rec


RECORD = {"scheme": str, "steps": int, "length": int, "metrics": dict, "sha256": str, "bytes": int}
FINETUNE_RECORD = {"method": str, "factor": (int, float)}


def _bad_field(rec: dict, L: int) -> str | None:
    """The first field of a model's record that is missing or of the wrong kind, None if there is none."""
    for key, kind in (RECORD | (FINETUNE_RECORD if rec.get("finetuned") else {})).items():
        if not isinstance(rec.get(key), kind) or isinstance(rec.get(key), bool):
            return key
    if not SHA256.fullmatch(rec["sha256"]):
        return "sha256"
    at_L = rec["metrics"].get(f"at_L_{L}")
    if not isinstance(at_L, dict) or not all(isinstance(at_L.get(k), (int, float)) and not isinstance(at_L[k], bool)
                                             for k in ("mean_loss", "excess_over_floor")):
        return f"metrics.at_L_{L}"
    return None


def _verified(name: str) -> tuple[Path, dict]:
    """The path of weights file ``<name>.pt`` and its manifest record, once the file's size and sha256 match
    the record's; ``WeightsError`` naming the file otherwise."""
    rec = record(name)
    path = WEIGHTS / f"{name}.pt"
    stamp = _stamp(path)
    if stamp is None:
        raise WeightsError(path, "is missing")
    if stamp[0] == 0:
        raise WeightsError(path, "is empty")
    if stamp[0] != rec["bytes"]:
        raise WeightsError(path, f"is {stamp[0]:,} bytes where the manifest records {rec['bytes']:,} (truncated "
                                 f"or replaced)")
    if _digest(str(path), stamp) != rec["sha256"]:
        raise WeightsError(path, "does not match the sha256 the manifest records for it (damaged)")
    return path, rec


@lru_cache(maxsize=64)
def _digest(path: str, stamp: tuple[int, int]) -> str:
    """sha256 of a file, once per version of it (``stamp``): a page rerun does not hash again."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as err:
        raise WeightsError(path, f"cannot be read ({err.strerror})") from None


def train_length() -> int:
    """L, the sequence length every shipped model was trained at."""
    return int(manifest()["train_length"])


def load(scheme: str) -> torch.nn.Module:
    """The shipped model of position scheme ``scheme`` (one of ``SCHEMES``), in eval mode on the CPU; a
    ``WeightsError`` names its file if that is missing, damaged (sha256) or holds anything but that model."""
    scheme = check_choice("scheme", scheme, SCHEMES)
    return _load_file(scheme)


def load_finetuned(method: str) -> torch.nn.Module:
    """The RoPE model fine-tuned at L' with scaling ``method`` ("linear" = PI, "yarn"); its ``meta`` holds
    the method, factor and steps. Evaluate it with that method and factor. ``WeightsError`` as for ``load``."""
    method = check_choice("method", method, FINETUNED)
    return _load_file(f"rope_{method}_ft")


def _load_file(name: str) -> torch.nn.Module:
    """A fresh model from ``WEIGHTS/<name>.pt``, its bytes verified against the manifest first."""
    from posviz.models.net import load_file

    path, rec = _verified(name)
    return load_file(str(path), rec["scheme"])


def shared(name: str) -> torch.nn.Module:
    """A shipped model by file stem (``NAMES``), loaded once per version of its file and of the manifest;
    evaluation never changes it. ``WeightsError`` if its file cannot be used (remembered too, so a page rerun
    neither hashes nor unpickles a damaged file again)."""
    name = check_choice("name", name, NAMES)
    man, path = WEIGHTS / "manifest.json", WEIGHTS / f"{name}.pt"
    model = _shared(str(WEIGHTS), name, _stamp(man), _stamp(path))
    if isinstance(model, tuple):
        raise WeightsError(*model)  # a fresh exception each time: a re-raised one would grow its traceback
    return model


@lru_cache(maxsize=32)
def _shared(folder: str, name: str, *stamps: tuple[int, int] | None) -> torch.nn.Module | tuple[str, str]:
    """The model, or the (file, problem) of its ``WeightsError``; ``folder`` and ``stamps`` only key the cache."""
    try:
        return load_finetuned(name[5:-3]) if name.endswith("_ft") else load(name)
    except WeightsError as err:
        return err.file, err.problem


def losses(name: str, length: int, method: str = "default", factor: float = 1.0, seed: int = 0,
           n_sequences: int | None = None) -> np.ndarray:
    """``evaluate(shared(name), ...)``, remembered for the 256 latest arguments (read-only array), so a
    figure and the caption beside it pay for one forward pass. The arguments are checked before the cache sees
    them: an unhashable one is a ValueError naming it, not the cache's TypeError."""
    length = check_int("length", length, MIN_LENGTH, MAX_LENGTH)
    method = check_choice("method", method, METHODS)
    factor = check_float("factor", factor, 1.0, MAX_FACTOR)
    seed = check_int("seed", seed, 0, 2**31 - 1)
    n_sequences = None if n_sequences is None else check_int("n_sequences", n_sequences, 1, 4096)
    return _losses(shared(name), length, method, factor, seed, n_sequences)


@lru_cache(maxsize=256)
def _losses(model: torch.nn.Module, length: int, method: str, factor: float, seed: int,
            n_sequences: int | None) -> np.ndarray:
    """Keyed by the model object itself, so a restored or replaced file never serves the old file's curves."""
    out = evaluate(model, length, method, factor, seed, n_sequences)
    out.flags.writeable = False
    return out


def past_L(losses: np.ndarray, L: int) -> float:
    """Mean loss above the Bayes floor at positions t >= L (nats; 0 = as good as possible there), NaN if
    the curve ends at or before L."""
    L = check_int("L", L, 0, MAX_LENGTH)  # a negative L would average the last |L| positions instead
    losses = np.asarray(losses, dtype=np.float64)
    if losses.size <= L:
        return float("nan")
    return float(np.mean(losses[L:] - floor(losses.size, _trained(L))[L:]))


def _trained(L: int) -> int | None:
    """The training length whose periods the floor of ``past_L(..., L)`` uses: L itself when it is one."""
    return L if MIN_LENGTH <= L <= MAX_LENGTH else None


def default_n_sequences(length: int) -> int:
    """How many sequences ``evaluate`` averages by default: as many as keep n·T² <= 2^22 (and n·T <= 2^15),
    at most 64 (the lesson's curves take 32 at every length: ``posviz.models.curve``)."""
    length = check_int("length", length, MIN_LENGTH, MAX_LENGTH)
    return max(1, min(64, DEFAULT_SCORE_CELLS // (length * length), MAX_TOKENS // length))


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
    c = _checked_model(model).config
    return scaling.scaled_inv_freq(method, c.head_dim, c.rope_base, factor, c.train_length, seq_len=length)


def _checked_model(model: object) -> torch.nn.Module:
    """``model`` if it is one of posviz's small models (``load``), else a ValueError naming the parameter."""
    from posviz.models.net import TinyLM

    if not isinstance(model, TinyLM):
        raise ValueError(f"model must be a posviz.models model (from load); got {type(model).__name__}")
    return model


def evaluate(model: torch.nn.Module, length: int, method: str = "default", factor: float = 1.0, seed: int = 0,
             n_sequences: int | None = None) -> np.ndarray:
    """Mean cross-entropy (nats) at each position of ``n_sequences`` fresh task sequences, shape (length,).

    Position t is the loss of predicting x_t (``posviz.models.task``). The periods are drawn from the
    model's training length, ``period_range(L)``, at every length: past L only the positions are new, never
    the copy distance (the fair test of length extrapolation). ``method``/``factor``: a RoPE scaling method
    of ``posviz.scaling`` applied at inference (RoPE models only; others take "default" and 1).
    ``n_sequences`` defaults to ``default_n_sequences(length)``; n·length² is capped at 2^25 and n·length
    at 2^15 (forward passes in batches keep the memory far below 256 MB). Seeds below 10^6 never overlap the
    training data (training uses seeds from 10^9 on).
    """
    loss, _, _ = evaluate_sequences(model, length, method, factor, seed, n_sequences)
    return loss.mean(axis=0)


def evaluate_sequences(model: torch.nn.Module, length: int, method: str = "default", factor: float = 1.0,
                       seed: int = 0, n_sequences: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per sequence and position, for ``evaluate``'s sequences: ``(loss, exact, determined)``, each (n, length).

    ``loss`` is the cross-entropy in nats (float64), ``exact`` whether the model's most likely token is x_t
    (greedy copy-exactness, the retrieval score of passkey-style tests), ``determined`` whether the history
    fixes x_t (the period P has been seen: t > P), the positions where retrieval can be scored at all.
    Arguments and caps as ``evaluate``.
    """
    import torch

    _checked_model(model)
    length = check_int("length", length, MIN_LENGTH, MAX_LENGTH)
    method = check_choice("method", method, METHODS)
    factor = check_float("factor", factor, 1.0, MAX_FACTOR)
    seed = check_int("seed", seed, 0, 2**31 - 1)
    n = default_n_sequences(length) if n_sequences is None else check_int("n_sequences", n_sequences, 1, 4096)
    _check_caps(n, length)
    scheme = model.config.scheme
    if scheme != "rope" and method != "default":
        raise ValueError(f"method must be 'default' for a {scheme!r} model (scaling methods act on RoPE); "
                         f"got {method!r}")
    if scheme != "rope" and factor != 1.0:
        raise ValueError(f"factor must be 1 for a {scheme!r} model (scaling methods act on RoPE); got {factor:g}")
    theta, A = rope_inv_freq(model, length, method, factor) if scheme == "rope" else (None, 1.0)
    inputs, targets, periods = sample_batch(n, length, seed, period_range(model.config.train_length))
    loss, exact = np.empty((n, length)), np.empty((n, length), dtype=bool)
    with torch.inference_mode():
        for batch in _batches(n, length):
            logits = model(torch.as_tensor(inputs[batch]), theta, A)  # (b, T, V)
            y = torch.as_tensor(targets[batch])
            loss[batch] = torch.nn.functional.cross_entropy(logits.transpose(1, 2), y, reduction="none").numpy()
            exact[batch] = (logits.argmax(dim=-1) == y).numpy()
    if not np.all(np.isfinite(loss)):
        raise ValueError(f"the model's loss is not finite at length {length} (method {method!r}, factor "
                         f"{factor:g})")
    return loss, exact, np.arange(length)[None, :] > periods[:, None]


def _check_caps(n: int, length: int) -> None:
    """The memory caps of one evaluation: n·length <= ``MAX_TOKENS``, n·length² <= ``MAX_SCORE_CELLS``."""
    if n * length > MAX_TOKENS:
        raise ValueError(f"n_sequences · length must be at most {MAX_TOKENS:,} tokens; got {n} · {length} = "
                         f"{n * length:,}")
    if n * length * length > MAX_SCORE_CELLS:
        raise ValueError(f"n_sequences · length² must be at most {MAX_SCORE_CELLS:,} (memory cap); got "
                         f"{n} · {length}² = {n * length * length:,}; use n_sequences <= "
                         f"{default_n_sequences(length)} at length {length}")


def _batches(n: int, length: int) -> list[slice]:
    """The sequences of one ``evaluate`` call in forward passes of at most ``BATCH_TOKENS`` tokens and
    ``BATCH_SCORE_CELLS`` attention scores each, so that its memory stays far below 256 MB whatever n is (the
    logits alone are b·T·vocab floats); a sequence's loss does not depend on the batch it is in."""
    per = max(1, min(n, BATCH_TOKENS // length, BATCH_SCORE_CELLS // (length * length)))
    return [slice(start, start + per) for start in range(0, n, per)]


def floor(length: int, L: int | None = None) -> np.ndarray:
    """The Bayes floor (nats, shape (length,)) of the evaluation at ``length`` of a model trained at ``L``
    (default ``train_length()``): ``task.bayes_floor`` with the periods of L, so it is 0 from L/2 on."""
    L = train_length() if L is None else check_int("L", L, MIN_LENGTH, MAX_LENGTH)
    return bayes_floor(length, period_range(L))


def excess(losses: np.ndarray, L: int | None = None) -> float:
    """Mean loss above the Bayes floor (``floor``, training length ``L``) over all positions (0 = perfect)."""
    losses = np.asarray(losses, dtype=np.float64)
    return float(np.mean(losses - floor(losses.size, L)))



_CURVES = ("CURVE_SEQUENCES", "Curve", "curve", "effective_context", "leaves_floor")
__all__ += list(_CURVES)


def __getattr__(name: str) -> object:
    """The evidence curves of ``posviz.models.curves`` (loss and retrieval per position with bands; the shipped
    grid), read from there on first use: that module uses this one, so neither imports the other at load."""
    if name in _CURVES:
        from posviz.models import curves

        return getattr(curves, name)
    raise AttributeError(f"module 'posviz.models' has no attribute {name!r}")
