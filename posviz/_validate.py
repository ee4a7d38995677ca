"""Argument checks shared by the math layer.

Every public posviz function validates its inputs with these helpers, so a bad value always
raises ``ValueError`` naming the parameter, the value it got and the valid range, before any
array is allocated. Booleans are rejected where numbers are expected (``True`` is not a dimension).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable


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
        raise ValueError(f"{name} must be an integer{rng}; got {_show(value)}")
    value = int(value)  # type: ignore[arg-type]
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"{name} must be an integer{rng}; got {value}")
    step = 2 if even else multiple_of
    if step and value % step:
        raise ValueError(f"{name} must be a multiple of {step}{rng}; got {value}")
    return value


def check_float(name: str, value: object, lo: float | None = None, hi: float | None = None,
                *, lo_open: bool = False, hi_open: bool = False) -> float:
    """Return ``value`` as a finite float in the range (open or closed ends), else raise ValueError."""
    rng = _range_text(lo, hi, lo_open, hi_open)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a finite number{rng}; got {_show(value)}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a finite number{rng}; got a number too large") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number{rng}; got {value}")
    below = lo is not None and (value <= lo if lo_open else value < lo)
    above = hi is not None and (value >= hi if hi_open else value > hi)
    if below or above:
        raise ValueError(f"{name} must be a finite number{rng}; got {value:g}")
    return value


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ValueError listing them."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {_show(value)}")
    return value


def _range_text(lo: float | None, hi: float | None, lo_open: bool = False, hi_open: bool = False) -> str:
    if lo is None and hi is None:
        return ""
    if hi is None:
        return f" {'>' if lo_open else '>='} {lo:g}"
    if lo is None:
        return f" {'<' if hi_open else '<='} {hi:g}"
    left, right = ("(" if lo_open else "["), (")" if hi_open else "]")
    return f" in {left}{lo:g}, {hi:g}{right}"
