"""CoPE: gates decide which tokens count, positions are sums of gates, fractional positions interpolate."""

import numpy as np
import streamlit as st

from posviz import cope, ui
from posviz.figures.cope import (
    cope_attention,
    cope_embedding_table,
    cope_gates_positions,
    cope_gqa_shapes,
    cope_interpolation,
    cope_position_bounds,
    cope_positions_map,
    cope_query_positions,
    cope_tokens,
)
from posviz.i18n import N_, _

MAX_TOKENS = cope.MAX_TOKENS
SHARP_SCALE = 37.0  # from a = 37 on, σ(a) rounds to exactly 1 in float64 (tests/test_page_cope.py recomputes it)


def counted_text(v: dict) -> str:
    """The text the lesson counts: the chosen example or the typed text (the first example if that is empty)."""
    text = v["text"] if v["example"] == "typed" else cope.EXAMPLES[v["example"]]
    return text if cope.tokenize(text, 1).T else cope.DEFAULT_TEXT


def n_tokens(v: dict) -> int:
    return cope.tokenize(counted_text(v)).T


def last_key(v: dict) -> int:
    """The last key the query i can see: itself under the causal mask, else the last token. At least 1: a
    slider whose ends meet raises in Streamlit (query 0, or a one-token text, then also offers key 1)."""
    return max(1, cope.pick_index(v["i"], n_tokens(v)) if v["causal"] else n_tokens(v) - 1)


lesson = ui.Lesson(
    "cope", N_("CoPE"), icon="🧮", order=8, headline="cope_gates_positions",
    summary=N_("Contextual Position Encoding: gates decide which tokens count, a key's position is the sum of the "
               "gates between it and the query, fractional positions interpolate between embeddings, and a query "
               "can attend to “the previous sentence” whatever its length."),
    intro=N_("Contextual Position Encoding (Golovneva et al. 2024) lets the model decide what a position counts: "
          "words, sentences, or anything a gate can recognise. Type a text, pick a gate rule, and watch the "
          "gates become positions, the positions become interpolated embeddings, and the embeddings "
          "reshape attention."),
    controls=(
        # your own text is the last option: up to 64 tokens, the largest setting (the examples have 25-27)
        ui.Choice("example", N_("text to count"), default="typed", widget="select",
                  options={"sentences": N_("example: several sentences"), "list": N_("example: a bulleted list"),
                           "code": N_("example: a line of code"), "typed": N_("your text (box)")}),
        ui.Text("text", N_("your text"), default=cope.DEFAULT_TEXT, max_chars=1000, area=True,
                help=N_("Shown back as plain text only. At most {most} tokens are used."),
                help_values=(("most", MAX_TOKENS),)),
        ui.Int("i", N_("query i (−1 = last token)"), default=-1, lo=-1, hi=lambda v: n_tokens(v) - 1,
               hi_max=MAX_TOKENS - 1,
               help=N_("The query whose view the chips, bars, interpolation and attention show.")),
        ui.Choice("rule", N_("gate rule (score s_ij)"), default="sentences", options=cope.RULES, widget="select"),
        ui.Float("scale", N_("gate logit scale a (z = a·s + b)"), default=4.0, lo=0.0, hi=40.0, step=0.5,
                 help=N_("Gates are σ(a·s + b). From a = 37 on, a +1 score gives a gate of exactly 1 in float64; a −1 "
                      "score gives σ(−a), 8.5e−17 at a = 37: tiny, never exactly 0.")),
        ui.Float("bias", N_("gate logit bias b"), default=0.0, lo=-10.0, hi=10.0, step=0.5),
        ui.Bool("causal", N_("causal mask on the gates"), default=True,
                help=N_("Off shows the leak: positions then count future tokens.")),
        ui.Int("npos_max", N_("npos_max P (0 = T + 1)"), default=0, lo=0, hi=MAX_TOKENS + 1,
               help=N_("Size of the position table; positions are clamped to P − 1. Upstream default: T + 1.")),
        ui.Int("seed", N_("random seed"), default=0, lo=0, hi=999,
               help=N_("Embeddings of the toy attention head and e.")),
        ui.Int("d_head", N_("head dim d_h"), default=16, lo=4, hi=64, step=4),
        ui.Choice("emb", N_("embedding table e"), default="random",
                  options={"random": N_("seeded random"), "sinusoidal": N_("sinusoidal")}),
        ui.Int("j", N_("key j for the interpolation"), default=0, lo=0, hi=last_key, hi_max=MAX_TOKENS - 1,
               help=N_("Keys after the query have no position under the causal mask.")),
    ),
)

