"""RoPE context extension: every scaling method as a per-pair map ``theta_i -> theta'_i`` plus a cos/sin factor.

Each method takes the plain RoPE frequencies ``theta_i = base**(-2i/dim)`` (``posviz.rope.inv_freq``) and
returns ``(inv_freq', attention_factor)``, the same pair transformers' ``ROPE_INIT_FUNCTIONS`` return
(reference/formulas.md §5): linear = Position Interpolation (Chen et al. 2023), static NTK-aware (bloc97),
dynamic NTK (emozilla), YaRN (Peng et al. 2023, code ramp of jquesnelle/yarn and transformers), Llama 3
(Meta ``apply_scaling``) and LongRoPE (Ding et al. 2024, Phi-3 style). ``attention_factor`` multiplies cos
and sin, so attention logits are multiplied by its square.

``inv_freq_from_config`` reads a Hugging Face ``config.json`` dict in either spelling (transformers 5
``rope_parameters`` with ``rope_theta`` inside, or transformers 4 top-level ``rope_theta`` plus
``rope_scaling`` with ``type`` or ``rope_type``), resolves it the way transformers does (including its
quirks: ``beta_fast = 0`` silently means 32, a missing YaRN ``factor`` is ``max_position_embeddings /
original_max_position_embeddings``, a top-level ``original_max_position_embeddings`` wins) and dispatches
to the per-method functions. Everything is per pair (d/2 numbers), so any context length costs the same.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from posviz._validate import check_choice, check_float, check_int
from posviz.rope import MAX_DIM, inv_freq

MAX_FACTOR = 1e6          # scale factors s above this are not a context extension any more
MAX_LENGTH = 10**9        # positions / context lengths
MAX_BASE = 1e12
MAX_CONFIG_CHARS = 100_000  # a real config.json with 48-entry LongRoPE lists is < 10 kB
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
    """Pair index whose rotation count in L is ``num_rotations``: ``d·ln(L/(2π·ρ)) / (2 ln b)``."""
    return dim * math.log(original_max_position_embeddings / (num_rotations * 2 * math.pi)) / (2 * math.log(base))


def yarn_correction_range(dim: int, base: float, original_max_position_embeddings: int, beta_fast: float = 32.0,
                          beta_slow: float = 1.0, truncate: bool = True) -> tuple[float, float]:
    """YaRN's ramp ends ``(low, high)`` in pair-index units, as the code computes them.

    ``low = max(floor(D(beta_fast)), 0)``, ``high = min(ceil(D(beta_slow)), dim - 1)``, floor/ceil on the whole
    quotient and only when ``truncate`` (formulas.md §5.4; note the clamp is ``dim - 1``, not ``dim/2 - 1``).
    """
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, MAX_BASE, lo_open=True)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    beta_fast = check_float("beta_fast", beta_fast, 0.0, 1e6, lo_open=True)
    beta_slow = check_float("beta_slow", beta_slow, 0.0, 1e6, lo_open=True)
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
    """Position Interpolation ("linear"): ``theta'_i = theta_i / s`` for every pair (PI; formulas.md §5.1)."""
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
    """Dynamic NTK (transformers "dynamic"): NTK-aware with alpha growing with the sequence (formulas.md §5.3)."""
    dim = check_int("dim", dim, 4, MAX_DIM, even=True)
    alpha = dynamic_alpha(factor, max_position_embeddings, seq_len)
    return _rebased(dim, base, alpha), 1.0


def yarn_attention_factor(factor: float, mscale: float | None = None, mscale_all_dim: float | None = None,
                          attention_factor: float | None = None) -> float:
    """YaRN's cos/sin factor A: given ``attention_factor`` as is; else ``get_mscale(s, mscale) /
    get_mscale(s, mscale_all_dim)`` when both are non-zero (DeepSeek); else ``0.1 ln s + 1``."""
    factor = _factor(factor)
    if attention_factor is not None:
        return check_float("attention_factor", attention_factor, 0.0, 1e3)
    if mscale and mscale_all_dim:
        return get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
    return get_mscale(factor)


