"""Position in real models: a learned table, what the attention mask does to position, where each encoding sits in
a transformer, and which released models use what.

The learned table is the position table of the small model trained here (``posviz.models.load("learned")``, the
GPT-2 scheme: ``nn.Embedding(L, d_model)`` added to the token embeddings). Masks: Kazemnejad et al. 2023 (NoPE,
arXiv:2305.19466) on why a causal decoder can tell positions apart without any code; Vaswani et al. 2017 §3.5 for
the input scaling. Facts about released models are read from their config.json (``posviz.presets``, read with
``posviz.scaling.describe_config``) or, where posviz keeps no preset, from :data:`ATLAS_EXTRA`, each with its
source.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posviz import bias, rope, scaling, sinusoidal
from posviz._validate import check_array, check_bool, check_choice, check_int
from posviz.i18n import N_, _

MAX_T = 256  # tokens in the mask checks: T × T × d values
MAX_TABLE_ROWS = 4096  # rows of a table whose similarity is asked: a (P, P) result
MAX_TABLE_VALUES = 1 << 20


# --- (a) a learned table ---------------------------------------------------------------------------------------
def learned_table() -> np.ndarray:
    """The position table of the shipped ``learned`` model: (L, d_model) float64, row p added to the token at
    position p (GPT-2's ``wpe``). Imports torch on first use."""
    from posviz import models

    return models.shared("learned").pos.weight.detach().double().numpy().copy()


EXAMPLE_TABLE = ((1.0, 0.0), (0.6, 0.8), (0.0, 1.0))


def _table(table: object) -> np.ndarray:
    t = check_array("table", table, ndim=2, max_size=MAX_TABLE_VALUES)
    if not 2 <= t.shape[0] <= MAX_TABLE_ROWS:
        raise ValueError(f"table must have 2..{MAX_TABLE_ROWS} rows; got {t.shape[0]}")
    return t


def cosine_similarity(table: object = EXAMPLE_TABLE) -> np.ndarray:
    """Cosine similarity of every pair of rows of ``table`` (P, d): S[p, q] = t_p·t_q / (‖t_p‖ ‖t_q‖), (P, P);
    a zero row has similarity 0 with every row."""
    t = _table(table)
    norms = np.linalg.norm(t, axis=1, keepdims=True)
    unit = t / np.where(norms == 0, 1.0, norms)
    return np.clip(unit @ unit.T, -1.0, 1.0)


def similarity_by_offset(table: object = EXAMPLE_TABLE) -> np.ndarray:
    """Mean cosine similarity of rows k apart, k = 0..P − 1: mean over p of S[p, p + k], (P,)."""
    s = cosine_similarity(table)
    return np.array([np.diagonal(s, k).mean() for k in range(s.shape[0])])


def sinusoidal_like(table: object = EXAMPLE_TABLE) -> np.ndarray:
    """The sinusoidal table (Vaswani §3.5) of the same shape as ``table``: what a fixed code would put there."""
    rows, d = _table(table).shape
    return sinusoidal.sinusoidal_table(rows, d + d % 2)[:, :d]


def row_for_position(p: int = 0, L: int = 64) -> int | None:
    """The row of an L-row learned table that position ``p`` reads: p itself for p < L; past the table there is
    no row (GPT-2 raises an index error; the model here clamps to row L − 1, the usual fallback): None."""
    L = check_int("L", L, 1, 1 << 20)
    p = check_int("p", p, 0, 1 << 24)
    return p if p < L else None


# --- (b) causal against bidirectional ---------------------------------------------------------------------------
def _head(d: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return tuple(rng.normal(0.0, 1.0 / np.sqrt(d), (d, d)) for _ in range(3))


def attend(x: object = EXAMPLE_TABLE, causal: bool = True, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One attention head with no position code on tokens ``x`` (T, d): softmax(q kᵀ/√d + mask) v with seeded
    W_q, W_k, W_v; returns (outputs (T, d), weights (T, T)). At most MAX_T tokens of at most 64 channels."""
    x = check_array("x", x, ndim=2, min_size=1, max_size=MAX_T * 64, lo=-1e6, hi=1e6)
    T, d = x.shape
    check_int("T", T, 1, MAX_T), check_int("d", d, 1, 64)
    causal, seed = check_bool("causal", causal), check_int("seed", seed, 0, 2**31 - 1)
    wq, wk, wv = _head(d, seed)
    logits = (x @ wq) @ (x @ wk).T / np.sqrt(d)
    if causal:
        logits = np.where(np.tril(np.ones((T, T), dtype=bool)), logits, -np.inf)
    w = np.exp(logits - logits.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    return w @ (x @ wv), w


@dataclass(frozen=True)
class MaskChecks:
    """What a mask does to position: the permutation error max |f(Px) − P f(x)| of each mask, and the weight
    every query puts on a start token followed by T − 1 copies of one word (causal, bidirectional)."""

    perm_error_causal: float
    perm_error_bidirectional: float
    start_weight_causal: np.ndarray
    start_weight_bidirectional: np.ndarray


def mask_checks(T: int = 16, d: int = 16, seed: int = 0) -> MaskChecks:
    """Permutation equivariance and counting, for both masks. Without position code a bidirectional layer is
    permutation-equivariant (shuffling the tokens shuffles the outputs alike: lesson 1); a causal one is not,
    and on a start token followed by identical words, the weight a query at position t puts on the start token
    falls strictly with t (e^a/(e^a + t e^b)), so position is readable from it (Kazemnejad et al. 2023 §4)."""
    T, d = check_int("T", T, 3, MAX_T), check_int("d", d, 2, 64)
    seed = check_int("seed", seed, 0, 2**31 - 1)
    rng = np.random.default_rng(seed + 1)
    x = rng.normal(size=(T, d))
    perm = rng.permutation(T)
    while np.array_equal(perm, np.arange(T)):  # the identity would test nothing
        perm = rng.permutation(T)
    errors = []
    for causal in (True, False):
        out, _ = attend(x, causal=causal, seed=seed)
        shuffled, _ = attend(x[perm], causal=causal, seed=seed)
        errors.append(float(np.abs(shuffled - out[perm]).max()))
    word = rng.normal(size=d)
    start = rng.normal(size=d)
    same = np.vstack([start, np.tile(word, (T - 1, 1))])
    weights = [attend(same, causal=c, seed=seed)[1][:, 0] for c in (True, False)]
    return MaskChecks(errors[0], errors[1], weights[0], weights[1])


# --- (c) where each encoding sits -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Place:
    """Where an encoding acts: ``where`` is "input" (added once to the embeddings), "qk" (q and k rotated in
    every layer; v never) or "logits" (added to q·kᵀ/√d_h); ``shared`` says the logit bias is computed once and
    reused by every layer; ``source`` cites it."""

    label: str
    where: str
    shared: bool
    source: str


PLACES: dict[str, Place] = {
    "sinusoidal": Place(N_("sinusoidal"), "input", False,
                        N_("Vaswani et al. 2017 §3.4-3.5: embeddings × $\\sqrt{d_{model}}$, + PE")),
    "learned": Place(N_("learned (GPT-2, BERT)"), "input", False,
                     N_("GPT-2's wte + wpe (no $\\sqrt{d_{model}}$ scaling); BERT's position_embeddings")),
    "rope": Place("RoPE", "qk", False, N_("Su et al. 2021 (arXiv:2104.09864) §3.4: Rₘ q, Rₙ k in each layer")),
    "alibi": Place("ALiBi", "logits", False, N_("Press et al. 2022 (arXiv:2108.12409) §3: −mₕ·(i − j) per head")),
    "t5": Place(N_("T5 buckets"), "logits", True, N_("Raffel et al. 2020 §2.1; transformers' T5: layer 0 computes "
                                                  "the bias (has_relative_attention_bias), later layers reuse it")),
    "kerple": Place("KERPLE", "logits", False, "Chi et al. 2022 (arXiv:2205.09921): −r1·log(1 + r2·|i − j|)"),
}


def shift_check(scheme: str = "rope", m: int = 9, n: int = 4, c: int = 5, d: int = 16,
                seed: int = 0) -> tuple[float, float]:
    """The logit of one query at m and one key at n, and of the same two tokens at m + c and n + c, with the
    encoding ``scheme`` placed where it sits (PLACES): added to the inputs, a logit depends on m and n; rotating
    q and k or biasing the logit makes it depend on m − n only. Returns (logit at (m, n), logit at (m+c, n+c))."""
    check_choice("scheme", scheme, PLACES)
    m, n, c = (check_int(k, v, 0, 4096) for k, v in (("m", m), ("n", n), ("c", c)))
    d, seed = check_int("d", d, 2, 64, even=True), check_int("seed", seed, 0, 2**31 - 1)
    rng = np.random.default_rng(seed)
    xq, xk = rng.normal(size=d), rng.normal(size=d)
    wq, wk, _ = _head(d, seed)

    def logit(a: int, b: int) -> float:
        if scheme in ("sinusoidal", "learned"):
            table = sinusoidal.sinusoidal_table(max(a, b) + 1, d) if scheme == "sinusoidal" else \
                np.random.default_rng(seed + 7).normal(0, 1, (max(a, b) + 1, d))
            return float(((xq + table[a]) @ wq) @ ((xk + table[b]) @ wk) / np.sqrt(d))
        q, k = xq @ wq, xk @ wk
        if scheme == "rope":
            theta = rope.inv_freq(d)
            return float(rope.rotate(q[None], [a], theta)[0] @ rope.rotate(k[None], [b], theta)[0] / np.sqrt(d))
        content = float(q @ k / np.sqrt(d))
        if scheme == "alibi":
            return content - float(bias.alibi_slopes(8)[0]) * (a - b)
        if scheme == "t5":  # one value per bucket (learned in T5; seeded here)
            values = np.random.default_rng(seed + 3).normal(size=32)
            return content + float(values[int(bias.t5_bucket(b - a, bidirectional=False))])
        return content + float(bias.kerple(abs(a - b), 1.0, 0.5))

    return logit(m, n), logit(m + c, n + c)


# --- (d) the atlas ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AtlasRow:
    """One released model: its scheme, the facts the atlas shows, their source, and the part that explains it
    (lesson slug, part key). ``preset`` names a posviz.presets entry whose config the facts are read from."""

    model: str
    scheme: str
    facts: str
    source: str
    explained_by: tuple[str, str]
    preset: str | None = None


# the atlas rows read from posviz.presets: (row name, preset, scheme, the part that explains it); Code Llama and
# Llama 3 raised the base to train longer (ABF), which the long-context lesson's first part explains
ATLAS_PRESETS: tuple[tuple[str, str, str, tuple[str, str]], ...] = (
    ("Code Llama 7B", "Code Llama 7B", "RoPE", ("long_context", "base")),
    ("Llama 3 8B", "Llama 3 8B", "RoPE", ("long_context", "base")),
    ("Llama 3.1 8B", "Llama 3.1 8B", "RoPE", ("context_extension", "models")),
    ("Mistral 7B v0.1", "Mistral 7B v0.1", "RoPE", ("rope", "base")),
    ("Qwen3 8B", "Qwen3 8B", "RoPE", ("rope", "base")),
    ("Gemma 3 27B", "Gemma 3 27B", "RoPE", ("context_extension", "models")),
    ("Llama 4 Scout 17B-16E", "Llama 4 Scout 17B-16E", "RoPE", ("bias", "nope")),
    ("DeepSeek-V3", "DeepSeek-V3", "RoPE", ("rope", "pairs")),
    ("Qwen2-VL 7B", "Qwen2-VL 7B Instruct (M-RoPE)", "M-RoPE", ("2d", "mrope")),
)

# models posviz keeps no RoPE preset for: their own config keys or paper
ATLAS_EXTRA: tuple[AtlasRow, ...] = (
    AtlasRow("GPT-2", N_("learned absolute"),
             N_("n_positions 1024: a 1024-row table (wpe) added to the token embeddings"),
             "openai-community/gpt2 config.json (n_positions 1024, n_ctx 1024); Radford et al. 2019",
             ("real_models", "learned")),
    AtlasRow("BERT base", N_("learned absolute"),
             N_("max_position_embeddings 512, position_embedding_type \"absolute\""),
             "google-bert/bert-base-uncased config.json; Devlin et al. 2019 §3", ("real_models", "learned")),
    AtlasRow("OPT", N_("learned absolute"), N_("max_position_embeddings 2048; the table has 2 extra rows (offset 2)"),
             "facebook/opt-125m config.json; transformers' OPTLearnedPositionalEmbedding (offset 2)",
             ("real_models", "learned")),
    AtlasRow("ViT-B/16", N_("learned absolute (1-D over patches)"),
             N_("224/16 = 14 × 14 = 196 patches + [CLS]: 197 rows"),
             "google/vit-base-patch16-224 config.json (image_size 224, patch_size 16); Dosovitskiy et al. 2021 §3.1",
             ("real_models", "learned")),
    AtlasRow("MAE", N_("fixed 2-D sin-cos"), N_("half the channels encode the column, half the row (not trained)"),
             "He et al. 2022 (arXiv:2111.06377) §3; facebookresearch/mae get_2d_sincos_pos_embed", ("2d", "pitfalls")),
    AtlasRow("BLOOM", "ALiBi", N_("no position embedding; a bias of slope m_h per head on the logits (the code adds "
                                  "m_h·j, which differs from −m_h·(i − j) by a constant per query: the same softmax)"),
             "BigScience 2022, BLOOM (arXiv:2211.05100), model architecture: ALiBi positional embeddings; "
             "transformers' build_alibi_tensor", ("bias", "alibi")),
    AtlasRow("MPT-7B", "ALiBi", N_("attn_config: alibi true, alibi_bias_max 8; max_seq_len 2048"),
             "mosaicml/mpt-7b config.json (attn_config)", ("bias", "alibi")),
    AtlasRow("T5", N_("T5 relative buckets"), N_("relative_attention_num_buckets 32, max distance 128; one learned "
                                                 "value per bucket and head, computed in layer 0 and shared by the "
                                                 "other layers"),
             "google-t5/t5-base config.json (relative_attention_num_buckets 32; max distance 128 is T5Config's "
             "relative_attention_max_distance default and the paper's); Raffel et al. 2020 §2.1; transformers' "
             "T5Attention (has_relative_attention_bias in layer 0 only)", ("bias", "t5")),
)


def atlas_preset_rows() -> tuple[AtlasRow, ...]:
    """The atlas rows read from posviz.presets (:data:`ATLAS_PRESETS`): each row's facts come from
    ``scaling.describe_config`` of the preset's config, so they are the reader's numbers."""
    from posviz.presets import get_preset

    return tuple(AtlasRow(row, scheme, config_facts(get_preset(name).config), get_preset(name).source, explained,
                          name) for row, name, scheme, explained in ATLAS_PRESETS)


def config_facts(config: dict) -> str:
    """What the config reader says of a config's positions, in one line: base(s), rotating channels per head,
    the layers of each kind, NoPE layers and M-RoPE's split."""
    report = scaling.describe_config(config)
    cfg = config.get("text_config", config)
    names = {"all": "", "full_attention": _("global layers"), "sliding_attention": _("local (sliding-window) layers")}
    parts = []
    for block in report.blocks:
        rc = block.rope
        where = names.get(block.layer_type, block.layer_type)
        where = _("{kind} ({count}): ", kind=where, count=len(block.layers)) if where else ""
        nope = cfg.get("qk_nope_head_dim") if rc.head_dim_source.startswith("qk_rope_head_dim") else None
        channels = _("decoupled: {rotating} of {total} query/key channels rotate, {nope} carry no position",
                     rotating=rc.dim, total=rc.dim + int(nope), nope=nope) if isinstance(nope, int) else \
            _("{rotating} of {total} channels rotate", rotating=rc.dim, total=rc.head_dim)
        parts.append(_("{where}base {base:,.0f}, {channels}", where=where, base=rc.base, channels=channels))
    if report.nope_layers:
        parts.append(_("no RoPE in {nope} of {total} layers ({first}, ...)", nope=len(report.nope_layers),
                       total=report.num_hidden_layers, first=", ".join(str(i) for i in report.nope_layers[:3])))
    if report.mrope_section:
        parts.append(_("M-RoPE pairs (temporal, height, width) = {sections}",
                       sections=", ".join(map(str, report.mrope_section))))
    return _("; ").join(parts)


def atlas() -> tuple[AtlasRow, ...]:
    """Every atlas row: the ones read from configs first, then :data:`ATLAS_EXTRA`."""
    return atlas_preset_rows() + ATLAS_EXTRA
