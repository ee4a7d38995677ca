"""Argument checks shared by the math layer.

Every public posviz function validates its inputs with these helpers, so a bad value always raises
``ValueError`` naming the parameter, the value it got and the valid range, before any array is allocated; in
the language of the page that asked (posviz.i18n), as a page shows the message. Booleans are rejected where
numbers are expected (``True`` is not a dimension).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import numpy as np

from posviz.i18n import _


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_int(name: str, value: object, lo: int | None = None, hi: int | None = None,
              *, even: bool = False, multiple_of: int | None = None) -> int:
    """Return ``value`` as an int in [lo, hi] (optionally even / a multiple), else raise ValueError."""
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not ok and isinstance(value, float) and math.isfinite(value) and value.is_integer():
        ok, value = True, int(value)
    rng = _range_text(lo, hi)
    if not ok:
        raise ValueError(_("{name} must be an integer{range}; got {value}", name=name, range=rng, value=_show(value)))
    value = int(value)  # type: ignore[arg-type]
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(_("{name} must be an integer{range}; got {value}", name=name, range=rng, value=value))
    step = 2 if even else multiple_of
    if step and value % step:
        raise ValueError(_("{name} must be a multiple of {step}{range}; got {value}", name=name, step=step,
                           range=rng, value=value))
    return value


def check_float(name: str, value: object, lo: float | None = None, hi: float | None = None,
                *, lo_open: bool = False, hi_open: bool = False) -> float:
    """Return ``value`` as a finite float in the range (open or closed ends), else raise ValueError."""
    rng = _range_text(lo, hi, lo_open, hi_open)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(_("{name} must be a finite number{range}; got {value}", name=name, range=rng,
                           value=_show(value)))
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(_("{name} must be a finite number{range}; got a number too large", name=name,
                           range=rng)) from None
    if not math.isfinite(value):
        raise ValueError(_("{name} must be a finite number{range}; got {value}", name=name, range=rng, value=value))
    below = lo is not None and (value <= lo if lo_open else value < lo)
    above = hi is not None and (value >= hi if hi_open else value > hi)
    if below or above:
        raise ValueError(_("{name} must be a finite number{range}; got {value}", name=name, range=rng,
                           value=format(value, "g")))
    return value


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ValueError listing them."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(_("{name} must be one of {choices}; got {value}", name=name,
                           choices=", ".join(map(repr, choices)), value=_show(value)))
    return value


def _range_text(lo: float | None, hi: float | None, lo_open: bool = False, hi_open: bool = False) -> str:
    if lo is None and hi is None:
        return ""
    if hi is None:
        return _(" {relation} {bound}", relation=">" if lo_open else ">=", bound=_bound(lo))
    if lo is None:
        return _(" {relation} {bound}", relation="<" if hi_open else "<=", bound=_bound(hi))
    left, right = ("(" if lo_open else "["), (")" if hi_open else "]")
    return _(" in {left}{lo}, {hi}{right}", left=left, lo=_bound(lo), hi=_bound(hi), right=right)


def _bound(x: float) -> str:
    """A range's end as a reader types it: integers whole (4,294,967,295, not 4.29497e+09), others short."""
    if isinstance(x, numbers.Integral) or (float(x).is_integer() and abs(x) < 1e7):
        return f"{int(x):,}" if abs(x) >= 10_000 else str(int(x))
    return f"{x:g}"


# --------------------------------------------------------------------------------------------------
# Arrays and size caps (one validator for every module, so every refusal names its parameter the same way)

MAX_BYTES = 256 * 2**20   # no public call may allocate more than this (docs/CONTRIBUTING.md, the math layer)
MAX_ARRAY_VALUES = 1 << 24  # values in one array argument (128 MB as float64)


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is a bool (Python or numpy), else raise ValueError."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(_("{name} must be True or False; got {value}", name=name, value=_show(value)))
    return bool(value)


