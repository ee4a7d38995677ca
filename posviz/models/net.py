"""A small causal transformer whose position scheme is a parameter (torch; imported by posviz.models only).

One attention implementation for every scheme: ``softmax(q·kᵀ/√d_h + bias)·v`` with a causal mask.
The schemes differ only in what they add, and they reuse posviz's math:

* ``nope``: nothing (the causal mask is the only source of order; Kazemnejad et al. 2023);
* ``learned``: a trained table of L vectors added to the token embeddings (GPT-2); positions >= L
  reuse the last row, the usual fallback, since the table has nothing else to offer;
* ``sinusoidal``: ``posviz.sinusoidal.sinusoidal_table`` added to the token embeddings (Vaswani §3.5),
  scaled by ``SINUSOIDAL_SCALE`` so that its entries have the token embeddings' initial RMS (0.02), as
  fairseq's √d-scaled embeddings match the table's size; unscaled, the table is 35× the token code at
  initialisation and the model cannot tell its tokens apart;
* ``rope``: q and k rotated by ``posviz.rope.apply_rope`` with any ``inv_freq`` and multiplied by the
  attention factor A, so every method of ``posviz.scaling`` plugs in unchanged (logits × A²);
* ``alibi``: ``posviz.bias.alibi_bias``, ``-slope_h·(i - j)`` with BLOOM's slopes (Press et al. 2022).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from posviz.bias import alibi_bias
from posviz.models.schemes import SCHEMES, WeightsError
from posviz.models.task import VOCAB
from posviz.rope import apply_rope
from posviz.rope import inv_freq as rope_inv_freq
from posviz.sinusoidal import sinusoidal_table

INIT_STD = 0.02
SINUSOIDAL_SCALE = INIT_STD * math.sqrt(2.0)   # sin/cos entries have RMS 1/√2
CONFIG_MAX = 1 << 16   # config numbers above this are damage (a model of 65,536 layers is not one of ours)


@dataclass(frozen=True)
class NetConfig:
    scheme: str
    train_length: int = 64
    d_model: int = 64
    n_heads: int = 2
    n_layers: int = 2
    d_ff: int = 256
    rope_base: float = 10000.0
    vocab: int = VOCAB

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads


def position_bias(config: NetConfig, length: int) -> torch.Tensor | None:
    """ALiBi's additive attention bias (H, T, T) from ``posviz.bias.alibi_bias``: ``-slope_h·(i - j)`` on and
    below the diagonal, ``-inf`` above it (causal). None for the other schemes (the causal mask only)."""
    if config.scheme != "alibi":
        return None
    return torch.as_tensor(alibi_bias(config.n_heads, length), dtype=torch.float32)  # (H, T, T)


class Block(nn.Module):
    """Pre-LayerNorm block: ``x + attention(LN(x))`` then ``x + MLP(LN(x))``."""

    def __init__(self, c: NetConfig) -> None:
        super().__init__()
        self.c = c
        self.ln1 = nn.LayerNorm(c.d_model)
        self.qkv = nn.Linear(c.d_model, 3 * c.d_model)
        self.out = nn.Linear(c.d_model, c.d_model)
        self.ln2 = nn.LayerNorm(c.d_model)
        self.mlp = nn.Sequential(nn.Linear(c.d_model, c.d_ff), nn.GELU(), nn.Linear(c.d_ff, c.d_model))

    def forward(self, x: torch.Tensor, bias: torch.Tensor | None, rope: tuple | None) -> torch.Tensor:
        B, T, _ = x.shape
        H, dh = self.c.n_heads, self.c.head_dim
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, H, dh).permute(2, 0, 3, 1, 4)  # 3 × (B, H, T, dh)
        if rope is not None:
            positions, theta, A = rope
            qk = apply_rope(torch.stack([q, k]), positions, theta) * A  # (2, B, H, T, dh)
            q, k = qk[0], qk[1]
        # softmax(q·kᵀ/√dh + bias)·v; without a bias the causal mask is SDPA's own (the same numbers, no T×T mask)
        y = functional.scaled_dot_product_attention(q, k, v, attn_mask=bias, is_causal=bias is None)
        x = x + self.out(y.transpose(1, 2).reshape(B, T, -1))  # (B, T, d)
        return x + self.mlp(self.ln2(x))


def _init(module: nn.Module) -> None:
    """GPT-2's initialisation: weights N(0, 0.02), biases 0 (LayerNorm keeps its ones and zeros)."""
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.normal_(module.weight, std=INIT_STD)
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.zeros_(module.bias)