GATES = ("example", "text", "rule", "scale", "bias", "causal", "npos_max")
HEAD = (*GATES, "seed", "d_head")


def gates(v: ui.Values) -> dict:
    """The gate settings, as the figures take them."""
    return dict(text=counted_text(v), rule=v.rule, scale=v.scale, bias=v.bias, causal=v.causal, npos_max=v.npos_max)


def head(v: ui.Values) -> dict:
    """The gate settings and the toy attention head's."""
    return gates(v) | dict(seed=v.seed, d_head=v.d_head)


def show_text(v: ui.Values) -> cope.CopeRun:
    """Say which text is counted (and any cap or fallback), unless ``v.quiet`` (the whole lesson on one page
    says it once); return CoPE run on it with the part's settings."""
    run = cope.cope_run(**(head(v) if "seed" in v else gates(v)))
    if v.get("quiet"):
        return run
    if v.example != "typed":
        st.caption(_("Using the example below; choose “your text (box)” in the sidebar to count your own text."))
    elif not cope.tokenize(v.text, 1).T:
        st.info(_("The text is empty (or only spaces), so there is nothing to count: showing the first example "
                  "instead."))
    st.caption(_("Text being counted (shown exactly as typed):"))
    ui.say(counted_text(v))
    if run.tokens.truncated:
        st.info(_("Long text: only the first {cap} tokens are used (matrices are T × T; {cap} is the cap).",
                  cap=MAX_TOKENS))
    return run


@lesson.part("count", N_("1. Which tokens count"), uses=(*GATES, "i"), title=N_("1. Gates decide which tokens count"))
def part_count(v: ui.Values) -> None:
    run = show_text(v)
    query = cope.pick_index(v.i, run.T)
    term = ui.term("pair_index", _("i and j are tokens, not pairs"))
    ui.figure_panel(
        cope_tokens, gates(v) | dict(query=v.i), key="tokens",
        live={"i": "query", "scale": "scale", "bias": "bias", "npos_max": "npos_max"},
        caption=_("Our toy tokenizer cuts words longer than 5 characters into pieces (“##” marks a continuation), "
                  "as sub-word tokenizers do. Dark chips are keys the query counts; the green number under each chip "
                  "is its position p_ij for query i and key j ({term}): the sum of the gates from that key up to the "
                  "query, itself included, a soft count{adds}. Switch the rule between “count words” and “count "
                  "everything” to see pieces stop counting separately.",
                  term=term, adds=soft_count(v)),
        latex=r"g_{ij} = \sigma(z_{ij})\,M_{ij},\qquad z_{ij} = a\,s_{ij} + b,\qquad M_{ij} = [\,j \le i\,]",
        code=[cope.tokenize, cope.gate_logits, cope.gate_scores, cope.cope_gates],
    )
    ui.numbers({_("tokens T"): run.T, _("words"): sum(run.tokens.word_start),
                _("sentence ends"): sum(run.tokens.sentence_end),
                _("counted by query {query}", query=query): round(float(run.gates[query].sum()), 2),
                _("npos_max P"): run.npos_max})


def run_gate(logit: float, bias: float) -> float:
    """σ(logit + bias) as the gates compute it (a ±1 score times a, plus b)."""
    return float(cope.cope_gates(np.array([[logit + bias]]), causal=False)[0, 0])


def soft_count(v: ui.Values) -> str:
    """What one counted and one skipped token add to a position under the ±1 rules, as computed."""
    counted, skipped = run_gate(v.scale, v.bias), run_gate(-v.scale, v.bias)
    if v.rule == "all":
        return _(" (every token adds σ(a + b) = {counted:.3f})", counted=counted)
    if v.rule in ("sentences", "words"):
        return _(" (a counted token adds σ(a + b) = {counted:.3f}, a skipped one σ(−a + b) = {skipped:.3g})",
                 counted=counted, skipped=skipped)
    return ""


