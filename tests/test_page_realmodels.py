"""The lesson on position in real models under AppTest: each part runs clean, its captions and checks carry the
computed numbers, the atlas links the parts that explain each row, and its questions reveal computed answers."""

from __future__ import annotations

import numpy as np
import pytest

from posviz import models, realmodels, ui
from testkit.apptest import ROOT, assert_clean, chart_specs, numbers, run_page

pytestmark = pytest.mark.app
PAGE = "pages/10_Position_in_real_models.py"


def captions(at) -> str:
    return "\n".join(str(c.value) for c in at.caption)


def checks(at) -> str:
    return "\n".join(str(m.value) for m in at.markdown if " holds" in str(m.value) or " fails" in str(m.value))


def test_learned_part_says_the_table_has_no_row_past_L():
    at = run_page(PAGE, {"part": "learned", "p": "70"})
    assert_clean(at)
    L = models.train_length()
    assert numbers(at)["rows L"] == str(L)
    assert numbers(at)["row it reads"] == ("none (p ≥ L)" if L <= 70 else "70")
    sim = realmodels.similarity_by_offset(realmodels.learned_table())
    assert f"have mean cosine {sim[1]:.2f}" in captions(at)
    k_neg, k_min = int(np.flatnonzero(sim < 0)[0]), int(np.argmin(sim))
    assert sim[k_neg - 1] >= 0 > sim[k_neg] and sim[k_min] == sim.min()
    assert (f"first turns negative at k = {k_neg} ({sim[k_neg]:.2f}) and is most negative at k = {k_min} "
            f"({sim[k_min]:.2f})") in captions(at)
    assert "opposed" not in captions(at)
    assert f"exactly L = {L} rows" in checks(at) and "holds" in checks(at)
    at = run_page(PAGE, {"part": "learned", "p": "3"})
    assert numbers(at)["row it reads"] == "3"


def sidebar_values(at) -> dict[str, object]:
    return {w.label: w.value for kind in ("slider", "number_input") for w in getattr(at.sidebar, kind)}


def test_position_p_is_a_lesson_control_the_learned_part_shows_in_the_sidebar():
    """p is declared by the lesson and used by its first part, so a shared link restores it in the sidebar."""
    lesson = ui.find("real_models", ROOT / "pages")
    first = next(iter(lesson.parts.values()))
    assert first.key == "learned" and "p" in first.uses and "p" in lesson.control_names
    assert sidebar_values(run_page(PAGE, {"part": "learned", "p": "71"}))["position p"] == 71
    assert "position p" not in sidebar_values(run_page(PAGE, {"part": "masks"}))  # only the parts that use it


def test_masks_part_checks_counting_and_equivariance():
    at = run_page(PAGE, {"part": "masks", "T": "20", "seed": "4"})
    assert_clean(at)
    c = realmodels.mask_checks(20, seed=4)
    assert f"to {c.start_weight_causal[-1]:.3f} at t = 19" in captions(at)
    bi = c.start_weight_bidirectional
    assert np.allclose(bi[1:], bi[-1]) and not np.isclose(bi[0], bi[-1])  # the copies agree; the start differs
    assert f"copy of the word (t ≥ 1) puts {bi[-1]:.3f} on the start token" in captions(at)
    assert f"t = 0, puts {bi[0]:.3f} on itself" in captions(at)
    assert checks(at).count("holds") == 2
    assert len(chart_specs(at)) == 1


@pytest.mark.parametrize("scheme", list(realmodels.PLACES))
def test_places_part_says_what_the_logit_depends_on(scheme):
    at = run_page(PAGE, {"part": "places", "scheme": scheme, "shift": "11"})
    assert_clean(at)
    before, after = realmodels.shift_check(scheme, c=11)
    assert f"give {before:.4f}" in captions(at) and f"they give {after:.4f}" in captions(at)
    verdict = "fails" if realmodels.PLACES[scheme].where == "input" else "holds"
    assert f"(both tokens moved by c)** {verdict}" in checks(at)


def test_atlas_links_every_row_to_an_existing_part():
    at = run_page(PAGE, {"part": "atlas", "row": "Llama 4 Scout 17B-16E"})
    assert_clean(at)
    text = "\n".join(str(m.value) for m in at.markdown)
    for row in realmodels.atlas():
        slug, part = row.explained_by
        assert f"]({ui.href(slug, ROOT / 'pages', part=part)})" in text, row.model
        lesson = ui.find(slug, ROOT / "pages")
        heading = next(p.title or p.label for p in lesson.parts.values() if part in (p.key, *p.aliases))
        assert f"[{lesson.title}: {heading}](" in text, row.model
    assert "Real models' configs](" not in text and "[Context extension: 9. Real models' config.json](" in text
    assert "no RoPE in 12 of 48 layers" in text


def test_questions_reveal_a_computed_answer():
    at = run_page(PAGE, {"part": "learned"})
    radio = next(w for w in at.radio if w.key == "_check.real_models.0")
    radio.set_value("row 1500").run()
    assert_clean(at)
    shown = [str(m.value) for m in at.markdown if "Not quite" in str(m.value)]
    assert shown == ["**Not quite: the answer is no row: the table has none.** a 1024-row table has rows 0..1023; "
                     "position 1500 has none."]
