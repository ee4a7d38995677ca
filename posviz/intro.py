"""The first lesson's math: why attention needs positions, and the road from integers to sinusoids.

After C. Fleetwood, "You could have designed state of the art positional encoding" (docs/SOURCES.md). Everything
runs on small seeded numpy arrays, no download and no torch:

* a word tokenizer and a seeded embedding table (each word's row depends only on the word and the seed);
* one self-attention layer without positions, ``softmax(Q Kᵀ/√d) V`` with seeded ``W_q, W_k, W_v``:
  bidirectional by default (no mask, so it is permutation-equivariant: ``attn(Π x) = Π attn(x)`` for a
  permutation matrix Π), or causal (query i sees keys j <= i, which already depends on where a row sits);
* the candidate position codes: integer ``p``, normalised ``p/N``, binary bits, their smooth cousins,
  and Vaswani's sinusoids (``posviz.sinusoidal.sinusoidal_table``);
* two measurements behind the "five properties": step lengths ``‖code(p+1) − code(p)‖`` and how well
  one fixed affine map sends ``code(p)`` to ``code(p+k)`` for every p;
* the five-properties table itself (data; the page renders it).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from posviz._validate import check_array, check_bool, check_choice, check_float, check_int
from posviz.sinusoidal import frequencies, sinusoidal_table

DEFAULT_TEXT = "The dog chased another dog"
MAX_TOKENS = 24          # words kept from the sentence; the rest are dropped (the page says so)
MAX_TEXT_CHARS = 2000    # longest text the tokenizer reads
MAX_DIM = 64             # embedding size d of the attention demo
MAX_POSITIONS = 1024     # positions in the integer / normalised / binary / sinusoid figures
MAX_BITS = 12            # bits of the binary code (2**12 = 4096 distinct codes)
MAX_SHUFFLE = 1000       # shuffle seeds
MAX_SEED = 10_000        # weight / embedding seeds
MAX_OFFSET = 200_000     # offsets scanned by offset_distances (the "length limit" pitfall)
MAX_ABS_INPUT = 1e6      # largest |x| accepted by self_attention (keeps scores finite)
MAX_ATTENTION_TOKENS = 1024  # rows of self_attention's x: the (T, T) weights stay at 8 MB
MAX_ATTENTION_DIM = 512      # d of self_attention / attention_weights_qkv: W_q, W_k, W_v take 6 MB
MAX_CODE_VALUES = 1 << 20    # values (rows × columns) of one codes / values array: 8 MB of float64
MAX_CODE_COLUMNS = 4096      # columns of one codes / values array (measured_flip_periods loops over them)
MAX_FIT_COLUMNS = 128        # columns linear_shift_residual fits by least squares (cost N·d²)
EMBED_STD = 0.5          # spread of the seeded embedding entries, "values near 0"

POSITION_SCHEMES = ("none", "sinusoidal")
PAIR_SETS = ("all", "slowest")
CODE_SCHEMES = ("integer", "normalised", "binary", "smooth", "sinusoidal")

_WORD = re.compile(r"\w+")


# ---------------------------------------------------------------------------------------------------
# tokens, embeddings, one attention layer


def tokenize(text: str, max_tokens: int = MAX_TOKENS) -> list[str]:
    """Lower-cased words of ``text`` (runs of letters, digits or ``_``), at most ``max_tokens`` of them.

    Punctuation and markup are dropped, so a token never contains ``<``, ``>`` or ``*``. Raises
    ValueError if ``text`` is not a string, is longer than MAX_TEXT_CHARS, or holds no word.
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string; got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"text must be at most {MAX_TEXT_CHARS} characters; got {len(text)}")
    max_tokens = check_int("max_tokens", max_tokens, 1, 4096)
    words: list[str] = []
    for match in _WORD.finditer(text.lower()):
        words.append(match.group(0))
        if len(words) == max_tokens:
            break
    if not words:
        raise ValueError("text must contain at least one word (letters or digits)")
    return words


