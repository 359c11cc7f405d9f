"""Offline check of a criticism that quotes a formula: does the paper state it differently?

A criticism such as "the paper writes ``$n(L-1)$``; it should be ``n(L+1)``" is checkable: if
the paper states the same expression elsewhere with a different number, operator or symbol, the
quoted passage contradicts the paper and the criticism points at a real error. The check

1. splits the quoted passage and the paper into tokens (LaTeX commands, words, numbers, single
   symbols; braces, ``$`` and whitespace dropped) and removes the quoted passage's own
   occurrences from the paper (the passage is not evidence against itself);
2. finds the paper window most similar to the passage (token-level alignment, see
   :func:`_best_window`);
3. when the window is close (``min_similarity``) but not identical, reads the tokens that differ:

   * a number or operator replaced by another, or added or removed (``+``, ``<``, ``\\le``,
     ``\\max``, ``\\sum`` …), changes a quantity → a real error, ``Critical``;
   * otherwise only symbols were renamed (a letter for a letter or for a number, a Greek letter,
     an accent) → a typo-shaped error a reader repairs silently, ``Minor``;

4. when no close window exists, the paper offers no evidence that the passage is wrong → the
   criticism is not supported (invalid).

Only passages that look like mathematics (``$``, ``\\`` or a relation between symbols) and are
quoted verbatim from the paper are checked (:func:`edit_verdict`); any other criticism is judged
by the rules of :mod:`.validity`.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz

_TOKEN = re.compile(r"\\[A-Za-z]+|[A-Za-z]+|\d+(?:\.\d+)?|[^\sA-Za-z\d{}$\\]")
_MATHY = re.compile(r"\$|\\[A-Za-z]+|\b[A-Za-z]\s*[=<>]\s*\S")
#: LaTeX commands that are operators or relations (they change what an expression says)
_OP_WORDS = r"""\le \leq \ge \geq \neq \ne \lt \gt \approx \sim \equiv \to \mapsto \in \notin
\subset \subseteq \supset \supseteq \cup \cap \setminus \times \cdot \pm \mp \div \max \min \sup
\inf \limsup \liminf \lim \sum \prod \int \oint \partial \nabla \sqrt \frac \log \ln \exp \infty
\wedge \vee \neg \forall \exists"""
_OP_COMMANDS = frozenset(_OP_WORDS.split())

EditKind = Literal["quantity", "symbol"]


@dataclass
class EditEvidence:
    """What the paper says about a quoted passage."""

    kind: EditKind | None  # None: no close statement of the passage elsewhere in the paper
    similarity: float
    changed: list[str]


def tokens(text: str) -> list[str]:
    """Formula-aware tokens of a text."""
    return _TOKEN.findall(text)


def is_mathy(text: str) -> bool:
    """Does the passage look like a formula (worth the edit check)?"""
    return bool(_MATHY.search(text))


def _is_quantity(tok: str) -> bool:
    if tok[0].isdigit():
        return True
    if tok.startswith("\\"):
        return tok in _OP_COMMANDS
    return not tok[0].isalpha()  # + - < > = / ^ _ ( ) [ ] ...


def _fold(text: str) -> str:
    return " ".join(text.split())


def _best_window(q: list[str], p: list[str], hint: tuple[int, int]) -> tuple[float, list[str]]:
    """The paper window most like ``q``: matched tokens / the longer length, × 100.

    Candidates: windows of ``len(q)`` ± 1 tokens that start at an occurrence of q's first token
    or end at an occurrence of its last token (an edit inside the expression keeps one end), and
    the fast partial alignment ``hint``. Ties go to the candidate keeping more ends, then to
    one of q's length, then to the earliest.
    """
    n = len(q)
    starts = {hint[0]} | {i for i, t in enumerate(p) if t == q[0]}
    ends = {i + 1 for i, t in enumerate(p) if t == q[-1]}
    spans = {hint}
    for size in (n - 1, n, n + 1):
        spans |= {(s, s + size) for s in starts} | {(e - size, e) for e in ends}
    best: tuple[float, int, int, int] = (-1.0, 0, 0, 0)
    best_window: list[str] = []
    for a, b in sorted(spans):
        if a < 0 or b > len(p) or b <= a:
            continue
        window = p[a:b]
        sm = difflib.SequenceMatcher(a=q, b=window, autojunk=False)
        ratio = 100.0 * sum(m.size for m in sm.get_matching_blocks()) / max(n, len(window))
        kept = int(window[0] == q[0]) + int(window[-1] == q[-1])
        key = (round(ratio, 6), kept, int(len(window) == n), -a)
        if key > best:
            best, best_window = key, window
    return best[0], best_window


def quoted_in(passage: str, paper_text: str) -> bool:
    """Is the passage quoted verbatim (whitespace folded) from the paper?"""
    return bool(passage.strip()) and _fold(passage) in _fold(paper_text)


def edit_evidence(passage: str, paper_text: str, min_similarity: float = 60.0) -> EditEvidence:
    """Compare ``passage`` with its closest restatement in ``paper_text`` (see module doc).

    ``min_similarity`` is the token-level similarity (0–100) a restatement needs;
    60 admits one changed token in a three-token expression (``$N=2$`` against ``$N=1$``).
    """
    q = tokens(passage)
    folded = _fold(paper_text).replace(_fold(passage), " ") if passage.strip() else paper_text
    p = tokens(folded)
    if len(q) < 2 or not p:
        return EditEvidence(None, 0.0, [])
    codes: dict[str, str] = {}

    def enc(ts: list[str]) -> str:
        return "".join(codes.setdefault(t, chr(0x4E00 + len(codes))) for t in ts)

    qs, ps = enc(q), enc(p)
    al = fuzz.partial_ratio_alignment(qs, ps)
    if al is None:
        return EditEvidence(None, 0.0, [])
    score, window = _best_window(q, p, (al.dest_start, al.dest_end))
    if score < min_similarity:
        return EditEvidence(None, score, [])
    changed: list[str] = []
    quantity = False
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=q, b=window, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        diff = q[i1:i2] + window[j1:j2]
        changed += diff
        if op == "replace":  # a number or operator for another; a letter for a number is a rename
            quantity = quantity or all(_is_quantity(t) for t in diff)
        else:  # added or removed tokens
            quantity = quantity or any(_is_quantity(t) for t in diff)
    if not changed:  # the same expression: nothing contradicts the passage
        return EditEvidence(None, score, [])
    return EditEvidence("quantity" if quantity else "symbol", score, changed)


def edit_verdict(
    quotes: list[str], paper_text: str, min_similarity: float = 60.0
) -> tuple[bool, Literal["Critical", "Minor", "None"]] | None:
    """(is_valid, severity) from the first formula quoted verbatim from the paper, else None."""
    for quote in quotes:
        if not (is_mathy(quote) and quoted_in(quote, paper_text)):
            continue
        ev = edit_evidence(quote, paper_text, min_similarity)
        if ev.kind == "quantity":
            return True, "Critical"
        if ev.kind == "symbol":
            return True, "Minor"
        return False, "None"
    return None
