"""The CoPE lesson's measurements: gate rules over a text, a seeded toy attention head, embedding tables, and one
run of the reference model over them with every array the lesson draws (``cope_run``), plus the shapes of
grouped-query attention's projections for the "head counts swapped" pitfall.

The gate rules score each key ``s_ij`` (±1 for the counting rules, ``q·k/√d_h`` for the toy head) and the gate
logits are ``z_ij = a·s_ij + b``; the run then follows docs/FORMULAS.md §7.1 step by step with the functions of
``posviz.cope.model``.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from posviz._speed import single_torch_thread
from posviz._validate import check_bool, check_choice, check_float, check_int
from posviz.cope.model import attention_weights, cope_gates, interpolate, positions_from_gates
from posviz.cope.tokenizer import MAX_TOKENS, Tokens, tokenize
from posviz.i18n import N_

MAX_D_HEAD = 64
MAX_SEED = 10**6
SATURATE = 40.0          # |scale|, |bias| cap. In float64 σ(z) == 1.0 exactly once z > 53·ln 2 ≈ 36.737, but σ(-z)
#                          never reaches 0 (σ(-37) ≈ 8.5e-17, σ(-40) ≈ 4.2e-18): at scale 40 "on" gates are exactly
#                          1 and "off" gates below 5e-18, so a count over T <= 64 keys is within 3e-16 of a whole number

RULES = {
    "all": N_("count everything (g = 1: relative position)"),
    "sentences": N_("count sentence ends (. ! ? and line breaks)"),
    "words": N_("count words (not sub-word pieces)"),
    "attention": N_("gates from a small seeded attention σ(q·k/√d)"),
    "constant": N_("same logit for every key (bias only)"),
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


def largest_position(npos_max: int = 0, n_tokens: int = 20) -> int:
    """P − 1, the largest position a table of P = npos_max positions holds (P = T + 1 when npos_max is 0, for a
    text of T tokens), at least 1 (the sought position's slider needs two values)."""
    npos_max = check_int("npos_max", npos_max, 0, MAX_TOKENS + 1)
    return max(1, (npos_max or check_int("n_tokens", n_tokens, 0, MAX_TOKENS) + 1) - 1)


def table_settings(npos_max: int = 0, *, target: int = 2, n_tokens: int = 20) -> dict[str, int]:
    """The attention figure's settings with a table of npos_max positions: npos_max, and the sought position p*
    kept within the table (min(p*, P − 1)), as the page's p* slider keeps it."""
    npos_max, target = check_int("npos_max", npos_max, 0, MAX_TOKENS + 1), check_int("target", target, 0, MAX_TOKENS)
    return {"npos_max": npos_max, "target": min(target, largest_position(npos_max, n_tokens))}


def query_settings(query: int = -1, *, key: int = 0, causal: bool = True, n_tokens: int = 20,
                   as_index: bool = False) -> dict[str, int]:
    """The settings of a figure drawn for query i and key j with the query slider at i: the key kept where the
    page's key slider keeps it, at most the last key query i sees (i itself under the causal mask, else the last
    token; at least 1), and with ``as_index`` both as token indices (−1: the last token, ``pick_index``)."""
    n_tokens = check_int("n_tokens", n_tokens, 1, MAX_TOKENS)
    query, key = check_int("query", query, -1, MAX_TOKENS - 1), check_int("key", key, 0, MAX_TOKENS - 1)
    at = pick_index(query, n_tokens)
    key = min(key, max(1, at if check_bool("causal", causal) else n_tokens - 1))
    if check_bool("as_index", as_index):
        return {"query": at, "key": pick_index(key, n_tokens)}
    return {"query": query, "key": key}


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
            check_float("bias", bias, -SATURATE, SATURATE), check_bool("causal", causal),
            check_int("npos_max", npos_max, 0, MAX_TOKENS + 1), check_int("seed", seed, 0, MAX_SEED),
            check_int("d_head", d_head, 2, MAX_D_HEAD, even=True), check_choice("emb", emb, EMBEDDINGS),
            check_int("target", target, 0, MAX_TOKENS), check_float("strength", strength, 0.0, 100.0),
            check_bool("nodiv", nodiv))
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
