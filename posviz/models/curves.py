"""The curves the evidence figures draw: loss and retrieval per position with a spread band, live or from the grid.

A curve is one shipped model read at length L' (a scaling method at inference for RoPE models) on
``CURVE_SEQUENCES`` fresh sequences of the task (``posviz.models.evaluate_sequences``): the mean loss per
position, the copy-exactness (retrieval) rate over the positions the history determines, and both averaged
over bins of ``bin_width(L')`` positions with a band of ±2 standard errors of the mean over sequences (each
sequence's own bin mean is one sample: about a 95 % interval for the mean). The evidence grid
(``weights/curves.npz``, ``python -m posviz.models grid``) holds every curve the lesson's sliders can ask
for, computed once from the shipped weights; ``curve`` serves those from it (when the sha256 of the weights
it was computed from matches the manifest) and computes any other curve live.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from posviz._validate import check_choice, check_float, check_int

CURVE_SEQUENCES = 32          # sequences per curve: a class reads the mean, the band shows how sure it is
MAX_BINS = 128                # points per drawn curve
RETRIEVAL_THRESHOLD = 0.9     # "effective context": retrieval stays at or above this rate
NEAR_FLOOR = 0.5              # nats above the floor that still count as "at the floor" for a drawn curve
GRID_FACTORS = (1.0, 2.0, 4.0, 5.0, 8.0, 10.0, 16.0)   # the RoPE part's scale slider (log_grid(1, 16) and 4, 8)
SCHEME_FACTORS = (1.0, 2.0, 4.0, 5.0, 8.0)   # the schemes part's slider (log_grid(1, 8) and 4): five models a step
GRID_FILE = "curves.npz"


@dataclass(frozen=True)
class Curve:
    """One model's evidence at one length: per position ``loss`` (T,) and ``retrieval`` (T,; NaN where no
    sequence's token is determined yet); per bin of ``width`` positions centred at ``x`` (B,), the means
    ``loss_bin``, ``retrieval_bin`` and their bands ``loss_band``, ``retrieval_band`` (2, B: low, high)."""

    loss: np.ndarray
    retrieval: np.ndarray
    x: np.ndarray
    loss_bin: np.ndarray
    loss_band: np.ndarray
    retrieval_bin: np.ndarray
    retrieval_band: np.ndarray
    width: int
    n_sequences: int


def bin_width(length: int) -> int:
    """Positions per plotted point at ``length``: the smallest width that keeps at most ``MAX_BINS`` points."""
    return max(1, -(-length // MAX_BINS))


def _bin_starts(length: int, width: int) -> np.ndarray:
    return np.arange(0, length, width)


def band_stats(values: np.ndarray, mask: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bin centres, means and ±2-standard-error bands over sequences of ``values`` (n, T) where ``mask``.

    Each sequence's mean over the masked positions of a bin is one sample; the bin's value is the mean over
    every masked (sequence, position) pair, its band ``mean ± 2·sd/√m`` over the m sequences with a masked
    position in the bin (NaN for an empty bin; a band of zero width for one sample)."""
    n, T = values.shape
    starts = _bin_starts(T, width)
    counts = np.add.reduceat(mask, starts, axis=1).astype(np.float64)          # (n, B)
    sums = np.add.reduceat(np.where(mask, values, 0.0), starts, axis=1)        # (n, B)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # a bin where no token is determined yet: NaN, not noise
        mean = sums.sum(axis=0) / counts.sum(axis=0)
        per_seq = sums / counts                                                # NaN where a sequence has none
        m = np.sum(counts > 0, axis=0)
        sd = np.sqrt(np.nansum((per_seq - np.nanmean(per_seq, axis=0)) ** 2, axis=0) / np.maximum(m - 1, 1))
    half = np.where(m > 1, 2 * sd / np.sqrt(np.maximum(m, 1)), 0.0)
    centres = starts + (np.diff(np.append(starts, T)) - 1) / 2
    return centres.astype(np.float32), mean, np.stack([mean - half, mean + half])


