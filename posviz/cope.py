"""Contextual Position Encoding (CoPE; Golovneva, Wang, Weston, Sukhbaatar 2024, §3).

Gates decide which keys count: ``g_ij = σ(z_ij)``, multiplied by the causal mask so no future key counts.
A key's position seen from query i is the number of counted keys from it up to the query,
``p_ij = Σ_{k=j}^{i} g_ik`` (a reversed cumulative sum; the query's own gate is included, so
``p_ij ∈ [0, i − j + 1]``), clamped to ``npos_max − 1``. Fractional positions interpolate between the
logits of the two nearest integer embeddings, ``pos_ij = w·z_i[⌈p⌉] + (1 − w)·z_i[⌊p⌋]`` with
``z_i[p] = q_i·e[p]`` and ``w = p − ⌊p⌋``. Officially (facebookresearch/RAM ``projects/cope``) the gate
logits are ``q_i·k_j/√d_h`` and the attention logits ``(q_i·k_j + pos_ij)/√d_h``; the ``nodiv`` variant
(upstream's ``--cope-nodiv``) adds ``pos_ij`` after the division. docs/FORMULAS.md §7 and §7.3.

Also here: a toy deterministic tokenizer (words, sub-word pieces, punctuation) and the gate rules of the
lesson. torch is imported lazily, only by the functions that need it; ``CoPE`` is created on first use.
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from posviz._speed import single_torch_thread
from posviz._validate import check_choice, check_float, check_int

if TYPE_CHECKING:
    import torch

MAX_TOKENS = 64          # the lesson's cap on T: matrices are T×T, and a screen shows 64 labels at most
PIECE_LEN = 5            # the toy tokenizer cuts words longer than this into pieces of this many characters
MAX_T = 4096             # cope_positions: largest T accepted
MAX_ELEMENTS = 1 << 22   # cope_positions: largest (..., T, T) accepted (32 MB in float64)
MAX_NPOS = 1 << 20
MAX_MODULE_T = 1024      # CoPE module: block_size (tokens per call) and npos_max - 1
MAX_D_HEAD = 64
MAX_SEED = 10**6
SATURATE = 40.0          # |scale|, |bias| cap. In float64 σ(z) == 1.0 exactly once z > 53·ln 2 ≈ 36.737, but σ(-z)
#                          never reaches 0 (σ(-37) ≈ 8.5e-17, σ(-40) ≈ 4.2e-18): at scale 40 "on" gates are exactly
#                          1 and "off" gates below 5e-18, so a count over T <= 64 keys is within 3e-16 of a whole number

SENTENCE_ENDS = frozenset(".!?。！？…")
NEWLINE = "\n"
NEWLINE_LABEL = "↵"
CONTINUATION = "##"

RULES = {
    "all": "count everything (g = 1: relative position)",
    "sentences": "count sentence ends (. ! ? and line breaks)",
    "words": "count words (not sub-word pieces)",
    "attention": "gates from a small seeded attention σ(q·k/√d)",
    "constant": "same logit for every key (bias only)",
}
EMBEDDINGS = ("random", "sinusoidal")
GQA_LAYOUTS = ("fixed", "swapped")

EXAMPLES = {
    "sentences": "CoPE counts what matters. Positions become contextual! "
                 "Can a model find the previous sentence? Certainly.",
    "list": "Packing list:\n- warm socks\n- headlamp and batteries\n- thermos\nThen lock the door.",
    "code": "for word in sentence.split(): counts[word] = counts.get(word, 0) + 1",
}
DEFAULT_TEXT = EXAMPLES["sentences"]

_TOKEN_RE = re.compile(r"\n|\w+|[^\w\s]", re.UNICODE)


# ----------------------------------------------------------------------------------------------------
# Tokens


@dataclass(frozen=True)
class Tokens:
    """The toy tokenizer's output: pieces in order, their display labels and what each piece is."""

    pieces: tuple[str, ...]
    labels: tuple[str, ...]           # "##" marks a piece that continues a word; "↵" a line break
    word_start: tuple[bool, ...]      # the piece begins a word (letters/digits), not a continuation
    sentence_end: tuple[bool, ...]    # . ! ? 。 ！ ？ … or a line break
    truncated: bool                   # more pieces followed than max_tokens

    @property
    def T(self) -> int:
        return len(self.pieces)


