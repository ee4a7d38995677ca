"""CoPE: gates decide which tokens count, positions are sums of gates, fractional positions interpolate."""

import functools

import streamlit as st

from posviz import cope, ui

T_CAP = cope.MAX_TOKENS

ui.setup_page(
    "CoPE", icon="🧮",
    intro="Contextual Position Encoding (Golovneva et al. 2024) lets the model decide what a position counts: "
          "words, sentences, or anything a gate can recognise. Type a text, pick a gate rule, and watch the "
          "gates become positions, the positions become interpolated embeddings, and the embeddings "
          "reshape attention.",
)


def lesson() -> None:
    """The text and gate settings, the choice of part, and that part."""
    # ---------------------------------------------------------------------------------------------------
    st.header("Your text and the gate rule")
    src = ui.controls(
        # your own text is the last option: up to 64 tokens, the largest setting (the examples have 25-27)
        ui.Choice("example", "text to count", default="typed", widget="select",
                  options={"sentences": "example: several sentences", "list": "example: a bulleted list",
                           "code": "example: a line of code", "typed": "your text (box)"}),
        ui.Text("text", "your text", default=cope.DEFAULT_TEXT, max_chars=1000, area=True,
                help=f"Shown back as plain text only. At most {T_CAP} tokens are used."),
        where="main", columns=2,
    )
    g = ui.controls(
        ui.Choice("rule", "gate rule (score s_ij)", default="sentences", options=cope.RULES, widget="select"),
        ui.Float("scale", "gate logit scale a (z = a·s + b)", default=10.0, lo=0.0, hi=40.0, step=0.5,
                 help="At a ≥ 37 the gates of ±1 scores are exactly 0 or 1 in float64."),
        ui.Float("bias", "gate logit bias b", default=0.0, lo=-10.0, hi=10.0, step=0.5),
        where="main", columns=3,
    )
    s = ui.controls(
        ui.Int("i", "query i (−1 = last token)", default=-1, lo=-1, hi=T_CAP - 1,
               help="The query whose view the chips, bars, interpolation and attention show."),
        ui.Bool("causal", "causal mask on the gates", default=True,
                help="Off shows the leak: positions then count future tokens."),
        ui.Int("npos_max", "npos_max P (0 = T + 1)", default=0, lo=0, hi=T_CAP + 1,
               help="Size of the position table; positions are clamped to P − 1. Upstream default: T + 1."),
        ui.Int("seed", "random seed", default=0, lo=0, hi=999, help="Embeddings of the toy attention head and e."),
        ui.Int("d_head", "head dim d_h", default=16, lo=4, hi=64, step=4),
        ui.Choice("emb", "embedding table e", default="random",
                  options={"random": "seeded random", "sinusoidal": "sinusoidal"}),
    )

    text = src.text if src.example == "typed" else cope.EXAMPLES[src.example]
    if src.example != "typed":
        st.caption("Using the example below; choose “your text (box)” to count your own text.")
    if cope.tokenize(text).T == 0:
        st.info("The text is empty (or only spaces), so there is nothing to count: showing the first example "
                "instead.")
        text = cope.DEFAULT_TEXT
    st.caption("Text being counted (shown exactly as typed):")
    ui.say(text)
    L = cope.cope_lesson(text=text, rule=g.rule, scale=g.scale, bias=g.bias, causal=s.causal,
                         npos_max=s.npos_max, seed=s.seed, d_head=s.d_head)
    if L.tokens.truncated:
        st.info(f"Long text: only the first {T_CAP} tokens are used (matrices are T × T; {T_CAP} is the cap).")

    base = dict(text=text, rule=g.rule, scale=g.scale, bias=g.bias, causal=s.causal, npos_max=s.npos_max)
    full = dict(base, seed=s.seed, d_head=s.d_head)

    i = cope.pick_index(s.i, L.T)
    if s.i >= L.T:
        st.caption(f"The text has {L.T} tokens: query i is clamped to {i}.")

    PARTS_SHOWN = {"count": "1 · which tokens count", "positions": "2 · positions, every query",
                   "query": "2 · positions, one query", "interp": "3 · interpolation", "table": "3 · embedding table",
                   "attention": "4 · attention", "pitfalls": "pitfalls", "all": "everything on one page"}
    part_shown = ui.choose_part(PARTS_SHOWN, default="count", help="“everything” shows the whole lesson.")

    def part_count() -> None:
        st.header("1. Gates decide which tokens count")
        ui.figure_panel(
            "cope_tokens", dict(base, query=s.i), key="tokens",
            caption="Our toy tokenizer cuts words longer than 5 characters into pieces (“##” marks a continuation), "
                    "as sub-word tokenizers do. Dark chips are keys the query counts; the green number under each "
                    "chip is its position p_ij: how many counted tokens lie between it and the query, itself "
                    "included. Switch the rule between “count words” and “count everything” to see pieces stop "
                    "counting separately.",
            latex=r"g_{ij} = \sigma(z_{ij})\,M_{ij},\qquad z_{ij} = a\,s_{ij} + b,\qquad "
                  r"M_{ij} = [\,j \le i\,]",
            code=[cope.tokenize, cope.gate_logits, cope.gate_scores, cope.cope_gates],
        )
        ui.numbers({"tokens T": L.T, "words": sum(L.tokens.word_start), "sentence ends": sum(L.tokens.sentence_end),
                    f"counted by query {i}": round(float(L.gates[i].sum()), 2), "npos_max P": L.npos_max})

    def part_positions() -> None:
        st.header("2. Positions are sums of gates")
        ui.figure_panel(
            "cope_gates_positions", full, key="positions",
            caption="Read a row: the query counts back from itself, so positions rise to the left in steps wherever "
                    "a gate is 1 and stay flat where gates are 0. With sentence gates every token of a sentence "
                    "shares one position; with “count everything” the middle panel equals the right one plus 1. "
                    "Blank cells are future keys, removed by the causal mask; an × marks a position clamped to P − 1.",
            latex=r"p_{ij} = \sum_{k=j}^{i} g_{ik}\ \in [0,\ i-j+1],\qquad p_{ij} \leftarrow \min(p_{ij},\ P-1)",
            code=[cope.cope_positions, cope.positions_from_gates],
        )
        lower = L.distance >= 0
        top_ok = bool((L.positions_raw[lower] <= L.distance[lower] + 1 + 1e-9).all())
        excess = float((L.positions_raw - L.distance - 1)[lower].max())
        ui.check("p_ij ≤ i − j + 1 for every key j ≤ i", top_ok,
                 f"max over the triangle of p_ij − (i − j + 1) = {excess:.3g} (never above 0)")
        if g.rule == "all":
            gap = float(abs(L.positions_raw - (L.distance + 1))[lower].max())
            ui.check("count everything: p_ij = i − j + 1 (CoPE becomes relative position)", gap < 1e-9,
                     f"max |p_ij − (i − j + 1)| = {gap:.2e} at scale a = {g.scale:g}"
                     + ("" if gap < 1e-9 else "; raise a to 37 or more for gates of exactly 1"))
        if L.clamped.any():
            st.caption(f"{int(L.clamped.sum())} positions exceed P − 1 = {L.npos_max - 1} and are clamped: those keys "
                       "all share the embedding e[P − 1].")

    def part_query() -> None:
        st.header("2. Positions seen from one query")
        ui.figure_panel(
            "cope_query_positions", dict(full, query=s.i), key="query_bars",
            caption="Bars: the CoPE position of every key seen from this query, coloured by the key's gate. Dashed: "
                    "i − j + 1, what plain token counting gives. The bars climb only at counted tokens, so a "
                    "position can mean “2 sentences back” however long the sentences are.",
            code=[cope.cope_positions],
        )

    @functools.cache
    def key_j() -> int:
        """The key j whose interpolation is shown (one control, shared by the interpolation and table parts)."""
        kj = ui.controls(
            ui.Int("j", "key j for the interpolation", default=0, lo=0, hi=T_CAP - 1),
            where="main", columns=1,
        )
        j = min(kj.j, L.T - 1 if not s.causal else i)
        if j != kj.j:
            st.caption(f"Key j is clamped to {j} (keys after the query have no position under the causal mask).")
        return j

    def part_interpolation() -> None:
        st.header("3. Fractional positions interpolate between embeddings")
        j = key_j()
        ui.figure_panel(
            "cope_interpolation", dict(full, emb=s.emb, query=i, key=j), key="interp",
            caption="A position like 2.4 has no embedding of its own. CoPE computes the logits of the integer "
                    "positions once per query, z_i[p] = q_i·e[p], and takes the point on the straight line "
                    "between ⌊p⌋ and ⌈p⌉. When the gates are 0 or 1, p is (almost) an integer and w ≈ 0: pick "
                    "the attention rule, or a scale a near 1, to see truly fractional positions.",
            latex=r"\begin{gathered}\mathrm{pos}_{ij} = w\,z_i[\lceil p_{ij}\rceil] + (1-w)\,z_i[\lfloor p_{ij}"
                  r"\rfloor] \\ w = p_{ij}-\lfloor p_{ij}\rfloor,\qquad z_i[p] = q_i^\top e[p]\end{gathered}",
            code=[cope.interpolate, cope.position_logits],
        )
        d = cope.interpolation_detail(L, i, j)
        ui.numbers({"p_ij": f"{d['p']:.3f}", "⌊p⌋": int(d["floor"]), "⌈p⌉": int(d["ceil"]), "w": f"{d['w']:.3f}",
                    "z_i[⌊p⌋]": f"{d['z_floor']:.3f}", "z_i[⌈p⌉]": f"{d['z_ceil']:.3f}", "pos_ij": f"{d['logit']:.3f}"})

    def part_table() -> None:
        st.header("3. The table of position embeddings e")
        ui.figure_panel(
            "cope_embedding_table", dict(full, emb=s.emb, query=i, key=key_j()), key="table",
            caption="The table e has one column per integer position 0 … P − 1 (P = T + 1 by default, because "
                    "p can reach T). Upstream learns it from zeros; here it is seeded random or sinusoidal so "
                    "the logits are visible. The outlined columns are the two the chosen (i, j) mixes.",
            code=[cope.embedding_table],
        )

    def part_attention() -> None:
        st.header("4. Attention with and without CoPE")
        a = ui.controls(
            ui.Int("target", "position sought p*", default=2, lo=0, hi=T_CAP,
                   help="The query gets a part strength·e[p*]/‖e[p*]‖, so its position logits peak at p*."),
            ui.Float("strength", "strength β", default=6.0, lo=0.0, hi=20.0, step=0.5),
            ui.Bool("nodiv", "add pos after 1/√d (nodiv, seed 000)", default=False),
            where="main", columns=3,
        )
        att = dict(full, emb=s.emb, target=a.target, strength=a.strength, nodiv=a.nodiv, query=s.i)
        LA = cope.cope_lesson(text=text, rule=g.rule, scale=g.scale, bias=g.bias, causal=s.causal,
                              npos_max=s.npos_max, seed=s.seed, d_head=s.d_head, emb=s.emb, target=a.target,
                              strength=a.strength, nodiv=a.nodiv)
        if LA.target != a.target:
            st.caption(f"p* is clamped to P − 1 = {LA.target}.")
        ui.figure_panel(
            "cope_attention", att, key="attention",
            caption="The toy head's keys carry no position at all, so without CoPE its attention ignores order. The "
                    "query asks for CoPE position p*: with sentence gates and the final “.” as query, p* = 2 is the "
                    "previous sentence, whatever its length in tokens. The CoPE bars move onto those keys.",
            latex=r"a_{ij} = \mathrm{softmax}_j\!\left(\frac{q_i^\top k_j + \mathrm{pos}_{ij}}{\sqrt{d_h}}\right)"
                  r"\quad\text{(nodiv: } q_i^\top k_j/\sqrt{d_h} + \mathrm{pos}_{ij}\text{)}",
            code=[cope.attention_weights, cope.cope_lesson, cope.seeded_qk],
        )
        plain, with_cope = cope.attention_near_target(LA, i)
        ui.numbers({f"attention on keys at p ≈ {LA.target}, no position": plain,
                    "… with CoPE": with_cope}, fmt="{:.3f}")
        with st.expander("The CoPE module (official semantics) in code"):
            st.caption("posviz.cope.CoPE(head_dim, block_size, npos_max=None, nodiv=False): one head of CoPE "
                       "self-attention. Gates σ(q·k/√d) times the causal mask, npos_max = block_size + 1, position "
                       "logits added before the 1/√d scaling unless nodiv=True.")
            st.code("import torch\nfrom posviz.cope import CoPE\n\nm = CoPE(head_dim=16, block_size=64)\n"
                    "q, k, v = (torch.randn(2, 10, 16) for _ in range(3))\nres = m(q, k, v)\n"
                    "res['positions'].shape, res['attn'].shape   # (2, 10, 10), (2, 10, 10)", language="python")

    def part_pitfalls() -> None:
        att = dict(full, emb=s.emb, query=s.i)
        st.header("Pitfalls")
        pit = dict(text=text, rule=g.rule, scale=g.scale, bias=g.bias, npos_max=s.npos_max)
        ui.pitfall(
            "gates without the causal mask count the future",
            "The mask must multiply the **gates** before the cumulative sum, not only the attention. Without it "
            "`p_ij` sums gates of keys after the query: even the query's own position tells it how much text "
            "follows. With all logits 0, query 0 gets positions `[2.0, 1.5, 1.0, 0.5]` instead of `[0.5, 0, 0, 0]`. "
            "(Seed 000 passes the masked attention logits, where σ(−∞) = 0 does the job.)",
            key="leak",
            wrong=lambda: ui.figure_panel("cope_positions_map", dict(pit, causal=False), key="leak_wrong",
                                          caption="Upper triangle filled: positions depend on future tokens."),
            right=lambda: ui.figure_panel("cope_positions_map", dict(pit, causal=True), key="leak_right",
                                          caption="Upper triangle empty: only the past is counted."),
        )
        every = dict(text=text, rule="all", scale=cope.SATURATE, bias=0.0, causal=True)
        ui.pitfall(
            "a table of T embeddings (seed 000)",
            "Seed 000 builds `CoPE(seq_len, head_dim)`, a table of T embeddings. But the query's own gate counts, "
            "so `p_ij` reaches `i − j + 1`, i.e. T for the last query and the first key: with T entries that "
            "position is silently clamped onto T − 1. Upstream uses `block_size + 1` (“position 0 is possible”). "
            "Shown with every gate at 1.",
            key="table_size",
            wrong=lambda: ui.figure_panel("cope_positions_map", dict(every, npos_max=L.T), key="size_wrong",
                                          caption=f"npos_max = T = {L.T}: the corner position {L.T} is clamped (×)."),
            right=lambda: ui.figure_panel("cope_positions_map", dict(every, npos_max=L.T + 1), key="size_right",
                                          caption=f"npos_max = T + 1 = {L.T + 1}: nothing is clamped."),
        )
        ui.pitfall(
            "positions lie in [0, i − j + 1], not [0, i] (seed 000)",
            "Seed 000 says each position is a float in `[0, i]`. Summing from key j to the query i adds `i − j + 1` "
            "gates, the query's own included, so `p_ij ∈ [0, i − j + 1]`; with every gate at 1 the first key sits "
            "at `i + 1`, above the claimed bound on every row.",
            key="bounds",
            wrong=lambda: ui.figure_panel("cope_position_bounds", dict(text=text, claim="seed"), key="bounds_wrong",
                                          caption="Every bar is red: the claimed bound i is exceeded."),
            right=lambda: ui.figure_panel("cope_position_bounds", dict(text=text, claim="true"), key="bounds_right",
                                          caption="The bound i − j + 1 holds everywhere, with equality."),
        )
        ui.pitfall(
            "query and key head counts swapped (seed 000)",
            "Seed 000's attention projects the **key** to `num_heads·d_h` and the **query** to `num_kv_heads·d_h`. "
            "With plain multi-head attention (`num_kv_heads = num_heads`) the swap is invisible; with grouped-query "
            "attention the first reshape of q fails. The fix: query → `num_heads·d_h`, key and value → "
            "`num_kv_heads·d_h`, then repeat k and v for each query group.",
            key="gqa",
            wrong=lambda: ui.figure_panel("cope_gqa_shapes", dict(layout="seed000"), key="gqa_wrong",
                                          caption="8 query heads, 2 key/value heads: the q reshape raises."),
            right=lambda: ui.figure_panel("cope_gqa_shapes", dict(layout="fixed"), key="gqa_right",
                                          caption="Every shape fits; scores come out (B, 8, T, T)."),
        )
        ui.pitfall(
            "position logits added after 1/√d (seed 000)",
            "Upstream divides `q·k + pos` together by `√d_h`; seed 000 adds `pos` after dividing `q·k`, which is "
            "upstream's `--cope-nodiv` variant. Both are valid models, but they are not the same: the position "
            "term weighs `√d_h` times more with nodiv, so label which one you use.",
            key="nodiv",
            wrong=lambda: ui.figure_panel("cope_attention", dict(att, nodiv=True), key="nodiv_wrong",
                                          caption="nodiv: the position term dominates the content term."),
            right=lambda: ui.figure_panel("cope_attention", dict(att, nodiv=False), key="nodiv_right",
                                          caption="Official: content and position scaled together."),
        )
        ui.pitfall(
            "two methods called CoPE",
            "Searching for CoPE also finds **Clipped RoPE** (for example in mlx-lm and mlx-vlm pull requests), a "
            "variant of RoPE that shares the acronym. It is a different method: Contextual Position Encoding, on "
            "this page, replaces token counting by gate counting and uses learned, interpolated position "
            "embeddings; check which one a paper or a library means before comparing numbers.",
            key="name",
        )

    PARTS = {"count": part_count, "positions": part_positions, "query": part_query, "interp": part_interpolation,
             "table": part_table, "attention": part_attention, "pitfalls": part_pitfalls}
    for name, part in PARTS.items():
        if part_shown in (name, "all"):
            part()


ui.lesson(lesson)