@lesson.part("positions", N_("2a. Positions, every query"), uses=GATES, title=N_("2a. Positions are sums of gates"))
def part_positions(v: ui.Values) -> None:
    run = show_text(v)  # gates and positions: no attention head, so no seed and no d_h
    ui.figure_panel(
        cope_gates_positions, gates(v), key="positions",
        live=("scale", "bias", "npos_max"),
        caption=_("Read a row: the query counts back from itself, so positions rise to the left in steps wherever "
                  "a gate is near 1 and stay nearly flat where gates are near 0. With sentence gates the tokens of a "
                  "sentence share (almost) one position; with “count everything” the middle panel is the right one "
                  "plus 1. Blank cells are future keys, removed by the causal mask; an × marks a position clamped "
                  "to P − 1."),
        latex=r"p_{ij} = \sum_{k=j}^{i} g_{ik}\ \in [0,\ i-j+1],\qquad p_{ij} \leftarrow \min(p_{ij},\ P-1)",
        code=[cope.cope_positions, cope.positions_from_gates],
    )
    position_checks(v, run)


def position_checks(v: ui.Values, run: cope.CopeRun) -> None:
    """p_ij never exceeds i − j + 1; with every gate counted it equals it (to float64 precision)."""
    seen = run.distance >= 0
    excess = float((run.positions_raw - run.distance - 1)[seen].max())
    ui.check(_("p_ij ≤ i − j + 1 for every key j ≤ i"), excess <= 1e-9,
             _("max over the triangle of p_ij − (i − j + 1) = {excess:.3g} (never above 0)", excess=excess))
    if v.rule == "all":
        gap = float(abs(run.positions_raw - (run.distance + 1))[seen].max())
        gate = run_gate(v.scale, v.bias)
        ui.check(_("count everything: p_ij = i − j + 1 (CoPE becomes relative position)"), gap < 1e-9,
                 _("max |p_ij − (i − j + 1)| = {gap:.2e}; every gate is σ(a + b) = {gate!r}", gap=gap, gate=gate)
                 + ("" if gate == 1.0 else _(", exactly 1 in float64 only once a + b ≥ {sharp:g}", sharp=SHARP_SCALE)))
    if run.clamped.any():
        st.caption(_("{clamped} positions exceed P − 1 = {top} and are clamped: those keys all share the embedding "
                     "e[P − 1].", clamped=int(run.clamped.sum()), top=run.npos_max - 1))


@lesson.part("query", N_("2b. Positions, one query"), uses=(*GATES, "i"), title=N_("2b. Positions seen from one query"))
def part_query(v: ui.Values) -> None:
    show_text(v)
    ui.figure_panel(
        cope_query_positions, gates(v) | dict(query=v.i), key="query_bars",
        live={"i": "query", "scale": "scale", "bias": "bias", "npos_max": "npos_max"},
        caption=_("Bars: the CoPE position of every key seen from this query, coloured by the key's gate. Dashed: "
                  "i − j + 1, what plain token counting gives. The bars climb only at counted tokens, so a position "
                  "can mean “2 sentences back” however long the sentences are."),
        code=[cope.cope_positions],
    )


@lesson.part("interp", N_("3a. Interpolation"), uses=(*HEAD, "i", "emb", "j"),
             title=N_("3a. Fractional positions interpolate between embeddings"))
def part_interpolation(v: ui.Values) -> None:
    run = show_text(v)
    query, key = cope.pick_index(v.i, run.T), cope.pick_index(v.j, run.T)
    ui.figure_panel(
        cope_interpolation, head(v) | dict(emb=v.emb, query=query, key=key), key="interp",
        live={"i": ui.Sets(cope.query_settings, key=v.j, causal=v.causal, n_tokens=n_tokens(v), as_index=True),
              "scale": "scale", "bias": "bias", "npos_max": "npos_max", "seed": "seed",
              "d_head": "d_head", "j": "key"},
        caption=_("A position like 2.4 has no embedding of its own. CoPE computes the logits of the integer "
                  "positions once per query, z_i[p] = q_i·e[p], and takes the point on the straight line between "
                  "⌊p⌋ and ⌈p⌉. The larger the gate scale a, the closer the gates are to 0 or 1 and p to a whole "
                  "number (w → 0): raise a to see the interpolation vanish, or pick the attention rule for gates in "
                  "between."),
        latex=r"\begin{gathered}\mathrm{pos}_{ij} = w\,z_i[\lceil p_{ij}\rceil] + (1-w)\,z_i[\lfloor p_{ij}"
              r"\rfloor] \\ w = p_{ij}-\lfloor p_{ij}\rfloor,\qquad z_i[p] = q_i^\top e[p]\end{gathered}",
        code=[cope.interpolate, cope.position_logits],
    )
    mix = cope.interpolation_detail(cope.cope_run(**head(v), emb=v.emb), query, key)
    ui.numbers({"p_ij": f"{mix['p']:.3f}", "⌊p⌋": int(mix["floor"]), "⌈p⌉": int(mix["ceil"]), "w": f"{mix['w']:.3f}",
                "z_i[⌊p⌋]": f"{mix['z_floor']:.3f}", "z_i[⌈p⌉]": f"{mix['z_ceil']:.3f}",
                "pos_ij": f"{mix['logit']:.3f}"})


