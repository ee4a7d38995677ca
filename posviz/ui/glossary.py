"""The glossary and notation: each symbol the course uses, the convention it follows, and the clash it avoids.

The glossary page (pages/*_Glossary.py) draws :data:`TERMS` in order, each under a heading whose anchor is the
term's key; a part links a symbol where it first appears with ``ui.term("pair_index")``, a markdown link to that
heading. The notation is docs/FORMULAS.md §0's.
"""

from __future__ import annotations

from dataclasses import dataclass

from posviz.i18n import N_, _
from posviz.ui.course import GLOSSARY_PATH, app_path


@dataclass(frozen=True)
class Term:
    """One glossary entry: its anchor, the words a link shows, the heading, and what to know (markdown, with
    ``$...$`` maths)."""

    key: str
    label: str
    heading: str
    text: str

    @property
    def anchor(self) -> str:
        """The heading's HTML id (Streamlit anchors allow letters, digits and hyphens)."""
        return self.key.replace("_", "-")


TERMS: tuple[Term, ...] = (
    Term("pair_index", N_("pair index i"), N_("Pair index $i$ (not the imaginary unit)"),
         N_("RoPE and the sinusoidal table work on pairs of channels. Pairs are numbered from 0: "
            "$i = 0, 1, \\dots, d/2 - 1$, and pair 0 turns fastest. Because $i$ is taken, the imaginary unit is "
            "written $\\mathrm{j}$ ($\\mathrm{j}^2 = -1$), so a pair seen as a complex number is "
            "$z_i = u + \\mathrm{j}v$ and a turn by angle $a$ is $z_i e^{\\mathrm{j}a}$. The distance-bias and CoPE "
            "lessons use $(i, j)$ for a row and column of the attention matrix (query $i$, key $j$): there $i$ is a "
            "token, not a pair.")),
    Term("imaginary_unit", N_("imaginary unit j"), N_("Imaginary unit $\\mathrm{j}$"),
         N_("$\\mathrm{j}^2 = -1$. Papers often write $i$; the course keeps $i$ for the pair index.")),
    Term("offset", N_("offset Δ = m − n"), N_("Offset $\\Delta = m - n$ and its sign"),
         N_("$m$ is the query's position and $n$ the key's, so $\\Delta = m - n$ is how far the key lies behind the "
            "query: positive for an earlier key, 0 for the token itself, negative for a later key (which a causal "
            "mask hides). RoPE's score depends on $\\Delta$ alone, but not symmetrically: $\\Delta$ and $-\\Delta$ "
            "give different scores. T5's bucket function takes the key's position minus the query's, $n - m = "
            "-\\Delta$; its code's sign is the opposite of the course's.")),
    Term("positions", N_("positions from 0"), N_("Positions count from 0"),
         N_("The first token is position 0, as in transformers' `position_ids`. A model trained on $L$ tokens has "
            "seen positions $0 \\dots L - 1$ and offsets $0 \\dots L - 1$.")),
    Term("base", N_("base b"), N_("Base $b$ against frequency $\\theta_i$"),
         N_("The base $b$ is one number per model; the frequencies are derived from it: "
            "$\\theta_i = b^{-2i/d}$ radians per token for pair $i$. A config.json calls the base `rope_theta`, "
            "a name that looks like a frequency but is $b$ (10000 in the original papers, 500000 in Llama 3). "
            "Raising $b$ slows every pair but pair 0.")),
    Term("wavelength", N_("wavelength λᵢ"), N_("Wavelength $\\lambda_i = 2\\pi/\\theta_i$"),
         N_("Tokens for pair $i$ to make one full turn. Pair 0's is $2\\pi \\approx 6.28$ tokens whatever the base; "
            "the last pair's approaches $2\\pi b$.")),
    Term("dimensions", N_("$d$ and $d_{model}$"), N_("$d_{model}$ against $d$ (head dimension)"),
         N_("The sinusoidal table and learned tables are as wide as the model, $d_{model}$, and are added once to "
            "the token embeddings. RoPE acts inside each attention head, on $d$ channels (the head dimension, or "
            "the part of it that rotates: `partial_rotary_factor`, DeepSeek's `qk_rope_head_dim`).")),
    Term("lengths", N_("L and L′"), N_("Training length $L$, target length $L'$, scale $s = L'/L$"),
         N_("$L$ is the context a model was trained on (a config's `original_max_position_embeddings` when it was "
            "extended later); $L'$ is the length it is asked to read; $s = L'/L$ is the scaling `factor`. A learned "
            "table has exactly $L$ rows.")),
    Term("head_index", N_("head index h"), N_("Head index $h$ counts from 0"),
         N_("Heads are $h = 0 \\dots H - 1$ in the course and in code. The ALiBi paper numbers heads from 1, so its "
            "slope $2^{-8k/H}$ for head $k$ is the course's $2^{-8(h+1)/H}$ for $h = k - 1$.")),
    Term("layout", N_("interleaved or half layout"), N_("Layouts: interleaved and half"),
         N_("Which channels form a pair: adjacent ones $(x_{2i}, x_{2i+1})$ (the RoFormer paper, Meta's code) or "
            "channels $d/2$ apart $(x_i, x_{i+d/2})$ (transformers' `rotate_half`). The same model must use one "
            "layout for its weights and its rotation.")),
    Term("attention_factor", N_("attention factor A"), N_("Attention factor $A$"),
         N_("A number multiplying cos and sin (YaRN's temperature correction); the logits grow by $A^2$.")),
    Term("causal", N_("causal mask"), N_("Causal and bidirectional attention"),
         N_("A causal mask lets the token at $m$ see keys $n \\le m$ only (decoders such as GPT and Llama); "
            "bidirectional attention sees every token (encoders such as BERT and ViT). Without any position code a "
            "bidirectional layer cannot tell orders apart, while a causal one can still count the tokens before it.")),
    Term("nope", N_("NoPE"), N_("NoPE"),
         N_("No position encoding at all: only the causal mask tells positions apart. Llama 4 leaves RoPE out of "
            "every 4th layer.")),
)

_BY_KEY = {t.key: t for t in TERMS}


def find_term(key: str) -> Term:
    """The glossary entry ``key`` (ValueError naming the known keys otherwise)."""
    if key not in _BY_KEY:
        raise ValueError(f"no glossary term {key!r}; terms: {', '.join(_BY_KEY)}")
    return _BY_KEY[key]


def term_href(key: str) -> str:
    """The address of glossary entry ``key``: the glossary page at its heading, behind the server's base path
    (``server.baseUrlPath``) as lesson links are (:func:`posviz.ui.course.app_path`)."""
    return app_path(f"{GLOSSARY_PATH}#{find_term(key).anchor}")


def term(key: str, text: str | None = None) -> str:
    """A markdown link to glossary entry ``key``, showing ``text`` (default: the term's label)."""
    return f"[{text or _(find_term(key).label)}]({term_href(key)})"
