"""RoPE context extension methods: each one maps the plain frequencies ``theta_i`` to ``(theta'_i, A)``.

Each method takes the plain RoPE frequencies ``theta_i = base**(-2i/dim)`` (``posviz.rope.inv_freq``) and
returns ``(inv_freq', attention_factor)``, the same pair transformers' ``ROPE_INIT_FUNCTIONS`` return
(docs/FORMULAS.md §5): linear = Position Interpolation (Chen et al. 2023), static NTK-aware (bloc97),
dynamic NTK (emozilla), YaRN (Peng et al. 2023, code ramp of jquesnelle/yarn and transformers), Llama 3
(Meta ``apply_scaling``) and LongRoPE (Ding et al. 2024, Phi-3 style). ``attention_factor`` multiplies cos
and sin, so attention logits are multiplied by its square. ``ROPE_INIT_FUNCTIONS`` maps every rope type to
one function of ``(dim, base, params, seq_len)``, as transformers does; the slider mode of the page
(``scaled_inv_freq``) and the config reader (``posviz.scaling.config``) both dispatch through it.
Everything is per pair (d/2 numbers), so any context length costs the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from posviz._validate import check_array, check_bool, check_choice, check_float, check_int
from posviz.rotary import MAX_DIM, inv_freq

MAX_FACTOR = 1e6          # scale factors s above this are not a context extension any more
MAX_LENGTH = 10**9        # positions / context lengths
MAX_BASE = 1e12
MAX_POINTS = 100_000      # distances / lengths per call
RAMPS = ("code", "paper")


# --------------------------------------------------------------------------------------------------
# Shared pieces


def get_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's attention-temperature factor ``0.1·mscale·ln(s) + 1`` (1 for s <= 1). YaRN Eq. 22; DeepSeek."""
    scale = check_float("scale", scale, 0.0, MAX_FACTOR, lo_open=True)
    mscale = check_float("mscale", mscale, -1e3, 1e3)
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def pair_index(dim: int) -> np.ndarray:
    """Pair indices ``i = 0 .. dim/2 - 1`` as float64, shape (dim/2,)."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    return np.arange(dim // 2, dtype=np.float64)


def rotations(dim: int, base: float, original_max_position_embeddings: int) -> np.ndarray:
    """``r_i = L/lambda_i = L·theta_i/(2π)``: full turns pair i makes inside the original context L (YaRN Eq. 17)."""
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    return L * inv_freq(dim, base) / (2 * np.pi)


def yarn_correction_dim(num_rotations: float, dim: int, base: float, original_max_position_embeddings: int) -> float:
    """Pair index whose rotation count in L is ``num_rotations``: ``d·ln(L/(2π·ρ)) / (2 ln b)`` (YaRN Eq. 17-18,
    transformers' ``find_correction_dim``). Needs ρ > 0 and b > 1; negative results mean "before pair 0"."""
    num_rotations = check_float("num_rotations", num_rotations, 0.0, 1e6, lo_open=True)
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, MAX_BASE, lo_open=True)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    return dim * math.log(L / (num_rotations * 2 * math.pi)) / (2 * math.log(base))


def yarn_correction_range(dim: int, base: float, original_max_position_embeddings: int, beta_fast: float = 32.0,
                          beta_slow: float = 1.0, truncate: bool = True) -> tuple[float, float]:
    """YaRN's ramp ends ``(low, high)`` in pair-index units, as the code computes them.

    ``low = max(floor(D(beta_fast)), 0)``, ``high = min(ceil(D(beta_slow)), dim - 1)``, floor/ceil on the whole
    quotient and only when ``truncate`` (docs/FORMULAS.md §5.4; note the clamp is ``dim - 1``, not ``dim/2 - 1``).
    """
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, MAX_BASE, lo_open=True)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    beta_fast = check_float("beta_fast", beta_fast, 0.0, 1e6, lo_open=True)
    beta_slow = check_float("beta_slow", beta_slow, 0.0, 1e6, lo_open=True)
    truncate = check_bool("truncate", truncate)
    low = yarn_correction_dim(beta_fast, dim, base, L)
    high = yarn_correction_dim(beta_slow, dim, base, L)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return float(max(low, 0)), float(min(high, dim - 1))