@lesson.part("table", N_("3b. Embedding table"), uses=(*HEAD, "i", "emb", "j"),
             title=N_("3b. The table of position embeddings e"))
def part_table(v: ui.Values) -> None:
    show_text(v)
    ui.figure_panel(
        cope_embedding_table, head(v) | dict(emb=v.emb, query=v.i, key=v.j), key="table",
        live={"i": ui.Sets(cope.query_settings, key=v.j, causal=v.causal, n_tokens=n_tokens(v)),
              "scale": "scale", "bias": "bias", "npos_max": "npos_max", "seed": "seed", "d_head": "d_head", "j": "key"},
        caption=_("The table e has one column per integer position 0 … P − 1 (P = T + 1 by default, because p can "
                  "reach T). Upstream learns it from zeros; here it is seeded random or sinusoidal so the logits are "
                  "visible. The outlined columns are the two the chosen (i, j) mixes."),
        code=[cope.embedding_table],
    )


def largest_position(v: dict) -> int:
    """The largest position the table holds, P − 1 (P = T + 1 when npos_max is 0); at least 1 for the slider."""
    return cope.largest_position(v["npos_max"], n_tokens(v))


@lesson.part("attention", N_("4. Attention"), uses=(*HEAD, "i", "emb"), title=N_("4. Attention with and without CoPE"),
             controls=(
                 ui.Int("target", N_("position sought p*"), default=2, lo=0, hi=largest_position, hi_max=MAX_TOKENS,
                        help=N_("The query gets a part strength·e[p*]/‖e[p*]‖, so its position logits peak at p*.")),
                 ui.Float("strength", N_("strength β"), default=6.0, lo=0.0, hi=20.0, step=0.5),
                 ui.Bool("nodiv", N_("add pos after 1/√d (nodiv)"), default=False),
             ))
def part_attention(v: ui.Values) -> None:
    run = show_text(v)
    seek = ui.controls(where="main", columns=3)
    query = cope.pick_index(v.i, run.T)
    seeking = cope.cope_run(**head(v), emb=v.emb, target=seek.target, strength=seek.strength, nodiv=seek.nodiv)
    ui.figure_panel(
        cope_attention, head(v) | dict(emb=v.emb, target=seek.target, strength=seek.strength, nodiv=seek.nodiv,
                                       query=v.i), key="attention",
                                       live={"target": "target", "strength": "strength", "i": "query",
                                             "scale": "scale", "bias": "bias", "seed": "seed", "d_head": "d_head",
                                             "npos_max": ui.Sets(cope.table_settings, target=seek.target,
                                                                 n_tokens=n_tokens(v))},
        caption=_("The toy head's keys carry no position at all, so without CoPE its attention ignores order. The "
                  "query asks for CoPE position p*. With sentence gates p* counts sentence ends back from the query, "
                  "its own gate included: from a query that ends a sentence, p* = 2 is the previous sentence; from a "
                  "query inside one, p* = 1. {sought}", sought=sought_keys(seeking, query)),
        latex=r"a_{ij} = \mathrm{softmax}_j\!\left(\frac{q_i^\top k_j + \mathrm{pos}_{ij}}{\sqrt{d_h}}\right)"
              r"\quad\text{(nodiv: } q_i^\top k_j/\sqrt{d_h} + \mathrm{pos}_{ij}\text{)}",
        code=[cope.attention_weights, cope.cope_run, cope.seeded_qk],
    )
    plain, with_cope = cope.attention_near_target(seeking, query)
    ui.numbers({_("attention on keys at p ≈ {target}, no position", target=seeking.target): plain,
                _("… with CoPE"): with_cope}, fmt="{:.3f}")
    with st.expander(_("The CoPE module (official semantics) in code")):
        st.caption(_("posviz.cope.CoPE(head_dim, block_size, npos_max=None, nodiv=False): one head of CoPE "
                     "self-attention. Gates σ(q·k/√d) times the causal mask, npos_max = block_size + 1, position "
                     "logits added before the 1/√d scaling unless nodiv=True."))
        st.code("import torch\nfrom posviz.cope import CoPE\n\nm = CoPE(head_dim=16, block_size=64)\n"
                "q, k, v = (torch.randn(2, 10, 16) for _ in range(3))\nres = m(q, k, v)\n"
                "res['positions'].shape, res['attn'].shape   # (2, 10, 10), (2, 10, 10)", language="python")


