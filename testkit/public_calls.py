"""Every public function of the math modules, with one valid call each and the hostile values to put in its
parameters: what the public API contract test (tests/test_fuzz_public.py) and benchmarks/public_call_time.py run.

The functions are discovered, not listed. A valid call is a function's defaults plus an example value per
required parameter from ``EXAMPLES`` (looked up as "module.function.parameter", then "module.parameter", then
"parameter"); ``measured_call`` runs one call under tracemalloc and returns its result or exception, its peak
bytes and its CPU seconds.
"""


from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import pkgutil
import time
import tracemalloc
from collections.abc import Callable, Iterator

import numpy as np
import torch

# posviz's modules and packages that are not math (the command line, figure export, the plotly themes, the figures,
# the app's ui, the tiny models); every other module posviz/<name>.py or package posviz/<name>/ is, so a new
# lesson's math module is covered without an edit here.
NOT_MATH = ("cli", "export", "theme", "figures", "ui", "models")
BELOW_MATH = ("i18n",)  # the language strings are shown in: used by every layer, takes no numbers


def math_modules() -> tuple[str, ...]:
    """Every module ``posviz/<name>.py`` and package ``posviz/<name>/`` except the private ones (``_validate``,
    ``_speed``, ``__main__``), ``NOT_MATH`` and ``BELOW_MATH``."""
    import posviz

    return tuple(sorted(m.name for m in pkgutil.iter_modules(posviz.__path__)
                        if not m.name.startswith("_") and m.name not in NOT_MATH + BELOW_MATH))


def _defined_in(fn: Callable, mod: object) -> bool:
    """Whether ``fn`` is ``mod``'s own: defined in the module, or in one of its submodules for a package."""
    home, name = fn.__module__, mod.__name__
    return home == name or (hasattr(mod, "__path__") and home.startswith(name + "."))


MODULES = math_modules()


def public_functions() -> dict[str, Callable]:
    """``{"module.function": function}`` for every public function defined in the math modules (a package's
    under its own name: ``scaling.yarn_inv_freq``, wherever in ``posviz/scaling/`` it is defined)."""
    out: dict[str, Callable] = {}
    for m in MODULES:
        mod = importlib.import_module(f"posviz.{m}")
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if _defined_in(fn, mod) and not name.startswith("_"):
                out[f"{m}.{name}"] = fn
    from posviz import cope

    out["cope.CoPE"] = _cope_module_call(cope.CoPE)
    return out


def _cope_module_call(cls: type) -> Callable:
    def cope_module(query, key, value, head_dim=8, block_size=4, npos_max=None, nodiv=False, causal=True):
        return cls(head_dim, block_size, npos_max, nodiv)(query, key, value, causal)
    cope_module.__name__ = "CoPE"
    return cope_module


def _lazy() -> dict[str, object]:
    from posviz import cope, presets, rope, scaling, sinusoidal

    rng = np.random.default_rng(0)
    preset = presets.get_preset("Llama 3.1 8B").config
    return {
        "tokens": lambda: cope.tokenize("One two. Three four!"),
        "intro.tokens": lambda: ["the", "dog", "saw", "the", "cat"],
        "lesson": lambda: cope.cope_run("One two. Three four! Five.", npos_max=0),
        "rc": lambda: scaling.read_rope_config(preset),
        "config": lambda: presets.get_preset("Llama 3.1 8B").config,
        "inv_freq": lambda: rope.inv_freq(8),
        "theta": lambda: rope.inv_freq(8),
        "theta_scaled": lambda: rope.inv_freq(8) / 4,
        "pe": lambda: sinusoidal.sinusoidal_table(6, 4),
        "rope.x": lambda: rng.standard_normal(8),
        "rope.rotate.x": lambda: rng.standard_normal((3, 8)),
        "x": lambda: rng.standard_normal((3, 8)),
        "intro.x": lambda: rng.standard_normal((3, 4)),
        "rope.apply_rope.x": lambda: torch.randn(3, 8, dtype=torch.float64),
        "rope2d.rope_nd_rotate.x": lambda: torch.randn(2, 8, dtype=torch.float64),
        "query": lambda: torch.randn(4, 8, dtype=torch.float64),
        "key": lambda: torch.randn(4, 8, dtype=torch.float64),
        "value": lambda: torch.randn(4, 8, dtype=torch.float64),
        "cope.position_logits.query": lambda: rng.standard_normal((3, 8)),
    }