def yarn_extrapolation_weight(dim: int, base: float, original_max_position_embeddings: int,
                              beta_fast: float = 32.0, beta_slow: float = 1.0, truncate: bool = True,
                              ramp: str = "code") -> np.ndarray:
    """Per-pair weight ``w_i`` kept on the original frequency (1 = untouched, 0 = fully interpolated), (dim/2,).

    "code" (jquesnelle/yarn, transformers): ``w_i = 1 - clamp((i - low)/(high - low), 0, 1)``, linear in the
    pair index (``high += 0.001`` if ``low == high``). "paper" (YaRN Eq. 18): ``gamma(r_i)``, linear in
    ``r_i = L/lambda_i`` between ``alpha = beta_slow`` and ``beta = beta_fast``.
    """
    ramp = check_choice("ramp", ramp, RAMPS)
    truncate = check_bool("truncate", truncate)
    if ramp == "paper":
        beta_fast = check_float("beta_fast", beta_fast, 0.0, 1e6, lo_open=True)
        beta_slow = check_float("beta_slow", beta_slow, 0.0, 1e6, lo_open=True)
        if beta_fast <= beta_slow:
            raise ValueError(f"beta_fast must be greater than beta_slow for the paper ramp; got beta_fast "
                             f"{beta_fast:g} <= beta_slow {beta_slow:g}")
        r = rotations(dim, base, original_max_position_embeddings)
        return np.clip((r - beta_slow) / (beta_fast - beta_slow), 0.0, 1.0)
    low, high = yarn_correction_range(dim, base, original_max_position_embeddings, beta_fast, beta_slow, truncate)
    if low == high:
        high += 0.001  # transformers' guard against 0/0
    ramp_i = np.clip((pair_index(dim) - low) / (high - low), 0.0, 1.0)
    return 1.0 - ramp_i


# --------------------------------------------------------------------------------------------------
# The methods (plain numbers in, (inv_freq (dim/2,), attention_factor) out)


def _factor(factor: float, name: str = "factor") -> float:
    return check_float(name, factor, 1.0, MAX_FACTOR)


def default_inv_freq(dim: int, base: float = 10000.0) -> tuple[np.ndarray, float]:
    """Plain RoPE: ``theta_i = base**(-2i/dim)``, attention factor 1."""
    return inv_freq(dim, base), 1.0


def linear_inv_freq(dim: int, base: float, factor: float) -> tuple[np.ndarray, float]:
    """Position Interpolation ("linear"): ``theta'_i = theta_i / s`` for every pair (PI; docs/FORMULAS.md §5.1)."""
    factor = _factor(factor)
    return inv_freq(dim, base) / factor, 1.0


def ntk_base(dim: int, base: float, factor: float) -> float:
    """NTK-aware base change ``b' = b·alpha**(dim/(dim-2))`` (bloc97; YaRN Eq. 16). Needs dim >= 4."""
    dim = check_int("dim", dim, 4, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, MAX_BASE, lo_open=True)
    factor = _factor(factor)
    return base * factor ** (dim / (dim - 2))


def _rebased(dim: int, base: float, alpha: float) -> np.ndarray:
    """``(b·alpha**(d/(d-2)))**(-2i/d) = theta_i · alpha**(-2i/(d-2))``, computed from posviz.rope.inv_freq."""
    i = pair_index(dim)
    return inv_freq(dim, base) * alpha ** (-2.0 * i / (dim - 2))


def ntk_inv_freq(dim: int, base: float, factor: float) -> tuple[np.ndarray, float]:
    """Static NTK-aware scaling: RoPE with base ``b·s**(d/(d-2))``; pair 0 untouched, the last divided by s."""
    ntk_base(dim, base, factor)  # validates (dim >= 4: d = 2 divides by zero)
    return _rebased(dim, base, float(factor)), 1.0