def count_words(text: str) -> int:
    """How many words ``text`` holds before any cap (so the page can say when MAX_TOKENS applies)."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string; got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"text must be at most {MAX_TEXT_CHARS} characters; got {len(text)}")
    return sum(1 for _ in _WORD.finditer(text.lower()))


def token_embeddings(tokens: Sequence[str], d_model: int = 16, seed: int = 0) -> np.ndarray:
    """Rows of a seeded embedding table for ``tokens``, shape (T, d_model), entries ~ N(0, EMBED_STD²).

    The table is indexed by the word itself: a word's row is drawn from a generator seeded with
    ``(seed, crc32(word))``, so the same word gets the same row in every sentence and every run.
    """
    if isinstance(tokens, str) or not isinstance(tokens, Sequence):
        raise ValueError(f"tokens must be a list of strings; got {type(tokens).__name__}")
    if not 1 <= len(tokens) <= 4096:
        raise ValueError(f"tokens must hold 1 to 4096 strings; got {len(tokens)}")
    if not all(isinstance(t, str) for t in tokens):
        raise ValueError("tokens must be a list of strings")
    d_model = check_int("d_model", d_model, 2, MAX_DIM)
    seed = check_int("seed", seed, 0, MAX_SEED)
    rows = {}
    for word in dict.fromkeys(tokens):
        key = zlib.crc32(word.encode("utf-8", "surrogatepass"))
        rows[word] = np.random.default_rng([seed, key]).normal(0.0, EMBED_STD, d_model)
    return np.stack([rows[t] for t in tokens])  # (T, d)


def repeated_sentence(text: str, n_positions: int, d_model: int = 16, seed: int = 0
                      ) -> tuple[tuple[str, ...], np.ndarray]:
    """The sentence's words repeated to fill ``n_positions`` slots, and their embeddings (N, d_model)."""
    words = tokenize(text)
    n_positions = check_int("n_positions", n_positions, 1, MAX_POSITIONS)
    tokens = tuple(words[p % len(words)] for p in range(n_positions))
    return tokens, token_embeddings(tokens, d_model, seed)


