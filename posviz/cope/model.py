"""CoPE's reference model (Contextual Position Encoding; Golovneva, Wang, Weston, Sukhbaatar 2024, §3).

Gates decide which keys count: ``g_ij = σ(z_ij)``, multiplied by the causal mask so no future key counts.
A key's position seen from query i is the number of counted keys from it up to the query,
``p_ij = Σ_{k=j}^{i} g_ik`` (a reversed cumulative sum; the query's own gate is included, so
``p_ij ∈ [0, i − j + 1]``), clamped to ``npos_max − 1``. Fractional positions interpolate between the
logits of the two nearest integer embeddings, ``pos_ij = w·z_i[⌈p⌉] + (1 − w)·z_i[⌊p⌋]`` with
``z_i[p] = q_i·e[p]`` and ``w = p − ⌊p⌋``. Officially (facebookresearch/RAM ``projects/cope``) the gate
logits are ``q_i·k_j/√d_h`` and the attention logits ``(q_i·k_j + pos_ij)/√d_h``; the ``nodiv`` variant
(upstream's ``--cope-nodiv``) adds ``pos_ij`` after the division. docs/FORMULAS.md §7 and §7.3.

torch is imported lazily, only by the functions that need it; the ``CoPE`` module class is created on first use.
"""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from posviz._validate import check_bool, check_int

if TYPE_CHECKING:
    import torch

MAX_T = 4096             # cope_positions: largest T accepted
MAX_ELEMENTS = 1 << 22   # cope_positions: largest (..., T, T) accepted (32 MB in float64)
MAX_NPOS = 1 << 20
MAX_MODULE_T = 1024      # CoPE module: block_size (tokens per call) and npos_max - 1


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
    causal = check_bool("causal", causal)
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
    causal, nodiv = check_bool("causal", causal), check_bool("nodiv", nodiv)
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


@cache
def _cope_class() -> type:
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
            self.nodiv = check_bool("nodiv", nodiv)
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


def __getattr__(name: str) -> type:
    if name == "CoPE":
        return _cope_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