def from_sequences(loss: np.ndarray, exact: np.ndarray, determined: np.ndarray) -> Curve:
    """A ``Curve`` from ``posviz.models.evaluate_sequences``' per-sequence arrays (each (n, T))."""
    n, T = loss.shape
    width = bin_width(T)
    x, loss_bin, loss_band = band_stats(loss, np.ones_like(determined), width)
    _, ret_bin, ret_band = band_stats(exact.astype(np.float64), determined, width)
    with np.errstate(invalid="ignore", divide="ignore"):
        retrieval = np.sum(exact & determined, axis=0) / np.sum(determined, axis=0)
    return Curve(loss.mean(axis=0), retrieval, x, loss_bin, loss_band, ret_bin, ret_band, width, n)


def _start(length: int) -> int:
    """The first position from which every sequence's token is determined: L/2 + 1 (the longest period is L/2)."""
    import posviz.models as pm

    return min(length, pm.period_range(pm.train_length())[1] + 1)


def effective_context(c: Curve, threshold: float = RETRIEVAL_THRESHOLD) -> int:
    """The effective context of a curve: the number of positions read before retrieval first falls below
    ``threshold``, measured over consecutive windows of ``L/4`` positions from ``L/2 + 1`` on (where every
    sequence's token is determined; a window of 32 sequences × 16 positions keeps one unlucky position from
    deciding it), or the whole length if no window does (as RULER's effective length, per position)."""
    import posviz.models as pm

    T, start = c.loss.size, _start(c.loss.size)
    window = max(1, pm.train_length() // 4)
    for lo in range(start, T, window):
        if float(np.nanmean(c.retrieval[lo:lo + window])) < threshold:
            return lo
    return T


def leaves_floor(c: Curve, margin: float = NEAR_FLOOR) -> int | None:
    """Where a curve leaves the Bayes floor: the first window of ``L/4`` positions from ``L/2 + 1`` on (where the
    floor is 0) whose mean loss is more than ``margin`` nats above it; None if the curve stays within it to the
    end. A position below L means the method already costs something inside the trained length."""
    import posviz.models as pm

    T, start = c.loss.size, _start(c.loss.size)
    window = max(1, pm.train_length() // 4)
    floor = pm.floor(T)
    for lo in range(start, T, window):
        if float(np.mean(c.loss[lo:lo + window] - floor[lo:lo + window])) > margin:
            return lo
    return None


def curve(name: str, length: int, method: str = "default", factor: float = 1.0, seed: int = 0,
          n_sequences: int = CURVE_SEQUENCES) -> Curve:
    """The ``Curve`` of shipped model ``name`` (``posviz.models.NAMES``) at ``length``: from the evidence grid
    when it holds exactly this curve for the current weights, else computed now (remembered for the 128
    latest). Arguments as ``posviz.models.losses``."""
    import posviz.models as pm

    length = check_int("length", length, pm.MIN_LENGTH, pm.MAX_LENGTH)
    method = check_choice("method", method, pm.METHODS)
    factor = check_float("factor", factor, 1.0, pm.MAX_FACTOR)
    seed = check_int("seed", seed, 0, 2**31 - 1)
    n_sequences = check_int("n_sequences", n_sequences, 1, 4096)
    model = pm.shared(name)
    if seed == 0 and n_sequences == CURVE_SEQUENCES:
        found = grid_curve(name, length, method, factor)
        if found is not None:
            return found
    return _live(model, length, method, factor, seed, n_sequences)


@lru_cache(maxsize=128)
def _live(model: object, length: int, method: str, factor: float, seed: int, n_sequences: int) -> Curve:
    import posviz.models as pm

    return from_sequences(*pm.evaluate_sequences(model, length, method, factor, seed, n_sequences))


def grid_key(name: str, length: int, method: str, factor: float) -> str:
    """The evidence grid's key of one curve."""
    return f"{name}|{length}|{method}|{factor:g}"


def grid_curve(name: str, length: int, method: str, factor: float) -> Curve | None:
    """The curve from the evidence grid if the grid holds it and was computed from the weights the manifest
    now records for ``name`` (sha256), else None."""
    import posviz.models as pm

    path = pm.WEIGHTS / GRID_FILE
    grid = _grid(str(path), pm._stamp(path))
    if grid is None or grid.get(f"sha256|{name}") != pm.record(name)["sha256"]:
        return None
    found = grid.get(grid_key(name, length, method, factor))
    if found is None and method == "default":   # no scaling ignores the factor: RoPE read plain is stored at s
        found = grid.get(grid_key(name, length, method, length / pm.train_length()))
    return found


FIELDS = ("loss", "retrieval", "x", "loss_bin", "loss_band", "retrieval_bin", "retrieval_band")


@lru_cache(maxsize=4)
def _grid(path: str, stamp: tuple[int, int] | None) -> dict | None:
    """The grid file's curves by key (and ``sha256|<name>`` entries), None if it is missing or unreadable."""
    if stamp is None:
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError):
        return None
    out: dict = {}
    for key in (k[: -len("|loss")] for k in arrays if k.endswith("|loss")):
        meta = arrays[f"{key}|meta"]
        parts = {f: arrays[f"{key}|{f}"].astype(np.float64) for f in FIELDS}
        for a in parts.values():
            a.flags.writeable = False
        out[key] = Curve(**parts, width=int(meta[0]), n_sequences=int(meta[1]))
    out.update({k: str(v) for k, v in arrays.items() if k.startswith("sha256|")})
    return out


def grid_entries() -> list[tuple[str, int, str, float]]:
    """Every curve the lesson's evidence parts can draw: (model, length, method, factor) for RoPE under every
    method and each fine-tune at its own factor at L' = s·L for s in ``GRID_FACTORS``, and every other scheme
    read plain for s in ``SCHEME_FACTORS``."""
    import posviz.models as pm

    L = pm.train_length()
    out = []
    for s in GRID_FACTORS:
        Lp = int(round(s * L))
        out += [("rope", Lp, m, s) for m in pm.METHODS]
        out += [(n, Lp, "default", 1.0) for n in pm.SCHEMES if n != "rope" and s in SCHEME_FACTORS]
        out += [(f"rope_{m}_ft", Lp, m, s) for m in pm.FINETUNED
                if math.isclose(_finetune_factor(m), s)]
    return out


def _finetune_factor(method: str) -> float:
    """The factor the fine-tune of ``method`` was trained at (its record), NaN without a record."""
    import posviz.models as pm

    rec = pm.manifest()["models"].get(f"rope_{method}_ft")
    return float(rec["factor"]) if rec else float("nan")


def write_grid(path: object = None, names: tuple[str, ...] | None = None) -> dict[str, int]:
    """Compute every curve of ``grid_entries`` live (``CURVE_SEQUENCES`` sequences, seed 0) and save them, with
    the sha256 of each model's weights, to ``weights/curves.npz`` (float32, compressed); returns its size.
    ``names`` computes only those models' curves and keeps the others' from the file, if it has them."""
    import posviz.models as pm

    out = pm.WEIGHTS / GRID_FILE if path is None else path
    arrays: dict[str, np.ndarray] = {}
    entries = grid_entries()
    if names is not None and out.exists():   # keep the other models' curves the grid still asks for
        wanted = {grid_key(*e) for e in entries if e[0] not in names}
        with np.load(out, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files
                      if k.rsplit("|", 1)[0] in wanted or (k.startswith("sha256|") and k[7:] not in names)}
    for name, Lp, method, s in [e for e in entries if names is None or e[0] in names]:
        c = _live(pm.shared(name), Lp, method, s, 0, CURVE_SEQUENCES)
        key = grid_key(name, Lp, method, s)
        arrays.update({f"{key}|{f}": np.asarray(getattr(c, f), dtype=np.float32) for f in FIELDS})
        arrays[f"{key}|meta"] = np.array([c.width, c.n_sequences])
    for name in pm.NAMES if names is None else names:
        arrays[f"sha256|{name}"] = np.array(pm.record(name)["sha256"])
    np.savez_compressed(out, **arrays)
    return {"curves": sum(k.endswith("|loss") for k in arrays), "bytes": out.stat().st_size}