def tokenize(text: str, max_tokens: int = MAX_TOKENS, piece_len: int = PIECE_LEN) -> Tokens:
    """Split ``text`` into at most ``max_tokens`` pieces with a simple deterministic rule.

    Words (runs of letters, digits and ``_``) longer than ``piece_len`` characters are cut into pieces of
    ``piece_len`` characters, the way sub-word tokenizers split rare words; every other non-space
    character (punctuation, emoji, symbols) is one piece; a line break is one piece. So "count words"
    and "count pieces" differ, which is the point of the lesson's word rule.
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string; got {type(text).__name__}")
    max_tokens = check_int("max_tokens", max_tokens, 0, MAX_T)
    piece_len = check_int("piece_len", piece_len, 1, 1000)
    pieces: list[str] = []
    labels: list[str] = []
    starts: list[bool] = []
    ends: list[bool] = []
    truncated = False
    for match in _TOKEN_RE.finditer(text):
        tok = match.group()
        is_word = tok[0].isalnum() or tok[0] == "_"
        chunks = [tok[k:k + piece_len] for k in range(0, len(tok), piece_len)] if is_word else [tok]
        for n, chunk in enumerate(chunks):
            if len(pieces) == max_tokens:
                truncated = True
                break
            pieces.append(chunk)
            labels.append(NEWLINE_LABEL if chunk == NEWLINE else (CONTINUATION + chunk if n else chunk))
            starts.append(is_word and n == 0)
            ends.append(chunk == NEWLINE or chunk in SENTENCE_ENDS)
        if truncated:
            break
    return Tokens(tuple(pieces), tuple(labels), tuple(starts), tuple(ends), truncated)


# ----------------------------------------------------------------------------------------------------
# Core CoPE math (torch)


def _as_float_tensor(name: str, value: Any) -> torch.Tensor:
    """``value`` (torch tensor or array-like) as a real floating tensor, else ValueError naming ``name``."""
    import torch

    if isinstance(value, torch.Tensor):
        t = value
    else:
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError) as err:
            raise ValueError(f"{name} must be a numeric array or tensor; got {type(value).__name__}") from err
        if arr.dtype.kind not in "biuf":
            raise ValueError(f"{name} must hold real numbers; got dtype {arr.dtype}")
        t = torch.from_numpy(np.array(arr, dtype=np.float64))
    if t.is_complex():
        raise ValueError(f"{name} must hold real numbers; got dtype {t.dtype}")
    if t.dtype not in (torch.float32, torch.float64):
        t = t.to(torch.float64)
    return t


def _check_square(name: str, t: torch.Tensor) -> int:
    if t.ndim < 2 or t.shape[-1] != t.shape[-2] or t.shape[-1] < 1:
        raise ValueError(f"{name} must have shape (..., T, T) with T >= 1; got {tuple(t.shape)}")
    T = t.shape[-1]
    if T > MAX_T or t.numel() > MAX_ELEMENTS:
        raise ValueError(f"{name} is too large: T <= {MAX_T} and at most {MAX_ELEMENTS} elements; "
                         f"got shape {tuple(t.shape)}")
    return T


def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r:.40}")
    return bool(value)


def _check_finite(name: str, t: torch.Tensor) -> None:
    import torch

    if not bool(torch.isfinite(t).all()):
        raise ValueError(f"{name} must be finite (no NaN or inf)")


def cope_gates(gate_logits: torch.Tensor | np.ndarray, causal: bool = True) -> torch.Tensor:
    """Gates ``g_ij = σ(z_ij)``, times the 0/1 causal mask (``g_ij = 0`` for ``j > i``) when ``causal``.

    ``gate_logits``: (..., T, T), query × key. Masking the gates themselves (not only the attention) is
    what keeps future keys out of the count (docs/FORMULAS.md §7.1, step 2).
    """
    import torch

    z = _as_float_tensor("gate_logits", gate_logits)
    T = _check_square("gate_logits", z)
    _check_finite("gate_logits", z)
    causal = _check_bool("causal", causal)
    g = torch.sigmoid(z)
    if causal:
        g = g * torch.ones(T, T, dtype=torch.bool).tril()  # (T, T) broadcast over the batch dims
    return g


def positions_from_gates(gates: torch.Tensor | np.ndarray, npos_max: int | None = None) -> torch.Tensor:
    """Positions ``p_ij = Σ_{k >= j} g_ik`` (reversed cumulative sum over keys), clamped to npos_max − 1."""
    g = _as_float_tensor("gates", gates)
    _check_square("gates", g)
    _check_finite("gates", g)
    if g.numel() and not bool(((g >= 0) & (g <= 1)).all()):
        raise ValueError("gates must lie in [0, 1]")
    if npos_max is not None:
        npos_max = check_int("npos_max", npos_max, 1, MAX_NPOS)
    p = g.flip(-1).cumsum(-1).flip(-1)  # (..., T, T)
    if npos_max is not None:
        p = p.clamp(max=npos_max - 1)
    return p


def cope_positions(gate_logits: torch.Tensor | np.ndarray, npos_max: int | None = None,
                   causal: bool = True) -> torch.Tensor:
    """CoPE positions (..., T, T): ``g = σ(gate_logits)``, causal mask, ``p_ij = Σ_{k>=j} g_ik``, clamp.

    With ``causal`` ``g_ij = 0`` for ``j > i`` so ``p_ij ∈ [0, i − j + 1]``; with ``npos_max`` positions are
    clamped to ``npos_max − 1``. Accepts a torch tensor or numpy array; float32 tensors stay float32,
    everything else is computed in float64. Golden example (docs/FORMULAS.md §7.2): T = 4, all logits 0 gives
    ``p_ij = (i − j + 1)/2`` on and below the diagonal.
    """
    if npos_max is not None:
        npos_max = check_int("npos_max", npos_max, 1, MAX_NPOS)
    return positions_from_gates(cope_gates(gate_logits, causal), npos_max)


def interpolate(z_int: torch.Tensor | np.ndarray, positions: torch.Tensor | np.ndarray) -> torch.Tensor:
    """Position logits ``w·z[⌈p⌉] + (1 − w)·z[⌊p⌋]``, ``w = p − ⌊p⌋``, gathered per query row.

    ``z_int``: (..., T, P), the integer logits ``z_i[p] = q_i·e[p]``; ``positions``: (..., T, T) in
    [0, P − 1]. The indices carry no gradient; ``w`` does, which is how the gates learn.
    """
    import torch

    z = _as_float_tensor("z_int", z_int)
    p = _as_float_tensor("positions", positions)
    _check_square("positions", p)
    _check_finite("positions", p)
    if z.ndim != p.ndim or z.shape[:-1] != p.shape[:-1] or z.shape[-1] < 1:
        raise ValueError(f"z_int must have shape (..., T, P) matching positions {tuple(p.shape)}; "
                         f"got {tuple(z.shape)}")
    _check_finite("z_int", z)
    P = z.shape[-1]
    if p.numel() and (bool((p < 0).any()) or bool((p > P - 1).any())):
        raise ValueError(f"positions must lie in [0, P - 1] = [0, {P - 1}] for a table of P = {P} "
                         f"embeddings; got max {float(p.max()):g} (clamp them with npos_max)")
    dtype = torch.promote_types(z.dtype, p.dtype)
    z, p = z.to(dtype), p.to(dtype)
    floor = p.floor()
    w = p - floor  # (..., T, T)
    lo, hi = floor.long(), p.ceil().long()
    return z.gather(-1, hi) * w + z.gather(-1, lo) * (1 - w)


def position_logits(query: torch.Tensor | np.ndarray, pos_emb: torch.Tensor | np.ndarray,
                    positions: torch.Tensor | np.ndarray) -> torch.Tensor:
    """``pos_ij`` from the query (..., T, d_h), the table ``e`` (d_h, P) and positions (..., T, T).

    The integer logits ``z_i[p] = q_i·e[p]`` are computed once per query (``O(T·P·d_h)``), then
    interpolated at the fractional positions.
    """
    q = _as_float_tensor("query", query)
    e = _as_float_tensor("pos_emb", pos_emb)
    if q.ndim < 2 or e.ndim != 2 or e.shape[0] != q.shape[-1]:
        raise ValueError(f"pos_emb must have shape (d_h, P) with d_h = query.shape[-1]; "
                         f"got query {tuple(q.shape)}, pos_emb {tuple(e.shape)}")
    _check_finite("query", q)
    _check_finite("pos_emb", e)
    import torch

    dtype = torch.promote_types(q.dtype, e.dtype)
    z_int = q.to(dtype) @ e.to(dtype)  # (..., T, P)
    if not bool(torch.isfinite(z_int).all()):
        raise ValueError("query and pos_emb are too large: q·e overflows")
    return interpolate(z_int, positions)  # (..., T, T)


def attention_weights(scores: torch.Tensor | np.ndarray, head_dim: int,
                      pos_logits: torch.Tensor | np.ndarray | None = None, causal: bool = True,
                      nodiv: bool = False) -> torch.Tensor:
    """Softmax attention from raw scores ``q_i·k_j`` (..., T, T), with or without the CoPE term.

    Official: ``softmax((q·k + pos)/√d_h)``; ``nodiv``: ``softmax(q·k/√d_h + pos)``; without
    ``pos_logits``: ``softmax(q·k/√d_h)``. Masked keys (``j > i`` when ``causal``) get weight 0.
    """
    import torch

    s = _as_float_tensor("scores", scores)
    T = _check_square("scores", s)
    _check_finite("scores", s)
    head_dim = check_int("head_dim", head_dim, 1, 1 << 16)
    causal, nodiv = _check_bool("causal", causal), _check_bool("nodiv", nodiv)
    root = math.sqrt(head_dim)
    if pos_logits is None:
        logits = s / root
    else:
        pos = _as_float_tensor("pos_logits", pos_logits).to(s.dtype)
        if pos.shape != s.shape:
            raise ValueError(f"pos_logits must have the shape of scores {tuple(s.shape)}; got {tuple(pos.shape)}")
        _check_finite("pos_logits", pos)
        logits = s / root + pos if nodiv else (s + pos) / root
    if not bool(torch.isfinite(logits).all()):
        raise ValueError("scores and pos_logits are too large: the attention logits overflow")
    if causal:
        logits = logits.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(logits, dim=-1)


# ----------------------------------------------------------------------------------------------------
# The CoPE attention module (official semantics), created lazily so importing posviz.cope needs no torch


def _make_cope_class() -> type:
    import torch
    from torch import nn

    class CoPE(nn.Module):
        """One CoPE self-attention head (facebookresearch/RAM ``ContextPosSelfAttn`` semantics).

        ``CoPE(head_dim, block_size, npos_max=None, nodiv=False)``; ``npos_max`` defaults to
        ``block_size + 1`` (positions run from 0 to T). ``pos_emb`` is the (head_dim, npos_max) table e,
        zero-initialised as upstream. ``forward(query, key, value, causal=True)`` takes (..., T, head_dim)
        tensors and returns a dict with ``out``, ``attn``, ``gates``, ``positions`` and ``pos_logits``:
        gates ``σ(q·k/√d)`` times the causal mask, positions by reversed cumsum, logits
        ``(q·k + pos)/√d`` (or ``q·k/√d + pos`` with ``nodiv``).
        """

        def __init__(self, head_dim: int, block_size: int, npos_max: int | None = None,
                     nodiv: bool = False) -> None:
            super().__init__()
            self.head_dim = check_int("head_dim", head_dim, 1, 1 << 12)
            self.block_size = check_int("block_size", block_size, 1, MAX_MODULE_T)
            default = self.block_size + 1
            self.npos_max = default if npos_max is None else check_int("npos_max", npos_max, 1, MAX_MODULE_T + 1)
            self.nodiv = _check_bool("nodiv", nodiv)
            self.pos_emb = nn.Parameter(torch.zeros(self.head_dim, self.npos_max))  # (d_h, P)

        def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                    causal: bool = True) -> dict[str, torch.Tensor]:
            if not all(isinstance(t, torch.Tensor) for t in (query, key, value)):
                raise ValueError("query, key and value must be torch tensors of shape (..., T, head_dim)")
            if not all(torch.is_floating_point(t) for t in (query, key, value)):
                raise ValueError(f"query, key and value must be floating-point tensors; got {query.dtype}, "
                                 f"{key.dtype}, {value.dtype}")
            # float16 / bfloat16 inputs are computed in float32 (the table e is float32), float64 in float64
            dtype = torch.promote_types(torch.promote_types(query.dtype, key.dtype), torch.float32)
            query, key, value = query.to(dtype), key.to(dtype), value.to(dtype)
            shape = tuple(query.shape)
            if len(shape) >= 2 and shape[-2] > self.block_size:
                raise ValueError(f"query, key and value may hold at most block_size = {self.block_size} tokens; "
                                 f"got {shape[-2]}")
            if (len(shape) < 2 or shape[-1] != self.head_dim or tuple(key.shape) != shape
                    or tuple(value.shape)[:-1] != shape[:-1]):
                raise ValueError(f"query, key and value must have shape (..., T, head_dim={self.head_dim}); "
                                 f"got {shape}, {tuple(key.shape)}, {tuple(value.shape)}")
            scores = query @ key.transpose(-1, -2)  # (..., T, T)
            gates = cope_gates(scores / math.sqrt(self.head_dim), causal)
            positions = positions_from_gates(gates, self.npos_max)
            pos_logits = position_logits(query, self.pos_emb, positions)
            attn = attention_weights(scores, self.head_dim, pos_logits, causal=causal, nodiv=self.nodiv)
            return {"out": attn @ value, "attn": attn, "gates": gates, "positions": positions,
                    "pos_logits": pos_logits}

    return CoPE


_LAZY: dict[str, type] = {}


def __getattr__(name: str) -> type:
    if name == "CoPE":
        if name not in _LAZY:
            _LAZY[name] = _make_cope_class()
        return _LAZY[name]
    raise AttributeError(f"module 'posviz.cope' has no attribute {name!r}")


# ----------------------------------------------------------------------------------------------------
# The lesson: gate rules, a seeded toy attention, embedding tables, everything the page shows


def _check_tokens(tokens: object) -> None:
    if not isinstance(tokens, Tokens):
        raise ValueError(f"tokens must be the Tokens returned by tokenize(text); got {type(tokens).__name__}")


def _check_lesson(lesson: object) -> None:
    if not isinstance(lesson, CopeRun):
        raise ValueError(f"lesson must be the CopeRun returned by cope_run(); got {type(lesson).__name__}")


def _rng_for(seed: int, salt: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(salt.encode("utf-8", "surrogatepass"))])


def seeded_qk(tokens: Tokens, seed: int = 0, d_head: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Queries and keys (T, d_head) of a toy attention head with no positional information.

    Each piece gets a random embedding drawn from (seed, piece text), so equal pieces get equal vectors;
    W_q and W_k are random (seed) with variance 1/d_head, so ``q·k/√d_h`` is about N(0, 1).
    """
    _check_tokens(tokens)
    seed = check_int("seed", seed, 0, MAX_SEED)
    d_head = check_int("d_head", d_head, 2, MAX_D_HEAD)
    x = np.stack([_rng_for(seed, "tok:" + p).standard_normal(d_head) for p in tokens.pieces]) \
        if tokens.T else np.zeros((0, d_head))  # (T, d)
    w = _rng_for(seed, "W").standard_normal((2, d_head, d_head)) / math.sqrt(d_head)
    return x @ w[0], x @ w[1]


