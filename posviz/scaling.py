"""RoPE context extension: every scaling method as a per-pair map ``theta_i -> theta'_i`` plus a cos/sin factor.

Each method takes the plain RoPE frequencies ``theta_i = base**(-2i/dim)`` (``posviz.rope.inv_freq``) and
returns ``(inv_freq', attention_factor)``, the same pair transformers' ``ROPE_INIT_FUNCTIONS`` return
(docs/FORMULAS.md §5): linear = Position Interpolation (Chen et al. 2023), static NTK-aware (bloc97),
dynamic NTK (emozilla), YaRN (Peng et al. 2023, code ramp of jquesnelle/yarn and transformers), Llama 3
(Meta ``apply_scaling``) and LongRoPE (Ding et al. 2024, Phi-3 style). ``attention_factor`` multiplies cos
and sin, so attention logits are multiplied by its square.

``inv_freq_from_config`` and ``describe_config`` read a Hugging Face ``config.json`` dict in either spelling
(transformers 5 ``rope_parameters`` with ``rope_theta`` inside, possibly one block per layer type, or
transformers 4 top-level ``rope_theta`` plus ``rope_scaling`` with ``type`` or ``rope_type``), nested under
``text_config`` or not, and resolve it the way transformers 5.23 does (including its quirks: ``beta_fast = 0``
silently means 32; a YaRN ``factor`` of null is inferred as ``max_position_embeddings /
original_max_position_embeddings`` while a missing ``factor`` key raises; a top-level
``original_max_position_embeddings`` wins), then dispatch to the per-method functions. Everything is per
pair (d/2 numbers), so any context length costs the same.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from posviz._validate import check_array, check_bool, check_cells, check_choice, check_float, check_int
from posviz.rope import MAX_DIM, inv_freq

MAX_FACTOR = 1e6          # scale factors s above this are not a context extension any more
MAX_LENGTH = 10**9        # positions / context lengths
MAX_BASE = 1e12
MAX_CONFIG_CHARS = 100_000  # a real config.json with 48-entry LongRoPE lists is < 10 kB
MAX_LAYERS = 10_000       # num_hidden_layers, layer_types and no_rope_layers (DeepSeek-V3 has 61 layers)
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
# A registry the page loops over (slider mode: one set of plain numbers for every method)


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
    if method == "default":
        return default_inv_freq(dim, base)
    if method == "linear":
        return linear_inv_freq(dim, base, factor)
    if method == "ntk":
        return ntk_inv_freq(dim, base, factor)
    if method == "dynamic":
        target = seq_len if seq_len is not None else min(MAX_LENGTH, int(round(factor * L)))
        return dynamic_inv_freq(dim, base, factor, L, target)
    if method == "yarn":
        return yarn_inv_freq(dim, base, factor, L, beta_fast, beta_slow, mscale, mscale_all_dim, None,
                             truncate, ramp)
    return llama3_inv_freq(dim, base, factor, L, low_freq_factor, high_freq_factor)


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


def _float_array(name: str, values: object, *, lo: float, hi: float, max_len: int, lo_open: bool = False) -> np.ndarray:
    """A finite 1-D float64 array of 1 to ``max_len`` entries in range (``posviz._validate.check_array``)."""
    return check_array(name, values, ndim=1, min_size=1, max_size=max_len, lo=lo, hi=hi, lo_open=lo_open)


MAX_POINTS = 100_000  # distances / lengths per call
MAX_CELLS = 1 << 22   # points × pairs of one (points, d/2) float64 block (32 MB; ~100 MB peak with cos/sin)


# --------------------------------------------------------------------------------------------------
# Derived per-pair quantities for the page


def unseen_angles(dim: int, base: float, factor: float, original_max_position_embeddings: int,
                  theta_scaled: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Largest angle per pair in training ``L·theta_i`` vs at the target ``L'·theta'_i``, and the flags.

    A pair reaches angles never seen in training when it did not complete a full turn in L
    (``L·theta_i < 2π``) and the target range goes further (``L'·theta'_i > L·theta_i``). Returns
    ``(seen (dim/2,), target (dim/2,), flagged (dim/2,) bool)``.
    """
    factor = _factor(factor)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    theta = inv_freq(dim, base)
    theta_scaled = _float_array("theta_scaled", theta_scaled, lo=0.0, hi=1e6, max_len=MAX_DIM // 2, lo_open=True)
    if theta_scaled.shape != theta.shape:
        raise ValueError(f"theta_scaled must have shape ({theta.size},); got {theta_scaled.shape}")
    seen = L * theta
    target = factor * L * theta_scaled
    flagged = (seen < 2 * np.pi) & (target > seen * (1 + 1e-9))
    return seen, target, flagged


def rope_scores(theta: np.ndarray, distances: np.ndarray, qk: str = "ones", seed: int = 0) -> np.ndarray:
    """Attention score ``q·R_Δ k = Σ_i Re[h_i e^{jΔθ_i}]`` (j² = −1) against distance, divided by ``Σ_i |h_i|``
    (the largest score any rotation could give; it is the score at Δ = 0 when q = k = all ones).

    ``qk="ones"``: q = k = all ones (``h_i = 2``); ``"random"``: q, k seeded Gaussian with k = q/2 + noise.
    Computed per (distance, pair) in float64; shape (len(distances),).
    """
    qk = check_choice("qk", qk, ("ones", "random"))
    seed = check_int("seed", seed, 0, 2**31 - 1)
    theta = _float_array("theta", theta, lo=0.0, hi=1e6, max_len=MAX_DIM // 2)
    n = theta.size
    if qk == "ones":
        h = np.full(n, 2.0 + 0j)
    else:
        rng = np.random.default_rng(seed)
        q = rng.standard_normal((n, 2))
        k = 0.5 * q + math.sqrt(0.75) * rng.standard_normal((n, 2))
        h = (q[:, 0] + 1j * q[:, 1]) * np.conj(k[:, 0] + 1j * k[:, 1])  # (d/2,)
    dist = _float_array("distances", distances, lo=-MAX_LENGTH, hi=MAX_LENGTH, max_len=MAX_POINTS)
    check_cells("distances × theta", dist.size * n, MAX_CELLS, "angles")
    return _phase_sum(dist, theta, h) / np.abs(h).sum()


def _phase_sum(dist: np.ndarray, theta: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``Σ_i Re[h_i e^{j·dist·θ_i}]`` (j² = −1) for every distance, shape (n_dist,) (sums as matrix-vector products)."""
    angles = dist[:, None] * theta[None, :]  # (n_dist, d/2)
    return np.cos(angles) @ h.real - np.sin(angles) @ h.imag


def _phase_sum_uniform(step: float, m: int, theta: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``_phase_sum`` at the evenly spaced distances 0, step, .., (m-1)·step, shape (m,).

    Write j = a·B + b with B = ⌈√m⌉: ``e^{i·j·step·θ} = e^{i·a·B·step·θ} · e^{i·b·step·θ}``, so two
    tables of √m rows replace m·d/2 cos/sin evaluations (8× faster; error ~1e-12 relative)."""
    B = max(1, math.ceil(math.sqrt(m)))
    j = np.arange(B)
    fine = np.exp(1j * step * np.outer(j, theta))  # (B, d/2): e^{i b step θ}
    coarse = np.exp(1j * step * B * np.outer(j, theta))  # (B, d/2): e^{i a B step θ}
    powers = (coarse[:, None, :] * fine[None, :, :]).reshape(-1, theta.size)[:m]  # (m, d/2)
    return (powers @ h).real


def attention_entropy(theta: np.ndarray, lengths: np.ndarray, logit_multiplier: float = 1.0,
                      n_keys: int = 1024, seed: int = 0) -> np.ndarray:
    """Softmax entropy (nats) of one query over ``n`` keys at distances 0..n-1, for each n in ``lengths``.

    Logits ``multiplier · q·R_Δ k / sqrt(d)`` with seeded Gaussian q and k (k = q/2 + noise); multiplier
    ``A²`` is YaRN's temperature. Keys are sampled at ``n_keys`` evenly spaced distances and weighted by
    the spacing (a Riemann sum), so the cost is per sample, not per token. Shape (len(lengths),).
    """
    theta = _float_array("theta", theta, lo=0.0, hi=1e6, max_len=MAX_DIM // 2)
    lengths = _float_array("lengths", lengths, lo=1.0, hi=MAX_LENGTH, max_len=1000)
    mult = check_float("logit_multiplier", logit_multiplier, 0.0, 1e3)
    n_keys = check_int("n_keys", n_keys, 2, 8192)
    check_cells("n_keys × theta", n_keys * theta.size, MAX_CELLS // 4, "complex phases per length")
    check_cells("lengths × n_keys × theta", lengths.size * n_keys * theta.size, 1 << 22, "phase products")
    rng = np.random.default_rng(check_int("seed", seed, 0, 2**31 - 1))
    d = 2 * theta.size
    q = rng.standard_normal((theta.size, 2))
    k = 0.5 * q + math.sqrt(0.75) * rng.standard_normal((theta.size, 2))
    h = (q[:, 0] + 1j * q[:, 1]) * np.conj(k[:, 0] + 1j * k[:, 1])
    out = np.empty(len(lengths))
    for j, n in enumerate(lengths):
        m = int(min(n, n_keys))
        dist = np.linspace(0.0, n - 1, m)
        z = mult * _phase_sum_uniform(float(dist[1] - dist[0]) if m > 1 else 0.0, m, theta, h) / math.sqrt(d)
        w = n / m
        zmax = z.max()
        e = np.exp(z - zmax)
        Z = w * e.sum()
        out[j] = math.log(Z) + zmax - w * float((e * z).sum()) / Z
    return out


# --------------------------------------------------------------------------------------------------
# Reading a config.json


ROPE_TYPES = ("default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
_TYPE_ALIASES = {"su": "longrope", "mrope": "default"}


@dataclass(frozen=True)
class RopeConfig:
    """What a config.json says about RoPE, resolved the way transformers resolves it."""

    rope_type: str
    spelling: str                 # "rope_parameters" (transformers 5), "rope_scaling" (4) or "none"
    base: float
    head_dim: int
    head_dim_source: str
    partial_rotary_factor: float
    dim: int
    max_position_embeddings: int | None
    params: dict[str, object] = field(default_factory=dict)   # the scaling keys actually used
    notes: tuple[str, ...] = ()
    model_type: str | None = None   # the text model's type, which decides how a linear block's length is read

    def summary(self) -> dict[str, object]:
        """Flat, display-ready view: every value that enters the computation."""
        out: dict[str, object] = {"rope_type": self.rope_type, "read from": self.spelling,
                                  "rope_theta (base)": self.base, "head_dim": self.head_dim,
                                  "head_dim from": self.head_dim_source,
                                  "partial_rotary_factor": self.partial_rotary_factor,
                                  "rotary dim d": self.dim,
                                  "max_position_embeddings": self.max_position_embeddings}
        for k, v in self.params.items():
            if k == "mrope_section":  # three pair counts: shown whole, with the axes they go to
                order = "interleaved t, h, w" if self.params.get("mrope_interleaved") else "temporal, height, width"
                v = f"{list(v)} pairs ({order}), of {self.dim // 2}"
            elif isinstance(v, (list, tuple)):
                v = f"list of {len(v)} numbers, {min(v):.4g} .. {max(v):.4g}"
            out[k] = v
        return out


def _num(config: Mapping, key: str, where: str, lo: float, hi: float, *, default: object = None,
         integer: bool = False, lo_open: bool = False) -> object:
    if key not in config or config[key] is None:
        return default
    name = f"{where}{key}"
    if integer:
        return check_int(name, config[key], int(lo), int(hi))
    return check_float(name, config[key], lo, hi, lo_open=lo_open)


# Defaults transformers 5.23's config classes fill in when a published config.json omits a key (only the keys
# that change RoPE). Copied from the classes' field defaults; tests/test_scaling_math.py checks every entry
# against ``transformers.AutoConfig.for_model(model_type)``.
MODEL_DEFAULTS: dict[str, dict[str, object]] = {
    "gemma3_text": {"rope_theta": 1_000_000.0, "rope_local_base_freq": 10_000.0, "head_dim": 256,
                    "hidden_size": 2304, "num_attention_heads": 8, "num_hidden_layers": 26,
                    "max_position_embeddings": 131_072, "sliding_window_pattern": 6},
    "llama4_text": {"rope_theta": 500_000.0, "head_dim": 128, "hidden_size": 5120, "num_attention_heads": 40,
                    "num_hidden_layers": 48, "max_position_embeddings": 131_072, "no_rope_layer_interval": 4},
    "smollm3": {"rope_theta": 2_000_000.0, "hidden_size": 2048, "num_attention_heads": 16, "num_hidden_layers": 36,
                "max_position_embeddings": 32_768, "no_rope_layer_interval": 4},
    "qwen2_vl_text": {"rope_theta": 1_000_000.0, "hidden_size": 8192, "num_attention_heads": 64,
                      "num_hidden_layers": 80, "max_position_embeddings": 32_768},
    "qwen2_5_vl_text": {"rope_theta": 1_000_000.0, "hidden_size": 8192, "num_attention_heads": 64,
                        "num_hidden_layers": 80, "max_position_embeddings": 32_768},
    "qwen3_vl_text": {"rope_theta": 500_000.0, "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32,
                      "num_hidden_layers": 32, "max_position_embeddings": 128_000},
    "qwen3": {"rope_theta": 10_000.0, "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32,
              "num_hidden_layers": 32, "max_position_embeddings": 32_768},
    "deepseek_v3": {"rope_theta": 10_000.0, "qk_rope_head_dim": 64, "hidden_size": 7168, "num_attention_heads": 128,
                    "num_hidden_layers": 61, "max_position_embeddings": 4096},
}
# The text model a multimodal config.json nests under "text_config" (transformers' sub_configs).
TEXT_MODEL_TYPES = {"gemma3": "gemma3_text", "llama4": "llama4_text", "qwen2_vl": "qwen2_vl_text",
                    "qwen2_5_vl": "qwen2_5_vl_text", "qwen3_vl": "qwen3_vl_text"}
LAYER_TYPE_SUFFIX = "_attention"   # per-layer-type blocks are keyed "full_attention", "sliding_attention", ...


def _text_config(config: Mapping) -> tuple[dict, str | None, list[str]]:
    """The text model's config (``text_config`` when nested) with transformers' class defaults filled in."""
    notes: list[str] = []
    model_type = config.get("model_type")
    text = config.get("text_config")
    if text is not None:
        if not isinstance(text, Mapping):
            raise ValueError(f"text_config must be a JSON object; got {type(text).__name__}")
        inner = text.get("model_type")
        model_type = inner if isinstance(inner, str) else TEXT_MODEL_TYPES.get(str(model_type), model_type)
        notes.append("read the nested text_config block (transformers builds the text model from it)")
        config = text
    if model_type is not None and not isinstance(model_type, str):
        raise ValueError(f"model_type must be a string; got {type(model_type).__name__}")
    out = dict(config)
    for key, value in MODEL_DEFAULTS.get(model_type or "", {}).items():
        if key not in out:
            out[key] = value
            notes.append(f"{key} is not in the config: transformers' {model_type} default {value!r} is used")
    return out, model_type, notes


def _is_per_layer(block: Mapping) -> bool:
    """transformers 5 nests one RoPE block per layer type: every key ends in "_attention", every value is a
    block or null (a NoPE layer type)."""
    return bool(block) and all(isinstance(k, str) and k.endswith(LAYER_TYPE_SUFFIX) and
                               (v is None or isinstance(v, Mapping)) for k, v in block.items())


def rope_blocks(config: object) -> tuple[dict, str | None, dict[str, Mapping | None], str, list[str]]:
    """Split a config into its text config, model type, RoPE block per layer type, spelling and notes.

    A single block (transformers 4 ``rope_scaling`` or a flat ``rope_parameters``) is returned under the
    key "all"; transformers 5's per-layer-type ``rope_parameters`` ({"full_attention": {...},
    "sliding_attention": {...}}) as they are; Gemma 3's transformers-4 spelling (``rope_scaling`` for the
    global layers, ``rope_local_base_freq`` for the sliding ones) as the two blocks transformers builds.
    """
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a JSON object (a dict); got {type(config).__name__}")
    cfg, model_type, notes = _text_config(config)
    spelling, block = "none", None
    for key in ("rope_parameters", "rope_scaling"):
        if cfg.get(key) is not None:
            spelling, block = key, cfg[key]
            break
    if block is not None and not isinstance(block, Mapping):
        raise ValueError(f"{spelling} must be a JSON object; got {type(block).__name__}")
    if block is not None and _is_per_layer(block):
        return cfg, model_type, dict(block), spelling, notes
    if "rope_local_base_freq" in cfg or model_type == "gemma3_text":
        local = {"rope_type": "default", "rope_theta": cfg.get("rope_local_base_freq", 10_000.0)}
        notes.append("Gemma 3: global layers use rope_theta and the scaling block, sliding-window layers "
                     "rope_local_base_freq without scaling")
        return cfg, model_type, {"full_attention": dict(block or {}), "sliding_attention": local}, spelling, notes
    return cfg, model_type, {"all": dict(block or {})}, spelling, notes


def read_rope_config(config: object, layer_type: str | None = None) -> RopeConfig:
    """Resolve a Hugging Face config dict into a ``RopeConfig``; bad input raises ValueError naming the key.

    ``layer_type`` picks one block of a config with one RoPE block per layer type ("full_attention",
    "sliding_attention"); by default the full-attention block, with a note (``describe_config`` lists all).
    """
    if layer_type is not None and not isinstance(layer_type, str):
        raise ValueError(f"layer_type must be a string such as 'full_attention', or None; got "
                         f"{type(layer_type).__name__}")
    cfg, model_type, blocks, spelling, notes = rope_blocks(config)
    if layer_type is None:
        layer_type = next((k for k in ("all", "full_attention") if k in blocks), next(iter(blocks)))
        if len(blocks) > 1:
            notes.append(f"this config has one RoPE block per layer type ({', '.join(blocks)}); "
                         f"this view shows {layer_type}")
    elif layer_type not in blocks:
        raise ValueError(f"layer_type must be one of {', '.join(map(repr, blocks))} for this config; "
                         f"got {layer_type!r}"[:200])
    block = blocks[layer_type]
    if block is None:
        raise ValueError(f"{spelling}.{layer_type} is null: layers of type {layer_type!r} use no RoPE (NoPE)")
    where = f"{spelling}." if layer_type == "all" else f"{spelling}.{layer_type}."
    if spelling == "none":
        where = "" if layer_type == "all" else f"{layer_type}."
    return _resolve_block(cfg, block, spelling, where, notes, model_type)


def _resolve_block(config: Mapping, block: Mapping, spelling: str, where: str, notes: list[str],
                   model_type: str | None = None) -> RopeConfig:
    """One RoPE block of ``config`` resolved the way transformers 5.23 resolves it."""
    notes = list(notes)
    raw_type = block.get("rope_type", block.get("type", "default"))
    if not isinstance(raw_type, str):
        raise ValueError(f"{where}rope_type must be a string; got {type(raw_type).__name__}")
    rope_type = _TYPE_ALIASES.get(raw_type, raw_type)
    if raw_type in _TYPE_ALIASES:
        notes.append(f"type {raw_type!r} is read as {rope_type!r}")
    if rope_type not in ROPE_TYPES:
        raise ValueError(f"{where}rope_type must be one of {', '.join(map(repr, ROPE_TYPES))}; got {raw_type!r}")

    # base: inside rope_parameters (transformers 5), else top level (4), else GPT-NeoX's rotary_emb_base
    if "rope_theta" in block and block["rope_theta"] is not None:
        base = _num(block, "rope_theta", where, 1.0, MAX_BASE, lo_open=True)
    elif config.get("rope_theta") is not None:
        base = _num(config, "rope_theta", "", 1.0, MAX_BASE, lo_open=True)
    elif config.get("rotary_emb_base") is not None:
        base = _num(config, "rotary_emb_base", "", 1.0, MAX_BASE, lo_open=True)
    else:
        base = 10000.0
        notes.append("no rope_theta: transformers' default 10000 is used")

    prf = _num(block, "partial_rotary_factor", where, 0.0, 1.0, lo_open=True)
    if prf is None:
        prf = _num(config, "partial_rotary_factor", "", 0.0, 1.0, lo_open=True)
    if prf is None:
        prf = _num(config, "rotary_pct", "", 0.0, 1.0, lo_open=True)
    prf = 1.0 if prf is None else float(prf)

    if config.get("qk_rope_head_dim") is not None:
        head_dim = _num(config, "qk_rope_head_dim", "", 2, MAX_DIM, integer=True)
        source = "qk_rope_head_dim (DeepSeek's decoupled RoPE part)"
    elif config.get("head_dim"):
        head_dim = _num(config, "head_dim", "", 2, MAX_DIM, integer=True)
        source = "head_dim"
    else:
        if config.get("hidden_size") is None or config.get("num_attention_heads") is None:
            raise ValueError("config needs head_dim, or hidden_size and num_attention_heads, to know the "
                             "rotary dimension")
        hidden = _num(config, "hidden_size", "", 1, 10**7, integer=True)
        heads = _num(config, "num_attention_heads", "", 1, 10**5, integer=True)
        head_dim = hidden // heads
        source = "hidden_size // num_attention_heads"
        if head_dim < 2:
            raise ValueError(f"hidden_size // num_attention_heads must be at least 2; got {head_dim}")
    dim = int(head_dim * prf)
    if dim < 2 or dim % 2:
        raise ValueError(f"the rotary dimension int(head_dim·partial_rotary_factor) = int({head_dim}·{prf:g}) = "
                         f"{dim} must be even and at least 2")
    mpe = _num(config, "max_position_embeddings", "", 1, MAX_LENGTH, integer=True)

    params: dict[str, object] = {}
    if rope_type == "yarn" and "factor" not in block:
        raise ValueError(f"{where}factor is required for rope_type 'yarn': transformers 5.23 raises KeyError for "
                         "a missing key (only an explicit null is inferred, as max_position_embeddings / "
                         "original_max_position_embeddings)")
    if rope_type != "default":
        factor = _num(block, "factor", where, 1.0, MAX_FACTOR)
        if rope_type in ("linear", "ntk", "dynamic", "llama3") and factor is None:
            raise ValueError(f"{where}factor is required for rope_type {rope_type!r}")
        params["factor"] = factor
    if rope_type == "dynamic" and mpe is None:
        raise ValueError("max_position_embeddings is required for rope_type 'dynamic'")
    if rope_type in ("yarn", "llama3", "longrope"):
        if config.get("original_max_position_embeddings") is not None:
            omp = _num(config, "original_max_position_embeddings", "", 1, MAX_LENGTH, integer=True)
            if block.get("original_max_position_embeddings") not in (None, omp):
                notes.append("top-level original_max_position_embeddings wins over the block's (transformers)")
        elif block.get("original_max_position_embeddings") is not None:
            omp = _num(block, "original_max_position_embeddings", where, 1, MAX_LENGTH, integer=True)
        elif mpe is not None:
            omp = mpe
            notes.append("no original_max_position_embeddings: max_position_embeddings is used")
        else:
            raise ValueError(f"{where}original_max_position_embeddings is required for rope_type {rope_type!r}")
        params["original_max_position_embeddings"] = omp
        if params.get("factor") is None and rope_type in ("yarn", "longrope"):
            if mpe is None:
                raise ValueError(f"{where}factor is missing and max_position_embeddings is not there to infer it")
            params["factor"] = mpe / omp
            notes.append(f"factor is null: inferred as max_position_embeddings / original = {mpe / omp:g} "
                         "(transformers)")
            if params["factor"] < 1 and rope_type == "yarn":
                raise ValueError(f"{where}factor inferred as {params['factor']:g} < 1")
    if rope_type == "yarn":
        for key, fallback in (("beta_fast", 32.0), ("beta_slow", 1.0)):
            value = _num(block, key, where, 0.0, 1e6)
            if not value:
                if value == 0:
                    notes.append(f"{key} = 0 is read as {fallback:g} (transformers' `or {fallback:g}`)")
                value = fallback
            params[key] = value
        for key in ("mscale", "mscale_all_dim"):
            params[key] = _num(block, key, where, -1e3, 1e3)
        if bool(params["mscale"]) != bool(params["mscale_all_dim"]):
            notes.append("only one of mscale / mscale_all_dim is set: transformers ignores it (A = 0.1 ln s + 1)")
        params["attention_factor"] = _num(block, "attention_factor", where, 0.0, 1e3)
        trunc = block.get("truncate", True)
        if not isinstance(trunc, bool):
            raise ValueError(f"{where}truncate must be true or false; got {trunc!r}"[:120])
        params["truncate"] = trunc
        notes.append("YaRN ramp ends " + ("rounded with floor/ceil (truncate true, the default)" if trunc else
                                          "kept fractional (truncate false, as gpt-oss ships)"))
        yarn_attention_factor(params["factor"], params["mscale"], params["mscale_all_dim"],
                              params["attention_factor"])  # raises ValueError for an undefined A
    if rope_type == "llama3":
        for key in ("low_freq_factor", "high_freq_factor"):
            if block.get(key) is None:
                raise ValueError(f"{where}{key} is required for rope_type 'llama3'")
            params[key] = _num(block, key, where, 0.0, 1e6, lo_open=True)
        if params["high_freq_factor"] < params["low_freq_factor"]:
            raise ValueError(f"{where}high_freq_factor must be at least low_freq_factor; got "
                             f"{params['high_freq_factor']:g} < {params['low_freq_factor']:g}")
        if params["high_freq_factor"] == params["low_freq_factor"]:
            notes.append("low_freq_factor == high_freq_factor: no blend band, every pair is either kept or "
                         "divided by factor (Llama 4; transformers accepts it)")
    if rope_type == "longrope":
        for key in ("short_factor", "long_factor"):
            if block.get(key) is None:
                raise ValueError(f"{where}{key} is required for rope_type 'longrope'")
            params[key] = [float(x) for x in _factor_list(f"{where}{key}", block[key], dim // 2)]
        params["attention_factor"] = _num(block, "attention_factor", where, 0.0, 1e3)
    if block.get("mrope_section") is not None:
        params["mrope_section"] = _mrope_section(block["mrope_section"], dim, where)
        interleaved = block.get("mrope_interleaved", False)
        if not isinstance(interleaved, bool):
            raise ValueError(f"{where}mrope_interleaved must be true or false; got {interleaved!r}"[:120])
        params["mrope_interleaved"] = interleaved
    return RopeConfig(rope_type, spelling, float(base), int(head_dim), source, prf, dim, mpe, params, tuple(notes),
                      model_type)


def _mrope_section(values: object, dim: int, where: str) -> tuple[int, ...]:
    """M-RoPE's pair counts per axis (temporal, height, width); they must add up to dim/2 (transformers splits
    the dim/2 frequencies with them)."""
    if not isinstance(values, (list, tuple)) or not 1 <= len(values) <= 3:
        raise ValueError(f"{where}mrope_section must be a list of 1 to 3 pair counts; got {values!r}"[:160])
    sec = tuple(check_int(f"{where}mrope_section[{k}]", v, 0, MAX_DIM) for k, v in enumerate(values))
    if sum(sec) != dim // 2:
        raise ValueError(f"{where}mrope_section must add up to dim/2 = {dim // 2} pairs; got {list(sec)} "
                         f"(sum {sum(sec)})")
    return sec


def inv_freq_from_config(config: dict, seq_len: int | None = None,
                         layer_type: str | None = None) -> tuple[np.ndarray, float]:
    """``(inv_freq (d/2,), attention_factor)`` for a Hugging Face config.json dict, as transformers computes it.

    Same numbers as ``transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS[rope_type](config, seq_len=...)``
    (and the per-model default for "default"), plus "ntk" (static NTK-aware, base·s^(d/(d-2))). ``seq_len``
    matters for "dynamic" (current length) and "longrope" (long factors once > original length).
    The rotary dim is ``int(head_dim · partial_rotary_factor)`` for every type, as in GPT-NeoX/Phi (Llama's
    own default ignores ``partial_rotary_factor``); DeepSeek's ``qk_rope_head_dim`` takes precedence.
    ``layer_type`` picks one block of a per-layer-type config (see ``read_rope_config``).
    """
    return inv_freq_from_rope_config(read_rope_config(config, layer_type), seq_len)


def inv_freq_from_rope_config(rc: RopeConfig, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """``(inv_freq (d/2,), attention_factor)`` of an already resolved ``RopeConfig`` (one RoPE block)."""
    if not isinstance(rc, RopeConfig):
        raise ValueError(f"rc must be the RopeConfig returned by read_rope_config; got {type(rc).__name__}")
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len, 1, MAX_LENGTH)
    p = rc.params
    if rc.rope_type == "default":
        return default_inv_freq(rc.dim, rc.base)
    if rc.rope_type == "linear":
        return linear_inv_freq(rc.dim, rc.base, p["factor"])
    if rc.rope_type == "ntk":
        return ntk_inv_freq(rc.dim, rc.base, p["factor"])
    if rc.rope_type == "dynamic":
        return dynamic_inv_freq(rc.dim, rc.base, p["factor"], rc.max_position_embeddings, seq_len)
    if rc.rope_type == "yarn":
        return yarn_inv_freq(rc.dim, rc.base, p["factor"], p["original_max_position_embeddings"], p["beta_fast"],
                             p["beta_slow"], p["mscale"], p["mscale_all_dim"], p["attention_factor"], p["truncate"])
    if rc.rope_type == "llama3":
        return llama3_inv_freq(rc.dim, rc.base, p["factor"], p["original_max_position_embeddings"],
                               p["low_freq_factor"], p["high_freq_factor"])
    return longrope_inv_freq(rc.dim, rc.base, p["short_factor"], p["long_factor"],
                             p["original_max_position_embeddings"], p["factor"], rc.max_position_embeddings,
                             p["attention_factor"], seq_len)


def config_temperature(config: dict, layer_type: str | None = None) -> dict[str, float]:
    """What a config does to attention logits: the cos/sin factor A, its square, and for DeepSeek-style YaRN
    (``mscale_all_dim`` set) the extra softmax-scale multiplier and the total logit multiplier."""
    rc = read_rope_config(config, layer_type)
    _, A = inv_freq_from_rope_config(rc)
    out = {"cos/sin × A": A, "logits × A²": A * A}
    if rc.rope_type == "yarn" and rc.params.get("mscale_all_dim"):
        ds = deepseek_softmax_multiplier(float(rc.params["factor"]), float(rc.params["mscale_all_dim"]))
        out["softmax scale × (DeepSeek)"] = ds
        out["logits × in total"] = A * A * ds
    return out


def config_target_length(rc: RopeConfig) -> int:
    """The context a config is meant for, ``L' = factor·L`` with L the original (training) length, read as
    transformers 5.23 reads the lengths: for YaRN, Llama 3 and LongRoPE, L is ``original_max_position_embeddings``
    and the model's own ``max_position_embeddings`` wins when it states a longer length (Llama 3.2 1B: 131,072),
    else ``factor·L`` (a block added to a config whose length is still the original, as Qwen's model cards do);
    dynamic NTK scales from L = ``max_position_embeddings`` on (``_compute_dynamic_ntk_parameters``), so its
    target is ``factor·max_position_embeddings``, as is a linear or NTK block's, which reads no length at all
    (except for model types that state their scaled length there, SCALED_LENGTH_MODEL_TYPES); without a factor,
    ``max_position_embeddings`` (4096 when the config gives no length). ``config_target_source`` says which rule
    applied, ``config_original_length`` the L it used."""
    return _lengths(rc)[1]


def config_target_source(rc: RopeConfig) -> str:
    """Which rule ``config_target_length`` used, in words, for the page to print beside the number."""
    return _lengths(rc)[2]


def config_original_length(rc: RopeConfig) -> int | None:
    """The original (training) length L that ``config_target_length`` scales, or None when the config does not
    state it (Gemma 3 gives only its scaled length; a config with no length at all)."""
    return _lengths(rc)[0]


# Model types whose max_position_embeddings already is the length their linear (PI) block reaches: Gemma 3 was
# pretrained on 32K tokens and extended to 128K with factor 8 (Gemma 3 technical report, 2025), and states 131,072.
SCALED_LENGTH_MODEL_TYPES = frozenset({"gemma3_text"})
LENGTH_FREE_TYPES = ("linear", "ntk", "dynamic")  # scaling types whose block names no original length


def _lengths(rc: RopeConfig) -> tuple[int | None, int, str]:
    """(original length L or None, target length, the rule in words) for ``config_target_length``."""
    if not isinstance(rc, RopeConfig):
        raise ValueError(f"rc must be the RopeConfig returned by read_rope_config; got {type(rc).__name__}")
    mpe = rc.max_position_embeddings
    L = rc.params.get("original_max_position_embeddings")
    factor = rc.params.get("factor")
    if factor and mpe is not None and rc.rope_type in LENGTH_FREE_TYPES:
        if rc.rope_type != "dynamic" and rc.model_type in SCALED_LENGTH_MODEL_TYPES:
            return None, int(mpe), f"max_position_embeddings ({rc.model_type} states its scaled length there)"
        why = ("transformers' dynamic NTK scales from max_position_embeddings on" if rc.rope_type == "dynamic"
               else f"a {rc.rope_type} block names no length: it scales the one the config states")
        return int(mpe), int(min(MAX_LENGTH, round(float(factor) * int(mpe)))), \
            f"factor × max_position_embeddings ({why})"
    if mpe is not None and (not factor or L is None or mpe > L):
        return int(L if L is not None else mpe), int(mpe), "max_position_embeddings"
    if factor and L is not None:
        return int(L), int(min(MAX_LENGTH, round(float(factor) * int(L)))), \
            "factor × original_max_position_embeddings"
    if L is not None:
        return int(L), int(L), "original_max_position_embeddings"
    return None, 4096, "no length in the config: 4096 assumed"


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


# --------------------------------------------------------------------------------------------------
# Everything a config says about positions, for the config box


@dataclass(frozen=True)
class RopeBlock:
    """One RoPE block of a config and the layers that use it."""

    layer_type: str                 # "all", or transformers' layer type ("full_attention", "sliding_attention")
    rope: RopeConfig
    inv_freq: np.ndarray            # (d/2,) at the target length
    attention_factor: float
    layers: tuple[int, ...]         # 0-based indices of the layers of this type (all RoPE layers for "all")


@dataclass(frozen=True)
class ConfigReport:
    """What ``describe_config`` reads from a config.json: every RoPE block, NoPE layers, M-RoPE, the target."""

    model_type: str | None
    num_hidden_layers: int | None
    blocks: tuple[RopeBlock, ...]
    nope_layers: tuple[int, ...]     # layers that apply no RoPE at all
    target_length: int
    target_source: str
    mrope_section: tuple[int, ...] | None
    mrope_axis: np.ndarray | None    # (d/2,) 0 = temporal, 1 = height, 2 = width: the position id each pair turns with
    notes: tuple[str, ...]
    original_length: int | None = None  # the original (training) length L the target scales, when the config says

    def mrope_ranges(self) -> list[tuple[str, int, int]]:
        """M-RoPE as (axis, first pair, last pair) runs, e.g. [("temporal", 0, 15), ("height", 16, 39), ...]."""
        if self.mrope_axis is None:
            return []
        names, runs, start = ("temporal", "height", "width"), [], 0
        for k in range(1, self.mrope_axis.size + 1):
            if k == self.mrope_axis.size or self.mrope_axis[k] != self.mrope_axis[start]:
                runs.append((names[int(self.mrope_axis[start])], start, k - 1))
                start = k
        return runs


def mrope_axis(section: tuple[int, ...] | list[int], interleaved: bool = False) -> np.ndarray:
    """Which position id (0 temporal, 1 height, 2 width) each frequency pair turns with under M-RoPE, (d/2,).

    Qwen2-VL / Qwen2.5-VL (transformers ``Qwen2VLRotaryEmbedding``): the d/2 frequencies are split into
    contiguous sections, section k taking axis k, so [16, 24, 24] gives pairs 0-15 temporal, 16-39 height,
    40-63 width. ``interleaved`` (Qwen3-VL): pairs cycle t, h, w, with pair j on height when
    j ≡ 1 (mod 3) and j < 3·section[1], on width when j ≡ 2 (mod 3) and j < 3·section[2], else temporal.
    """
    if not isinstance(section, (list, tuple)) or not 1 <= len(section) <= 3:
        raise ValueError(f"section must be a list of 1 to 3 pair counts; got {section!r}"[:120])
    sec = [check_int(f"section[{k}]", v, 0, MAX_DIM) for k, v in enumerate(section)]
    n = sum(sec)
    if not 1 <= n <= MAX_DIM // 2:
        raise ValueError(f"section must add up to 1 .. {MAX_DIM // 2} pairs; got {n}")
    if not check_bool("interleaved", interleaved):
        return np.repeat(np.arange(len(sec)), sec)  # (d/2,)
    j = np.arange(n)
    axis = np.zeros(n, dtype=np.int64)
    for a in range(1, len(sec)):
        axis[(j % 3 == a) & (j < 3 * sec[a])] = a
    return axis


def _layer_map(cfg: Mapping, model_type: str | None, blocks: Mapping) -> tuple[int | None, dict[str, list[int]],
                                                                            list[int], list[str]]:
    """Layer indices per RoPE block and the NoPE layers, from ``layer_types``, Gemma 3's
    ``sliding_window_pattern`` or ``no_rope_layers`` (1 = the layer uses RoPE, 0 = NoPE; Llama 4, SmolLM3), in one
    pass over the layers (the NoPE layers are a set while they are collected), so the cost is linear in layers."""
    notes: list[str] = []
    n = cfg.get("num_hidden_layers")
    n = None if n is None else check_int("num_hidden_layers", n, 1, MAX_LAYERS)
    types = cfg.get("layer_types")
    if types is None and n is not None and set(blocks) == {"full_attention", "sliding_attention"}:
        pattern = check_int("sliding_window_pattern", cfg.get("sliding_window_pattern", 6), 1, 10_000)
        types = ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(n)]
        notes.append(f"layer types from sliding_window_pattern {pattern}: every {pattern}th layer is global")
    nope: set[int] = set()
    flags = cfg.get("no_rope_layers")
    if (flags is None or flags == []) and n is not None and "no_rope_layer_interval" in cfg:
        every = check_int("no_rope_layer_interval", cfg["no_rope_layer_interval"], 1, 10_000)
        flags = [int((i + 1) % every != 0) for i in range(n)]
        notes.append(f"no_rope_layers from no_rope_layer_interval {every}: every {every}th layer uses no RoPE")
    if flags is not None:
        if not isinstance(flags, (list, tuple)) or (n is not None and len(flags) < n):
            raise ValueError(f"no_rope_layers must be a list of 0/1 flags, one per layer; got {flags!r}"[:160])
        if len(flags[:n]) > MAX_LAYERS:
            raise ValueError(f"no_rope_layers may flag at most {MAX_LAYERS:,} layers; got {len(flags):,}")
        for i, f in enumerate(flags[:n]):
            if check_int(f"no_rope_layers[{i}]", f, 0, 1) == 0:
                nope.add(i)
    per: dict[str, list[int]] = {k: [] for k in blocks}
    if types is not None:
        if not isinstance(types, (list, tuple)) or not all(isinstance(t, str) for t in types):
            raise ValueError(f"layer_types must be a list of strings; got {types!r}"[:160])
        if len(types) > MAX_LAYERS:
            raise ValueError(f"layer_types may name at most {MAX_LAYERS:,} layers; got {len(types):,}")
        for i, t in enumerate(types):
            if i in nope:
                continue
            key = t if t in blocks else "all" if "all" in blocks else None
            if key is None:
                raise ValueError(f"layer_types[{i}] is {t!r}, which has no RoPE block (blocks: {', '.join(blocks)})")
            if blocks[key] is None:
                nope.add(i)
            else:
                per[key].append(i)
    elif n is not None and "all" in blocks:
        per["all"] = [i for i in range(n) if i not in nope]
    return n, per, sorted(nope), notes


def describe_config(config: object) -> ConfigReport:
    """Read everything a config.json says about positions: one ``RopeBlock`` per layer type (frequencies at
    the target length and the attention factor, as transformers 5.23 computes them), the NoPE layers,
    M-RoPE's split of the pairs, the rotary dims (``RopeConfig.dim``, ``head_dim``) and the target length.

    Accepts both spellings (``rope_scaling``, transformers 5's ``rope_parameters`` including per-layer-type
    blocks) and a nested ``text_config``. Anything unreadable raises ValueError naming the key; a config is
    never replaced by another model's values (missing keys take transformers' own class defaults, each noted).
    """
    cfg, model_type, blocks, spelling, notes = rope_blocks(config)
    n, per, nope, layer_notes = _layer_map(cfg, model_type, blocks)
    notes = notes + layer_notes
    resolved: list[tuple[str, RopeConfig]] = []
    for key, block in blocks.items():
        if block is None:
            notes.append(f"{spelling}.{key} is null: those layers use no RoPE")
            continue
        resolved.append((key, read_rope_config(config, key)))
    if not resolved:
        raise ValueError(f"{spelling} declares no RoPE block for any layer type")
    main = dict(resolved).get("all") or dict(resolved).get("full_attention") or resolved[0][1]
    original, target, source = _lengths(main)
    out_blocks = []
    for key, rc in resolved:
        inv, A = inv_freq_from_rope_config(rc, target)
        out_blocks.append(RopeBlock(key, rc, inv, A, tuple(per.get(key, ()))))
        notes += [f"{key}: {note}" if len(resolved) > 1 else note for note in rc.notes if note not in notes]
    if main.head_dim_source.startswith("qk_rope_head_dim"):
        nope_dim = cfg.get("qk_nope_head_dim")
        extra = f" of the {main.dim + int(nope_dim)}-channel query/key head" if isinstance(nope_dim, int) else ""
        notes.append(f"DeepSeek's decoupled RoPE: it rotates qk_rope_head_dim = {main.dim} channels{extra}; "
                     "the qk_nope_head_dim channels carry no position")
    if main.dim < main.head_dim:
        notes.append(f"partial rotary: {main.dim} of {main.head_dim} channels per head rotate")
    sec = main.params.get("mrope_section")
    axis = mrope_axis(sec, bool(main.params.get("mrope_interleaved"))) if sec else None
    return ConfigReport(model_type, n, tuple(out_blocks), tuple(nope), target, source,
                        tuple(sec) if sec else None, axis, tuple(dict.fromkeys(notes)), original)


def _check_depth(text: str, limit: int) -> None:
    """Refuse nesting deeper than ``limit`` (brackets outside strings) before the parser recurses into it."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                raise ValueError(f"config text is nested more than {limit} levels deep; a config.json is not")
        elif ch in "]}":
            depth -= 1


def parse_config_text(text: object, max_chars: int = MAX_CONFIG_CHARS) -> dict:
    """Parse pasted config.json text into a dict, with a precise ValueError for anything else.

    The length is capped before parsing; NaN/Infinity, numbers that overflow a float, integers with
    thousands of digits, deep nesting and non-object JSON are all rejected with a message saying where.
    """
    if not isinstance(text, str):
        raise ValueError(f"config text must be a string; got {type(text).__name__}")
    max_chars = check_int("max_chars", max_chars, 2, 10 * MAX_CONFIG_CHARS)
    if len(text) > max_chars:
        raise ValueError(f"config text is {len(text):,} characters; the limit is {max_chars:,} "
                         "(a real config.json is a few kB)")
    if not text.strip():
        raise ValueError("config text is empty: paste the contents of a config.json")
    _check_depth(text, 20)

    def bad_constant(name: str) -> None:
        raise ValueError(f"config text contains {name}, which is not valid JSON for a number")

    def parse_float(s: str) -> float:
        v = float(s)
        if not math.isfinite(v):
            raise ValueError(f"config text contains the number {s[:30]}, too large for a float")
        return v

    try:
        value = json.loads(text, parse_constant=bad_constant, parse_float=parse_float)
    except json.JSONDecodeError as e:
        raise ValueError(f"config text is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except RecursionError:
        raise ValueError("config text is nested too deeply") from None
    except ValueError as e:
        msg = str(e)
        if "config text" in msg:
            raise ValueError(msg) from None
        raise ValueError(f"config text has a number that cannot be read ({msg[:80]})") from None
    if not isinstance(value, dict):
        raise ValueError(f"config text must be a JSON object {{...}}; got a JSON {type(value).__name__}")
    return value


# --------------------------------------------------------------------------------------------------
# Mistakes of real YaRN code, kept here (and only here) so the pitfall callouts can draw the wrong beside the right


def numerator_rounded_yarn_bounds(dim: int, base: float, original_max_position_embeddings: int,
                                  beta_fast: float = 32.0, beta_slow: float = 1.0) -> tuple[float, float]:
    """WRONG on purpose: floor/ceil of the numerator *before* dividing by 2 ln b,
    which leaves non-integer ramp ends (d = 64, L = 2048: 8.034 and 20.140 instead of 8 and 21)."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, MAX_BASE, lo_open=True)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    beta_fast = check_float("beta_fast", beta_fast, 0.0, 1e6, lo_open=True)
    beta_slow = check_float("beta_slow", beta_slow, 0.0, 1e6, lo_open=True)
    low = math.floor(dim * math.log(L / (beta_fast * 2 * math.pi))) / (2 * math.log(base))
    high = math.ceil(dim * math.log(L / (beta_slow * 2 * math.pi))) / (2 * math.log(base))
    return float(max(low, 0)), float(min(high, dim - 1))


def numerator_rounded_yarn_inv_freq(dim: int, base: float, factor: float,
                                    original_max_position_embeddings: int, beta_fast: float = 32.0,
                                    beta_slow: float = 1.0) -> np.ndarray:
    """WRONG on purpose: YaRN frequencies with ``numerator_rounded_yarn_bounds`` (no low == high guard either)."""
    factor = _factor(factor)
    low, high = numerator_rounded_yarn_bounds(dim, base, original_max_position_embeddings, beta_fast, beta_slow)
    if high <= low:
        high = low + 0.001
    w = 1.0 - np.clip((pair_index(dim) - low) / (high - low), 0.0, 1.0)
    theta = inv_freq(dim, base)
    return theta * w + theta / factor * (1.0 - w)


def scaled_cos_sin_logit_multiplier(factor: float, mscale: float = 0.707) -> float:
    """WRONG on purpose: cos/sin scaled by ``(0.1 ln s + 1)·0.707``, so the logits get
    its square (0.815 at s = 16) instead of ``(0.1 ln s + 1)**2`` (1.631)."""
    factor = check_float("factor", factor, 0.0, MAX_FACTOR, lo_open=True)
    return (get_mscale(factor) * check_float("mscale", mscale, -1e3, 1e3)) ** 2


def inverted_yarn_inv_freq(dim: int, base: float, factor: float, original_max_position_embeddings: int,
                           beta_fast: float = 32.0, beta_slow: float = 1.0) -> np.ndarray:
    """WRONG on purpose: YaRN with the bands swapped (high frequencies interpolated, low ones kept), the
    reading several write-ups give (docs/FORMULAS.md §5.7)."""
    factor = _factor(factor)
    w = yarn_extrapolation_weight(dim, base, original_max_position_embeddings, beta_fast, beta_slow)
    theta = inv_freq(dim, base)
    return theta * (1.0 - w) + theta / factor * w
