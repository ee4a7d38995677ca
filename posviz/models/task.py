"""The task every shipped model learns: continue a sequence that repeats with an unknown period.

A sequence of length T starts with P distinct tokens drawn uniformly from a vocabulary of V, then
repeats them with period P (``x_t = x_{t-P}`` for t >= P). The period is drawn per sequence,
``P ~ U{ceil(T/8), .., floor(T/2)}``, so it grows with the length: at the training length L the copy
distance is at most L/2, at L' = s·L it reaches L'/2, past anything seen in training. A model reads
``[BOS, x_0, .., x_{T-2}]`` and predicts ``x_0 .. x_{T-1}``; position t of every curve is the token x_t.

Why this task (docs/MODELS.md): once the period has been seen, every next token is determined, and the
mechanism that finds it needs both ends of the RoPE spectrum, a previous-token head (distance 1: the
high frequencies) and an induction head that matches content P - 1 tokens back (the low frequencies,
nearly constant inside L). Position-interpolating methods blur the first, extrapolation breaks the second.
Numpy only; the data are generated on the fly from a seed.
"""

from __future__ import annotations

import math

import numpy as np

from posviz._validate import check_int

VOCAB = 512          # tokens 0..V-1; BOS = V. P <= T/2 <= V keeps the first period distinct up to T = 1024
BOS = VOCAB
MIN_LENGTH = 8
MAX_LENGTH = 1024    # longest sequence a shipped model is evaluated at (16 L for L = 64)
MAX_BATCH_TOKENS = 1 << 16


def period_range(length: int) -> tuple[int, int]:
    """The periods a sequence of ``length`` tokens may have: ``(ceil(T/8), floor(T/2))``, both inclusive."""
    T = check_int("length", length, MIN_LENGTH, MAX_LENGTH)
    return math.ceil(T / 8), T // 2


def _periods(length: int, periods: tuple[int, int] | None) -> tuple[int, int]:
    """``periods`` checked (1 <= lo <= hi <= VOCAB), or the training draw at ``length`` if None."""
    if periods is None:
        return period_range(length)
    if not (isinstance(periods, tuple) and len(periods) == 2):
        raise ValueError(f"periods must be a (lo, hi) pair of ints; got {periods!r}")
    hi = check_int("periods[1]", periods[1], 1, VOCAB)
    return check_int("periods[0]", periods[0], 1, hi), hi


def sample_batch(n_sequences: int, length: int, seed: int, periods: tuple[int, int] | None = None,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n_sequences`` task sequences of ``length`` tokens from ``seed``: ``(inputs, targets, periods)``.

    The period of each sequence is drawn from ``periods = (lo, hi)`` (both inclusive), by default
    ``period_range(length)``, the draw at the training length. Evaluation past L passes the training
    length's range, so the copy distance stays what training saw and only the positions change.

    ``targets`` (n, T) int64 holds x_0..x_{T-1}; ``inputs`` is BOS followed by ``targets[:, :-1]``;
    ``periods`` (n,) the period P of each sequence. Tokens of the first period are distinct (a random
    permutation's first P entries), so "the token after the previous occurrence" is unambiguous.
    """
    n = check_int("n_sequences", n_sequences, 1, MAX_BATCH_TOKENS)
    T = check_int("length", length, MIN_LENGTH, MAX_LENGTH)
    if n * T > MAX_BATCH_TOKENS:
        raise ValueError(f"n_sequences × length must be at most {MAX_BATCH_TOKENS:,}; got {n} × {T} = {n * T:,}")
    seed = check_int("seed", seed, 0, 2**63 - 1)
    rng = np.random.default_rng(seed)
    lo, hi = _periods(T, periods)
    drawn = rng.integers(lo, hi + 1, size=n)  # (n,)
    perm = np.argsort(rng.random((n, VOCAB)), axis=1)[:, :hi]  # (n, hi): distinct tokens per row
    t = np.arange(T)
    targets = np.take_along_axis(perm, t[None, :] % drawn[:, None], axis=1)  # (n, T): x_t = perm[t mod P]
    inputs = np.concatenate([np.full((n, 1), BOS), targets[:, :-1]], axis=1)  # (n, T)
    return inputs.astype(np.int64), targets.astype(np.int64), drawn


def bayes_floor(length: int, periods: tuple[int, int] | None = None) -> np.ndarray:
    """The lowest mean loss (nats) any model can reach at each position t of the task, shape (T,), with the
    period drawn from ``periods = (lo, hi)`` (default ``period_range(length)``; see ``sample_batch``).

    Given x_0..x_{t-1}: if the period P < t the repeat has shown P and x_t is certain (loss 0). If not,
    the history is all distinct and P is uniform on ``{max(lo, t) .. hi}``; x_t = x_0 with probability
    ``π_t = 1/(hi - max(lo, t) + 1)`` (when t >= lo), else uniform over the V - t unused tokens. Averaging
    over P ~ U{lo..hi}: ``Pr(P=t)·(-ln π_t) + Pr(P>t)·(-ln((1 - π_t)/(V - t)))``.
    """
    lo, hi = _periods(check_int("length", length, 1, MAX_LENGTH), periods)
    t = np.arange(length, dtype=np.float64)
    n_periods = hi - lo + 1
    p_equal = np.where((t >= lo) & (t <= hi), 1.0 / n_periods, 0.0)
    p_greater = np.clip(hi - np.maximum(t, lo - 1), 0, None) / n_periods  # Pr(P > t)
    remaining = hi - np.maximum(t, lo) + 1  # periods still possible when the history is distinct
    pi = np.where(t >= lo, 1.0 / np.maximum(remaining, 1), 0.0)
    unused = np.maximum(VOCAB - t, 1.0)  # tokens not yet used (only read where t < P <= V)
    loss_equal = np.where(p_equal > 0, -np.log(np.where(pi > 0, pi, 1.0)), 0.0)
    loss_greater = np.where(p_greater > 0, -np.log(np.clip(1 - pi, 1e-300, None) / unused), 0.0)
    return p_equal * loss_equal + p_greater * loss_greater