def gate_scores(tokens: Tokens, rule: str, seed: int = 0, d_head: int = 16) -> np.ndarray:
    """The rule's score s_ij (T, T) before scale and bias: ±1 for the counting rules, q·k/√d for attention."""
    _check_tokens(tokens)
    rule = check_choice("rule", rule, RULES)
    T = tokens.T
    if rule in ("all", "sentences", "words"):
        counted = {"all": [True] * T, "sentences": tokens.sentence_end, "words": tokens.word_start}[rule]
        row = np.where(np.asarray(counted, dtype=bool), 1.0, -1.0)  # (T,) one score per key
        return np.broadcast_to(row, (T, T)).copy()
    if rule == "constant":
        return np.zeros((T, T))
    q, k = seeded_qk(tokens, seed, d_head)
    return q @ k.T / math.sqrt(d_head)  # (T, T)


def gate_logits(tokens: Tokens, rule: str, scale: float = 10.0, bias: float = 0.0, seed: int = 0,
                d_head: int = 16) -> np.ndarray:
    """Gate logits ``z_ij = scale·s_ij + bias`` (T, T). For ±1 scores and bias 0, scale >= 37 makes σ of the
    counted keys exactly 1.0 in float64 and that of the others below 1e-16 (never exactly 0; see SATURATE)."""
    scale = check_float("scale", scale, -SATURATE, SATURATE)
    bias = check_float("bias", bias, -SATURATE, SATURATE)
    return scale * gate_scores(tokens, rule, seed, d_head) + bias


