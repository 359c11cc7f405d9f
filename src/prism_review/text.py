"""Shared text utilities: sentence splitting with character offsets, whitespace folding."""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel

_WS = re.compile(r"\s+")


class Span(BaseModel):
    """A piece of a text with its [start, end) character offsets."""

    start: int
    end: int
    text: str


def fold_ws(text: str) -> str:
    """Collapse all whitespace runs to one space and strip."""
    return _WS.sub(" ", text).strip()


@lru_cache(maxsize=1)
def _nupunkt():  # type: ignore[no-untyped-def]
    import nupunkt

    return nupunkt


def sentence_spans(text: str) -> list[Span]:
    """Split ``text`` into sentences (nupunkt: handles "Fig. 3", "et al.", "e.g."), with offsets.

    Blank lines and bullet/heading line breaks also end a sentence, since reviews are
    markdown-ish and often list points without final punctuation.
    """
    out: list[Span] = []
    for m in re.finditer(r"[^\n]+(?:\n(?![ \t]*(?:\n|[-*•]\s|\d+[.)]\s|#|\*\*))[^\n]+)*", text):
        block_start = m.start()
        block = m.group(0)
        for s, e in _block_spans(block):
            piece = block[s:e]
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                trail = len(piece) - len(piece.rstrip())
                out.append(
                    Span(
                        start=block_start + s + lead,
                        end=block_start + e - trail,
                        text=piece.strip(),
                    )
                )
    return out


def _block_spans(block: str) -> list[tuple[int, int]]:
    spans = _nupunkt().sent_spans(block)
    return [(int(s), int(e)) for s, e in spans]


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` as strings (see :func:`sentence_spans`)."""
    return [s.text for s in sentence_spans(text)]