def dynamic_alpha(factor: float, max_position_embeddings: int, seq_len: int | None = None) -> float:
    """Dynamic NTK's effective alpha: ``s·l/L_max - (s - 1)`` with ``l = max(seq_len, L_max)`` (transformers)."""
    factor = _factor(factor)
    L = check_int("max_position_embeddings", max_position_embeddings, 1, MAX_LENGTH)
    length = L if seq_len is None else max(check_int("seq_len", seq_len, 1, MAX_LENGTH), L)
    return factor * length / L - (factor - 1)


def dynamic_base(dim: int, base: float, factor: float, max_position_embeddings: int,
                 seq_len: int | None = None) -> float:
    """Dynamic NTK's effective base at the current length: ``b·alpha_eff**(d/(d-2))``."""
    dim = check_int("dim", dim, 4, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, MAX_BASE, lo_open=True)
    return base * dynamic_alpha(factor, max_position_embeddings, seq_len) ** (dim / (dim - 2))


def dynamic_inv_freq(dim: int, base: float, factor: float, max_position_embeddings: int,
                     seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """Dynamic NTK (transformers "dynamic"): NTK-aware with alpha growing with the sequence (docs/FORMULAS.md §5.3)."""
    dim = check_int("dim", dim, 4, MAX_DIM, even=True)
    alpha = dynamic_alpha(factor, max_position_embeddings, seq_len)
    return _rebased(dim, base, alpha), 1.0


def yarn_attention_factor(factor: float, mscale: float | None = None, mscale_all_dim: float | None = None,
                          attention_factor: float | None = None) -> float:
    """YaRN's cos/sin factor A: given ``attention_factor`` as is; else ``get_mscale(s, mscale) /
    get_mscale(s, mscale_all_dim)`` when both are non-zero (DeepSeek); else ``0.1 ln s + 1``.

    Both ``0.1·m·ln s + 1`` terms must be positive: a zero denominator (e.g. s = e⁵, mscale_all_dim = -2)
    leaves A undefined and a negative one flips the sign of cos and sin; either raises ValueError."""
    factor = _factor(factor)
    if attention_factor is not None:
        return check_float("attention_factor", attention_factor, 0.0, 1e3, lo_open=True)
    if mscale is not None:
        mscale = check_float("mscale", mscale, -1e3, 1e3)
    if mscale_all_dim is not None:
        mscale_all_dim = check_float("mscale_all_dim", mscale_all_dim, -1e3, 1e3)
    if mscale and mscale_all_dim:
        num = _positive_mscale("mscale", factor, mscale)
        return num / _positive_mscale("mscale_all_dim", factor, mscale_all_dim)
    return get_mscale(factor)


def _positive_mscale(name: str, factor: float, value: float) -> float:
    out = get_mscale(factor, value)
    if not out > 0:
        raise ValueError(f"{name} = {value:g} with factor {factor:g} gives 0.1·{name}·ln(factor) + 1 = {out:.3g}; it "
                         f"must be positive (so {name} > {-10 / math.log(factor):.6g} at this factor)")
    return out


def deepseek_softmax_multiplier(factor: float, mscale_all_dim: float | None) -> float:
    """DeepSeek-V2/V3 multiply the softmax scale by ``get_mscale(s, mscale_all_dim)**2`` (1 if unset)."""
    factor = _factor(factor)
    if mscale_all_dim is None:
        return 1.0
    mscale_all_dim = check_float("mscale_all_dim", mscale_all_dim, -1e3, 1e3)
    return get_mscale(factor, mscale_all_dim) ** 2 if mscale_all_dim else 1.0


def yarn_inv_freq(dim: int, base: float, factor: float, original_max_position_embeddings: int,
                  beta_fast: float = 32.0, beta_slow: float = 1.0, mscale: float | None = None,
                  mscale_all_dim: float | None = None, attention_factor: float | None = None,
                  truncate: bool = True, ramp: str = "code") -> tuple[np.ndarray, float]:
    """YaRN (NTK-by-parts + temperature): ``theta'_i = w_i·theta_i + (1 - w_i)·theta_i/s`` (docs/FORMULAS.md §5.4).

    ``w_i`` is ``yarn_extrapolation_weight`` (the code ramp by default; ``ramp="paper"`` for YaRN Eq. 18).
    The plain numbers are used as given: the ``beta_fast or 32`` quirk lives in the config reader.
    """
    factor = _factor(factor)
    w = yarn_extrapolation_weight(dim, base, original_max_position_embeddings, beta_fast, beta_slow,
                                  check_bool("truncate", truncate), ramp)
    theta = inv_freq(dim, base)
    A = yarn_attention_factor(factor, mscale, mscale_all_dim, attention_factor)
    return theta * w + theta / factor * (1.0 - w), A


def llama3_inv_freq(dim: int, base: float, factor: float, original_max_position_embeddings: int,
                    low_freq_factor: float = 1.0, high_freq_factor: float = 4.0) -> tuple[np.ndarray, float]:
    """Llama 3.1 scaling: wavelengths < L/high_freq_factor untouched, > L/low_freq_factor divided by s, and
    a blend linear in ``r = L/lambda`` between (docs/FORMULAS.md §5.5). Attention factor 1: no temperature.
    ``low_freq_factor == high_freq_factor`` (Llama 4 Scout: both 1) leaves no blend band."""
    factor = _factor(factor)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    low = check_float("low_freq_factor", low_freq_factor, 0.0, 1e6, lo_open=True)
    high = check_float("high_freq_factor", high_freq_factor, 0.0, 1e6, lo_open=True)
    if high < low:
        raise ValueError(f"high_freq_factor must be at least low_freq_factor; got high_freq_factor "
                         f"{high:g} < low_freq_factor {low:g}")
    theta = inv_freq(dim, base)
    wavelen = 2 * np.pi / theta
    keep = wavelen < L / high
    divide = wavelen > L / low
    if high == low:  # Llama 4: no blend band; a wavelength exactly L/low is left untouched
        return np.where(divide, theta / factor, theta), 1.0
    smooth = np.clip((L / wavelen - low) / (high - low), 0.0, 1.0)   # 0 below the band, 1 above
    scaled = (1 - smooth) * theta / factor + smooth * theta
    return np.where(keep, theta, np.where(divide, theta / factor, scaled)), 1.0


def longrope_attention_factor(factor: float, original_max_position_embeddings: int) -> float:
    """LongRoPE's cos/sin factor ``sqrt(1 + ln s / ln L)`` (1 for s <= 1)."""
    factor = check_float("factor", factor, 0.0, MAX_FACTOR, lo_open=True)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 2, MAX_LENGTH)
    return 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(L))