def attention_weights_qkv(d_model: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeded projections ``W_q, W_k, W_v``, each (d_model, d_model) with entries ~ N(0, 1/d_model).

    The variance 1/d keeps ``x W`` at the scale of x (Vaswani et al. 2017, §3.2). d_model is at most
    MAX_ATTENTION_DIM (the three matrices then take 6 MB).
    """
    d_model = check_int("d_model", d_model, 1, MAX_ATTENTION_DIM)
    seed = check_int("seed", seed, 0, MAX_SEED)
    rng = np.random.default_rng([seed, 0x5A77])
    w = rng.normal(0.0, 1.0 / np.sqrt(d_model), (3, d_model, d_model))
    return w[0], w[1], w[2]


def _check_size_first(name: str, value: object, cap: int) -> None:
    """Refuse an array argument with more than ``cap`` values before it is copied (ValueError naming it)."""
    size = getattr(value, "size", None)
    if isinstance(size, (int, np.integer)) and size > cap:
        raise ValueError(f"{name} must hold at most {cap:,} values; got {int(size):,}")


def _softmax_rows(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax of (R, T) scores, −inf entries (masked keys) giving weight exactly 0."""
    scores = scores - scores.max(axis=1, keepdims=True)
    a = np.exp(scores)
    return a / a.sum(axis=1, keepdims=True)


def self_attention(x: np.ndarray, seed: int = 0, causal: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """One single-head self-attention layer without positions: ``A = softmax(Q Kᵀ/√d + M)``, output ``A V``.

    ``Q, K, V = x W_q, x W_k, x W_v`` (Vaswani et al. 2017, §3.2.1); returns ``(A V, A)`` with shapes (T, d)
    and (T, T). Bidirectional (``causal=False``): M = 0, nothing looks at a row's index, so permuting the rows
    of x permutes the output rows the same way and equal rows of x give equal output rows: each distinct row
    is computed once (a BLAS product can round a row differently by where it sits, and the lesson shows the
    gap as exactly 0). Causal (the decoder's mask, §3.2.3): ``M_ij = −∞`` for j > i, so query i averages
    only the values of keys 0..i and two equal rows at different places get different outputs.
    x is (T, d) with T <= MAX_ATTENTION_TOKENS and d <= MAX_ATTENTION_DIM.
    """
    _check_size_first("x", x, MAX_ATTENTION_TOKENS * MAX_ATTENTION_DIM)
    arr = check_array("x", x, ndim=2, lo=-MAX_ABS_INPUT, hi=MAX_ABS_INPUT)
    check_int("x.shape[0] (tokens)", arr.shape[0], 1, MAX_ATTENTION_TOKENS)
    check_int("x.shape[1] (d)", arr.shape[1], 1, MAX_ATTENTION_DIM)
    causal = check_bool("causal", causal)
    w_q, w_k, w_v = attention_weights_qkv(arr.shape[1], seed)
    scale = np.sqrt(arr.shape[1])
    if causal:
        scores = (arr @ w_q) @ (arr @ w_k).T / scale  # (T, T)
        scores[np.triu_indices(arr.shape[0], 1)] = -np.inf  # key j after query i
        a = _softmax_rows(scores)
        return a @ (arr @ w_v), a  # (T, d), (T, T)
    rows, slot = np.unique(arr, axis=0, return_inverse=True)  # (U, d) distinct rows; slot: (T,) row of each
    slot = slot.reshape(-1)
    q, k, v = rows @ w_q, (rows @ w_k)[slot], (rows @ w_v)[slot]  # (U, d), (T, d), (T, d)
    a = _softmax_rows(q @ k.T / scale)  # (U, T)
    return (a @ v)[slot], a[slot]  # (T, d), (T, T)


def shuffle_order(n: int, shuffle: int = 0) -> np.ndarray:
    """A seeded permutation of ``range(n)``: ``shuffle = 0`` keeps the order, any other seed shuffles."""
    n = check_int("n", n, 1, 1 << 20)
    shuffle = check_int("shuffle", shuffle, 0, MAX_SHUFFLE)
    if shuffle == 0:
        return np.arange(n)
    return np.random.default_rng([shuffle, 0x5EED]).permutation(n)


def repeated_pair(tokens: Sequence[str]) -> tuple[int, int] | None:
    """Indices ``(i, j)``, i < j, of the first word that occurs twice, or None if every word is unique."""
    if isinstance(tokens, str) or not isinstance(tokens, Sequence) or not all(isinstance(t, str) for t in tokens):
        raise ValueError(f"tokens must be a list of strings; got {type(tokens).__name__}")
    seen: dict[str, int] = {}
    for j, t in enumerate(tokens):
        if t in seen:
            return seen[t], j
        seen[t] = j
    return None


@dataclass(frozen=True)
class AttentionDemo:
    """One run of the demo: the (possibly shuffled) tokens and what the layer made of them."""

    tokens: tuple[str, ...]   # in the order fed to the layer
    order: np.ndarray         # order[slot] = index of that token in the original sentence
    x: np.ndarray             # (T, d) layer input: embeddings (+ PE of each slot)
    out: np.ndarray           # (T, d) layer output
    weights: np.ndarray       # (T, T) attention weights


def attention_demo(text: str = DEFAULT_TEXT, d_model: int = 16, seed: int = 0, positions: str = "none",
                   shuffle: int = 0, base: float = 10000.0, causal: bool = False) -> AttentionDemo:
    """Tokenize, (shuffle,) embed, optionally add sinusoidal PE by slot, and run ``self_attention``.

    With ``positions="sinusoidal"`` the slot t (0-based, after shuffling) gets ``sinusoidal_table(T, d)[t]``
    added to its embedding (Vaswani §3.5; docs/FORMULAS.md §2.1), so d_model must be even. ``causal``
    applies the decoder's mask ``j <= i`` (``self_attention``); the default is the bidirectional layer.
    """
    positions = check_choice("positions", positions, POSITION_SCHEMES)
    causal = check_bool("causal", causal)
    if positions == "sinusoidal":
        d_model = check_int("d_model", d_model, 2, MAX_DIM, even=True)
    words = tokenize(text)
    order = shuffle_order(len(words), shuffle)
    tokens = tuple(words[i] for i in order)
    x = token_embeddings(tokens, d_model, seed)  # (T, d)
    if positions == "sinusoidal":
        x = x + sinusoidal_table(len(tokens), d_model, check_float("base", base, 1.0, 1e12, lo_open=True))
    out, a = self_attention(x, seed, causal)
    return AttentionDemo(tokens, order, x, out, a)


def row_gap(values: np.ndarray, i: int, j: int) -> float:
    """``max_c |values[i, c] − values[j, c]|``: how far apart two output rows are (0 = identical)."""
    arr = _as_codes(values, "values", min_rows=1)
    i = check_int("i", i, 0, arr.shape[0] - 1)
    j = check_int("j", j, 0, arr.shape[0] - 1)
    return float(np.abs(arr[i] - arr[j]).max())


def equivariance_gap(text: str = DEFAULT_TEXT, d_model: int = 16, seed: int = 0, positions: str = "none",
                     shuffle: int = 1, base: float = 10000.0) -> float:
    """``max |attn(Π·x) − Π·attn(x)|`` for the shuffle permutation Π of the bidirectional layer: 0 without
    positions (permutation equivariance), > 0 once PE is added by slot."""
    plain = attention_demo(text, d_model, seed, positions, 0, base)
    shuffled = attention_demo(text, d_model, seed, positions, shuffle, base)
    return float(np.abs(shuffled.out - plain.out[shuffled.order]).max())


# ---------------------------------------------------------------------------------------------------
# candidate position codes


def integer_encoding(n_positions: int, d_model: int) -> np.ndarray:
    """The integer code: every component of position p is p itself, shape (n_positions, d_model)."""
    n_positions = check_int("n_positions", n_positions, 1, MAX_POSITIONS)
    d_model = check_int("d_model", d_model, 1, MAX_DIM)
    return np.repeat(np.arange(n_positions, dtype=np.float64)[:, None], d_model, axis=1)  # (N, d)


def normalised_positions(length: int) -> np.ndarray:
    """``p / N`` for p = 0 .. N−1 with N = ``length``, the sequence's own length: values in [0, 1)."""
    length = check_int("length", length, 1, MAX_POSITIONS)
    return np.arange(length, dtype=np.float64) / length


def normalised_settings(length: int = 10, *, which: str = "short", other: int = 100,
                        position: int = 5) -> dict[str, int]:
    """The p / N figure's settings with one of its lengths (``which``: "short" or "long") at ``length``: that
    length, and the position kept below both (min(p, min(N₁, N₂) − 1)), as the page's position slider keeps it."""
    length = check_int("length", length, 1, MAX_POSITIONS)
    other = check_int("other", other, 1, MAX_POSITIONS)
    position = check_int("position", position, 0, MAX_POSITIONS - 1)
    return {check_choice("which", which, ("short", "long")): length, "position": min(position, min(length, other) - 1)}


def binary_encoding(n_positions: int, n_bits: int) -> np.ndarray:
    """Bits of p, least significant first: ``B[p, j] = (p >> j) & 1``, shape (n_positions, n_bits).

    Bit j flips every 2**j tokens (the LSB every token, the MSB every 2**(n_bits−1)). Positions
    ``>= 2**n_bits`` wrap around: p and p + 2**n_bits share a code.
    """
    n_positions = check_int("n_positions", n_positions, 1, MAX_POSITIONS)
    n_bits = check_int("n_bits", n_bits, 1, MAX_BITS)
    p = np.arange(n_positions)[:, None]
    j = np.arange(n_bits)[None, :]
    return ((p >> j) & 1).astype(np.float64)  # (N, n)


def smooth_bits(n_positions: int, n_bits: int) -> np.ndarray:
    """Each bit's square wave replaced by the sinusoid with the same wavelength 2**(j+1) and phase.

    ``S[p, j] = ½ − ½·cos(π (p − (2**j − 1)/2) / 2**j)``: 0 where bit j is 0 for the longest, 1 in the
    middle of its run of ones (the first Fourier harmonic of the bit, rescaled to [0, 1]).
    """
    n_positions = check_int("n_positions", n_positions, 1, MAX_POSITIONS)
    return smooth_bits_at(np.arange(n_positions, dtype=np.float64), n_bits)  # (N, n)


def smooth_bits_at(positions: object, n_bits: int) -> np.ndarray:
    """:func:`smooth_bits` at any real positions, fractional ones included, shape (len(positions), n_bits).

    ``S(p, j) = ½ − ½·cos(π (p − (2**j − 1)/2) / 2**j)`` is a function of a real p: drawn through many
    fractional positions it shows the wave itself, which samples at the integers alone only hint at (bit 0,
    wavelength 2, is 0, 1, 0, 1 there).
    """
    p = check_array("positions", positions, ndim=1, max_size=MAX_CODE_VALUES // MAX_BITS, lo=-MAX_ABS_INPUT,
                    hi=MAX_ABS_INPUT, scalar_ok=True)[:, None]  # (N, 1)
    n_bits = check_int("n_bits", n_bits, 1, MAX_BITS)
    half_period = 2.0 ** np.arange(n_bits)[None, :]  # (1, n): 2**j
    return 0.5 - 0.5 * np.cos(np.pi * (p - (half_period - 1) / 2) / half_period)  # (N, n)


def sinusoid_pair(n_positions: int, wavelength: float) -> np.ndarray:
    """``[sin(2πp/λ), cos(2πp/λ)]`` for p = 0 .. N−1, shape (N, 2): one (sin, cos) pair of wavelength λ."""
    n_positions = check_int("n_positions", n_positions, 1, MAX_POSITIONS)
    wavelength = check_float("wavelength", wavelength, 1e-3, 1e12)
    angle = 2 * np.pi * np.arange(n_positions, dtype=np.float64) / wavelength  # (N,)
    return np.stack([np.sin(angle), np.cos(angle)], axis=1)  # (N, 2)


def bit_pairs(n_positions: int, n_bits: int) -> np.ndarray:
    """(sin, cos) pairs at the bits' wavelengths 2**(j+1), j = 0 .. n_bits−1, shape (N, 2·n_bits)."""
    n_bits = check_int("n_bits", n_bits, 1, MAX_BITS)
    return np.hstack([sinusoid_pair(n_positions, 2.0 ** (j + 1)) for j in range(n_bits)])  # (N, 2n)


def measured_flip_periods(codes: np.ndarray) -> np.ndarray:
    """For each column, the distance between its value changes if it is always the same, else −1;
    0 if the column never changes. Shape (d,)."""
    arr = _as_codes(codes)
    out = np.zeros(arr.shape[1], dtype=np.int64)
    for c in range(arr.shape[1]):
        changes = np.flatnonzero(np.diff(arr[:, c])) + 1  # positions where column c changed
        if len(changes) == 0:
            continue
        gaps = np.diff(np.r_[0, changes])
        out[c] = gaps[0] if np.all(gaps == gaps[0]) else -1
    return out


def distinct_codes(codes: np.ndarray) -> int:
    """How many different rows (codes) ``codes`` holds: equal to N when every position is unique.

    ``codes`` is (N, d) with N >= 2 and N·d <= MAX_CODE_VALUES (the sort behind ``np.unique`` copies it).
    """
    return int(np.unique(_as_codes(codes), axis=0).shape[0])


def flipped_bits(n_positions: int, n_bits: int) -> np.ndarray:
    """How many of the n bits change from p to p + 1, for p = 0 .. N−2, shape (N−1,), int64.

    Counted on ``binary_encoding``: ``Σ_j |b_j(p+1) − b_j(p)|``. Adding 1 clears the run of 1s at the bottom
    of p and sets the bit above it, so the count is ``min(n, 1 + ν₂(p+1))`` with ν₂(m) the number of
    trailing zero bits of m: one bit for every even p, all n bits only where p + 1 is a multiple of
    2^(n−1) (the top bit turns on, or the code wraps at 2^n).
    """
    bits = binary_encoding(n_positions, n_bits)  # (N, n)
    return np.count_nonzero(np.diff(bits, axis=0), axis=1).astype(np.int64)  # (N−1,)


def flip_period(bit: int) -> int:
    """Tokens between two flips of bit j: ``2**j`` (its full wavelength is ``2**(j+1)``)."""
    return 1 << check_int("bit", bit, 0, 62)


def position_codes(scheme: str, n_positions: int, d_model: int = 16, base: float = 10000.0) -> np.ndarray:
    """The (n_positions, d_model) code of one scheme, for comparisons across schemes.

    ``"integer"``: p; ``"normalised"``: p/N with N = n_positions; ``"binary"``: the d_model lowest bits of
    p; ``"smooth"``: ``smooth_bits``; ``"sinusoidal"``: Vaswani's interleaved table (d_model even).
    """
    scheme = check_choice("scheme", scheme, CODE_SCHEMES)
    n_positions = check_int("n_positions", n_positions, 1, MAX_POSITIONS)
    if scheme == "sinusoidal":
        d_model = check_int("d_model", d_model, 2, MAX_DIM, even=True)
        return sinusoidal_table(n_positions, d_model, check_float("base", base, 1.0, 1e12, lo_open=True))
    if scheme == "integer":
        return integer_encoding(n_positions, d_model)
    if scheme == "normalised":
        d_model = check_int("d_model", d_model, 1, MAX_DIM)
        return np.repeat(normalised_positions(n_positions)[:, None], d_model, axis=1)  # (N, d)
    d_model = check_int("d_model", d_model, 1, MAX_BITS)
    return (binary_encoding if scheme == "binary" else smooth_bits)(n_positions, d_model)


def _as_codes(codes: np.ndarray, name: str = "codes", min_rows: int = 2) -> np.ndarray:
    """``codes`` as a finite (N, d) float64 array with N >= min_rows, d <= MAX_CODE_COLUMNS and
    N·d <= MAX_CODE_VALUES (8 MB)."""
    _check_size_first(name, codes, MAX_CODE_VALUES)
    arr = check_array(name, codes, ndim=2, max_size=MAX_CODE_VALUES, lo=-1e12, hi=1e12)
    check_int(f"{name}.shape[0]", arr.shape[0], min_rows, MAX_CODE_VALUES)
    check_int(f"{name}.shape[1]", arr.shape[1], 1, MAX_CODE_COLUMNS)
    return arr


def step_lengths(codes: np.ndarray) -> np.ndarray:
    """``‖code(p+1) − code(p)‖`` for p = 0 .. N−2, shape (N−1,): how far one token moves the code."""
    arr = _as_codes(codes)
    return np.linalg.norm(np.diff(arr, axis=0), axis=1)


def norm_ratio(codes: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
    """``‖code(p)‖ / ‖embedding(p)‖`` row by row, shape (N,): how loud the position is next to the word."""
    c, e = _as_codes(codes, min_rows=1), _as_codes(embeddings, "embeddings", min_rows=1)
    if c.shape != e.shape:
        raise ValueError(f"embeddings must have the shape of codes {c.shape}; got {e.shape}")
    return np.linalg.norm(c, axis=1) / np.maximum(np.linalg.norm(e, axis=1), 1e-300)


def linear_shift_residual(codes: np.ndarray, k: int = 1) -> float:
    """How far ``code(p+k)`` is from ONE affine map of ``code(p)`` shared by every p (0 = exactly).

    Fits ``code(p+k) ≈ code(p)·M + c`` by least squares over p = 0 .. N−1−k and returns the RMS residual
    divided by the RMS spread of the targets (so 0 means an exact fixed map, ~1 means no fit at all).
    For sinusoids M is the rotation M_k of docs/FORMULAS.md §2.2; for binary codes the carries
    make every fixed map miss. codes is (N, d) with d <= MAX_FIT_COLUMNS and N·d <= MAX_CODE_VALUES
    (the fit costs O(N·d²)).
    """
    arr = _as_codes(codes)
    check_int("codes.shape[1] (columns fitted)", arr.shape[1], 1, MAX_FIT_COLUMNS)
    k = check_int("k", k, 1, arr.shape[0] - 1)
    src, dst = arr[:-k], arr[k:]  # (N-k, d) each
    design = np.hstack([src, np.ones((len(src), 1))])  # (N-k, d+1): the affine column
    coef, *_ = np.linalg.lstsq(design, dst, rcond=None)
    resid = dst - design @ coef
    spread = dst - dst.mean(axis=0)
    denom = float(np.sqrt(np.mean(spread**2)))
    if denom == 0.0:
        return 0.0
    return float(np.sqrt(np.mean(resid**2)) / denom)


def offset_distances(max_offset: int, d_model: int = 16, base: float = 10000.0, pairs: str = "all") -> np.ndarray:
    """``‖PE(p+k) − PE(p)‖`` for k = 1 .. max_offset, shape (max_offset,); the same for every p.

    Per (sin, cos) pair the squared distance is ``2 − 2cos(kω_i)`` (the pair turns by kω_i on the unit
    circle), so ``‖PE(p+k) − PE(p)‖² = Σ_i (2 − 2cos kω_i)`` (docs/FORMULAS.md §2.3). ``pairs="slowest"``
    keeps only the last pair, the one whose wavelength 2π·base^((d−2)/d) is sometimes taken for a limit.
    """
    max_offset = check_int("max_offset", max_offset, 1, MAX_OFFSET)
    d_model = check_int("d_model", d_model, 2, MAX_DIM, even=True)
    pairs = check_choice("pairs", pairs, PAIR_SETS)
    w = frequencies(d_model, check_float("base", base, 1.0, 1e12, lo_open=True))
    if pairs == "slowest":
        w = w[-1:]
    out = np.empty(max_offset)
    for start in range(0, max_offset, 25_000):  # chunks keep the (k, d/2) angle block near 6 MB
        k = np.arange(start + 1, min(start + 25_000, max_offset) + 1, dtype=np.float64)
        sq = np.sum(2.0 - 2.0 * np.cos(k[:, None] * w[None, :]), axis=1)  # (chunk,)
        out[start:start + len(k)] = np.sqrt(np.maximum(sq, 0.0))
    return out


def closest_repeat(max_offset: int = MAX_OFFSET, d_model: int = 16, base: float = 10000.0,
                   pairs: str = "all") -> tuple[int, float, float]:
    """The offset k in 2 .. max_offset whose code comes closest to PE(p), that distance, and ‖PE(p+1) − PE(p)‖."""
    max_offset = check_int("max_offset", max_offset, 2, MAX_OFFSET)
    dist = offset_distances(max_offset, d_model, base, pairs)  # dist[k-1] = distance at offset k
    best = int(np.argmin(dist[1:])) + 2
    return best, float(dist[best - 1]), float(dist[0])


def distance_profile(max_offset: int = MAX_OFFSET, d_model: int = 16, base: float = 10000.0,
                     pairs: str = "all", n_bins: int = 240) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``offset_distances`` summarised for plotting: log-spaced bins of k and the smallest distance in each.

    Returns ``(k_lo, k_hi, d_min)``, each (B,) with B <= n_bins: every integer offset is looked at, so a
    near-repeat anywhere in 1 .. max_offset shows up as a dip.
    """
    n_bins = check_int("n_bins", n_bins, 1, 10_000)
    dist = offset_distances(max_offset, d_model, base, pairs)  # (K,)
    edges = np.unique(np.round(np.geomspace(1, max_offset + 1, n_bins + 1)).astype(np.int64))  # (B+1,)
    lo, hi = edges[:-1], edges[1:] - 1
    mins = np.minimum.reduceat(dist, lo - 1)  # (B,): min over k in [lo, next lo)
    return lo, hi, mins
