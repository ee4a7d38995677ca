"""Contextual Position Encoding (CoPE; Golovneva, Wang, Weston, Sukhbaatar 2024, §3), by job: the reference model
(``model``: gates, positions by a reversed cumulative sum, interpolated position logits, attention, and the ``CoPE``
module with upstream's semantics), the lesson's toy tokenizer (``tokenizer``) and the lesson's measurements
(``lesson``: gate rules, a seeded toy attention head, embedding tables, one run over a text).

``p_ij = Σ_{k=j}^{i} σ(z_ik)`` under the causal mask, clamped to ``npos_max − 1``; ``pos_ij = w·z_i[⌈p⌉] +
(1 − w)·z_i[⌊p⌋]``, ``w = p − ⌊p⌋`` (docs/FORMULAS.md §7). Every public name is importable from ``posviz.cope``
itself; torch is imported on first use, and ``CoPE`` is created then.
"""

from posviz.cope import model
from posviz.cope.lesson import (
    DEFAULT_TEXT,
    EMBEDDINGS,
    EXAMPLES,
    GQA_LAYOUTS,
    MAX_D_HEAD,
    MAX_SEED,
    RULES,
    SATURATE,
    CopeRun,
    attention_near_target,
    cope_run,
    embedding_table,
    gate_logits,
    gate_scores,
    gqa_shapes,
    interpolation_detail,
    largest_position,
    pick_index,
    query_settings,
    seeded_qk,
    table_settings,
)
from posviz.cope.model import (
    MAX_ELEMENTS,
    MAX_MODULE_T,
    MAX_NPOS,
    MAX_T,
    attention_weights,
    cope_gates,
    cope_positions,
    interpolate,
    position_logits,
    positions_from_gates,
)
from posviz.cope.tokenizer import (
    CONTINUATION,
    MAX_TOKENS,
    NEWLINE,
    NEWLINE_LABEL,
    PIECE_LEN,
    SENTENCE_ENDS,
    Tokens,
    tokenize,
)

__all__ = [
    "CoPE",
    "MAX_ELEMENTS",
    "MAX_MODULE_T",
    "MAX_NPOS",
    "MAX_T",
    "attention_weights",
    "cope_gates",
    "cope_positions",
    "interpolate",
    "position_logits",
    "positions_from_gates",
    "CONTINUATION",
    "MAX_TOKENS",
    "NEWLINE",
    "NEWLINE_LABEL",
    "PIECE_LEN",
    "SENTENCE_ENDS",
    "Tokens",
    "tokenize",
    "DEFAULT_TEXT",
    "EMBEDDINGS",
    "EXAMPLES",
    "GQA_LAYOUTS",
    "MAX_D_HEAD",
    "MAX_SEED",
    "RULES",
    "SATURATE",
    "CopeRun",
    "attention_near_target",
    "cope_run",
    "embedding_table",
    "gate_logits",
    "gate_scores",
    "gqa_shapes",
    "interpolation_detail",
    "largest_position",
    "pick_index",
    "query_settings",
    "table_settings",
    "seeded_qk",
]


def __getattr__(name: str) -> type:
    """``CoPE``, the attention module class, made on first use so that importing posviz.cope needs no torch."""
    if name == "CoPE":
        return model.CoPE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