def longrope_inv_freq(dim: int, base: float, short_factor: tuple[float, ...] | list[float],
                      long_factor: tuple[float, ...] | list[float], original_max_position_embeddings: int,
                      factor: float | None = None, max_position_embeddings: int | None = None,
                      attention_factor: float | None = None,
                      seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """LongRoPE: ``theta'_i = theta_i / lambda_i`` with per-pair lists, ``long_factor`` once ``seq_len > L``
    (else ``short_factor``); ``s = factor`` or ``max_position_embeddings / L`` (docs/FORMULAS.md §5.6)."""
    theta = inv_freq(dim, base)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 2, MAX_LENGTH)
    if factor is None:
        if max_position_embeddings is None:
            raise ValueError("factor is missing and max_position_embeddings is not given to infer it")
        mpe = check_int("max_position_embeddings", max_position_embeddings, 1, MAX_LENGTH)
        factor = mpe / L
    factor = check_float("factor", factor, 0.0, MAX_FACTOR, lo_open=True)
    if attention_factor is None:
        A = longrope_attention_factor(factor, L)
    else:
        A = check_float("attention_factor", attention_factor, 0.0, 1e3)
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len, 1, MAX_LENGTH)
    use_long = seq_len is not None and seq_len > L
    name = "long_factor" if use_long else "short_factor"
    ext = _factor_list(name, long_factor if use_long else short_factor, theta.size)
    _factor_list("long_factor" if not use_long else "short_factor",
                 short_factor if use_long else long_factor, theta.size)
    return theta / ext, A