def sought_keys(run: cope.CopeRun, query: int) -> str:
    """Which keys the query's p* picks out here: those whose position rounds to p* (as the numbers below count)."""
    near = np.flatnonzero(np.abs(run.positions[query, : query + 1] - run.target) < 0.5)
    labels = run.tokens.labels
    if not near.size:
        return _("Here no key of query {query} (“{token}”) sits at p* = {target}.", query=query,
                 token=labels[query], target=run.target)
    first, last = int(near[0]), int(near[-1])
    span = _("key {first} (“{token}”)", first=first, token=labels[first]) if first == last else \
        _("keys {first}–{last} (“{first_token}” … “{last_token}”)", first=first, last=last,
          first_token=labels[first], last_token=labels[last]) if near.size == last - first + 1 else \
        _("{n} keys between {first} and {last}", n=near.size, first=first, last=last)
    return _("Here, seen from query {query} (“{token}”), p* = {target} picks out {span}.", query=query,
             token=labels[query], target=run.target, span=span)


def pitfalls_of_counting(v: ui.Values, run: cope.CopeRun) -> None:
    """The mask on the gates, the size of the table and the bound of p_ij."""
    leak_view = dict(gates(v), causal=False)
    ui.pitfall(
        _("gates without the causal mask count the future"),
        _("The mask must multiply the **gates** before the cumulative sum, not only the attention. Without it `p_ij` "
        "sums gates of keys after the query: even the query's own position tells it how much text follows. With "
        "all logits 0, query 0 gets positions `[2.0, 1.5, 1.0, 0.5]` instead of `[0.5, 0, 0, 0]`. (Computing "
        "the gates from the masked attention logits also works: σ(−∞) = 0.)"),
        key="leak",
        wrong=lambda: ui.figure_panel(cope_positions_map, leak_view, key="leak_wrong",
        live=("scale", "bias", "npos_max"),
                                      caption=_("Upper triangle filled: positions depend on future tokens.")),
        right=lambda: ui.figure_panel(cope_positions_map, dict(leak_view, causal=True), key="leak_right",
        live=("scale", "bias", "npos_max"),
                                      caption=_("Upper triangle empty: only the past is counted.")),
    )
    every = dict(text=counted_text(v), rule="all", scale=cope.SATURATE, bias=0.0, causal=True)
    ui.pitfall(
        _("a table of T embeddings"),
        _("`CoPE(seq_len, head_dim)` builds a table of T embeddings. But the query's own gate counts, so "
        "`p_ij` reaches `i − j + 1`, i.e. T for the last query and the first key: with T entries that position is "
        "silently clamped onto T − 1. Upstream uses `block_size + 1` (“position 0 is possible”). Shown with every "
        "gate at 1."),
        key="table_size",
        wrong=lambda: ui.figure_panel(cope_positions_map, dict(every, npos_max=run.T), key="size_wrong",
                                      caption=_("npos_max = T = {T}: the corner position {T} is clamped (×).",
                                                T=run.T)),
        right=lambda: ui.figure_panel(cope_positions_map, dict(every, npos_max=run.T + 1), key="size_right",
                                      caption=_("npos_max = T + 1 = {P}: nothing is clamped.", P=run.T + 1)),
    )
    ui.pitfall(
        _("positions lie in [0, i − j + 1], not [0, i]"),
        _("It is sometimes said that each position is a float in `[0, i]`. Summing from key j to the query i adds "
        "`i − j + 1` gates, the query's own included, so `p_ij ∈ [0, i − j + 1]`; with every gate at 1 the first "
        "key sits at `i + 1`, above the claimed bound on every row."),
        key="bounds",
        wrong=lambda: ui.figure_panel(cope_position_bounds, dict(text=counted_text(v), claim="off_by_one"),
                                      key="bounds_wrong",
                                      caption=_("Every bar is red: the claimed bound i is exceeded.")),
        right=lambda: ui.figure_panel(cope_position_bounds, dict(text=counted_text(v), claim="true"),
                                      key="bounds_right",
                                      caption=_("The bound i − j + 1 holds everywhere, with equality.")),
    )


