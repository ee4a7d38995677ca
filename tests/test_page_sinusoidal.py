"""AppTest of the Sinusoidal lesson: what a learner sees in each part, and the numbers its captions quote (every part
clean at its defaults, at its extremes and with hostile URLs: tests/test_pages_all.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posviz import sinusoidal as sn
from testkit.apptest import assert_clean, chart_specs, page_at, warnings_text

pytestmark = pytest.mark.app

PAGE = "pages/2_Sinusoidal.py"
PARTS = ["table", "waves", "similarity", "shift", "pitfalls"]


def captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


@pytest.mark.parametrize("part", PARTS)
def test_each_part_draws_its_heading_and_figures_and_only_its_controls(part):
    at = page_at(PAGE, part=part)
    assert_clean(at)
    assert len(at.header) == 1 and at.header[0].value.startswith(str(PARTS.index(part) + 1))
    assert chart_specs(at)
    export_settings = {"scale"}
    sidebar = {w.label for kind in ("slider", "select_slider", "radio") for w in at.sidebar.get(kind)} - export_settings
    if part == "shift":  # the rotation needs d and b only: P and the layout are not shown
        assert sidebar == {"model dimension d_model", "base b"}
    else:
        assert "model dimension d_model" in sidebar


def test_the_wavelength_caption_quotes_the_last_pair_not_two_pi_b():
    for d, base in ((128, 10000.0), (16, 500.0)):
        at = page_at(PAGE, part="waves", d=str(d), base=f"{base:g}")
        lam = sn.wavelengths(d, base)
        text = captions(at)
        assert f"{lam[-1]:,.0f} tokens (pair {d // 2 - 1}, the last)" in text
        assert f"2π·b = {2 * math.pi * base:,.0f}, which no pair reaches" in text
        assert lam[-1] < 2 * math.pi * base


def test_the_dimension_sliders_are_bounded_by_d_model():
    at = page_at(PAGE, part="waves", d="8", dim_b="21")
    assert_clean(at)
    sliders = {s.label: s for s in at.main.slider}
    assert sliders["second dimension j"].max == 7 and sliders["second dimension j"].value == 7
    waves = chart_specs(at)[0]
    assert any("dim 7" in (t.get("name") or "") for t in waves["data"])


def test_the_shift_caption_quotes_the_turn_of_the_chosen_pair_and_the_check_holds():
    at = page_at(PAGE, part="shift", pair="3", k="7")
    assert_clean(at)
    omega = sn.frequencies(128, 10000.0)[3]
    assert f"turns pair 3 by k·ω = 7 × {omega:.4g} = {math.degrees(7 * omega):.1f}°" in captions(at)
    assert any("M_k · PE(p) = PE(p + k)" in m.value and "holds" in m.value for m in at.markdown)


def test_the_default_shift_turns_by_less_than_a_right_angle():
    """Part 4 opens on a visible arc, not a 286° loop that hides the start under the end."""
    at = page_at(PAGE, part="shift")
    omega = sn.frequencies(128, 10000.0)[10]
    assert 20 < math.degrees(5 * omega) < 90
    assert "pair 10" in captions(at)


def test_the_left_right_caption_compares_like_with_like():
    at = page_at(PAGE, part="similarity")
    text = captions(at)
    assert "cannot tell left from right" not in text
    assert "for any query and key" in text
    offsets = np.arange(1, 50)
    assert np.allclose(sn.dot_by_offset(offsets, 128), sn.dot_by_offset(-offsets, 128))


def test_the_exponent_pitfall_quotes_both_last_wavelengths():
    at = page_at(PAGE, part="pitfalls", d="64")
    right = sn.wavelengths(64, 10000.0)[-1]
    wrong = 2 * math.pi * 10000.0 ** (2 * 62 / 64)
    assert f"the last one {right:,.0f} tokens" in captions(at)
    assert f"ends at {wrong:.3g} tokens" in captions(at)


def test_a_bad_url_value_warns_and_the_view_falls_back():
    at = page_at(PAGE, d="3", base="nan")
    assert_clean(at)
    text = warnings_text(at)
    assert "`d`" in text and "`base`" in text
    heat = chart_specs(at)[0]
    assert "interleaved" in heat["layout"]["title"]["text"]


def test_the_shift_formula_is_written_in_the_plots_order_and_checked_in_it():
    """Part 4 plots each pair as (cos pω, sin pω), counter-clockwise: the formula takes that order, with the
    counter-clockwise matrix [[cos kω, −sin kω], [sin kω, cos kω]], and the check applies that matrix to the
    (cos, sin) pairs: on (sin, cos) pairs the same M_k would read as a clockwise rotation."""
    at = page_at(PAGE, part="shift", p="40", k="9", pair="2")
    formula = " ".join(el.value for el in at.latex)
    vector = r"\begin{pmatrix}\cos((p+k)\omega)\\ \sin((p+k)\omega)\end{pmatrix}"
    matrix = r"\begin{pmatrix}\cos k\omega & -\sin k\omega\\ \sin k\omega & \cos k\omega\end{pmatrix}"
    assert vector in formula and matrix in formula and r"\sin((p+k)\omega)\\ \cos" not in formula
    pe = sn.sinusoidal_table(50, 128)[:, np.arange(128) ^ 1]  # (cos, sin) per pair
    err = float(np.abs(sn.shift_matrix(9, 128, order="cos_sin") @ pe[40] - pe[49]).max())
    check = next(m.value for m in at.markdown if "M_k · PE(p) = PE(p + k)" in m.value)
    assert "each pair as (cos, sin)" in check and check.startswith("✅") and f"= {err:.1e} at p = 40, k = 9" in check
    assert "read as the point (cos pω, sin pω)" in captions(at) and "Each (sin, cos) pair" not in captions(at)