def _factor_list(name: str, values: object, n: int) -> np.ndarray:
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, np.ndarray)):
        raise ValueError(f"{name} must be a list of {n} positive numbers; got {type(values).__name__}")
    if len(values) != n:
        raise ValueError(f"{name} must have dim/2 = {n} entries; got {len(values)}")
    out = np.empty(n, dtype=np.float64)
    for k, v in enumerate(values):
        out[k] = check_float(f"{name}[{k}]", v, 0.0, 1e9, lo_open=True)
    return out


# --------------------------------------------------------------------------------------------------
# One function per rope type, as transformers' ROPE_INIT_FUNCTIONS: (dim, base, params, seq_len) -> (theta', A)

RopeInit = Callable[[int, float, Mapping[str, object], "int | None"], "tuple[np.ndarray, float]"]


def _default_init(dim: int, base: float, p: Mapping[str, object], seq_len: int | None) -> tuple[np.ndarray, float]:
    return default_inv_freq(dim, base)


def _linear_init(dim: int, base: float, p: Mapping[str, object], seq_len: int | None) -> tuple[np.ndarray, float]:
    return linear_inv_freq(dim, base, p["factor"])


def _ntk_init(dim: int, base: float, p: Mapping[str, object], seq_len: int | None) -> tuple[np.ndarray, float]:
    return ntk_inv_freq(dim, base, p["factor"])


def _dynamic_init(dim: int, base: float, p: Mapping[str, object], seq_len: int | None) -> tuple[np.ndarray, float]:
    return dynamic_inv_freq(dim, base, p["factor"], p["max_position_embeddings"], seq_len)


def _yarn_init(dim: int, base: float, p: Mapping[str, object], seq_len: int | None) -> tuple[np.ndarray, float]:
    return yarn_inv_freq(dim, base, p["factor"], p["original_max_position_embeddings"], p.get("beta_fast", 32.0),
                         p.get("beta_slow", 1.0), p.get("mscale"), p.get("mscale_all_dim"),
                         p.get("attention_factor"), p.get("truncate", True), p.get("ramp", "code"))


def _llama3_init(dim: int, base: float, p: Mapping[str, object], seq_len: int | None) -> tuple[np.ndarray, float]:
    return llama3_inv_freq(dim, base, p["factor"], p["original_max_position_embeddings"],
                           p.get("low_freq_factor", 1.0), p.get("high_freq_factor", 4.0))


def _longrope_init(dim: int, base: float, p: Mapping[str, object], seq_len: int | None) -> tuple[np.ndarray, float]:
    return longrope_inv_freq(dim, base, p["short_factor"], p["long_factor"], p["original_max_position_embeddings"],
                             p.get("factor"), p.get("max_position_embeddings"), p.get("attention_factor"), seq_len)


ROPE_INIT_FUNCTIONS: dict[str, RopeInit] = {
    "default": _default_init,
    "linear": _linear_init,
    "ntk": _ntk_init,
    "dynamic": _dynamic_init,
    "yarn": _yarn_init,
    "llama3": _llama3_init,
    "longrope": _longrope_init,
}


# --------------------------------------------------------------------------------------------------
# The methods the page's sliders drive (one set of plain numbers for every method), with their labels


@dataclass(frozen=True)
class Method:
    key: str
    label: str
    summary: str


METHODS: dict[str, Method] = {
    "default": Method("default", "RoPE (no scaling)", "theta_i unchanged"),
    "linear": Method("linear", "PI / linear", "every pair divided by s"),
    "ntk": Method("ntk", "NTK-aware (static)", "base b·s^(d/(d-2))"),
    "dynamic": Method("dynamic", "Dynamic NTK", "NTK-aware with alpha from the current length (here L')"),
    "yarn": Method("yarn", "YaRN", "ramp between untouched and /s, plus temperature"),
    "llama3": Method("llama3", "Llama 3", "three bands by wavelength, no temperature"),
}