def pitfalls_of_attention(v: ui.Values) -> None:
    """Swapped head counts, the nodiv variant, and the other CoPE."""
    ui.pitfall(
        _("query and key head counts swapped"),
        _("Projecting the **key** to `num_heads·d_h` and the **query** to `num_kv_heads·d_h` swaps the head counts. "
        "With plain multi-head attention (`num_kv_heads = num_heads`) the swap is invisible; with grouped-query "
        "attention the first reshape of q fails. The fix: query → `num_heads·d_h`, key and value → "
        "`num_kv_heads·d_h`, then repeat k and v for each query group."),
        key="gqa",
        wrong=lambda: ui.figure_panel(cope_gqa_shapes, dict(layout="swapped"), key="gqa_wrong",
                                      caption=_("8 query heads, 2 key/value heads: the q reshape raises.")),
        right=lambda: ui.figure_panel(cope_gqa_shapes, dict(layout="fixed"), key="gqa_right",
                                      caption=_("Every shape fits; scores come out (B, 8, T, T).")),
    )
    attention = head(v) | dict(emb=v.emb, query=v.i)
    ui.pitfall(
        _("position logits added after 1/√d"),
        _("Upstream divides `q·k + pos` together by `√d_h`; adding `pos` after dividing `q·k` is "
        "upstream's `--cope-nodiv` variant. Both are valid models, but they are not the same: the position term "
        "weighs `√d_h` times more with nodiv, so label which one you use."),
        key="nodiv",
        wrong=lambda: ui.figure_panel(cope_attention, dict(attention, nodiv=True), key="nodiv_wrong",
        live={"i": "query", "scale": "scale", "bias": "bias", "npos_max": "npos_max", "seed": "seed",
              "d_head": "d_head"},
                                      caption=_("nodiv: the position term dominates the content term.")),
        right=lambda: ui.figure_panel(cope_attention, dict(attention, nodiv=False), key="nodiv_right",
        live={"i": "query", "scale": "scale", "bias": "bias", "npos_max": "npos_max", "seed": "seed",
              "d_head": "d_head"},
                                      caption=_("Official: content and position scaled together.")),
    )
    ui.pitfall(
        _("two methods called CoPE"),
        _("Searching for CoPE also finds **Clipped RoPE** (for example in mlx-lm and mlx-vlm pull requests), a "
        "variant of RoPE that shares the acronym. It is a different method: Contextual Position Encoding, on this "
        "page, replaces token counting by gate counting and uses learned, interpolated position embeddings; check "
        "which one a paper or a library means before comparing numbers."),
        key="name",
    )


@lesson.part("pitfalls", N_("5. Pitfalls"), uses=(*HEAD, "i", "emb"), title=N_("5. Pitfalls"))
def part_pitfalls(v: ui.Values) -> None:
    run = show_text(v)
    pitfalls_of_counting(v, run)
    pitfalls_of_attention(v)


EVERY_PART = (part_count, part_positions, part_query, part_interpolation, part_table, part_attention,
              part_pitfalls)


@lesson.part("all", N_("Everything on one page"), uses=(*HEAD, "i", "emb", "j"), title=N_("The whole lesson"),
             controls=tuple(c for p in lesson.parts.values() if p.draw in EVERY_PART for c in p.controls))
def part_all(v: ui.Values) -> None:
    show_text(v)
    for part in lesson.parts.values():
        if part.draw in EVERY_PART:
            st.subheader(_(part.title or part.label))
            part.draw(ui.Values(v, quiet=True))


lesson.run()