class TinyLM(nn.Module):
    """Token embedding (+ absolute positions for learned/sinusoidal), n pre-LN blocks, a tied output head."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        if config.scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {', '.join(map(repr, SCHEMES))}; got {config.scheme!r}")
        self.config = config
        self.embed = nn.Embedding(config.vocab + 1, config.d_model)  # + BOS
        if config.scheme == "learned":
            self.pos = nn.Embedding(config.train_length, config.d_model)
        if config.scheme == "sinusoidal":   # a trained gain on the fixed table (Hua et al. 2022's scaled sinusoids)
            self.pos_scale = nn.Parameter(torch.tensor(SINUSOIDAL_SCALE))
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.ln_f = nn.LayerNorm(config.d_model)
        self.meta: dict[str, object] = {}   # what load() knows about the weights (fine-tune method, factor)
        self.apply(_init)


    def forward(self, inputs: torch.Tensor, inv_freq: np.ndarray | None = None, attention_factor: float = 1.0,
                positions: np.ndarray | None = None) -> torch.Tensor:
        """Logits (B, T, V) for ``inputs`` (B, T). RoPE models rotate with ``inv_freq`` (default: plain
        ``base**(-2i/d_h)``) at ``positions`` (default 0..T-1, may be fractional) and multiply q and k by
        ``attention_factor``; other schemes ignore all three."""
        c = self.config
        T = inputs.shape[1]
        x = self.embed(inputs)  # (B, T, d)
        if c.scheme == "learned":
            x = x + self.pos(torch.arange(T).clamp(max=c.train_length - 1))
        elif c.scheme == "sinusoidal":
            x = x + self.pos_scale * torch.as_tensor(sinusoidal_table(T, c.d_model), dtype=x.dtype)
        rope = None
        if c.scheme == "rope":
            theta = rope_inv_freq(c.head_dim, c.rope_base) if inv_freq is None else inv_freq
            pos = np.arange(T, dtype=np.float64) if positions is None else positions
            rope = (pos, theta, float(attention_factor))
        bias = position_bias(c, T)
        for block in self.blocks:
            x = block(x, bias, rope)
        return self.ln_f(x) @ self.embed.weight[: c.vocab].T  # (B, T, V)


def save(model: TinyLM, path: str, meta: dict | None = None) -> None:
    """``torch.save`` of plain data only (config, meta, state_dict), so ``weights_only=True`` can load it."""
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    torch.save({"config": asdict(model.config), "meta": dict(meta or {}), "state_dict": state}, path)


def load_file(path: str, scheme: str | None = None) -> TinyLM:
    """A model from ``save``'s file, in eval mode on the CPU (``weights_only=True``: no code is unpickled).

    Anything but such a file of a ``scheme`` model (any scheme if None) raises ``WeightsError`` naming
    ``path``: unreadable bytes, an unknown or missing config key, a tensor missing, extra or of the wrong
    shape, NaN or infinite weights. The checksum is the caller's (``posviz.models`` verifies the manifest's).
    """
    blob = _read(path)
    config = _config(path, blob.get("config"), scheme)
    with torch.device("meta"):  # the shapes the config asks for, allocated nowhere: the file's tensors bound them
        expected = TinyLM(config).state_dict()
    state = blob.get("state_dict")
    _check_state(path, expected, state)
    model = TinyLM(config)
    model.load_state_dict(state)
    meta = blob.get("meta", {})
    model.meta = dict(meta) if isinstance(meta, dict) else {}
    return model.eval()


def _read(path: str) -> dict:
    """``torch.load``'s dict of ``save``'s file; its own errors (EOFError, the unpickler's advice to turn
    ``weights_only`` off, which would run code from the file) become one ``WeightsError`` line."""
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise WeightsError(path, "is missing") from None
    except Exception:  # whatever the bytes make torch raise (EOFError, UnpicklingError, ...), the file is unusable
        raise WeightsError(path, "is not a weights file torch can read (damaged or truncated)") from None
    if not isinstance(blob, dict):
        raise WeightsError(path, f"holds a {type(blob).__name__}, not posviz's config, meta and state_dict")
    return blob


def _config(path: str, config: object, scheme: str | None) -> NetConfig:
    """The file's ``NetConfig``, checked key by key and value by value."""
    if not isinstance(config, dict):
        raise WeightsError(path, "has no model config")
    types = {f.name: f.type for f in fields(NetConfig)}
    unknown = sorted(set(config) - set(types), key=str)
    if unknown:
        raise WeightsError(path, f"has an unknown config key {str(unknown[0])[:40]!r}")
    if "scheme" not in config:
        raise WeightsError(path, "has no 'scheme' in its config")
    for key, value in config.items():
        if not _valid(types[key], value):
            raise WeightsError(path, f"has an invalid config value for {key!r}")
    c = NetConfig(**config)
    if c.scheme not in SCHEMES or (scheme is not None and c.scheme != scheme):
        expected = "a posviz scheme" if scheme is None else repr(scheme)
        raise WeightsError(path, f"holds a {c.scheme[:40]!r} model where {expected} was expected")
    if c.d_model % (2 * c.n_heads):
        raise WeightsError(path, f"has d_model {c.d_model} that {c.n_heads} heads of even size cannot split")
    return c


def _valid(kind: str, value: object) -> bool:
    """Whether ``value`` fits a ``NetConfig`` field of type ``kind``: a string, an integer in 1..CONFIG_MAX, or
    a positive finite float (bools are ints to Python, never to us)."""
    if isinstance(value, bool):
        return False
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and 0 < value <= CONFIG_MAX
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def _check_state(path: str, expected: dict[str, torch.Tensor], state: object) -> None:
    """Every tensor the model needs, of its shape, finite, and nothing else."""
    if not isinstance(state, dict):
        raise WeightsError(path, "has no state_dict")
    missing = [k for k in expected if k not in state]
    if missing:
        raise WeightsError(path, f"lacks tensor {missing[0]!r}")
    extra = [k for k in state if k not in expected]
    if extra:
        raise WeightsError(path, f"has an unknown tensor {str(extra[0])[:60]!r}")
    for key, want in expected.items():
        got = state[key]
        if not isinstance(got, torch.Tensor) or not got.is_floating_point():
            raise WeightsError(path, f"has tensor {key!r} that is not floating point")
        if got.shape != want.shape:
            raise WeightsError(path, f"has tensor {key!r} of shape {tuple(got.shape)} where the model needs "
                                     f"{tuple(want.shape)}")
        if not torch.isfinite(got).all():
            raise WeightsError(path, f"has NaN or infinite values in tensor {key!r}")
