"""The public API contract, for EVERY public function of the math modules.

The functions are discovered, not listed: every public function defined in the math modules
(``testkit.public_calls.MODULES``: every ``posviz/<name>.py`` but the private ones and ``NOT_MATH``, so a new
lesson's module is in at once), plus the lazily created ``cope.CoPE``. Each gets one valid call (its defaults,
plus an example value per required parameter from ``EXAMPLES``, looked up as "module.function.parameter", then
"module.parameter", then "parameter") whose result must be finite, then every parameter in turn is replaced by
each hostile value of ``HOSTILE``. A call must return a finite result (the causal masks of ``MASKED`` may hold
−inf) or raise ``ValueError`` whose message names the parameter; any other exception fails. Peak memory of
every call is measured with tracemalloc (numpy registers its buffers there) and must stay <= 256 MB. Time is
not asserted (no wall-clock asserts); ``benchmarks/public_call_time.py`` runs the same calls and reports any
above 2 s.

A new public function whose required parameters have no example fails ``test_every_function_has_a_valid_call``
with the names to add; that is the point.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import posviz  # noqa: E402
from posviz._validate import MAX_BYTES  # noqa: E402
from testkit.public_calls import (  # noqa: E402
    FUNCTIONS,
    HOSTILE,
    MASKED,
    MODULES,
    NOT_MATH,
    finite,
    measured_call,
    valid_args,
)


def contract_violations(qual: str) -> list[str]:
    """Every way ``qual`` breaks the contract under the hostile values (empty list: it keeps it)."""
    fn = FUNCTIONS[qual]
    base = valid_args(qual, fn)
    bad: list[str] = []
    for param in base:
        for label, value in HOSTILE:
            args = dict(base, **{param: value})
            got = measured_call(fn, args)
            where = f"{qual}({param}={label})"
            if got.peak > MAX_BYTES:
                bad.append(f"{where}: peak {got.peak / 2**20:.0f} MB > {MAX_BYTES // 2**20} MB")
            if got.error is None:
                if not finite(got.result, qual in MASKED):
                    bad.append(f"{where}: returned a non-finite result")
            elif not isinstance(got.error, ValueError):
                bad.append(f"{where}: {type(got.error).__name__}: {str(got.error)[:100]}")
            elif param not in str(got.error):
                bad.append(f"{where}: ValueError does not name {param!r}: {str(got.error)[:100]}")
    return bad


def test_discovery_finds_every_module_and_the_known_functions():
    modules = {q.split(".")[0] for q in FUNCTIONS}
    assert modules == set(MODULES)
    assert {"sinusoidal", "rope", "rope2d", "scaling", "presets", "gaussian", "cope", "intro", "bias"} <= modules
    assert {"sinusoidal.similarity", "scaling.describe_config", "gaussian.softmax", "cope.CoPE",
            "intro.repeated_pair", "rope.apply_rope", "bias.alibi_slopes", "bias.bias_matrix"} <= set(FUNCTIONS)
    assert len(FUNCTIONS) > 160


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any level (``from posviz import rope`` counts as posviz.rope)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return found


def test_the_math_modules_are_the_modules_below_the_figures():
    """MODULES is every posviz/<name>.py or package posviz/<name>/ but the private ones and NOT_MATH; the layers
    (docs/CONTRIBUTING.md) say the same from the source: a math module imports nothing of plotly, streamlit or the
    layers above it, and every module of NOT_MATH does."""
    above = ("plotly", "streamlit", "posviz.figures", "posviz.ui", "posviz.export", "posviz.cli", "posviz.theme")
    root = Path(posviz.__file__).parent

    def files(name: str) -> list[Path]:
        """The module ``posviz/<name>.py``, or every file of the package ``posviz/<name>/``."""
        return [root / f"{name}.py"] if (root / f"{name}.py").is_file() else sorted((root / name).rglob("*.py"))

    def is_math(name: str) -> bool:
        return not any(m == a or m.startswith(a + ".") for f in files(name) for m in _imports(f) for a in above)

    assert all(files(name) for name in NOT_MATH)
    assert [name for name in MODULES if not is_math(name)] == []
    assert [name for name in NOT_MATH if is_math(name)] == []


@pytest.mark.parametrize("qual", sorted(FUNCTIONS))
def test_every_function_has_a_valid_call(qual):
    got = measured_call(FUNCTIONS[qual], valid_args(qual, FUNCTIONS[qual]))
    assert got.error is None, f"{qual}: {type(got.error).__name__}: {got.error}"
    assert finite(got.result, qual in MASKED), qual
    assert got.peak <= MAX_BYTES


@pytest.mark.parametrize("qual", sorted(FUNCTIONS))
def test_hostile_input_keeps_the_contract(qual):
    bad = contract_violations(qual)
    assert not bad, "\n".join(bad[:20])


# ------------------------------------------------- named cases: inputs a naive implementation gets wrong


def test_similarity_fractional_positions_are_exact_not_truncated():
    from posviz import sinusoidal as sn

    w = sn.frequencies(8)
    exact = np.cos(2.9 * w) @ np.cos(0 * w) + np.sin(2.9 * w) @ np.sin(0 * w)
    assert sn.similarity([2.9], [0], 8)[0, 0] == pytest.approx(exact, rel=1e-12)
    assert sn.similarity([2.9], [0], 8)[0, 0] != pytest.approx(sn.similarity([2], [0], 8)[0, 0])
    table = sn.sinusoidal_table(40, 8)
    np.testing.assert_allclose(sn.similarity(np.arange(40), np.arange(0, 40, 3), 8), table @ table[::3].T,
                               atol=1e-12)


@pytest.mark.parametrize("call,name", [
    (lambda: __import__("posviz.sinusoidal").sinusoidal.similarity([math.inf], [0], 8), "rows"),
    (lambda: __import__("posviz.sinusoidal").sinusoidal.similarity(None, [0], 8), "rows"),
    (lambda: __import__("posviz.sinusoidal").sinusoidal.slice_for_sequence([[1.0, 2.0]], 1, feature_axis="yes"),
     "feature_axis"),
    (lambda: __import__("posviz.sinusoidal").sinusoidal.dot_by_offset([math.nan], 8), "offsets"),
    (lambda: __import__("posviz.scaling").scaling.parse_methods(None), "methods"),
    (lambda: __import__("posviz.scaling").scaling.config_target_length(5), "rc"),
    (lambda: __import__("posviz.gaussian").gaussian.softmax([[-math.inf, -math.inf]]), "logits"),
    (lambda: __import__("posviz.gaussian").gaussian.softmax(None), "logits"),
    (lambda: __import__("posviz.intro").intro.repeated_pair(None), "tokens"),
    (lambda: __import__("posviz.scaling").scaling.deepseek_softmax_multiplier(0, 1.0), "factor"),
])
def test_named_cases_raise_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_slice_for_sequence_takes_a_list():
    from posviz import sinusoidal as sn

    assert sn.slice_for_sequence([[1.0, 2.0], [3.0, 4.0]], 1).tolist() == [[1.0, 2.0]]


def test_gaussian_softmax_takes_a_list_and_masked_keys():
    from posviz import gaussian

    np.testing.assert_allclose(gaussian.softmax([[0.0, -math.inf], [1.0, 1.0]]), [[1.0, 0.0], [0.5, 0.5]])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_cope_module_runs_half_precision(dtype):
    """float16 and bfloat16 input is computed in float32 and matches a float32 run (a matmul of mixed dtypes
    raises, e.g. "expected scalar type Double but found Half")."""
    from posviz import cope

    x = torch.randn(5, 8).to(dtype)
    out = cope.CoPE(8, 5)(x, x, x)
    ref = cope.CoPE(8, 5)(x.float(), x.float(), x.float())
    torch.testing.assert_close(out["out"], ref["out"])


@pytest.mark.parametrize("call,cap", [
    (lambda: __import__("posviz.sinusoidal").sinusoidal.sinusoidal_table(2**20, 64), "cap"),
    (lambda: __import__("posviz.scaling").scaling.rope_scores(__import__("posviz.rope").rope.inv_freq(4096),
                                                              np.arange(100_000.0)), "cap"),
    (lambda: __import__("posviz.rope").rope.apply_rope(torch.zeros(2**20, 64), torch.arange(2.0**20),
                                                       __import__("posviz.rope").rope.inv_freq(64)), "at most"),
    (lambda: __import__("posviz.gaussian").gaussian.rope_logits(np.zeros((8000, 8)), np.zeros((8000, 8)),
                                                                np.arange(8000.0), np.arange(8000.0)), "cap"),
])
def test_large_sizes_are_capped_with_a_value_error(call, cap):
    """Uncapped, these calls would take 1.3 GB, 1.5 GB, 672 MB and 552 MB."""
    with pytest.raises(ValueError, match=cap):
        call()


def test_saturate_claim_float64():
    """The CoPE help text's numbers: σ(z) == 1 exactly just above z = 53·ln 2 ≈ 36.737, σ(-37) ≈ 8.5e-17, and
    σ(-40) > 0: an "off" gate is never exactly 0."""
    from posviz import cope

    sig = lambda z: torch.sigmoid(torch.tensor(z, dtype=torch.float64)).item()  # noqa: E731
    assert sig(36.74) == 1.0 and sig(36.73) < 1.0 and 36.73 < 53 * math.log(2) < 36.74
    assert sig(-37.0) == pytest.approx(8.533e-17, rel=1e-3) and sig(-cope.SATURATE) > 0
    gates = cope.cope_gates(cope.SATURATE * torch.tensor([[1.0, -1.0], [-1.0, 1.0]], dtype=torch.float64), False)
    assert gates.max().item() == 1.0 and 0 < gates.min().item() < 5e-18


# ------------------------------------------- sizes refused before the work, and what the pages still ask for

def _huge_square() -> np.ndarray:
    return np.zeros((4096, 4096))


@pytest.mark.parametrize(("qual", "args", "name"), [
    ("intro.linear_shift_residual", dict(codes=_huge_square), "codes"),
    ("intro.distinct_codes", dict(codes=_huge_square), "codes"),
    ("intro.self_attention", dict(x=_huge_square), "x"),
    ("intro.attention_weights_qkv", dict(d_model=4096), "d_model"),
    ("gaussian.mean_by_distance", dict(matrix=_huge_square), "matrix"),
])
def test_oversized_calls_are_refused_before_they_allocate(qual, args, name):
    """Unrefused, these calls would take 168 s of CPU and +799 MB (the least-squares fit), +403 MB (np.unique),
    +1.57 GB (the attention layer), +390 MB (the projections), +401 MB (the distances). The 128 MB input is built
    before the measurement."""
    built = {k: v() if callable(v) else v for k, v in args.items()}
    got = measured_call(FUNCTIONS[qual], built)
    assert isinstance(got.error, ValueError) and name in str(got.error), got.error
    assert got.peak < 16 * 2**20, f"{qual}: peak {got.peak / 2**20:.0f} MB"


def test_similarity_of_far_apart_integer_positions_is_answered_like_the_shifted_request():
    """[0, 200000] × [0] at d = 64 is answered like [0.5, 200000.5] × [0.5]: the spread of the positions is no
    reason to refuse a request of three numbers."""
    got = measured_call(FUNCTIONS["sinusoidal.similarity"], dict(rows=[0, 200000], cols=[0], d_model=64))
    shifted = measured_call(FUNCTIONS["sinusoidal.similarity"], dict(rows=[0.5, 200000.5], cols=[0.5], d_model=64))
    assert got.error is None and shifted.error is None
    np.testing.assert_allclose(got.result, shifted.result, atol=1e-9)
    assert got.peak <= MAX_BYTES


def test_the_pages_largest_settings_stay_within_the_new_caps():
    """Every new cap is above what a page's controls can ask for: lesson 1 at d = 64, P = 1024 positions and 12
    bits, the Gaussian-kernel lesson at its largest T (its figure at posviz.gaussian.MAX_T)."""
    from posviz import gaussian, intro, ui

    def hi(slug: str, name: str) -> int:
        return next(c.hi for c in ui.find(slug).controls if c.name == name)

    d, n, bits = hi("intro", "d"), hi("intro", "P"), hi("intro", "bits")
    calls = [
        ("intro.linear_shift_residual", dict(codes=intro.position_codes("sinusoidal", n, d))),
        ("intro.linear_shift_residual", dict(codes=intro.bit_pairs(n, bits))),
        ("intro.distinct_codes", dict(codes=intro.binary_encoding(n, bits))),
        ("intro.attention_demo", dict(text=" ".join(f"w{k}" for k in range(intro.MAX_TOKENS)), d_model=d,
                                      causal=True)),
        ("gaussian.mean_by_distance", dict(matrix=gaussian.attention(hi("gaussian_kernel_rope", "T")))),
        ("gaussian.mean_by_distance", dict(matrix=gaussian.attention(gaussian.MAX_T))),
    ]
    for qual, args in calls:
        got = measured_call(FUNCTIONS[qual], args)
        assert got.error is None, f"{qual}: {got.error}"
        assert finite(got.result) and got.peak <= MAX_BYTES