def embedding_table(npos_max: int, d_head: int = 16, kind: str = "random", seed: int = 0) -> np.ndarray:
    """The position embedding table e, shape (d_head, npos_max) as upstream (column p is e[p]).

    Upstream starts it at zero and learns it; the lesson uses seeded N(0, 1) entries or the sinusoidal
    table (``posviz.sinusoidal.sinusoidal_table``) so that the position logits are visible.
    """
    from posviz.sinusoidal import sinusoidal_table

    npos_max = check_int("npos_max", npos_max, 1, MAX_TOKENS * 16)
    d_head = check_int("d_head", d_head, 2, MAX_D_HEAD, even=True)
    kind = check_choice("kind", kind, EMBEDDINGS)
    seed = check_int("seed", seed, 0, MAX_SEED)
    if kind == "sinusoidal":
        return sinusoidal_table(npos_max, d_head).T.copy()  # (P, d) -> (d, P)
    return _rng_for(seed, "e").standard_normal((d_head, npos_max))


def pick_index(index: int, n: int) -> int:
    """A user's index into n items: −1 means the last; larger values clamp to n − 1."""
    index = check_int("index", index, -1, 1 << 20)
    n = check_int("n", n, 1, 1 << 20)
    return n - 1 if index < 0 else min(index, n - 1)