def scaled_inv_freq(method: str, dim: int, base: float, factor: float, original_max_position_embeddings: int, *,
                    beta_fast: float = 32.0, beta_slow: float = 1.0, low_freq_factor: float = 1.0,
                    high_freq_factor: float = 4.0, mscale: float | None = None,
                    mscale_all_dim: float | None = None, truncate: bool = True, ramp: str = "code",
                    seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """``(inv_freq', attention_factor)`` of a registered method with one shared set of parameters.

    Target length ``L' = s·L``. Dynamic NTK uses ``max_position_embeddings = L`` and ``seq_len`` (default L').
    """
    method = check_choice("method", method, METHODS)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    factor = _factor(factor)
    params = {"factor": factor, "original_max_position_embeddings": L, "max_position_embeddings": L,
              "beta_fast": beta_fast, "beta_slow": beta_slow, "low_freq_factor": low_freq_factor,
              "high_freq_factor": high_freq_factor, "mscale": mscale, "mscale_all_dim": mscale_all_dim,
              "truncate": truncate, "ramp": ramp}
    target = seq_len if seq_len is not None else min(MAX_LENGTH, int(round(factor * L)))
    return ROPE_INIT_FUNCTIONS[method](dim, base, params, target)


def parse_methods(methods: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Method keys from ``"default,linear,yarn"`` or a sequence; unknown keys raise ValueError."""
    if not isinstance(methods, (str, list, tuple)):
        raise ValueError(f"methods must be a comma-separated string or a list of method names "
                         f"({', '.join(METHODS)}); got {type(methods).__name__}")
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    out = tuple(check_choice("methods", m, METHODS) for m in methods)
    if not out:
        raise ValueError("methods must name at least one of " + ", ".join(METHODS))
    return tuple(dict.fromkeys(out))


# --------------------------------------------------------------------------------------------------
# Dynamic NTK as transformers runs it: one inv_freq per forward call, with a cache


def dynamic_ntk_schedule(lengths: object, max_position_embeddings: int) -> np.ndarray:
    """The length transformers' dynamic NTK computes its frequencies for, at each of a sequence of calls.

    transformers 5.23 (``dynamic_rope_update``) keeps the longest length seen so far: a call of length l
    recomputes only if l exceeds the cached length (which starts at L = ``max_position_embeddings``), and
    goes back to the original frequencies only once l drops below L. So after 16k tokens a 6k call still
    uses the 16k base; a 3k call (< L = 4k) resets. ``lengths``: (n,) sequence lengths (max position id + 1);
    returns (n,) float64 effective lengths; ``dynamic_base(..., seq_len=effective)`` gives each call's base.
    """
    L = check_int("max_position_embeddings", max_position_embeddings, 1, MAX_LENGTH)
    ls = check_array("lengths", lengths, ndim=1, min_size=1, max_size=MAX_POINTS, lo=1, hi=MAX_LENGTH)
    if not np.all(ls == np.round(ls)):
        raise ValueError("lengths must hold whole numbers of tokens")
    cached, out = L, np.empty(ls.size)
    for k, n in enumerate(ls):
        before = cached
        if n > cached:  # growth: frequencies for this length, remembered
            cached = n
        if n < L and before > L:  # back inside the original context: the original frequencies
            cached = L
        out[k] = cached
    return out


def dynamic_ntk_bases(lengths: object, dim: int, base: float, factor: float,
                      max_position_embeddings: int) -> np.ndarray:
    """Effective base ``b·alpha**(d/(d-2))`` of each call in ``lengths`` as transformers runs dynamic NTK
    (``dynamic_ntk_schedule``), shape (n,). The "follows the length both ways" view is
    ``dynamic_base(..., seq_len=l)`` per length instead."""
    eff = dynamic_ntk_schedule(lengths, max_position_embeddings)
    dim = check_int("dim", dim, 4, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, MAX_BASE, lo_open=True)
    factor = _factor(factor)
    alpha = factor * eff / max_position_embeddings - (factor - 1)  # (n,), dynamic_alpha at each effective length
    return base * alpha ** (dim / (dim - 2))