EXAMPLES: dict[str, object] = {
    "dim": 8, "d_model": 8, "base": 100.0, "factor": 4.0, "original_max_position_embeddings": 64,
    "max_position_embeddings": 64, "height": 3, "width": 4, "n_positions": 5, "positions": [0.0, 1.5, 3.0],
    "q": [1.0, 0.5, -0.2, 0.3, 0.0, 1.0, 2.0, -1.0], "k": [0.3, 0.1, 0.2, -0.5, 1.0, 0.0, 0.5, 0.5],
    "gaussian.q": np.ones((2, 8)), "gaussian.k": np.ones((3, 8)), "gaussian.as_written_qk.q": np.ones((3, 8)),
    "sinusoidal.k": 2.0, "m": 3.0, "n": 1.0, "gaussian.m": [0.0, 1.0], "gaussian.n": [0.0, 1.0, 2.0],
    "cope.pick_index.n": 5, "intro.shuffle_order.n": 5, "text": "The dog chased another dog",
    "scaling.parse_config_text.text": '{"head_dim": 64, "rope_theta": 10000.0}', "codes": np.eye(5, 3),
    "embeddings": np.ones((5, 3)), "deltas": [0.0, 1.0, -2.0], "old_height": 3, "old_width": 3, "new_height": 4,
    "new_width": 4, "rows": [0.0, 1.0], "cols": [0.0, 2.0], "lengths": [10.0, 100.0, 50.0], "i": 1, "j": 0,
    "n_bits": 3, "query_index": 0, "query_a": (0, 0), "query_b": (1, 1), "coords": np.ones((2, 2)),
    "freqs": np.full((2, 4), 0.1), "logits": np.zeros((2, 3)), "gaussian.softmax.logits": np.zeros((2, 3)),
    "r": [0.0, 1.0, 5.0], "scores": np.eye(3), "gate_logits": np.zeros((3, 3)), "rule": "sentences",
    "offsets": [0.0, 1.5], "seq_len": 3, "ids": np.zeros((3, 3)), "n_text": 2, "query_row": 0, "query_col": 0,
    "scores_a": np.ones((3, 4)), "scores_b": np.ones((3, 4)), "mscale_all_dim": 1.0, "scale": 4.0,
    "short_factor": [1.0] * 4, "long_factor": [2.0] * 4, "section": [1, 2, 1], "methods": "linear,yarn",
    "distances": [0.0, 10.0], "method": "yarn", "num_rotations": 1.0, "name": "Llama 3.1 8B",
    "mode": "relative_mul", "matrix": np.eye(3), "T": 4, "d": 8, "head_dim": 8, "npos_max": 4,
    "z_int": np.ones((3, 4)), "cope.interpolate.positions": np.zeros((3, 3)),
    "cope.position_logits.positions": np.zeros((3, 3)), "pos_emb": np.ones((8, 4)), "gates": np.full((3, 3), 0.5),
    "bit": 2, "length": 7, "max_offset": 100, "scheme": "binary", "values": np.ones((3, 4)), "wavelength": 6.0,
    "index": 1, "intro.position_codes.scheme": "sinusoidal", "scaling.longrope_inv_freq.factor": 4.0,
    "rope.freqs": [1.0, 0.1, 0.0], "rope.z": np.eye(3), "angle": 0.5, "rope.complex_pairs.x": [1.0, 2.0, 3.0, 4.0],
    "rope.absolute_offset_scores.anchor": 100, "bases": [10.0, 1e4], "rope.scheme": "p-rope",
    "n_heads": 8, "bias.member": "alibi", "bias.distance": [0.0, 1.0, 5.0], "bias.r1": 1.0, "bias.r2": 0.5,
    "bias.relative_position": [-3, 0, 3], "bias.weights": [0.5, 0.3, 0.2],
}