def deepseek_softmax_multiplier(factor: float, mscale_all_dim: float | None) -> float:
    """DeepSeek-V2/V3 multiply the softmax scale by ``get_mscale(s, mscale_all_dim)**2`` (1 if unset)."""
    return get_mscale(factor, mscale_all_dim) ** 2 if mscale_all_dim else 1.0


def yarn_inv_freq(dim: int, base: float, factor: float, original_max_position_embeddings: int,
                  beta_fast: float = 32.0, beta_slow: float = 1.0, mscale: float | None = None,
                  mscale_all_dim: float | None = None, attention_factor: float | None = None,
                  truncate: bool = True, ramp: str = "code") -> tuple[np.ndarray, float]:
    """YaRN (NTK-by-parts + temperature): ``theta'_i = w_i·theta_i + (1 - w_i)·theta_i/s`` (formulas.md §5.4).

    ``w_i`` is ``yarn_extrapolation_weight`` (the code ramp by default; ``ramp="paper"`` for YaRN Eq. 18).
    The plain numbers are used as given: the ``beta_fast or 32`` quirk lives in the config reader.
    """
    factor = _factor(factor)
    w = yarn_extrapolation_weight(dim, base, original_max_position_embeddings, beta_fast, beta_slow,
                                  bool(truncate), ramp)
    theta = inv_freq(dim, base)
    A = yarn_attention_factor(factor, mscale, mscale_all_dim, attention_factor)
    return theta * w + theta / factor * (1.0 - w), A


