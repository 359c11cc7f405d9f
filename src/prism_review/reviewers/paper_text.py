"""Paper text for generation prompts: cut at the references, then fit a character budget.

The cut only accepts heading-like lines ("References", "## 7 Bibliography", "REFERENCES:") and
the LaTeX bibliography commands, so a body sentence that starts with "Reference …" does not cut
the paper early (the risk S2 of the original code). The budget is in characters (about four per
token for English), so truncation needs no tokenizer and gives the same prompt everywhere.
"""

from __future__ import annotations

import re

#: default paper budget: ~12k tokens, near the 13k-token ``review_input`` of the perturbation set
DEFAULT_MAX_CHARS = 48_000

_MARKERS = r"references?|bibliography|works\s+cited|literature\s+cited"
_HEADING = re.compile(
    rf"^[ \t]*(?:#+[ \t]*|\*\*)?(?:[0-9IVX]+\.?[ \t]+)?(?:{_MARKERS})(?:\*\*)?[ \t:.]*$",
    re.IGNORECASE | re.MULTILINE,
)
_LATEX = re.compile(r"^[ \t]*\\(?:begin\{thebibliography\}|bibliography\{|printbibliography)", re.MULTILINE)
TRUNCATION_MARK = "\n\n[… paper text truncated …]"


def cut_at_references(text: str) -> str:
    """``text`` up to its first reference heading or LaTeX bibliography command (whole if none).

    A heading in the first 10% of the text is ignored (a table of contents, or a paper with a
    "References" line before its body is not plausible), unless the text is very short.
    """
    floor = len(text) // 10 if len(text) > 2_000 else 0
    cuts = [m.start() for pat in (_HEADING, _LATEX) for m in pat.finditer(text) if m.start() >= floor]
    return text[: min(cuts)].rstrip() if cuts else text


def fit_budget(text: str, max_chars: int | None) -> tuple[str, bool]:
    """``(text, truncated)``: ``text`` cut to ``max_chars`` at a paragraph or line break if possible."""
    if max_chars is None or max_chars <= 0 or len(text) <= max_chars:
        return text, False
    head = text[:max_chars]
    for sep in ("\n\n", "\n", " "):
        at = head.rfind(sep)
        if at >= max_chars * 0.8:
            head = head[:at]
            break
    return head.rstrip() + TRUNCATION_MARK, True


def prepare_paper(text: str, max_chars: int | None = DEFAULT_MAX_CHARS) -> str:
    """The paper text a generation prompt shows: cut at the references, then fit the budget."""
    body, _ = fit_budget(cut_at_references(text or ""), max_chars)
    return body