HOSTILE: tuple[tuple[str, object], ...] = (
    ("None", None), ("text", "x"), ("True", True), ("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf),
    ("-1", -1), ("0", 0), ("0.5", 0.5), ("1e300", 1e300), ("10**400", 10**400), ("2**31", 2**31),
    ("2**20", 2**20), ("-2**40", -(2**40)), ("[]", []), ("[nan]", [math.nan]), ("ragged", [[1.0], [2.0, 3.0]]),
    ("complex", np.ones(3, dtype=complex)), ("dict", {"a": 1}), ("[1e300]", [1e300, 1.0]),
    ("half", torch.ones(3, 3, dtype=torch.float16)), ("long", np.zeros(1 << 21)),
)


def _example(qual: str, param: str) -> object:
    module, fname = qual.split(".", 1)
    lazy = _lazy()
    for key in (f"{qual}.{param}", f"{module}.{param}", param):
        if key in lazy:
            return lazy[key]()
        if key in EXAMPLES:
            value = EXAMPLES[key]
            return value.copy() if isinstance(value, np.ndarray) else value
    raise KeyError(f"no example value for parameter {param!r} of {qual}: add one to EXAMPLES")


def valid_args(qual: str, fn: Callable) -> dict[str, object]:
    """Defaults, plus an example for every required parameter."""
    args = {}
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        specific = f"{qual}.{name}" in EXAMPLES or f"{qual}.{name}" in _lazy()
        args[name] = _example(qual, name) if p.default is inspect.Parameter.empty or specific else p.default
    return args


def _values(out: object) -> Iterator[object]:
    """Every number-like leaf of a result (arrays, tensors, numbers), through tuples, dicts and dataclasses."""
    if isinstance(out, (str, bytes, bool, type(None), type)):
        return
    if isinstance(out, torch.Tensor):
        yield out.detach().double().numpy()
    elif isinstance(out, np.ndarray):
        if out.dtype.kind in "iufc":
            yield out
    elif isinstance(out, (int, float, np.number)):
        yield out
    elif isinstance(out, dict):
        for v in out.values():
            yield from _values(v)
    elif isinstance(out, (list, tuple)):
        for v in out:
            yield from _values(v)
    elif dataclasses.is_dataclass(out):
        for f in dataclasses.fields(out):
            yield from _values(getattr(out, f.name))


# results that hold −inf where the causal mask hides a key (j > i), as their docstrings say: the mask softmax
# expects, not an overflow
MASKED = ("bias.alibi_bias", "bias.bias_matrix")


def finite(out: object, masked: bool = False) -> bool:
    """Whether every number of ``out`` is finite (with ``masked``, −inf too: a causal mask)."""
    def ok(v: object) -> bool:
        a = np.asarray(v, dtype=np.complex128)
        return bool((np.isfinite(a) | (masked & (a.real == -np.inf) & (a.imag == 0))).all())

    return all(ok(v) for v in _values(out))


@dataclasses.dataclass
class Outcome:
    result: object = None
    error: BaseException | None = None
    peak: int = 0
    seconds: float = 0.0


def measured_call(fn: Callable, args: dict[str, object]) -> Outcome:
    """Call ``fn(**args)`` under tracemalloc: the result or the exception, peak bytes and CPU seconds."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    t0 = time.process_time()
    out = Outcome()
    try:
        out.result = fn(**args)
    except Exception as e:  # the contract is about which exception types escape
        out.error = e
    out.seconds = time.process_time() - t0
    out.peak = tracemalloc.get_traced_memory()[1] - base
    if started:
        tracemalloc.stop()
    return out


FUNCTIONS = public_functions()
