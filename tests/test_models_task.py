"""The task of posviz.models (numpy only, no torch): the generator's rule and the Bayes floor, the latter
against an independent Monte-Carlo estimate of the Bayes-optimal predictor's loss."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.models.task import BOS, MAX_LENGTH, VOCAB, bayes_floor, period_range, sample_batch


@given(n=st.integers(1, 6), T=st.integers(8, 300), seed=st.integers(0, 10**6))
@settings(max_examples=40, deadline=None)
def test_sequences_repeat_with_their_period(n, T, seed):
    inputs, targets, periods = sample_batch(n, T, seed)
    lo, hi = period_range(T)
    assert inputs.shape == targets.shape == (n, T)
    assert np.all((periods >= lo) & (periods <= hi))
    assert np.all(inputs[:, 0] == BOS) and np.array_equal(inputs[:, 1:], targets[:, :-1])
    assert targets.min() >= 0 and targets.max() < VOCAB
    for row, P in zip(targets, periods):
        assert len(set(row[:P].tolist())) == P          # the first period is distinct
        assert np.array_equal(row[P:], row[:-P])          # x_t = x_{t-P}


def test_period_grows_with_length_and_seeds_differ():
    assert period_range(64) == (8, 32) and period_range(1024) == (128, 512)
    a, b = sample_batch(4, 64, 1)[1], sample_batch(4, 64, 2)[1]
    assert not np.array_equal(a, b)
    assert np.array_equal(a, sample_batch(4, 64, 1)[1])


@pytest.mark.parametrize("kwargs, name", [
    (dict(n_sequences=0, length=64, seed=0), "n_sequences"),
    (dict(n_sequences=2, length=7, seed=0), "length"),
    (dict(n_sequences=2, length=MAX_LENGTH + 1, seed=0), "length"),
    (dict(n_sequences=2, length=64.5, seed=0), "length"),
    (dict(n_sequences=2, length=64, seed=-1), "seed"),
    (dict(n_sequences=1000, length=1000, seed=0), "n_sequences × length"),
])
def test_bad_arguments_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        sample_batch(**kwargs)


def _bayes_loss(row: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Loss of the Bayes-optimal predictor on one sequence, by enumerating every period P in [lo, hi]:
    the posterior weight of P is the likelihood of the history under P (1/(V - j) for each new token of
    the first period, 1 for each copy, 0 if a copy disagrees), the prediction the weighted mixture."""
    T = row.size
    out = np.empty(T)
    for t in range(T):
        weights, p_next = [], []
        for P in range(lo, hi + 1):
            hist = row[:t]
            if t > P and (not np.array_equal(row[P:t], row[: t - P]) or len(set(row[:P].tolist())) < P):
                continue
            if t <= P and len(set(hist.tolist())) < t:
                continue
            n_new = min(P, t)
            weights.append(math.exp(-sum(math.log(VOCAB - j) for j in range(n_new))))
            if t >= P:
                p_next.append(1.0 if row[t] == row[t - P] else 0.0)
            else:
                p_next.append(0.0 if row[t] in set(hist.tolist()) else 1.0 / (VOCAB - t))
        w = np.array(weights) / sum(weights)
        out[t] = -math.log(float(w @ np.array(p_next)))
    return out


def test_bayes_floor_matches_a_monte_carlo_of_the_bayes_predictor():
    T, n = 24, 300
    lo, hi = period_range(T)
    _, targets, _ = sample_batch(n, T, 7)
    losses = np.array([_bayes_loss(row, lo, hi) for row in targets])  # (n, T)
    mean, sem = losses.mean(axis=0), losses.std(axis=0) / math.sqrt(n) + 1e-9
    floor = bayes_floor(T)
    assert np.all(np.abs(mean - floor) <= 4 * sem + 1e-9), (mean - floor) / sem


def test_fair_floor_matches_a_monte_carlo_of_the_bayes_predictor_past_the_training_length():
    """The fair evaluation: sequences of T = 40 whose periods are drawn from a training length of 20's range
    (3..10); the Bayes predictor enumerates exactly those periods."""
    T, n, periods = 40, 200, period_range(20)
    _, targets, drawn = sample_batch(n, T, 9, periods)
    assert drawn.min() >= periods[0] and drawn.max() <= periods[1]
    losses = np.array([_bayes_loss(row, *periods) for row in targets])  # (n, T)
    mean, sem = losses.mean(axis=0), losses.std(axis=0) / math.sqrt(n) + 1e-9
    floor = bayes_floor(T, periods)
    assert np.all(np.abs(mean - floor) <= 4 * sem + 1e-9), (mean - floor) / sem
    np.testing.assert_allclose(floor[periods[1] + 1:], 0.0)     # every period has shown itself by then
    np.testing.assert_allclose(floor[:20], bayes_floor(20))      # the training length's floor, then zeros


@given(L=st.integers(8, 256), s=st.integers(1, 4), seed=st.integers(0, 10**6))
@settings(max_examples=30, deadline=None)
def test_fair_sequences_keep_the_training_periods_at_any_length(L, s, seed):
    lo, hi = period_range(L)
    T = min(MAX_LENGTH, s * L)
    _, targets, drawn = sample_batch(2, T, seed, (lo, hi))
    assert np.all((drawn >= lo) & (drawn <= hi))
    for row, P in zip(targets, drawn):
        assert np.array_equal(row[P:], row[:-P])
    floor = bayes_floor(T, (lo, hi))
    np.testing.assert_allclose(floor[: min(T, L)], bayes_floor(L)[: min(T, L)])
    assert np.all(floor[hi + 1:] == 0)


@pytest.mark.parametrize("periods, name", [((0, 5), "periods"), ((5, 4), "periods"), ((2, VOCAB + 1), "periods"),
                                           ("8,32", "periods"), ((8,), "periods")])
def test_bad_periods_name_the_parameter(periods, name):
    with pytest.raises(ValueError, match=name):
        sample_batch(2, 64, 0, periods)
    with pytest.raises(ValueError, match=name):
        bayes_floor(64, periods)


def test_bayes_floor_closed_form_edges():
    T = 64
    lo, hi = period_range(T)
    floor = bayes_floor(T)
    t = np.arange(T)
    np.testing.assert_allclose(floor[:lo], np.log(VOCAB - t[:lo]))   # no period can have started
    np.testing.assert_allclose(floor[hi + 1:], 0.0)                  # every period has shown itself
    assert np.all(np.diff(floor[lo:hi + 1]) < 0)                     # falls as more periods reveal themselves


@given(T=st.integers(8, MAX_LENGTH))
@settings(max_examples=60, deadline=None)
def test_bayes_floor_is_finite_and_bounded_at_every_length(T):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        floor = bayes_floor(T)
    assert floor.shape == (T,) and np.all(np.isfinite(floor))
    assert np.all(floor >= 0) and np.all(floor <= math.log(VOCAB) + 1e-12)