def llama3_inv_freq(dim: int, base: float, factor: float, original_max_position_embeddings: int,
                    low_freq_factor: float = 1.0, high_freq_factor: float = 4.0) -> tuple[np.ndarray, float]:
    """Llama 3.1 scaling: wavelengths < L/high_freq_factor untouched, > L/low_freq_factor divided by s, and
    a blend linear in ``r = L/lambda`` between (formulas.md §5.5). Attention factor 1: no temperature."""
    factor = _factor(factor)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    low = check_float("low_freq_factor", low_freq_factor, 0.0, 1e6, lo_open=True)
    high = check_float("high_freq_factor", high_freq_factor, 0.0, 1e6, lo_open=True)
    if high <= low:
        raise ValueError(f"high_freq_factor must be greater than low_freq_factor; got high_freq_factor "
                         f"{high:g} <= low_freq_factor {low:g}")
    theta = inv_freq(dim, base)
    wavelen = 2 * np.pi / theta
    smooth = np.clip((L / wavelen - low) / (high - low), 0.0, 1.0)   # 0 below the band, 1 above
    scaled = (1 - smooth) * theta / factor + smooth * theta
    keep = wavelen < L / high
    divide = wavelen > L / low
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
    (else ``short_factor``); ``s = factor`` or ``max_position_embeddings / L`` (formulas.md §5.6)."""
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
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    out = tuple(check_choice("methods", m, METHODS) for m in methods)
    if not out:
        raise ValueError("methods must name at least one of " + ", ".join(METHODS))
    return tuple(dict.fromkeys(out))


def _float_array(name: str, values: object, *, lo: float, hi: float, max_len: int, lo_open: bool = False) -> np.ndarray:
    """A finite 1-D float64 array with every entry in range and at most ``max_len`` entries, else ValueError."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a 1-D array of numbers") from None
    if arr.ndim != 1 or arr.size == 0 or arr.size > max_len:
        raise ValueError(f"{name} must be a 1-D array of 1 to {max_len:,} numbers; got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr <= lo if lo_open else arr < lo) | (arr > hi)
    if bad.any():
        raise ValueError(f"{name} must hold finite numbers in {'(' if lo_open else '['}{lo:g}, {hi:g}]; "
                         f"got {arr[bad][0]!r} at index {int(np.argmax(bad))}")
    return arr


MAX_POINTS = 100_000  # distances / lengths per call: (points × d/2) float64 stays far below 256 MB


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
    """Attention score ``q·R_Δ k = Σ_i Re[h_i e^{iΔθ_i}]`` against relative distance, divided by ``Σ_i |h_i|``
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
    return _phase_sum(dist, theta, h) / np.abs(h).sum()


def _phase_sum(dist: np.ndarray, theta: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``Σ_i Re[h_i e^{i·dist·θ_i}]`` for every distance, shape (n_dist,) (sums as matrix-vector products)."""
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

    def summary(self) -> dict[str, object]:
        """Flat, display-ready view: every value that enters the computation."""
        out: dict[str, object] = {"rope_type": self.rope_type, "read from": self.spelling,
                                  "rope_theta (base)": self.base, "head_dim": self.head_dim,
                                  "head_dim from": self.head_dim_source,
                                  "partial_rotary_factor": self.partial_rotary_factor,
                                  "rotary dim d": self.dim,
                                  "max_position_embeddings": self.max_position_embeddings}
        for k, v in self.params.items():
            if isinstance(v, (list, tuple)):
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


def read_rope_config(config: object) -> RopeConfig:
    """Resolve a Hugging Face config dict into a ``RopeConfig``; bad input raises ValueError naming the key."""
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a JSON object (a dict); got {type(config).__name__}")
    notes: list[str] = []
    if isinstance(config.get("text_config"), Mapping) and not any(
            k in config for k in ("rope_parameters", "rope_scaling", "rope_theta", "hidden_size")):
        config = config["text_config"]
        notes.append("read the nested text_config block")
    block: Mapping = {}
    spelling = "none"
    if config.get("rope_parameters") is not None:
        block, spelling, where = config["rope_parameters"], "rope_parameters", "rope_parameters."
    elif config.get("rope_scaling") is not None:
        block, spelling, where = config["rope_scaling"], "rope_scaling", "rope_scaling."
    else:
        where = ""
    if not isinstance(block, Mapping):
        raise ValueError(f"{spelling} must be a JSON object; got {type(block).__name__}")
    if block and all(isinstance(v, Mapping) for v in block.values()):
        raise ValueError(f"{spelling} holds one block per layer type ({', '.join(map(str, list(block)[:4]))}); "
                         "paste a config with a single RoPE block")
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
            notes.append(f"no factor: max_position_embeddings / original = {mpe / omp:g}")
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
    if rope_type == "llama3":
        for key in ("low_freq_factor", "high_freq_factor"):
            if block.get(key) is None:
                raise ValueError(f"{where}{key} is required for rope_type 'llama3'")
            params[key] = _num(block, key, where, 0.0, 1e6, lo_open=True)
        if params["high_freq_factor"] <= params["low_freq_factor"]:
            raise ValueError(f"{where}high_freq_factor must be greater than low_freq_factor; got "
                             f"{params['high_freq_factor']:g} <= {params['low_freq_factor']:g}")
    if rope_type == "longrope":
        for key in ("short_factor", "long_factor"):
            if block.get(key) is None:
                raise ValueError(f"{where}{key} is required for rope_type 'longrope'")
            params[key] = [float(x) for x in _factor_list(f"{where}{key}", block[key], dim // 2)]
        params["attention_factor"] = _num(block, "attention_factor", where, 0.0, 1e3)
    return RopeConfig(rope_type, spelling, float(base), int(head_dim), source, prf, dim, mpe, params, tuple(notes))


def inv_freq_from_config(config: dict, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """``(inv_freq (d/2,), attention_factor)`` for a Hugging Face config.json dict, as transformers computes it.

    Same numbers as ``transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS[rope_type](config, seq_len=...)``
    (and the per-model default for "default"), plus "ntk" (static NTK-aware, base·s^(d/(d-2))). ``seq_len``
    matters for "dynamic" (current length) and "longrope" (long factors once > original length).
    The rotary dim is ``int(head_dim · partial_rotary_factor)`` for every type, as in GPT-NeoX/Phi (Llama's
    own default ignores ``partial_rotary_factor``); DeepSeek's ``qk_rope_head_dim`` takes precedence.
    """
    rc = read_rope_config(config)
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


def config_temperature(config: dict) -> dict[str, float]:
    """What a config does to attention logits: the cos/sin factor A, its square, and for DeepSeek-style YaRN
    (``mscale_all_dim`` set) the extra softmax-scale multiplier and the total logit multiplier."""
    rc = read_rope_config(config)
    _, A = inv_freq_from_config(config)
    out = {"cos/sin × A": A, "logits × A²": A * A}
    if rc.rope_type == "yarn" and rc.params.get("mscale_all_dim"):
        ds = deepseek_softmax_multiplier(float(rc.params["factor"]), float(rc.params["mscale_all_dim"]))
        out["softmax scale × (DeepSeek)"] = ds
        out["logits × in total"] = A * A * ds
    return out


def config_target_length(rc: RopeConfig) -> int:
    """The context a config is meant for: ``max_position_embeddings``, else ``factor·L``, else L."""
    L = int(rc.params.get("original_max_position_embeddings") or rc.max_position_embeddings or 4096)
    factor = rc.params.get("factor") or 1.0
    return int(min(MAX_LENGTH, max(rc.max_position_embeddings or 0, round(float(factor) * L))))


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
# Seed 000's bugs, kept here (and only here) so the pitfall callouts can draw the wrong beside the right


def seed000_yarn_bounds(dim: int, base: float, original_max_position_embeddings: int, beta_fast: float = 32.0,
                        beta_slow: float = 1.0) -> tuple[float, float]:
    """WRONG on purpose (seed 000 lines 104-105): floor/ceil of the numerator *before* dividing by 2 ln b,
    which leaves non-integer ramp ends (d = 64, L = 2048: 8.034 and 20.140 instead of 8 and 21)."""
    dim = check_int("dim", dim, 2, MAX_DIM, even=True)
    base = check_float("base", base, 1.0, MAX_BASE, lo_open=True)
    L = check_int("original_max_position_embeddings", original_max_position_embeddings, 1, MAX_LENGTH)
    beta_fast = check_float("beta_fast", beta_fast, 0.0, 1e6, lo_open=True)
    beta_slow = check_float("beta_slow", beta_slow, 0.0, 1e6, lo_open=True)
    low = math.floor(dim * math.log(L / (beta_fast * 2 * math.pi))) / (2 * math.log(base))
    high = math.ceil(dim * math.log(L / (beta_slow * 2 * math.pi))) / (2 * math.log(base))
    return float(max(low, 0)), float(min(high, dim - 1))


def seed000_yarn_inv_freq(dim: int, base: float, factor: float,
                          original_max_position_embeddings: int, beta_fast: float = 32.0,
                          beta_slow: float = 1.0) -> np.ndarray:
    """WRONG on purpose: YaRN frequencies with ``seed000_yarn_bounds`` (no low == high guard either)."""
    factor = _factor(factor)
    low, high = seed000_yarn_bounds(dim, base, original_max_position_embeddings, beta_fast, beta_slow)
    if high <= low:
        high = low + 0.001
    w = 1.0 - np.clip((pair_index(dim) - low) / (high - low), 0.0, 1.0)
    theta = inv_freq(dim, base)
    return theta * w + theta / factor * (1.0 - w)


def seed000_logit_multiplier(factor: float, mscale: float = 0.707) -> float:
    """WRONG on purpose (seed 000 line 110): cos/sin scaled by ``(0.1 ln s + 1)·0.707``, so the logits get
    its square (0.815 at s = 16) instead of ``(0.1 ln s + 1)**2`` (1.631)."""
    return (get_mscale(factor) * check_float("mscale", mscale, -1e3, 1e3)) ** 2


def inverted_yarn_inv_freq(dim: int, base: float, factor: float, original_max_position_embeddings: int,
                           beta_fast: float = 32.0, beta_slow: float = 1.0) -> np.ndarray:
    """WRONG on purpose: YaRN with the bands swapped (high frequencies interpolated, low ones kept), the
    reading several write-ups give (reference/peers.md 6-B)."""
    factor = _factor(factor)
    w = yarn_extrapolation_weight(dim, base, original_max_position_embeddings, beta_fast, beta_slow)
    theta = inv_freq(dim, base)
    return theta * (1.0 - w) + theta / factor * w
