"""The CoPE lesson's toy tokenizer: words, sub-word pieces, punctuation and line breaks, deterministic.

Words longer than ``PIECE_LEN`` characters are cut into pieces the way sub-word tokenizers split rare words, so the
lesson's "count words" and "count everything" gate rules differ; sentence ends and word starts are marked for the
gate rules of ``posviz.cope.lesson``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from posviz._validate import check_int
from posviz.cope.model import MAX_T

MAX_TOKENS = 64          # the lesson's cap on T: matrices are T×T, and a screen shows 64 labels at most
PIECE_LEN = 5            # the toy tokenizer cuts words longer than this into pieces of this many characters

SENTENCE_ENDS = frozenset(".!?。！？…")
NEWLINE = "\n"
NEWLINE_LABEL = "↵"
CONTINUATION = "##"

_TOKEN_RE = re.compile(r"\n|\w+|[^\w\s]", re.UNICODE)


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
