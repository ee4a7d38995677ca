"""posviz.realmodels: the learned table and its similarity, attention with either mask, where each encoding acts
(the shift check) and the atlas read from configs, each against an independent reference."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from posviz import models, realmodels
from posviz.sinusoidal import sinusoidal_table


@given(st.integers(2, 12), st.integers(1, 9), st.integers(0, 10_000))
@settings(max_examples=30, deadline=None)
def test_cosine_similarity_is_scipys(rows, d, seed):
    t = np.random.default_rng(seed).normal(size=(rows, d))
    assert np.allclose(realmodels.cosine_similarity(t), 1.0 - cdist(t, t, metric="cosine"), atol=1e-12)


def test_similarity_by_offset_averages_each_diagonal():
    t = np.random.default_rng(3).normal(size=(6, 4))
    s = 1.0 - cdist(t, t, metric="cosine")
    by = realmodels.similarity_by_offset(t)
    assert by[0] == pytest.approx(1.0)
    assert by[2] == pytest.approx(np.mean([s[p, p + 2] for p in range(4)]))
    assert by[5] == pytest.approx(s[0, 5])


def test_the_learned_table_is_the_shipped_models_position_table():
    table = realmodels.learned_table()
    model = models.load("learned")
    assert table.shape == (models.train_length(), model.config.d_model)
    assert np.array_equal(table, model.pos.weight.detach().double().numpy())
    assert np.array_equal(realmodels.sinusoidal_like(table), sinusoidal_table(*table.shape))


def test_a_position_past_the_table_has_no_row():
    assert realmodels.row_for_position(63, 64) == 63
    assert realmodels.row_for_position(64, 64) is None
    with pytest.raises(ValueError, match="p must"):
        realmodels.row_for_position(-1, 64)
    with pytest.raises(ValueError, match="table"):
        realmodels.cosine_similarity(np.ones(3))


@pytest.mark.parametrize("causal", [True, False])
def test_attend_is_torchs_scaled_dot_product_attention(causal):
    x = np.random.default_rng(1).normal(size=(7, 8))
    out, w = realmodels.attend(x, causal=causal, seed=5)
    wq, wk, wv = (torch.tensor(a) for a in realmodels._head(8, 5))
    xt = torch.tensor(x)
    ref = torch.nn.functional.scaled_dot_product_attention(xt @ wq, xt @ wk, xt @ wv, is_causal=causal)
    assert np.allclose(out, ref.numpy(), atol=1e-12)
    assert np.allclose(w.sum(axis=1), 1.0)
    if causal:
        assert np.all(np.triu(w, 1) == 0)


@given(st.integers(3, 40), st.integers(0, 500))
@settings(max_examples=20, deadline=None)
def test_only_the_causal_mask_breaks_permutation_equivariance_and_counts(T, seed):
    c = realmodels.mask_checks(T, seed=seed)
    assert c.perm_error_bidirectional < 1e-9 < c.perm_error_causal
    assert c.start_weight_causal[0] == pytest.approx(1.0)
    assert np.all(np.diff(c.start_weight_causal) < 0)
    assert np.allclose(c.start_weight_bidirectional[1:], c.start_weight_bidirectional[1])
    assert c.start_weight_causal[-1] == pytest.approx(c.start_weight_bidirectional[-1])


def test_the_causal_start_weight_follows_its_closed_form():
    """a_t = e^{s0} / (e^{s0} + t e^{sw}) for a query that is the repeated word."""
    T, d, seed = 10, 16, 0
    c = realmodels.mask_checks(T, d, seed)
    rng = np.random.default_rng(seed + 1)
    rng.normal(size=(T, d)), rng.permutation(T)
    word, start = rng.normal(size=d), rng.normal(size=d)
    wq, wk, _ = realmodels._head(d, seed)
    s0, sw = (float((word @ wq) @ (key @ wk)) / np.sqrt(d) for key in (start, word))
    t = np.arange(1, T)
    assert np.allclose(c.start_weight_causal[1:], np.exp(s0) / (np.exp(s0) + t * np.exp(sw)))


@pytest.mark.parametrize("scheme", list(realmodels.PLACES))
def test_only_an_input_code_lets_absolute_position_reach_the_logit(scheme):
    before, after = realmodels.shift_check(scheme, m=9, n=4, c=7)
    if realmodels.PLACES[scheme].where == "input":
        assert abs(before - after) > 1e-3
    else:
        assert before == pytest.approx(after, rel=1e-12, abs=1e-12)


def test_places_say_where_each_encoding_acts():
    where = {k: p.where for k, p in realmodels.PLACES.items()}
    assert where == {"sinusoidal": "input", "learned": "input", "rope": "qk", "alibi": "logits", "t5": "logits",
                     "kerple": "logits"}
    assert [k for k, p in realmodels.PLACES.items() if p.shared] == ["t5"]
    with pytest.raises(ValueError, match="scheme"):
        realmodels.shift_check("nope")


def test_the_atlas_reads_its_rope_rows_from_the_configs():
    rows = {r.model: r for r in realmodels.atlas()}
    assert "global layers (10): base 1,000,000" in rows["Gemma 3 27B"].facts
    assert "local (sliding-window) layers (52): base 10,000" in rows["Gemma 3 27B"].facts
    assert "no RoPE in 12 of 48 layers (3, 7, 11" in rows["Llama 4 Scout 17B-16E"].facts
    assert "64 of 192 query/key channels rotate" in rows["DeepSeek-V3"].facts
    assert "16, 24, 24" in rows["Qwen2-VL 7B"].facts
    assert rows["Llama 3 8B"].facts == "base 500,000, 128 of 128 channels rotate"
    assert rows["Code Llama 7B"].facts.startswith("base 1,000,000,")
    assert rows["Code Llama 7B"].explained_by == rows["Llama 3 8B"].explained_by == ("long_context", "base")
    assert {"GPT-2", "BERT base", "OPT", "ViT-B/16", "MAE", "BLOOM", "MPT-7B", "T5"} <= set(rows)
    assert all(r.source and r.explained_by for r in rows.values())
    assert len(rows) == len(realmodels.atlas())  # one row a model