@dataclass(frozen=True)
class CopeRun:
    """One run of the toy CoPE attention head over a text: gates, positions, interpolated embeddings, logits and
    weights, for one set of settings (arrays are read-only)."""

    tokens: Tokens
    npos_max: int                  # P actually used (T + 1 when asked for 0)
    target: int                    # p* actually used (clamped to P − 1)
    gate_logits: np.ndarray        # (T, T)
    gates: np.ndarray              # (T, T)
    positions_raw: np.ndarray      # (T, T) before the clamp
    positions: np.ndarray          # (T, T) after the clamp
    distance: np.ndarray           # (T, T) i − j
    query: np.ndarray              # (T, d) q_i, including the position-seeking part β·ê[p*]
    key: np.ndarray                # (T, d)
    pos_emb: np.ndarray            # (d, P)
    z_int: np.ndarray              # (T, P) z_i[p] = q_i·e[p]
    pos_logits: np.ndarray         # (T, T)
    attn_plain: np.ndarray         # (T, T) softmax(q·k/√d)
    attn_cope: np.ndarray          # (T, T) with the CoPE term

    @property
    def T(self) -> int:
        return self.tokens.T

    @property
    def clamped(self) -> np.ndarray:
        """(T, T) bool: where the clamp to npos_max − 1 changed a position."""
        return self.positions_raw > self.positions