def check_array(name: str, value: object, *, ndim: int | tuple[int, ...] | None = None, min_size: int = 0,
                max_size: int = MAX_ARRAY_VALUES, lo: float | None = None, hi: float | None = None,
                lo_open: bool = False, hi_open: bool = False, scalar_ok: bool = False) -> np.ndarray:
    """Return ``value`` (a number sequence, numpy array or torch tensor of any real dtype, float16 and
    bfloat16 included) as a new finite float64 numpy array, else raise ValueError naming ``name``.

    ``ndim``: the allowed number(s) of dimensions (a 0-d value becomes 1-d when 1 is allowed and
    ``scalar_ok``); ``min_size``/``max_size``: the number of values; ``lo``/``hi``: the range of every
    value. Booleans, text, None, complex numbers, ragged lists and objects are refused.
    """
    rng = _range_text(lo, hi, lo_open, hi_open)
    what = f"an array of finite numbers{rng}"
    arr = _to_float64(name, value, what)
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if arr.ndim == 0 and scalar_ok and allowed and 1 in allowed:
        arr = arr.reshape(1)
    if allowed is not None and arr.ndim not in allowed:
        dims = " or ".join(f"{n}-D" for n in allowed)
        raise ValueError(f"{name} must be a {dims} array; got shape {arr.shape}")
    if not min_size <= arr.size <= max_size:
        raise ValueError(f"{name} must hold {min_size:,} to {max_size:,} values; got {arr.size:,}")
    if arr.size:
        bad = ~np.isfinite(arr)
        if lo is not None:
            bad |= (arr <= lo) if lo_open else (arr < lo)
        if hi is not None:
            bad |= (arr >= hi) if hi_open else (arr > hi)
        if bad.any():
            k = int(np.argmax(bad.ravel()))
            raise ValueError(f"{name} must be {what}; got {float(arr.ravel()[k])!r} at flat index {k}")
    return arr


def _to_float64(name: str, value: object, what: str) -> np.ndarray:
    if value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        raise ValueError(f"{name} must be {what}; got {type(value).__name__}")
    if hasattr(value, "detach") and hasattr(value, "dtype"):  # a torch tensor, without importing torch
        t = value.detach().cpu()
        if t.is_complex() or str(t.dtype) == "torch.bool":
            raise ValueError(f"{name} must be {what}; got a tensor of dtype {t.dtype}")
        if t.numel() > MAX_ARRAY_VALUES:
            raise ValueError(f"{name} may hold at most {MAX_ARRAY_VALUES:,} values; got {t.numel():,}")
        return t.double().numpy().copy()
    size = getattr(value, "size", None)
    if isinstance(size, int) and size > MAX_ARRAY_VALUES:
        raise ValueError(f"{name} may hold at most {MAX_ARRAY_VALUES:,} values; got {size:,}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError, OverflowError, RecursionError):
        raise ValueError(f"{name} must be {what} (a ragged or non-numeric sequence)") from None
    if raw.dtype.kind not in "iufO":  # bool, complex, text, dates; object arrays are checked entry by entry
        raise ValueError(f"{name} must be {what}; got dtype {raw.dtype}")
    if raw.size > MAX_ARRAY_VALUES:
        raise ValueError(f"{name} may hold at most {MAX_ARRAY_VALUES:,} values; got {raw.size:,}")
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            arr = np.array(raw, dtype=np.float64)
    except OverflowError:
        raise ValueError(f"{name} must be {what}; got a number too large for a float") from None
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {what}; got a non-numeric entry") from None
    if raw.dtype.kind == "O" and raw.size and not all(
            isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in raw.ravel()):
        raise ValueError(f"{name} must be {what}; got a non-numeric entry")
    return arr


def check_cells(name: str, count: int, cap: int, what: str = "values") -> None:
    """Raise ValueError when a call would build ``count`` > ``cap`` cells, saying the cap."""
    if count > cap:
        raise ValueError(f"{name}: this call would build {count:,} {what}; the cap is {cap:,} "
                         f"(no call may allocate more than {MAX_BYTES // 2**20} MB)")
