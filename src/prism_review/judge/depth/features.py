"""Text features of the offline DoA judge, shared by training and inference.

The same functions feed scikit-learn at training time and the numpy inference code at run
time, so the two can never drift apart. Three feature families:

* word uni+bi-grams (lower-cased ``\\w+`` tokens, digits folded to ``0``);
* character 2–5-grams inside word boundaries (each word padded with spaces);
* hand features that carry the task's cues: numbers, citations, figure/table/equation/section
  references, causal connectives, hedges, requests, questions, list markers, the unit's
  relative position in the review and its length.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

_TOKEN = re.compile(r"\w+", re.UNICODE)
_DIGITS = re.compile(r"\d")

CHAR_NGRAMS = (2, 5)


def _tokens(text: str) -> list[str]:
    return [_DIGITS.sub("0", t) for t in _TOKEN.findall(text.lower())]


def word_terms(text: str) -> list[str]:
    """Word uni- and bi-gram terms of ``text`` (prefixed ``w:``)."""
    toks = _tokens(text)
    out = ["w:" + t for t in toks]
    out.extend("w:" + a + " " + b for a, b in zip(toks, toks[1:], strict=False))
    return out


def char_terms(text: str) -> list[str]:
    """Character n-grams within word boundaries (prefixed ``c:``)."""
    out: list[str] = []
    lo, hi = CHAR_NGRAMS
    for tok in _tokens(text):
        w = " " + tok + " "
        lw = len(w)
        for n in range(lo, hi + 1):
            if n > lw:
                break
            out.extend("c:" + w[i : i + n] for i in range(lw - n + 1))
    return out


_CUES: list[tuple[str, re.Pattern[str]]] = [
    ("number", re.compile(r"\d")),
    ("percent", re.compile(r"\d\s*%|percent")),
    ("decimal", re.compile(r"\d\.\d")),
    ("citation", re.compile(r"et al\.?|\[\d+(?:[,\s–-]+\d+)*\]|\(\w[^()]*\b(?:19|20)\d\d[a-z]?\)")),
    ("year", re.compile(r"\b(?:19|20)\d\d\b")),
    ("figref", re.compile(r"\b(?:fig(?:ure)?s?|tab(?:le)?s?)\.?\s*\d", re.I)),
    ("eqref", re.compile(r"\b(?:eq(?:uation)?s?|eqn)\.?\s*\(?\d|\(\d+\)", re.I)),
    (
        "secref",
        re.compile(r"\b(?:sec(?:tion)?s?|§|appendix|line|lines|page|p\.)\s*\.?\s*[\dA-Z]", re.I),
    ),
    ("because", re.compile(r"\b(?:because|since|due to|as a result|therefore|thus|hence)\b", re.I)),
    ("example", re.compile(r"\b(?:e\.g\.|for example|for instance|such as|i\.e\.)", re.I)),
    ("contrast", re.compile(r"\b(?:however|but|although|while|whereas)\b", re.I)),
    (
        "request",
        re.compile(r"\b(?:should|could|would|please|suggest|recommend|need to|must)\b", re.I),
    ),
    (
        "hedge",
        re.compile(r"\b(?:seems?|appears?|might|may|unclear|not sure|i think|i believe)\b", re.I),
    ),
    (
        "evaluative",
        re.compile(
            r"\b(?:good|well|nice|interesting|novel|weak|strong|limited|lack|lacks|missing|unclear|clear|poor|convincing|significant)\b",
            re.I,
        ),
    ),
    ("authors", re.compile(r"\b(?:the authors?|this paper|the paper|this work|they)\b", re.I)),
    (
        "propose",
        re.compile(
            r"\b(?:propose[sd]?|present[s]?|introduce[sd]?|stud(?:y|ies)|investigate[sd]?)\b", re.I
        ),
    ),
    ("first_person", re.compile(r"\b(?:i|my|me|we)\b", re.I)),
    ("question", re.compile(r"\?")),
    ("quote", re.compile(r"[\"“”]|^>")),
    ("bullet", re.compile(r"^\s*(?:[-*•]|\d+[.)]|\([a-z0-9]\))\s")),
    ("heading", re.compile(r"^\s*(?:#+|\*\*)|:\s*$")),
    ("thanks", re.compile(r"\b(?:thank|thanks|appreciate)\b", re.I)),
    ("math", re.compile(r"[=<>^_\\$]")),
]

HAND_NAMES: list[str] = [name for name, _ in _CUES] + [
    "pos_rel",
    "pos_first",
    "pos_last",
    "len_log",
    "short",
    "upper_ratio",
]


def hand_features(text: str, index: int, count: int) -> list[float]:
    """Cue indicators plus position and length features of one unit."""
    feats = [1.0 if rx.search(text) else 0.0 for _, rx in _CUES]
    n = max(count, 1)
    rel = index / (n - 1) if n > 1 else 0.0
    n_letters = sum(map(str.isalpha, text))
    upper = sum(map(str.isupper, filter(str.isalpha, text))) / n_letters if n_letters else 0.0
    nwords = len(text.split())
    feats += [
        rel,
        1.0 if index == 0 else 0.0,
        1.0 if index == n - 1 else 0.0,
        math.log1p(nwords) / 4.0,
        1.0 if nwords <= 4 else 0.0,
        upper,
    ]
    return feats


def unit_terms(text: str) -> list[str]:
    """All sparse terms (word and char n-grams) of a unit."""
    return word_terms(text) + char_terms(text)


#: a section heading at the start of a unit ("- Weaknesses:", "**Pros**", "Minor comments:")
_SECTION_HEAD = re.compile(
    r"^\W{0,6}(?P<name>summary|strengths?|weakness(?:es)?|pros|cons|positives?|negatives?"
    r"|concerns?|questions?|comments?|suggestions?|minor|major|typos?|general discussion"
    r"|detailed comments|overall)\b[^.:\n]{0,40}(?::|$)",
    re.I,
)
SECTION_KINDS = ("summary", "positive", "negative", "minor", "other")
_SECTION_OF = {
    "summary": "summary",
    "strength": "positive",
    "strengths": "positive",
    "pros": "positive",
    "positive": "positive",
    "positives": "positive",
    "weakness": "negative",
    "weaknesses": "negative",
    "cons": "negative",
    "negative": "negative",
    "negatives": "negative",
    "concern": "negative",
    "concerns": "negative",
    "major": "negative",
    "minor": "minor",
    "typo": "minor",
    "typos": "minor",
    "question": "minor",
    "questions": "minor",
}


def section_kind(text: str) -> str | None:
    """The kind of section a unit opens when it starts with a heading, else None."""
    m = _SECTION_HEAD.match(text)
    if m is None:
        return None
    return _SECTION_OF.get(m.group("name").lower(), "other")


def section_features(texts: Sequence[str], index: int) -> list[float]:
    """The section the unit sits in (last heading at or before it) and whether it opens one."""
    kind, dist = None, 0
    for j in range(index, -1, -1):
        kind = section_kind(texts[j])
        if kind is not None:
            dist = index - j
            break
    onehot = [1.0 if kind == k else 0.0 for k in SECTION_KINDS]
    return onehot + [1.0 if kind is not None and dist == 0 else 0.0, math.log1p(dist) / 4.0]


SECTION_NAMES = [f"section_{k}" for k in SECTION_KINDS] + ["section_opens", "section_dist"]


_NEXT_BECAUSE = re.compile(r"\b(?:because|since|for example|e\.g\.)", re.I)


def context_hand(texts: Sequence[str], index: int) -> list[float]:
    """Hand features of the unit, its section and a few of its neighbours' cues."""
    n = len(texts)
    own = hand_features(texts[index], index, n) + section_features(texts, index)
    prev = texts[index - 1] if index > 0 else ""
    nxt = texts[index + 1] if index + 1 < n else ""
    extra = [
        1.0 if prev.rstrip().endswith(":") else 0.0,
        1.0 if nxt.lstrip().startswith(("-", "*", "•")) else 0.0,
        1.0 if _NEXT_BECAUSE.search(nxt) else 0.0,
    ]
    return own + extra


CONTEXT_NAMES: list[str] = (
    HAND_NAMES + SECTION_NAMES + ["prev_colon", "next_bullet", "next_because"]
)