def cope_run(text: str = DEFAULT_TEXT, rule: str = "sentences", scale: float = 10.0, bias: float = 0.0,
                causal: bool = True, npos_max: int = 0, seed: int = 0, d_head: int = 16,
                emb: str = "random", target: int = 2, strength: float = 6.0, nodiv: bool = False) -> CopeRun:
    """Run CoPE on ``text`` with a gate rule and a toy attention head; ``npos_max = 0`` means T + 1.

    The query is the toy head's content query plus ``strength·e[p*]/‖e[p*]‖``: it "looks for" keys at
    CoPE position ``p* = target``. With sentence gates a query inside a sentence sees its own sentence at
    p = 0 and the previous one at p = 1; a query that is itself a sentence end counts its own gate, so
    there its sentence is at p = 1 and the previous one at p = 2. Raises
    ValueError naming the parameter for bad values, and for a text without any token.
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string; got {type(text).__name__}")
    args = (check_choice("rule", rule, RULES), check_float("scale", scale, -SATURATE, SATURATE),
            check_float("bias", bias, -SATURATE, SATURATE), _check_bool("causal", causal),
            check_int("npos_max", npos_max, 0, MAX_TOKENS + 1), check_int("seed", seed, 0, MAX_SEED),
            check_int("d_head", d_head, 2, MAX_D_HEAD, even=True), check_choice("emb", emb, EMBEDDINGS),
            check_int("target", target, 0, MAX_TOKENS), check_float("strength", strength, 0.0, 100.0),
            _check_bool("nodiv", nodiv))
    if not tokenize(text, 1).T:
        raise ValueError("text must contain at least one token (it is empty or only spaces)")
    return _run(text, *args)


def _readonly(a: Any) -> np.ndarray:
    out = np.array(a.detach().numpy() if hasattr(a, "detach") else a, dtype=np.float64)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=32)
def _run(text: str, rule: str, scale: float, bias: float, causal: bool, npos_max: int, seed: int,
            d_head: int, emb: str, target: int, strength: float, nodiv: bool) -> CopeRun:
    with single_torch_thread():
        return _compute_lesson(text, rule, scale, bias, causal, npos_max, seed, d_head, emb, target, strength,
                               nodiv)


def _compute_lesson(text: str, rule: str, scale: float, bias: float, causal: bool, npos_max: int, seed: int,
                    d_head: int, emb: str, target: int, strength: float, nodiv: bool) -> CopeRun:
    tokens = tokenize(text)
    T = tokens.T
    P = npos_max or T + 1
    target = min(target, P - 1)
    z = gate_logits(tokens, rule, scale, bias, seed, d_head)  # (T, T)
    gates = cope_gates(z, causal)
    raw = positions_from_gates(gates)
    pos = raw.clamp(max=P - 1)
    q, k = seeded_qk(tokens, seed, d_head)  # (T, d) each
    e = embedding_table(P, d_head, emb, seed)  # (d, P)
    seek = e[:, target] / max(float(np.linalg.norm(e[:, target])), 1e-12)
    q = q + strength * seek  # (T, d)
    z_int = q @ e  # (T, P)
    pos_logits = interpolate(z_int, pos)
    scores = q @ k.T  # (T, T)
    attn_plain = attention_weights(scores, d_head, None, causal=True)
    attn_cope = attention_weights(scores, d_head, pos_logits, causal=True, nodiv=nodiv)
    i, j = np.indices((T, T))
    return CopeRun(tokens, P, target, _readonly(z), _readonly(gates), _readonly(raw), _readonly(pos),
                  _readonly(i - j), _readonly(q), _readonly(k), _readonly(e), _readonly(z_int),
                  _readonly(pos_logits), _readonly(attn_plain), _readonly(attn_cope))


def interpolation_detail(lesson: CopeRun, i: int, j: int) -> dict[str, float]:
    """The interpolation at one (query i, key j): p, ⌊p⌋, ⌈p⌉, w, z_i[⌊p⌋], z_i[⌈p⌉] and the position logit."""
    _check_lesson(lesson)
    i = check_int("i", i, 0, lesson.T - 1)
    j = check_int("j", j, 0, lesson.T - 1)
    p = float(lesson.positions[i, j])
    lo, hi = math.floor(p), math.ceil(p)
    return {"p": p, "floor": float(lo), "ceil": float(hi), "w": p - lo,
            "z_floor": float(lesson.z_int[i, lo]), "z_ceil": float(lesson.z_int[i, hi]),
            "logit": float(lesson.pos_logits[i, j])}


def attention_near_target(lesson: CopeRun, i: int) -> tuple[float, float]:
    """Attention mass of query i on keys whose CoPE position rounds to p*: (without CoPE, with CoPE)."""
    _check_lesson(lesson)
    i = check_int("i", i, 0, lesson.T - 1)
    near = np.abs(lesson.positions[i, : i + 1] - lesson.target) < 0.5
    return float(lesson.attn_plain[i, : i + 1][near].sum()), float(lesson.attn_cope[i, : i + 1][near].sum())


def gqa_shapes(d_model: int = 64, num_heads: int = 8, num_kv_heads: int = 2, layout: str = "fixed",
               seq_len: int = 4) -> list[tuple[str, str]]:
    """Run grouped-query attention's projections and reshapes on a (1, seq_len, d_model) input.

    ``"fixed"``: query → num_heads·d_h, key/value → num_kv_heads·d_h, k and v repeated per query group.
    ``"swapped"``: the head counts swapped (key → num_heads·d_h, query → num_kv_heads·d_h), which breaks as soon
    as num_kv_heads < num_heads. Returns (step, resulting shape or the torch error) rows.
    """
    import torch

    d_model = check_int("d_model", d_model, 2, 4096)
    num_heads = check_int("num_heads", num_heads, 1, 256)
    num_kv_heads = check_int("num_kv_heads", num_kv_heads, 1, 256)
    layout = check_choice("layout", layout, GQA_LAYOUTS)
    seq_len = check_int("seq_len", seq_len, 1, 64)
    if d_model % num_heads:
        raise ValueError(f"num_heads must divide d_model = {d_model}; got {num_heads}")
    if num_heads % num_kv_heads:
        raise ValueError(f"num_kv_heads must divide num_heads = {num_heads}; got {num_kv_heads}")
    d_h, B, T = d_model // num_heads, 1, seq_len
    H, G = num_heads, num_kv_heads
    q_out, k_out = (H * d_h, G * d_h) if layout == "fixed" else (G * d_h, H * d_h)
    q, k, v = torch.zeros(B, T, q_out), torch.zeros(B, T, k_out), torch.zeros(B, T, G * d_h)
    rows = [(f"query = Linear({d_model} → {q_out})", str(tuple(q.shape))),
            (f"key = Linear({d_model} → {k_out})", str(tuple(k.shape))),
            (f"value = Linear({d_model} → {G * d_h})", str(tuple(v.shape)))]
    kv_heads = G if layout == "fixed" else H
    steps = [("q.view(B, T, num_heads, d_h)", lambda: q.view(B, T, H, d_h)),
             (f"k.view(B, T, {'num_kv_heads' if layout == 'fixed' else 'num_heads'}, d_h)",
              lambda: k.view(B, T, kv_heads, d_h)),
             (f"v.view(B, T, {'num_kv_heads' if layout == 'fixed' else 'num_heads'}, d_h)",
              lambda: v.view(B, T, kv_heads, d_h))]
    views = []
    for label, step in steps:
        try:
            out = step()
        except RuntimeError as err:
            rows.append((label, "RuntimeError: " + str(err).split("\n")[0]))
            return rows
        views.append(out)
        rows.append((label, str(tuple(out.shape))))
    qv, kv, vv = views
    if kv.shape[2] != H:
        kv = torch.repeat_interleave(kv, H // kv.shape[2], dim=2)
        vv = torch.repeat_interleave(vv, H // vv.shape[2], dim=2)
        rows.append((f"repeat_interleave k, v × {H // G}", str(tuple(kv.shape))))
    scores = qv.transpose(1, 2) @ kv.transpose(1, 2).transpose(2, 3)  # (B, H, T, T)
    rows.append(("scores = q·kᵀ", str(tuple(scores.shape))))
    return rows
